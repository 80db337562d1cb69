//! Semantic background input through the host on the real desktop: each
//! action is checked against the target fixture's own report, and against
//! what must not change — the pointer, the active window, the stacking
//! order, and a second (sentinel) fixture that must receive nothing.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::Role;
use glovebox_model::{Action, Button, ErrorCode, Point, Target, WindowId, WindowRef};
use glovebox_platform::{Route, Semantic};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use serde_json::Value;

/// One private desktop for this binary; tests take turns on it.
fn desktop() -> (&'static Sandbox, std::sync::MutexGuard<'static, ()>) {
    Sandbox::shared_turn(module_path!())
}

struct Stage {
    host: Host,
    target: Fixture,
    sentinel: Fixture,
    window: WindowId,
    sandbox: &'static Sandbox,
}

/// What must be the same before and after a background action.
#[derive(Debug, PartialEq)]
struct Untouched {
    pointer: (i16, i16),
    stacking: Vec<WindowId>,
    focused: Option<WindowId>,
    sentinel_events: usize,
    sentinel_values: Value,
}

impl Stage {
    fn new(sandbox: &'static Sandbox, name: &str) -> Stage {
        let host = glovebox_testkit::host(sandbox, name).shared_runtime().open();
        let target = Fixture::launch(
            sandbox,
            &unique_title(&format!("Target {name}")),
            &["--x", "40", "--y", "40"],
        );
        let sentinel = Fixture::launch(
            sandbox,
            &unique_title(&format!("Sentinel {name}")),
            &["--x", "900", "--y", "40"],
        );
        // The user works in the sentinel; the agent's target stays in the background.
        sentinel.activate();
        let window = wait_until("target listed", || {
            host.list_windows(Some(&target.title), 1)
                .ok()?
                .windows
                .into_iter()
                .next()
                .map(|w| w.window.id)
        });
        Stage { host, target, sentinel, window, sandbox }
    }

    fn observe(&self) -> Observation {
        wait_until("target tree", || {
            self.host
                .observe(Some(&WindowRef::Id(self.window)), false)
                .ok()
                .filter(|o| o.tree.node_count > 10)
        })
    }

    fn element(seen: &Observation, role: Role, name: &str) -> Target {
        let e = seen.tree.root.as_ref().unwrap().walk().find(|e| e.role == role && e.name == name);
        Target::Element(e.unwrap_or_else(|| panic!("no {role} {name:?}")).id)
    }

    fn untouched(&self) -> Untouched {
        let windows = self.host.list_windows(None, 1).unwrap().windows;
        let state = self.sentinel.state().unwrap();
        Untouched {
            pointer: self.sandbox.pointer().unwrap(),
            stacking: windows.iter().map(|w| w.window.id).collect(),
            focused: windows.iter().find(|w| w.window.focused).map(|w| w.window.id),
            sentinel_events: state["events"].as_array().unwrap().len(),
            sentinel_values: state["values"].clone(),
        }
    }

    /// Runs `action` on the newest frame and checks nothing else moved.
    fn act(&self, action: Action) -> Result<glovebox_host::ActOutcome, glovebox_model::Refusal> {
        let before = self.untouched();
        let seen = self.observe();
        let result = self.host.act(seen.frame.id, action);
        assert_eq!(self.untouched(), before, "a background action changed the user's desktop");
        result
    }
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

#[test]
fn click_by_element_is_delivered_in_the_background() {
    let (sandbox, _turn) = desktop();
    let stage = Stage::new(sandbox, "click");
    let seen = stage.observe();
    let submit = Stage::element(&seen, Role::PushButton, "Submit");
    let budget = seen.grant.budget_left;
    let before = stage.untouched();
    let done = stage.host.act(seen.frame.id, click(submit)).unwrap();
    assert!(
        matches!(done.delivery.route, Route::Semantic(Semantic::Invoke(_), _)),
        "{}",
        done.delivery.route
    );
    stage.target.wait_state("submit clicked", |s| {
        s["clicks"]["submit"] == 1 && s["status"] == "Submit clicked"
    });
    assert_eq!(stage.untouched(), before);
    assert_eq!(done.next.as_ref().unwrap().grant.budget_left, budget - 1);
    assert_ne!(done.next.as_ref().unwrap().frame.id, seen.frame.id);
    assert_eq!(
        stage.target.state().unwrap()["window_active"],
        false,
        "the target stayed in the background"
    );
}

#[test]
fn click_by_point_is_hit_tested_to_the_element_under_it() {
    let (sandbox, _turn) = desktop();
    let stage = Stage::new(sandbox, "point");
    let seen = stage.observe();
    let checkbox = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::CheckBox)
        .unwrap()
        .bounds
        .unwrap();
    let centre = Point {
        x: checkbox.x + checkbox.width as i32 / 2,
        y: checkbox.y + checkbox.height as i32 / 2,
    };
    stage.act(click(Target::Point(centre))).unwrap();
    stage.target.wait_state("subscribed", |s| s["values"]["subscribe"] == true);
}

