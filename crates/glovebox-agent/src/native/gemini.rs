//! The Gemini API conversation for native computer use
//! (`POST {base}/models/{model}:generateContent` with the `computerUse` tool
//! in the desktop environment): the history kept on our side, the first
//! user turn carrying the bound window's screenshot, every model turn kept
//! verbatim, and each function call answered by [`GeminiExecutor`] with a
//! `functionResponse` holding the screenshot after it (a refusal as
//! `error`). Only the newest screenshots keep their pixels.

use super::{short, Conversation, Executed, Reply, KEPT_SCREENSHOTS};
use crate::model::ModelError;
use crate::providers::gemini;
use base64::Engine as _;
use glovebox_host::Host;
use glovebox_model::{Point, Refusal};
use glovebox_wire::gemini::{to_image, FunctionCall, GeminiCall, EXCLUDED};
use glovebox_wire::{ExecutorOptions, GeminiExecutor};
use serde_json::{json, Value};

pub(super) struct Gemini {
    executor: GeminiExecutor,
    system: String,
    contents: Vec<Value>,
    /// `functionResponse` parts answering the last reply, sent as the next user turn.
    responses: Vec<Value>,
    /// The size of the screenshot the model last received (its grid maps onto it).
    shown: Option<glovebox_model::Size>,
}

impl Gemini {
    /// Takes the first screenshot (the model's first basis); `Err` when the
    /// window cannot be shown.
    pub(super) fn new(
        host: Host,
        options: ExecutorOptions,
        system: String,
        first: String,
    ) -> Result<Gemini, Refusal> {
        let executor = GeminiExecutor::new(host, options);
        let png = executor.screenshot(None).map_err(|e| e.refusal)?;
        let shown = super::png_size(&png);
        let image = json!({"inlineData": {"mimeType": "image/png", "data": base64::engine::general_purpose::STANDARD.encode(&png)}});
        Ok(Gemini {
            executor,
            system,
            contents: vec![json!({"role": "user", "parts": [{"text": first}, image]})],
            responses: vec![],
            shown,
        })
    }
}

impl Conversation for Gemini {
    fn body(&mut self) -> Value {
        if !self.responses.is_empty() {
            self.contents
                .push(json!({"role": "user", "parts": std::mem::take(&mut self.responses)}));
        }
        bound_images(&mut self.contents, KEPT_SCREENSHOTS);
        json!({
            "systemInstruction": {"parts": [{"text": self.system}]},
            "contents": self.contents,
            "tools": [{"computerUse": {"environment": "ENVIRONMENT_DESKTOP", "excludedPredefinedFunctions": EXCLUDED}}],
        })
    }

    fn read(&mut self, answer: &Value) -> Result<Reply, ModelError> {
        let parts = gemini::parts(answer)?;
        let calls: Vec<Value> =
            parts.iter().filter_map(|p| p.get("functionCall")).cloned().collect();
        let text: Vec<&str> = parts
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect();
        if calls.is_empty() && text.is_empty() {
            return Err(ModelError::InvalidResponse(
                "the candidate holds neither a function call nor text".into(),
            ));
        }
        let turn = answer
            .pointer("/candidates/0/content")
            .cloned()
            .unwrap_or_else(|| json!({"role": "model", "parts": parts}));
        self.contents.push(turn);
        Ok(Reply { calls, text: text.join("\n"), usage: gemini::usage(answer) })
    }

    fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>> {
        self.executor.last_tree()
    }

    fn execute(&mut self, call: &Value) -> Executed {
        let named = short(call.get("name").and_then(Value::as_str).unwrap_or("(no name)"));
        let parsed = FunctionCall::parse(call);
        let (action, target, input) = describe(parsed.as_ref().ok(), &named, self.shown);
        let response = self.executor.function_response(call, None);
        let part = &response["functionResponse"];
        let outcome = match part.pointer("/response/error").and_then(Value::as_str) {
            Some(error) => Err(refusal_of(error)),
            None => Ok(()),
        };
        let screenshot = part
            .pointer("/parts/0/inlineData/data")
            .and_then(Value::as_str)
            .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d).ok());
        if let Some(png) = &screenshot {
            self.shown = super::png_size(png);
        }
        self.responses.push(response);
        Executed {
            action,
            decision: json!({"function": named, "args": call.get("args").cloned().unwrap_or(Value::Null)}),
            target,
            route: format!("gemini:{named}"),
            input,
            outcome,
            delivered_before: None,
            screenshot,
            fatal: None,
            fingerprint: call.to_string(),
        }
    }
}

/// The refusal an executor's `error` text carries (`COMPUTER_…: sentence`).
fn refusal_of(text: &str) -> Refusal {
    let (code, message) = text.split_once(": ").unwrap_or(("", text));
    let code =
        serde_json::from_value(json!(code)).unwrap_or(glovebox_model::ErrorCode::InvalidArgument);
    Refusal::new(code, message.to_owned())
}

/// (description, point aimed at in the shown screenshot, carries input).
fn describe(
    call: Option<&FunctionCall>,
    named: &str,
    shown: Option<glovebox_model::Size>,
) -> (String, Option<Point>, bool) {
    let Some(call) = call else { return (format!("{named} (unreadable)"), None, false) };
    let point = |x: i64, y: i64| shown.and_then(|s| to_image(x, y, s).ok());
    match &call.call {
        GeminiCall::ClickAt { x, y } | GeminiCall::HoverAt { x, y } => {
            (format!("{named} ({x}, {y}) on the grid"), point(*x, *y), true)
        }
        GeminiCall::TypeTextAt { x, y, text, .. } => (
            format!("type_text_at ({x}, {y}): {} characters", text.chars().count()),
            point(*x, *y),
            true,
        ),
        GeminiCall::ScrollAt { x, y, direction, .. } => {
            (format!("scroll_at ({x}, {y}) {direction:?}"), point(*x, *y), true)
        }
        GeminiCall::DragAndDrop { x, y, destination_x, destination_y } => (
            format!("drag_and_drop ({x}, {y}) to ({destination_x}, {destination_y})"),
            point(*x, *y),
            true,
        ),
        GeminiCall::KeyCombination { keys } => {
            (format!("key_combination {}", short(keys)), None, true)
        }
        GeminiCall::Wait5Seconds {} => ("wait_5_seconds".into(), None, false),
        GeminiCall::ScrollDocument { direction } => {
            (format!("scroll_document {direction:?}"), None, true)
        }
        GeminiCall::GoBack {} | GeminiCall::GoForward {} => (named.to_owned(), None, true),
        GeminiCall::OpenWebBrowser {} | GeminiCall::Search {} | GeminiCall::Navigate { .. } => {
            (named.to_owned(), None, false)
        }
    }
}

/// Drops the pixels of every screenshot but the newest `keep`.
fn bound_images(contents: &mut [Value], keep: usize) {
    let mut seen = 0;
    for content in contents.iter_mut().rev() {
        let Some(parts) = content.get_mut("parts").and_then(Value::as_array_mut) else { continue };
        for part in parts.iter_mut().rev() {
            let images = match part.pointer_mut("/functionResponse/parts") {
                Some(Value::Array(images)) => images,
                _ => continue,
            };
            seen += 1;
            if seen > keep {
                images.clear();
            }
        }
    }
}
