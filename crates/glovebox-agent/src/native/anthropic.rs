//! The Anthropic Messages conversation for native computer use
//! (`POST {base}/messages`), in the contract `model.anthropic_tool` names:
//! the generally available toolset `computer_toolset_20260801` (member
//! blocks, a reply's blocks run as one turn that stops at its first
//! failure), or the beta `computer_20250124` tool at the declared display
//! size (with `anthropic-beta: computer-use-2025-01-24`). The assistant
//! turns are kept verbatim, each `tool_use` is answered by
//! [`AnthropicExecutor`] with a `tool_result` (a refusal as `is_error:
//! true`), all results of one reply sent back as the next user turn. Only
//! the newest screenshots stay in the history.

use super::{short, Conversation, Executed, Reply, KEPT_SCREENSHOTS};
use crate::model::ModelError;
use crate::providers::http::error_message;
use base64::Engine as _;
use glovebox_host::Host;
use glovebox_model::{Point, Refusal, Size};
use glovebox_wire::anthropic::ToolResultType;
use glovebox_wire::{
    AnthropicExecutor, ContentBlock, ExecutorOptions, ToolDefinition, ToolResult, ToolVersion,
    ToolsetDefinition,
};
use serde_json::{json, Value};

/// Room for a reply that types a paragraph or explains the outcome.
const MAX_TOKENS: u32 = 4096;
/// The name the tool is declared under (Anthropic's examples use it; the model is trained on it).
pub const TOOL_NAME: &str = "computer";
const OMITTED: &str = "(an older screenshot, removed to keep the conversation bounded)";

/// The contract a run declares.
pub(super) enum Contract {
    Toolset(ToolsetDefinition),
    Tool(ToolDefinition),
}

pub(super) struct Anthropic {
    executor: AnthropicExecutor,
    contract: Contract,
    /// The block of the current reply that failed (index, member): the
    /// toolset's turn stops there, later blocks are answered "not run".
    failed: Option<(usize, String)>,
    /// Blocks of the current reply answered so far.
    answered: usize,
    model: String,
    system: String,
    messages: Vec<Value>,
    /// `tool_result` blocks answering the last reply, sent as the next user turn.
    results: Vec<Value>,
}

impl Anthropic {
    /// `display`: the declared display of the single tool; `None`: the toolset.
    pub(super) fn new(
        host: Host,
        options: ExecutorOptions,
        model: &str,
        system: String,
        first: String,
        display: Option<Size>,
    ) -> Anthropic {
        let contract = match display {
            None => Contract::Toolset(ToolsetDefinition::glovebox_default()),
            Some(display) => Contract::Tool(ToolDefinition {
                version: ToolVersion::V20250124,
                name: TOOL_NAME.into(),
                display_width_px: display.width,
                display_height_px: display.height,
                display_number: None,
                enable_zoom: false,
            }),
        };
        Anthropic {
            executor: AnthropicExecutor::new(host, options),
            contract,
            failed: None,
            answered: 0,
            model: model.to_owned(),
            system,
            messages: vec![json!({"role": "user", "content": [{"type": "text", "text": first}]})],
            results: vec![],
        }
    }
}

impl Conversation for Anthropic {
    fn body(&mut self) -> Value {
        if !self.results.is_empty() {
            self.messages
                .push(json!({"role": "user", "content": std::mem::take(&mut self.results)}));
        }
        bound_images(&mut self.messages, KEPT_SCREENSHOTS);
        json!({
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "system": self.system,
            "tools": [match &self.contract {
                Contract::Toolset(toolset) => serde_json::to_value(toolset).unwrap_or(Value::Null),
                // Written out rather than serialised from the definition: the
                // executor's struct carries `enable_zoom`, which this version lacks.
                Contract::Tool(tool) => json!({
                    "type": tool.version.as_str(),
                    "name": tool.name,
                    "display_width_px": tool.display_width_px,
                    "display_height_px": tool.display_height_px,
                }),
            }],
            "messages": self.messages,
        })
    }

