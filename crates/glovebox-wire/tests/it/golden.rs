//! Golden request/response pairs for every executor against the fake
//! desktop: every GA action type, every Anthropic action of the single
//! tools, every member of the computer toolset and every Gemini
//! computer-use function, with the host actions each one delivered (global
//! points) and the exact answer. Images
//! are compared by their decoded size (`<png WxH>`), not their bytes.
//!
//! The cases live in `tests/golden/*.json`; `GLOVEBOX_BLESS=1 cargo test -p
//! glovebox-wire --test it golden` rewrites their `expect` parts, which are then
//! reviewed like code.

use base64::Engine as _;
use glovebox_host::StatedAcknowledgements;
use glovebox_model::Rect;
use glovebox_wire::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::common;
use common::{World, EDITOR};

fn options() -> ExecutorOptions {
    ExecutorOptions { ga_wait: Duration::from_millis(10), ..ExecutorOptions::default() }
}

/// Replaces image bytes by their decoded size, so goldens stay readable.
fn normalise(value: &mut Value) {
    let describe = |b64: &str| {
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).expect("base64");
        let image = glovebox_platform::image::RgbImage::decode_png(&bytes).expect("a PNG");
        format!("<png {}x{}>", image.width, image.height)
    };
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), &*v) {
                    ("image_url", Value::String(url)) => {
                        *v = json!(format!(
                            "data:image/png;base64,{}",
                            describe(url.trim_start_matches("data:image/png;base64,"))
                        ))
                    }
                    ("data", Value::String(b64)) => *v = json!(describe(b64)),
                    // Frame ids count up per process; the tests run in parallel.
                    ("message" | "text", Value::String(text)) => {
                        *v = json!(without_frame_ids(text))
                    }
                    _ => normalise(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise),
        _ => {}
    }
}

