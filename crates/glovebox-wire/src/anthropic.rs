//! The Anthropic computer tool (`computer_20241022`, `computer_20250124`,
//! `computer_20251124`): one `tool_use` input runs against the bound
//! window, shown to the model at exactly the display size the tool
//! definition declares (see [`crate::scaling`]), and is answered with
//! `tool_result` content blocks.
//!
//! The executor keeps, across calls, the frame of the last screenshot (every
//! coordinate maps through it), the agent's virtual cursor in display
//! pixels, and a pending `left_mouse_down`. glovebox never moves the user's
//! pointer, so:
//! - `mouse_move` delivers a host move (hover) and moves the virtual cursor;
//!   `cursor_position` reports the virtual cursor.
//! - `left_mouse_down` only records the point; `left_mouse_up` delivers a
//!   click when released at the same point, a drag from the press to the
//!   release point otherwise.
//! - `hold_key`, and clicks or scrolls with modifier keys in `text`, need
//!   the real keyboard: `COMPUTER_BACKGROUND_UNAVAILABLE`.
//! - Actions without a coordinate act at the virtual cursor.
//!
//! Every action but `cursor_position` and `zoom` answers with the screenshot
//! taken after it (the next basis for coordinates).

use crate::error::{invalid, WireError};
use crate::scaling::{self, Placement};
use crate::session::{no_screenshot_yet, ExecutorOptions, Look, Session, Step};
use base64::Engine as _;
use glovebox_host::{Approver, Host};
use glovebox_model::{Action, Button, ErrorCode, Refusal, Size, Target};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Longest `wait` accepted, in seconds.
pub const MAX_WAIT_SECS: f64 = 100.0;
/// Most wheel clicks one scroll may move.
pub const MAX_SCROLL_AMOUNT: i64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ToolVersion {
    #[serde(rename = "computer_20241022")]
    V20241022,
    #[serde(rename = "computer_20250124")]
    V20250124,
    #[serde(rename = "computer_20251124")]
    V20251124,
}

impl ToolVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolVersion::V20241022 => "computer_20241022",
            ToolVersion::V20250124 => "computer_20250124",
            ToolVersion::V20251124 => "computer_20251124",
        }
    }
}

/// The computer tool as the client declared it to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolDefinition {
    #[serde(rename = "type")]
    pub version: ToolVersion,
    pub name: String,
    pub display_width_px: u32,
    pub display_height_px: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_number: Option<u32>,
    /// `computer_20251124` only: the model may ask for `zoom`.
    #[serde(default)]
    pub enable_zoom: bool,
}

impl ToolDefinition {
    pub fn display(&self) -> Size {
        Size::new(self.display_width_px, self.display_height_px)
    }
}

pub type Coordinate = [i64; 2];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

/// One `tool_use` input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ComputerAction {
    Key {
        text: String,
    },
    HoldKey {
        text: String,
        duration: f64,
    },
    Type {
        text: String,
    },
    CursorPosition {},
    MouseMove {
        coordinate: Coordinate,
    },
    LeftMouseDown {
        #[serde(default)]
        coordinate: Option<Coordinate>,
    },
    LeftMouseUp {
        #[serde(default)]
        coordinate: Option<Coordinate>,
    },
    LeftClick {
        #[serde(default)]
        coordinate: Option<Coordinate>,
        #[serde(default)]
        text: Option<String>,
    },
    LeftClickDrag {
        #[serde(default)]
        start_coordinate: Option<Coordinate>,
        coordinate: Coordinate,
    },
    RightClick {
        #[serde(default)]
        coordinate: Option<Coordinate>,
        #[serde(default)]
        text: Option<String>,
    },
    MiddleClick {
        #[serde(default)]
        coordinate: Option<Coordinate>,
        #[serde(default)]
        text: Option<String>,
    },
    DoubleClick {
        #[serde(default)]
        coordinate: Option<Coordinate>,
        #[serde(default)]
        text: Option<String>,
    },
    TripleClick {
        #[serde(default)]
        coordinate: Option<Coordinate>,
        #[serde(default)]
        text: Option<String>,
    },
    Scroll {
        #[serde(default)]
        coordinate: Option<Coordinate>,
        scroll_direction: ScrollDirection,
        scroll_amount: i64,
        #[serde(default)]
        text: Option<String>,
    },
    Wait {
        duration: f64,
    },
    Screenshot {},
    Zoom {
        region: [i64; 4],
    },
}

