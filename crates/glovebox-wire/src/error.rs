//! The executors' error: one refusal (a `COMPUTER_*` code and a sentence)
//! and, for a batch, which action failed. Owns the host-to-wire code
//! translation and the HTTP status each code is served with.

use glovebox_model::{ErrorCode, Refusal};
use serde::Serialize;

/// A refused or failed call. `failed_action_index` (0-based) names the
/// action of a batch that failed; the actions after it did not run, and
/// the ones before it did (unless `executed` is 0).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{refusal}{}", failed_action_index.map(|i| format!(" (action {i})")).unwrap_or_default())]
pub struct WireError {
    pub refusal: Refusal,
    pub failed_action_index: Option<usize>,
    /// Actions of the batch that were delivered before the failure.
    pub executed: usize,
}

impl WireError {
    pub fn new(refusal: Refusal) -> WireError {
        WireError { refusal: to_wire(refusal), failed_action_index: None, executed: 0 }
    }

    pub fn at(index: usize, executed: usize, refusal: Refusal) -> WireError {
        WireError { refusal: to_wire(refusal), failed_action_index: Some(index), executed }
    }

    pub fn code(&self) -> ErrorCode {
        self.refusal.code
    }

    /// `{"error": {"code", "message", "failed_action_index"?}}`: the body of
    /// an HTTP error answer.
    pub fn to_json(&self) -> serde_json::Value {
        #[derive(Serialize)]
        struct Body<'a> {
            code: ErrorCode,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            failed_action_index: Option<usize>,
        }
        serde_json::json!({"error": Body { code: self.refusal.code, message: &self.refusal.message, failed_action_index: self.failed_action_index }})
    }

    /// The HTTP status `glovebox serve` answers this error with.
    pub fn http_status(&self) -> u16 {
        http_status(self.refusal.code)
    }
}

impl From<Refusal> for WireError {
    fn from(refusal: Refusal) -> WireError {
        WireError::new(refusal)
    }
}

/// 422 for arguments the caller must change, 403 for what policy or the
/// user refused, 409 for a state of the desktop or grant that a new
/// screenshot (or the user) must resolve.
pub fn http_status(code: ErrorCode) -> u16 {
    use ErrorCode::*;
    match code {
        InvalidArgument | CoordinateOutOfBounds | ModelSchemaViolation => 422,
        Disabled
        | ReadOnly
        | ApprovalRequired
        | ApprovalDenied
        | SafetyCheckUnacknowledged
        | StoppedByUser
        | SelfTarget
        | TargetDenylisted
        | TargetElevated
        | SecureInput
        | ScopeViolation
        | OsPermissionMissing => 403,
        _ => 409,
    }
}

/// The host says `COMPUTER_STALE_BASIS` when the window moved or resized
/// since the frame; on the wire that is the provider contract's
/// `COMPUTER_LAYOUT_CHANGED`, with the host's sentence kept.
pub fn to_wire(refusal: Refusal) -> Refusal {
    glovebox_host::refusals::as_layout_change(refusal)
}

/// A shape error while reading a request: nothing ran.
pub fn invalid(message: impl Into<String>) -> Refusal {
    Refusal::invalid_argument(message)
}
