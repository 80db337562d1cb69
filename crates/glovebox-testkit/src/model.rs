//! Scripted models for the loop's end-to-end tests: loopback HTTP servers
//! that answer in a provider's real wire format (Chat Completions here; any
//! JSON through [`replay_server`]) and record what glovebox sent them.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// An OpenAI-compatible Chat Completions server on loopback: records each
/// request body and answers with `script(step, prompt)`'s decision as the
/// loop's tool call, after `delay` (the model's thinking time).
pub fn model_server_with(
    script: fn(usize, &str) -> Value,
    delay: std::time::Duration,
) -> (String, Recorded<Value>) {
    let (base, seen, _) = replay_server(Box::new(move |step, request: &Value| {
        std::thread::sleep(delay);
        chat_completion(step, &script(step, &prompt_of(request)))
    }));
    (format!("{base}/v1"), seen)
}

/// As [`model_server_with`], for many conversations at once (a batch of
/// episodes): `script(prompt)` decides from the prompt alone, which carries
/// the instruction, the steps so far ([`turn_of`]) and the tree.
pub fn model_server_by_prompt(script: fn(&str) -> Value) -> (String, Recorded<Value>) {
    let (base, seen, _) = replay_server(Box::new(move |step, request: &Value| {
        chat_completion(step, &script(&prompt_of(request)))
    }));
    (format!("{base}/v1"), seen)
}

/// How many steps the loop has taken before this prompt (its "Steps so far" lines).
pub fn turn_of(prompt: &str) -> usize {
    prompt
        .split_once("Steps so far (glovebox's record):\n")
        .map_or(0, |(_, rest)| rest.lines().take_while(|l| l.starts_with("  ")).count())
}

/// The user turn's text of a Chat Completions request.
fn prompt_of(request: &Value) -> String {
    match &request["messages"][1]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// A Chat Completions answer calling the loop's tool with `decision`.
fn chat_completion(step: usize, decision: &Value) -> Value {
    json!({
        "id": format!("chatcmpl-{step}"), "object": "chat.completion", "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": format!("call_{step}"), "type": "function", "function": {"name": "next_step", "arguments": decision.to_string()}}]}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}
    })
}

/// What a server answers to the `step`-th request with this body.
pub type Answer = Box<dyn Fn(usize, &Value) -> Value + Send>;

/// What a server recorded, in order.
pub type Recorded<T> = Arc<Mutex<Vec<T>>>;

/// One HTTP request from `reader`: its request and header lines (trimmed)
/// and its body (`Content-Length` bytes); `None` when the body is cut short.
pub fn read_request(reader: &mut impl BufRead) -> Option<(Vec<String>, Vec<u8>)> {
    let (mut lines, mut length) = (vec![], 0);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        lines.push(line.trim().to_owned());
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((lines, body))
}

/// A loopback HTTP server: records each request's body (and header lines)
/// and answers it with `answer(step, body)` as JSON.
pub fn replay_server(answer: Answer) -> (String, Recorded<Value>, Recorded<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let headers: Arc<Mutex<Vec<String>>> = Arc::default();
    let (record, record_headers) = (seen.clone(), headers.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let Some((lines, body)) = read_request(&mut reader) else { continue };
            record_headers.lock().unwrap().extend(lines);
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let step = {
                let mut seen = record.lock().unwrap();
                seen.push(request.clone());
                seen.len() - 1
            };
            let text = answer(step, &request).to_string();
            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}", text.len());
        }
    });
    (base, seen, headers)
}

/// The `@eN` id on the first line of a prompt's tree holding `needle`, as a
/// model would read it off.
pub fn id_on_line(text: &str, needle: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains(needle) && l.contains('@'))?;
    line.split_whitespace()
        .find(|w| w.starts_with("@e"))
        .map(|w| w.trim_start_matches('@').to_owned())
}
