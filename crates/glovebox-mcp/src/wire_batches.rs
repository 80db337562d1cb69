//! One model turn's native calls run as a batch that may wait for a person
//! (`"park": true`), and `POST /v1/pending`, where the agent collects the
//! answer — across a restart of `glovebox serve`, since the batch is on
//! disk ([`crate::pending`]).
//!
//! The calls run in order, each as its own executor call. When one asks
//! the user something nobody has answered, nothing of it has run (the
//! executors ask before they deliver): the batch parks there, keeping the
//! results of the calls before it and the screenshot frame that call aims
//! through, and the request is answered 202 with the questions. Once the
//! person approves (`glovebox pending approve`), the next poll looks at the
//! window again — the same window at the same place and size, or the call
//! is refused as stale — and runs the call on exactly the answers given,
//! then the rest. The first call that fails ends the batch; the calls after
//! it, and every call left when the person declines or the agent cancels,
//! are answered as not run, and the results already delivered are kept.

use crate::pending::{Parked, PendingError, Provider, Status, Store};
use glovebox_host::refusals::{parked_call_ended, ParkedEnd};
use glovebox_host::{AnsweredOutOfBand, Shown};
use glovebox_model::{Refusal, WindowRef};
use glovebox_wire::{
    AnthropicExecutor, GeminiExecutor, OpenAiExecutor, SafetyCheck, ToolResult, ToolsetDefinition,
    WireError,
};
use serde_json::{json, Value};
use std::sync::Arc;

/// The executors a batch runs on.
pub(crate) struct Executors {
    pub openai: OpenAiExecutor,
    pub anthropic: AnthropicExecutor,
    pub gemini: GeminiExecutor,
}

/// One call's answer as the provider shapes it, and the HTTP status it is
/// served with when the request sent one call alone.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Answered {
    pub status: u16,
    pub body: Value,
}

/// What running one call did.
struct Ran {
    answered: Answered,
    failed: bool,
    /// Something of the call was delivered before it stopped.
    delivered_any: bool,
}

fn id_of(call: &Value, keys: &[&str]) -> String {
    keys.iter().find_map(|k| call.get(k).and_then(Value::as_str)).unwrap_or_default().to_owned()
}

fn window_ref(window: &Option<String>) -> Option<WindowRef> {
    window.as_deref().and_then(|w| w.parse().ok())
}

impl Provider {
    fn set_window(&self, executors: &Executors, window: Option<WindowRef>) {
        match self {
            Provider::OpenAi => executors.openai.set_window(window),
            Provider::AnthropicToolset { .. } => executors.anthropic.set_window(window),
            Provider::Gemini => executors.gemini.set_window(window),
        }
    }

    fn basis(&self, executors: &Executors) -> Option<glovebox_host::FrameView> {
        match self {
            Provider::OpenAi => executors.openai.basis(),
            Provider::AnthropicToolset { .. } => executors.anthropic.basis(),
            Provider::Gemini => executors.gemini.basis(),
        }
    }

    fn resume_on(
        &self,
        executors: &Executors,
        saved: &glovebox_host::FrameView,
    ) -> Result<(), Refusal> {
        match self {
            Provider::OpenAi => executors.openai.resume_on(saved),
            Provider::AnthropicToolset { .. } => executors.anthropic.resume_toolset_on(saved),
            Provider::Gemini => executors.gemini.resume_on(saved),
        }
    }

