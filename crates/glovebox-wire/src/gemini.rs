//! Gemini computer use (the Gemini API's `computer_use` tool): the model's
//! predefined function calls (`click_at`, `type_text_at`, `scroll_at`,
//! `key_combination`, `drag_and_drop`, `wait_5_seconds`, …) run against the
//! bound window, each answered with a `functionResponse` carrying the
//! screenshot taken after it.
//!
//! Coordinates are on Gemini's 0–999 grid, mapped per axis through the
//! frame of the screenshot last returned (`x · width / 1000`); a value off
//! the grid is refused, never clamped. Mapping, and where glovebox differs:
//! - `type_text_at` with `clear_before_typing` (the default) sets the
//!   field's whole value at the point (glovebox's `set_value`, read back);
//!   without it, clicks the point and types at the caret; `press_enter`
//!   presses Enter after.
//! - `scroll_at`'s `magnitude` is on the grid too (default 800); it becomes
//!   wheel steps of 100 image pixels. `scroll_document` scrolls 10 steps at
//!   the window's centre.
//! - `go_back` / `go_forward` press the pointer's back and forward side
//!   buttons at the window's centre, which browsers and file managers take
//!   as history navigation.
//! - `open_web_browser`, `search` and `navigate` are refused: glovebox
//!   operates the bound window and opens nothing.
//!
//! A call whose `args.safety_decision` asks for confirmation runs only once
//! the user explicitly acknowledged it through the host's prompt channel
//! ([`glovebox_host::Host::acknowledge_safety_check`]); without one it fails
//! closed with `COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED` and nothing runs. The
//! response then says `safety_acknowledgement: "true"`.

use crate::error::{invalid, WireError};
use crate::openai::scroll_steps;
use crate::session::{no_screenshot_yet, ExecutorOptions, Look, Session, Step};
use base64::Engine as _;
use glovebox_host::{Host, PersonChannel};
use glovebox_model::{Action, Button, Point, Refusal, Size, Target};
use glovebox_platform::sync::LockRecovered as _;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The grid's size per axis: coordinates lie in 0..GRID.
pub const GRID: i64 = 1000;
/// `scroll_at`'s magnitude when the call gives none (grid units).
pub const DEFAULT_MAGNITUDE: i64 = 800;
/// Wheel steps of one `scroll_document`.
pub const DOCUMENT_STEPS: i32 = 10;
/// The functions glovebox declares excluded: nothing in a window answers them.
pub const EXCLUDED: &[&str] = &["open_web_browser", "search", "navigate"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

/// One predefined function call, by its `name` and `args`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "name", content = "args", rename_all = "snake_case")]
pub enum GeminiCall {
    OpenWebBrowser {},
    ClickAt {
        x: i64,
        y: i64,
    },
    HoverAt {
        x: i64,
        y: i64,
    },
    TypeTextAt {
        x: i64,
        y: i64,
        text: String,
        #[serde(default)]
        press_enter: Option<bool>,
        #[serde(default)]
        clear_before_typing: Option<bool>,
    },
    ScrollDocument {
        direction: Direction,
    },
    ScrollAt {
        x: i64,
        y: i64,
        direction: Direction,
        #[serde(default)]
        magnitude: Option<i64>,
    },
    #[serde(rename = "wait_5_seconds")]
    Wait5Seconds {},
    GoBack {},
    GoForward {},
    Search {},
    Navigate {
        url: String,
    },
    KeyCombination {
        keys: String,
    },
    DragAndDrop {
        x: i64,
        y: i64,
        destination_x: i64,
        destination_y: i64,
    },
}

/// A call as the model sent it: the action, its optional `id`, and the
/// safety decision that came with it.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionCall {
    pub name: String,
    pub id: Option<String>,
    pub call: GeminiCall,
    /// `args.safety_decision.explanation` when the decision is `require_confirmation`.
    pub confirmation: Option<String>,
}

