//! The OpenAI GA, Anthropic and Gemini computer-use executors on a real desktop:
//! every input is judged by the fixture's own state report, and by the real
//! pointer, which background delivery must never move. Also the same
//! executors behind `glovebox serve` over real HTTP.
#![cfg(target_os = "linux")]

use base64::Engine as _;
use glovebox_host::Host;
use glovebox_host::{Answer, ApprovalRequest, Subject};
use glovebox_model::{CaptureLimits, ErrorCode, Size, WindowId, WindowInfo, WindowRef};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::serve::{post, Served};
use glovebox_wire::{
    AnthropicExecutor, ExecutorOptions, OpenAiExecutor, ToolDefinition, ToolResult,
};
use serde_json::{json, Value};
use std::sync::Arc;

fn listed(host: &Host, fixture: &Fixture) -> WindowInfo {
    wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window)
    })
}

/// Waits for the fixture's accessibility tree, so the first screenshot is of a finished window.
fn ready(host: &Host, window: WindowId) {
    wait_until("fixture tree", || {
        host.observe(Some(&WindowRef::Id(window)), false).ok().filter(|o| o.tree.node_count > 10)
    });
}

fn options(window: WindowId) -> ExecutorOptions {
    ExecutorOptions { window: Some(WindowRef::Id(window)), ..ExecutorOptions::default() }
}

/// A widget's allocation in the window's own pixels: (x, y, width, height).
fn allocation(state: &Value, name: &str) -> (i64, i64, i64, i64) {
    let a = &state["allocations"][name];
    (a[0].as_i64().unwrap(), a[1].as_i64().unwrap(), a[2].as_i64().unwrap(), a[3].as_i64().unwrap())
}

fn png_of_data_url(url: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(url.strip_prefix("data:image/png;base64,").expect("a PNG data URL"))
        .unwrap()
}

fn decode(png: &[u8]) -> (Size, Vec<u8>) {
    let image = glovebox_platform::image::RgbImage::decode_png(png).unwrap();
    (image.size(), image.data)
}

fn call(id: &str, actions: Value) -> Value {
    json!({"type": "computer_call", "id": format!("cu_{id}"), "call_id": id, "actions": actions, "pending_safety_checks": [], "status": "completed"})
}

#[test]
fn openai_batch_clicks_types_and_presses_keys_through_one_screenshot() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "wire-oa-batch").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Wire batch"),
        &["--no-password", "--x", "60", "--y", "60"],
    );
    // The user works in another window; the agent's stays in the background.
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Wire sentinel"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    sentinel.activate();
    let window = listed(&host, &fixture);
    ready(&host, window.id);
    fixture.send(json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    let executor = OpenAiExecutor::new(host.clone(), options(window.id));
    let before = sandbox.pointer().unwrap();

    // The first call looks; its PNG is the window at its own size (within the configured limits).
    let first = executor.execute(&call("call_look", json!([{"type": "screenshot"}]))).unwrap();
    let (size, _) = decode(&first.png().unwrap());
    assert_eq!(size, window.geometry.size());

    // Submit's centre in the PNG's pixels (scale 1 here), then typing and a key into the focused entry.
    let (x, y, w, h) = allocation(&fixture.state().unwrap(), "submit");
    let batch = call(
        "call_batch",
        json!([
            {"type": "screenshot"},
            {"type": "click", "button": "left", "x": x + w / 2, "y": y + h / 2},
            {"type": "type", "text": "xyz"},
            {"type": "screenshot"},
            {"type": "keypress", "keys": ["HOME"]}
        ]),
    );
    let output = executor.execute(&batch).unwrap();
    fixture.wait_state("click, text and key", |s| {
        s["clicks"]["submit"] == 1
            && s["values"]["name"] == "xyz"
            && s["keys"].as_array().unwrap().last().is_some_and(|k| k["key"] == "Home")
    });
    assert_eq!(sandbox.pointer().unwrap(), before, "the real pointer never moved");
    assert_eq!(
        fixture.state().unwrap()["window_active"],
        false,
        "the window stayed in the background"
    );
    let user = sentinel.state().unwrap();
    assert_eq!(user["window_active"], true, "the user's window kept the focus");
    assert_eq!(user["values"]["name"], "", "nothing leaked into the user's window");

    let wire = serde_json::to_value(&output).unwrap();
    assert_eq!(wire["type"], "computer_call_output");
    assert_eq!(wire["call_id"], "call_batch");
    assert_eq!(wire["output"]["type"], "computer_screenshot");
    assert!(
        wire.get("acknowledged_safety_checks").is_none(),
        "nothing was pending, nothing is echoed"
    );
    let (size, _) = decode(&png_of_data_url(wire["output"]["image_url"].as_str().unwrap()));
    assert_eq!(size, window.geometry.size(), "exactly one PNG, of the window, after the batch");
}

