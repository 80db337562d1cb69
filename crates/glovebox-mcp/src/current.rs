//! The two eras of MCP as this server meets them, call by call.
//!
//! Handshake era (up to 2025-11-25, `initialize`): the server may send
//! requests to its client, so the host's questions go out as elicitation
//! within the call ([`crate::approval::Elicitation`]).
//!
//! Current era (2026-07-28 and later, `server/discover`, stateless): a
//! server may not, so a question ends the call with an input-required
//! result that carries it as an elicitation for the client to put to its
//! user, and the tokens the host issued as the opaque request state; the
//! client retries the same call with the answers. This module only
//! translates: the host issues, binds and checks the tokens
//! ([`glovebox_host::deferred`]).
//!
//! Who a client is: the connection on stdio, the MCP session on
//! handshake-era HTTP, and on stateless HTTP the bearer token it presents.
//! A question's token is additionally bound to that client, the tool and
//! its exact arguments, so an answer never approves another call.

use crate::approval::{AnswerForm, Approval};
use glovebox_host::{Answer, CallKey, Pending, Retry, Wants};
use glovebox_model::Refusal;
use glovebox_platform::sync::LockRecovered as _;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequiredResult,
};
use rmcp::service::{RequestContext, RoleServer};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The protocol revision from which a server may not send requests.
const CURRENT: &str = "2026-07-28";

/// A fresh identity for a connection or handshake-era session.
pub(crate) fn new_connection_id() -> Arc<str> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("connection-{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)).into()
}

/// How this call's questions reach the user.
#[derive(Debug, Clone)]
pub(crate) enum Era {
    /// Elicitation within the call.
    Handshake,
    /// Input-required results; `retry` is what the client brought back (or
    /// why it cannot be read).
    Current { key: CallKey, retry: Result<Option<Retry>, Refusal>, elicitation: bool },
}

/// What a tool hands back to `call_tool` besides its result: the questions
/// it could not ask, and whether it ran at all (the SDK answers arguments
/// that do not fit a tool's schema itself, without running the tool).
#[derive(Debug, Clone, Default)]
pub(crate) struct Asked {
    pending: Arc<Mutex<Option<Pending>>>,
    ran: Arc<AtomicBool>,
}

impl Asked {
    /// The result that asks the client for its user's answers, if the call asked.
    pub(crate) fn input_required(&self) -> Option<InputRequiredResult> {
        let Pending { questions, request_state } = self.pending.lock_recovered().take()?;
        let requests = questions
            .into_iter()
            .map(|q| Some((q.token, form_of(q.question, q.wants)?)))
            .collect::<Option<_>>()?;
        Some(InputRequiredResult::new(Some(requests), Some(request_state.join(","))))
    }

    /// Whether the tool itself ran: its arguments fitted its schema, and
    /// any error result is a glovebox refusal.
    pub(crate) fn tool_ran(&self) -> bool {
        self.ran.load(Ordering::SeqCst)
    }
}

/// A question the host asks as the form elicitation a client puts to its
/// user, inside an input-required result or a task's input requests: a yes
/// or no for an approval, a text for the agent's question.
pub(crate) fn form_of(question: String, wants: Wants) -> Option<InputRequest> {
    let schema = match wants {
        Wants::YesOrNo => ElicitationSchema::from_type::<Approval>().ok()?,
        Wants::Text => ElicitationSchema::from_type::<AnswerForm>().ok()?,
    };
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question,
        requested_schema: schema,
    };
    Some(InputRequest::Elicitation(ElicitRequest::new(params)))
}

/// The person's answer in a client's response to a [`form_of`] (a yes or
/// no under `approve`, a text under `answer`), or why the response is not
/// one. Which question it answers, and whether that shape fits it, the host
/// decides.
pub(crate) fn answer_of(response: &serde_json::Value) -> Result<Answer, String> {
    let result: ElicitResult = serde_json::from_value(response.clone())
        .map_err(|e| format!("not an elicitation result: {e}"))?;
    match result.action {
        ElicitationAction::Accept => {
            let content = result.content.unwrap_or_default();
            match (content.get("approve"), content.get("answer")) {
                (Some(serde_json::Value::Bool(true)), None) => Ok(Answer::Approved),
                (Some(serde_json::Value::Bool(false)), None) => Ok(Answer::Declined),
                (None, Some(serde_json::Value::String(text))) => Ok(Answer::Given {
                    text: text.clone(),
                    private: content.get("private").and_then(|p| p.as_bool()).unwrap_or(false),
                }),
                _ => {
                    Err("it accepts with neither the boolean `approve` nor the text `answer`"
                        .into())
                }
            }
        }
        ElicitationAction::Decline => Ok(Answer::Declined),
        ElicitationAction::Cancel => Ok(Answer::Cancelled),
        other => Err(format!("it has an action this server does not know ({other:?})")),
    }
}