    fn read(&mut self, answer: &Value) -> Result<Reply, ModelError> {
        if answer.get("type").and_then(Value::as_str) == Some("error") {
            return Err(unreadable("the message failed", answer));
        }
        let content = answer
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| unreadable("the message has no `content` array", answer))?;
        let calls: Vec<Value> = content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .cloned()
            .collect();
        // A call without an id cannot be answered; checked before the turn joins the history.
        if calls.iter().any(|c| c.get("id").and_then(Value::as_str).is_none_or(str::is_empty)) {
            return Err(ModelError::InvalidResponse("a tool_use block has no id".into()));
        }
        let text: Vec<&str> = content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        if calls.is_empty() && text.is_empty() {
            return Err(unreadable("the message holds neither a tool_use block nor text", answer));
        }
        self.messages.push(json!({"role": "assistant", "content": content}));
        self.failed = None;
        self.answered = 0;
        let usage = crate::providers::usage(answer, "input_tokens", "output_tokens");
        Ok(Reply { calls, text: text.join("\n"), usage })
    }

    fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>> {
        self.executor.last_tree()
    }

    fn execute(&mut self, call: &Value) -> Executed {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let input = call.get("input").cloned().unwrap_or(Value::Null);
        let named = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let index = self.answered;
        self.answered += 1;
        let (action, target, name, input_kind) = match &self.contract {
            // A member block is named after its action.
            Contract::Toolset(_) => describe(&with_action(&input, named)),
            Contract::Tool(_) => describe(&input),
        };
        let outcome = match (&self.contract, &self.failed) {
            (Contract::Toolset(_), Some((at, failed))) => {
                Err(glovebox_wire::anthropic::toolset::not_run(*at, failed))
            }
            (Contract::Toolset(toolset), None) => self.executor.run_member(toolset, call, None),
            (Contract::Tool(tool), _) if named == TOOL_NAME => self.executor.execute(tool, &input),
            (Contract::Tool(_), _) => Err(Refusal::invalid_argument(format!(
                "there is no tool named {:?}; use the {TOOL_NAME} tool",
                short(named)
            ))),
        };
        if outcome.is_err()
            && self.failed.is_none()
            && matches!(self.contract, Contract::Toolset(_))
        {
            self.failed = Some((index, short(named)));
        }
        let (result, screenshot, outcome) = match outcome {
            Ok(content) => {
                let png = content.iter().find_map(|b| match b {
                    ContentBlock::Image { source } => {
                        base64::engine::general_purpose::STANDARD.decode(&source.data).ok()
                    }
                    ContentBlock::Text { .. } => None,
                });
                (
                    ToolResult {
                        kind: ToolResultType::ToolResult,
                        tool_use_id: id,
                        content,
                        is_error: false,
                    },
                    png,
                    Ok(()),
                )
            }
            Err(refusal) => (ToolResult::refusal(id, &refusal), None, Err(refusal)),
        };
        // The result is plain data; serialising it cannot fail, but a null is still a valid turn.
        self.results.push(serde_json::to_value(&result).unwrap_or(Value::Null));
        Executed {
            action,
            decision: json!({"tool": short(named), "input": input}),
            target,
            route: format!("anthropic:{name}"),
            input: input_kind,
            outcome,
            delivered_before: None,
            screenshot,
            fatal: None,
            fingerprint: input.to_string(),
        }
    }
}

/// A member block's input with its member name as the `action` the single
/// tool would carry, for describing it.
fn with_action(input: &Value, member: &str) -> Value {
    let mut tagged = input.as_object().cloned().unwrap_or_default();
    tagged.insert("action".into(), Value::String(member.to_owned()));
    Value::Object(tagged)
}

fn unreadable(what: &str, answer: &Value) -> ModelError {
    match error_message(answer) {
        Some(reason) => ModelError::InvalidResponse(format!("{what}: {reason}")),
        None => ModelError::InvalidResponse(what.to_owned()),
    }
}