#[test]
fn anthropic_display_scaling_round_trips_to_the_window() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "wire-an-scale").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Wire scale"),
        &["--no-password", "--x", "0", "--y", "0", "--width", "1600", "--height", "1000"],
    );
    let window = listed(&host, &fixture);
    assert!(
        window.geometry.width > 1366 && window.geometry.height > 768,
        "the window must be larger than the display: {:?}",
        window.geometry
    );
    ready(&host, window.id);
    let executor = AnthropicExecutor::new(host.clone(), options(window.id));
    let tool: ToolDefinition = serde_json::from_value(
        json!({"type": "computer_20250124", "name": "computer", "display_width_px": 1366, "display_height_px": 768, "display_number": 1}),
    )
    .unwrap();
    let mut next_id = 0;
    let mut act = |input: Value| -> ToolResult {
        next_id += 1;
        executor.tool_result(&tool, &json!({"type": "tool_use", "id": format!("toolu_{next_id}"), "name": "computer", "input": input})).unwrap()
    };
    let image_of = |result: &ToolResult| -> (Size, Vec<u8>) {
        match &result.content[..] {
            [glovebox_wire::ContentBlock::Image { source }] => {
                decode(&base64::engine::general_purpose::STANDARD.decode(&source.data).unwrap())
            }
            other => panic!("not one image: {other:?}"),
        }
    };
    let before = sandbox.pointer().unwrap();

    // The screenshot is exactly the declared display; the window, scaled down, sits top-left, the rest is black.
    let shot = act(json!({"action": "screenshot"}));
    assert!(!shot.is_error, "{shot:?}");
    let (size, rgb) = image_of(&shot);
    assert_eq!(size, Size::new(1366, 768));
    let (nw, nh) = (window.geometry.width as i64, window.geometry.height as i64);
    let picture = CaptureLimits::new(1366, 768).unwrap().fit(window.geometry.size());
    let (iw, ih) = (picture.width as i64, picture.height as i64);
    assert!(iw < 1366 || ih < 768, "a {nw}x{nh} window leaves padding on a 1366x768 display");
    let black = |x: i64, y: i64| rgb[((y * 1366 + x) * 3) as usize..][..3] == [0, 0, 0];
    assert!(
        (0..768).step_by(7).all(|y| (iw..1366).all(|x| black(x, y)))
            && (ih..768).all(|y| (0..1366).step_by(7).all(|x| black(x, y))),
        "the padding is black"
    );

    // Display pixel of Submit's centre, computed from the mapping; the click lands on Submit.
    let state = fixture.state().unwrap();
    let (x, y, w, h) = allocation(&state, "submit");
    let (sx, sy) = ((x + w / 2) * iw / nw, (y + h / 2) * ih / nh);
    let clicked = act(json!({"action": "left_click", "coordinate": [sx, sy]}));
    assert!(!clicked.is_error, "{clicked:?}");
    fixture.wait_state("submit clicked at its display pixel", |s| s["clicks"]["submit"] == 1);

    // Hover on the pad: the pad-local point it reports is exactly the host's per-axis mapping of the display pixel.
    let (px, py, pw, ph) = allocation(&state, "pad");
    let (dx, dy) = ((px + pw / 2) * iw / nw, (py + ph / 2) * ih / nh);
    let moved = act(json!({"action": "mouse_move", "coordinate": [dx, dy]}));
    assert!(!moved.is_error, "{moved:?}");
    let expect = [((2 * dx + 1) * nw) / (2 * iw) - px, ((2 * dy + 1) * nh) / (2 * ih) - py];
    fixture.wait_state("hover at the mapped point", |s| s["pad"]["hover"] == json!(expect));
    let reported = act(json!({"action": "cursor_position"}));
    assert_eq!(
        serde_json::to_value(&reported).unwrap()["content"][0]["text"],
        format!("X={dx},Y={dy}")
    );

    // A point in the black padding: refused, nothing changes.
    let events = fixture.state().unwrap()["events"].as_array().unwrap().len();
    let padding = act(json!({"action": "left_click", "coordinate": [1300, 100]}));
    assert!(padding.is_error);
    let text =
        serde_json::to_value(&padding).unwrap()["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("COMPUTER_COORDINATE_OUT_OF_BOUNDS"), "{text}");
    let after = fixture.state().unwrap();
    assert_eq!(
        (after["clicks"]["submit"].as_i64(), after["clicks"]["cancel"].as_i64()),
        (Some(1), Some(0))
    );
    assert_eq!(after["events"].as_array().unwrap().len(), events);

    // The window resized after the last screenshot: the layout changed, and nothing is clicked.
    let (cx, cy, cw, ch) = allocation(&after, "cancel");
    fixture.send(json!({"cmd": "resize", "width": 1500, "height": 900}));
    wait_until("resized", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .first()
            .filter(|w| w.window.geometry.width == 1500)
            .map(|_| ())
    });
    let stale = act(
        json!({"action": "left_click", "coordinate": [(cx + cw / 2) * iw / nw, (cy + ch / 2) * ih / nh]}),
    );
    let text =
        serde_json::to_value(&stale).unwrap()["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(stale.is_error && text.starts_with("COMPUTER_LAYOUT_CHANGED"), "{text}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(fixture.state().unwrap()["clicks"]["cancel"], 0);
    assert_eq!(sandbox.pointer().unwrap(), before, "the real pointer never moved");
}

