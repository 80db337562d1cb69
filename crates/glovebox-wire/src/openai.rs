//! The OpenAI GA computer tool: a `computer_call` item (one `action` or a
//! batch of `actions`) runs in order against the bound window's frame and
//! is answered with one `computer_call_output` carrying exactly one new
//! PNG, taken after the whole batch. Coordinates are pixels of the
//! screenshot the model last received; `screenshot` actions are deferred
//! markers (no input, no intermediate image).
//!
//! Mapping onto host actions, and where glovebox differs:
//! - `click {button: left|right|wheel|back|forward}` is a click (wheel =
//!   middle button, back/forward = the side buttons); `keys` on a pointer
//!   action are modifiers held through it, delivered by the same routes
//!   (in the background: in the events' state) or refused exactly.
//! - `drag {path}` drags from the first point to the last; intermediate
//!   points are not followed (the host drags in a straight line).
//! - `scroll {scroll_x, scroll_y}` in pixels becomes wheel steps of 100
//!   pixels, rounded away from zero; more than 100 steps is refused.
//! - `wait` sleeps [`crate::ExecutorOptions::ga_wait`] (1 s by default).
//!
//! Safety checks: any `pending_safety_checks` go to the channel; unless
//! every one is explicitly approved nothing runs
//! (`COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED`), and the output echoes exactly
//! the approved checks.

use crate::error::{invalid, WireError};
use crate::gate::SafetyCheck;
use crate::session::{ExecutorOptions, Look, Session, Step};
use base64::Engine as _;
use glovebox_host::{Host, PersonChannel};
use glovebox_model::{Action, Button, ModifierKey, Modifiers, Point, Refusal, Target};
use glovebox_platform::sync::LockRecovered as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Most actions one call may carry.
pub const MAX_ACTIONS: usize = 64;
/// Pixels per wheel step when GA scroll distances become host steps.
pub const PIXELS_PER_STEP: i64 = 100;
/// The host's wheel-step range per axis.
pub const MAX_STEPS: i64 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaButton {
    #[default]
    Left,
    Right,
    Wheel,
    Back,
    Forward,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GaPoint {
    pub x: i64,
    pub y: i64,
}

/// One GA action as the model sent it. `keys` on pointer actions are the
/// modifiers the model wants held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GaAction {
    Click {
        x: i64,
        y: i64,
        #[serde(default)]
        button: GaButton,
        #[serde(default)]
        keys: Option<Vec<String>>,
    },
    DoubleClick {
        x: i64,
        y: i64,
        #[serde(default)]
        keys: Option<Vec<String>>,
    },
    Drag {
        path: Vec<GaPoint>,
        #[serde(default)]
        keys: Option<Vec<String>>,
    },
    Keypress {
        keys: Vec<String>,
    },
    Move {
        x: i64,
        y: i64,
        #[serde(default)]
        keys: Option<Vec<String>>,
    },
    Screenshot {},
    Scroll {
        x: i64,
        y: i64,
        scroll_x: i64,
        scroll_y: i64,
        #[serde(default)]
        keys: Option<Vec<String>>,
    },
    Type {
        text: String,
    },
    Wait {},
}

/// A `computer_call` item, normalised: a single `action` becomes a batch of one.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputerCall {
    pub id: Option<String>,
    pub call_id: String,
    pub actions: Vec<GaAction>,
    pub pending_safety_checks: Vec<SafetyCheck>,
}

