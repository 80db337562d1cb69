//! Provider answers in each provider's documented wire shape, for the
//! provider tests.

use serde_json::{json, Value};

pub const DECISION: &str = r#"{"kind":"click","id":"e12"}"#;

pub fn decision_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("decision {text:?} is not JSON: {e}"))
}

/// An OpenAI Responses answer as documented: reasoning, then the function call.
pub fn openai_call() -> Value {
    json!({
        "id": "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41",
        "object": "response",
        "created_at": 1741476777,
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": "gpt-5-2025-08-07",
        "output": [
            {"id": "rs_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41", "type": "reasoning", "summary": []},
            {
                "type": "function_call",
                "id": "fc_67ca09c6bedc8190a7abfec07b1a1332096610f474011cc0",
                "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
                "name": "next_step",
                "arguments": DECISION,
                "status": "completed"
            }
        ],
        "parallel_tool_calls": false,
        "store": false,
        "usage": {
            "input_tokens": 1523,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 87,
            "output_tokens_details": {"reasoning_tokens": 64},
            "total_tokens": 1610
        }
    })
}

pub fn openai_text(text: &str) -> Value {
    json!({
        "id": "resp_1", "object": "response", "status": "completed", "error": null,
        "output": [{
            "type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]
        }],
        "usage": {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
    })
}

pub fn anthropic_tool_use() -> Value {
    json!({
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "next_step", "input": {"kind": "click", "id": "e12"}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {"input_tokens": 2095, "output_tokens": 503}
    })
}

pub fn anthropic_text(text: &str) -> Value {
    json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 12, "output_tokens": 6}
    })
}

pub fn chat_tool_call(arguments: Value) -> Value {
    json!({
        "id": "chatcmpl-abc123",
        "object": "chat.completion",
        "created": 1699896916,
        "model": "qwen2.5vl:7b",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [{"id": "call_abc123", "type": "function", "function": {"name": "next_step", "arguments": arguments}}]
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
    })
}

/// A Gemini `generateContent` answer as documented: a thought, then the function call.
pub fn gemini_call() -> Value {
    json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"text": "The Submit button is e12.", "thought": true},
                {"functionCall": {"name": "next_step", "args": decision_value(DECISION)}, "thoughtSignature": "c2lnbmF0dXJl"}
            ]},
            "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 1480, "candidatesTokenCount": 35, "totalTokenCount": 1515},
        "modelVersion": "gemini-3.5-flash",
        "responseId": "gm_resp_1"
    })
}

pub fn gemini_text(text: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Thinking it over.", "thought": true}, {"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 4}
    })
}
