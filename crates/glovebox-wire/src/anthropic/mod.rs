//! Anthropic's computer use, in both contracts it has had:
//! - the single tools `computer_20241022`, `computer_20250124`,
//!   `computer_20251124` (beta): one `tool_use` with an `action` input,
//!   shown to the model at exactly the display size the tool definition
//!   declares (see [`crate::scaling`]), every action answered with the
//!   screenshot after it;
//! - the generally available toolset `computer_toolset_20260801`
//!   ([`toolset`]): one `tool_use` block per member, several per turn,
//!   coordinates in the pixels of the screenshot last returned, only
//!   `screenshot` and `zoom` answered with an image.
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
//! - Modifier keys in a pointer action's `text` are held through it, by the
//!   same routes as the rest (in the background: in the events' state), or
//!   refused exactly. `hold_key` would hold a key across the model's next
//!   actions: `COMPUTER_BACKGROUND_UNAVAILABLE`.
//! - Actions without a coordinate act at the virtual cursor.
//!
//! With the single tools every action but `cursor_position` and `zoom`
//! answers with the screenshot taken after it (the next basis for
//! coordinates).

use crate::error::{invalid, WireError};
use crate::scaling::{self, Placement};
use crate::session::{no_screenshot_yet, ExecutorOptions, Look, Session, Step};
use base64::Engine as _;
use glovebox_host::{Host, PersonChannel};
use glovebox_model::{
    Action, Button, CaptureLimits, ModifierKey, Modifiers, Refusal, Size, Target,
};
use glovebox_platform::sync::LockRecovered as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod toolset;
pub use toolset::{MemberConfig, ToolsetDefinition, ToolsetVersion};

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
        /// The toolset's `repeat` (1 when absent).
        #[serde(default)]
        repeat: Option<i64>,
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
        #[serde(default)]
        text: Option<String>,
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
            HoldKey { .. }
            | LeftMouseDown { .. }
            | LeftMouseUp { .. }
            | TripleClick { .. }
            | Scroll { .. }
            | Wait { .. } => ToolVersion::V20250124,
            Zoom { .. } => ToolVersion::V20251124,
        }
    }

    /// Reads a `tool_use` input and checks the declared tool has the action.
    pub fn parse(input: &Value, tool: &ToolDefinition) -> Result<ComputerAction, Refusal> {
        let action: ComputerAction = serde_json::from_value(input.clone())
            .map_err(|e| invalid(format!("computer tool input: {e}")))?;
        if action.since() > tool.version {
            return Err(invalid(format!(
                "{} has no {} action (it arrived in {})",
                tool.version.as_str(),
                action.name(),
                action.since().as_str()
            )));
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
            source: ImageSource {
                kind: SourceType::Base64,
                media_type: "image/png".into(),
                data: base64::engine::general_purpose::STANDARD.encode(png),
            },
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
        ToolResult {
            kind: ToolResultType::ToolResult,
            tool_use_id,
            content: vec![ContentBlock::Text { text: refusal.to_string() }],
            is_error: true,
        }
    }
}

type Display = (i64, i64);

/// The pixels a model's coordinates are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    /// A single tool's declared display: the frame's image at its top-left.
    Declared(Size),
    /// The toolset's: the screenshot itself, sized to the model's image budget.
    Screenshot,
}

/// The longest edge and the pixel count Anthropic's models take an image at
/// without shrinking it again (their documented vision limits); the
/// toolset's screenshots are fitted inside both, so what the model points
/// at is what it was sent.
pub const TOOLSET_MAX_EDGE: u32 = 1568;
pub const TOOLSET_MAX_PIXELS: u64 = 1_150_000;

/// The largest image of `window`'s aspect inside the toolset's budget.
pub fn toolset_limits(window: Size) -> CaptureLimits {
    let (w, h) = (window.width.max(1) as f64, window.height.max(1) as f64);
    let scale = (TOOLSET_MAX_EDGE as f64 / w.max(h))
        .min((TOOLSET_MAX_PIXELS as f64 / (w * h)).sqrt())
        .min(1.0);
    let edge =
        |v: f64| ((v * scale).floor() as u32).clamp(1, glovebox_model::frame::MAX_IMAGE_EDGE);
    CaptureLimits { max_width: edge(w), max_height: edge(h) }
}