#[test]
fn set_value_replaces_text_with_unicode_intact() {
    let (sandbox, _turn) = desktop();
    let stage = Stage::new(sandbox, "text");
    stage.target.send(serde_json::json!({"cmd": "set", "widget": "name", "value": "old value"}));
    stage.target.wait_state("old value", |s| s["values"]["name"] == "old value");
    let seen = stage.observe();
    let text = "Ada Lovelace — 日本語 ✓ 🦀";
    stage
        .act(Action::SetValue {
            target: Stage::element(&seen, Role::Text, "Name"),
            text: text.into(),
        })
        .unwrap();
    stage.target.wait_state("new name", |s| s["values"]["name"] == text);
    // Clearing is a replacement with nothing.
    let seen = stage.observe();
    stage
        .act(Action::SetValue {
            target: Stage::element(&seen, Role::Text, "Name"),
            text: String::new(),
        })
        .unwrap();
    stage.target.wait_state("cleared", |s| s["values"]["name"] == "");
}

#[test]
fn set_value_moves_a_slider_and_refuses_what_holds_no_value() {
    let (sandbox, _turn) = desktop();
    let stage = Stage::new(sandbox, "slider");
    let seen = stage.observe();
    stage.act(Action::SetValue { target: slider_of(&seen), text: "73".into() }).unwrap();
    stage.target.wait_state("slider at 73", |s| s["values"]["slider"] == 73.0);
    let seen = stage.observe();
    let refused = stage
        .act(Action::SetValue {
            target: Stage::element(&seen, Role::PushButton, "Submit"),
            text: "x".into(),
        })
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ElementNotActionable, "{refused}");
    let seen = stage.observe();
    let refused =
        stage.act(Action::SetValue { target: slider_of(&seen), text: "loud".into() }).unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert_eq!(stage.target.state().unwrap()["values"]["slider"], 73.0);
    assert_eq!(stage.target.state().unwrap()["clicks"]["submit"], 0);
}

fn slider_of(seen: &Observation) -> Target {
    Target::Element(
        seen.tree.root.as_ref().unwrap().walk().find(|e| e.role == Role::Slider).unwrap().id,
    )
}

#[test]
fn select_picks_a_combo_option_and_refuses_unknown_ones() {
    let (sandbox, _turn) = desktop();
    let stage = Stage::new(sandbox, "select");
    let seen = stage.observe();
    let combo = Stage::element(&seen, Role::ComboBox, "Red");
    stage.act(Action::Select { target: combo, option: "Blue".into() }).unwrap();
    stage.target.wait_state("blue", |s| s["values"]["combo"] == "Blue");
    let seen = stage.observe();
    let combo = Stage::element(&seen, Role::ComboBox, "Blue");
    let refused = stage.act(Action::Select { target: combo, option: "Purple".into() }).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ElementNotFound, "{refused}");
    assert_eq!(stage.target.state().unwrap()["values"]["combo"], "Blue");
}

#[test]
fn bad_input_is_refused_with_its_code_and_changes_nothing() {
    let (sandbox, _turn) = desktop();
    let stage = Stage::new(sandbox, "bad");
    let seen = stage.observe();
    let submit = Stage::element(&seen, Role::PushButton, "Submit");
    let budget = seen.grant.budget_left;
    let outside = Target::Point(Point { x: seen.frame.image.width as i32 + 5, y: 10 });
    // A chord that names no key never becomes an action: it is refused where it is read.
    assert_eq!(
        "hyper+q".parse::<glovebox_model::KeyCombo>().unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    for (action, code) in [
        (Action::Key { combo: "Enter".parse().unwrap(), repeat: 21 }, ErrorCode::InvalidArgument),
        (Action::Type { text: String::new() }, ErrorCode::InvalidArgument),
        (
            Action::Click { target: submit, button: Button::Left, count: 4, modifiers: vec![] },
            ErrorCode::InvalidArgument,
        ),
        (
            Action::Drag { from: submit, to: outside, modifiers: vec![] },
            ErrorCode::CoordinateOutOfBounds,
        ),
        (Action::SetValue { target: submit, text: "x".into() }, ErrorCode::ElementNotActionable),
    ] {
        let kind = action.kind();
        let refused = stage.act(action).unwrap_err();
        assert_eq!(refused.code, code, "{kind}: {refused}");
    }
    // The password field has the application's focus, but the window is
    // inactive, so its toolkit does not say so: keys are refused, not sent.
    stage.target.send(serde_json::json!({"cmd": "focus", "widget": "password"}));
    stage.target.wait_state("password focused", |s| s["focus"] == "password");
    for action in [
        Action::Type { text: "hunter2".into() },
        Action::Key { combo: "a".parse().unwrap(), repeat: 1 },
    ] {
        assert_eq!(stage.act(action).unwrap_err().code, ErrorCode::SecureInput);
    }
    let state = stage.target.state().unwrap();
    assert_eq!(state["clicks"]["submit"], 0);
    assert_eq!(state["values"]["password_length"], 0);
    assert_eq!(state["keys"], serde_json::json!([]));
    assert_eq!(stage.host.grant_status().unwrap().budget_left, budget, "refusals cost nothing");
}