/// (description, point aimed at, action name, carries input) of one
/// `tool_use` input, read leniently: the executor judges it.
fn describe(input: &Value) -> (String, Option<Point>, String, bool) {
    let name = short(input.get("action").and_then(Value::as_str).unwrap_or("(no action)"));
    let point = |key: &str| -> Option<Point> {
        let c = input.get(key)?.as_array()?;
        Some(Point {
            x: i32::try_from(c.first()?.as_i64()?).ok()?,
            y: i32::try_from(c.get(1)?.as_i64()?).ok()?,
        })
    };
    let at = |p: Option<Point>| {
        p.map(|p| format!(" at ({}, {})", p.x, p.y)).unwrap_or_else(|| " at the cursor".to_owned())
    };
    let coordinate = point("coordinate");
    let text = input.get("text").and_then(Value::as_str).unwrap_or_default();
    let (description, target) = match name.as_str() {
        "type" => (format!("type {} characters", text.chars().count()), None),
        "key" => (format!("key {}", short(text)), None),
        "left_click_drag" => {
            let from = point("start_coordinate");
            (format!("left_click_drag from{} to{}", at(from), at(coordinate)), from.or(coordinate))
        }
        "scroll" => {
            let direction =
                short(input.get("scroll_direction").and_then(Value::as_str).unwrap_or("?"));
            let amount = input.get("scroll_amount").and_then(Value::as_i64).unwrap_or(0);
            (format!("scroll {direction} ×{amount}{}", at(coordinate)), coordinate)
        }
        "wait" => (
            format!("wait {} s", input.get("duration").and_then(Value::as_f64).unwrap_or(0.0)),
            None,
        ),
        "mouse_move" | "left_click" | "right_click" | "middle_click" | "double_click"
        | "triple_click" | "left_mouse_down" | "left_mouse_up" => {
            (format!("{name}{}", at(coordinate)), coordinate)
        }
        _ => (name.clone(), None),
    };
    // left_mouse_down only records the press; the release delivers it.
    let input_kind = matches!(
        name.as_str(),
        "key"
            | "type"
            | "mouse_move"
            | "left_mouse_up"
            | "left_click"
            | "right_click"
            | "middle_click"
            | "double_click"
            | "triple_click"
            | "left_click_drag"
            | "scroll"
    );
    (description, target, name, input_kind)
}

/// Replaces every image but the newest `keep` inside `tool_result` blocks
/// with a short note, so request size stays bounded however long the run.
pub(super) fn bound_images(messages: &mut [Value], keep: usize) {
    let mut seen = 0;
    for message in messages.iter_mut().rev() {
        let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
            continue;
        };
        for block in blocks.iter_mut().rev() {
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let Some(content) = block.get_mut("content").and_then(Value::as_array_mut) else {
                continue;
            };
            for part in content.iter_mut().rev() {
                if part.get("type").and_then(Value::as_str) == Some("image") {
                    seen += 1;
                    if seen > keep {
                        *part = json!({"type": "text", "text": OMITTED});
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_images_survive() {
        let result = |n: u32| json!({"type": "tool_result", "tool_use_id": format!("t{n}"), "content": [{"type": "image", "source": {"data": n.to_string()}}]});
        let mut messages: Vec<Value> =
            (0..5).map(|n| json!({"role": "user", "content": [result(n)]})).collect();
        bound_images(&mut messages, 3);
        let images = |m: &Value| m["content"][0]["content"][0]["type"] == "image";
        assert_eq!(
            messages.iter().map(images).collect::<Vec<_>>(),
            [false, false, true, true, true]
        );
        assert_eq!(messages[0]["content"][0]["content"][0]["text"], OMITTED);
    }

    #[test]
    fn descriptions_give_typed_text_as_a_length_and_name_the_point() {
        let (d, p, _, input) = describe(&json!({"action": "type", "text": "secret words"}));
        assert_eq!((d.as_str(), p, input), ("type 12 characters", None, true));
        let (d, p, _, input) = describe(&json!({"action": "left_click", "coordinate": [35, 20]}));
        assert_eq!(
            (d.as_str(), p, input),
            ("left_click at (35, 20)", Some(Point { x: 35, y: 20 }), true)
        );
        let (_, _, name, input) = describe(&json!({"action": "screenshot"}));
        assert_eq!((name.as_str(), input), ("screenshot", false));
    }
}
