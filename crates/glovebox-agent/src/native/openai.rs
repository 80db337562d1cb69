//! The OpenAI Responses conversation for the GA computer tool
//! (`POST {base}/responses` with `tools: [{"type": "computer"}]`): stateless
//! on OpenAI's side (`store: false`, the whole input history sent each time,
//! reasoning carried as `reasoning.encrypted_content`), every output item
//! kept verbatim, and each `computer_call` answered by [`OpenAiExecutor`]
//! with a `computer_call_output`. A refused call still needs an output: it
//! gets a fresh screenshot, and the refusal follows as a message. Only the
//! newest screenshots keep their pixels.

use super::{short, Conversation, Executed, Reply, KEPT_SCREENSHOTS};
use crate::model::ModelError;
use crate::providers::http::error_message;
use glovebox_host::Host;
use glovebox_model::Point;
use glovebox_wire::openai::GaButton;
use glovebox_wire::{ComputerCall, ExecutorOptions, GaAction, OpenAiExecutor};
use serde_json::{json, Value};

/// A valid 1×1 black PNG: what an old screenshot becomes, since every
/// `computer_call_output` must keep carrying an image.
pub const PLACEHOLDER: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";

pub(super) struct OpenAi {
    executor: OpenAiExecutor,
    model: String,
    system: String,
    /// Every input and output item so far, in order.
    input: Vec<Value>,
}

impl OpenAi {
    pub(super) fn new(
        host: Host,
        options: ExecutorOptions,
        model: &str,
        system: String,
        first: String,
    ) -> OpenAi {
        OpenAi {
            executor: OpenAiExecutor::new(host, options),
            model: model.to_owned(),
            system,
            input: vec![
                json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": first}]}),
            ],
        }
    }
}

impl Conversation for OpenAi {
    fn body(&mut self) -> Value {
        bound_images(&mut self.input, KEPT_SCREENSHOTS);
        json!({
            "model": self.model,
            "instructions": self.system,
            "input": self.input,
            "tools": [{"type": "computer"}],
            // Screenshots of the user's desktop are not kept on OpenAI's side;
            // the reasoning travels encrypted in the history instead.
            "store": false,
            "include": ["reasoning.encrypted_content"],
        })
    }

    fn read(&mut self, answer: &Value) -> Result<Reply, ModelError> {
        if answer.get("status").and_then(Value::as_str) == Some("failed")
            || answer.get("error").is_some_and(|e| !e.is_null())
        {
            return Err(unreadable("the response failed", answer));
        }
        let output = answer
            .get("output")
            .and_then(Value::as_array)
            .ok_or_else(|| unreadable("the response has no `output` array", answer))?;
        let calls: Vec<Value> = output
            .iter()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("computer_call"))
            .cloned()
            .collect();
        // A call without a call_id cannot be answered; checked before the items join the history.
        if calls.iter().any(|c| c.get("call_id").and_then(Value::as_str).is_none_or(str::is_empty))
        {
            return Err(ModelError::InvalidResponse("a computer_call has no call_id".into()));
        }
        let text: Vec<&str> = crate::providers::openai::message_text(output).collect();
        if calls.is_empty() && text.is_empty() {
            return Err(unreadable("the response holds neither a computer_call nor text", answer));
        }
        self.input.extend(output.iter().cloned());
        let usage = crate::providers::usage(answer, "input_tokens", "output_tokens");
        Ok(Reply { calls, text: text.join("\n"), usage })
    }

    fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>> {
        self.executor.last_tree()
    }

    fn execute(&mut self, call: &Value) -> Executed {
        let call_id = call.get("call_id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let parsed = ComputerCall::parse(call);
        let actions = parsed.as_ref().map(|c| c.actions.clone()).unwrap_or_default();
        let (action, target, route, input) = match &parsed {
            Ok(_) => describe(&actions),
            Err(_) => {
                ("an unreadable computer_call".to_owned(), None, "openai-ga:?".to_owned(), false)
            }
        };
        let decision = json!({"computer_call": call.get("actions").or_else(|| call.get("action")).cloned().unwrap_or(Value::Null)});
        let mut done = Executed {
            action,
            decision,
            target,
            route,
            input,
            outcome: Ok(()),
            delivered_before: None,
            screenshot: None,
            fatal: None,
            fingerprint: normalised(call),
        };
        let error = match parsed.and_then(|c| self.executor.execute_call(&c, None)) {
            Ok(output) => {
                done.screenshot = output.png().ok();
                self.input.push(serde_json::to_value(&output).unwrap_or(Value::Null));
                return done;
            }
            Err(error) => error,
        };
        if let (Some(i), true) = (error.failed_action_index, error.executed > 0) {
            let (before, _, route, _) = describe(&actions[..i.min(actions.len())]);
            done.delivered_before = Some((before, route));
        }
        done.outcome = Err(error.refusal.clone());
        if crate::run::ends_the_run(error.code()) {
            // The run stops here; no output is owed to a conversation that ends.
            return done;
        }
        // The call still needs its output: a screenshot of the window as it is now.
        let look = ComputerCall {
            id: None,
            call_id: call_id.clone(),
            actions: vec![GaAction::Screenshot {}],
            pending_safety_checks: vec![],
        };
        match self.executor.execute_call(&look, None) {
            Ok(output) => {
                done.screenshot = output.png().ok();
                self.input.push(serde_json::to_value(&output).unwrap_or(Value::Null));
                let text = format!("glovebox refused computer_call {call_id}: {error}. The screenshot with it shows the window now.");
                self.input.push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}));
            }
            Err(e) => done.fatal = Some(e.refusal),
        }
        done
    }
}