#[test]
fn openai_layout_change_between_screenshot_and_click_clicks_nothing() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "wire-oa-layout").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Wire layout"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let window = listed(&host, &fixture);
    ready(&host, window.id);
    let executor = OpenAiExecutor::new(host.clone(), options(window.id));
    executor.execute(&call("look", json!([{"type": "screenshot"}]))).unwrap();
    let (x, y, w, h) = allocation(&fixture.state().unwrap(), "cancel");
    let click =
        call("click", json!([{"type": "click", "button": "left", "x": x + w / 2, "y": y + h / 2}]));
    fixture.send(json!({"cmd": "move", "x": 300, "y": 200}));
    wait_until("moved", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .first()
            .filter(|w| w.window.geometry != window.geometry)
            .map(|_| ())
    });
    let refused = executor.execute(&click).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::LayoutChanged, "{refused}");
    assert_eq!(refused.failed_action_index, Some(0));
    assert!(refused.refusal.message.contains("take a new screenshot"), "{refused}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(fixture.state().unwrap()["clicks"]["cancel"], 0, "nothing was clicked");
    // A new screenshot is the new basis; the same pixels now click.
    executor.execute(&call("look-again", json!([{"type": "screenshot"}]))).unwrap();
    executor.execute(&click).unwrap();
    fixture.wait_state("cancel clicked after a new screenshot", |s| s["clicks"]["cancel"] == 1);
}

