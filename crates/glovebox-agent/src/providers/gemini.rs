//! The Gemini API wire format (`POST {base}/models/{model}:generateContent`,
//! key in `x-goog-api-key`): the request body for one forced function call
//! (the decision function as `parametersJsonSchema`, `functionCallingConfig`
//! mode `ANY` naming it) and the reading of the first candidate's parts.

use super::wire_error;
use crate::model::{DecideRequest, ModelError, Png, Reply};
use base64::Engine as _;
use serde_json::{json, Value};

pub(crate) fn body(request: &DecideRequest, screenshot: Option<&Png>) -> Value {
    let mut parts = Vec::new();
    if let Some(png) = screenshot {
        parts.push(json!({"inlineData": {"mimeType": "image/png", "data": base64::engine::general_purpose::STANDARD.encode(&png.bytes)}}));
    }
    parts.push(json!({"text": request.user}));
    json!({
        "systemInstruction": {"parts": [{"text": request.system}]},
        "contents": [{"role": "user", "parts": parts}],
        "tools": [{"functionDeclarations": [{
            "name": request.tool.name,
            "description": request.tool.description,
            "parametersJsonSchema": request.tool.schema,
        }]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [request.tool.name]}},
    })
}

/// Tokens in and out from `usageMetadata`.
pub(crate) fn usage(answer: &Value) -> Option<(u64, u64)> {
    let usage = answer.get("usageMetadata")?;
    Some((
        usage.get("promptTokenCount")?.as_u64()?,
        usage.get("candidatesTokenCount").and_then(Value::as_u64).unwrap_or(0),
    ))
}

/// The first candidate's parts, or why there are none (a blocked prompt,
/// a candidate stopped for safety, an error body).
pub(crate) fn parts(answer: &Value) -> Result<&Vec<Value>, ModelError> {
    if answer.get("error").is_some() {
        return Err(wire_error("the request failed", answer));
    }
    let candidate = answer.get("candidates").and_then(Value::as_array).and_then(|c| c.first());
    let Some(candidate) = candidate else {
        let blocked = answer.pointer("/promptFeedback/blockReason").and_then(Value::as_str);
        return Err(ModelError::InvalidResponse(match blocked {
            Some(reason) => format!("the prompt was blocked ({reason})"),
            None => "the answer has no candidates".into(),
        }));
    };
    candidate.pointer("/content/parts").and_then(Value::as_array).ok_or_else(|| {
        let reason =
            candidate.get("finishReason").and_then(Value::as_str).unwrap_or("no reason given");
        ModelError::InvalidResponse(format!(
            "the candidate has no content parts (finish reason {reason})"
        ))
    })
}

pub(crate) fn parse(answer: &Value, tool: &str) -> Result<Reply, ModelError> {
    let parts = parts(answer)?;
    let usage = usage(answer);
    let calls: Vec<&Value> = parts.iter().filter_map(|p| p.get("functionCall")).collect();
    let chosen = calls
        .iter()
        .find(|c| c.get("name").and_then(Value::as_str) == Some(tool))
        .or(calls.first());
    if let Some(call) = chosen {
        let decision = match call.get("args") {
            Some(args) if args.is_object() => args.to_string(),
            _ => {
                return Err(ModelError::InvalidResponse(
                    "the function call has no `args` object".into(),
                ))
            }
        };
        return Ok(Reply { decision, usage });
    }
    let text: String = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    if text.is_empty() {
        return Err(wire_error("the answer holds neither a function call nor text", answer));
    }
    Ok(Reply { decision: text, usage })
}
