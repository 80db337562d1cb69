//! The MCP server's way to reach the person: the host's requests (approve,
//! acknowledge, the agent's questions) put to the user through MCP
//! elicitation, each in the form its answer wants. A client without elicitation, a
//! declined or cancelled prompt, or a failed one is reported as such and the
//! host fails closed. Which calls ask, and what they say, is the host's.

use glovebox_host::{Answer, PersonChannel, Request, Wants};
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

impl PersonChannel for Elicitation {
    fn put(&self, request: Request<'_>) -> Answer {
        let shown = request.shown();
        let elicited = match request.wants() {
            Wants::YesOrNo => {
                self.handle.block_on(self.peer.elicit::<Approval>(shown)).map(|approval| {
                    match approval {
                        Some(Approval { approve: true }) => Answer::Approved,
                        _ => Answer::Declined,
                    }
                })
            }
            Wants::Text => {
                self.handle.block_on(self.peer.elicit::<AnswerForm>(shown)).map(|answer| {
                    match answer {
                        Some(AnswerForm { answer, private }) => {
                            Answer::Given { text: answer, private }
                        }
                        None => Answer::Declined,
                    }
                })
            }
        };
        match elicited {
            Ok(answer) => answer,
            Err(ElicitationError::UserDeclined) => Answer::Declined,
            Err(ElicitationError::UserCancelled) => Answer::Cancelled,
            Err(ElicitationError::CapabilityNotSupported) => {
                Answer::Unavailable("this MCP client cannot ask (no elicitation support)".into())
            }
            Err(other) => Answer::Unavailable(format!("the prompt failed: {other}")),
        }
    }
}

/// A client on the current protocol that declares no elicitation: it has
/// no way to put a question to its user, so every prompt fails closed (the
/// agent's questions go to the indicator page, when one is served).
pub struct CannotAsk;

impl PersonChannel for CannotAsk {
    fn put(&self, _: Request<'_>) -> Answer {
        Answer::Unavailable(
            "this MCP client declares no elicitation, so it cannot put the question to its user"
                .into(),
        )
    }
}

/// Inside a `computer` run on the current protocol: the run was approved
/// as a whole, and a further question cannot end the call to be asked.
pub struct CannotAskMidRun;

impl PersonChannel for CannotAskMidRun {
    fn put(&self, _: Request<'_>) -> Answer {
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