impl Space {
    fn limits(self, basis: Option<&glovebox_host::FrameView>) -> Result<CaptureLimits, Refusal> {
        match self {
            Space::Declared(display) => scaling::limits(display),
            // Before any screenshot the window's size is not known yet: a 16:9 budget.
            Space::Screenshot => Ok(basis
                .map(|b| toolset_limits(b.geometry.size()))
                .unwrap_or(CaptureLimits { max_width: 1430, max_height: 804 })),
        }
    }

    fn placement(self, image: Size) -> Result<Placement, Refusal> {
        match self {
            Space::Declared(display) => Placement::new(display, image),
            Space::Screenshot => Placement::new(image, image),
        }
    }
}

/// What a successful action answers with.
pub(crate) enum Answer {
    /// The screenshot taken after it (the single tools).
    Screenshot,
    /// A line saying what was done (the toolset's pure actions).
    Acknowledge,
}

struct State {
    session: Session,
    /// The coordinate space of the last call; another one drops the basis.
    space: Option<Space>,
    /// The agent's cursor in the model's pixels (never the user's pointer).
    cursor: Option<Display>,
    /// Where `left_mouse_down` pressed, until `left_mouse_up`.
    pressed: Option<Display>,
}

impl State {
    fn forget(&mut self) {
        self.session.basis = None;
        self.cursor = None;
        self.pressed = None;
    }
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
    /// The tree the last screenshot was taken with, for a trajectory's diffs.
    pub fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>> {
        self.state.lock_recovered().session.last_tree.clone()
    }

    pub fn new(host: Host, options: ExecutorOptions) -> AnthropicExecutor {
        AnthropicExecutor {
            state: Mutex::new(State {
                session: Session::new(host, options),
                space: None,
                cursor: None,
                pressed: None,
            }),
        }
    }

    /// The `tool_result` block for a `tool_use` block: the action's content,
    /// or `is_error` with the refusal's code and sentence. Refused only when
    /// the block has no `id` to answer.
    pub fn tool_result(
        &self,
        tool: &ToolDefinition,
        tool_use: &Value,
    ) -> Result<ToolResult, Refusal> {
        self.tool_result_with(tool, tool_use, None)
    }