impl ComputerAction {
    pub fn name(&self) -> &'static str {
        use ComputerAction::*;
        match self {
            Key { .. } => "key",
            HoldKey { .. } => "hold_key",
            Type { .. } => "type",
            CursorPosition {} => "cursor_position",
            MouseMove { .. } => "mouse_move",
            LeftMouseDown { .. } => "left_mouse_down",
            LeftMouseUp { .. } => "left_mouse_up",
            LeftClick { .. } => "left_click",
            LeftClickDrag { .. } => "left_click_drag",
            RightClick { .. } => "right_click",
            MiddleClick { .. } => "middle_click",
            DoubleClick { .. } => "double_click",
            TripleClick { .. } => "triple_click",
            Scroll { .. } => "scroll",
            Wait { .. } => "wait",
            Screenshot {} => "screenshot",
            Zoom { .. } => "zoom",
        }
    }

    /// The first tool version that has this action.
    pub fn since(&self) -> ToolVersion {
        use ComputerAction::*;
        match self {
            Key { .. }
            | Type { .. }
            | CursorPosition {}
            | MouseMove { .. }
            | LeftClick { .. }
            | LeftClickDrag { .. }
            | RightClick { .. }
            | MiddleClick { .. }
            | DoubleClick { .. }
            | Screenshot {} => ToolVersion::V20241022,
            HoldKey { .. } | LeftMouseDown { .. } | LeftMouseUp { .. } | TripleClick { .. } | Scroll { .. } | Wait { .. } => ToolVersion::V20250124,
            Zoom { .. } => ToolVersion::V20251124,
        }
    }

    /// Reads a `tool_use` input and checks the declared tool has the action.
    pub fn parse(input: &Value, tool: &ToolDefinition) -> Result<ComputerAction, Refusal> {
        let action: ComputerAction = serde_json::from_value(input.clone()).map_err(|e| invalid(format!("computer tool input: {e}")))?;
        if action.since() > tool.version {
            return Err(invalid(format!("{} has no {} action (it arrived in {})", tool.version.as_str(), action.name(), action.since().as_str())));
        }
        if matches!(action, ComputerAction::Zoom { .. }) && !tool.enable_zoom {
            return Err(invalid("zoom is off in this tool definition (enable_zoom is not true)"));
        }
        Ok(action)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    Base64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSource {
    #[serde(rename = "type")]
    pub kind: SourceType,
    pub media_type: String,
    pub data: String,
}

/// A `tool_result` content block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text { text: String },
    Image { source: ImageSource },
}

