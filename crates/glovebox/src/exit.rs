//! How failures leave the process: a `COMPUTER_*` code and sentence on
//! stderr (and as JSON on stdout with `--json`), and an exit code per kind.
//!
//! Exit codes: 0 success; 1 an I/O or unexpected failure; 2 bad usage or a
//! bad argument; 3 the target window or element does not exist; 4 the
//! platform or backend cannot do it here; 5 refused by policy; 6 timeout.

use glovebox_model::{ErrorCode, Refusal};
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

pub fn exit_code(code: ErrorCode) -> u8 {
    use ErrorCode::*;
    match code {
        InvalidArgument | ModelSchemaViolation => 2,
        TargetGone | ElementNotFound | StaleRef => 3,
        PlatformUnsupported | BackendUnavailable | OsPermissionMissing | BackgroundUnavailable => 4,
        Timeout => 6,
        _ => 5,
    }
}

impl Failure {
    pub fn report(self) -> ExitCode {
        match self {
            Failure::Refused { refusal, json } => {
                if json {
                    println!("{}", serde_json::json!({ "error": refusal }));
                }
                eprintln!("error: {}: {}", refusal.code, refusal.message);
                ExitCode::from(exit_code(refusal.code))
            }
            Failure::Other(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(1)
            }
        }
    }
}
