//! The Anthropic Messages wire format (`POST {base}/messages`): the request
//! body for one forced tool use and the reading of its `content` blocks.

use super::{usage, wire_error};
use crate::model::{DecideRequest, ModelError, Png, Reply};
use base64::Engine as _;
use serde_json::{json, Value};

/// Room for a decision that types a paragraph; the decision itself is small.
const MAX_TOKENS: u32 = 2048;

pub(crate) fn body(model: &str, request: &DecideRequest, screenshot: Option<&Png>) -> Value {
    let mut content = Vec::new();
    // Anthropic's vision guide recommends the image before the text about it.
    if let Some(png) = screenshot {
        let data = base64::engine::general_purpose::STANDARD.encode(&png.bytes);
        content.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}));
    }
    content.push(json!({"type": "text", "text": request.user}));
    json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "system": request.system,
        "messages": [{"role": "user", "content": content}],
        "tools": [{
            "name": request.tool.name,
            "description": request.tool.description,
            "input_schema": request.tool.schema,
        }],
        "tool_choice": {"type": "tool", "name": request.tool.name},
    })
}

pub(crate) fn parse(answer: &Value, tool: &str) -> Result<Reply, ModelError> {
    if answer.get("type").and_then(Value::as_str) == Some("error") {
        return Err(wire_error("the message failed", answer));
    }
    let content = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::InvalidResponse("the message has no `content` array".into()))?;
    let usage = usage(answer, "input_tokens", "output_tokens");
    let uses: Vec<&Value> = content
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .collect();
    let chosen =
        uses.iter().find(|u| u.get("name").and_then(Value::as_str) == Some(tool)).or(uses.first());
    if let Some(block) = chosen {
        let decision = match block.get("input") {
            Some(Value::String(input)) => input.clone(),
            Some(input) if !input.is_null() => input.to_string(),
            _ => {
                return Err(ModelError::InvalidResponse("the tool_use block has no `input`".into()))
            }
        };
        return Ok(Reply { decision, usage });
    }
    let text: String = content
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    if text.is_empty() {
        return Err(wire_error("the message holds neither a tool_use block nor text", answer));
    }
    Ok(Reply { decision: text, usage })
}
