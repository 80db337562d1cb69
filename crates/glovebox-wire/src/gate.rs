//! The approval hooks the executors call before anything runs (DESIGN.md
//! §7): the class gate (observe, input, foreground) every call passes, and,
//! for OpenAI, the provider's pending safety checks, which only the user
//! can acknowledge. The executors never approve anything themselves.

use glovebox_model::{ErrorCode, Refusal};
use serde::{Deserialize, Serialize};

/// The approval class of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalClass {
    /// Only screenshots, waits, zooms and cursor reads.
    Observe,
    /// Any click, move, drag, scroll, key or typing, delivered in the background.
    Input,
    /// Input delivered with the user's real pointer and keyboard.
    Foreground,
}

/// What a call is about to do, for a prompt. Typed text appears as its
/// length only.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalRequest {
    pub class: ApprovalClass,
    /// One line per action, in order (`click at (120, 40) on push button "Submit"`).
    pub actions: Vec<String>,
    /// Names of the elements under the call's points, for consequential-name checks.
    pub target_names: Vec<String>,
    /// Characters the call would type.
    pub text_characters: usize,
}

/// The class gate: `Ok` lets the call run; a refusal (`COMPUTER_APPROVAL_*`)
/// stops it before anything is delivered.
pub trait InputGate: Send + Sync {
    fn approve(&self, request: &ApprovalRequest) -> Result<(), Refusal>;
}

/// Lets every call through: for embedders that approve elsewhere, and tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl InputGate for AllowAll {
    fn approve(&self, _: &ApprovalRequest) -> Result<(), Refusal> {
        Ok(())
    }
}

/// No one to ask: observation passes, input fails closed.
#[derive(Debug, Clone, Copy, Default)]
pub struct ObserveOnly;

impl InputGate for ObserveOnly {
    fn approve(&self, request: &ApprovalRequest) -> Result<(), Refusal> {
        match request.class {
            ApprovalClass::Observe => Ok(()),
            _ => Err(Refusal::new(ErrorCode::ApprovalRequired, "this call delivers input and there is no one to approve it")),
        }
    }
}

impl<F: Fn(&ApprovalRequest) -> Result<(), Refusal> + Send + Sync> InputGate for F {
    fn approve(&self, request: &ApprovalRequest) -> Result<(), Refusal> {
        self(request)
    }
}

/// One OpenAI `pending_safety_checks` entry, echoed back unchanged when
/// the user acknowledged it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SafetyCheck {
    pub id: String,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

impl SafetyCheck {
    /// The check and the step it stops, as a sentence to put to the user.
    pub fn describe(&self, request: &ApprovalRequest) -> String {
        format!(
            "The model's provider flagged this step ({}): {}. The step: {}.",
            self.code.as_deref().unwrap_or("safety check"),
            self.message.as_deref().unwrap_or("no details given"),
            request.actions.join(", ")
        )
    }
}

/// Shows the user the pending checks and the call, and returns the ids the
/// user explicitly approved. Ids that were not pending are ignored.
pub trait SafetyApprover {
    fn approve(&self, checks: &[SafetyCheck], request: &ApprovalRequest) -> Vec<String>;
}

/// No interactive channel: approves nothing, so any pending check fails closed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Headless;

impl SafetyApprover for Headless {
    fn approve(&self, _: &[SafetyCheck], _: &ApprovalRequest) -> Vec<String> {
        vec![]
    }
}

/// The ids a caller states its user acknowledged (the `glovebox serve`
/// request body carries them; there is no prompt channel there).
#[derive(Debug, Clone, Default)]
pub struct Acknowledged(pub Vec<String>);

impl SafetyApprover for Acknowledged {
    fn approve(&self, checks: &[SafetyCheck], _: &ApprovalRequest) -> Vec<String> {
        checks.iter().filter(|c| self.0.contains(&c.id)).map(|c| c.id.clone()).collect()
    }
}

impl<F: Fn(&[SafetyCheck], &ApprovalRequest) -> Vec<String>> SafetyApprover for F {
    fn approve(&self, checks: &[SafetyCheck], request: &ApprovalRequest) -> Vec<String> {
        self(checks, request)
    }
}
