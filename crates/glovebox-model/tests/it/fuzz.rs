//! Fuzzed parsers of glovebox-model (see glovebox-fuzz): key combos, window
//! ids, modifier lists, actions and waits as a model or client writes them.
//! Every input is a typed refusal or a value that survives its own round
//! trip; none panics or hangs.

use glovebox_fuzz::{mutate, run, text, Budget, Rng};
use glovebox_model::{Action, ErrorCode, KeyCombo, Modifiers, WaitFor, WindowRef};
use serde_json::{json, Value};

fn invalid_argument(code: ErrorCode, what: &str) -> Result<(), String> {
    if code == ErrorCode::InvalidArgument {
        Ok(())
    } else {
        Err(format!("{what} refused with {code}, not COMPUTER_INVALID_ARGUMENT"))
    }
}

#[test]
fn fuzz_key_combos() {
    run("key combos", Budget::from_env(glovebox_fuzz::DEFAULT_CASES), text, |input| {
        match KeyCombo::parse(input) {
            Err(refusal) => invalid_argument(refusal.code, "a combo"),
            Ok(combo) => match KeyCombo::parse(&combo.to_string()) {
                Ok(again) if again == combo => Ok(()),
                other => Err(format!(
                    "{input:?} parsed as {combo:?}, written {:?}, which reads back as {other:?}",
                    combo.to_string()
                )),
            },
        }
    });
}

#[test]
fn fuzz_modifier_lists() {
    run("modifier lists", Budget::from_env(glovebox_fuzz::DEFAULT_CASES), text, |input| {
        match Modifiers::parse(input) {
            Err(refusal) => invalid_argument(refusal.code, "modifiers"),
            Ok(held) => match Modifiers::parse(&held.to_string()) {
                Ok(again) if again == held => Ok(()),
                other => {
                    Err(format!("{input:?} parsed as {held:?}, which reads back as {other:?}"))
                }
            },
        }
    });
}

#[test]
fn fuzz_window_ids() {
    let generate = |rng: &mut Rng| match rng.below(3) {
        0 => format!("{}/{}", rng.below(100_000), text(rng)),
        1 => format!(
            "{}/0x{:x}",
            rng.below(u64::from(u32::MAX) * 2),
            rng.next_u64() >> rng.below(64)
        ),
        _ => text(rng),
    };
    run("window ids", Budget::from_env(glovebox_fuzz::DEFAULT_CASES), generate, |input| {
        match input.parse::<WindowRef>() {
            Err(refusal) => invalid_argument(refusal.code, "a window id"),
            Ok(window) => match window.to_string().parse::<WindowRef>() {
                Ok(again) if again == window => Ok(()),
                other => {
                    Err(format!("{input:?} parsed as {window:?}, which reads back as {other:?}"))
                }
            },
        }
    });
}

/// Valid actions of every kind, the seeds the mutations start from.
fn actions() -> Vec<Value> {
    vec![
        json!({"action": "click", "target": {"element": "e4"}, "button": "left", "count": 1}),
        json!({"action": "click", "target": {"point": {"x": 10, "y": 20}}, "button": "back", "count": 2, "modifiers": ["ctrl"]}),
        json!({"action": "move", "target": {"point": {"x": 1, "y": 2}}}),
        json!({"action": "drag", "from": {"element": "e1"}, "to": {"point": {"x": 5, "y": 6}}, "modifiers": ["alt"]}),
        json!({"action": "scroll", "target": {"element": "e3"}, "dx": 0, "dy": 3}),
        json!({"action": "type", "text": "hello"}),
        json!({"action": "set_value", "target": {"element": "e2"}, "text": "Ada"}),
        json!({"action": "key", "combo": "ctrl+s", "repeat": 1}),
        json!({"action": "select", "target": {"element": "e9"}, "option": "Blue"}),
    ]
}

#[test]
fn fuzz_actions() {
    let seeds = actions();
    run(
        "actions",
        Budget::from_env(glovebox_fuzz::DEFAULT_CASES),
        |rng| {
            let seed = rng.pick(&seeds);
            mutate(rng, seed)
        },
        |input| {
            let Ok(action) = serde_json::from_value::<Action>(input.clone()) else { return Ok(()) };
            if let Err(refusal) = action.validate() {
                return invalid_argument(refusal.code, "an action");
            }
            let written = serde_json::to_value(&action)
                .map_err(|e| format!("{action:?} does not serialise: {e}"))?;
            match serde_json::from_value::<Action>(written.clone()) {
                Ok(again) if again == action => Ok(()),
                other => Err(format!("{action:?} written as {written} reads back as {other:?}")),
            }
        },
    );
}

#[test]
fn fuzz_waits() {
    let seeds = [
        json!({"seconds": 1.5}),
        json!({"until": {"condition": "appear", "query": {"role": "push button", "name": "OK"}, "timeout_secs": 2}}),
    ];
    run(
        "waits",
        Budget::from_env(glovebox_fuzz::DEFAULT_CASES),
        |rng| {
            let seed = rng.pick(&seeds);
            mutate(rng, seed)
        },
        |input| match serde_json::from_value::<WaitFor>(input.clone()) {
            Ok(wait) => wait.validate().or_else(|r| invalid_argument(r.code, "a wait")),
            Err(_) => Ok(()),
        },
    );
}
