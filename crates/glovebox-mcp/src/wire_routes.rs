//! `glovebox serve`'s JSON endpoints for agent builders with a native
//! computer-use model (DESIGN.md §1): the OpenAI GA and Anthropic executors
//! of `glovebox-wire`, on the same host as the MCP tools and behind the same
//! token and loopback checks.
//!
//! - `POST /v1/openai/computer_call` takes `{"call": <computer_call item>,
//!   "acknowledged_safety_checks"?: ["cu_sc_…"], "window"?: "pid/xid"}` and
//!   answers 200 with the `computer_call_output` item, or an error body
//!   `{"error": {"code", "message", "failed_action_index"?}}` with 422
//!   (arguments), 403 (policy, approvals, safety checks, denials) or 409
//!   (state: layout changed, stale, budget, no route).
//! - `POST /v1/anthropic/computer` takes `{"tool": <computer tool
//!   definition>, "tool_use": <tool_use block>, "window"?: "pid/xid"}` and
//!   answers 200 with the `tool_result` block (a refusal is a result with
//!   `is_error`, as the model should see it); 422 when the request itself is
//!   unusable (no tool definition, no tool_use id). With the toolset
//!   (`"tool": {"type": "computer_toolset_20260801", "configs"?: …}`),
//!   `tool_use` is one member block (answered with its `tool_result`) or a
//!   turn's list of them (answered with the list of results, in order; the
//!   first failure stops the turn and the rest say they were not run).
//!
//! - `POST /v1/gemini/computer_use` takes `{"function_call": <Gemini
//!   functionCall>, "acknowledged_safety_decision"?: true, "window"?:
//!   "pid/xid"}` and answers 200 with the `{"functionResponse": …}` part
//!   (a refusal as its `response.error`, as the model should see it), or
//!   `{"screenshot": true}` for the screenshot a conversation starts from
//!   (`{"inlineData": …}`). `acknowledged_safety_decision` states that the
//!   user confirmed the call's `require_confirmation`; without it such a
//!   call fails closed.
//!
//! A body that is not JSON is 400; another path 404. There is no prompt
//! channel here, so the host fails every prompt closed: input runs only
//! when the configuration allows the input class outright, and a pending
//! OpenAI safety check runs only when the request lists its id as
//! acknowledged by the user ([`StatedAcknowledgements`]).
//!
//! Unless the request says `"park": true`: then a call that needs the
//! user's answer waits for it on disk instead, and so do the calls after
//! it. The request may also carry one model turn's calls as a list
//! (`"calls"` for OpenAI, a `tool_use` list for the toolset,
//! `"function_calls"` for Gemini). The answer is 202 with the waiting
//! batch, collected with `POST /v1/pending` ([`crate::wire_batches`]).

use crate::http::Routes;
use crate::pending::{Provider, Store};
use crate::wire_batches::{self, Executors};
use glovebox_host::{Host, StatedAcknowledgements};
use glovebox_model::{Refusal, WindowRef};
use glovebox_wire::{
    AnthropicExecutor, ExecutorOptions, GeminiExecutor, OpenAiExecutor, ToolDefinition,
    ToolsetDefinition, WireError,
};
use serde_json::{json, Value};
use std::sync::Arc;

/// Every executor on one host (or why there is none), and where calls
/// that wait for a person are kept.
pub struct WireRoutes {
    executors: Result<Executors, Refusal>,
    pending: Store,
}

impl WireRoutes {
    pub fn new(host: Result<Host, Refusal>, pending: Store) -> WireRoutes {
        let executors = host.map(|host| Executors {
            openai: OpenAiExecutor::new(host.clone(), ExecutorOptions::default()),
            anthropic: AnthropicExecutor::new(host.clone(), ExecutorOptions::default()),
            gemini: GeminiExecutor::new(host, ExecutorOptions::default()),
        });
        WireRoutes { executors, pending }
    }
}

/// A `true`/`false` flag of the body (absent: false).
fn flag(body: &Value, name: &str) -> Result<bool, Refusal> {
    match body.get(name) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(false),
        Some(Value::Bool(true)) => Ok(true),
        Some(_) => Err(Refusal::invalid_argument(format!("`{name}` is true or false"))),
    }
}

