//! The loop's decision parser fuzzed with what models actually send (see
//! glovebox-fuzz): valid decisions mutated, cut short, wrapped in prose,
//! nested deeply, made huge, with planted instructions. Each answer is a
//! `COMPUTER_MODEL_SCHEMA_VIOLATION` or a decision inside the schema:
//! an action that reads back as itself, a bounded single-line claim or
//! question, never a panic.

use glovebox_agent::decision::{parse, Decision, MAX_MODEL_TEXT};
use glovebox_fuzz::{mutate, raw, run, Budget};
use glovebox_model::{Action, ErrorCode};
use serde_json::json;

#[test]
fn fuzz_model_decisions() {
    let seeds = [
        json!({"decision": {"kind": "action", "action": {"action": "click", "target": {"element": "e4"}, "button": "left", "count": 1}}}),
        json!({"decision": {"kind": "action", "action": {"action": "type", "text": "hello"}}}),
        json!({"decision": {"kind": "action", "action": {"action": "scroll", "target": {"point": {"x": 3, "y": 4}}, "dx": 0, "dy": 2, "modifiers": ["shift"]}}}),
        json!({"decision": {"kind": "action", "action": {"action": "key", "combo": "ctrl+s", "repeat": 1}}}),
        json!({"decision": {"kind": "switch", "window": "4280/0x1e00003"}}),
        json!({"decision": {"kind": "done", "claim": "The form is submitted."}}),
        json!({"decision": {"kind": "ask", "question": "Which account?"}}),
    ];
    let generate = |rng: &mut glovebox_fuzz::Rng| {
        let seed = rng.pick(&seeds);
        let value = if rng.chance(5) { seed.clone() } else { mutate(rng, seed) };
        raw(rng, &value)
    };
    run("model decisions", Budget::from_env(glovebox_fuzz::DEFAULT_CASES), generate, |answer| {
        match parse(answer) {
            Err(refusal) if refusal.code == ErrorCode::ModelSchemaViolation => Ok(()),
            Err(refusal) => {
                Err(format!("refused with {}, not COMPUTER_MODEL_SCHEMA_VIOLATION", refusal.code))
            }
            Ok(Decision::Act { action, .. }) => {
                let written = serde_json::to_value(&action).map_err(|e| e.to_string())?;
                match serde_json::from_value::<Action>(written) {
                    Ok(again) if again == action => Ok(()),
                    other => Err(format!("{action:?} reads back as {other:?}")),
                }
            }
            Ok(
                Decision::Done { claim: text }
                | Decision::Ask { question: text }
                | Decision::Switch { window: text },
            ) => {
                if text.chars().count() > MAX_MODEL_TEXT + 1 || text.chars().any(char::is_control) {
                    Err(format!(
                        "model text kept unbounded or with control characters: {:?}",
                        text.chars().take(80).collect::<String>()
                    ))
                } else {
                    Ok(())
                }
            }
        }
    });
}
