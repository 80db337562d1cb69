//! Every executor fuzzed with what a model or client can send (see
//! glovebox-fuzz), on the fake desktop: OpenAI `computer_call` items,
//! Anthropic `tool_use` blocks for every single-tool version, toolset
//! turns, Gemini function calls. Each input ends in the provider's result
//! shape or a `COMPUTER_*` refusal, never a panic or a hang, and whatever
//! is delivered lands inside the bound window.

use crate::common;

use common::World;
use glovebox_fuzz::{mutate, run, Budget, Rng};
use glovebox_model::Rect;
use glovebox_platform::ResolvedTarget;
use glovebox_wire::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A small window keeps each screenshot cheap.
const WINDOW: Rect = Rect { x: 100, y: 100, width: 64, height: 48 };
const CASES: u64 = glovebox_fuzz::DEFAULT_CASES;

fn world(name: &str) -> World {
    World::sized(&format!("fuzz-{name}"), 1_000_000, WINDOW)
}

fn options() -> ExecutorOptions {
    ExecutorOptions { ga_wait: Duration::from_millis(1), ..ExecutorOptions::default() }
}

/// Some cases got through to the desktop: the fuzz reached the host, not only the parsers.
fn reached(world: &World, what: &str) {
    let delivered = world.desktop.delivered.lock().unwrap().len();
    println!("fuzz {what}: {delivered} actions delivered inside the window");
    assert!(delivered > 0, "no case of {what} reached the desktop");
}

/// Everything delivered since `seen` landed inside the window.
fn inside(world: &World, seen: &mut usize) -> Result<(), String> {
    let delivered = world.desktop.delivered.lock().unwrap();
    for (_, action, targets, _) in delivered.iter().skip(*seen) {
        for target in targets {
            if let ResolvedTarget::Global { at, .. } = target {
                let (x, y) = (at.x - WINDOW.x, at.y - WINDOW.y);
                if x < 0 || y < 0 || x >= WINDOW.width as i32 || y >= WINDOW.height as i32 {
                    return Err(format!(
                        "{action:?} was delivered at {at:?}, outside the window {WINDOW:?}"
                    ));
                }
            }
        }
    }
    *seen = delivered.len();
    Ok(())
}

fn coded(text: &str) -> Result<(), String> {
    if text.starts_with("COMPUTER_") {
        Ok(())
    } else {
        Err(format!("a refusal without its code: {text:?}"))
    }
}

fn pick_mutated(rng: &mut Rng, seeds: &[Value]) -> Value {
    let seed = rng.pick(seeds);
    if rng.chance(6) {
        seed.clone()
    } else {
        mutate(rng, seed)
    }
}

