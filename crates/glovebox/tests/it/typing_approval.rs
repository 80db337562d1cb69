//! One rule for typed text, end to end through the official MCP Python
//! SDK in its default mode (`testapps/sdk_mcp_typing.py`): an agent types a
//! PIN into the Tk fixture's Name field (Tk exposes no accessibility tree,
//! so glovebox cannot tell a PIN field from another) by a batch, by
//! `type`, and one `key` at a time, with a person who declines every
//! question about typing. Every question shows the PIN and why it asks;
//! the field, as the fixture reports it, never holds a character, in the
//! default mode and in `custom` with input allowed.
#![cfg(target_os = "linux")]

use glovebox_sandbox::fixture::{unique_title, wait_until};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::Reaped;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;

const PIN: &str = "4321";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-typing-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The Tk fixture titled `title`, reporting to `state`, once glovebox lists it.
fn tk(sandbox: &Sandbox, title: &str, state: &Path) -> Reaped {
    let child = sandbox
        .command("/usr/bin/python3")
        .arg(repo().join("testapps/fixture_tk.py"))
        .args([title, state.to_str().unwrap(), "--x", "60", "--y", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the Tk fixture");
    let child = Reaped(child);
    wait_until("the Tk fixture's first report", || std::fs::metadata(state).ok());
    child
}

fn client(sandbox: &Sandbox, home: &Path, task: &str, title: &str, env: &[(&str, &str)]) -> Value {
    let python = repo().join("target/sdk-venv/bin/python");
    assert!(python.exists(), "run `bash .ci/install-deps` (the pinned SDK clients)");
    let out = sandbox
        .command_in_home(python, home)
        .arg(repo().join("testapps/sdk_mcp_typing.py"))
        .args([task, title, PIN, env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("GLOVEBOX_ENABLED", "true")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    glovebox_testkit::sdk::report_of(&out)
}

fn fixture_state(state: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap()
}

/// The questions of `report` that were about entering text.
fn typing_questions(report: &Value) -> Vec<String> {
    report["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|q| q.contains("entering"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_pin_typed_by_batch_by_type_or_key_by_key_is_shown_and_held_until_approved() {
    let sandbox = Sandbox::shared(module_path!());
    for (task, mode) in
        [("batch", "write"), ("batch", "custom"), ("keys", "write"), ("keys", "custom")]
    {
        let home = scratch(&format!("{task}-{mode}"));
        let title = unique_title(&format!("typing {task} {mode}"));
        let state = home.join("tk.json");
        let app = tk(sandbox, &title, &state);
        // `custom` with input allowed: the looser mode asks no less.
        let report = client(
            sandbox,
            &home,
            task,
            &title,
            &[("GLOVEBOX_APPROVAL_MODE", mode), ("GLOVEBOX_APPROVAL_INPUT", "allow")],
        );
        assert!(report["field"].is_string(), "{task}/{mode}: the field was seen: {report}");
        let asked = typing_questions(&report);
        let expected = if task == "batch" { 1 } else { 1 + PIN.len() };
        assert_eq!(asked.len(), expected, "{task}/{mode}: {asked:#?}");
        for question in &asked {
            assert!(
                question.contains("does not say which of its fields is a password field"),
                "{task}/{mode}: {question}"
            );
        }
        assert!(asked[0].contains(&format!(": \"{PIN}\"")), "{task}/{mode}: {}", asked[0]);
        for (digit, question) in PIN.chars().zip(asked.iter().skip(1)) {
            assert!(question.contains(&format!(": \"{digit}\"")), "{task}/{mode}: {question}");
        }
        // The oracle: the field the fixture reports never held a character, no key reached it.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let now = fixture_state(&state);
        assert_eq!(now["values"]["name"], "", "{task}/{mode}: {now}");
        assert_eq!(now["keys"], 0, "{task}/{mode}: {now}");
        drop(app);
    }
    // The control: approved, the same batch puts the PIN into the field.
    let home = scratch("accepted");
    let title = unique_title("typing accepted");
    let state = home.join("tk.json");
    let app = tk(sandbox, &title, &state);
    let report = client(sandbox, &home, "batch", &title, &[("ACCEPT", "1")]);
    assert_eq!(typing_questions(&report).len(), 1, "{report}");
    wait_until("the PIN in the field", || {
        (fixture_state(&state)["values"]["name"] == PIN).then_some(())
    });
    drop(app);
}