impl ComputerCall {
    /// Reads a `computer_call` item; every action is checked before
    /// anything runs, and a bad one is named by its index.
    pub fn parse(item: &Value) -> Result<ComputerCall, WireError> {
        let object =
            item.as_object().ok_or_else(|| invalid("a computer_call item is a JSON object"))?;
        match object.get("type").and_then(Value::as_str) {
            Some("computer_call") | None => {}
            Some(other) => {
                return Err(invalid(format!("item type {other:?} is not computer_call")).into())
            }
        }
        let call_id = object
            .get("call_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| invalid("the computer_call has no call_id"))?;
        let id = object.get("id").and_then(Value::as_str).map(str::to_owned);
        let raw: Vec<Value> = match (
            object.get("action").filter(|v| !v.is_null()),
            object.get("actions").filter(|v| !v.is_null()),
        ) {
            (Some(_), Some(_)) => {
                return Err(
                    invalid("a computer_call carries `action` or `actions`, not both").into()
                )
            }
            (Some(one), None) => vec![one.clone()],
            (None, Some(Value::Array(many))) => many.clone(),
            (None, Some(_)) => return Err(invalid("`actions` is a list").into()),
            (None, None) => return Err(invalid("the computer_call carries no action").into()),
        };
        if raw.is_empty() || raw.len() > MAX_ACTIONS {
            return Err(invalid(format!(
                "a computer_call carries 1..={MAX_ACTIONS} actions, not {}",
                raw.len()
            ))
            .into());
        }
        let actions = raw
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                serde_json::from_value::<GaAction>(v)
                    .map_err(|e| WireError::at(i, 0, invalid(format!("action {i}: {e}"))))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pending_safety_checks = match object.get("pending_safety_checks") {
            None | Some(Value::Null) => vec![],
            Some(v) => serde_json::from_value(v.clone())
                .map_err(|e| invalid(format!("pending_safety_checks: {e}")))?,
        };
        Ok(ComputerCall { id, call_id: call_id.to_owned(), actions, pending_safety_checks })
    }

    /// Only screenshots and waits: no input approval needed.
    pub fn observation_only(&self) -> bool {
        self.actions.iter().all(|a| matches!(a, GaAction::Screenshot {} | GaAction::Wait {}))
    }
}

fn point(x: i64, y: i64) -> Result<Target, Refusal> {
    if x < 0 || y < 0 || x > i32::MAX as i64 || y > i32::MAX as i64 {
        return Err(invalid(format!(
            "coordinates ({x}, {y}) must be screenshot pixels (0 or more)"
        )));
    }
    Ok(Target::Point(Point { x: x as i32, y: y as i32 }))
}

/// The modifiers a pointer action's `keys` hold (`["CTRL"]`, `["shift", "alt"]`).
fn held(keys: &Option<Vec<String>>) -> Result<Vec<ModifierKey>, Refusal> {
    let mut held = vec![];
    for key in keys.iter().flatten() {
        held.extend(Modifiers::parse(key)?.keys());
    }
    Ok(Modifiers::of(&held).keys())
}

/// Wheel steps for a GA scroll distance in pixels: 100 pixels a step,
/// rounded away from zero, at least one for any movement; beyond the
/// host's ±100 steps is refused, never clamped.
pub fn scroll_steps(pixels: i64, axis: &str) -> Result<i32, Refusal> {
    let steps = pixels.unsigned_abs().div_ceil(PIXELS_PER_STEP as u64);
    if steps > MAX_STEPS as u64 {
        return Err(invalid(format!(
            "{axis} of {pixels} pixels is {steps} wheel steps; one scroll moves at most {MAX_STEPS} steps ({} pixels)",
            MAX_STEPS * PIXELS_PER_STEP
        )));
    }
    Ok(pixels.signum() as i32 * steps as i32)
}

/// The host step of one GA action.
pub fn plan_action(action: &GaAction, options: &ExecutorOptions) -> Result<Step, Refusal> {
    Ok(match action {
        GaAction::Click { x, y, button, keys } => {
            let button = match button {
                GaButton::Left => Button::Left,
                GaButton::Right => Button::Right,
                GaButton::Wheel => Button::Middle,
                GaButton::Back => Button::Back,
                GaButton::Forward => Button::Forward,
            };
            Step::Input(Action::Click {
                target: point(*x, *y)?,
                button,
                count: 1,
                modifiers: held(keys)?,
            })
        }
        GaAction::DoubleClick { x, y, keys } => Step::Input(Action::Click {
            target: point(*x, *y)?,
            button: Button::Left,
            count: 2,
            modifiers: held(keys)?,
        }),
        GaAction::Drag { path, keys } => {
            if path.len() < 2 {
                return Err(invalid(format!(
                    "a drag path needs at least 2 points, not {}",
                    path.len()
                )));
            }
            let (first, last) = (path[0], path[path.len() - 1]);
            for p in path {
                point(p.x, p.y)?;
            }
            Step::Input(Action::Drag {
                from: point(first.x, first.y)?,
                to: point(last.x, last.y)?,
                modifiers: held(keys)?,
            })
        }
        GaAction::Keypress { keys } => {
            Step::Input(Action::Key { combo: crate::keys::ga_keypress(keys)?, repeat: 1 })
        }
        GaAction::Move { x, y, keys } => {
            Step::Input(Action::Move { target: point(*x, *y)?, modifiers: held(keys)? })
        }
        GaAction::Screenshot {} => Step::Screenshot,
        GaAction::Scroll { x, y, scroll_x, scroll_y, keys } => {
            let (dx, dy) =
                (scroll_steps(*scroll_x, "scroll_x")?, scroll_steps(*scroll_y, "scroll_y")?);
            if dx == 0 && dy == 0 {
                return Err(invalid("a scroll needs a non-zero scroll_x or scroll_y"));
            }
            Step::Input(Action::Scroll { target: point(*x, *y)?, dx, dy, modifiers: held(keys)? })
        }
        GaAction::Type { text } => Step::Input(Action::Type { text: text.clone() }),
        GaAction::Wait {} => Step::Wait(options.ga_wait),
    })
}

/// The whole batch as host steps; the first action that cannot be mapped
/// is named and nothing runs.
pub fn plan(actions: &[GaAction], options: &ExecutorOptions) -> Result<Vec<Step>, WireError> {
    actions
        .iter()
        .enumerate()
        .map(|(i, a)| plan_action(a, options).map_err(|e| WireError::at(i, 0, e)))
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OutputItemType {
    #[serde(rename = "computer_call_output")]
    ComputerCallOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScreenshotType {
    #[serde(rename = "computer_screenshot")]
    ComputerScreenshot,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputerScreenshot {
    #[serde(rename = "type")]
    pub kind: ScreenshotType,
    /// `data:image/png;base64,…`
    pub image_url: String,
}

/// The `computer_call_output` item answering one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputerCallOutput {
    #[serde(rename = "type")]
    pub kind: OutputItemType,
    pub call_id: String,
    /// Exactly the pending checks the user approved; absent when there were none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledged_safety_checks: Vec<SafetyCheck>,
    pub output: ComputerScreenshot,
}

impl ComputerCallOutput {
    pub fn new(call_id: String, acknowledged: Vec<SafetyCheck>, png: &[u8]) -> ComputerCallOutput {
        let image_url = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(png)
        );
        ComputerCallOutput {
            kind: OutputItemType::ComputerCallOutput,
            call_id,
            acknowledged_safety_checks: acknowledged,
            output: ComputerScreenshot { kind: ScreenshotType::ComputerScreenshot, image_url },
        }
    }

    /// The PNG bytes of the screenshot.
    pub fn png(&self) -> Result<Vec<u8>, Refusal> {
        let data = self
            .output
            .image_url
            .strip_prefix("data:image/png;base64,")
            .ok_or_else(|| invalid("the image_url is not a PNG data URL"))?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| invalid(format!("the image_url is not base64: {e}")))
    }
}

/// Runs GA computer calls against one host. Stateful: it keeps the frame of
/// the screenshot it last returned, which every coordinate maps through.
/// Calls are serialised.
pub struct OpenAiExecutor {
    session: Mutex<Session>,
}

impl OpenAiExecutor {
    /// The tree the last screenshot was taken with, for a trajectory's diffs.
    pub fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>> {
        self.session.lock_recovered().last_tree.clone()
    }

