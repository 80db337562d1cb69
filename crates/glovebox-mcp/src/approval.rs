//! The MCP server's prompt channel: the host's approval questions put to
//! the user through MCP elicitation. A client without elicitation, a
//! declined or cancelled prompt, or a failed one is reported as such and the
//! host fails closed. Which calls ask, and what they say, is the host's.

use glovebox_host::{Answer, ApprovalRequest, Approver};
use rmcp::service::{ElicitationError, Peer, RoleServer};
use serde::Deserialize;

/// The user's answer to a prompt.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Approval {
    /// Allow this one action.
    pub approve: bool,
}

rmcp::elicit_safe!(Approval);

/// Asks through the connected client. Must be asked from a blocking
/// thread (the host runs there), never from the async runtime itself.
pub struct Elicitation {
    pub peer: Peer<RoleServer>,
    pub handle: tokio::runtime::Handle,
}

impl Approver for Elicitation {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        match self.handle.block_on(self.peer.elicit::<Approval>(request.question())) {
            Ok(Some(Approval { approve: true })) => Answer::Approved,
            Ok(_) | Err(ElicitationError::UserDeclined) => Answer::Declined,
            Err(ElicitationError::UserCancelled) => Answer::Cancelled,
            Err(ElicitationError::CapabilityNotSupported) => {
                Answer::Unavailable("this MCP client cannot ask (no elicitation support)".into())
            }
            Err(other) => Answer::Unavailable(format!("the approval prompt failed: {other}")),
        }
    }
}

/// A client on the current protocol that declares no elicitation: it has
/// no way to put a question to its user, so every prompt fails closed.
pub struct CannotAsk;

impl Approver for CannotAsk {
    fn ask(&self, _: &ApprovalRequest) -> Answer {
        Answer::Unavailable(
            "this MCP client declares no elicitation, so it cannot put the question to its user"
                .into(),
        )
    }
}

/// Inside a `computer` run on the current protocol: the run was approved
/// as a whole, and a further question cannot end the call to be asked.
pub struct CannotAskMidRun;

impl Approver for CannotAskMidRun {
    fn ask(&self, _: &ApprovalRequest) -> Answer {
        Answer::Unavailable(
            "a question inside a computer run cannot reach the user on this connection (2026-07-28 asks only between calls); the step was not taken".into(),
        )
    }
}

/// The person's answer to the agent's question (`ask_user`), as the form elicitation asks it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AnswerForm {
    /// Your answer.
    pub answer: String,
    /// Keep the answer out of glovebox's log.
    #[serde(default)]
    pub private: bool,
}

rmcp::elicit_safe!(AnswerForm);

impl glovebox_host::Asker for Elicitation {
    fn ask_user(&self, question: &glovebox_model::Question) -> glovebox_host::Said {
        use glovebox_host::Said;
        match self.handle.block_on(self.peer.elicit::<AnswerForm>(question.shown())) {
            Ok(Some(AnswerForm { answer, private })) => Said::Answer { text: answer, private },
            Ok(None)
            | Err(ElicitationError::UserDeclined)
            | Err(ElicitationError::UserCancelled) => Said::Declined,
            Err(ElicitationError::CapabilityNotSupported) => {
                Said::Unavailable("this MCP client cannot ask (no elicitation support)".into())
            }
            Err(other) => Said::Unavailable(format!("the question failed: {other}")),
        }
    }
}

/// What the person already said, brought back by the client's retry (2026-07-28).
pub struct Given(pub glovebox_host::Said);

impl glovebox_host::Asker for Given {
    fn ask_user(&self, _: &glovebox_model::Question) -> glovebox_host::Said {
        self.0.clone()
    }
}
