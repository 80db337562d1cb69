//! How failures leave the process: a `COMPUTER_*` code and sentence on
//! stderr (and as JSON on stdout with `--json`), and an exit code per kind.
//!
//! The statuses themselves are `glovebox::exit_status::Exit`.

use glovebox::exit_status::Exit;
use glovebox_model::Refusal;
use std::process::ExitCode;

pub enum Failure {
    Refused { refusal: Refusal, json: bool },
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

pub fn refused(refusal: Refusal, json: bool) -> Failure {
    Failure::Refused { refusal, json }
}

impl Failure {
    pub fn report(self) -> ExitCode {
        match self {
            Failure::Refused { refusal, json } => {
                if json {
                    println!("{}", serde_json::json!({ "error": refusal }));
                }
                eprintln!("error: {}: {}", refusal.code, refusal.message);
                Exit::of(refusal.code).into()
            }
            Failure::Other(e) => {
                eprintln!("error: {e:#}");
                Exit::Failure.into()
            }
        }
    }
}