fn without_frame_ids(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("frame f") {
        out.push_str(&rest[..at + 7]);
        rest = &rest[at + 7..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        out.push_str(if digits > 0 { "N" } else { "" });
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

fn golden(file: &str, run: impl Fn(&Value) -> Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(file);
    let mut cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bless = std::env::var_os("GLOVEBOX_BLESS").is_some();
    let mut failures = vec![];
    for case in cases.iter_mut() {
        let mut actual = run(case);
        normalise(&mut actual);
        if bless {
            case["expect"] = actual;
        } else if case["expect"] != actual {
            failures.push(format!(
                "{}:\n expected {}\n actual   {}",
                case["name"], case["expect"], actual
            ));
        }
    }
    if bless {
        std::fs::write(&path, serde_json::to_string_pretty(&cases).unwrap() + "\n").unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} golden case(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Each OpenAI case: optional setup (`fresh`: no screenshot first; `budget`;
/// `move_window_to` after the screenshot; `acknowledge`: the ids the user
/// approved, else headless), the `request` item, and the expected
/// `response` or `error` plus the host actions `delivered`.
#[test]
fn openai_golden_pairs() {
    golden("openai.json", |case| {
        let name = case["name"].as_str().unwrap().replace(' ', "-");
        let world = World::new(&format!("oa-{name}"), case["budget"].as_u64().unwrap_or(50) as u32);
        let executor = OpenAiExecutor::new(world.host.clone(), options());
        if case["fresh"] != true {
            let first = executor.execute(&json!({"type": "computer_call", "call_id": "setup", "action": {"type": "screenshot"}})).unwrap();
            assert!(first.png().is_ok());
        }
        if let Some(r) = case["move_window_to"].as_array() {
            let n: Vec<i64> = r.iter().map(|v| v.as_i64().unwrap()).collect();
            world
                .desktop
                .move_window(EDITOR, Rect::new(n[0] as i32, n[1] as i32, n[2] as u32, n[3] as u32));
        }
        let result = match case["acknowledge"].as_array() {
            Some(ids) => executor.execute_with(
                &case["request"],
                Arc::new(StatedAcknowledgements(
                    ids.iter().map(|v| v.as_str().unwrap().to_owned()).collect(),
                )),
            ),
            None => executor.execute(&case["request"]),
        };
        match result {
            Ok(output) => json!({"response": output, "delivered": world.delivered()}),
            Err(e) => {
                json!({"error": e.to_json()["error"], "http_status": e.http_status(), "delivered": world.delivered()})
            }
        }
    });
}

/// Each Anthropic case: the `tool` definition and a sequence of `calls`
/// (tool_use blocks; `screenshot_first` defaults to true); the expected
/// tool_result of each and the host actions delivered.
#[test]
fn anthropic_golden_pairs() {
    golden("anthropic.json", |case| {
        let name = case["name"].as_str().unwrap().replace(' ', "-");
        let world = World::new(&format!("an-{name}"), 50);
        let executor = AnthropicExecutor::new(world.host.clone(), options());
        let tool: ToolDefinition = serde_json::from_value(case["tool"].clone()).unwrap();
        if case["screenshot_first"] != false {
            let first =
                executor.tool_result(&tool, &json!({"type": "tool_use", "id": "toolu_setup", "name": "computer", "input": {"action": "screenshot"}})).unwrap();
            assert!(!first.is_error, "{first:?}");
        }
        let results: Vec<Value> = case["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| match executor.tool_result(&tool, call) {
                Ok(result) => serde_json::to_value(result).unwrap(),
                Err(e) => json!({"refused": e}),
            })
            .collect();
        json!({"results": results, "delivered": world.delivered()})
    });
}

/// Each toolset case: the `tool` (toolset definition) and `turns`, each a
/// list of member blocks (a screenshot turn first unless `screenshot_first`
/// is false); the expected results of every turn and the host actions.
#[test]
fn anthropic_toolset_golden_pairs() {
    golden("anthropic_toolset.json", |case| {
        let name = case["name"].as_str().unwrap().replace(' ', "-");
        let world = World::new(&format!("ts-{name}"), 50);
        let executor = AnthropicExecutor::new(world.host.clone(), options());
        let toolset = ToolsetDefinition::parse(&case["tool"]).unwrap();
        if case["screenshot_first"] != false {
            let setup =
                json!({"type": "tool_use", "id": "toolu_setup", "name": "screenshot", "input": {}});
            let first = executor.run_turn(&toolset, &[setup], None).unwrap();
            assert!(!first[0].is_error, "{first:?}");
        }
        let turns: Vec<Value> = case["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|turn| match executor.run_turn(&toolset, turn.as_array().unwrap(), None) {
                Ok(results) => serde_json::to_value(results).unwrap(),
                Err(e) => json!({"refused": e}),
            })
            .collect();
        json!({"turns": turns, "delivered": world.delivered()})
    });
}

/// Each Gemini case: `calls` (functionCall objects, after a first
/// screenshot unless `screenshot_first` is false; `acknowledge`: the user
/// confirmed each call's safety decision, else headless); the expected
/// functionResponse parts and the host actions.
#[test]
fn gemini_golden_pairs() {
    golden("gemini.json", |case| {
        let name = case["name"].as_str().unwrap().replace(' ', "-");
        let world = World::new(&format!("ge-{name}"), 50);
        let executor = GeminiExecutor::new(world.host.clone(), options());
        if case["screenshot_first"] != false {
            assert!(executor.screenshot(None).is_ok());
        }
        let responses: Vec<Value> = case["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| {
                let channel: Option<Arc<dyn glovebox_host::PersonChannel>> =
                    match case["acknowledge"] == true {
                        true => Some(Arc::new(StatedAcknowledgements(vec![call["id"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned()]))),
                        false => None,
                    };
                executor.function_response(call, channel)
            })
            .collect();
        json!({"responses": responses, "delivered": world.delivered()})
    });
}
