//! One approval, one delivery (issue 38): on 2026-07-28 every tool that
//! takes an approval is answered by a retry while, on another task of the
//! same client, a copy of the same request state without an answer races
//! it. Whichever of the two begins first, the approved call delivers
//! exactly once and the copy is asked again. Oracle: the fixture's own
//! state (clicks, the Name field's text, the keys it received).

use super::{repo, scratch, sdk_python};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::model::{id_on_line, model_server_with};
use serde_json::{json, Value};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::Stdio;

/// The bound model: Submit once, then done (each run by its own prompt, so
/// two runs would each click).
fn press_submit_once(_: usize, prompt: &str) -> Value {
    let decision = match prompt.contains("Steps so far: none.") {
        true => {
            json!({"kind": "action", "action": {"action": "click", "target": {"element": id_on_line(prompt, "\"Submit\"").expect("Submit is in the tree")}, "button": "left", "count": 1}})
        }
        false => json!({"kind": "done", "claim": "pressed Submit"}),
    };
    json!({"decision": decision})
}

/// What the fixture has counted so far.
fn counts(fixture: &Fixture) -> (i64, String, usize) {
    let state = fixture.state().unwrap();
    let homes = state["keys"].as_array().unwrap().iter().filter(|k| k["key"] == "Home").count();
    (
        state["clicks"]["submit"].as_i64().unwrap(),
        state["values"]["name"].as_str().unwrap_or_default().to_owned(),
        homes,
    )
}

#[test]
fn a_copy_of_an_answered_state_racing_its_retry_never_delivers_twice_for_any_tool() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker = super::looker(sandbox);
    let title = unique_title("MCP race");
    let args = ["--no-password", "--x", "40", "--y", "40"];
    let home = scratch("race");
    let (model, _) = model_server_with(press_submit_once, std::time::Duration::from_millis(200));
    let first = Fixture::launch(sandbox, &title, &args);
    let mut command = sandbox.command_in_home(sdk_python(), &home);
    command.arg(repo().join("testapps/sdk_mcp_race.py")).args([
        &title,
        env!("CARGO_BIN_EXE_glovebox"),
        "mcp",
    ]);
    // One question per call: Submit is not a consequential word here.
    command.env("GLOVEBOX_ENABLED", "true").env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "");
    command
        .env("GLOVEBOX_MODEL_PROVIDER", "openai-compatible")
        .env("GLOVEBOX_MODEL_MODEL", "scripted")
        .env("GLOVEBOX_MODEL_BASE_URL", &model);
    let mut client = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(client.stdout.take().unwrap()).lines();
    // The recording: three approved clicks on Submit, on a first copy of the form.
    let recorded: Value =
        serde_json::from_str(&lines.next().expect("the recorded line").unwrap()).unwrap();
    assert!(
        recorded["recorded"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c.as_str().unwrap().starts_with("delivered")),
        "{recorded}"
    );
    first.wait_state("three clicks", |s| s["clicks"]["submit"] == 3);
    drop(first);
    wait_until("the first copy gone", || {
        looker.list_windows(Some(&title), 1).ok()?.windows.is_empty().then_some(())
    });
    // A fresh copy, the Name field focused for the typing cases.
    let fixture = Fixture::launch(sandbox, &title, &args);
    wait_until("the form listed", || {
        (looker.list_windows(Some(&title), 1).ok()?.windows.len() == 1).then_some(())
    });
    fixture.send(json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    // The Pad has no element id: its centre, in the window's pixels (the frame's at scale 1).
    let pad = fixture.state().unwrap()["allocations"]["pad"].clone();
    let at = |i: usize| pad[i].as_i64().unwrap() + pad[i + 2].as_i64().unwrap() / 2;
    writeln!(client.stdin.take().unwrap(), "{}", json!({"pad": [at(0), at(1)]})).unwrap();
    let report = lines.next().map(|l| l.unwrap()).unwrap_or_default();
    let status = client.wait().unwrap();
    let mut stderr = String::new();
    client.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    let report: Value =
        serde_json::from_str(&report).unwrap_or_else(|e| panic!("{e}: {report} / {stderr}"));
    assert_eq!(report["protocol"], "2026-07-28", "{report}");
    for tool in
        ["replay", "computer", "click", "batch", "type", "key", "scroll", "set_value", "move"]
    {
        let case = &report[tool];
        assert!(
            case["rounds"].as_u64().unwrap() >= 1
                && case["result"].as_str().unwrap().starts_with("delivered"),
            "{tool} was approved and ran: {case}"
        );
        // The copy was asked again (or refused): it never ran as approved.
        let copies = case["copies"].as_array().unwrap();
        assert!(
            copies
                .iter()
                .all(|c| c == "input required again" || c.as_str().unwrap().starts_with("error")),
            "{tool}: {case}"
        );
    }
    // Three recorded clicks, one by the model, one by click, one by batch; "b" then "t"; one Home.
    std::thread::sleep(std::time::Duration::from_millis(500));
    fixture.wait_state("every approved delivery", |s| {
        s["clicks"]["submit"] == 6 && s["values"]["name"] == "bt"
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        counts(&fixture),
        (6, "bt".to_owned(), 1),
        "each approval delivered exactly once: {report}"
    );
    let state = fixture.state().unwrap();
    assert_eq!(state["pad"]["scrolls"]["down"], 1, "one wheel step: {report}");
    assert_eq!(state["values"]["email"], "v", "{report}");
    assert!(state["pad"]["hover"].is_array(), "the pointer was moved over the pad: {report}");
}