    fn run(&self, executors: &Executors, call: &Value, channel: Arc<AnsweredOutOfBand>) -> Ran {
        match self {
            Provider::OpenAi => match executors.openai.execute_with(call, channel) {
                Ok(output) => Ran {
                    answered: Answered {
                        status: 200,
                        body: serde_json::to_value(output).unwrap_or_default(),
                    },
                    failed: false,
                    delivered_any: true,
                },
                Err(e) => {
                    let mut body = e.to_json();
                    body["call_id"] = json!(id_of(call, &["call_id"]));
                    Ran {
                        answered: Answered { status: e.http_status(), body },
                        failed: true,
                        delivered_any: e.executed > 0,
                    }
                }
            },
            Provider::AnthropicToolset { tool } => {
                let result = ToolsetDefinition::parse(tool).and_then(|toolset| {
                    executors.anthropic.run_turn(
                        &toolset,
                        std::slice::from_ref(call),
                        Some(channel),
                    )
                });
                match result {
                    Ok(mut results) if results.len() == 1 => {
                        let result = results.remove(0);
                        let failed = result.is_error;
                        Ran {
                            answered: Answered {
                                status: 200,
                                body: serde_json::to_value(result).unwrap_or_default(),
                            },
                            failed,
                            delivered_any: !failed,
                        }
                    }
                    Ok(_) | Err(_) => self.refused(
                        call,
                        &Refusal::invalid_argument("the toolset or the block could not be read"),
                    ),
                }
            }
            Provider::Gemini => {
                let body = executors.gemini.function_response(call, Some(channel));
                let failed = body["functionResponse"]["response"].get("error").is_some();
                Ran { answered: Answered { status: 200, body }, failed, delivered_any: !failed }
            }
        }
    }

    /// The answer of a call that did not run, in the provider's shape.
    fn not_run(&self, call: &Value, refusal: &Refusal) -> Answered {
        let refusal = glovebox_wire::error::to_wire(refusal.clone());
        match self {
            Provider::OpenAi => {
                let error = WireError::new(refusal);
                let mut body = error.to_json();
                body["call_id"] = json!(id_of(call, &["call_id"]));
                Answered { status: error.http_status(), body }
            }
            Provider::AnthropicToolset { .. } => Answered {
                status: 200,
                body: serde_json::to_value(ToolResult::refusal(id_of(call, &["id"]), &refusal))
                    .unwrap_or_default(),
            },
            Provider::Gemini => {
                let mut part = json!({"name": id_of(call, &["name"]), "response": {"error": refusal.to_string()}});
                if let Some(id) = call.get("id") {
                    part["id"] = id.clone();
                }
                Answered { status: 200, body: json!({"functionResponse": part}) }
            }
        }
    }

    fn refused(&self, call: &Value, refusal: &Refusal) -> Ran {
        Ran { answered: self.not_run(call, refusal), failed: true, delivered_any: false }
    }

    /// Questions a call will ask that its provider states up front (an
    /// OpenAI call's pending safety checks, a Gemini call's request for
    /// confirmation), so the person answers them in the same round as the
    /// call itself.
    fn stated_questions(&self, call: &Value, acknowledged: &[String]) -> Vec<Shown> {
        let checks: Vec<SafetyCheck> = match self {
            Provider::OpenAi => call
                .get("pending_safety_checks")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default(),
            Provider::Gemini => match glovebox_wire::FunctionCall::parse(call) {
                Ok(parsed) => parsed
                    .confirmation
                    .map(|explanation| SafetyCheck {
                        id: parsed.id.clone().unwrap_or_else(|| parsed.name.clone()),
                        code: Some("require_confirmation".into()),
                        message: Some(explanation),
                    })
                    .into_iter()
                    .collect(),
                Err(_) => vec![],
            },
            Provider::AnthropicToolset { .. } => vec![],
        };
        checks
            .into_iter()
            .filter(|c| !acknowledged.contains(&c.id))
            .map(|c| Shown::SafetyCheck {
                text: format!(
                    "The model's provider flagged this call ({}): {}. Acknowledge and let it run?",
                    c.code.as_deref().unwrap_or("safety check"),
                    c.message.as_deref().unwrap_or("no details given")
                ),
                id: c.id,
            })
            .collect()
    }
}

/// What a parkable request asked for, read from its body.
pub(crate) struct Request {
    pub provider: Provider,
    pub window: Option<String>,
    pub calls: Vec<Value>,
    pub single: bool,
    pub acknowledged: Vec<String>,
}

