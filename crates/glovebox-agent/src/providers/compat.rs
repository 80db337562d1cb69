//! The OpenAI-compatible Chat Completions wire format
//! (`POST {base}/chat/completions`) as served by Ollama, vLLM and LM Studio:
//! the request body for one forced function call and the reading of
//! `choices[0].message`.

use super::{data_url, usage, wire_error};
use crate::model::{DecideRequest, ModelError, Png, Reply};
use serde_json::{json, Value};

pub(crate) fn body(model: &str, request: &DecideRequest, screenshot: Option<&Png>) -> Value {
    // Text-only servers reject content arrays, so the plain string form is
    // used whenever there is no image to carry.
    let user = match screenshot {
        Some(png) => json!([
            {"type": "text", "text": request.user},
            {"type": "image_url", "image_url": {"url": data_url(png)}},
        ]),
        None => json!(request.user),
    };
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": request.system},
            {"role": "user", "content": user},
        ],
        "tools": [{
            "type": "function",
            "function": {
                "name": request.tool.name,
                "description": request.tool.description,
                "parameters": request.tool.schema,
            },
        }],
        "tool_choice": {"type": "function", "function": {"name": request.tool.name}},
        "stream": false,
    })
}

pub(crate) fn parse(answer: &Value, tool: &str) -> Result<Reply, ModelError> {
    let message = answer
        .pointer("/choices/0/message")
        .filter(|m| m.is_object())
        .ok_or_else(|| wire_error("the answer has no `choices[0].message`", answer))?;
    let usage = usage(answer, "prompt_tokens", "completion_tokens");
    let calls: Vec<&Value> = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    let call = calls
        .iter()
        .find(|c| c.pointer("/function/name").and_then(Value::as_str) == Some(tool))
        .or(calls.first());
    if let Some(call) = call {
        // OpenAI sends a JSON string; Ollama (and some others) an object.
        let decision = match call.pointer("/function/arguments") {
            Some(Value::String(arguments)) => arguments.clone(),
            Some(arguments) if !arguments.is_null() => arguments.to_string(),
            _ => {
                return Err(ModelError::InvalidResponse(
                    "the tool call has no `function.arguments`".into(),
                ))
            }
        };
        return Ok(Reply { decision, usage });
    }
    let text: String = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        // Some servers answer with content parts even in chat completions.
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect()
        }
        _ => String::new(),
    };
    if text.is_empty() {
        return Err(wire_error("the message holds neither a tool call nor text", answer));
    }
    Ok(Reply { decision: text, usage })
}
