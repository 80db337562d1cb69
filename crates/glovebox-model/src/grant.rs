//! Grants as surfaces see them: the unit of permission, and why a window is
//! refused.

use crate::error::ErrorCode;
use crate::window::WindowId;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Bound to one window at a time; may rebind to another allowed window.
    Desktop,
    /// Pinned to one window; rebinding is a scope violation.
    Window,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    Agent,
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureMode {
    A11yOnly,
    A11yAndPixels,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum InputPolicy {
    AutonomousInScope,
}

/// Why a window may not be a target. The first two are absolute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "denial", rename_all = "kebab-case")]
pub enum Denial {
    /// glovebox's own window, or one of the process tree that launched it.
    SelfTarget { detail: String },
    /// A password field has focus, or another client holds the keyboard.
    SecureInput { detail: String },
    /// On the deny list (`entry` is the matching entry; built-in ones cannot be removed).
    Denylisted { entry: String, built_in: bool },
    /// The window's process belongs to another user.
    Elevated { uid: u32 },
}

impl Denial {
    pub fn code(&self) -> ErrorCode {
        match self {
            Denial::SelfTarget { .. } => ErrorCode::SelfTarget,
            Denial::SecureInput { .. } => ErrorCode::SecureInput,
            Denial::Denylisted { .. } => ErrorCode::TargetDenylisted,
            Denial::Elevated { .. } => ErrorCode::TargetElevated,
        }
    }

    pub fn sentence(&self) -> String {
        match self {
            Denial::SelfTarget { detail } => format!("glovebox never acts on its own windows or its launcher's: {detail}"),
            Denial::SecureInput { detail } => format!("secure input is active ({detail}); capture and input wait until it ends"),
            Denial::Denylisted { entry, built_in: true } => format!("credential software ({entry}) is always denied"),
            Denial::Denylisted { entry, built_in: false } => format!("the deny list names this application ({entry})"),
            Denial::Elevated { uid } => format!("the window's process runs as uid {uid}, another user"),
        }
    }
}

/// The state of the active grant, as `grant_status` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GrantView {
    pub grant_id: String,
    pub scope: Scope,
    pub origin: Origin,
    /// The bound window; absent when every window is denied.
    pub target: Option<WindowId>,
    pub target_app: Option<String>,
    /// Why there is no target, when there is none.
    pub no_target_reason: Option<String>,
    pub revision: u64,
    pub input_policy: InputPolicy,
    pub capture: CaptureMode,
    pub budget_left: u32,
    pub idle_expiry_secs: u64,
}

/// What a call of one approval class gets (DESIGN.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    Allow,
    /// Ask the user through the surface's prompt channel; none fails closed.
    Prompt,
    Deny,
}

/// The approval class of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalClass {
    /// Listing, observing, zooming, waiting, switching windows.
    Observe,
    /// Input delivered in the background.
    Input,
    /// Input delivered with the user's real pointer and keyboard.
    Foreground,
}

impl ApprovalClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalClass::Observe => "observe",
            ApprovalClass::Input => "input",
            ApprovalClass::Foreground => "foreground",
        }
    }
}

/// A shorthand that sets the three classes' policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Observe allow; input and foreground prompt.
    Write,
    /// Everything allow (consequential targets still ask).
    Yolo,
    /// Everything prompt.
    AlwaysAsk,
    /// The three per-class settings as written.
    Custom,
}

/// What a recording keeps of typed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TextRecording {
    /// Its length only, as the audit keeps it: such a step replays as a question.
    #[default]
    Length,
    /// The text itself, by the user's explicit choice; never a password field's.
    Kept,
}

/// Which of the launching process tree counts as glovebox itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AncestorRule {
    /// glovebox's own process and every ancestor (the agent host among them).
    Ancestors,
    /// Also every other child of those ancestors (helpers of the agent host
    /// that draw its prompts). Configuration can only widen the rule.
    AncestorsAndTheirChildren,
}
