//! glovebox judged by the clients people build agents with, from PyPI
//! (pinned in `.ci/install-deps`, in `target/sdk-venv`): the OpenAI Agents
//! SDK and Google GenAI loading the MCP tools through the official MCP
//! Python SDK, and the Anthropic and Google SDKs' own types checking what
//! the executors answer on a real sandbox desktop. The desktop oracles are
//! the fixture's own state report, the real pointer and a sentinel window
//! the user works in.
#![cfg(target_os = "linux")]

use glovebox_host::Host;
use glovebox_model::{WindowId, WindowRef};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_wire::{AnthropicExecutor, ExecutorOptions, GeminiExecutor, ToolsetDefinition};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn sdk_python() -> PathBuf {
    glovebox_testkit::sdk::python()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-sdk-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bound(host: &Host, fixture: &Fixture) -> WindowId {
    let id = wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    });
    wait_until("fixture tree", || {
        host.observe(Some(&WindowRef::Id(id)), false).ok().filter(|o| o.tree.node_count > 10)
    });
    id
}

fn centre(state: &Value, name: &str) -> (i64, i64) {
    let a = &state["allocations"][name];
    (
        a[0].as_i64().unwrap() + a[2].as_i64().unwrap() / 2,
        a[1].as_i64().unwrap() + a[3].as_i64().unwrap() / 2,
    )
}

fn sdk_types(home: &Path, checked: &Value) -> String {
    glovebox_testkit::sdk::check_types(home, checked)
}