fn unreadable(what: &str, answer: &Value) -> ModelError {
    match error_message(answer) {
        Some(reason) => ModelError::InvalidResponse(format!("{what}: {reason}")),
        None => ModelError::InvalidResponse(what.to_owned()),
    }
}

/// The call's actions with insignificant whitespace removed, to recognise a
/// call the model repeats (ids differ every time).
fn normalised(call: &Value) -> String {
    call.get("actions").or_else(|| call.get("action")).map(Value::to_string).unwrap_or_default()
}

/// (description, first point aimed at, route, carries input) of a batch;
/// typed text appears as its length.
fn describe(actions: &[GaAction]) -> (String, Option<Point>, String, bool) {
    let mut lines = Vec::new();
    let mut names = Vec::new();
    let mut target = None;
    let mut input = false;
    for action in actions {
        let mut aim = |x: i64, y: i64| {
            if target.is_none() {
                target = Some(Point {
                    x: x.clamp(0, i32::MAX as i64) as i32,
                    y: y.clamp(0, i32::MAX as i64) as i32,
                });
            }
            format!("({x}, {y})")
        };
        let (name, line) = match action {
            GaAction::Click { x, y, button, .. } => {
                let which = match button {
                    GaButton::Left => "",
                    GaButton::Right => "right-",
                    GaButton::Wheel => "middle-",
                    GaButton::Back => "back-",
                    GaButton::Forward => "forward-",
                };
                ("click", format!("{which}click at {}", aim(*x, *y)))
            }
            GaAction::DoubleClick { x, y, .. } => {
                ("double_click", format!("double_click at {}", aim(*x, *y)))
            }
            GaAction::Drag { path, .. } => match (path.first(), path.last()) {
                (Some(a), Some(b)) => {
                    ("drag", format!("drag from {} to ({}, {})", aim(a.x, a.y), b.x, b.y))
                }
                _ => ("drag", "drag".to_owned()),
            },
            GaAction::Keypress { keys } => {
                ("keypress", format!("keypress {}", short(&keys.join("+"))))
            }
            GaAction::Move { x, y, .. } => ("move", format!("move to {}", aim(*x, *y))),
            GaAction::Scroll { x, y, scroll_x, scroll_y, .. } => {
                ("scroll", format!("scroll ({scroll_x}, {scroll_y}) px at {}", aim(*x, *y)))
            }
            GaAction::Type { text } => {
                ("type", format!("type {} characters", text.chars().count()))
            }
            GaAction::Screenshot {} => ("screenshot", "screenshot".to_owned()),
            GaAction::Wait {} => ("wait", "wait".to_owned()),
        };
        let is_input = !matches!(action, GaAction::Screenshot {} | GaAction::Wait {});
        input |= is_input;
        if is_input {
            names.push(name);
        }
        lines.push(line);
    }
    if names.is_empty() {
        names = if actions.iter().all(|a| matches!(a, GaAction::Screenshot {})) {
            vec!["screenshot"]
        } else {
            vec!["wait"]
        };
    }
    (lines.join("; "), target, format!("openai-ga:{}", names.join("+")), input)
}

/// Points every `computer_call_output` but the newest `keep` at
/// [`PLACEHOLDER`], so request size stays bounded however long the run.
pub(super) fn bound_images(input: &mut [Value], keep: usize) {
    let mut seen = 0;
    for item in input.iter_mut().rev() {
        if item.get("type").and_then(Value::as_str) != Some("computer_call_output") {
            continue;
        }
        seen += 1;
        if seen > keep {
            if let Some(output) = item.get_mut("output").and_then(Value::as_object_mut) {
                output.insert("image_url".into(), Value::String(PLACEHOLDER.into()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_described_with_their_input_route_and_first_point() {
        let actions: Vec<GaAction> = serde_json::from_value(json!([
            {"type": "click", "x": 35, "y": 20, "button": "left"},
            {"type": "type", "text": "hello"},
            {"type": "screenshot"}
        ]))
        .unwrap();
        let (line, target, route, input) = describe(&actions);
        assert_eq!(line, "click at (35, 20); type 5 characters; screenshot");
        assert_eq!(target, Some(Point { x: 35, y: 20 }));
        assert_eq!(route, "openai-ga:click+type");
        assert!(input);
        let (_, _, route, input) = describe(&[GaAction::Screenshot {}]);
        assert_eq!((route.as_str(), input), ("openai-ga:screenshot", false));
    }

    #[test]
    fn old_outputs_point_at_the_placeholder() {
        let output = |n: u32| json!({"type": "computer_call_output", "call_id": format!("c{n}"), "output": {"type": "computer_screenshot", "image_url": format!("data:{n}")}});
        let mut input: Vec<Value> = (0..5).map(output).collect();
        bound_images(&mut input, 3);
        assert_eq!(input[1]["output"]["image_url"], PLACEHOLDER);
        assert_eq!(input[2]["output"]["image_url"], "data:2");
    }
}
