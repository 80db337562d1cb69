//! ask_user: the agent's question to the person, through the client's own
//! way of asking. Handshake era: an elicitation within the call. Current era
//! (2026-07-28): the call ends with an input-required result carrying the
//! question as a form and a token as its request state; the client's retry
//! brings the answer back under that token, which is spent there. A client
//! that cannot ask leaves the indicator page as the channel. The host checks
//! the question and the answer and audits them ([`glovebox_host::Host::ask_user`]).

use crate::approval::{Elicitation, Given};
use crate::current::{self, CallOrigin, Era};
use crate::{render, AskUserArgs, GloveboxServer};
use glovebox_host::{Asker, CallKey};
use glovebox_model::{Question, Refusal};
use glovebox_platform::sync::LockRecovered as _;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, InputRequiredResult};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Questions put to clients of the current era, by token, until the retry answers them.
#[derive(Debug, Default)]
pub(crate) struct OpenQuestions(Mutex<HashMap<String, (CallKey, Question)>>);

/// Most questions waiting for their retry at once; the oldest-issued go first.
const MAX_OPEN: usize = 64;

impl OpenQuestions {
    /// The answer a retry brings to `question` under a token this server issued for this very
    /// call, or `None` (no retry, or a token unknown, spent or another call's: ask again).
    fn answered(
        &self,
        raw: Option<&current::RawRetry>,
        key: &CallKey,
        question: &Question,
    ) -> Option<glovebox_host::Said> {
        let raw = raw?;
        let mut open = self.0.lock_recovered();
        match open.get(&raw.state) {
            Some((k, q)) if k == key && q == question => {}
            _ => return None,
        }
        open.remove(&raw.state);
        let response = raw.responses.iter().find(|(t, _)| *t == raw.state).map(|(_, v)| v);
        Some(current::said_of(response))
    }

    /// A fresh token for `question` in this call.
    fn issue(&self, key: &CallKey, question: &Question) -> Result<String, Refusal> {
        let token = glovebox_services::access::new_token()
            .map_err(|e| Refusal::backend_unavailable(format!("no token for the question: {e}")))?;
        let mut open = self.0.lock_recovered();
        if open.len() >= MAX_OPEN {
            open.clear();
        }
        open.insert(token.clone(), (key.clone(), question.clone()));
        Ok(token)
    }
}

fn error(refusal: &Refusal) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(render::refusal(refusal))])
}

#[tool_router(router = ask_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Ask the person (e.g. for a code or a choice); returns their answer.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn ask_user(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<AskUserArgs>,
    ) -> Result<CallToolResult, McpError> {
        let call = CallOrigin::of(&context, &self.connection);
        let host = match &self.shared.host {
            Ok(host) => host.clone(),
            Err(refusal) => return Ok(error(refusal)),
        };
        let question = Question { text: args.question, choices: args.choices.unwrap_or_default() };
        if let Err(refusal) = question.validate() {
            return Ok(error(&refusal));
        }
        let channel: Option<Arc<dyn Asker>> = match &call.era {
            // A handshake-era client that declared no elicitation: the page is the channel.
            Era::Handshake
                if context
                    .peer
                    .peer_info()
                    .is_none_or(|info| info.capabilities.elicitation.is_none()) =>
            {
                None
            }
            Era::Handshake => match tokio::runtime::Handle::try_current() {
                Ok(handle) => Some(Arc::new(Elicitation { peer: context.peer.clone(), handle })),
                Err(e) => {
                    return Ok(error(&Refusal::backend_unavailable(format!(
                        "no async runtime: {e}"
                    ))))
                }
            },
            // A client that cannot ask: the indicator page is the channel.
            Era::Current { elicitation: false, .. } => None,
            Era::Current { key, .. } => {
                match self.shared.questions.answered(call.raw.as_ref(), key, &question) {
                    Some(said) => Some(Arc::new(Given(said))),
                    None => {
                        let token = match self.shared.questions.issue(key, &question) {
                            Ok(token) => token,
                            Err(refusal) => return Ok(error(&refusal)),
                        };
                        let Some(request) = current::question_request(question.shown()) else {
                            return Ok(error(&Refusal::backend_unavailable(
                                "the question's form could not be made",
                            )));
                        };
                        call.ask_form(InputRequiredResult::new(
                            Some([(token.clone(), request)].into_iter().collect()),
                            Some(token),
                        ));
                        return Ok(CallToolResult::success(vec![]));
                    }
                }
            }
        };
        let asked =
            tokio::task::spawn_blocking(move || host.ask_user(&question, channel.as_deref()))
                .await
                .map_err(|e| {
                    McpError::internal_error(
                        format!("the tool panicked or was cancelled: {e}"),
                        None,
                    )
                })?;
        Ok(match asked {
            Ok(answer) => CallToolResult::success(vec![ContentBlock::text(format!(
                "The person answered: {}",
                answer.text
            ))]),
            Err(refusal) => error(&refusal),
        })
    }
}