impl ContentBlock {
    pub fn png(png: &[u8]) -> ContentBlock {
        ContentBlock::Image {
            source: ImageSource { kind: SourceType::Base64, media_type: "image/png".into(), data: base64::engine::general_purpose::STANDARD.encode(png) },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToolResultType {
    #[serde(rename = "tool_result")]
    ToolResult,
}

/// The whole `tool_result` block answering one `tool_use`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    #[serde(rename = "type")]
    pub kind: ToolResultType,
    pub tool_use_id: String,
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolResult {
    pub fn refusal(tool_use_id: String, refusal: &Refusal) -> ToolResult {
        ToolResult { kind: ToolResultType::ToolResult, tool_use_id, content: vec![ContentBlock::Text { text: refusal.to_string() }], is_error: true }
    }
}

type Display = (i64, i64);

struct State {
    session: Session,
    /// The display the last call declared; a different one drops the basis.
    display: Option<Size>,
    /// The agent's cursor in display pixels (never the user's pointer).
    cursor: Option<Display>,
    /// Where `left_mouse_down` pressed, until `left_mouse_up`.
    pressed: Option<Display>,
}

/// Runs Anthropic computer tool calls against one host. Stateful (last
/// frame, virtual cursor, pending press); calls are serialised.
pub struct AnthropicExecutor {
    state: Mutex<State>,
}

/// What one action does once mapped: host steps plus the cursor afterwards.
struct Planned {
    steps: Vec<Step>,
    cursor: Option<Display>,
    pressed: Option<Option<Display>>,
}

impl AnthropicExecutor {
    pub fn new(host: Host, options: ExecutorOptions) -> AnthropicExecutor {
        AnthropicExecutor { state: Mutex::new(State { session: Session::new(host, options), display: None, cursor: None, pressed: None }) }
    }

    /// The `tool_result` block for a `tool_use` block: the action's content,
    /// or `is_error` with the refusal's code and sentence. Refused only when
    /// the block has no `id` to answer.
    pub fn tool_result(&self, tool: &ToolDefinition, tool_use: &Value) -> Result<ToolResult, Refusal> {
        self.tool_result_with(tool, tool_use, None)
    }

    /// [`AnthropicExecutor::tool_result`] asking this call's prompts through
    /// `approver` instead of the executor's host's.
    pub fn tool_result_with(&self, tool: &ToolDefinition, tool_use: &Value, approver: Option<Arc<dyn Approver>>) -> Result<ToolResult, Refusal> {
        let id = tool_use.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()).ok_or_else(|| invalid("the tool_use block has no id"))?.to_owned();
        let checked = (|| {
            match tool_use.get("type").and_then(Value::as_str) {
                Some("tool_use") | None => {}
                Some(other) => return Err(invalid(format!("block type {other:?} is not tool_use"))),
            }
            if tool_use.get("name").and_then(Value::as_str) != Some(tool.name.as_str()) {
                return Err(invalid(format!("the tool_use does not name the declared tool {:?}", tool.name)));
            }
            tool_use.get("input").ok_or_else(|| invalid("the tool_use block has no input"))
        })();
        Ok(match checked.and_then(|input| self.execute_with(tool, input, approver)) {
            Ok(content) => ToolResult { kind: ToolResultType::ToolResult, tool_use_id: id, content, is_error: false },
            Err(refusal) => ToolResult::refusal(id, &refusal),
        })
    }

    /// Runs one `tool_use` input; the content blocks of its result.
    pub fn execute(&self, tool: &ToolDefinition, input: &Value) -> Result<Vec<ContentBlock>, Refusal> {
        self.execute_with(tool, input, None)
    }

    fn execute_with(&self, tool: &ToolDefinition, input: &Value, approver: Option<Arc<dyn Approver>>) -> Result<Vec<ContentBlock>, Refusal> {
        let limits = scaling::limits(tool.display())?;
        let action = ComputerAction::parse(input, tool)?;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.display != Some(tool.display()) {
            // Another display size is another coordinate space: nothing carries over.
            state.session.basis = None;
            state.cursor = None;
            state.pressed = None;
            state.display = Some(tool.display());
        }
        let look = Look::Fitted(limits);
        match &action {
            ComputerAction::CursorPosition {} => {
                let (x, y) = state.cursor.ok_or_else(|| {
                    invalid("the agent's cursor has no position yet (glovebox never reads or moves the user's pointer); mouse_move or a click with a coordinate places it")
                })?;
                // The agent's own cursor: nothing of the screen is read.
                return Ok(vec![ContentBlock::Text { text: format!("X={x},Y={y}") }]);
            }
            ComputerAction::Zoom { region } => {
                let basis = state.session.basis.clone().ok_or_else(no_screenshot_yet)?;
                let rect = Placement::new(tool.display(), basis.image)?.region(*region)?;
                let asking = approver.as_ref().map(|a| state.session.host.with_approver(a.clone())).unwrap_or_else(|| state.session.host.clone());
                let zoomed = asking.zoom(basis.id, rect).map_err(crate::error::to_wire)?;
                return Ok(vec![ContentBlock::png(&zoomed.png)]);
            }
            ComputerAction::HoldKey { .. } => {
                return Err(Refusal::new(
                    ErrorCode::BackgroundUnavailable,
                    "hold_key needs the user's real keyboard: glovebox holds no key in the background; press combos with key instead",
                ));
            }
            _ => {}
        }
        let planned = plan(&action, &state, tool.display())?;
        let run = (|| {
            state.session.precheck(&planned.steps)?;
            let asking = approver.map(|a| state.session.host.with_approver(a)).unwrap_or_else(|| state.session.host.clone());
            let approved = state.session.approve(&asking, &planned.steps)?;
            state.session.run(&approved, &planned.steps, look)?;
            state.session.finish(&approved, look)
        })();
        let seen = run.map_err(|e| single(e, planned.steps.len()))?;
        state.cursor = planned.cursor.or(state.cursor);
        if let Some(pressed) = planned.pressed {
            state.pressed = pressed;
        }
        let png = seen.screenshot.expect("finish checks the screenshot");
        Ok(vec![ContentBlock::png(&Placement::new(tool.display(), seen.frame.image)?.pad_png(&png)?)])
    }

    /// Acts in `window` from now on (`None`: the grant's bound window); a
    /// different window drops the last screenshot, the cursor and any press.
    pub fn set_window(&self, window: Option<glovebox_model::WindowRef>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.session.options.window != window {
            state.session.options.window = window;
            state.session.basis = None;
            state.cursor = None;
            state.pressed = None;
        }
    }

    /// Forgets the last screenshot, the cursor and any pending press.
    pub fn reset(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.session.basis = None;
        state.cursor = None;
        state.pressed = None;
    }
}

/// One tool call's error: which combo of a key sequence failed, if several.
fn single(e: WireError, steps: usize) -> Refusal {
    match e.failed_action_index {
        Some(i) if steps > 1 => Refusal::new(e.refusal.code, format!("step {} of {steps} ({} done): {}", i + 1, e.executed, e.refusal.message)),
        _ => e.refusal,
    }
}

fn no_modifiers(text: &Option<String>, what: &str) -> Result<(), Refusal> {
    match text.as_deref().map(str::trim) {
        Some(keys) if !keys.is_empty() => Err(Refusal::new(
            ErrorCode::BackgroundUnavailable,
            format!("{what} with {keys:?} held needs the user's real keyboard: glovebox holds no modifier during a pointer action in the background; send it without text"),
        )),
        _ => Ok(()),
    }
}

/// Maps one action onto host steps through the last screenshot's placement.
fn plan(action: &ComputerAction, state: &State, display: Size) -> Result<Planned, Refusal> {
    use ComputerAction::*;
    let placement = || -> Result<Placement, Refusal> { Placement::new(display, state.session.basis.as_ref().ok_or_else(no_screenshot_yet)?.image) };
    let at = |c: Display| -> Result<Target, Refusal> { placement()?.to_image(c.0, c.1).map(Target::Point) };
    let here = |c: &Option<Coordinate>| -> Result<Display, Refusal> {
        match c {
            Some([x, y]) => Ok((*x, *y)),
            None => state.cursor.ok_or_else(|| invalid("no coordinate was given and the agent's cursor has no position yet; give a coordinate")),
        }
    };
    let input = |action: Action, cursor: Option<Display>| Planned { steps: vec![Step::Input(action)], cursor, pressed: None };
    let click = |c: &Option<Coordinate>, text: &Option<String>, button: Button, count: u8, what: &str| -> Result<Planned, Refusal> {
        no_modifiers(text, what)?;
        let p = here(c)?;
        Ok(input(Action::Click { target: at(p)?, button, count }, Some(p)))
    };
    Ok(match action {
        Key { text } => Planned {
            steps: crate::keys::xdotool(text)?.into_iter().map(|combo| Step::Input(Action::Key { combo, repeat: 1 })).collect(),
            cursor: None,
            pressed: None,
        },
        Type { text } => input(Action::Type { text: text.clone() }, None),
        MouseMove { coordinate: [x, y] } => input(Action::Move { target: at((*x, *y))? }, Some((*x, *y))),
        LeftClick { coordinate, text } => click(coordinate, text, Button::Left, 1, "left_click")?,
        RightClick { coordinate, text } => click(coordinate, text, Button::Right, 1, "right_click")?,
        MiddleClick { coordinate, text } => click(coordinate, text, Button::Middle, 1, "middle_click")?,
        DoubleClick { coordinate, text } => click(coordinate, text, Button::Left, 2, "double_click")?,
        TripleClick { coordinate, text } => click(coordinate, text, Button::Left, 3, "triple_click")?,
        LeftClickDrag { start_coordinate, coordinate: [x, y] } => {
            let from = here(start_coordinate)?;
            input(Action::Drag { from: at(from)?, to: at((*x, *y))? }, Some((*x, *y)))
        }
        LeftMouseDown { coordinate } => {
            let p = here(coordinate)?;
            at(p)?;
            // Nothing is pressed in the window yet: the press and release are delivered together on left_mouse_up.
            Planned { steps: vec![Step::Screenshot], cursor: Some(p), pressed: Some(Some(p)) }
        }
        LeftMouseUp { coordinate } => {
            let down = state.pressed.ok_or_else(|| invalid("left_mouse_up without a left_mouse_down before it"))?;
            let up = here(coordinate)?;
            let action =
                if up == down { Action::Click { target: at(up)?, button: Button::Left, count: 1 } } else { Action::Drag { from: at(down)?, to: at(up)? } };
            Planned { steps: vec![Step::Input(action)], cursor: Some(up), pressed: Some(None) }
        }
        Scroll { coordinate, scroll_direction, scroll_amount, text } => {
            no_modifiers(text, "scroll")?;
            if !(1..=MAX_SCROLL_AMOUNT).contains(scroll_amount) {
                return Err(invalid(format!("scroll_amount {scroll_amount} is outside 1..={MAX_SCROLL_AMOUNT}")));
            }
            let n = *scroll_amount as i32;
            let (dx, dy) = match scroll_direction {
                ScrollDirection::Up => (0, -n),
                ScrollDirection::Down => (0, n),
                ScrollDirection::Left => (-n, 0),
                ScrollDirection::Right => (n, 0),
            };
            let p = here(coordinate)?;
            input(Action::Scroll { target: at(p)?, dx, dy }, Some(p))
        }
        Wait { duration } => {
            if !duration.is_finite() || *duration < 0.0 || *duration > MAX_WAIT_SECS {
                return Err(invalid(format!("wait duration {duration} is outside 0..={MAX_WAIT_SECS} seconds")));
            }
            Planned { steps: vec![Step::Wait(Duration::from_secs_f64(*duration))], cursor: None, pressed: None }
        }
        Screenshot {} => Planned { steps: vec![Step::Screenshot], cursor: None, pressed: None },
        CursorPosition {} | Zoom { .. } | HoldKey { .. } => return Err(invalid(format!("{} is answered before planning", action.name()))),
    })
}
