//! Grants as surfaces see them: the unit of permission, and why a window is
//! refused.

use crate::error::ErrorCode;
use crate::window::WindowId;
use serde::{Deserialize, Serialize};

/// What a grant may be bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Bound to one window at a time; may rebind to another allowed window.
    Desktop,
    /// Pinned to one window; rebinding is a scope violation.
    Window,
}

/// Who created a grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Created for the agent by a tool call made while no grant was active;
    /// refused while the Stop cooldown runs.
    Agent,
    /// Created by the user (`glovebox grant`); clears the Stop cooldown.
    User,
}

/// What a grant lets observations read of the bound window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureMode {
    /// The accessibility tree only; no pixels are captured.
    A11yOnly,
    /// The accessibility tree and screenshots.
    A11yAndPixels,
}

/// How input is allowed under a grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum InputPolicy {
    /// Input goes ahead without asking, within the grant's scope and budget
    /// (and the approval policy).
    AutonomousInScope,
}

/// Why a window may not be a target. The first two are absolute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "denial", rename_all = "kebab-case")]
pub enum Denial {
    /// glovebox's own window, or one of the process tree that launched it.
    SelfTarget {
        /// Which window or process it is, for the message.
        detail: String,
    },
    /// A password field has focus, or another client holds the keyboard.
    SecureInput {
        /// What holds the keyboard or has focus, for the message.
        detail: String,
    },
    /// On the deny list (`entry` is the matching entry; built-in ones cannot be removed).
    Denylisted {
        /// The deny-list entry that matched.
        entry: String,
        /// The entry is one of glovebox's own (credential software).
        built_in: bool,
    },
    /// Where the person gives or refuses consent — a desktop portal's
    /// dialog (screen sharing, remote control), a polkit agent, a lock
    /// screen, the desktop shell that draws them — on every desktop, whatever
    /// the configuration says: an agent that pressed "Share" would grant
    /// itself what only the person may.
    ConsentSurface {
        /// The built-in entry that matched.
        entry: String,
    },
    /// The window's process belongs to another user.
    Elevated {
        /// The user id the window's process runs as.
        uid: u32,
    },
}

impl Denial {
    /// The refusal code this denial is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            Denial::SelfTarget { .. } => ErrorCode::SelfTarget,
            Denial::SecureInput { .. } => ErrorCode::SecureInput,
            Denial::Denylisted { .. } | Denial::ConsentSurface { .. } => {
                ErrorCode::TargetDenylisted
            }
            Denial::Elevated { .. } => ErrorCode::TargetElevated,
        }
    }

    /// The denial in one sentence for the refusal message.
    pub fn sentence(&self) -> String {
        match self {
            Denial::SelfTarget { detail } => {
                format!("glovebox never acts on its own windows or its launcher's: {detail}")
            }
            Denial::SecureInput { detail } => {
                format!("secure input is active ({detail}); capture and input wait until it ends")
            }
            Denial::Denylisted { entry, built_in: true } => {
                format!("credential software ({entry}) is always denied")
            }
            Denial::Denylisted { entry, built_in: false } => {
                format!("the deny list names this application ({entry})")
            }
            Denial::ConsentSurface { entry } => format!(
                "{entry} asks the person for consent (a permission dialog, polkit agent or lock screen) and is always denied: only the person answers it"
            ),
            Denial::Elevated { uid } => {
                format!("the window's process runs as uid {uid}, another user")
            }
        }
    }
}

/// The state of the active grant, as `grant_status` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GrantView {
    /// Names this grant in status, audit records and refusals (`g<pid>-<n>`,
    /// unique within the creating process).
    pub grant_id: String,
    /// What the grant may be bound to.
    pub scope: Scope,
    /// Who created the grant.
    pub origin: Origin,
    /// The bound window; absent when every window is denied.
    pub target: Option<WindowId>,
    /// The bound window's application name; absent with no target.
    pub target_app: Option<String>,
    /// Why there is no target, when there is none.
    pub no_target_reason: Option<String>,
    /// Goes up by one at every binding; a frame made under an older
    /// revision is stale.
    pub revision: u64,
    /// How input is allowed under the grant.
    pub input_policy: InputPolicy,
    /// What observations may read of the bound window.
    pub capture: CaptureMode,
    /// Input actions left before the grant refuses further input.
    pub budget_left: u32,
    /// Seconds without a call after which the grant expires.
    pub idle_expiry_secs: u64,
}

/// What a call of one approval class gets (DESIGN.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// The call goes ahead.
    Allow,
    /// Ask the user through the surface's prompt channel; none fails closed.
    Prompt,
    /// The call is refused.
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
    /// The class's name, as the configuration (`approval.input`) and refusals spell it.
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
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
