//! Every MCP tool's arguments fuzzed (see glovebox-fuzz) through the real
//! server over an in-memory JSON-RPC connection, on the fake desktop with
//! every approval class allowed, so arguments that parse reach the host:
//! valid arguments mutated, and garbage. Every call is answered — a
//! result (a refusal is `isError` with its `COMPUTER_…` text) or a JSON-RPC
//! error for arguments outside the schema — and the connection lives on:
//! no panic, no hang.

use glovebox_fuzz::{mutate, run, value, Budget, Rng};
use glovebox_host::Host;
use glovebox_mcp::{GloveboxServer, Options};
use glovebox_model::{Rect, WindowId};
use glovebox_platform::fake::FakeWindow;
use glovebox_testkit::fake::{fake_window, fake_world};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

const WINDOW: WindowId = WindowId { pid: 1001, handle: 0x20 };

/// One small editor window on an 800×600 screen, a budget no fuzz run exhausts.
fn host() -> Host {
    let editor = FakeWindow {
        colour: [9, 9, 9],
        ..fake_window(WINDOW, "Editor", "Editor window", Rect::new(100, 100, 64, 48))
    };
    fake_world("mcp-fuzz")
        .screen(Rect::new(0, 0, 800, 600))
        .window(editor)
        .configure(|config| config.budget = 1_000_000)
        .open()
        .host
}

/// A JSON-RPC client on the server's in-memory connection.
struct Client {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    reader: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    next: u64,
}

impl Client {
    async fn send(&mut self, message: &Value) {
        self.writer.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }

    /// Sends a request; the response with its id, or `None` when none came within `wait`.
    async fn call_within(&mut self, method: &str, params: Value, wait: Duration) -> Option<Value> {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let mut line = String::new();
            match tokio::time::timeout_at(deadline, self.reader.read_line(&mut line)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => return None,
            }
            let message: Value = serde_json::from_str(&line).ok()?;
            if message["id"] == id {
                return Some(message);
            }
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Option<Value> {
        self.call_within(method, params, Duration::from_secs(5)).await
    }
}

/// Whether serde_json (the server's parser, and every Rust client's) can
/// read the request at all: past its nesting limit of 128 it cannot, and no
/// id can be read to answer to.
fn readable(params: &Value) -> bool {
    serde_json::from_str::<Value>(&json!({"params": params}).to_string()).is_ok()
}

fn seeds() -> Vec<(&'static str, Value)> {
    let point = json!({"point": {"x": 10, "y": 10}});
    vec![
        ("list_windows", json!({"query": "Editor", "page": 1})),
        ("observe", json!({"window": "1001/0x20", "screenshot": true})),
        ("zoom", json!({"region": {"x": 0, "y": 0, "width": 16, "height": 16}})),
        ("wait", json!({"wait": {"seconds": 0.5}})),
        (
            "wait",
            json!({"wait": {"until": {"condition": "appear", "query": {"role": "push button"}, "timeout_secs": 0.5}}}),
        ),
        ("click", json!({"target": point, "button": "left", "count": 2, "modifiers": ["ctrl"]})),
        ("click", json!({"target": {"element": "e1"}})),
        ("move", json!({"target": point})),
        (
            "drag",
            json!({"from": point, "to": {"point": {"x": 30, "y": 20}}, "modifiers": ["shift"]}),
        ),
        ("scroll", json!({"target": point, "dx": 0, "dy": 3})),
        ("type", json!({"text": "hello"})),
        ("set_value", json!({"target": {"element": "e2"}, "text": "Ada"})),
        ("key", json!({"combo": "ctrl+a", "repeat": 2})),
        ("select", json!({"target": {"element": "e3"}, "option": "Blue"})),
        (
            "batch",
            json!({"steps": [{"action": "click", "target": point, "button": "left", "count": 1}, {"action": "type", "text": "x"}]}),
        ),
        ("open_app", json!({"name": "xterm"})),
        ("open_app", json!({"name": "xterm", "desktop": "agent"})),
        ("open_url", json!({"url": "https://example.org/"})),
        ("replay", json!({"recording": "/dev/zero", "window": "1001/0x20"})),
        ("switch_window", json!({"window": "1001/0x20"})),
        ("grant_status", json!({"window": "1001/0x20"})),
        ("computer", json!({"instruction": "press OK", "max_steps": 1, "observe_only": true})),
    ]
}

#[test]
fn fuzz_every_tools_arguments() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = GloveboxServer::new(
        Ok(host()),
        Options { read_only: false, screenshot_dir: None, model: Ok(None) },
    );
    let (ours, theirs) = tokio::io::duplex(1 << 22);
    let keep = server.clone();
    runtime.spawn(async move {
        use rmcp::ServiceExt as _;
        let (read, write) = tokio::io::split(theirs);
        if let Ok(running) = server.serve((read, write)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(ours);
    let client =
        Arc::new(Mutex::new(Client { writer: write, reader: BufReader::new(read), next: 0 }));
    runtime.block_on(async {
        let mut c = client.lock().await;
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}});
        assert!(c.call("initialize", init).await.is_some(), "the server answered initialize");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    });
    let seeds = seeds();
    let generate = |rng: &mut Rng| {
        let (tool, arguments) = rng.pick(&seeds).clone();
        let tool = if rng.chance(30) { "no_such_tool" } else { tool };
        let arguments = match rng.below(8) {
            0 => value(rng, 3),
            1 => arguments,
            _ => mutate(rng, &arguments),
        };
        (tool, arguments)
    };
    run("MCP tool arguments", Budget::from_env(400), generate, |(tool, arguments)| {
        let params = json!({"name": tool, "arguments": arguments});
        if !readable(&params) {
            // Unreadable JSON gets no answer (there is no id to answer to); the connection must live on.
            return runtime.block_on(async {
                let mut c = client.lock().await;
                let _ = c.call_within("tools/call", params, Duration::from_millis(300)).await;
                c.call("ping", json!({})).await.map(|_| ()).ok_or_else(|| {
                    "the server stopped answering after an unreadable request".to_owned()
                })
            });
        }
        let answer =
            runtime.block_on(async { client.lock().await.call("tools/call", params).await });
        let answer = answer
            .ok_or("no answer within 5 s: the server hung, panicked or closed the connection")?;
        if let Some(error) = answer.get("error") {
            return if error["code"].is_i64() && error["message"].is_string() {
                Ok(())
            } else {
                Err(format!("a malformed JSON-RPC error: {answer}"))
            };
        }
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        match result["isError"].as_bool() {
            Some(true) if text.starts_with("COMPUTER_") => Ok(()),
            Some(true) => Err(format!("a refusal without its code: {text:?}")),
            _ if result["content"].is_array() => Ok(()),
            _ => Err(format!("neither a result nor an error: {answer}")),
        }
    });
    drop(keep);
    runtime.shutdown_timeout(Duration::from_secs(1));
}
