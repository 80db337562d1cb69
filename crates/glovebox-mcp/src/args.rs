//! The arguments of each MCP tool, as their JSON schemas show them.

use glovebox_model::{Action, Button, DeliveryMode, Rect, Target, WaitFor};
use rmcp::schemars;
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListWindowsArgs {
    /// Case-insensitive text to match against app, title and id.
    pub query: Option<String>,
    /// 1-based page of 30 windows.
    pub page: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ObserveArgs {
    /// A window id from list_windows (`pid/0xXID`); omitted: the bound window.
    pub window: Option<String>,
    /// Include a screenshot (default true when the grant allows pixels).
    /// Ask for false when the tree is enough: it is far smaller.
    pub screenshot: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ZoomArgs {
    /// A rectangle in the newest screenshot's image pixels.
    pub region: Rect,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WaitArgs {
    /// `{"seconds": 1.5}` (0.5–5) or `{"until": {"condition": "appear"|"disappear"|"change", "query": {"role": "...", "name": "..."}, "timeout_secs": 5}}`.
    pub wait: WaitFor,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ClickArgs {
    /// `{"element": "e12"}` (preferred) or `{"point": {"x": 10, "y": 20}}` in the newest image's pixels.
    pub target: Target,
    /// left (default), right or middle.
    pub button: Option<Button>,
    /// 1 (default), 2 for a double click, 3 for a triple click.
    pub count: Option<u8>,
    /// background (default); foreground uses the real pointer and only works when the user allowed it.
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct MoveArgs {
    pub target: Target,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DragArgs {
    pub from: Target,
    pub to: Target,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ScrollArgs {
    pub target: Target,
    /// Wheel steps to the right (negative: left).
    #[serde(default)]
    pub dx: i32,
    /// Wheel steps down (negative: up).
    #[serde(default)]
    pub dy: i32,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TypeArgs {
    /// Text typed at the caret of the focused field.
    pub text: String,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SetValueArgs {
    /// The field, slider or spin button.
    pub target: Target,
    /// The whole new value (empty clears a field; a number for sliders).
    pub text: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct KeyArgs {
    /// `Enter`, `ctrl+s`, `shift+Tab`, `F5`, or one character.
    pub combo: String,
    /// 1 (default) to 20.
    pub repeat: Option<u8>,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SelectArgs {
    /// The combo box or list.
    pub target: Target,
    /// The option's visible name.
    pub option: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BatchArgs {
    /// 2 or 3 actions, e.g. `[{"action": "click", "target": {"element": "e4"}, "button": "left", "count": 1}, {"action": "type", "text": "hi"}, {"action": "key", "combo": "Enter", "repeat": 1}]`. Only the first may target.
    pub steps: Vec<Action>,
    pub delivery: Option<DeliveryMode>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct OpenAppArgs {
    /// A desktop entry's name (`Text Editor`) or an executable (`xterm`).
    pub name: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SwitchWindowArgs {
    /// A window id from list_windows (`pid/0xXID`).
    pub window: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct NoArgs {}