impl FunctionCall {
    /// Reads a `functionCall` object (`{"name", "args", "id"?}`). The
    /// model's `intent` and `safety_decision` are taken out of the args
    /// first; any other unknown argument is refused.
    pub fn parse(value: &Value) -> Result<FunctionCall, Refusal> {
        let name = value
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| invalid("the function call has no name"))?
            .to_owned();
        let mut args = match value.get("args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args.clone(),
            Some(other) => {
                return Err(invalid(format!("the args of {name} are not an object: {other}")))
            }
        };
        args.remove("intent");
        let confirmation = match args.remove("safety_decision") {
            None | Some(Value::Null) => None,
            Some(decision) => match decision.get("decision").and_then(Value::as_str) {
                Some("require_confirmation") => Some(decision.get("explanation").and_then(Value::as_str).unwrap_or("(no explanation given)").to_owned()),
                Some("regular" | "allowed") => None,
                _ => return Err(invalid(format!("{name}'s safety_decision {decision} is not one glovebox knows; nothing was run"))),
            },
        };
        let call: GeminiCall = serde_json::from_value(json!({"name": name, "args": args}))
            .map_err(|e| invalid(format!("{name}: {e}")))?;
        let known = call_fields(&call);
        if let Some(extra) = args.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(invalid(format!("{name} has no argument {extra:?}")));
        }
        let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
        Ok(FunctionCall { name, id, call, confirmation })
    }
}

fn call_fields(call: &GeminiCall) -> &'static [&'static str] {
    use GeminiCall::*;
    match call {
        ClickAt { .. } | HoverAt { .. } => &["x", "y"],
        TypeTextAt { .. } => &["x", "y", "text", "press_enter", "clear_before_typing"],
        ScrollDocument { .. } => &["direction"],
        ScrollAt { .. } => &["x", "y", "direction", "magnitude"],
        Navigate { .. } => &["url"],
        KeyCombination { .. } => &["keys"],
        DragAndDrop { .. } => &["x", "y", "destination_x", "destination_y"],
        OpenWebBrowser {} | Wait5Seconds {} | GoBack {} | GoForward {} | Search {} => &[],
    }
}

/// A grid coordinate pair as a point of an image of `size`.
pub fn to_image(x: i64, y: i64, size: Size) -> Result<Point, Refusal> {
    for (axis, v) in [("x", x), ("y", y)] {
        if !(0..GRID).contains(&v) {
            return Err(glovebox_host::refusals::off_the_grid(axis, v, "Gemini", GRID - 1));
        }
    }
    Ok(Point {
        x: (x * i64::from(size.width) / GRID) as i32,
        y: (y * i64::from(size.height) / GRID) as i32,
    })
}

/// Host steps for one call, through the last screenshot's image size.
pub fn plan(call: &GeminiCall, image: Option<Size>) -> Result<Vec<Step>, Refusal> {
    use GeminiCall::*;
    let size = || image.ok_or_else(no_screenshot_yet);
    let at =
        |x: i64, y: i64| -> Result<Target, Refusal> { Ok(Target::Point(to_image(x, y, size()?)?)) };
    let centre = || -> Result<Target, Refusal> {
        let s = size()?;
        Ok(Target::Point(Point { x: (s.width / 2) as i32, y: (s.height / 2) as i32 }))
    };
    let input = |action: Action| Step::Input(action);
    let click = |target: Target, button: Button| {
        input(Action::Click { target, button, count: 1, modifiers: vec![] })
    };
    let wheel = |direction: Direction, steps: i32| match direction {
        Direction::Up => (0, -steps),
        Direction::Down => (0, steps),
        Direction::Left => (-steps, 0),
        Direction::Right => (steps, 0),
    };
    Ok(match call {
        ClickAt { x, y } => vec![click(at(*x, *y)?, Button::Left)],
        HoverAt { x, y } => vec![input(Action::Move { target: at(*x, *y)?, modifiers: vec![] })],
        TypeTextAt { x, y, text, press_enter, clear_before_typing } => {
            let target = at(*x, *y)?;
            let mut steps = if clear_before_typing.unwrap_or(true) {
                vec![input(Action::SetValue { target, text: text.clone() })]
            } else {
                vec![click(target, Button::Left), input(Action::Type { text: text.clone() })]
            };
            if press_enter.unwrap_or(false) {
                steps.push(input(Action::Key {
                    combo: "Enter".parse().expect("a key name"),
                    repeat: 1,
                }));
            }
            steps
        }
        ScrollDocument { direction } => {
            let (dx, dy) = wheel(*direction, DOCUMENT_STEPS);
            vec![input(Action::Scroll { target: centre()?, dx, dy, modifiers: vec![] })]
        }
        ScrollAt { x, y, direction, magnitude } => {
            let magnitude = magnitude.unwrap_or(DEFAULT_MAGNITUDE);
            if !(0..=GRID).contains(&magnitude) {
                return Err(invalid(format!(
                    "scroll magnitude {magnitude} is off Gemini's 0–1000 grid"
                )));
            }
            let s = size()?;
            let along = if matches!(direction, Direction::Up | Direction::Down) {
                s.height
            } else {
                s.width
            };
            let steps = scroll_steps(magnitude * i64::from(along) / GRID, "magnitude")?.max(1);
            let (dx, dy) = wheel(*direction, steps);
            vec![input(Action::Scroll { target: at(*x, *y)?, dx, dy, modifiers: vec![] })]
        }
        Wait5Seconds {} => vec![Step::Wait(Duration::from_secs(5))],
        GoBack {} => vec![click(centre()?, Button::Back)],
        GoForward {} => vec![click(centre()?, Button::Forward)],
        KeyCombination { keys } => {
            let parts: Vec<String> = keys.split('+').map(|k| k.trim().to_owned()).collect();
            vec![input(Action::Key { combo: crate::keys::ga_keypress(&parts)?, repeat: 1 })]
        }
        DragAndDrop { x, y, destination_x, destination_y } => {
            vec![input(Action::Drag {
                from: at(*x, *y)?,
                to: at(*destination_x, *destination_y)?,
                modifiers: vec![],
            })]
        }
        OpenWebBrowser {} | Search {} | Navigate { .. } => {
            return Err(invalid("glovebox operates the bound window and opens no browser, page or search; act in the window with the other functions"));
        }
    })
}