    /// [`AnthropicExecutor::tool_result`] asking this call's prompts through
    /// `channel` instead of the executor's host's.
    pub fn tool_result_with(
        &self,
        tool: &ToolDefinition,
        tool_use: &Value,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<ToolResult, Refusal> {
        let id = block_id(tool_use)?;
        let checked = (|| {
            check_block_type(tool_use)?;
            if tool_use.get("name").and_then(Value::as_str) != Some(tool.name.as_str()) {
                return Err(invalid(format!(
                    "the tool_use does not name the declared tool {:?}",
                    tool.name
                )));
            }
            tool_use.get("input").ok_or_else(|| invalid("the tool_use block has no input"))
        })();
        Ok(match checked.and_then(|input| self.execute_with(tool, input, channel)) {
            Ok(content) => ToolResult {
                kind: ToolResultType::ToolResult,
                tool_use_id: id,
                content,
                is_error: false,
            },
            Err(refusal) => ToolResult::refusal(id, &refusal),
        })
    }

    /// Runs one `tool_use` input; the content blocks of its result.
    pub fn execute(
        &self,
        tool: &ToolDefinition,
        input: &Value,
    ) -> Result<Vec<ContentBlock>, Refusal> {
        self.execute_with(tool, input, None)
    }

    fn execute_with(
        &self,
        tool: &ToolDefinition,
        input: &Value,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<Vec<ContentBlock>, Refusal> {
        scaling::limits(tool.display())?;
        let action = ComputerAction::parse(input, tool)?;
        self.run_action(Space::Declared(tool.display()), &action, channel, Answer::Screenshot)
    }

    /// Runs one parsed action in `space`; the content of its result.
    pub(crate) fn run_action(
        &self,
        space: Space,
        action: &ComputerAction,
        channel: Option<Arc<dyn PersonChannel>>,
        answer: Answer,
    ) -> Result<Vec<ContentBlock>, Refusal> {
        let mut state = self.state.lock_recovered();
        if state.space != Some(space) {
            // Another display size is another coordinate space: nothing carries over.
            state.forget();
            state.space = Some(space);
        }
        let asking = channel
            .map(|a| state.session.host.with_channel(a))
            .unwrap_or_else(|| state.session.host.clone());
        match action {
            ComputerAction::CursorPosition {} => {
                let (x, y) = state.cursor.ok_or_else(|| {
                    invalid("the agent's cursor has no position yet (glovebox never reads or moves the user's pointer); mouse_move or a click with a coordinate places it")
                })?;
                // The agent's own cursor: nothing of the screen is read.
                return Ok(vec![ContentBlock::Text { text: format!("X={x},Y={y}") }]);
            }
            ComputerAction::Zoom { region } => {
                let basis = state.session.basis.clone().ok_or_else(no_screenshot_yet)?;
                let rect = space.placement(basis.image)?.region(*region)?;
                let zoomed = asking.zoom(basis.id, rect).map_err(crate::error::to_wire)?;
                return Ok(vec![ContentBlock::png(&zoomed.png)]);
            }
            ComputerAction::HoldKey { .. } => {
                return Err(glovebox_host::refusals::key_held_across_actions());
            }
            _ => {}
        }
        let look = Look::Fitted(space.limits(state.session.basis.as_ref())?);
        let planned = plan(action, &state, space)?;
        let screenshot =
            matches!(answer, Answer::Screenshot) || matches!(action, ComputerAction::Screenshot {});
        let run = (|| {
            state.session.precheck(&planned.steps)?;
            let approved = state.session.approve(&asking, &planned.steps)?;
            state.session.run(&approved, &planned.steps, look)?;
            if screenshot {
                // The window as the model will aim at it next: its size sets the next screenshot's budget.
                let seen = state.session.finish(&approved, look)?;
                let refit = Look::Fitted(space.limits(Some(&seen.frame))?);
                return if refit == look {
                    Ok(Some(seen))
                } else {
                    state.session.finish(&approved, refit).map(Some)
                };
            }
            Ok(None)
        })();
        let seen = run.map_err(|e| single(e, planned.steps.len()))?;
        state.cursor = planned.cursor.or(state.cursor);
        if let Some(pressed) = planned.pressed {
            state.pressed = pressed;
        }
        match seen {
            Some(seen) => {
                let png = seen.screenshot.expect("finish checks the screenshot");
                Ok(vec![ContentBlock::png(&match space {
                    Space::Declared(_) => space.placement(seen.frame.image)?.pad_png(&png)?,
                    Space::Screenshot => png,
                })])
            }
            None => Ok(vec![ContentBlock::Text { text: acknowledgement(action) }]),
        }
    }

    /// Acts in `window` from now on (`None`: the grant's bound window); a
    /// different window drops the last screenshot, the cursor and any press.
    pub fn set_window(&self, window: Option<glovebox_model::WindowRef>) {
        let mut state = self.state.lock_recovered();
        if state.session.options.window != window {
            state.session.options.window = window;
            state.forget();
        }
    }

    /// Forgets the last screenshot, the cursor and any pending press.
    pub fn reset(&self) {
        self.state.lock_recovered().forget();
    }

    /// The frame of the screenshot the model last received, to be kept
    /// with a toolset turn that waits for a person.
    pub fn basis(&self) -> Option<glovebox_host::FrameView> {
        self.state.lock_recovered().session.basis.clone()
    }

    /// Aims the toolset's next member through `saved` again, if the window
    /// still is as it was ([`Session::resume_on`]); the agent's cursor and
    /// any press did not survive the wait.
    pub fn resume_toolset_on(&self, saved: &glovebox_host::FrameView) -> Result<(), Refusal> {
        let mut state = self.state.lock_recovered();
        state.forget();
        state.space = Some(Space::Screenshot);
        let look = Look::Fitted(Space::Screenshot.limits(Some(saved))?);
        state.session.resume_on(saved, look)
    }
}

/// The `id` a result must answer; without one nothing can be answered.
pub(crate) fn block_id(tool_use: &Value) -> Result<String, Refusal> {
    tool_use
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| invalid("the tool_use block has no id"))
}

pub(crate) fn check_block_type(tool_use: &Value) -> Result<(), Refusal> {
    match tool_use.get("type").and_then(Value::as_str) {
        Some("tool_use") | None => Ok(()),
        Some(other) => Err(invalid(format!("block type {other:?} is not tool_use"))),
    }
}

/// What a pure toolset action answers: what was done, in one line.
fn acknowledgement(action: &ComputerAction) -> String {
    use ComputerAction::*;
    match action {
        Key { text, .. } => format!("Pressed {text}."),
        Type { .. } => "Typed.".into(),
        MouseMove { .. } => "Moved the mouse.".into(),
        LeftMouseDown { .. } => "Left mouse button pressed.".into(),
        LeftMouseUp { .. } => "Left mouse button released.".into(),
        LeftClick { .. } => "Clicked.".into(),
        LeftClickDrag { .. } => "Dragged.".into(),
        RightClick { .. } => "Right-clicked.".into(),
        MiddleClick { .. } => "Middle-clicked.".into(),
        DoubleClick { .. } => "Double-clicked.".into(),
        TripleClick { .. } => "Triple-clicked.".into(),
        Scroll { scroll_direction, .. } => {
            format!("Scrolled {}.", format!("{scroll_direction:?}").to_lowercase())
        }
        Wait { duration } => format!("Waited {duration}s."),
        HoldKey { .. } | CursorPosition {} | Screenshot {} | Zoom { .. } => String::new(),
    }
}

/// One tool call's error: which combo of a key sequence failed, if several.
fn single(e: WireError, steps: usize) -> Refusal {
    match e.failed_action_index {
        Some(i) if steps > 1 => Refusal::new(
            e.refusal.code,
            format!("step {} of {steps} ({} done): {}", i + 1, e.executed, e.refusal.message),
        ),
        _ => e.refusal,
    }
}

/// The modifiers a pointer action's `text` holds (`ctrl`, `ctrl+shift`).
fn held(text: &Option<String>) -> Result<Vec<ModifierKey>, Refusal> {
    Ok(Modifiers::parse(text.as_deref().unwrap_or_default())?.keys())
}

/// Most times one `key` may repeat.
pub const MAX_KEY_REPEAT: i64 = 20;

/// Maps one action onto host steps through the last screenshot's placement.
fn plan(action: &ComputerAction, state: &State, space: Space) -> Result<Planned, Refusal> {
    use ComputerAction::*;
    let placement = || -> Result<Placement, Refusal> {
        space.placement(state.session.basis.as_ref().ok_or_else(no_screenshot_yet)?.image)
    };
    let at = |c: Display| -> Result<Target, Refusal> {
        placement()?.to_image(c.0, c.1).map(Target::Point)
    };
    let here = |c: &Option<Coordinate>| -> Result<Display, Refusal> {
        match c {
            Some([x, y]) => Ok((*x, *y)),
            None => state.cursor.ok_or_else(|| invalid("no coordinate was given and the agent's cursor has no position yet; give a coordinate")),
        }
    };
    let input = |action: Action, cursor: Option<Display>| Planned {
        steps: vec![Step::Input(action)],
        cursor,
        pressed: None,
    };
    let click = |c: &Option<Coordinate>,
                 text: &Option<String>,
                 button: Button,
                 count: u8|
     -> Result<Planned, Refusal> {
        let modifiers = held(text)?;
        let p = here(c)?;
        Ok(input(Action::Click { target: at(p)?, button, count, modifiers }, Some(p)))
    };
    Ok(match action {
        Key { text, repeat } => {
            let repeat = repeat.unwrap_or(1);
            if !(1..=MAX_KEY_REPEAT).contains(&repeat) {
                return Err(invalid(format!(
                    "key repeat {repeat} is outside 1..={MAX_KEY_REPEAT}"
                )));
            }
            Planned {
                steps: crate::keys::xdotool(text)?
                    .into_iter()
                    .map(|combo| Step::Input(Action::Key { combo, repeat: repeat as u8 }))
                    .collect(),
                cursor: None,
                pressed: None,
            }
        }
        Type { text } => input(Action::Type { text: text.clone() }, None),
        MouseMove { coordinate: [x, y] } => {
            input(Action::Move { target: at((*x, *y))?, modifiers: vec![] }, Some((*x, *y)))
        }
        LeftClick { coordinate, text } => click(coordinate, text, Button::Left, 1)?,
        RightClick { coordinate, text } => click(coordinate, text, Button::Right, 1)?,
        MiddleClick { coordinate, text } => click(coordinate, text, Button::Middle, 1)?,
        DoubleClick { coordinate, text } => click(coordinate, text, Button::Left, 2)?,
        TripleClick { coordinate, text } => click(coordinate, text, Button::Left, 3)?,
        LeftClickDrag { start_coordinate, coordinate: [x, y], text } => {
            let from = here(start_coordinate)?;
            input(
                Action::Drag { from: at(from)?, to: at((*x, *y))?, modifiers: held(text)? },
                Some((*x, *y)),
            )
        }
        LeftMouseDown { coordinate } => {
            let p = here(coordinate)?;
            at(p)?;
            // Nothing is pressed in the window yet: the press and release are delivered together on left_mouse_up.
            Planned { steps: vec![Step::Screenshot], cursor: Some(p), pressed: Some(Some(p)) }
        }
        LeftMouseUp { coordinate } => {
            let down = state
                .pressed
                .ok_or_else(|| invalid("left_mouse_up without a left_mouse_down before it"))?;
            let up = here(coordinate)?;
            let action = if up == down {
                Action::Click { target: at(up)?, button: Button::Left, count: 1, modifiers: vec![] }
            } else {
                Action::Drag { from: at(down)?, to: at(up)?, modifiers: vec![] }
            };
            Planned { steps: vec![Step::Input(action)], cursor: Some(up), pressed: Some(None) }
        }
        Scroll { coordinate, scroll_direction, scroll_amount, text } => {
            if !(1..=MAX_SCROLL_AMOUNT).contains(scroll_amount) {
                return Err(invalid(format!(
                    "scroll_amount {scroll_amount} is outside 1..={MAX_SCROLL_AMOUNT}"
                )));
            }
            let n = *scroll_amount as i32;
            let (dx, dy) = match scroll_direction {
                ScrollDirection::Up => (0, -n),
                ScrollDirection::Down => (0, n),
                ScrollDirection::Left => (-n, 0),
                ScrollDirection::Right => (n, 0),
            };
            let p = here(coordinate)?;
            input(Action::Scroll { target: at(p)?, dx, dy, modifiers: held(text)? }, Some(p))
        }
        Wait { duration } => {
            if !duration.is_finite() || *duration < 0.0 || *duration > MAX_WAIT_SECS {
                return Err(invalid(format!(
                    "wait duration {duration} is outside 0..={MAX_WAIT_SECS} seconds"
                )));
            }
            Planned {
                steps: vec![Step::Wait(Duration::from_secs_f64(*duration))],
                cursor: None,
                pressed: None,
            }
        }
        Screenshot {} => Planned { steps: vec![Step::Screenshot], cursor: None, pressed: None },
        CursorPosition {} | Zoom { .. } | HoldKey { .. } => {
            return Err(invalid(format!("{} is answered before planning", action.name())))
        }
    })
}
