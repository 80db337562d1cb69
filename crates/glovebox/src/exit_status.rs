//! The `glovebox` binary's exit statuses: one per kind of outcome, and the
//! one mapping from a refusal's code to its status.

use glovebox_model::ErrorCode;

/// How a command ended, as its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    Success = 0,
    Failure = 1,
    Usage = 2,
    Missing = 3,
    Unavailable = 4,
    Refused = 5,
    Timeout = 6,
}

impl Exit {
    pub const ALL: [Exit; 7] = [
        Exit::Success,
        Exit::Failure,
        Exit::Usage,
        Exit::Missing,
        Exit::Unavailable,
        Exit::Refused,
        Exit::Timeout,
    ];

    /// The status a refusal with `code` ends the process with.
    pub fn of(code: ErrorCode) -> Exit {
        use ErrorCode::*;
        match code {
            InvalidArgument | ModelSchemaViolation => Exit::Usage,
            TargetGone | ElementNotFound | StaleRef => Exit::Missing,
            PlatformUnsupported
            | BackendUnavailable
            | OsPermissionMissing
            | BackgroundUnavailable => Exit::Unavailable,
            Timeout => Exit::Timeout,
            _ => Exit::Refused,
        }
    }

    pub fn status(self) -> u8 {
        self as u8
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Success => "The command did what it was asked.",
            Exit::Failure => "An I/O or unexpected failure; the message says what.",
            Exit::Usage => "Bad usage or a bad argument.",
            Exit::Missing => "The target window or element does not exist (any more).",
            Exit::Unavailable => "Not possible here: the platform, the backend or a permission is missing (also `doctor` when something is).",
            Exit::Refused => "Refused by policy.",
            Exit::Timeout => "The call ran out of time.",
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.status())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_a_status_other_than_success_and_failure() {
        for code in ErrorCode::ALL {
            assert!(!matches!(Exit::of(*code), Exit::Success | Exit::Failure), "{code}");
        }
        for (index, exit) in Exit::ALL.iter().enumerate() {
            assert_eq!(usize::from(exit.status()), index);
        }
    }
}