    pub fn new(host: Host, options: ExecutorOptions) -> OpenAiExecutor {
        OpenAiExecutor { session: Mutex::new(Session::new(host, options)) }
    }

    /// [`OpenAiExecutor::execute_call`] on a JSON `computer_call` item.
    pub fn execute(&self, item: &Value) -> Result<ComputerCallOutput, WireError> {
        self.execute_call(&ComputerCall::parse(item)?, None)
    }

    /// [`OpenAiExecutor::execute`] asking this call's prompts (approvals,
    /// safety checks) through `channel` instead of the executor's host's.
    pub fn execute_with(
        &self,
        item: &Value,
        channel: Arc<dyn PersonChannel>,
    ) -> Result<ComputerCallOutput, WireError> {
        self.execute_call(&ComputerCall::parse(item)?, Some(channel))
    }

    /// Maps and checks the whole batch, asks the host to approve it (a
    /// denied class stops the call first), then puts every pending safety
    /// check to the user, runs the batch in order and answers with the
    /// screenshot taken after it. The first failing action stops the batch
    /// and is named.
    pub fn execute_call(
        &self,
        call: &ComputerCall,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<ComputerCallOutput, WireError> {
        let mut session = self.session.lock_recovered();
        let steps = plan(&call.actions, &session.options)?;
        session.precheck(&steps)?;
        let asking = match channel {
            Some(channel) => session.host.with_channel(channel),
            None => session.host.clone(),
        };
        let approved = session.approve(&asking, &steps)?;
        let lines = session.span(&steps).actions;
        let mut open = vec![];
        for check in &call.pending_safety_checks {
            if approved
                .acknowledge_safety_check(
                    &check.id,
                    check.code.as_deref(),
                    check.message.as_deref(),
                    &lines,
                )
                .is_err()
            {
                open.push(format!("{} ({})", check.id, check.code.as_deref().unwrap_or("no code")));
            }
        }
        if !open.is_empty() {
            return Err(WireError::new(glovebox_host::refusals::safety_check_unacknowledged(
                &format!(
                    "the user did not explicitly acknowledge the provider's safety check(s) {}",
                    open.join(", ")
                ),
            )));
        }
        session.run(&approved, &steps, Look::Configured)?;
        let seen = session.finish(&approved, Look::Configured)?;
        let png = seen.screenshot.expect("finish checks the screenshot");
        Ok(ComputerCallOutput::new(call.call_id.clone(), call.pending_safety_checks.clone(), &png))
    }

    /// Acts in `window` from now on (`None`: the grant's bound window); a
    /// different window drops the last screenshot.
    pub fn set_window(&self, window: Option<glovebox_model::WindowRef>) {
        let mut session = self.session.lock_recovered();
        if session.options.window != window {
            session.options.window = window;
            session.basis = None;
        }
    }

    /// Forgets the last screenshot: the next coordinate needs a new one.
    pub fn reset(&self) {
        self.session.lock_recovered().basis = None;
    }

    /// The frame of the screenshot the model last received, to be kept
    /// with a call that waits for a person.
    pub fn basis(&self) -> Option<glovebox_host::FrameView> {
        self.session.lock_recovered().basis.clone()
    }

    /// Aims the next call through `saved` again, if the window still is
    /// as it was ([`Session::resume_on`]).
    pub fn resume_on(&self, saved: &glovebox_host::FrameView) -> Result<(), Refusal> {
        self.session.lock_recovered().resume_on(saved, Look::Configured)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::ErrorCode;

    #[test]
    fn scroll_pixels_become_steps_rounded_away_from_zero() {
        assert_eq!(scroll_steps(0, "y").unwrap(), 0);
        assert_eq!(scroll_steps(1, "y").unwrap(), 1);
        assert_eq!(scroll_steps(100, "y").unwrap(), 1);
        assert_eq!(scroll_steps(101, "y").unwrap(), 2);
        assert_eq!(scroll_steps(-250, "y").unwrap(), -3);
        assert_eq!(scroll_steps(10_000, "y").unwrap(), 100);
        assert_eq!(scroll_steps(10_001, "y").unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(scroll_steps(i64::MIN, "y").unwrap_err().code, ErrorCode::InvalidArgument);
    }
}