/// The calls of a request: `one` alone, or the list under `many`.
fn calls(body: &Value, one: &str, many: &str) -> Result<(Vec<Value>, bool), Refusal> {
    let many_given = body.get(many).filter(|v| !v.is_null() && one != many);
    match (body.get(one).filter(|v| !v.is_null()), many_given) {
        (Some(Value::Array(list)), None) if one == many => Ok((list.clone(), false)),
        (Some(call), None) => Ok((vec![call.clone()], true)),
        (None, Some(Value::Array(list))) => Ok((list.clone(), false)),
        (Some(_), Some(_)) => Err(Refusal::invalid_argument(format!(
            "the body carries `{one}` or `{many}`, not both"
        ))),
        _ => Err(Refusal::invalid_argument(format!(
            "the body needs `{one}` (one call) or `{many}` (a list of them)"
        ))),
    }
}

/// The batch a parkable (or listed) request asks for.
fn batch_request(
    path: &str,
    body: &Value,
    window: Option<String>,
) -> Result<wire_batches::Request, Refusal> {
    let ids = |name: &str| -> Result<Vec<String>, Refusal> {
        match body.get(name) {
            None | Some(Value::Null) => Ok(vec![]),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
                Refusal::invalid_argument(format!("{name} is a list of check ids: {e}"))
            }),
        }
    };
    let (provider, (calls, single), acknowledged) = match path {
        "/v1/openai/computer_call" => {
            (Provider::OpenAi, calls(body, "call", "calls")?, ids("acknowledged_safety_checks")?)
        }
        "/v1/gemini/computer_use" => {
            let calls = calls(body, "function_call", "function_calls")?;
            // The user's confirmation stated for the request covers each of its calls.
            let acknowledged = if flag(body, "acknowledged_safety_decision")? {
                calls
                    .0
                    .iter()
                    .map(|c| {
                        c.get("id")
                            .or_else(|| c.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned()
                    })
                    .collect()
            } else {
                vec![]
            };
            (Provider::Gemini, calls, acknowledged)
        }
        _ => {
            let tool = body.get("tool").cloned().unwrap_or_default();
            ToolsetDefinition::parse(&tool).map_err(|r| {
                Refusal::invalid_argument(format!(
                    "only the computer toolset's turns can wait for the user: {}",
                    r.message
                ))
            })?;
            (Provider::AnthropicToolset { tool }, calls(body, "tool_use", "tool_use")?, vec![])
        }
    };
    Ok(wire_batches::Request { provider, window, calls, single, acknowledged })
}

fn error(e: &WireError) -> (u16, String) {
    (e.http_status(), e.to_json().to_string())
}

fn refused(refusal: Refusal) -> (u16, String) {
    error(&WireError::new(refusal))
}

/// The optional `window` of a request body.
fn window(body: &Value) -> Result<Option<WindowRef>, Refusal> {
    match body.get("window") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => text.parse().map(Some),
        Some(_) => Err(Refusal::invalid_argument("`window` is a window id such as 4280/0x1e00003")),
    }
}