/// How many calls one batch may carry.
const MAX_CALLS: usize = 64;

impl Request {
    pub fn check(&self) -> Result<(), Refusal> {
        if self.calls.is_empty() || self.calls.len() > MAX_CALLS {
            return Err(Refusal::invalid_argument(format!(
                "a batch carries 1..={MAX_CALLS} calls, not {}",
                self.calls.len()
            )));
        }
        let key = match self.provider {
            Provider::OpenAi => "call_id",
            Provider::AnthropicToolset { .. } => "id",
            Provider::Gemini => "name",
        };
        match self.calls.iter().position(|c| !c.is_object() || id_of(c, &[key]).is_empty()) {
            Some(i) => Err(Refusal::invalid_argument(format!(
                "call {i} of the batch has no {key}; nothing was run"
            ))),
            None => Ok(()),
        }
    }
}

/// The HTTP answer of a batch that is done: one call's own answer, or the
/// list of them in order.
fn finished(parked: &Parked, delivered: &[Answered]) -> (u16, String) {
    match (parked.single, delivered) {
        (true, [one]) => (one.status, one.body.to_string()),
        _ => (200, Value::Array(delivered.iter().map(|a| a.body.clone()).collect()).to_string()),
    }
}

fn waiting(parked: &Parked) -> (u16, String) {
    (202, json!({"pending": parked.summary()}).to_string())
}

fn store_error(e: PendingError) -> (u16, String) {
    let status = match e {
        PendingError::Unknown(_) => 404,
        PendingError::Running(_) | PendingError::Expired(_) => 409,
        PendingError::BadId(_) | PendingError::Forged(_) => 422,
        PendingError::Changed { .. } => 409,
        _ => 500,
    };
    (status, WireError::new(Refusal::invalid_argument(e.to_string())).to_json().to_string())
}

fn delivered(parked: &Parked) -> Vec<Answered> {
    parked.delivered.iter().filter_map(|v| serde_json::from_value(v.clone()).ok()).collect()
}

/// Runs the batch from `parked.next` on. `approved`: the person's answers
/// to the call at `next` (none for a fresh batch). Parks (and saves) at a
/// call that asks something unanswered, or answers the whole batch.
fn run(
    executors: &Executors,
    store: &Store,
    mut parked: Parked,
    approved: Vec<Shown>,
) -> (u16, String) {
    parked.provider.set_window(executors, window_ref(&parked.window));
    let resumed_at = (!approved.is_empty()).then_some(parked.next);
    let mut answers = delivered(&parked);
    let mut failure: Option<(usize, String)> = None;
    for i in parked.next..parked.calls.len() {
        let call = parked.calls[i].clone();
        if let Some((at, why)) = &failure {
            // Worded and coded as the toolset's own turn answers a block after a failure.
            let refusal =
                Refusal::invalid_argument(format!("not run: call {at} of the batch failed before it ({why}), and a batch stops at its first failure"));
            answers.push(parked.provider.not_run(&call, &refusal));
            continue;
        }
        if resumed_at == Some(i) {
            if let Some(saved) = parked.basis.clone() {
                if let Err(refusal) = parked.provider.resume_on(executors, &saved) {
                    failure = Some((i, refusal.code.to_string()));
                    answers.push(parked.provider.not_run(&call, &refusal));
                    continue;
                }
            }
        }
        let basis = parked.provider.basis(executors);
        let parking = Arc::new(AnsweredOutOfBand::new(
            if resumed_at == Some(i) { approved.clone() } else { vec![] },
            parked.acknowledged.clone(),
        ));
        let ran = parked.provider.run(executors, &call, parking.clone());
        let asked = parking.unanswered();
        if !asked.is_empty() && resumed_at != Some(i) && !ran.delivered_any {
            let mut questions = asked;
            for stated in parked.provider.stated_questions(&call, &parked.acknowledged) {
                if !questions.iter().any(|q| matches!((q, &stated), (Shown::SafetyCheck { id: a, .. }, Shown::SafetyCheck { id: b, .. }) if a == b)) {
                    questions.push(stated);
                }
            }
            parked.next = i;
            parked.delivered =
                answers.iter().map(|a| serde_json::to_value(a).unwrap_or_default()).collect();
            parked.basis = basis;
            parked.questions = questions;
            parked.status = Status::Waiting;
            parked.round += 1;
            return match store.save(&parked) {
                Ok(()) => waiting(&parked),
                Err(e) => store_error(e),
            };
        }
        if ran.failed {
            failure = Some((i, id_of(&call, &["call_id", "id", "name"])));
        }
        answers.push(ran.answered);
    }
    if let Err(e) = store.remove(&parked.id) {
        return store_error(e);
    }
    finished(&parked, &answers)
}