#[test]
fn mcp_tools_load_unchanged_in_the_openai_agents_sdk_and_google_genai() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("mcp");
    let mut command = sandbox.command_in_home(sdk_python(), &home);
    command
        .arg(glovebox_testkit::sdk::repo().join("testapps/sdk_mcp_tools.py"))
        .args([env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("GLOVEBOX_ENABLED", "true");
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let tools: Vec<&str> =
        report["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tools.len(), glovebox_mcp::TOOL_ORDER.len(), "{tools:?}");
    for tool in &tools {
        assert_eq!(
            report["strict"][tool], "strict",
            "the Agents SDK could not make {tool} strict: {report}"
        );
        assert_eq!(report["gemini"][tool], "ok", "Google GenAI could not convert {tool}: {report}");
    }
    println!("tools/list as the MCP SDK re-serialises it: {} bytes", report["bytes"]);
}

#[test]
fn a_toolset_turn_on_the_fixture_stops_at_its_first_failure_and_fits_the_sdk_types() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("toolset");
    let host = glovebox_testkit::host(sandbox, "sdk-toolset").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("SDK toolset"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("SDK toolset user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    sentinel.activate();
    let window = bound(&host, &fixture);
    let executor = AnthropicExecutor::new(
        host.clone(),
        ExecutorOptions { window: Some(WindowRef::Id(window)), ..ExecutorOptions::default() },
    );
    let toolset_json =
        json!({"type": "computer_toolset_20260801", "configs": {"hold_key": {"enabled": false}}});
    let toolset = ToolsetDefinition::parse(&toolset_json).unwrap();
    let block = |id: &str, name: &str, input: Value| json!({"type": "tool_use", "id": id, "name": name, "toolset_name": "computer", "caller": {"type": "direct"}, "input": input});
    let before = sandbox.pointer().unwrap();
    let stacking =
        host.list_windows(None, 1).unwrap().windows.iter().map(|w| w.window.id).collect::<Vec<_>>();

    let look = [block("toolu_look", "screenshot", json!({}))];
    let shown = executor.run_turn(&toolset, &look, None).unwrap();
    assert!(!shown[0].is_error, "{shown:?}");
    // The fixture's window fits the image budget: screenshot pixels are its own.
    let state = fixture.state().unwrap();
    let pad = centre(&state, "pad");
    let turn = [
        block("toolu_ctrl", "left_click", json!({"coordinate": [pad.0, pad.1], "text": "ctrl"})),
        block("toolu_far", "left_click", json!({"coordinate": [5000, 5]})),
        block("toolu_never", "type", json!({"text": "never typed"})),
    ];
    let results = executor.run_turn(&toolset, &turn, None).unwrap();

    // The oracle: the first block reached the pad with ctrl held; the third never ran.
    fixture.wait_state("a ctrl+click on the pad", |s| {
        s["pad"]["held"].as_array().is_some_and(|h| {
            h.iter().any(|e| e["event"] == "press 1" && e["modifiers"] == json!(["ctrl"]))
        })
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    let after = fixture.state().unwrap();
    assert_eq!(after["values"]["name"], "", "the block after the failure did not run");
    assert_eq!(
        after["pad"]["presses"].as_array().unwrap().len(),
        state["pad"]["presses"].as_array().unwrap().len() + 1,
        "exactly one press"
    );
    assert_eq!(sandbox.pointer().unwrap(), before, "the real pointer never moved");
    assert_eq!(after["window_active"], false, "the fixture stayed in the background");
    let user = sentinel.state().unwrap();
    assert_eq!(
        (user["window_active"].as_bool(), user["values"]["name"].as_str()),
        (Some(true), Some("")),
        "nothing reached the user's window"
    );
    assert_eq!(
        host.list_windows(None, 1).unwrap().windows.iter().map(|w| w.window.id).collect::<Vec<_>>(),
        stacking,
        "the stacking order held"
    );

    let results: Vec<Value> = results.iter().map(|r| serde_json::to_value(r).unwrap()).collect();
    assert_eq!(
        results.iter().map(|r| r["tool_use_id"].as_str().unwrap()).collect::<Vec<_>>(),
        ["toolu_ctrl", "toolu_far", "toolu_never"]
    );
    assert_eq!(results[0]["content"], json!([{"type": "text", "text": "Clicked."}]));
    assert!(
        results[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("COMPUTER_COORDINATE_OUT_OF_BOUNDS"),
        "{}",
        results[1]
    );
    assert!(
        results[2]["content"][0]["text"].as_str().unwrap().contains("not run"),
        "{}",
        results[2]
    );
    assert_eq!(
        (results[1]["is_error"].as_bool(), results[2]["is_error"].as_bool()),
        (Some(true), Some(true))
    );

    let mut blocks = look.to_vec();
    blocks.extend(turn);
    let mut answered = vec![serde_json::to_value(&shown[0]).unwrap()];
    answered.extend(results);
    let report = sdk_types(
        &home,
        &json!({"anthropic": {"toolset": toolset_json, "blocks": blocks, "results": answered}}),
    );
    assert!(report.contains("4 blocks and 4 results"), "{report}");
}

#[test]
fn gemini_calls_on_the_fixture_fill_the_form_fail_closed_unconfirmed_and_fit_the_sdk_types() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("gemini");
    let host = glovebox_testkit::host(sandbox, "sdk-gemini").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("SDK gemini"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let window = bound(&host, &fixture);
    let size =
        host.list_windows(Some(&fixture.title), 1).unwrap().windows[0].window.geometry.size();
    let executor = GeminiExecutor::new(
        host.clone(),
        ExecutorOptions { window: Some(WindowRef::Id(window)), ..ExecutorOptions::default() },
    );
    let grid =
        |(x, y): (i64, i64)| (x * 1000 / i64::from(size.width), y * 1000 / i64::from(size.height));
    let before = sandbox.pointer().unwrap();
    executor.screenshot(None).unwrap();
    let state = fixture.state().unwrap();
    let (name, submit) = (grid(centre(&state, "name")), grid(centre(&state, "submit")));
    let calls = [
        json!({"name": "type_text_at", "id": "fc_name", "args": {"x": name.0, "y": name.1, "text": "Grace Hopper", "intent": "fill in the name"}}),
        json!({"name": "click_at", "id": "fc_submit", "args": {"x": submit.0, "y": submit.1,
            "safety_decision": {"decision": "require_confirmation", "explanation": "submits a form"}}}),
    ];
    let responses: Vec<Value> = calls.iter().map(|c| executor.function_response(c, None)).collect();

    fixture
        .wait_state("the name set through type_text_at", |s| s["values"]["name"] == "Grace Hopper");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(
        fixture.state().unwrap()["clicks"]["submit"],
        0,
        "an unconfirmed call runs nothing, headless"
    );
    let refused = responses[1]["functionResponse"]["response"]["error"].as_str().unwrap();
    assert!(refused.starts_with("COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED"), "{refused}");
    assert!(
        responses[0]["functionResponse"]["response"].get("error").is_none(),
        "{}",
        responses[0]
    );
    assert_eq!(sandbox.pointer().unwrap(), before, "the real pointer never moved");

    let model_turn = json!({"role": "model", "parts": calls.iter().map(|c| json!({"functionCall": c})).collect::<Vec<_>>()});
    let tool = json!({"computerUse": {"environment": "ENVIRONMENT_DESKTOP", "excludedPredefinedFunctions": glovebox_wire::gemini::EXCLUDED}});
    let report = sdk_types(
        &home,
        &json!({"gemini": {"tool": tool, "model_turn": model_turn, "responses": responses}}),
    );
    assert!(report.contains("2 calls and 2 responses"), "{report}");
}