/// What `call_tool` learnt about a call before routing it to its tool.
#[derive(Debug, Clone)]
pub(crate) struct CallOrigin {
    pub era: Era,
    /// The client the newest frame is kept for.
    pub client: String,
    asked: Asked,
}

impl CallOrigin {
    pub(crate) fn new(
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        connection: &str,
        asked: Asked,
    ) -> CallOrigin {
        let current = context.protocol_version().is_some_and(|v| v.as_str() >= CURRENT);
        let client = client_of(context, connection, current);
        let era = match current {
            false => Era::Handshake,
            true => {
                let arguments = request
                    .arguments
                    .as_ref()
                    .map(|a| serde_json::Value::Object(a.clone()).to_string())
                    .unwrap_or_default();
                Era::Current {
                    key: CallKey::new(&[&client, &request.name, &arguments]),
                    retry: retry_of(request),
                    elicitation: context
                        .client_capabilities()
                        .is_some_and(|c| c.elicitation.is_some()),
                }
            }
        };
        CallOrigin { era, client, asked }
    }

    /// What `call_tool` recorded for this call (a handshake-era call of
    /// this connection if it recorded nothing). Every tool asks this first,
    /// once its arguments are parsed: the call is then the tool's own.
    pub(crate) fn of(context: &RequestContext<RoleServer>, connection: &str) -> CallOrigin {
        let origin =
            context.extensions.get::<CallOrigin>().cloned().unwrap_or_else(|| CallOrigin {
                era: Era::Handshake,
                client: connection.to_owned(),
                asked: Asked::default(),
            });
        origin.asked.ran.store(true, Ordering::SeqCst);
        origin
    }

    /// Hands the questions this call could not ask back to `call_tool`.
    pub(crate) fn ask(&self, pending: Pending) {
        *self.asked.pending.lock_recovered() = Some(pending);
    }
}

/// The client a call comes from: on stateless HTTP its bearer token (kept
/// only as a hash), elsewhere the connection or session.
pub(crate) fn client_of(
    context: &RequestContext<RoleServer>,
    connection: &str,
    current: bool,
) -> String {
    #[cfg(feature = "http")]
    if current {
        let bearer = context
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|p| p.headers.get(hyper::header::AUTHORIZATION))
            .and_then(|v| v.to_str().ok());
        if let Some(bearer) = bearer {
            return format!("bearer-{:?}", CallKey::new(&["bearer", bearer]));
        }
    }
    let _ = (context, current);
    connection.to_owned()
}

/// The tokens and answers a retried call carries, checked for shape only
/// (the host decides whether they belong to this call).
fn retry_of(request: &CallToolRequestParams) -> Result<Option<Retry>, Refusal> {
    let malformed = |why: String| {
        Refusal::invalid_argument(format!(
            "the retry's approval answer is malformed ({why}); nothing was delivered"
        ))
    };
    let Some(state) = &request.request_state else {
        return match &request.input_responses {
            Some(responses) if !responses.is_empty() => {
                Err(malformed("inputResponses without the requestState they answer".into()))
            }
            _ => Ok(None),
        };
    };
    let tokens: Vec<String> = state.split(',').map(str::to_owned).collect();
    if tokens.len() > 16
        || tokens.iter().any(|t| t.len() != 32 || !t.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(malformed("requestState is not one glovebox issued".into()));
    }
    let mut answers = vec![];
    for (token, value) in request.input_responses.iter().flatten() {
        let answer = answer_of(value)
            .map_err(|why| malformed(format!("the response to {token:.6}… is malformed: {why}")))?;
        answers.push((token.clone(), answer));
    }
    Ok(Some(Retry { tokens, answers }))
}
