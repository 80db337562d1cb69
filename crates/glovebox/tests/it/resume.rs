//! Resume: one model turn's native calls that need the user's answer wait
//! on disk (`glovebox serve`, `"park": true`), survive the server being
//! killed, and complete once the person approves at their terminal
//! (`glovebox pending approve`), keeping call ids and order; a cancelled or
//! declined batch delivers nothing more and keeps what was delivered; a
//! call whose window moved or went away while it waited is refused. Judged
//! by the fixture's own click counts, the user's window, pointer and
//! stacking, and a second look at the pending directory.
#![cfg(target_os = "linux")]

use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::desktop::Desktop;
use glovebox_testkit::serve::Served;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_glovebox");

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-resume-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glovebox ARGS` as the person at their terminal, with the user's home.
fn glovebox(sandbox: &Sandbox, home: &Path, args: &[&str]) -> std::process::Output {
    let mut command = sandbox.command_in_home(BIN, home);
    command.args(args).stdin(std::process::Stdio::null()).output().unwrap()
}

fn listed_pending(sandbox: &Sandbox, home: &Path) -> Vec<Value> {
    let out = glovebox(sandbox, home, &["pending", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

/// A widget's centre in the window's own pixels (the screenshot's, at scale 1 here).
fn centre(state: &Value, name: &str) -> (i64, i64) {
    let a = &state["allocations"][name];
    (
        a[0].as_i64().unwrap() + a[2].as_i64().unwrap() / 2,
        a[1].as_i64().unwrap() + a[3].as_i64().unwrap() / 2,
    )
}

fn openai_call(id: &str, actions: Value) -> Value {
    json!({"type": "computer_call", "id": format!("cu_{id}"), "call_id": id, "actions": actions, "pending_safety_checks": [], "status": "completed"})
}

fn clicks(fixture: &Fixture) -> (Value, Value) {
    let state = fixture.state().unwrap();
    (state["clicks"]["submit"].clone(), state["clicks"]["cancel"].clone())
}

#[test]
fn a_parked_openai_batch_survives_a_restart_and_completes_and_a_cancelled_or_declined_one_delivers_nothing_more(
) {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker = glovebox_testkit::host(sandbox, "resume-looker").open();
    let form = Fixture::launch(
        sandbox,
        &unique_title("Resume form"),
        &["--no-password", "--x", "60", "--y", "60"],
    );
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Resume user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    let window = wait_until("the form listed", || {
        looker.list_windows(Some(&form.title), 1).ok()?.windows.into_iter().next().map(|w| w.window)
    });
    wait_until("the form's tree", || {
        looker
            .observe(Some(&glovebox_model::WindowRef::Id(window.id)), false)
            .ok()
            .filter(|o| o.tree.node_count > 10)
    });
    sentinel.keep_active();
    let before = Desktop::now(&looker, sandbox, &sentinel);
    let home = scratch("home");
    let id = window.id.to_string();
    let state = form.state().unwrap();
    let (cancel_x, cancel_y) = centre(&state, "cancel");
    let (submit_x, submit_y) = centre(&state, "submit");

    // The model's turn: a look, then a click on Cancel that its provider flagged. The default
    // approvals ask for input, so the click waits for the person; the look is delivered.
    let served = Served::start(sandbox, BIN, &home, &[]);
    let look = openai_call("call_look", json!([{"type": "screenshot"}]));
    let mut click = openai_call(
        "call_click",
        json!([{"type": "click", "button": "left", "x": cancel_x, "y": cancel_y}]),
    );
    click["pending_safety_checks"] =
        json!([{"id": "cu_sc_7", "code": "sensitive_domain", "message": "Cancels the order."}]);
    let turn = json!([look, click]);
    let (status, body) = served
        .post("/v1/openai/computer_call", &json!({"calls": turn, "window": id, "park": true}));
    assert_eq!(status, 202, "{body}");
    let pending = &body["pending"];
    let pending_id = pending["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (&pending["call_ids"], &pending["waiting_at"], &pending["delivered"]),
        (&json!(["call_look", "call_click"]), &json!(1), &json!(1)),
        "{body}"
    );
    let questions: Vec<&str> =
        pending["questions"].as_array().unwrap().iter().map(|q| q.as_str().unwrap()).collect();
    assert!(
        questions.iter().any(|q| q.contains("click") && q.contains("\"Cancel\"")),
        "the person sees what the click hits: {questions:?}"
    );
    assert!(
        questions.iter().any(|q| q.contains("sensitive_domain") && q.contains("Cancels the order")),
        "and the safety check: {questions:?}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(clicks(&form), (json!(0), json!(0)), "nothing was clicked while it waits");

    // Bad requests are refused with nothing run and nothing parked.
    let refused = |path: &str, body: Value| {
        let (status, answer) = served.post(path, &body);
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (422, Some("COMPUTER_INVALID_ARGUMENT")),
            "{body}: {answer}"
        );
    };
    refused("/v1/pending", json!({"id": "../../etc/passwd"}));
    refused("/v1/pending", json!({"id": 7}));
    refused("/v1/pending", json!({"id": pending_id, "cancel": "yes"}));
    refused("/v1/openai/computer_call", json!({"calls": [], "window": id, "park": true}));
    refused(
        "/v1/openai/computer_call",
        json!({"calls": [openai_call("call_x", json!([{"type": "wait"}]))], "window": id}),
    );
    refused(
        "/v1/openai/computer_call",
        json!({"calls": [{"type": "computer_call", "actions": [{"type": "wait"}]}], "window": id, "park": true}),
    );
    refused(
        "/v1/openai/computer_call",
        json!({"call": openai_call("call_x", json!([{"type": "wait"}])), "window": id, "park": "yes"}),
    );
    let single_tool = json!({"type": "computer_20251124", "name": "computer", "display_width_px": 800, "display_height_px": 600});
    refused(
        "/v1/anthropic/computer",
        json!({"tool": single_tool, "tool_use": [], "window": id, "park": true}),
    );
    assert_eq!(
        served.post("/v1/pending", &json!({"id": "pnd-0123456789abcdef0123456789abcdef"})).0,
        404,
        "never parked"
    );
    assert_eq!(listed_pending(sandbox, &home).len(), 1, "only the one batch waits");

    // The server dies (as in a crash) and comes back: the batch still waits.
    served.kill();
    let served = Served::start(sandbox, BIN, &home, &[]);
    let (status, body) = served.post("/v1/pending", &json!({"id": pending_id}));
    assert_eq!(
        (status, body["pending"]["id"].as_str()),
        (202, Some(pending_id.as_str())),
        "{body}"
    );
    let (status, body) = served.post("/v1/pending", &json!({}));
    assert_eq!((status, body["pending"].as_array().map(Vec::len)), (200, Some(1)), "{body}");

    // The person reads it and approves at their terminal; the next poll runs the click.
    let listed = listed_pending(sandbox, &home);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["questions"], pending["questions"]);
    // Without --yes it asks on the terminal; with none (a new session, setsid) nothing is approved.
    let mut command = sandbox.command_in_home("setsid", &home);
    let out = command
        .args(["--wait", BIN, "pending", "approve", &pending_id])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("COMPUTER_APPROVAL_REQUIRED"),
        "{out:?}"
    );
    let digest = digest_of(sandbox, &home, &pending_id);
    let out = glovebox(
        sandbox,
        &home,
        &["pending", "approve", &pending_id, "--digest", &digest, "--yes"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (status, body) = served.post("/v1/pending", &json!({"id": pending_id}));
    assert_eq!(status, 200, "{body}");
    let outputs = body.as_array().unwrap();
    assert_eq!(
        outputs.iter().map(|o| o["call_id"].as_str().unwrap()).collect::<Vec<_>>(),
        ["call_look", "call_click"],
        "{body}"
    );
    assert!(
        outputs
            .iter()
            .all(|o| o["type"] == "computer_call_output"
                && o["output"]["type"] == "computer_screenshot"),
        "{body}"
    );
    assert_eq!(outputs[1]["acknowledged_safety_checks"][0]["id"], "cu_sc_7");
    let report = glovebox_testkit::sdk::check_types(
        &home,
        &json!({"openai": {"calls": turn, "outputs": outputs}}),
    );
    assert!(report.contains("2 calls and 2 outputs fit"), "{report}");
    form.wait_state("Cancel clicked once the person approved", |s| s["clicks"]["cancel"] == 1);
    let (status, _) = served.post("/v1/pending", &json!({"id": pending_id}));
    assert_eq!(status, 404, "answered: gone");
    assert!(listed_pending(sandbox, &home).is_empty());
    assert_eq!(
        Desktop::now(&looker, sandbox, &sentinel),
        before,
        "the user's pointer, stacking, focus and window"
    );

    // Cancelled by the agent: both calls of the batch are answered as not run, in order.
    let first = openai_call(
        "call_submit",
        json!([{"type": "click", "button": "left", "x": submit_x, "y": submit_y}]),
    );
    let second = openai_call(
        "call_cancel",
        json!([{"type": "click", "button": "left", "x": cancel_x, "y": cancel_y}]),
    );
    let (status, body) = served.post(
        "/v1/openai/computer_call",
        &json!({"calls": [first, second], "window": id, "park": true}),
    );
    assert_eq!((status, &body["pending"]["waiting_at"]), (202, &json!(0)), "{body}");
    let cancelled_id = body["pending"]["id"].as_str().unwrap().to_owned();
    let (status, body) = served.post("/v1/pending", &json!({"id": cancelled_id, "cancel": true}));
    assert_eq!(status, 200, "{body}");
    let answers = body.as_array().unwrap();
    assert_eq!(
        answers.iter().map(|o| o["call_id"].as_str().unwrap()).collect::<Vec<_>>(),
        ["call_submit", "call_cancel"]
    );
    assert!(answers.iter().all(|o| o["error"]["code"] == "COMPUTER_APPROVAL_DENIED"), "{body}");
    let out = glovebox(
        sandbox,
        &home,
        &["pending", "approve", &cancelled_id, "--digest", "000000000000", "--yes"],
    );
    assert!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no pending call"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(clicks(&form), (json!(0), json!(1)), "the cancelled batch delivered nothing");

    // Declined by the person: the toolset turn's screenshot ran before its click waited; the
    // screenshot's result is kept and the click is answered as not run.
    let member = |block: &str, name: &str, input: Value| json!({"type": "tool_use", "id": block, "name": name, "toolset_name": "computer", "input": input});
    let turn = json!([
        member("toolu_look", "screenshot", json!({})),
        member("toolu_click", "left_click", json!({"coordinate": [cancel_x, cancel_y]}))
    ]);
    let toolset = json!({"type": "computer_toolset_20260801"});
    let (status, body) = served.post(
        "/v1/anthropic/computer",
        &json!({"tool": toolset, "tool_use": turn, "window": id, "park": true}),
    );
    assert_eq!(
        (status, &body["pending"]["waiting_at"], &body["pending"]["delivered"]),
        (202, &json!(1), &json!(1)),
        "{body}"
    );
    let declined_id = body["pending"]["id"].as_str().unwrap().to_owned();
    assert!(glovebox(sandbox, &home, &["pending", "decline", &declined_id]).status.success());
    let (status, body) = served.post("/v1/pending", &json!({"id": declined_id}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body[0]["tool_use_id"], &body[0]["content"][0]["type"], body[0].get("is_error")),
        (&json!("toolu_look"), &json!("image"), None),
        "{body}"
    );
    assert_eq!(
        (&body[1]["tool_use_id"], &body[1]["is_error"]),
        (&json!("toolu_click"), &json!(true)),
        "{body}"
    );
    assert!(
        body[1]["content"][0]["text"].as_str().unwrap().starts_with("COMPUTER_APPROVAL_DENIED"),
        "{body}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(clicks(&form), (json!(0), json!(1)), "the declined click was not delivered");

    // Gemini: the confirmation its provider asked for is put to the person in the same round as the click.
    assert_eq!(
        served.post("/v1/gemini/computer_use", &json!({"screenshot": true, "window": id})).0,
        200
    );
    let size = window.geometry.size();
    let grid =
        |(x, y): (i64, i64)| (x * 1000 / i64::from(size.width), y * 1000 / i64::from(size.height));
    let (gx, gy) = grid((cancel_x, cancel_y));
    let confirm = json!({"decision": "require_confirmation", "explanation": "cancels the order"});
    let gemini_click = json!({"name": "click_at", "id": "fc_cancel", "args": {"x": gx, "y": gy, "safety_decision": confirm}});
    let (status, body) = served.post(
        "/v1/gemini/computer_use",
        &json!({"function_calls": [gemini_click], "window": id, "park": true}),
    );
    assert_eq!(status, 202, "{body}");
    let questions = body["pending"]["questions"].as_array().unwrap();
    assert!(
        questions.len() == 2 && questions[1].as_str().unwrap().contains("cancels the order"),
        "{body}"
    );
    let gemini_id = body["pending"]["id"].as_str().unwrap().to_owned();
    let digest = digest_of(sandbox, &home, &gemini_id);
    assert!(glovebox(
        sandbox,
        &home,
        &["pending", "approve", &gemini_id, "--digest", &digest, "--yes"]
    )
    .status
    .success());
    let (status, responses) = served.post("/v1/pending", &json!({"id": gemini_id}));
    assert_eq!(status, 200, "{responses}");
    let response = &responses[0]["functionResponse"];
    assert_eq!(
        (&response["id"], &response["response"]["safety_acknowledgement"]),
        (&json!("fc_cancel"), &json!("true")),
        "{responses}"
    );
    form.wait_state("Cancel clicked through Gemini once the person confirmed", |s| {
        s["clicks"]["cancel"] == 2
    });
    let model_turn = json!({"role": "model", "parts": [{"functionCall": gemini_click}]});
    let tool = json!({"computerUse": {"environment": "ENVIRONMENT_DESKTOP", "excludedPredefinedFunctions": glovebox_wire::gemini::EXCLUDED}});
    let report = glovebox_testkit::sdk::check_types(
        &home,
        &json!({"gemini": {"tool": tool, "model_turn": model_turn, "responses": responses}}),
    );
    assert!(report.contains("1 calls and 1 responses"), "{report}");

    // Stale: the window moved while the click waited; approved, it is refused, and nothing is clicked.
    let look = openai_call("call_look_again", json!([{"type": "screenshot"}]));
    assert_eq!(
        served.post("/v1/openai/computer_call", &json!({"call": look, "window": id})).0,
        200
    );
    let click = openai_call(
        "call_stale",
        json!([{"type": "click", "button": "left", "x": cancel_x, "y": cancel_y}]),
    );
    let (status, body) = served
        .post("/v1/openai/computer_call", &json!({"call": click, "window": id, "park": true}));
    assert_eq!(status, 202, "{body}");
    let stale_id = body["pending"]["id"].as_str().unwrap().to_owned();
    form.send(json!({"cmd": "move", "x": 200, "y": 160}));
    wait_until("the form moved", || {
        let now =
            looker.list_windows(Some(&form.title), 1).ok()?.windows.into_iter().next()?.window;
        (now.geometry != window.geometry).then_some(())
    });
    served.kill();
    let served = Served::start(sandbox, BIN, &home, &[]);
    let digest = digest_of(sandbox, &home, &stale_id);
    assert!(glovebox(
        sandbox,
        &home,
        &["pending", "approve", &stale_id, "--digest", &digest, "--yes"]
    )
    .status
    .success());
    let (status, body) = served.post("/v1/pending", &json!({"id": stale_id}));
    assert_eq!(
        (status, body["error"]["code"].as_str(), body["call_id"].as_str()),
        (409, Some("COMPUTER_LAYOUT_CHANGED"), Some("call_stale")),
        "{body}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(clicks(&form), (json!(0), json!(2)), "a stale call is never delivered");

    // Expired: a batch that waited more than a day can no longer be approved, and is answered as timed out.
    let click = openai_call(
        "call_old",
        json!([{"type": "click", "button": "left", "x": cancel_x, "y": cancel_y}]),
    );
    let look = openai_call("call_look_old", json!([{"type": "screenshot"}]));
    assert_eq!(
        served.post("/v1/openai/computer_call", &json!({"call": look, "window": id})).0,
        200
    );
    let (status, body) = served
        .post("/v1/openai/computer_call", &json!({"call": click, "window": id, "park": true}));
    assert_eq!(status, 202, "{body}");
    let old_id = body["pending"]["id"].as_str().unwrap().to_owned();
    // Made older as glovebox itself would write it: signed with the user's key.
    let store = glovebox_mcp::pending::Store::with_key_dir(
        home.join("state/glovebox/pending"),
        home.join("state/glovebox/recordings"),
    );
    let mut record = store.load(&old_id).unwrap();
    record.parked_at -= 24 * 3600 + 60;
    store.save(&record).unwrap();
    let digest = digest_of(sandbox, &home, &old_id);
    let out =
        glovebox(sandbox, &home, &["pending", "approve", &old_id, "--digest", &digest, "--yes"]);
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("can no longer be approved"),
        "{out:?}"
    );
    let (status, body) = served.post("/v1/pending", &json!({"id": old_id}));
    assert_eq!(
        (body["error"]["code"].as_str(), body["call_id"].as_str()),
        (Some("COMPUTER_TIMEOUT"), Some("call_old")),
        "{status}: {body}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(clicks(&form), (json!(0), json!(2)), "an expired call is never delivered");

    // Gone: the window closed while a batch of two clicks waited; the first is refused, the second not run.
    let look = openai_call("call_look_moved", json!([{"type": "screenshot"}]));
    assert_eq!(
        served.post("/v1/openai/computer_call", &json!({"call": look, "window": id})).0,
        200
    );
    let click = openai_call(
        "call_gone",
        json!([{"type": "click", "button": "left", "x": cancel_x, "y": cancel_y}]),
    );
    let after = openai_call(
        "call_after",
        json!([{"type": "click", "button": "left", "x": submit_x, "y": submit_y}]),
    );
    let (status, body) = served.post(
        "/v1/openai/computer_call",
        &json!({"calls": [click, after], "window": id, "park": true}),
    );
    assert_eq!(status, 202, "{body}");
    let gone_id = body["pending"]["id"].as_str().unwrap().to_owned();
    drop(form);
    let digest = digest_of(sandbox, &home, &gone_id);
    assert!(glovebox(
        sandbox,
        &home,
        &["pending", "approve", &gone_id, "--digest", &digest, "--yes"]
    )
    .status
    .success());
    let (status, body) = served.post("/v1/pending", &json!({"id": gone_id}));
    assert_eq!(
        (status, body[0]["call_id"].as_str(), body[0]["error"]["code"].as_str()),
        (200, Some("call_gone"), Some("COMPUTER_TARGET_GONE")),
        "{body}"
    );
    assert_eq!(body[1]["call_id"], "call_after", "{body}");
    assert!(
        body[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not run: call 0 of the batch failed before it"),
        "{body}"
    );
    assert!(listed_pending(sandbox, &home).is_empty(), "every batch was answered");
    // The calls' text never left the user's state directory: nothing is left in it either.
    assert_eq!(std::fs::read_dir(home.join("state/glovebox/pending")).unwrap().count(), 0);
    drop(served);
    let _ = std::fs::remove_dir_all(&home);
}

/// `glovebox pending --json` as the person reads it: each waiting batch's id and digest.
fn digest_of(sandbox: &Sandbox, home: &Path, pending_id: &str) -> String {
    let listed = listed_pending(sandbox, home);
    let entry = listed
        .iter()
        .find(|p| p["id"] == pending_id)
        .unwrap_or_else(|| panic!("{pending_id} is not listed: {listed:?}"));
    entry["digest"].as_str().unwrap().to_owned()
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn an_edited_hand_written_or_changed_record_runs_nothing_and_records_stay_private() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker = glovebox_testkit::host(sandbox, "forged-looker").open();
    let form = Fixture::launch(
        sandbox,
        &unique_title("Forged form"),
        &["--no-password", "--x", "60", "--y", "60"],
    );
    let window = wait_until("the form listed", || {
        looker.list_windows(Some(&form.title), 1).ok()?.windows.into_iter().next().map(|w| w.window)
    });
    wait_until("the form's tree", || {
        looker
            .observe(Some(&glovebox_model::WindowRef::Id(window.id)), false)
            .ok()
            .filter(|o| o.tree.node_count > 10)
    });
    let home = scratch("forged");
    let id = window.id.to_string();
    let state = form.state().unwrap();
    let (cancel_x, cancel_y) = centre(&state, "cancel");
    let (submit_x, submit_y) = centre(&state, "submit");
    let served = Served::start(sandbox, BIN, &home, &[]);
    let dir = home.join("state/glovebox/pending");
    let record = |pending_id: &str| dir.join(format!("{pending_id}.json"));
    // A click on Cancel parked after a look: the record as glovebox signed it.
    let mut n = 0;
    let mut park = || {
        n += 1;
        let look = openai_call(&format!("call_look_{n}"), json!([{"type": "screenshot"}]));
        assert_eq!(
            served.post("/v1/openai/computer_call", &json!({"call": look, "window": id})).0,
            200
        );
        let click = openai_call(
            &format!("call_click_{n}"),
            json!([{"type": "click", "button": "left", "x": cancel_x, "y": cancel_y}]),
        );
        let (status, body) = served
            .post("/v1/openai/computer_call", &json!({"call": click, "window": id, "park": true}));
        assert_eq!(status, 202, "{body}");
        body["pending"]["id"].as_str().unwrap().to_owned()
    };
    // The call rewritten to click Submit, and its question to say so.
    let rewritten = |mut value: Value| {
        value["calls"][0]["actions"][0]["x"] = json!(submit_x);
        value["calls"][0]["actions"][0]["y"] = json!(submit_y);
        let question = value["questions"][0]["text"].as_str().unwrap().replace("Cancel", "Submit");
        value["questions"][0]["text"] = json!(question);
        value
    };
    let read = |pending_id: &str| {
        serde_json::from_slice::<Value>(&std::fs::read(record(pending_id)).unwrap()).unwrap()
    };
    let refused_poll = |pending_id: &str, what: &str| {
        let (status, body) = served.post("/v1/pending", &json!({"id": pending_id}));
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (422, Some("COMPUTER_INVALID_ARGUMENT")),
            "{what}: {body}"
        );
        assert!(
            body["error"]["message"].as_str().unwrap().contains("not signed with this user's key"),
            "{what}: {body}"
        );
    };

    // The status edited from waiting to approved: nobody approved, nothing runs.
    let edited = park();
    assert_eq!(
        (mode(&dir), mode(&record(&edited))),
        (0o700, 0o600),
        "the directory and the record are the user's alone"
    );
    let mut value = read(&edited);
    let basis = value["basis"].clone();
    assert!(basis.is_object(), "the click aims through the look's frame: {value}");
    value["status"] = json!("approved");
    std::fs::write(record(&edited), value.to_string()).unwrap();
    refused_poll(&edited, "the status edited");
    let out = glovebox(sandbox, &home, &["pending", "--json"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("refused:"),
        "the person is told of it: {out:?}"
    );
    assert!(glovebox(sandbox, &home, &["pending", "decline", &edited]).status.success());
    assert!(!record(&edited).exists(), "declined: the unsigned record is removed");

    // Rewritten after the person approved it: the rewritten call does not run.
    let approved = park();
    let digest = digest_of(sandbox, &home, &approved);
    let out = glovebox(sandbox, &home, &["pending", "approve", &approved, "--yes"]);
    assert!(!out.status.success(), "--yes without the digest read approves nothing: {out:?}");
    let out = glovebox(
        sandbox,
        &home,
        &["pending", "approve", &approved, "--digest", "000000000000", "--yes"],
    );
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("not the one you read"),
        "{out:?}"
    );
    assert!(glovebox(
        sandbox,
        &home,
        &["pending", "approve", &approved, "--digest", &digest, "--yes"]
    )
    .status
    .success());
    std::fs::write(record(&approved), rewritten(read(&approved)).to_string()).unwrap();
    refused_poll(&approved, "rewritten after the approval");

    // Changed between the person reading it and approving it: not approved, nothing runs.
    let changed = park();
    let digest = digest_of(sandbox, &home, &changed);
    std::fs::write(record(&changed), rewritten(read(&changed)).to_string()).unwrap();
    let out =
        glovebox(sandbox, &home, &["pending", "approve", &changed, "--digest", &digest, "--yes"]);
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("COMPUTER_INVALID_ARGUMENT"),
        "{out:?}"
    );
    refused_poll(&changed, "changed before the approval");

    // Written by hand, approved already, with and without a basis frame: nothing runs.
    for with_basis in [true, false] {
        let forged_id = format!("pnd-{:032x}", u128::from(with_basis) + 0xf0f0);
        let mut value = rewritten(read(&changed));
        value["id"] = json!(forged_id);
        value["status"] = json!("approved");
        value["basis"] = if with_basis { basis.clone() } else { Value::Null };
        value.as_object_mut().unwrap().remove("mac");
        std::fs::write(record(&forged_id), value.to_string()).unwrap();
        refused_poll(&forged_id, "written by hand");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        clicks(&form),
        (json!(0), json!(0)),
        "nothing forged, edited or changed was clicked"
    );

    // A link planted where the record's temporary file went, a loose file there, a loosened
    // directory: the approval writes neither through the link nor a loose record.
    let honest = park();
    let victim = home.join("victim");
    std::fs::write(&victim, "the user's file").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join(format!(".{honest}.partial"))).unwrap();
    let digest = digest_of(sandbox, &home, &honest);
    assert!(glovebox(
        sandbox,
        &home,
        &["pending", "approve", &honest, "--digest", &digest, "--yes"]
    )
    .status
    .success());
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the user's file",
        "the link's target is untouched"
    );
    let loose = park();
    let partial = dir.join(format!(".{loose}.partial"));
    std::fs::write(&partial, "").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let digest = digest_of(sandbox, &home, &loose);
    assert!(glovebox(
        sandbox,
        &home,
        &["pending", "approve", &loose, "--digest", &digest, "--yes"]
    )
    .status
    .success());
    assert_eq!(
        (mode(&record(&loose)), mode(&dir)),
        (0o600, 0o700),
        "the record is 0600 and the directory tightened to 0700"
    );
    // Both were approved as read: each runs its click on Cancel.
    for pending_id in [&honest, &loose] {
        let (status, body) = served.post("/v1/pending", &json!({"id": pending_id}));
        assert_eq!(status, 200, "{body}");
    }
    form.wait_state("Cancel clicked twice, by the two batches approved as read", |s| {
        s["clicks"]["cancel"] == 2
    });
    assert_eq!(
        clicks(&form),
        (json!(0), json!(2)),
        "Submit, which only forged records asked for, was never clicked"
    );
    drop(served);
    let _ = std::fs::remove_dir_all(&home);
}