#[test]
fn fuzz_openai_computer_calls() {
    let world = world("openai");
    let executor = OpenAiExecutor::new(world.host.clone(), options());
    let call = |actions: Value| json!({"type": "computer_call", "call_id": "call_1", "actions": actions, "pending_safety_checks": []});
    let seeds = [
        call(json!([{"type": "screenshot"}])),
        call(
            json!([{"type": "click", "x": 10, "y": 10, "button": "left"}, {"type": "type", "text": "hi"}]),
        ),
        call(
            json!([{"type": "double_click", "x": 5, "y": 5, "keys": ["SHIFT"]}, {"type": "keypress", "keys": ["CTRL", "A"]}]),
        ),
        call(
            json!([{"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 30, "y": 20}]}, {"type": "move", "x": 3, "y": 4}]),
        ),
        call(
            json!([{"type": "scroll", "x": 10, "y": 10, "scroll_x": 0, "scroll_y": 300}, {"type": "wait"}]),
        ),
        json!({"type": "computer_call", "call_id": "c", "action": {"type": "click", "x": 1, "y": 1, "button": "back"}, "pending_safety_checks": [{"id": "cu_sc_1", "code": "x"}]}),
    ];
    let mut seen = 0;
    let counted = std::cell::RefCell::new(&mut seen);
    run(
        "openai computer_call",
        Budget::from_env(CASES),
        |rng| pick_mutated(rng, &seeds),
        |item| {
            match executor.execute(item) {
                Ok(output) => {
                    output.png().map_err(|e| format!("an output without its PNG: {e}"))?;
                }
                Err(e) => coded(&e.refusal.to_string())?,
            }
            inside(&world, &mut counted.borrow_mut())
        },
    );
    reached(&world, "openai computer_call");
}

#[test]
fn fuzz_anthropic_single_tool_blocks() {
    let world = world("anthropic");
    let executor = AnthropicExecutor::new(world.host.clone(), options());
    let tools: Vec<ToolDefinition> = ["computer_20241022", "computer_20250124", "computer_20251124"]
        .iter()
        .map(|v| serde_json::from_value(json!({"type": v, "name": "computer", "display_width_px": 128, "display_height_px": 96, "enable_zoom": true})).unwrap())
        .collect();
    let block = |input: Value| json!({"type": "tool_use", "id": "toolu_1", "name": "computer", "input": input});
    let seeds = [
        block(json!({"action": "screenshot"})),
        block(json!({"action": "left_click", "coordinate": [10, 10], "text": "ctrl"})),
        block(
            json!({"action": "scroll", "coordinate": [10, 10], "scroll_direction": "down", "scroll_amount": 3}),
        ),
        block(
            json!({"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [40, 30]}),
        ),
        block(json!({"action": "key", "text": "ctrl+a Delete"})),
        block(json!({"action": "zoom", "region": [0, 0, 20, 20]})),
        block(json!({"action": "left_mouse_down", "coordinate": [3, 3]})),
        block(json!({"action": "left_mouse_up", "coordinate": [9, 9]})),
        block(json!({"action": "wait", "duration": 0})),
        block(json!({"action": "cursor_position"})),
    ];
    let mut seen = 0;
    let counted = std::cell::RefCell::new(&mut seen);
    let generate =
        |rng: &mut Rng| (rng.below(tools.len() as u64) as usize, pick_mutated(rng, &seeds));
    run("anthropic tool_use", Budget::from_env(CASES), generate, |(version, block)| {
        match executor.tool_result(&tools[*version], block) {
            Ok(result) if result.is_error => match &result.content[..] {
                [ContentBlock::Text { text }] => coded(text)?,
                other => return Err(format!("an error result that is not one text: {other:?}")),
            },
            Ok(_) => {}
            Err(refusal) => coded(&refusal.to_string())?,
        }
        inside(&world, &mut counted.borrow_mut())
    });
    reached(&world, "anthropic tool_use");
}

#[test]
fn fuzz_anthropic_toolset_turns() {
    let world = world("toolset");
    let executor = AnthropicExecutor::new(world.host.clone(), options());
    let member = |id: &str, name: &str, input: Value| json!({"type": "tool_use", "id": id, "name": name, "toolset_name": "computer", "input": input});
    let turn_seeds = [
        json!([member("a", "screenshot", json!({}))]),
        json!([
            member("a", "left_click", json!({"coordinate": [10, 10], "text": "shift"})),
            member("b", "type", json!({"text": "x"}))
        ]),
        json!([
            member("a", "key", json!({"text": "Return", "repeat": 3})),
            member("b", "zoom", json!({"region": [0, 0, 8, 8]}))
        ]),
        json!([
            member(
                "a",
                "scroll",
                json!({"coordinate": [5, 5], "scroll_direction": "left", "scroll_amount": 2})
            ),
            member("b", "cursor_position", json!({}))
        ]),
        json!([
            member("a", "left_mouse_down", json!({})),
            member("b", "left_mouse_up", json!({"coordinate": [20, 20]})),
            member("c", "hold_key", json!({"text": "a", "duration": 1}))
        ]),
    ];
    let toolsets = [
        json!({"type": "computer_toolset_20260801"}),
        json!({"type": "computer_toolset_20260801", "configs": {"zoom": {"enabled": false}, "type": {"enabled": false}}}),
    ];
    let mut seen = 0;
    let counted = std::cell::RefCell::new(&mut seen);
    let generate = |rng: &mut Rng| (pick_mutated(rng, &toolsets), pick_mutated(rng, &turn_seeds));
    run("anthropic toolset turns", Budget::from_env(CASES), generate, |(definition, turn)| {
        let Ok(toolset) = ToolsetDefinition::parse(definition) else { return Ok(()) };
        let blocks = match turn {
            Value::Array(blocks) => blocks.clone(),
            one => vec![one.clone()],
        };
        match executor.run_turn(&toolset, &blocks, None) {
            Ok(results) if results.len() != blocks.len() => {
                return Err(format!("{} blocks got {} results", blocks.len(), results.len()))
            }
            Ok(results) => {
                for result in results.iter().filter(|r| r.is_error) {
                    match &result.content[..] {
                        [ContentBlock::Text { text }] => coded(text)?,
                        other => {
                            return Err(format!("an error result that is not one text: {other:?}"))
                        }
                    }
                }
            }
            Err(refusal) => coded(&refusal.to_string())?,
        }
        inside(&world, &mut counted.borrow_mut())
    });
    reached(&world, "anthropic toolset turns");
}

#[test]
fn fuzz_gemini_function_calls() {
    let world = world("gemini");
    let executor = GeminiExecutor::new(world.host.clone(), options());
    executor.screenshot(None).unwrap();
    let seeds = [
        json!({"name": "click_at", "args": {"x": 500, "y": 500}}),
        json!({"name": "type_text_at", "args": {"x": 100, "y": 900, "text": "Ada", "press_enter": true, "clear_before_typing": false}}),
        json!({"name": "scroll_at", "args": {"x": 10, "y": 10, "direction": "up", "magnitude": 999}}),
        json!({"name": "drag_and_drop", "args": {"x": 1, "y": 1, "destination_x": 998, "destination_y": 998}}),
        json!({"name": "key_combination", "args": {"keys": "Control+Shift+T"}}),
        json!({"name": "hover_at", "id": "c1", "args": {"x": 3, "y": 4, "safety_decision": {"decision": "require_confirmation", "explanation": "?"}}}),
        json!({"name": "go_back", "args": {}}),
        json!({"name": "scroll_document", "args": {"direction": "down"}}),
    ];
    let mut seen = 0;
    let counted = std::cell::RefCell::new(&mut seen);
    run(
        "gemini function calls",
        Budget::from_env(CASES),
        |rng| pick_mutated(rng, &seeds),
        |call| {
            let answer = executor.function_response(call, None);
            let part = answer
                .get("functionResponse")
                .ok_or_else(|| format!("not a functionResponse part: {answer}"))?;
            if let Some(error) = part.pointer("/response/error") {
                coded(error.as_str().unwrap_or_default())?;
            }
            if call.pointer("/args/safety_decision/decision")
                == Some(&json!("require_confirmation"))
                && part.pointer("/response/error").is_none()
            {
                return Err("a call that asked for confirmation ran headless".into());
            }
            inside(&world, &mut counted.borrow_mut())
        },
    );
    reached(&world, "gemini function calls");
}
