//! The arguments of each MCP tool, as their JSON schemas show them. A
//! range an [`Action`] or the model also checks is the model's constant
//! ([`glovebox_model::action`], [`glovebox_model::tree_text`]), never a
//! second literal.

use glovebox_model::{
    action, tree_text, Action, Button, DeliveryMode, ElementId, ModifierKey, Rect, Target, WaitFor,
    BATCH_STEPS,
};
use rmcp::schemars;
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListWindowsArgs {
    /// Text to match in app, title or id (any case).
    pub query: Option<String>,
    /// 1-based page of 30 windows.
    #[schemars(range(min = 1))]
    pub page: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ObserveArgs {
    /// A window id (`pid/0xXID`); omitted: the bound window.
    pub window: Option<String>,
    /// A screenshot too (default: when pixels are allowed).
    pub screenshot: Option<bool>,
    /// Draw the ids on the screenshot.
    pub marks: Option<bool>,
    /// Fold the tree to about this many tokens.
    #[schemars(range(min = tree_text::MIN_TOKENS, max = tree_text::MAX_TOKENS))]
    pub max_tokens: Option<usize>,
    /// Only the subtree under this id (expands a fold).
    pub within: Option<ElementId>,
    /// Read these elements' text or value (the only way to).
    pub read: Option<Vec<ElementId>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ZoomArgs {
    /// A rectangle in the newest screenshot's image pixels.
    pub region: Rect,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WaitArgs {
    /// Seconds to wait, or a condition on elements to wait for.
    pub wait: WaitFor,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ClickArgs {
    /// An element id of the newest observation (preferred), or a point in its image.
    pub target: Target,
    /// left (default), right, middle, back or forward.
    pub button: Option<Button>,
    /// 1 (default); 2 double, 3 triple click.
    #[schemars(range(min = *action::CLICK_COUNT.start(), max = *action::CLICK_COUNT.end()))]
    pub count: Option<u8>,
    /// Keys held during it, e.g. `["ctrl"]`.
    pub modifiers: Option<Vec<ModifierKey>>,
    /// background (default) or foreground (the real pointer, if allowed).
    pub delivery: Option<DeliveryMode>,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct MoveArgs {
    pub target: Target,
    pub modifiers: Option<Vec<ModifierKey>>,
    pub delivery: Option<DeliveryMode>,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DragArgs {
    pub from: Target,
    pub to: Target,
    pub modifiers: Option<Vec<ModifierKey>>,
    pub delivery: Option<DeliveryMode>,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ScrollArgs {
    pub target: Target,
    /// Wheel steps to the right (negative: left).
    #[serde(default)]
    #[schemars(range(min = -action::MAX_SCROLL_STEPS, max = action::MAX_SCROLL_STEPS))]
    pub dx: i32,
    /// Wheel steps down (negative: up).
    #[serde(default)]
    #[schemars(range(min = -action::MAX_SCROLL_STEPS, max = action::MAX_SCROLL_STEPS))]
    pub dy: i32,
    pub modifiers: Option<Vec<ModifierKey>>,
    pub delivery: Option<DeliveryMode>,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TypeArgs {
    /// The text.
    pub text: String,
    pub delivery: Option<DeliveryMode>,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SetValueArgs {
    /// The field, slider or spin button.
    pub target: Target,
    /// The whole new value (empty clears; a number for sliders).
    pub text: String,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct KeyArgs {
    /// `Enter`, `ctrl+s`, `shift+Tab`, `F5`, or one character.
    pub combo: glovebox_model::KeyCombo,
    /// 1 (default) to 20.
    #[schemars(range(min = *action::KEY_REPEAT.start(), max = *action::KEY_REPEAT.end()))]
    pub repeat: Option<u8>,
    pub delivery: Option<DeliveryMode>,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SelectArgs {
    /// The combo box or list.
    pub target: Target,
    /// The option's visible name.
    pub option: String,
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BatchArgs {
    /// 2 or 3 actions; only the first may target.
    #[schemars(length(min = *BATCH_STEPS.start(), max = *BATCH_STEPS.end()))]
    pub steps: Vec<Action>,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct OpenAppArgs {
    /// A desktop entry's name (`Text Editor`) or an executable (`xterm`).
    pub name: String,
    /// `agent`: glovebox's own desktop (the agent display).
    #[serde(default)]
    pub desktop: glovebox_model::Desktop,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReplayArgs {
    /// Its path (`glovebox trajectories`).
    pub recording: String,
    #[serde(default)]
    pub window: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct OpenUrlArgs {
    /// An http(s) address.
    pub url: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SwitchWindowArgs {
    /// A window id (`pid/0xXID`).
    pub window: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct GrantStatusArgs {
    /// A window id: also say whether a denial covers it.
    pub window: Option<String>,
}

#[cfg(test)]
mod tests {
    //! The input tools' arguments restate an [`Action`]'s fields (with
    //! MCP's defaults: a field an action needs may be left out): each
    //! field's schema — its type, format and range — must be the action's.
    use super::*;
    use serde_json::Value;

    /// A property's schema as a range and a type: prose dropped, and an
    /// optional field (`null` allowed) read as the field it wraps.
    fn bare(schema: &Value) -> Value {
        let mut schema = schema.clone();
        let Some(object) = schema.as_object_mut() else { return schema };
        object.remove("description");
        object.remove("default");
        if let Some(Value::Array(any)) = object.get("anyOf") {
            let inner: Vec<&Value> = any.iter().filter(|s| s["type"] != "null").collect();
            if let [only] = inner.as_slice() {
                return bare(only);
            }
        }
        if let Some(Value::Array(types)) = object.get("type") {
            let inner: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            if let [only] = inner.as_slice() {
                object.insert("type".into(), only.clone());
            }
        }
        if let Some(Value::Object(items)) = object.get("items") {
            let items = bare(&Value::Object(items.clone()));
            object.insert("items".into(), items);
        }
        schema
    }

    fn properties(schema: &Value) -> &serde_json::Map<String, Value> {
        schema["properties"].as_object().expect("an object schema")
    }

    #[test]
    fn every_input_tools_fields_have_the_actions_schema() {
        let actions = serde_json::to_value(schemars::schema_for!(Action)).unwrap();
        let tools = [
            ("click", serde_json::to_value(schemars::schema_for!(ClickArgs)).unwrap()),
            ("move", serde_json::to_value(schemars::schema_for!(MoveArgs)).unwrap()),
            ("drag", serde_json::to_value(schemars::schema_for!(DragArgs)).unwrap()),
            ("scroll", serde_json::to_value(schemars::schema_for!(ScrollArgs)).unwrap()),
            ("type", serde_json::to_value(schemars::schema_for!(TypeArgs)).unwrap()),
            ("set_value", serde_json::to_value(schemars::schema_for!(SetValueArgs)).unwrap()),
            ("key", serde_json::to_value(schemars::schema_for!(KeyArgs)).unwrap()),
            ("select", serde_json::to_value(schemars::schema_for!(SelectArgs)).unwrap()),
        ];
        let variants = actions["oneOf"].as_array().expect("one schema per action");
        for (name, tool) in &tools {
            let variant = variants
                .iter()
                .find(|v| v["properties"]["action"]["const"] == *name)
                .unwrap_or_else(|| panic!("no action {name}"));
            for (field, schema) in properties(variant) {
                if field == "action" {
                    continue;
                }
                let mine = properties(tool)
                    .get(field)
                    .unwrap_or_else(|| panic!("{name}'s arguments lack the action's {field}"));
                assert_eq!(bare(mine), bare(schema), "{name}.{field}");
            }
            // Beyond the action's own fields, a tool takes only how to deliver and what to answer.
            for field in properties(tool).keys() {
                assert!(
                    properties(variant).contains_key(field)
                        || ["delivery", "screenshot"].contains(&field.as_str()),
                    "{name}'s arguments add {field}, which no action carries"
                );
            }
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AskUserArgs {
    /// The question.
    pub question: String,
    /// Answers to pick from.
    pub choices: Option<Vec<String>>,
}
