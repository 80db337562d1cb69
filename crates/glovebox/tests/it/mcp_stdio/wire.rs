//! The server's wire under stress: HTTP's token and origin, memory over a
//! thousand calls, malformed lines and the tools' schemas, and a denied window
//! lying over the bound one.

use super::*;

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