#[test]
fn openai_safety_checks_run_only_when_the_user_approved_every_one() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "wire-oa-safety").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Wire safety"),
        &["--no-password", "--x", "80", "--y", "80"],
    );
    let window = listed(&host, &fixture);
    ready(&host, window.id);
    let executor = OpenAiExecutor::new(host.clone(), options(window.id));
    executor.execute(&call("look", json!([{"type": "screenshot"}]))).unwrap();
    let (x, y, w, h) = allocation(&fixture.state().unwrap(), "cancel");
    let mut item = call(
        "guarded",
        json!([{"type": "click", "button": "left", "x": x + w / 2, "y": y + h / 2}]),
    );
    item["pending_safety_checks"] = json!([
        {"id": "cu_sc_1", "code": "malicious_instructions", "message": "Instructions on screen ask to ignore the user."},
        {"id": "cu_sc_2", "code": "sensitive_domain", "message": "This looks like a banking site."}
    ]);

    // Headless: nothing acknowledges, nothing runs.
    let refused = executor.execute(&item).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::SafetyCheckUnacknowledged, "{refused}");
    // The user approves one of two: still nothing runs.
    type Shown = Vec<(String, Vec<String>)>;
    let shown: Arc<std::sync::Mutex<Shown>> = Arc::default();
    let seen = shown.clone();
    let one = Arc::new(glovebox_host::approving(move |request: &ApprovalRequest| {
        match &request.subject {
            Subject::SafetyCheck { id, step, .. } => {
                seen.lock().unwrap().push((id.clone(), step.clone()));
                if id == "cu_sc_1" {
                    Answer::Approved
                } else {
                    Answer::Declined
                }
            }
            Subject::Call { .. } => Answer::Approved,
        }
    }));
    assert_eq!(
        executor.execute_with(&item, one).unwrap_err().code(),
        ErrorCode::SafetyCheckUnacknowledged
    );
    let shown = shown.lock().unwrap().clone();
    assert_eq!(shown.len(), 2, "the user sees every pending check: {shown:?}");
    assert!(shown[0].1[0].starts_with("click at"), "{shown:?}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(fixture.state().unwrap()["clicks"]["cancel"], 0, "nothing ran");
    // Both approved (plus an id that was never pending): it runs, and echoes exactly the two.
    let all = Arc::new(glovebox_host::approving(|_: &ApprovalRequest| Answer::Approved));
    let output = executor.execute_with(&item, all).unwrap();
    fixture.wait_state("cancel clicked", |s| s["clicks"]["cancel"] == 1);
    let echoed: Vec<&str> =
        output.acknowledged_safety_checks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(echoed, ["cu_sc_1", "cu_sc_2"]);
    assert_eq!(
        serde_json::to_value(&output).unwrap()["acknowledged_safety_checks"],
        item["pending_safety_checks"]
    );
}

