//! The registry of refusal codes (DESIGN.md §8) and the refusal value that
//! carries one code and one human sentence across every layer.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $wire:literal : $meaning:literal, )*) => {
        /// Why glovebox refused or could not do something. Serialised as
        /// `COMPUTER_…`; every variant has a one-sentence meaning.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum ErrorCode {
            $( $(#[$doc])* #[doc = $meaning] #[serde(rename = $wire)] $variant, )*
        }

        impl ErrorCode {
            /// Every code, in registry order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The wire name, e.g. `COMPUTER_TARGET_GONE`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $wire,)* }
            }

            /// One sentence saying what the code means.
            pub const fn meaning(self) -> &'static str {
                match self { $(ErrorCode::$variant => $meaning,)* }
            }

            /// Parses a wire name back into a code.
            pub fn from_wire(name: &str) -> Option<ErrorCode> {
                match name { $($wire => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

error_codes! {
    Disabled = "COMPUTER_DISABLED": "Computer use is turned off in the configuration.",
    ModelUnbound = "COMPUTER_MODEL_UNBOUND": "No model is bound for the instruction-level loop, and glovebox never falls back to another one.",
    NoGrant = "COMPUTER_NO_GRANT": "There is no active grant, and this call cannot create one.",
    StoppedByUser = "COMPUTER_STOPPED_BY_USER": "The user pressed Stop; agent-created grants are refused for the cooldown.",
    PausedByUser = "COMPUTER_PAUSED_BY_USER": "The person took over the agent display from the indicator page; the agent's calls wait until they hand it back.",
    ScopeViolation = "COMPUTER_SCOPE_VIOLATION": "The call reaches outside the active grant's scope, such as rebinding a window-scoped grant.",
    StaleBasis = "COMPUTER_STALE_BASIS": "The window moved, resized or changed identity since the frame the call refers to.",
    StaleRevision = "COMPUTER_STALE_REVISION": "The grant was rebound after the frame the call refers to was made.",
    StaleRef = "COMPUTER_STALE_REF": "The element id belongs to an older frame or another window; observe again and use the new ids.",
    BudgetExhausted = "COMPUTER_BUDGET_EXHAUSTED": "The grant has no input actions left.",
    GrantExpired = "COMPUTER_GRANT_EXPIRED": "The grant expired after being idle too long.",
    SelfTarget = "COMPUTER_SELF_TARGET": "The target is one of glovebox's own windows or a window of the process tree that launched it.",
    SecureInput = "COMPUTER_SECURE_INPUT": "A password field has focus or another client holds the keyboard, so capture and input are refused.",
    TargetDenylisted = "COMPUTER_TARGET_DENYLISTED": "The target application is on the deny list.",
    TargetElevated = "COMPUTER_TARGET_ELEVATED": "The target window belongs to a process of another user.",
    TargetGone = "COMPUTER_TARGET_GONE": "The target window does not exist (any more).",
    OsPermissionMissing = "COMPUTER_OS_PERMISSION_MISSING": "The operating system has not granted a permission that this operation needs.",
    PlatformUnsupported = "COMPUTER_PLATFORM_UNSUPPORTED": "This platform has no glovebox backend yet.",
    BackendUnavailable = "COMPUTER_BACKEND_UNAVAILABLE": "The platform backend cannot be reached or lacks something this operation needs.",
    ElementNotFound = "COMPUTER_ELEMENT_NOT_FOUND": "No element with that id or query exists in the current frame.",
    ElementNotActionable = "COMPUTER_ELEMENT_NOT_ACTIONABLE": "The element exists but cannot take this action (disabled, hidden or lacking the interface).",
    CoordinateOutOfBounds = "COMPUTER_COORDINATE_OUT_OF_BOUNDS": "The point lies outside the frame's image or in a gap between displays; it is never clamped.",
    LayoutChanged = "COMPUTER_LAYOUT_CHANGED": "The display layout changed between the frame and the action; capture again.",
    BackgroundUnavailable = "COMPUTER_BACKGROUND_UNAVAILABLE": "No route can do this without touching the user's pointer, focus or stacking order.",
    InvalidArgument = "COMPUTER_INVALID_ARGUMENT": "An argument is malformed or outside its allowed range.",
    ModelSchemaViolation = "COMPUTER_MODEL_SCHEMA_VIOLATION": "The model answered outside the strict decision schema, so nothing was attempted.",
    ApprovalRequired = "COMPUTER_APPROVAL_REQUIRED": "This call needs the user's approval and no prompt channel is available.",
    ApprovalDenied = "COMPUTER_APPROVAL_DENIED": "The user declined or cancelled the approval prompt.",
    SafetyCheckUnacknowledged = "COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED": "A provider safety check was not explicitly acknowledged by the user.",
    ReadOnly = "COMPUTER_READ_ONLY": "glovebox runs read-only, so every input tool is refused.",
    Timeout = "COMPUTER_TIMEOUT": "The call exceeded its deadline and was cancelled.",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: exactly one code and a sentence a person or a model can act on.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, thiserror::Error,
)]
#[error("{code}: {message}")]
pub struct Refusal {
    /// The one reason, serialised as its wire name (`COMPUTER_…`).
    pub code: ErrorCode,
    /// One sentence saying what was refused and, where it can, what to do instead.
    pub message: String,
}

impl Refusal {
    /// A refusal with `code` and the sentence `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Refusal { code, message: message.into() }
    }

    /// A refusal with [`ErrorCode::InvalidArgument`]: an argument is malformed or out of range.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Refusal::new(ErrorCode::InvalidArgument, message)
    }

    /// A refusal with [`ErrorCode::BackendUnavailable`]: the platform backend cannot be
    /// reached or lacks something the operation needs.
    pub fn backend_unavailable(message: impl Into<String>) -> Self {
        Refusal::new(ErrorCode::BackendUnavailable, message)
    }

    /// A refusal with [`ErrorCode::TargetGone`]: the target window does not exist (any more).
    pub fn target_gone(message: impl Into<String>) -> Self {
        Refusal::new(ErrorCode::TargetGone, message)
    }

    /// The same refusal, its code kept and its sentence rewritten by
    /// `sentence` (a caller saying where it happened: a batch's step).
    pub fn reworded(self, sentence: impl FnOnce(&str) -> String) -> Self {
        Refusal { message: sentence(&self.message), code: self.code }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_holds_every_code_of_the_design_once() {
        let design = [
            "DISABLED",
            "MODEL_UNBOUND",
            "NO_GRANT",
            "STOPPED_BY_USER",
            "PAUSED_BY_USER",
            "SCOPE_VIOLATION",
            "STALE_BASIS",
            "STALE_REVISION",
            "STALE_REF",
            "BUDGET_EXHAUSTED",
            "GRANT_EXPIRED",
            "SELF_TARGET",
            "SECURE_INPUT",
            "TARGET_DENYLISTED",
            "TARGET_ELEVATED",
            "TARGET_GONE",
            "OS_PERMISSION_MISSING",
            "PLATFORM_UNSUPPORTED",
            "BACKEND_UNAVAILABLE",
            "ELEMENT_NOT_FOUND",
            "ELEMENT_NOT_ACTIONABLE",
            "COORDINATE_OUT_OF_BOUNDS",
            "LAYOUT_CHANGED",
            "BACKGROUND_UNAVAILABLE",
            "INVALID_ARGUMENT",
            "MODEL_SCHEMA_VIOLATION",
            "APPROVAL_REQUIRED",
            "APPROVAL_DENIED",
            "SAFETY_CHECK_UNACKNOWLEDGED",
            "READ_ONLY",
            "TIMEOUT",
        ];
        assert_eq!(ErrorCode::ALL.len(), design.len());
        for name in design {
            let wire = format!("COMPUTER_{name}");
            let code = ErrorCode::from_wire(&wire).unwrap_or_else(|| panic!("{wire} missing"));
            assert_eq!(code.as_str(), wire);
            assert!(code.meaning().ends_with('.'), "{wire} needs a sentence");
        }
    }

    #[test]
    fn codes_serialise_as_their_wire_names() {
        let json = serde_json::to_string(&Refusal::target_gone("window 1/0x2 closed")).unwrap();
        assert_eq!(json, r#"{"code":"COMPUTER_TARGET_GONE","message":"window 1/0x2 closed"}"#);
        let back: Refusal = serde_json::from_str(&json).unwrap();
        assert_eq!(back.code, ErrorCode::TargetGone);
    }
}