/// Runs Gemini computer-use calls against one host. Stateful (the last
/// screenshot's frame); calls are serialised.
pub struct GeminiExecutor {
    session: Mutex<Session>,
}

impl GeminiExecutor {
    /// The tree the last screenshot was taken with, for a trajectory's diffs.
    pub fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>> {
        self.session.lock_recovered().last_tree.clone()
    }

    pub fn new(host: Host, options: ExecutorOptions) -> GeminiExecutor {
        GeminiExecutor { session: Mutex::new(Session::new(host, options)) }
    }

    /// The screenshot a conversation starts from (the first basis).
    pub fn screenshot(
        &self,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<Vec<u8>, WireError> {
        let mut session = self.session.lock_recovered();
        let asking =
            channel.map(|a| session.host.with_channel(a)).unwrap_or_else(|| session.host.clone());
        let approved = session.approve(&asking, &[Step::Screenshot])?;
        let seen = session.finish(&approved, Look::Configured)?;
        Ok(seen.screenshot.expect("finish checks the screenshot"))
    }

    /// Runs one call; the PNG taken after it.
    pub fn execute(
        &self,
        call: &FunctionCall,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<Vec<u8>, WireError> {
        let mut session = self.session.lock_recovered();
        let steps =
            plan(&call.call, session.basis.as_ref().map(|b| b.image)).map_err(WireError::new)?;
        session.precheck(&steps)?;
        let asking =
            channel.map(|a| session.host.with_channel(a)).unwrap_or_else(|| session.host.clone());
        let approved = session.approve(&asking, &steps)?;
        if let Some(explanation) = &call.confirmation {
            let lines = session.span(&steps).actions;
            let id = call.id.clone().unwrap_or_else(|| call.name.clone());
            if approved
                .acknowledge_safety_check(
                    &id,
                    Some("require_confirmation"),
                    Some(explanation),
                    &lines,
                )
                .is_err()
            {
                return Err(WireError::new(glovebox_host::refusals::safety_check_unacknowledged(
                    &format!("Gemini asked for the user's confirmation of {} ({explanation}) and the user did not give it", call.name),
                )));
            }
        }
        session.run(&approved, &steps, Look::Configured)?;
        let seen = session.finish(&approved, Look::Configured)?;
        Ok(seen.screenshot.expect("finish checks the screenshot"))
    }

    /// The `functionResponse` part answering `call` (a raw `functionCall`
    /// object): the screenshot after it, or the refusal as `error` (with a
    /// screenshot of the window as it is, when one can be taken).
    pub fn function_response(
        &self,
        call: &Value,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Value {
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let id = call.get("id").cloned();
        let parsed = FunctionCall::parse(call).map_err(WireError::new);
        let outcome =
            parsed.as_ref().map_err(Clone::clone).and_then(|c| self.execute(c, channel.clone()));
        let (response, png) = match outcome {
            Ok(png) => {
                let mut response = json!({});
                if parsed.as_ref().is_ok_and(|c| c.confirmation.is_some()) {
                    response["safety_acknowledgement"] = json!("true");
                }
                (response, Some(png))
            }
            Err(e) => (json!({"error": e.refusal.to_string()}), self.screenshot(channel).ok()),
        };
        let mut part = json!({"name": name, "response": response});
        if let Some(id) = id {
            part["id"] = id;
        }
        if let Some(png) = png {
            part["parts"] = json!([{"inlineData": {"mimeType": "image/png", "data": base64::engine::general_purpose::STANDARD.encode(png)}}]);
        }
        json!({"functionResponse": part})
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

    /// Acts in `window` from now on (`None`: the grant's bound window); a
    /// different window drops the last screenshot.
    pub fn set_window(&self, window: Option<glovebox_model::WindowRef>) {
        let mut session = self.session.lock_recovered();
        if session.options.window != window {
            session.options.window = window;
            session.basis = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::ErrorCode;

    fn call(v: Value) -> Result<FunctionCall, Refusal> {
        FunctionCall::parse(&v)
    }

    #[test]
    fn the_grid_maps_per_axis_and_nothing_off_it_is_clamped() {
        let size = Size::new(640, 480);
        assert_eq!(to_image(0, 0, size).unwrap(), Point { x: 0, y: 0 });
        assert_eq!(to_image(500, 500, size).unwrap(), Point { x: 320, y: 240 });
        assert_eq!(to_image(999, 999, size).unwrap(), Point { x: 639, y: 479 });
        for (x, y) in [(1000, 0), (0, 1000), (-1, 5), (5, i64::MAX)] {
            assert_eq!(
                to_image(x, y, size).unwrap_err().code,
                ErrorCode::CoordinateOutOfBounds,
                "{x},{y}"
            );
        }
    }

    #[test]
    fn calls_parse_strictly_with_intent_and_safety_decision_set_aside() {
        let c = call(json!({"name": "click_at", "args": {"x": 1, "y": 2, "intent": "press OK"}}))
            .unwrap();
        assert_eq!(c.call, GeminiCall::ClickAt { x: 1, y: 2 });
        let c = call(json!({"name": "type_text_at", "id": "c1", "args": {"x": 1, "y": 2, "text": "hi", "press_enter": true,
            "safety_decision": {"decision": "require_confirmation", "explanation": "submits a form"}}}))
        .unwrap();
        assert_eq!(c.confirmation.as_deref(), Some("submits a form"));
        assert_eq!(c.id.as_deref(), Some("c1"));
        assert!(call(json!({"name": "wait_5_seconds"})).is_ok());
        for bad in [
            json!({"name": "click_at", "args": {"x": 1}}),
            json!({"name": "click_at", "args": {"x": 1, "y": 2, "button": "right"}}),
            json!({"name": "teleport", "args": {}}),
            json!({"args": {}}),
            json!({"name": "click_at", "args": {"x": 1, "y": 2, "safety_decision": {"decision": "maybe"}}}),
        ] {
            assert_eq!(call(bad.clone()).unwrap_err().code, ErrorCode::InvalidArgument, "{bad}");
        }
    }

    #[test]
    fn plans_follow_the_documented_mapping() {
        let size = Some(Size::new(1000, 500));
        let point = |x, y| Target::Point(Point { x, y });
        let steps = plan(
            &GeminiCall::TypeTextAt {
                x: 100,
                y: 100,
                text: "Ada".into(),
                press_enter: Some(true),
                clear_before_typing: None,
            },
            size,
        )
        .unwrap();
        assert_eq!(
            steps,
            vec![
                Step::Input(Action::SetValue { target: point(100, 50), text: "Ada".into() }),
                Step::Input(Action::Key { combo: "Enter".parse().expect("a key name"), repeat: 1 })
            ]
        );
        let steps = plan(
            &GeminiCall::ScrollAt { x: 500, y: 500, direction: Direction::Down, magnitude: None },
            size,
        )
        .unwrap();
        assert_eq!(
            steps,
            vec![Step::Input(Action::Scroll {
                target: point(500, 250),
                dx: 0,
                dy: 4,
                modifiers: vec![]
            })]
        );
        assert_eq!(
            plan(&GeminiCall::KeyCombination { keys: "Control+Shift+T".into() }, size).unwrap(),
            vec![Step::Input(Action::Key { combo: "ctrl+shift+t".parse().unwrap(), repeat: 1 })]
        );
        assert_eq!(
            plan(&GeminiCall::ClickAt { x: 1, y: 1 }, None).unwrap_err().code,
            ErrorCode::StaleRef
        );
        assert_eq!(
            plan(&GeminiCall::Navigate { url: "https://example.com".into() }, size)
                .unwrap_err()
                .code,
            ErrorCode::InvalidArgument
        );
    }
}
