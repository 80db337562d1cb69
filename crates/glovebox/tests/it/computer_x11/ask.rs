//! `glovebox run` on a terminal (under `script(1)`): the model asks the
//! person a question, the person answers on the terminal, and the model
//! reads the answer in its next turn and uses it; the fixture's own state
//! is the oracle, and the audit keeps the question and the answer.

use super::*;

/// Asks for the name, then sets what the person answered (the model must have been told it).
fn asking_script(step: usize, prompt: &str) -> Value {
    let decision = match step {
        0 => json!({"kind": "ask", "question": "Which name should I enter?"}),
        1 => {
            assert!(
                prompt.contains("the person answered: \"Grace Hopper\""),
                "the model reads the person's answer: {prompt}"
            );
            json!({"kind": "action", "action": {"action": "set_value", "target": {"element": id_on_line(prompt, "\"Name\"").expect("the Name field")}, "text": "Grace Hopper"}})
        }
        _ => json!({"kind": "done", "claim": "I entered the name the person gave."}),
    };
    json!({"decision": decision})
}

#[test]
fn glovebox_run_puts_the_models_question_to_the_person_on_the_terminal() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let target = Fixture::launch(sandbox, &unique_title("Run asks"), &["--no-password"]);
    let (base, _seen) = model_server_with(asking_script, std::time::Duration::ZERO);
    let home = scratch("run-asks");
    let line = format!(
        "{} run 'Enter the name the person wants' --max-steps 5 --json --window '{}/{}'",
        env!("CARGO_BIN_EXE_glovebox"),
        target.pid(),
        target.title
    );
    let mut child = sandbox
        .command_in_home("script", &home)
        .args(["-qec", &line, "/dev/null"])
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_MODEL_PROVIDER", "openai-compatible")
        .env("GLOVEBOX_MODEL_MODEL", "scripted")
        .env("GLOVEBOX_MODEL_BASE_URL", &base)
        .env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The answer, then "no" to keeping it out of the log.
    child.stdin.as_mut().unwrap().write_all(b"Grace Hopper\nn\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let terminal = String::from_utf8_lossy(&out.stdout);
    assert!(
        terminal.contains("The agent asks, in its own words: \"Which name should I enter?\""),
        "the person is asked on the terminal: {terminal}"
    );
    assert_eq!(out.status.code(), Some(0), "{terminal}");
    let state =
        target.wait_state("the name the person gave", |s| s["values"]["name"] == "Grace Hopper");
    assert_eq!(state["values"]["name"], "Grace Hopper");
    let audit =
        std::fs::read_to_string(home.join("state/glovebox/audit/audit.jsonl")).unwrap_or_default();
    assert!(
        audit.contains("Which name should I enter?") && audit.contains("answered: Grace Hopper"),
        "{audit}"
    );
    std::fs::remove_dir_all(&home).unwrap();
}
