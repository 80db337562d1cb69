//! `glovebox mcp` over its real stdio transport, driven by the official
//! SDK's client against a sandbox desktop: tools/list, an observe →
//! set_value → click flow checked against the fixture's own report, the
//! screenshot as a PNG image block of the stated size, disabled and
//! read-only modes, and a wrong-typed call that leaves the server serving.
#![cfg(target_os = "linux")]

use base64::Engine as _;
use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{unique_title, Fixture};
use glovebox_sandbox::Sandbox;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-mcp-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glovebox` in the sandbox with a scratch home, state and runtime
/// directory of its own (so a Stop cooldown stays within one test).
fn glovebox(sandbox: &Sandbox, home: &std::path::Path) -> std::process::Command {
    sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), home)
}

/// `glovebox mcp` with approvals off (every class allowed, no escalation),
/// for the tests about everything else.
async fn connect(
    sandbox: &Sandbox,
    name: &str,
    enabled: bool,
    args: &[&str],
) -> RunningService<RoleClient, ()> {
    connect_as(
        sandbox,
        name,
        enabled,
        args,
        &[("GLOVEBOX_APPROVAL_MODE", "yolo"), ("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")],
        (),
    )
    .await
}

async fn connect_as<C: rmcp::ClientHandler>(
    sandbox: &Sandbox,
    name: &str,
    enabled: bool,
    args: &[&str],
    env: &[(&str, &str)],
    client: C,
) -> RunningService<RoleClient, C> {
    let home = scratch(name);
    let mut command = glovebox(sandbox, &home);
    command.arg("mcp").args(args);
    command.env("GLOVEBOX_ENABLED", if enabled { "true" } else { "false" });
    for (k, v) in env {
        command.env(k, v);
    }
    client
        .serve(TokioChildProcess::new(tokio::process::Command::from(command)).unwrap())
        .await
        .unwrap()
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

async fn call<C: rmcp::ClientHandler>(
    client: &RunningService<RoleClient, C>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args(arguments)))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `@eN` id on the tree line that contains `needle`.
fn id_on_line(text: &str, needle: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains(needle) && l.contains('@'))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"));
    line.split_whitespace()
        .find(|w| w.starts_with("@e"))
        .unwrap()
        .trim_start_matches('@')
        .to_owned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap()
}

#[test]
fn observe_set_value_click_through_the_stdio_server() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP flow"), &["--no-password"]);
    runtime().block_on(async {
        let client = connect(sandbox, "flow", true, &[]).await;
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for expected in [
            "list_windows",
            "observe",
            "zoom",
            "wait",
            "click",
            "move",
            "drag",
            "scroll",
            "type",
            "set_value",
            "key",
            "select",
            "batch",
            "open_app",
            "open_url",
            "replay",
            "switch_window",
            "grant_status",
            "computer",
        ] {
            assert!(names.contains(&expected), "{expected} missing from {names:?}");
        }
        for tool in &tools {
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
            let annotations = tool
                .annotations
                .as_ref()
                .unwrap_or_else(|| panic!("{} has no annotations", tool.name));
            // `computer` may act (destructive) but stays listed read-only (observe_only runs).
            let input =
                glovebox_mcp::INPUT_TOOLS.contains(&tool.name.as_ref()) || tool.name == "computer";
            assert_eq!(annotations.destructive_hint.unwrap_or(false), input, "{}", tool.name);
            assert_eq!(annotations.read_only_hint.unwrap_or(false), !input, "{}", tool.name);
        }

        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&client, "observe", json!({"window": window, "screenshot": true})).await;
        assert_ne!(seen.is_error, Some(true), "{}", text_of(&seen));
        let text = text_of(&seen);
        let image =
            seen.content.iter().find_map(|c| c.as_image().cloned()).expect("an image block");
        assert_eq!(image.mime_type, "image/png");
        let png = RgbImage::decode_png(
            &base64::engine::general_purpose::STANDARD.decode(&image.data).unwrap(),
        )
        .unwrap();
        let stated = format!("pixels of a {}x{} image", png.width, png.height);
        assert!(
            text.contains(&stated),
            "the frame line states the image size: {stated} in\n{text}"
        );

        let name = id_on_line(&text, "\"Name\"");
        let done = call(
            &client,
            "set_value",
            json!({"target": {"element": name}, "text": "Ada Lovelace ✓"}),
        )
        .await;
        assert_ne!(done.is_error, Some(true), "{}", text_of(&done));
        fixture.wait_state("name set", |s| s["values"]["name"] == "Ada Lovelace ✓");
        // The result says what changed, by the same ids: the field now has a value.
        assert!(text_of(&done).contains(&format!("~ @{name} text \"Name\"")), "{}", text_of(&done));
        let submit = id_on_line(&text, "\"Submit\"");
        let clicked = call(&client, "click", json!({"target": {"element": submit}})).await;
        assert!(text_of(&clicked).starts_with("delivered by"), "{}", text_of(&clicked));
        fixture.wait_state("submitted", |s| s["clicks"]["submit"] == 1);
        assert!(
            text_of(&clicked).contains("name \"Ready\" → \"Submit clicked\""),
            "{}",
            text_of(&clicked)
        );

        // Values only by explicit read; marks on request; a budget folds and says so.
        let read =
            text_of(&call(&client, "observe", json!({"screenshot": false, "read": [name]})).await);
        assert!(read.contains(&format!("{name} text: \"Ada Lovelace ✓\"")), "{read}");
        let marked = call(&client, "observe", json!({"marks": true})).await;
        assert!(text_of(&marked).contains("the screenshot is marked"), "{}", text_of(&marked));
        assert!(
            marked.content.iter().any(|c| c.as_image().is_some()),
            "marks come with the screenshot"
        );
        let small = text_of(
            &call(&client, "observe", json!({"screenshot": false, "max_tokens": 200})).await,
        );
        assert!(small.contains("text budget: ≈") && small.contains("more lines folded"), "{small}");
        let bad = call(&client, "observe", json!({"max_tokens": 5})).await;
        assert!(text_of(&bad).starts_with("COMPUTER_INVALID_ARGUMENT"), "{}", text_of(&bad));

        // A stale id is a tool error with its code first and what to do next.
        let stale = call(&client, "click", json!({"target": {"element": "e9999"}})).await;
        assert_eq!(stale.is_error, Some(true));
        assert!(text_of(&stale).starts_with("COMPUTER_STALE_REF"), "{}", text_of(&stale));

        // Wrong-typed arguments: a protocol error, and the server keeps serving.
        let wrong = client
            .call_tool(
                CallToolRequestParams::new("click").with_arguments(args(json!({"target": 5}))),
            )
            .await;
        assert!(wrong.is_err() || wrong.as_ref().unwrap().is_error == Some(true), "{wrong:?}");
        let still = call(&client, "grant_status", json!({})).await;
        assert_ne!(still.is_error, Some(true));
        client.cancel().await.unwrap();
    });
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 1);
}

#[test]
fn disabled_and_read_only_servers_refuse_with_their_codes() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP modes"), &[]);
    runtime().block_on(async {
        let off = connect(sandbox, "off", false, &[]).await;
        let refused = call(&off, "observe", json!({})).await;
        assert_eq!(refused.is_error, Some(true));
        let text = text_of(&refused);
        assert!(
            text.starts_with("COMPUTER_DISABLED")
                && text.contains("glovebox config set enabled true"),
            "{text}"
        );
        off.cancel().await.unwrap();

        // Screenshots as files: a file:// resource link to a PNG instead of inline bytes.
        let files = connect_as(
            sandbox,
            "files",
            true,
            &[],
            &[("GLOVEBOX_MCP_SCREENSHOT_FILES", "true")],
            (),
        )
        .await;
        let listed = text_of(&call(&files, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&files, "observe", json!({"window": window, "screenshot": true})).await;
        assert!(seen.content.iter().all(|c| c.as_image().is_none()), "no inline image");
        let link = seen
            .content
            .iter()
            .find_map(|c| c.as_resource_link().cloned())
            .expect("a resource link");
        let png = std::fs::read(link.uri.strip_prefix("file://").unwrap()).unwrap();
        assert_eq!(link.size, Some(png.len() as u64));
        // Pixels show what was typed: readable by this user alone.
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(link.uri.strip_prefix("file://").unwrap()).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{}", link.uri);
        RgbImage::decode_png(&png).unwrap();
        files.cancel().await.unwrap();

        let read_only = connect(sandbox, "ro", true, &["--read-only"]).await;
        let names: Vec<String> =
            read_only.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
        for hidden in glovebox_mcp::INPUT_TOOLS {
            assert!(!names.iter().any(|n| n == hidden), "{hidden} is listed in read-only mode");
        }
        assert!(names.iter().any(|n| n == "observe"));
        call(&read_only, "observe", json!({"screenshot": false})).await;
        let refused =
            call(&read_only, "click", json!({"target": {"point": {"x": 5, "y": 5}}})).await;
        assert_eq!(refused.is_error, Some(true));
        assert!(text_of(&refused).starts_with("COMPUTER_READ_ONLY"), "{}", text_of(&refused));
        read_only.cancel().await.unwrap();
    });
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 0);
}

#[test]
fn stop_from_another_process_revokes_a_running_server() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP stop"), &["--no-password"]);
    runtime().block_on(async {
        let client = connect(sandbox, "stop", true, &[]).await;
        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&client, "observe", json!({"window": window, "screenshot": false})).await;
        assert_ne!(seen.is_error, Some(true), "{}", text_of(&seen));
        let submit = id_on_line(&text_of(&seen), "\"Submit\"");
        let started = std::time::Instant::now();
        let stop = glovebox(
            sandbox,
            &std::env::temp_dir().join(format!("glovebox-mcp-test-{}-stop", std::process::id())),
        )
        .arg("stop")
        .output()
        .unwrap();
        println!(
            "glovebox stop took {:?} (process start included): {}",
            started.elapsed(),
            String::from_utf8_lossy(&stop.stdout).trim()
        );
        assert!(stop.status.success(), "{}", String::from_utf8_lossy(&stop.stderr));
        for (tool, arguments) in
            [("click", json!({"target": {"element": submit}})), ("observe", json!({}))]
        {
            let refused = call(&client, tool, arguments).await;
            assert_eq!(refused.is_error, Some(true));
            assert!(
                text_of(&refused).starts_with("COMPUTER_STOPPED_BY_USER"),
                "{tool}: {}",
                text_of(&refused)
            );
        }
        client.cancel().await.unwrap();
    });
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 0, "nothing was delivered after Stop");
}

#[test]
fn approvals_prompt_through_elicitation_and_fail_closed() {
    use rmcp::model::ElicitationAction;
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP approvals"), &["--no-password"]);
    let prompted = glovebox_testkit::mcp::ScriptedClient::answering;
    runtime().block_on(async {
        // The default mode: observing is allowed, input asks.
        let yes = prompted(ElicitationAction::Accept);
        let client = connect_as(sandbox, "approve-yes", true, &[], &[], yes.clone()).await;
        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = text_of(
            &call(&client, "observe", json!({"window": window, "screenshot": false})).await,
        );
        assert!(yes.prompts().is_empty(), "observing needs no approval");
        let name = id_on_line(&seen, "\"Name\"");
        let done = call(
            &client,
            "set_value",
            json!({"target": {"element": name}, "text": "secret-free text"}),
        )
        .await;
        assert_ne!(done.is_error, Some(true), "{}", text_of(&done));
        fixture.wait_state("approved value", |s| s["values"]["name"] == "secret-free text");
        let asked = yes.prompts();
        assert_eq!(asked.len(), 1);
        assert!(
            asked[0].contains("set the value")
                && asked[0].contains("\"Name\"")
                && asked[0].contains("16 character(s)"),
            "{}",
            asked[0]
        );
        assert!(!asked[0].contains("secret-free"), "the prompt never shows the text: {}", asked[0]);
        client.cancel().await.unwrap();

        // Declined and cancelled prompts refuse, and nothing changes.
        for (answer, label) in
            [(ElicitationAction::Decline, "decline"), (ElicitationAction::Cancel, "cancel")]
        {
            let client =
                connect_as(sandbox, &format!("approve-{label}"), true, &[], &[], prompted(answer))
                    .await;
            let seen = text_of(
                &call(&client, "observe", json!({"window": window, "screenshot": false})).await,
            );
            let refused = call(
                &client,
                "set_value",
                json!({"target": {"element": id_on_line(&seen, "\"Name\"")}, "text": "nope"}),
            )
            .await;
            assert!(
                text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED"),
                "{label}: {}",
                text_of(&refused)
            );
            client.cancel().await.unwrap();
        }
        // A client that cannot ask fails closed.
        let mute = connect_as(sandbox, "approve-mute", true, &[], &[], ()).await;
        let seen =
            text_of(&call(&mute, "observe", json!({"window": window, "screenshot": false})).await);
        let refused = call(
            &mute,
            "set_value",
            json!({"target": {"element": id_on_line(&seen, "\"Name\"")}, "text": "nope"}),
        )
        .await;
        assert!(
            text_of(&refused).starts_with("COMPUTER_APPROVAL_REQUIRED"),
            "{}",
            text_of(&refused)
        );
        mute.cancel().await.unwrap();
        assert_eq!(fixture.state().unwrap()["values"]["name"], "secret-free text");

        // Even with every class allowed, a consequential button asks first.
        let no = prompted(ElicitationAction::Decline);
        let yolo = connect_as(
            sandbox,
            "approve-yolo",
            true,
            &[],
            &[("GLOVEBOX_APPROVAL_MODE", "yolo")],
            no.clone(),
        )
        .await;
        let seen =
            text_of(&call(&yolo, "observe", json!({"window": window, "screenshot": false})).await);
        let refused =
            call(&yolo, "click", json!({"target": {"element": id_on_line(&seen, "\"Submit\"")}}))
                .await;
        assert!(text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED"), "{}", text_of(&refused));
        let asked = no.prompts();
        assert!(asked.len() == 1 && asked[0].contains("reads like \"submit\""), "{asked:?}");
        // A plain button goes through without a prompt.
        let cancel =
            call(&yolo, "click", json!({"target": {"element": id_on_line(&seen, "\"Cancel\"")}}))
                .await;
        assert_ne!(cancel.is_error, Some(true), "{}", text_of(&cancel));
        assert_eq!(no.prompts().len(), 1);
        yolo.cancel().await.unwrap();

        // The observe class reaches every observation tool.
        let deny = [("GLOVEBOX_APPROVAL_MODE", "custom"), ("GLOVEBOX_APPROVAL_OBSERVE", "deny")];
        let closed = connect_as(
            sandbox,
            "observe-deny",
            true,
            &[],
            &deny,
            prompted(ElicitationAction::Accept),
        )
        .await;
        for (tool, arguments) in [
            ("list_windows", json!({})),
            ("observe", json!({"window": window})),
            ("switch_window", json!({"window": window})),
            ("wait", json!({"wait": {"seconds": 0.5}})),
            ("zoom", json!({"region": {"x": 0, "y": 0, "width": 10, "height": 10}})),
        ] {
            let refused = call(&closed, tool, arguments).await;
            assert!(
                text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED")
                    || (tool == "zoom" && refused.is_error == Some(true)),
                "{tool}: {}",
                text_of(&refused)
            );
            assert!(
                refused.content.iter().all(|c| c.as_image().is_none()),
                "{tool} returned pixels"
            );
        }
        closed.cancel().await.unwrap();
        // Always ask, and the user declines: nothing is captured.
        let declining = prompted(ElicitationAction::Decline);
        let asking = connect_as(
            sandbox,
            "observe-ask",
            true,
            &[],
            &[("GLOVEBOX_APPROVAL_MODE", "always-ask")],
            declining.clone(),
        )
        .await;
        let refused = call(&asking, "observe", json!({"window": window, "screenshot": true})).await;
        assert!(text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED"), "{}", text_of(&refused));
        assert!(refused.content.iter().all(|c| c.as_image().is_none()));
        assert!(
            declining.prompts().iter().any(|p| p.contains("take a screenshot")),
            "{:?}",
            declining.prompts()
        );
        asking.cancel().await.unwrap();
    });
    let state = fixture.state().unwrap();
    assert_eq!(state["clicks"]["submit"], 0, "the declined Submit never happened");
    assert_eq!(state["clicks"]["cancel"], 1);
}

/// One HTTP/1.1 request over a fresh connection; returns the status and body.
fn http_post(address: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, response)
}

#[test]
fn http_server_needs_the_token_and_a_loopback_origin() {
    use std::io::BufRead;
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("http");
    let mut server = glovebox(sandbox, &home)
        .args(["serve", "--port", "0"])
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_APPROVAL_MODE", "yolo")
        .env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let announced: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("serve printed {line:?}: {e}"));
    let url = announced["url"].as_str().unwrap();
    let token = announced["token"].as_str().unwrap();
    assert!(url.starts_with("http://127.0.0.1:") && token.len() == 32, "{announced}");
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}).to_string();
    let bearer = format!("Bearer {token}");
    assert_eq!(http_post(&address, &[], &initialize).0, 401, "no token");
    assert_eq!(
        http_post(&address, &[("Authorization", "Bearer wrong-token-wrong-token!")], &initialize).0,
        401,
        "wrong token"
    );
    assert_eq!(
        http_post(
            &address,
            &[("Authorization", &bearer), ("Origin", "https://evil.example")],
            &initialize
        )
        .0,
        403,
        "foreign origin"
    );
    let (status, body) = http_post(
        &address,
        &[("Authorization", &bearer), ("Origin", "http://localhost:3000")],
        &initialize,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"glovebox\""), "{body}");
    // A malformed JSON-RPC body gets an error, and the server keeps serving.
    let (status, body) = http_post(&address, &[("Authorization", &bearer)], "{not json");
    assert!((400..500).contains(&status), "{status} {body}");
    assert_eq!(http_post(&address, &[("Authorization", &bearer)], &initialize).0, 200);

    // A whole flow over HTTP: initialize, observe, set_value, checked against the fixture.
    let fixture = Fixture::launch(sandbox, &unique_title("MCP http"), &["--no-password"]);
    let (status, response) = http_post(&address, &[("Authorization", &bearer)], &initialize);
    assert_eq!(status, 200, "{response}");
    let session_headers = |response: &str| {
        let session = response
            .lines()
            .find_map(|l| {
                l.strip_prefix("mcp-session-id: ").or_else(|| l.strip_prefix("Mcp-Session-Id: "))
            })
            .map(|s| s.trim().to_owned());
        let mut headers = vec![
            ("Authorization".to_owned(), bearer.clone()),
            ("MCP-Protocol-Version".to_owned(), "2025-06-18".to_owned()),
        ];
        if let Some(id) = session {
            headers.push(("Mcp-Session-Id".to_owned(), id));
        }
        http_post(
            &address,
            &borrowed(&headers),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        headers
    };
    fn borrowed(headers: &[(String, String)]) -> Vec<(&str, &str)> {
        headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }
    let first = session_headers(&response);
    let mut next_id = 10;
    let mut tool_in = |headers: &[(String, String)], name: &str, arguments: Value| -> Value {
        next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": next_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}).to_string();
        let (status, response) = http_post(&address, &borrowed(headers), &body);
        assert_eq!(status, 200, "{response}");
        let message = response
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .chain(response.split("\r\n\r\n").nth(1))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| m["id"] == next_id);
        message.unwrap_or_else(|| panic!("no answer to {name} in {response}"))["result"].clone()
    };
    let mut tool = |name: &str, arguments: Value| tool_in(&first, name, arguments);
    let listed = tool("list_windows", json!({"query": fixture.title}));
    let window = listed["content"][0]["text"]
        .as_str()
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let seen = tool("observe", json!({"window": window, "screenshot": false}));
    let name = id_on_line(seen["content"][0]["text"].as_str().unwrap(), "\"Name\"");
    let done = tool("set_value", json!({"target": {"element": name}, "text": "over http"}));
    assert_ne!(done["isError"], true, "{done}");
    fixture.wait_state("set over HTTP", |s| s["values"]["name"] == "over http");
    // Another session has no frame of its own: it cannot act on the first session's.
    let seen = tool("observe", json!({"window": window, "screenshot": false}));
    let name = id_on_line(seen["content"][0]["text"].as_str().unwrap(), "\"Name\"");
    let (status, response) = http_post(&address, &[("Authorization", &bearer)], &initialize);
    assert_eq!(status, 200, "{response}");
    let second = session_headers(&response);
    assert_ne!(second, first, "a session of its own");
    let refused = tool_in(
        &second,
        "set_value",
        json!({"target": {"element": name}, "text": "from the other session"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        refused["content"][0]["text"].as_str().unwrap().starts_with("COMPUTER_STALE_REF"),
        "{refused}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        fixture.state().unwrap()["values"]["name"],
        "over http",
        "nothing reached the window"
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// Resident memory of a process, from /proc, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

/// The bound: after a warm-up, 1,000 more sequential calls may grow the
/// server's resident memory by at most 8 MiB (a leak of 8 KiB per call
/// would show).
#[test]
fn a_thousand_sequential_calls_do_not_grow_memory() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP memory"), &["--no-password"]);
    let home = scratch("memory");
    let mut command = glovebox(sandbox, &home);
    command.arg("mcp").env("GLOVEBOX_ENABLED", "true").env("GLOVEBOX_APPROVAL_MODE", "yolo");
    runtime().block_on(async {
        let transport = TokioChildProcess::new(tokio::process::Command::from(command)).unwrap();
        let pid = transport.id().unwrap();
        let client = ().serve(transport).await.unwrap();
        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        call(&client, "observe", json!({"window": window, "screenshot": false})).await;
        let round = |n: usize| {
            let client = &client;
            async move {
                for i in 0..n {
                    let (tool, arguments) = match i % 4 {
                        0 => ("list_windows", json!({})),
                        1 => ("grant_status", json!({})),
                        2 => ("observe", json!({"screenshot": false})),
                        _ => ("click", json!({"target": {"element": "e99999"}})),
                    };
                    call(client, tool, arguments).await;
                }
            }
        };
        round(200).await;
        let before = rss_kib(pid);
        round(1000).await;
        let after = rss_kib(pid);
        println!("glovebox mcp resident memory: {before} KiB after warm-up, {after} KiB after 1,000 more calls");
        assert!(after <= before + 8 * 1024, "grew from {before} KiB to {after} KiB");
        client.cancel().await.unwrap();
    });
}

/// The raw protocol on stdio: a malformed line gets a JSON-RPC error (or is
/// dropped) and the server keeps answering; every tool's input schema is a
/// valid JSON Schema (Draft 2020-12, checked by python3-jsonschema) in the
/// portable form, with the contract's bounds; the whole tools/list answer
/// stays within 16 KiB (every agent turn carries it).
#[test]
fn raw_stdio_survives_malformed_lines_and_schemas_validate() {
    use std::io::{BufRead, Write};
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("raw");
    let mut server = glovebox(sandbox, &home)
        .arg("mcp")
        .env("GLOVEBOX_ENABLED", "true")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut send = |line: &str| writeln!(stdin, "{line}").unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    send("{this is not json");
    send(&initialize.to_string());
    send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string());
    let mut tools = None;
    for _ in 0..10 {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON-RPC on stdout: {line:?}: {e}"));
        if message["id"] == 2 {
            assert!(line.len() <= 16_384, "tools/list is {} bytes", line.len());
            println!("tools/list answer: {} bytes", line.len());
            tools = Some(message["result"]["tools"].clone());
            break;
        }
    }
    let tools = tools.expect("tools/list answered after the malformed line");
    let text = tools.to_string();
    for keyword in ["\"$ref\"", "\"$defs\"", "\"oneOf\"", "\"format\"", "\"additionalProperties\""]
    {
        assert!(
            !text.contains(keyword),
            "{keyword} is in a tool schema: clients' converters break on it"
        );
    }
    let schema = |tool: &str| {
        tools.as_array().unwrap().iter().find(|t| t["name"] == tool).unwrap()["inputSchema"].clone()
    };
    let bounds = |v: &Value| (v["minimum"].as_f64(), v["maximum"].as_f64());
    assert_eq!(bounds(&schema("click")["properties"]["count"]), (Some(1.0), Some(3.0)));
    assert_eq!(bounds(&schema("key")["properties"]["repeat"]), (Some(1.0), Some(20.0)));
    assert_eq!(bounds(&schema("scroll")["properties"]["dy"]), (Some(-100.0), Some(100.0)));
    assert_eq!(
        bounds(&schema("wait")["properties"]["wait"]["anyOf"][0]["properties"]["seconds"]),
        (Some(0.5), Some(5.0))
    );
    assert_eq!(
        (
            schema("batch")["properties"]["steps"]["minItems"].as_u64(),
            schema("batch")["properties"]["steps"]["maxItems"].as_u64()
        ),
        (Some(2), Some(3))
    );
    let schemas = home.join("schemas.json");
    std::fs::write(&schemas, serde_json::to_string(&tools).unwrap()).unwrap();
    let check = "import json,sys\nfrom jsonschema import Draft202012Validator as V\nfor t in json.load(open(sys.argv[1])):\n    V.check_schema(t['inputSchema'])\n    V(t['inputSchema'])\nprint(len(json.load(open(sys.argv[1]))))";
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", check])
        .arg(&schemas)
        .output()
        .expect("python3 with python3-jsonschema");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        glovebox_mcp::TOOL_ORDER.len().to_string()
    );
    drop(stdin);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn observe_returns_the_bound_window_alone_when_a_denied_window_lies_over_it() {
    const COVER: [u8; 3] = [0xd1, 0x2b, 0xe7];
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let bound = Fixture::launch(
        sandbox,
        &unique_title("MCP occluded"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let cover = Fixture::launch(
        sandbox,
        &unique_title("MCP cover"),
        &[
            "--wm-class",
            "KeePassXC",
            "--fill",
            "209,43,231",
            "--x",
            "160",
            "--y",
            "160",
            "--width",
            "200",
            "--height",
            "200",
        ],
    );
    let _ = (bound.state(), cover.state());
    std::thread::sleep(std::time::Duration::from_millis(800));
    runtime().block_on(async {
        let client = connect(sandbox, "occluded", true, &[]).await;
        let listed = text_of(&call(&client, "list_windows", json!({"query": bound.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&client, "observe", json!({"window": window, "screenshot": true})).await;
        assert_ne!(seen.is_error, Some(true), "{}", text_of(&seen));
        let image =
            seen.content.iter().find_map(|c| c.as_image().cloned()).expect("an image block");
        let png = RgbImage::decode_png(
            &base64::engine::general_purpose::STANDARD.decode(&image.data).unwrap(),
        )
        .unwrap();
        let found = (0..png.height).any(|y| (0..png.width).any(|x| png.pixel(x, y) == COVER));
        assert!(!found, "the deny-listed window's pixels reached the model");
        assert!(
            text_of(&seen).contains("occluded"),
            "the result says what was covered: {}",
            text_of(&seen)
        );
        client.cancel().await.unwrap();
    });
    drop(cover);
}
