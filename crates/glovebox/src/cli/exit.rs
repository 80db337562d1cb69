//! How failures leave the process: a `COMPUTER_*` code and sentence on
//! stderr (and as JSON on stdout with `--json`), and an exit code per kind.
//!
//! The statuses themselves are `glovebox::exit_status::Exit`. What a
//! one-shot command prints is gathered in a [`Printed`] first, so a warm
//! host can print it for a CLI exactly as the CLI would (`ride.rs`).

use glovebox::exit_status::Exit;
use glovebox_model::Refusal;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub enum Failure {
    Refused {
        refusal: Refusal,
        json: bool,
    },
    /// A change the command would make on the person's say-so (`glovebox
    /// setup`) was not agreed to, or there was no one to ask: the command's
    /// own question, not the gate's approval, so no `COMPUTER_*` code.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    NotAgreed(String),
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
    /// Prints the failure and gives the process's exit code.
    pub fn report(self) -> ExitCode {
        let mut printed = Printed::default();
        let exit = self.render(&mut printed);
        printed.emit(exit.status())
    }

    /// Writes what [`Failure::report`] prints into `printed`.
    pub fn render(self, printed: &mut Printed) -> Exit {
        match self {
            Failure::Refused { refusal, json } => {
                if json {
                    printed.line(&serde_json::json!({ "error": refusal }).to_string());
                }
                printed.error_line(&format!("error: {}: {}", refusal.code, refusal.message));
                Exit::of(refusal.code)
            }
            Failure::NotAgreed(why) => {
                printed.error_line(&format!("not changed: {why}"));
                Exit::Refused
            }
            Failure::Other(e) => {
                printed.error_line(&format!("error: {e:#}"));
                Exit::Failure
            }
        }
    }
}

/// What a one-shot command leaves: a file it writes (first, atomically),
/// then its standard output and error.
#[derive(Debug, Default)]
pub struct Printed {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// A file to write, and its bytes.
    pub file: Option<(PathBuf, Vec<u8>)>,
}

impl Printed {
    /// `text` and a newline on standard output.
    pub fn line(&mut self, text: &str) {
        self.stdout.extend_from_slice(text.as_bytes());
        self.stdout.push(b'\n');
    }

    /// `text` and a newline on standard error.
    pub fn error_line(&mut self, text: &str) {
        self.stderr.extend_from_slice(text.as_bytes());
        self.stderr.push(b'\n');
    }

    /// Writes the file, then prints; a file that cannot be written is the
    /// command's failure and nothing else is printed. A closed standard
    /// output (`| head`) is no failure of the command.
    pub fn emit(self, status: u8) -> ExitCode {
        if let Some((path, bytes)) = &self.file {
            if let Err(e) = write_atomically(path, bytes) {
                eprintln!("error: {e:#}");
                return Exit::Failure.into();
            }
        }
        let _ = std::io::stdout().lock().write_all(&self.stdout);
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().lock().write_all(&self.stderr);
        ExitCode::from(status)
    }
}

/// Writes through a temporary file in the same directory and renames it, so
/// a failure never leaves a partial file at `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let name =
        path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let tmp =
        path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}