/// Starts a parkable batch.
pub(crate) fn start(executors: &Executors, store: &Store, request: Request) -> (u16, String) {
    if let Err(refusal) = request.check() {
        return (422, WireError::new(refusal).to_json().to_string());
    }
    let id = match Store::new_id() {
        Ok(id) => id,
        Err(e) => return store_error(e),
    };
    let parked_at = crate::pending::now_secs();
    let parked = Parked {
        id,
        provider: request.provider,
        window: request.window,
        calls: request.calls,
        single: request.single,
        acknowledged: request.acknowledged,
        next: 0,
        delivered: vec![],
        basis: None,
        questions: vec![],
        status: Status::Waiting,
        round: 0,
        parked_at,
    };
    run(executors, store, parked, vec![])
}

/// `POST /v1/pending`: `{}` lists the waiting batches; `{"id"}` answers one
/// (202 while it waits, its results once the person answered);
/// `{"id", "cancel": true}` cancels the rest of it.
pub(crate) fn pending(executors: &Executors, store: &Store, body: &Value) -> (u16, String) {
    let Some(id) = body.get("id") else {
        return (
            200,
            json!({"pending": store.list().iter().map(Parked::summary).collect::<Vec<_>>()})
                .to_string(),
        );
    };
    let Some(id) = id.as_str() else {
        return (
            422,
            WireError::new(Refusal::invalid_argument("`id` is a pending call id"))
                .to_json()
                .to_string(),
        );
    };
    let cancel = match body.get("cancel") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(_) => {
            return (
                422,
                WireError::new(Refusal::invalid_argument("`cancel` is true or false"))
                    .to_json()
                    .to_string(),
            )
        }
    };
    let parked = match store.load(id) {
        Ok(parked) => parked,
        Err(e) => return store_error(e),
    };
    let ended = match (cancel, parked.status) {
        (true, _) => Some(parked_call_ended(ParkedEnd::Cancelled)),
        (false, _) if parked.expired(crate::pending::now_secs()) => {
            let hours = crate::pending::MAX_WAIT_SECS / 3600;
            Some(parked_call_ended(ParkedEnd::Expired { hours }))
        }
        (false, Status::Declined) => Some(parked_call_ended(ParkedEnd::Declined)),
        (false, Status::Waiting) => return waiting(&parked),
        (false, Status::Approved) => None,
    };
    match ended {
        Some(refusal) => {
            let mut answers = delivered(&parked);
            answers.extend(
                parked.calls[parked.next..]
                    .iter()
                    .map(|call| parked.provider.not_run(call, &refusal)),
            );
            if let Err(e) = store.remove(&parked.id) {
                return store_error(e);
            }
            finished(&parked, &answers)
        }
        None => match store.claim(id) {
            Ok(parked) if parked.status == Status::Approved => {
                let approved = parked.questions.clone();
                run(executors, store, parked, approved)
            }
            Ok(parked) => match store.save(&parked) {
                Ok(()) => waiting(&parked),
                Err(e) => store_error(e),
            },
            Err(e) => store_error(e),
        },
    }
}
