//! Record once, replay with no model: a task driven through `glovebox mcp`
//! by the official MCP Python SDK is recorded by the host, listed by
//! `glovebox trajectories`, and replayed by `glovebox replay` on a fresh copy
//! of the app, whose own state file shows the same result; the user's
//! desktop (pointer, stacking, focus, a sentinel window) stays as it was. A
//! replay whose app no longer reacts as recorded stops at that step; an
//! edited recording, or one cut short at its end, is refused before anything
//! is delivered.
#![cfg(target_os = "linux")]

use glovebox_host::Host;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::desktop::Desktop;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-replay-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glovebox ARGS` in the desktop with the user's home (its recordings and signing key).
fn glovebox(sandbox: &Sandbox, home: &Path, args: &[&str]) -> Output {
    let mut command = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), home);
    command.args(args).env("GLOVEBOX_ENABLED", "true").stdin(std::process::Stdio::null());
    command.output().unwrap()
}

/// The form task (set the name, click Submit) through `glovebox mcp`, by the Python SDK, approved by the user.
fn drive_once(sandbox: &Sandbox, home: &Path, title: &str) {
    drive_once_with(sandbox, home, title, "Submit", "kept");
}

/// [`drive_once`] on a form whose confirming button says `submit`, the
/// recording keeping typed text as `text` says (`kept`, or only its `length`).
fn drive_once_with(sandbox: &Sandbox, home: &Path, title: &str, submit: &str, text: &str) {
    let python = glovebox_testkit::sdk::repo().join("target/sdk-venv/bin/python");
    assert!(python.exists(), "{} is missing: run `bash .ci/install-deps`", python.display());
    let mut command = sandbox.command_in_home(python, home);
    command.arg(glovebox_testkit::sdk::repo().join("testapps/sdk_mcp_approvals.py")).args([
        "auto",
        "accept",
        title,
        "Ada Lovelace",
        env!("CARGO_BIN_EXE_glovebox"),
        "mcp",
    ]);
    // Typed text is kept only by the user's explicit choice.
    command
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_RECORDING_TEXT", text)
        .env("SUBMIT_BUTTON", submit);
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&report["calls"]["set_value"]["error"], &report["calls"]["click"]["error"]),
        (&Value::Bool(false), &Value::Bool(false)),
        "{report}"
    );
}

/// A copy of the form titled `title`, listed; behind `user`'s window when one is given.
fn form_copy(
    sandbox: &Sandbox,
    looker: &Host,
    title: &str,
    args: &[&str],
    user: Option<&Fixture>,
) -> Fixture {
    let form = Fixture::launch(sandbox, title, args);
    wait_until("the form listed", || {
        (looker.list_windows(Some(title), 1).ok()?.windows.len() == 1).then_some(())
    });
    if let Some(user) = user {
        user.keep_active();
    }
    form
}

/// The form task driven once on a first copy of the form (the recording keeping
/// typed text as `text` says); the recording.
fn record_form_task(
    sandbox: &Sandbox,
    looker: &Host,
    user: &Fixture,
    home: &Path,
    title: &str,
    text: &str,
) -> PathBuf {
    let first = form_copy(sandbox, looker, title, AT, Some(user));
    drive_once_with(sandbox, home, &first.title, "Submit", text);
    first.wait_state("the driven task", |s| {
        s["values"]["name"] == "Ada Lovelace" && s["clicks"]["submit"] == 1
    });
    the_recording(sandbox, home).0
}

/// Where the form's copies open.
const AT: &[&str] = &["--no-password", "--x", "40", "--y", "40"];

/// The one recording under `home`, as `glovebox trajectories --json` lists it.
fn the_recording(sandbox: &Sandbox, home: &Path) -> (PathBuf, Value) {
    let out = glovebox(sandbox, home, &["trajectories", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    (PathBuf::from(listed[0]["file"].as_str().unwrap()), listed[0].clone())
}

/// `glovebox replay RECORDING --yes`, run unattended: `--yes` approves the
/// input as a whole, and this user has emptied the consequential words (a
/// click on Submit would otherwise still ask, and no terminal is there).
fn replay(sandbox: &Sandbox, home: &Path, recording: &Path) -> (Option<i32>, Value) {
    let mut command = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), home);
    command
        .args(["replay", recording.to_str().unwrap(), "--yes", "--json"])
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "");
    let out = command.stdin(std::process::Stdio::null()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let account = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout} / {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), account)
}

/// The MCP `replay` tool called by the Python SDK, the user answering `answer`.
fn mcp_replay(sandbox: &Sandbox, home: &Path, answer: &str, recording: &Path) -> Value {
    let mut command = sandbox
        .command_in_home(glovebox_testkit::sdk::repo().join("target/sdk-venv/bin/python"), home);
    command
        .arg(glovebox_testkit::sdk::repo().join("testapps/sdk_mcp_replay.py"))
        .arg(answer)
        .arg(recording)
        .args([env!("CARGO_BIN_EXE_glovebox"), "mcp"]);
    let out = command.env("GLOVEBOX_ENABLED", "true").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn a_task_driven_through_mcp_replays_on_a_fresh_copy_of_the_app_and_stops_where_the_app_reacts_otherwise(
) {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker: Host = glovebox_testkit::host(sandbox, "replay-looker").open();
    let title = unique_title("Replay form");
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Replay user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    let home = scratch("home");
    {
        let first = Fixture::launch(sandbox, &title, &["--no-password", "--x", "40", "--y", "40"]);
        sentinel.keep_active();
        wait_until("both windows listed", || {
            (looker.list_windows(None, 1).ok()?.windows.len() >= 2).then_some(())
        });
        drive_once(sandbox, &home, &first.title);
        first.wait_state("the driven task", |s| {
            s["values"]["name"] == "Ada Lovelace" && s["clicks"]["submit"] == 1
        });
    }
    let (recording, listed) = the_recording(sandbox, &home);
    assert_eq!(listed["steps"], 2, "{listed}");
    assert!(listed["windows"][0].as_str().unwrap().contains(&title), "{listed}");

    // A fresh copy of the app: the replay sets the name and submits, with no model.
    // The user works in another window; the form is behind it.
    let second = form_copy(sandbox, &looker, &title, AT, Some(&sentinel));
    assert_eq!(
        second.state().unwrap()["window_active"],
        false,
        "the form is behind the user's window before the replay"
    );
    let before = Desktop::now(&looker, sandbox, &sentinel);
    let (status, account) = replay(sandbox, &home, &recording);
    assert_eq!(status, Some(0), "{account}");
    assert_eq!(
        (account["replayed"].as_u64(), account["of"].as_u64()),
        (Some(2), Some(2)),
        "{account}"
    );
    assert!(account["lines"][1].as_str().unwrap().contains("expected change(s) seen"), "{account}");
    let state = second.wait_state("the replayed task", |s| {
        s["values"]["name"] == "Ada Lovelace" && s["clicks"]["submit"] == 1
    });
    assert_eq!(state["window_active"], false, "the form stayed in the background");
    assert_eq!(
        Desktop::now(&looker, sandbox, &sentinel),
        before,
        "the user's pointer, stacking, focus and sentinel"
    );
    drop(second);

    // The same through the MCP `replay` tool: one prompt for the whole replay, listing its steps;
    // declined, nothing is delivered; accepted, the form is filled and submitted.
    let third = form_copy(sandbox, &looker, &title, AT, Some(&sentinel));
    let declined = mcp_replay(sandbox, &home, "decline", &recording);
    assert_eq!(declined["error"], true, "{declined}");
    assert!(
        declined["text"].as_str().unwrap().starts_with("COMPUTER_APPROVAL_DENIED"),
        "{declined}"
    );
    let accepted = mcp_replay(sandbox, &home, "accept", &recording);
    assert_eq!(accepted["error"], false, "{accepted}");
    let prompts = accepted["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 1, "one prompt for the whole replay: {accepted}");
    let prompt = prompts[0].as_str().unwrap();
    assert!(
        prompt.contains("step 1: set_value")
            && prompt.contains("step 2: click")
            && prompt.contains("\"Submit\""),
        "{prompt}"
    );
    assert!(accepted["text"].as_str().unwrap().contains("replayed 2 of 2"), "{accepted}");
    let state = third.wait_state("the replay through MCP", |s| {
        s["values"]["name"] == "Ada Lovelace" && s["clicks"]["submit"] == 1
    });
    assert_eq!(state["window_active"], false);
    drop(third);

    // An app that shows the click's effect only later than the recording saw it: step 2 diverges.
    let slow = form_copy(sandbox, &looker, &title, &[AT, &["--react-ms", "6000"]].concat(), None);
    let (status, account) = replay(sandbox, &home, &recording);
    assert_eq!(account["replayed"], 1, "{account}");
    let divergence = &account["divergence"];
    assert_eq!(divergence["step"], 2, "{account}");
    assert!(divergence["expected"].as_str().unwrap().contains("Submit clicked"), "{account}");
    assert_ne!(status, Some(0));
    slow.wait_state("step 1 delivered, step 2's click counted", |s| {
        s["values"]["name"] == "Ada Lovelace" && s["clicks"]["submit"] == 1
    });
    drop(slow);

    // An edited recording is refused whole: nothing is delivered.
    let untouched = form_copy(sandbox, &looker, &title, AT, None);
    let edited = home.join("edited.jsonl");
    std::fs::write(
        &edited,
        std::fs::read_to_string(&recording).unwrap().replace("Ada Lovelace", "Eve Mallory"),
    )
    .unwrap();
    let out = glovebox(sandbox, &home, &["replay", edited.to_str().unwrap(), "--yes"]);
    assert_ne!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("COMPUTER_INVALID_ARGUMENT")
            && said.contains("line 2")
            && said.contains("changed after it was made"),
        "{said}"
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    let state = untouched.state().unwrap();
    assert_eq!(
        (&state["values"]["name"], &state["clicks"]["submit"]),
        (&Value::from(""), &Value::from(0)),
        "{state}"
    );

    // A recording cut short at its end — its closing line removed, or its last step with it —
    // is refused as incomplete, through the command and the MCP tool: nothing is delivered.
    let text = std::fs::read_to_string(&recording).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.last().unwrap().contains("\"glovebox_recording_end\":2"),
        "the recording ends with its closing line: {text}"
    );
    for (name, keep) in
        [("without-end.jsonl", lines.len() - 1), ("without-last-step.jsonl", lines.len() - 2)]
    {
        let cut = home.join(name);
        std::fs::write(&cut, lines[..keep].join("\n") + "\n").unwrap();
        let out = glovebox(sandbox, &home, &["replay", cut.to_str().unwrap(), "--yes"]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() != Some(0)
                && said.contains("COMPUTER_INVALID_ARGUMENT")
                && said.contains("incomplete"),
            "{name}: {said}"
        );
        let answered = mcp_replay(sandbox, &home, "accept", &cut);
        assert!(
            answered["error"] == true && answered["text"].as_str().unwrap().contains("incomplete"),
            "{name}: {answered}"
        );
        assert!(
            answered["prompts"].as_array().is_none_or(Vec::is_empty),
            "refused before anything is asked: {answered}"
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let state = untouched.state().unwrap();
    assert_eq!(
        (&state["values"]["name"], &state["clicks"]["submit"]),
        (&Value::from(""), &Value::from(0)),
        "{state}"
    );
    drop(untouched);

    // The same recording as an episode's agent: a fresh desktop of its own, judged by the form's state file.
    let specs = home.join("episode");
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::copy(&recording, specs.join("form.jsonl")).unwrap();
    let spec = format!(
        r#"instruction = "Type Ada Lovelace into the Name field and press Submit."
[[setup.apps]]
command = ["/usr/bin/python3", "{fixture}", "--title", "{title}", "--no-password"]
window = "{title}"
env = {{ GLOVEBOX_FIXTURE_STATE = "{{dir}}/state.json" }}
[agent]
kind = "recorded"
recording = "form.jsonl"
[[oracle]]
kind = "file"
path = "state.json"
text = {{ contains = "\"name\": \"Ada Lovelace\"" }}
[[oracle]]
kind = "file"
path = "state.json"
text = {{ contains = "\"submit\": 1" }}
"#,
        fixture = glovebox_testkit::sdk::repo().join("testapps/fixture_gtk3.py").display()
    );
    std::fs::write(specs.join("recorded.toml"), spec).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_glovebox"));
    command
        .args(["episode", "run"])
        .arg(specs.join("recorded.toml"))
        .arg("--out")
        .arg(home.join("episode-out"))
        .arg("--json");
    // The user's own state directory: the recording's key is there.
    command
        .env("XDG_STATE_HOME", home.join("state"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(std::process::Stdio::null());
    let out = command.output().unwrap();
    let record: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        (out.status.code(), &record["verdict"], &record["steps"]),
        (Some(0), &Value::from("passed"), &Value::from(2)),
        "{record}"
    );
    // The edited copy is refused before any desktop starts.
    std::fs::copy(&edited, specs.join("form.jsonl")).unwrap();
    let out = command.output().unwrap();
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["verdict"], "errored", "{record}");
    assert!(record["reason"].as_str().unwrap().contains("changed after it was made"), "{record}");
    std::fs::remove_dir_all(&home).unwrap();
}

/// The bound model once a replay hands over: it is told what the rest of the
/// recording did, presses the button that replaced Submit, and says done.
fn take_over(step: usize, prompt: &str) -> Value {
    match step {
        0 => {
            assert!(
                prompt.contains("at step 2 it stopped (COMPUTER_ELEMENT_NOT_FOUND)"),
                "the model hears where and why: {prompt}"
            );
            assert!(
                prompt.contains("step 2: click on push button \"Submit\""),
                "and what the rest did: {prompt}"
            );
            let send = glovebox_testkit::model::id_on_line(prompt, "\"Send\"")
                .expect("the renamed button is in the tree");
            serde_json::json!({"decision": {"kind": "action", "action": {"action": "click", "target": {"element": send}, "button": "left", "count": 1}}})
        }
        _ => serde_json::json!({"decision": {"kind": "done", "claim": "The form is submitted."}}),
    }
}

/// A newer version of the app renamed Submit: the replay sets the name, stops at the click,
/// and with --model-on-divergence the bound model does the rest; without, nothing more happens.
#[test]
fn a_diverged_replay_hands_the_rest_to_the_bound_model_only_when_asked() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker: Host = glovebox_testkit::host(sandbox, "replay-handover-looker").open();
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Handover user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    let title = unique_title("Handover form");
    let home = scratch("handover-home");
    let recording = record_form_task(sandbox, &looker, &sentinel, &home, &title, "kept");
    let newer = [AT, &["--submit-label", "Send"]].concat();

    // Without the flag: it stops at step 2 and nothing more is done.
    let plain = form_copy(sandbox, &looker, &title, &newer, Some(&sentinel));
    let (status, account) = replay(sandbox, &home, &recording);
    assert_eq!(
        (status, &account["divergence"]["step"], &account["divergence"]["code"]),
        (Some(3), &Value::from(2), &Value::from("COMPUTER_ELEMENT_NOT_FOUND")),
        "{account}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let state = plain.state().unwrap();
    assert_eq!(
        (&state["values"]["name"], &state["clicks"]["submit"]),
        (&Value::from("Ada Lovelace"), &Value::from(0)),
        "{state}"
    );
    drop(plain);

    // With it: the bound model (a scripted one on loopback) finishes the task.
    let newer_form = form_copy(sandbox, &looker, &title, &newer, Some(&sentinel));
    let before = Desktop::now(&looker, sandbox, &sentinel);
    let (base, asked) =
        glovebox_testkit::model::model_server_with(take_over, std::time::Duration::ZERO);
    let mut command = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), &home);
    command
        .args(["replay", recording.to_str().unwrap(), "--yes", "--json", "--model-on-divergence"])
        .stdin(std::process::Stdio::null());
    command.env("GLOVEBOX_ENABLED", "true").env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "");
    command
        .env("GLOVEBOX_MODEL_PROVIDER", "openai-compatible")
        .env("GLOVEBOX_MODEL_MODEL", "scripted")
        .env("GLOVEBOX_MODEL_BASE_URL", &base);
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout} / {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(
        (&said["replay"]["replayed"], &said["replay"]["divergence"]["step"]),
        (&Value::from(1), &Value::from(2)),
        "{said}"
    );
    assert_eq!(said["handed_over"]["summary"]["stop"]["reason"], "done", "{said}");
    assert_eq!(asked.lock().unwrap().len(), 2, "two model calls, after the replay's none");
    let state = newer_form.wait_state("the model's click", |s| s["clicks"]["submit"] == 1);
    assert_eq!(
        (&state["values"]["name"], &state["window_active"]),
        (&Value::from("Ada Lovelace"), &Value::from(false)),
        "{state}"
    );
    assert_eq!(
        Desktop::now(&looker, sandbox, &sentinel),
        before,
        "the user's pointer, stacking, focus and window"
    );
    std::fs::remove_dir_all(&home).unwrap();
}

/// Recorded with the default (only the length of typed text kept): without a
/// terminal the replay stops at the typing step with nothing typed; at one (a
/// pseudo-terminal from script(1)) the person is asked for the text and the
/// replay goes on with it.
#[test]
fn text_the_recording_did_not_keep_is_asked_for_at_the_terminal() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker: Host = glovebox_testkit::host(sandbox, "replay-withheld-looker").open();
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Withheld user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    let title = unique_title("Withheld form");
    let home = scratch("withheld-home");
    let recording = record_form_task(sandbox, &looker, &sentinel, &home, &title, "length");
    assert!(
        !std::fs::read_to_string(&recording).unwrap().contains("Ada Lovelace"),
        "the text itself was not kept"
    );

    let untyped = form_copy(sandbox, &looker, &title, AT, Some(&sentinel));
    let (status, account) = replay(sandbox, &home, &recording);
    assert_eq!(
        (&account["divergence"]["step"], &account["divergence"]["code"]),
        (&Value::from(1), &Value::from("COMPUTER_APPROVAL_REQUIRED")),
        "{account}"
    );
    assert_ne!(status, Some(0));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let state = untyped.state().unwrap();
    assert_eq!(
        (&state["values"]["name"], &state["clicks"]["submit"]),
        (&Value::from(""), &Value::from(0)),
        "{state}"
    );
    drop(untyped);

    let form = form_copy(sandbox, &looker, &title, AT, Some(&sentinel));
    let before = Desktop::now(&looker, sandbox, &sentinel);
    let replay_line =
        format!("{} replay {} --yes --json", env!("CARGO_BIN_EXE_glovebox"), recording.display());
    let mut command = sandbox.command_in_home("script", &home);
    command
        .args(["-qec", &replay_line, "/dev/null"])
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "");
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"Grace Hopper\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(
        terminal.contains("Step 1: when recorded, it typed 12 character(s) into")
            && terminal.contains("What should it type now?"),
        "the person is asked: {terminal}"
    );
    let json = terminal
        .lines()
        .last()
        .and_then(|l| l.find('{').map(|at| l[at..].trim().to_owned()))
        .unwrap_or_default();
    let account: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {terminal}"));
    assert_eq!((out.status.code(), &account["replayed"]), (Some(0), &Value::from(2)), "{account}");
    let state = form.wait_state("the replay with the person's text", |s| {
        s["values"]["name"] == "Grace Hopper" && s["clicks"]["submit"] == 1
    });
    assert_eq!(state["window_active"], false);
    assert_eq!(
        Desktop::now(&looker, sandbox, &sentinel),
        before,
        "the user's pointer, stacking, focus and window"
    );
    std::fs::remove_dir_all(&home).unwrap();
}

/// A dialog nobody here wrote: zenity's form, filled and confirmed once
/// through `glovebox mcp`, then replayed on a fresh zenity; the oracle is
/// what zenity prints when its OK is pressed.
#[test]
fn a_real_dialog_driven_once_is_replayed_on_a_fresh_copy_with_no_model() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let looker: Host = glovebox_testkit::host(sandbox, "replay-zenity-looker").open();
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("Replay zenity user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    let title = unique_title("Zenity replay");
    let home = scratch("zenity-home");
    let zenity = || {
        sandbox
            .command("zenity")
            .args(["--forms", "--title", &title, "--add-entry=Name"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // zenity may take the focus as it maps: the user's window is made active until it stays so.
    let settle = |dialog: glovebox_model::WindowId| {
        wait_until("the user's window focused", || {
            sentinel.keep_active();
            std::thread::sleep(std::time::Duration::from_millis(200));
            let desktop = Desktop::now(&looker, sandbox, &sentinel);
            (desktop.sentinel[4] == true && desktop.focused != Some(dialog)).then_some(desktop)
        })
    };
    let first = zenity();
    let dialog = wait_until("the dialog", || {
        looker.list_windows(Some(&title), 1).ok()?.windows.first().map(|w| w.window.id)
    });
    settle(dialog);
    drive_once_with(sandbox, &home, &title, "OK", "kept");
    let out = first.wait_with_output().unwrap();
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout).trim()),
        (Some(0), "Ada Lovelace")
    );
    let (recording, listed) = the_recording(sandbox, &home);
    assert_eq!(listed["steps"], 2, "{listed}");

    let second = zenity();
    let dialog = wait_until("the fresh dialog", || {
        looker.list_windows(Some(&title), 1).ok()?.windows.first().map(|w| w.window.id)
    });
    let before = settle(dialog);
    let (status, account) = replay(sandbox, &home, &recording);
    assert_eq!((status, account["replayed"].as_u64()), (Some(0), Some(2)), "{account}");
    let out = second.wait_with_output().unwrap();
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout).trim()),
        (Some(0), "Ada Lovelace"),
        "zenity printed what the replay typed"
    );
    let mut after = Desktop::now(&looker, sandbox, &sentinel);
    after.stacking.insert(before.stacking.iter().position(|w| *w == dialog).unwrap(), dialog);
    assert_eq!(
        after, before,
        "pointer, stacking (but the closed dialog), focus and the user's window as they were"
    );
    std::fs::remove_dir_all(&home).unwrap();
}
