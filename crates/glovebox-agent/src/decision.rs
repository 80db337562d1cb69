//! The decision a model must answer with (DESIGN.md §6 step 2): exactly one
//! of an action, a window switch, done, or a question, under a strict JSON
//! schema. Parsing is strict too: unknown fields, missing fields and wrong
//! types are `COMPUTER_MODEL_SCHEMA_VIOLATION`, never a best guess.

use glovebox_model::{Action, Button, ElementId, ErrorCode, Point, Refusal, Target};
use serde::Deserialize;
use serde_json::{json, Value};

/// Longest question or claim kept from a model's answer.
pub const MAX_MODEL_TEXT: usize = 500;

/// One parsed decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Act(Action),
    /// Bind the grant to another window (a `pid/xid` id from the list).
    Switch {
        window: String,
    },
    /// The model believes the task is finished. Its claim is recorded in
    /// the trajectory; the summary is built from what the loop saw.
    Done {
        claim: String,
    },
    /// The model needs the caller to answer something first.
    Ask {
        question: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    decision: Wire,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Wire {
    Action { action: WireAction },
    Switch { window: String },
    Done { claim: String },
    Ask { question: String },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum WireAction {
    Click { target: WireTarget, button: Button, count: u8 },
    Move { target: WireTarget },
    Drag { from: WireTarget, to: WireTarget },
    Scroll { target: WireTarget, dx: i32, dy: i32 },
    Type { text: String },
    SetValue { target: WireTarget, text: String },
    Key { combo: String, repeat: u8 },
    Select { target: WireTarget, option: String },
}

#[derive(Deserialize)]
#[serde(untagged)]
enum WireTarget {
    Element(ElementTarget),
    Point(PointTarget),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ElementTarget {
    element: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointTarget {
    x: i32,
    y: i32,
}

fn violation(message: impl Into<String>) -> Refusal {
    Refusal::new(ErrorCode::ModelSchemaViolation, message)
}

fn target(t: WireTarget) -> Result<Target, Refusal> {
    match t {
        WireTarget::Element(e) => e.element.parse::<ElementId>().map(Target::Element).map_err(|r| violation(r.message)),
        WireTarget::Point(p) => Ok(Target::Point(Point { x: p.x, y: p.y })),
    }
}

/// Model text kept for records: one line, at most [`MAX_MODEL_TEXT`] characters.
pub(crate) fn bounded(text: &str) -> String {
    let single_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    match single_line.char_indices().nth(MAX_MODEL_TEXT) {
        Some((cut, _)) => format!("{}…", &single_line[..cut]),
        None => single_line,
    }
}

/// Parses a model's raw answer. Anything outside the schema is refused
/// with the reason, so the model can be told what was wrong.
pub fn parse(raw: &str) -> Result<Decision, Refusal> {
    let envelope: Envelope = serde_json::from_str(raw.trim()).map_err(|e| {
        let shown: String = raw.chars().take(120).collect();
        violation(format!("the answer is not a decision under the schema ({e}); it began {shown:?}"))
    })?;
    Ok(match envelope.decision {
        Wire::Switch { window } => Decision::Switch { window },
        Wire::Done { claim } => Decision::Done { claim: bounded(&claim) },
        Wire::Ask { question } if question.trim().is_empty() => return Err(violation("an ask needs a question")),
        Wire::Ask { question } => Decision::Ask { question: bounded(&question) },
        Wire::Action { action } => Decision::Act(match action {
            WireAction::Click { target: t, button, count } => Action::Click { target: target(t)?, button, count },
            WireAction::Move { target: t } => Action::Move { target: target(t)? },
            WireAction::Drag { from, to } => Action::Drag { from: target(from)?, to: target(to)? },
            WireAction::Scroll { target: t, dx, dy } => Action::Scroll { target: target(t)?, dx, dy },
            WireAction::Type { text } => Action::Type { text },
            WireAction::SetValue { target: t, text } => Action::SetValue { target: target(t)?, text },
            WireAction::Key { combo, repeat } => Action::Key { combo, repeat },
            WireAction::Select { target: t, option } => Action::Select { target: target(t)?, option },
        }),
    })
}

fn object(required: &[&str], properties: Value) -> Value {
    json!({"type": "object", "additionalProperties": false, "required": required, "properties": properties})
}

fn kind(name: &str) -> Value {
    json!({"type": "string", "enum": [name]})
}

/// The strict JSON schema of a decision. Every property is required and
/// no other is allowed (OpenAI's strict mode), variants are `anyOf` below
/// the root object.
pub fn schema() -> Value {
    let target = json!({
        "description": "An element id from the newest observation (preferred), or a point in the newest screenshot's pixels.",
        "anyOf": [
            object(&["element"], json!({"element": {"type": "string", "description": "An id shown as @e12 in the tree."}})),
            object(&["x", "y"], json!({"x": {"type": "integer"}, "y": {"type": "integer"}})),
        ]
    });
    let text = |what: &str| json!({"type": "string", "description": what});
    let action = |name: &str, required: &[&str], mut properties: Value| {
        properties["type"] = kind(name);
        let mut all = vec!["type"];
        all.extend_from_slice(required);
        object(&all, properties)
    };
    let actions = json!([
        action(
            "click",
            &["target", "button", "count"],
            json!({"target": target, "button": {"type": "string", "enum": ["left", "right", "middle"]}, "count": {"type": "integer", "description": "1 to 3"}})
        ),
        action("move", &["target"], json!({"target": target})),
        action("drag", &["from", "to"], json!({"from": target, "to": target})),
        action(
            "scroll",
            &["target", "dx", "dy"],
            json!({"target": target, "dx": {"type": "integer"}, "dy": {"type": "integer", "description": "wheel steps, -100 to 100; positive scrolls down"}})
        ),
        action("type", &["text"], json!({"text": text("typed at the caret of the focused field")})),
        action("set_value", &["target", "text"], json!({"target": target, "text": text("replaces the whole value of the field")})),
        action(
            "key",
            &["combo", "repeat"],
            json!({"combo": text("a key or chord such as Enter, ctrl+a, shift+Tab"), "repeat": {"type": "integer", "description": "1 to 20"}})
        ),
        action("select", &["target", "option"], json!({"target": target, "option": text("the option's visible name")})),
    ]);
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["decision"],
        "properties": {"decision": {"anyOf": [
            object(&["kind", "action"], json!({"kind": kind("action"), "action": {"anyOf": actions}})),
            object(&["kind", "window"], json!({"kind": kind("switch"), "window": text("a window id (pid/xid) from the window list")})),
            object(&["kind", "claim"], json!({"kind": kind("done"), "claim": text("what you believe is now achieved, in one sentence")})),
            object(&["kind", "question"], json!({"kind": kind("ask"), "question": text("what you need the user to answer before going on")})),
        ]}}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_parses() {
        let click = parse(r#"{"decision":{"kind":"action","action":{"type":"click","target":{"element":"@e4"},"button":"left","count":1}}}"#).unwrap();
        assert_eq!(click, Decision::Act(Action::Click { target: Target::Element(ElementId(4)), button: Button::Left, count: 1 }));
        let at = parse(r#"{"decision":{"kind":"action","action":{"type":"set_value","target":{"x":3,"y":9},"text":"hi"}}}"#).unwrap();
        assert_eq!(at, Decision::Act(Action::SetValue { target: Target::Point(Point { x: 3, y: 9 }), text: "hi".into() }));
        assert_eq!(parse(r#"{"decision":{"kind":"switch","window":"12/0x400001"}}"#).unwrap(), Decision::Switch { window: "12/0x400001".into() });
        assert_eq!(parse(r#" {"decision":{"kind":"done","claim":"ok"}} "#).unwrap(), Decision::Done { claim: "ok".into() });
        assert_eq!(parse(r#"{"decision":{"kind":"ask","question":"Which file?"}}"#).unwrap(), Decision::Ask { question: "Which file?".into() });
    }

    #[test]
    fn anything_outside_the_schema_is_a_violation() {
        for raw in [
            "",
            "I clicked the button.",
            "{}",
            r#"{"decision":{"kind":"done","claim":"x"},"extra":1}"#,
            r#"{"decision":{"kind":"done","claim":"x","also":"y"}}"#,
            r#"{"decision":{"kind":"done"}}"#,
            r#"{"decision":{"kind":"fly"}}"#,
            r#"{"decision":{"kind":"action","action":{"type":"click","target":{"element":"@e4"},"button":"left"}}}"#,
            r#"{"decision":{"kind":"action","action":{"type":"click","target":{"element":"@e4","x":1},"button":"left","count":1}}}"#,
            r#"{"decision":{"kind":"action","action":{"type":"click","target":{"element":"button 4"},"button":"left","count":1}}}"#,
            r#"{"decision":{"kind":"action","action":{"type":"click","target":{"x":1.5,"y":2},"button":"left","count":1}}}"#,
            r#"{"decision":{"kind":"action","action":{"type":"click","target":{"x":1,"y":2},"button":"left","count":-1}}}"#,
            r#"{"decision":{"kind":"ask","question":"  "}}"#,
            r#"[{"decision":{"kind":"done","claim":"x"}}]"#,
        ] {
            let refused = parse(raw).expect_err(raw);
            assert_eq!(refused.code, ErrorCode::ModelSchemaViolation, "{raw}: {refused}");
        }
    }

    #[test]
    fn model_text_is_bounded_and_single_line() {
        let long = "a\nb".repeat(400);
        let Decision::Ask { question } = parse(&json!({"decision": {"kind": "ask", "question": long}}).to_string()).unwrap() else { panic!() };
        assert!(!question.contains('\n'));
        assert_eq!(question.chars().count(), MAX_MODEL_TEXT + 1);
    }

    /// OpenAI's strict mode: every object lists all its properties as
    /// required and forbids others.
    #[test]
    fn schema_is_strict_everywhere() {
        fn check(v: &Value, path: &str) {
            if let Some(map) = v.as_object() {
                if map.get("type") == Some(&json!("object")) {
                    let props: Vec<&String> = map["properties"].as_object().unwrap().keys().collect();
                    let required: Vec<&str> = map["required"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
                    assert_eq!(map["additionalProperties"], json!(false), "{path}");
                    assert_eq!(props.len(), required.len(), "{path}");
                    assert!(props.iter().all(|p| required.contains(&p.as_str())), "{path}");
                }
                for (k, child) in map {
                    check(child, &format!("{path}/{k}"));
                }
            } else if let Some(items) = v.as_array() {
                for (i, child) in items.iter().enumerate() {
                    check(child, &format!("{path}/{i}"));
                }
            }
        }
        check(&schema(), "");
    }
}
