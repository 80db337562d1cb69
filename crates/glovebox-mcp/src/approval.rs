//! Approvals (DESIGN.md §7): each call belongs to a class (observe, input,
//! foreground) whose policy is allow, prompt or deny. `prompt` asks the user
//! through MCP elicitation; a client without it, or a declined or cancelled
//! prompt, fails closed. Input on an element whose name reads like a
//! consequential act (send, pay, delete, …) escalates to prompt. Nothing
//! here ever approves on the user's behalf.

use glovebox_model::{ErrorCode, Refusal};
use rmcp::service::{ElicitationError, Peer, RoleServer};
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Allow,
    Prompt,
    Deny,
}

impl Policy {
    pub fn parse(text: &str) -> Policy {
        match text {
            "allow" => Policy::Allow,
            "deny" => Policy::Deny,
            // Unknown values never widen anything.
            _ => Policy::Prompt,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Observe,
    Input,
    Foreground,
}

/// The approval settings of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approvals {
    pub observe: Policy,
    pub input: Policy,
    pub foreground: Policy,
    /// Lower-cased words; a name with a word starting with one escalates input to prompt.
    pub consequential: Vec<String>,
}

impl Approvals {
    /// From a mode (`write`, `yolo`, `always-ask`) or, for `custom`, the three class settings.
    pub fn new(mode: &str, observe: &str, input: &str, foreground: &str, consequential: &[String]) -> Approvals {
        let (observe, input, foreground) = match mode {
            "yolo" => (Policy::Allow, Policy::Allow, Policy::Allow),
            "always-ask" => (Policy::Prompt, Policy::Prompt, Policy::Prompt),
            "custom" => (Policy::parse(observe), Policy::parse(input), Policy::parse(foreground)),
            // `write`, and anything unknown: the careful default.
            _ => (Policy::Allow, Policy::Prompt, Policy::Prompt),
        };
        Approvals { observe, input, foreground, consequential: consequential.iter().map(|t| t.trim().to_lowercase()).filter(|t| !t.is_empty()).collect() }
    }

    /// Approves everything: for tests and embedders that approve elsewhere.
    pub fn allow_all() -> Approvals {
        Approvals { observe: Policy::Allow, input: Policy::Allow, foreground: Policy::Allow, consequential: vec![] }
    }

    /// The consequential term `name` reads like, if any.
    pub fn consequential_term(&self, name: &str) -> Option<&str> {
        let lower = name.to_lowercase();
        let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        self.consequential.iter().find(|term| words.iter().any(|w| w.starts_with(term.as_str()))).map(String::as_str)
    }

    /// The policy for a call of `class` on targets named `names`.
    pub fn policy(&self, class: Class, names: &[String]) -> (Policy, Option<String>) {
        let base = match class {
            Class::Observe => self.observe,
            Class::Input => self.input,
            Class::Foreground => self.foreground,
        };
        if class == Class::Observe || base == Policy::Deny {
            return (base, None);
        }
        match names.iter().find_map(|n| self.consequential_term(n).map(|t| (n.clone(), t.to_owned()))) {
            Some((name, term)) => (Policy::Prompt, Some(format!("{name:?} reads like {term:?}"))),
            None => (base, None),
        }
    }
}

/// The user's answer to a prompt.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Answer {
    /// Allow this one action.
    pub approve: bool,
}

rmcp::elicit_safe!(Answer);

/// Asks the user through the client; fails closed.
pub async fn ask(peer: &Peer<RoleServer>, message: String) -> Result<(), Refusal> {
    match peer.elicit::<Answer>(message).await {
        Ok(Some(Answer { approve: true })) => Ok(()),
        Ok(_) => Err(Refusal::new(ErrorCode::ApprovalDenied, "the user did not approve this action")),
        Err(ElicitationError::UserDeclined) => Err(Refusal::new(ErrorCode::ApprovalDenied, "the user declined this action")),
        Err(ElicitationError::UserCancelled) => Err(Refusal::new(ErrorCode::ApprovalDenied, "the user cancelled the approval prompt")),
        Err(ElicitationError::CapabilityNotSupported) => Err(Refusal::new(
            ErrorCode::ApprovalRequired,
            "this action needs the user's approval, and this MCP client cannot ask (no elicitation support); the user can allow the class in glovebox's configuration (approval.*)",
        )),
        Err(other) => Err(Refusal::new(ErrorCode::ApprovalRequired, format!("the approval prompt failed: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_set_the_classes_and_consequential_names_escalate() {
        let terms: Vec<String> = ["send", "löschen", "pay"].iter().map(|s| s.to_string()).collect();
        let yolo = Approvals::new("yolo", "", "", "", &terms);
        assert_eq!(yolo.policy(Class::Input, &["Cancel".into()]).0, Policy::Allow);
        assert_eq!(yolo.policy(Class::Input, &["Send message".into()]).0, Policy::Prompt);
        assert_eq!(yolo.policy(Class::Input, &["Jetzt LÖSCHEN".into()]).0, Policy::Prompt);
        assert_eq!(yolo.policy(Class::Input, &["Payment".into()]).0, Policy::Prompt);
        assert_eq!(yolo.policy(Class::Input, &["Resend".into()]).0, Policy::Allow, "words, not substrings");
        let write = Approvals::new("write", "", "", "", &[]);
        assert_eq!(write.policy(Class::Observe, &[]).0, Policy::Allow);
        assert_eq!(write.policy(Class::Input, &[]).0, Policy::Prompt);
        let custom = Approvals::new("custom", "allow", "deny", "bogus", &terms);
        assert_eq!(custom.policy(Class::Input, &["Send".into()]).0, Policy::Deny, "deny stays deny");
        assert_eq!(custom.policy(Class::Foreground, &[]).0, Policy::Prompt, "unknown values never widen");
    }
}
