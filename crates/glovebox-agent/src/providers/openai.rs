//! The OpenAI Responses wire format (`POST {base}/responses`): the request
//! body for one forced function call and the reading of its `output` array.

use super::{data_url, usage, wire_error};
use crate::model::{DecideRequest, ModelError, Png, Reply};
use serde_json::{json, Value};

/// `high` is accepted by every vision model the Responses API serves
/// (`original` only by the newest), and screenshots are already sized by the
/// loop, so nothing is lost to downscaling at typical window sizes.
const IMAGE_DETAIL: &str = "high";

pub(crate) fn body(model: &str, request: &DecideRequest, screenshot: Option<&Png>) -> Value {
    let mut content = vec![json!({"type": "input_text", "text": request.user})];
    if let Some(png) = screenshot {
        content.push(
            json!({"type": "input_image", "image_url": data_url(png), "detail": IMAGE_DETAIL}),
        );
    }
    json!({
        "model": model,
        "instructions": request.system,
        "input": [{"type": "message", "role": "user", "content": content}],
        "tools": [{
            "type": "function",
            "name": request.tool.name,
            "description": request.tool.description,
            "parameters": request.tool.schema,
            "strict": true,
        }],
        "tool_choice": {"type": "function", "name": request.tool.name},
        "parallel_tool_calls": false,
        // Each request is self-contained; nothing needs to live on OpenAI's side.
        "store": false,
    })
}

/// The text parts (and refusals) of the `message` items of a Responses `output`.
pub(crate) fn message_text(output: &[Value]) -> impl Iterator<Item = &str> {
    output
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("message"))
        .filter_map(|item| item.get("content").and_then(Value::as_array))
        .flatten()
        .filter_map(|part| match part.get("type").and_then(Value::as_str) {
            Some("output_text") => part.get("text").and_then(Value::as_str),
            Some("refusal") => part.get("refusal").and_then(Value::as_str),
            _ => None,
        })
}

pub(crate) fn parse(answer: &Value, tool: &str) -> Result<Reply, ModelError> {
    if answer.get("status").and_then(Value::as_str) == Some("failed")
        || answer.get("error").is_some_and(|e| !e.is_null())
    {
        return Err(wire_error("the response failed", answer));
    }
    let output = answer
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::InvalidResponse("the response has no `output` array".into()))?;
    let usage = usage(answer, "input_tokens", "output_tokens");
    let calls: Vec<&Value> = output
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call"))
        .collect();
    // Forced tool choice should yield exactly our tool; prefer it should a
    // model add another call, fall back to the first so the loop sees it.
    let call = calls
        .iter()
        .find(|c| c.get("name").and_then(Value::as_str) == Some(tool))
        .or(calls.first());
    if let Some(call) = call {
        let decision = match call.get("arguments") {
            Some(Value::String(arguments)) => arguments.clone(),
            Some(other) if other.is_object() => other.to_string(),
            _ => {
                return Err(ModelError::InvalidResponse(
                    "the function call has no `arguments` string".into(),
                ))
            }
        };
        return Ok(Reply { decision, usage });
    }
    let text: String = message_text(output).collect();
    if text.is_empty() {
        return Err(wire_error("the response holds neither a function call nor text", answer));
    }
    Ok(Reply { decision: text, usage })
}