impl Routes for WireRoutes {
    fn post(&self, path: &str, body: &[u8]) -> (u16, String) {
        if !matches!(
            path,
            "/v1/openai/computer_call"
                | "/v1/anthropic/computer"
                | "/v1/gemini/computer_use"
                | "/v1/pending"
        ) {
            let message = "no such endpoint; POST /v1/openai/computer_call, /v1/anthropic/computer, /v1/gemini/computer_use or /v1/pending";
            return (
                404,
                json!({"error": {"code": "COMPUTER_INVALID_ARGUMENT", "message": message}})
                    .to_string(),
            );
        }
        let body: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => {
                return (
                    400,
                    WireError::new(Refusal::invalid_argument(format!("the body is not JSON: {e}")))
                        .to_json()
                        .to_string(),
                )
            }
        };
        let executors = match &self.executors {
            Ok(executors) => executors,
            Err(refusal) => return refused(refusal.clone()),
        };
        let Executors { openai, anthropic, gemini } = executors;
        if path == "/v1/pending" {
            return wire_batches::pending(executors, &self.pending, &body);
        }
        let window = match window(&body) {
            Ok(w) => w,
            Err(r) => return refused(r),
        };
        let park = match flag(&body, "park") {
            Ok(park) => park,
            Err(r) => return refused(r),
        };
        if park || body.get("calls").is_some() || body.get("function_calls").is_some() {
            if !park {
                return refused(Refusal::invalid_argument("a list of calls is run as a batch that may wait for the user: send it with \"park\": true"));
            }
            return match batch_request(path, &body, window.map(|w| w.to_string())) {
                Ok(request) => wire_batches::start(executors, &self.pending, request),
                Err(r) => refused(r),
            };
        }
        if path == "/v1/openai/computer_call" {
            let Some(call) = body.get("call") else {
                return refused(Refusal::invalid_argument(
                    "the body needs `call`: the computer_call item",
                ));
            };
            let acknowledged: Vec<String> = match body.get("acknowledged_safety_checks") {
                None | Some(Value::Null) => vec![],
                Some(v) => match serde_json::from_value(v.clone()) {
                    Ok(ids) => ids,
                    Err(e) => {
                        return refused(Refusal::invalid_argument(format!(
                            "acknowledged_safety_checks is a list of check ids: {e}"
                        )))
                    }
                },
            };
            openai.set_window(window);
            return match openai.execute_with(call, Arc::new(StatedAcknowledgements(acknowledged))) {
                Ok(output) => (200, serde_json::to_string(&output).unwrap_or_default()),
                Err(e) => error(&e),
            };
        }
        if path == "/v1/gemini/computer_use" {
            gemini.set_window(window);
            if body.get("screenshot") == Some(&Value::Bool(true)) {
                return match gemini.screenshot(None) {
                    Ok(png) => {
                        use base64::Engine as _;
                        (200, json!({"inlineData": {"mimeType": "image/png", "data": base64::engine::general_purpose::STANDARD.encode(png)}}).to_string())
                    }
                    Err(e) => error(&e),
                };
            }
            let Some(call) = body.get("function_call").filter(|c| c.is_object()) else {
                return refused(Refusal::invalid_argument("the body needs `function_call`: the model's functionCall (or `\"screenshot\": true`)"));
            };
            let acknowledged = match body.get("acknowledged_safety_decision") {
                None | Some(Value::Null) | Some(Value::Bool(false)) => vec![],
                Some(Value::Bool(true)) => {
                    vec![call
                        .get("id")
                        .or_else(|| call.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()]
                }
                Some(_) => {
                    return refused(Refusal::invalid_argument(
                        "acknowledged_safety_decision is true or false",
                    ))
                }
            };
            let response = gemini
                .function_response(call, Some(Arc::new(StatedAcknowledgements(acknowledged))));
            return (200, response.to_string());
        }
        let Some(tool_use) = body.get("tool_use") else {
            return refused(Refusal::invalid_argument(
                "the body needs `tool_use`: the model's tool_use block",
            ));
        };
        let is_toolset = body
            .get("tool")
            .and_then(|t| t.get("type"))
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("computer_toolset_"));
        if is_toolset {
            let toolset = match ToolsetDefinition::parse(&body["tool"]) {
                Ok(t) => t,
                Err(r) => return refused(r),
            };
            anthropic.set_window(window);
            let blocks = match tool_use {
                Value::Array(blocks) => blocks.as_slice(),
                one => std::slice::from_ref(one),
            };
            return match anthropic.run_turn(&toolset, blocks, None) {
                Ok(results) if tool_use.is_array() => {
                    (200, serde_json::to_string(&results).unwrap_or_default())
                }
                Ok(results) => (
                    200,
                    results
                        .first()
                        .map(|r| serde_json::to_string(r).unwrap_or_default())
                        .unwrap_or_default(),
                ),
                Err(r) => refused(r),
            };
        }
        let tool: ToolDefinition = match body.get("tool").map(|t| serde_json::from_value(t.clone()))
        {
            Some(Ok(tool)) => tool,
            Some(Err(e)) => {
                return refused(Refusal::invalid_argument(format!(
                    "`tool` is not a computer tool definition: {e}"
                )))
            }
            None => {
                return refused(Refusal::invalid_argument(
                    "the body needs `tool`: the computer tool definition the model was given",
                ))
            }
        };
        anthropic.set_window(window);
        match anthropic.tool_result(&tool, tool_use) {
            Ok(result) => (200, serde_json::to_string(&result).unwrap_or_default()),
            Err(r) => refused(r),
        }
    }
}