/// `glovebox serve` in the sandbox with its own home; the address and token it announced.
fn serve(sandbox: &Sandbox, name: &str, env: &[(&str, &str)]) -> (Served, String, String) {
    let home =
        std::env::temp_dir().join(format!("glovebox-wire-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let served = Served::start(sandbox, env!("CARGO_BIN_EXE_glovebox"), &home, env);
    let (address, token) = (served.address.clone(), served.token.clone());
    (served, address, token)
}

#[test]
fn serve_answers_every_provider_behind_the_token() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Wire serve"),
        &["--no-password", "--x", "100", "--y", "50"],
    );
    let probe = glovebox_testkit::host(sandbox, "wire-serve-probe").open();
    let window = listed(&probe, &fixture);
    ready(&probe, window.id);
    probe.revoke("the probe only waited for the window");
    drop(probe);
    let id = window.id.to_string();
    let screenshot =
        json!({"call": call("serve_look", json!([{"type": "screenshot"}])), "window": id})
            .to_string();

    let (server, address, token) = serve(
        sandbox,
        "yolo",
        &[("GLOVEBOX_APPROVAL_MODE", "yolo"), ("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")],
    );
    assert_eq!(post(&address, "/v1/openai/computer_call", None, &screenshot).0, 401, "no token");
    assert_eq!(
        post(&address, "/v1/anthropic/computer", Some("wrong-token"), "{}").0,
        401,
        "wrong token"
    );
    let (status, body) = post(&address, "/v1/openai/computer_call", Some(&token), "{not json");
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("COMPUTER_INVALID_ARGUMENT")));
    assert_eq!(post(&address, "/v1/elsewhere", Some(&token), "{}").0, 404);

    let (status, body) = post(&address, "/v1/openai/computer_call", Some(&token), &screenshot);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["type"].as_str(), body["call_id"].as_str(), body["output"]["type"].as_str()),
        (Some("computer_call_output"), Some("serve_look"), Some("computer_screenshot"))
    );
    assert_eq!(
        decode(&png_of_data_url(body["output"]["image_url"].as_str().unwrap())).0,
        window.geometry.size()
    );

    // Input with approval.mode = yolo; an unacknowledged safety check fails closed first.
    let (x, y, w, h) = allocation(&fixture.state().unwrap(), "cancel");
    let mut click = call(
        "serve_click",
        json!([{"type": "click", "button": "left", "x": x + w / 2, "y": y + h / 2}]),
    );
    click["pending_safety_checks"] =
        json!([{"id": "cu_sc_9", "code": "sensitive_domain", "message": "Banking."}]);
    let (status, body) = post(
        &address,
        "/v1/openai/computer_call",
        Some(&token),
        &json!({"call": click, "window": id}).to_string(),
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED")),
        "{body}"
    );
    let (status, body) = post(
        &address,
        "/v1/openai/computer_call",
        Some(&token),
        &json!({"call": click, "window": id, "acknowledged_safety_checks": ["cu_sc_9"]})
            .to_string(),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["acknowledged_safety_checks"][0]["id"], "cu_sc_9");
    fixture.wait_state("cancel clicked over HTTP", |s| s["clicks"]["cancel"] == 1);

    let tool = json!({"type": "computer_20250124", "name": "computer", "display_width_px": 1024, "display_height_px": 768});
    let tool_use = json!({"type": "tool_use", "id": "toolu_serve", "name": "computer", "input": {"action": "screenshot"}});
    let (status, body) = post(
        &address,
        "/v1/anthropic/computer",
        Some(&token),
        &json!({"tool": tool, "tool_use": tool_use, "window": id}).to_string(),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["type"].as_str(), body["tool_use_id"].as_str(), body.get("is_error")),
        (Some("tool_result"), Some("toolu_serve"), None)
    );
    let png = base64::engine::general_purpose::STANDARD
        .decode(body["content"][0]["source"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(decode(&png).0, Size::new(1024, 768));
    let padding = json!({"type": "tool_use", "id": "toolu_pad", "name": "computer", "input": {"action": "left_click", "coordinate": [1000, 700]}});
    let (status, body) = post(
        &address,
        "/v1/anthropic/computer",
        Some(&token),
        &json!({"tool": tool, "tool_use": padding, "window": id}).to_string(),
    );
    assert_eq!((status, body["is_error"].as_bool()), (200, Some(true)), "{body}");
    assert!(
        body["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("COMPUTER_COORDINATE_OUT_OF_BOUNDS"),
        "{body}"
    );

    // The toolset: one block answers with its result, a turn's list with the list.
    let toolset = json!({"type": "computer_toolset_20260801"});
    let member = |id: &str, name: &str, input: Value| json!({"type": "tool_use", "id": id, "name": name, "toolset_name": "computer", "input": input});
    let (status, body) = post(
        &address,
        "/v1/anthropic/computer",
        Some(&token),
        &json!({"tool": toolset, "tool_use": member("toolu_ts_look", "screenshot", json!({})), "window": id}).to_string(),
    );
    assert_eq!(
        (status, body["tool_use_id"].as_str(), body["content"][0]["type"].as_str()),
        (200, Some("toolu_ts_look"), Some("image")),
        "{body}"
    );
    let png = base64::engine::general_purpose::STANDARD
        .decode(body["content"][0]["source"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        decode(&png).0,
        window.geometry.size(),
        "the window fits the image budget: its own pixels"
    );
    let turn = json!([
        member("toolu_ts_cancel", "left_click", json!({"coordinate": [x + w / 2, y + h / 2]})),
        member("toolu_ts_far", "left_click", json!({"coordinate": [9000, 9]})),
        member("toolu_ts_never", "key", json!({"text": "Return"}))
    ]);
    let (status, body) = post(
        &address,
        "/v1/anthropic/computer",
        Some(&token),
        &json!({"tool": toolset, "tool_use": turn, "window": id}).to_string(),
    );
    assert_eq!(status, 200, "{body}");
    let errors: Vec<Option<bool>> =
        body.as_array().unwrap().iter().map(|r| r["is_error"].as_bool()).collect();
    assert_eq!(errors, [None, Some(true), Some(true)], "{body}");
    fixture.wait_state("cancel clicked by the toolset turn", |s| s["clicks"]["cancel"] == 2);
    let disabled =
        json!({"type": "computer_toolset_20260801", "configs": {"left_click": {"enabled": false}}});
    let (status, body) = post(
        &address,
        "/v1/anthropic/computer",
        Some(&token),
        &json!({"tool": disabled, "tool_use": member("toolu_ts_off", "left_click", json!({"coordinate": [x + w / 2, y + h / 2]})), "window": id}).to_string(),
    );
    assert_eq!((status, body["is_error"].as_bool()), (200, Some(true)), "{body}");
    assert!(body["content"][0]["text"].as_str().unwrap().contains("disabled"), "{body}");

    // Gemini: the first screenshot, then a call on the 0–999 grid; an unconfirmed one fails closed.
    let size = window.geometry.size();
    let grid = |(px, py): (i64, i64)| {
        (px * 1000 / i64::from(size.width), py * 1000 / i64::from(size.height))
    };
    let (status, body) = post(
        &address,
        "/v1/gemini/computer_use",
        Some(&token),
        &json!({"screenshot": true, "window": id}).to_string(),
    );
    assert_eq!(
        (status, body["inlineData"]["mimeType"].as_str()),
        (200, Some("image/png")),
        "{body}"
    );
    let (gx, gy) = grid((x + w / 2, y + h / 2));
    let click = json!({"name": "click_at", "id": "fc_cancel", "args": {"x": gx, "y": gy, "safety_decision": {"decision": "require_confirmation", "explanation": "cancels"}}});
    let (status, body) = post(
        &address,
        "/v1/gemini/computer_use",
        Some(&token),
        &json!({"function_call": click, "window": id}).to_string(),
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body["functionResponse"]["response"]["error"]
            .as_str()
            .unwrap()
            .starts_with("COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED"),
        "{body}"
    );
    let (status, body) = post(
        &address,
        "/v1/gemini/computer_use",
        Some(&token),
        &json!({"function_call": click, "window": id, "acknowledged_safety_decision": true})
            .to_string(),
    );
    assert_eq!(
        (status, body["functionResponse"]["response"]["safety_acknowledgement"].as_str()),
        (200, Some("true")),
        "{body}"
    );
    fixture.wait_state("cancel clicked through Gemini once the user confirmed", |s| {
        s["clicks"]["cancel"] == 3
    });
    let (status, body) =
        post(&address, "/v1/gemini/computer_use", Some(&token), &json!({"window": id}).to_string());
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (422, Some("COMPUTER_INVALID_ARGUMENT")),
        "{body}"
    );
    server.kill();

    // The default approvals prompt for input, and serve has no one to ask: refused, nothing clicked.
    let (server, address, token) = serve(sandbox, "write", &[]);
    let (status, body) = post(&address, "/v1/openai/computer_call", Some(&token), &screenshot);
    assert_eq!(status, 200, "observing is allowed: {body}");
    let click = call(
        "serve_click_again",
        json!([{"type": "click", "button": "left", "x": x + w / 2, "y": y + h / 2}]),
    );
    let (status, body) = post(
        &address,
        "/v1/openai/computer_call",
        Some(&token),
        &json!({"call": click, "window": id}).to_string(),
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (403, Some("COMPUTER_APPROVAL_REQUIRED")),
        "{body}"
    );
    assert!(
        body["error"]["message"].as_str().unwrap().contains("glovebox config set approval"),
        "{body}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(fixture.state().unwrap()["clicks"]["cancel"], 3, "the refused click never happened");
    server.kill();
}

/// A POST that may be cut off by the server (an oversized body): the status, or 0 when the connection was reset first.
fn post_tolerant(address: &str, path: &str, token: &str, body: &[u8]) -> u16 {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(address) else { return 0 };
    let head = format!("POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body));
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[test]
fn serve_under_concurrent_clients_answers_each_its_own_and_refuses_bad_ones_without_slowing_the_rest(
) {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Wire load"),
        &["--no-password", "--x", "100", "--y", "50"],
    );
    let probe = glovebox_testkit::host(sandbox, "wire-load-probe").open();
    let window = listed(&probe, &fixture);
    ready(&probe, window.id);
    probe.revoke("the probe only waited for the window");
    drop(probe);
    let id = window.id.to_string();
    let (server, address, token) = serve(sandbox, "load", &[]);
    let clients = |round: &str| -> Vec<std::thread::JoinHandle<Vec<std::time::Duration>>> {
        (0..6)
            .map(|t| {
                let (address, token, id, round) = (address.clone(), token.clone(), id.clone(), round.to_owned());
                std::thread::spawn(move || {
                    let mut latencies = vec![];
                    for n in 0..10 {
                        let call_id = format!("load_{round}_{t}_{n}");
                        let asked = std::time::Instant::now();
                        let (status, body) = if n % 2 == 0 {
                            post(
                                &address,
                                "/v1/openai/computer_call",
                                Some(&token),
                                &json!({"call": call(&call_id, json!([{"type": "screenshot"}])), "window": id}).to_string(),
                            )
                        } else {
                            let gemini = json!({"function_call": {"name": "wait_5_seconds", "id": call_id, "args": {"x": 1}}, "window": id});
                            post(&address, "/v1/gemini/computer_use", Some(&token), &gemini.to_string())
                        };
                        latencies.push(asked.elapsed());
                        assert_eq!(status, 200, "{body}");
                        if n % 2 == 0 {
                            assert_eq!(body["call_id"], call_id.as_str(), "an answer for another client's call");
                        } else {
                            // An argument wait_5_seconds does not take: refused at once, answered to this call.
                            assert_eq!(body["functionResponse"]["id"], call_id.as_str(), "an answer for another client's call");
                            assert!(body["functionResponse"]["response"]["error"].as_str().unwrap().starts_with("COMPUTER_INVALID_ARGUMENT"), "{body}");
                        }
                    }
                    latencies
                })
            })
            .collect()
    };
    let median = |handles: Vec<std::thread::JoinHandle<Vec<std::time::Duration>>>| {
        let mut all: Vec<std::time::Duration> =
            handles.into_iter().flat_map(|c| c.join().expect("a client failed")).collect();
        all.sort();
        (all[all.len() / 2], *all.last().unwrap())
    };
    let alone = median(clients("alone"));
    let started = std::time::Instant::now();
    let busy = clients("beside");
    let hostile: Vec<_> = (0..2)
        .map(|t| {
            let (address, token) = (address.clone(), token.clone());
            std::thread::spawn(move || {
                let huge = vec![b' '; glovebox_mcp::http::MAX_ROUTE_BODY + 1024];
                for _ in 0..10 {
                    let status = if t == 0 {
                        post(&address, "/v1/openai/computer_call", Some("not-the-token"), "{}").0
                    } else {
                        post_tolerant(&address, "/v1/openai/computer_call", &token, &huge)
                    };
                    assert!(
                        if t == 0 { status == 401 } else { status == 413 || status == 0 },
                        "hostile request answered {status}"
                    );
                }
            })
        })
        .collect();
    let beside = median(busy);
    for h in hostile {
        h.join().expect("a hostile client was answered wrongly");
    }
    println!(
        "serve under load: 60 calls from 6 clients alone: median {:?}, slowest {:?}; again beside 20 hostile requests (bad tokens, {} MiB bodies) in {:.2} s: median {:?}, slowest {:?}",
        alone.0,
        alone.1,
        (glovebox_mcp::http::MAX_ROUTE_BODY >> 20) + 1,
        started.elapsed().as_secs_f64(),
        beside.0,
        beside.1
    );
    server.kill();
}
