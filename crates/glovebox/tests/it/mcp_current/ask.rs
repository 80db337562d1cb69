//! `ask_user` through the official MCP Python SDK in its connect modes: the
//! person's answer (through the client's elicitation callback) comes back
//! to the agent; a declined question is refused; a private answer never
//! reaches the audit, while the question and that it was answered do.

use super::*;

/// `testapps/sdk_mcp_ask.py MODE REPLY QUESTION CHOICES` against `glovebox mcp`: its report.
fn ask(
    sandbox: &Sandbox,
    home: &Path,
    mode: &str,
    reply: &str,
    question: &str,
    choices: &str,
) -> Value {
    let mut command = sandbox.command_in_home(sdk_python(), home);
    let output = command
        .arg(repo().join("testapps/sdk_mcp_ask.py"))
        .args([mode, reply, question, choices, env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("GLOVEBOX_ENABLED", "true")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(printed.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {printed}"))
}

#[test]
fn ask_user_reaches_the_person_through_the_client_in_every_mode() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("ask");
    let audit = || {
        std::fs::read_to_string(home.join("state/glovebox/audit/audit.jsonl")).unwrap_or_default()
    };
    for mode in ["auto", "2026-07-28", "legacy"] {
        let answered =
            ask(sandbox, &home, mode, "answer:Work", "Which account should I use?", "Work,Home");
        assert_eq!(answered["error"], false, "{mode}: {answered}");
        assert_eq!(answered["text"], "The person answered: Work", "{mode}: {answered}");
        let prompt = answered["prompts"][0].as_str().unwrap();
        assert!(
            prompt.contains("The agent asks, in its own words: \"Which account should I use?\"")
                && prompt.contains("\"Work\" / \"Home\""),
            "{mode}: {prompt}"
        );
    }
    // A code kept private: the agent gets it, the audit only that it was answered.
    let private =
        ask(sandbox, &home, "auto", "private:493 117", "The code the bank texted you?", "-");
    assert_eq!(private["text"], "The person answered: 493 117", "{private}");
    let trail = audit();
    assert!(trail.contains("The code the bank texted you?"), "the question is audited");
    assert!(trail.contains("kept the answer private"), "{trail}");
    assert!(!trail.contains("493 117"), "a private answer reached the audit");
    assert!(trail.contains("answered: Work"), "an answer not kept private is audited");
    // Declined, and an answer outside the choices: refused, said so.
    let declined = ask(sandbox, &home, "auto", "decline", "Shall I pay?", "-");
    assert_eq!(declined["error"], true);
    assert!(declined["text"].as_str().unwrap().contains("COMPUTER_APPROVAL_DENIED"), "{declined}");
    let outside = ask(sandbox, &home, "legacy", "answer:Neither", "Which account?", "Work,Home");
    assert_eq!(outside["error"], true);
    assert!(outside["text"].as_str().unwrap().contains("not one of the choices"), "{outside}");
    // A question out of bounds never reaches the person.
    let empty = ask(sandbox, &home, "auto", "answer:x", " ", "-");
    assert_eq!(
        (&empty["error"], empty["prompts"].as_array().unwrap().len()),
        (&Value::Bool(true), 0)
    );
    std::fs::remove_dir_all(&home).unwrap();
}
