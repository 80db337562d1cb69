//! The host's session tools on a real desktop — batch, wait, zoom,
//! switch_window, open_app — each checked against the fixture's own report
//! or the window list, never against the host's word alone.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::Role;
use glovebox_model::{
    Action, Button, DeliveryMode, ElementQuery, ErrorCode, Rect, Target, WaitCondition, WaitFor,
    WindowId, WindowRef,
};
use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use serde_json::json;
use std::time::{Duration, Instant};

fn desktop() -> (&'static Sandbox, std::sync::MutexGuard<'static, ()>) {
    Sandbox::shared_turn(module_path!())
}

fn window_of(host: &Host, fixture: &Fixture) -> WindowId {
    wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    })
}

fn observe(host: &Host, window: WindowId, screenshot: bool) -> Observation {
    wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window)), screenshot)
            .ok()
            .filter(|o| o.tree.node_count > 10)
    })
}

fn element(seen: &Observation, role: Role, name: &str) -> Target {
    Target::Element(
        seen.tree
            .root
            .as_ref()
            .unwrap()
            .walk()
            .find(|e| e.role == role && e.name == name)
            .unwrap_or_else(|| panic!("no {role} {name}"))
            .id,
    )
}

#[test]
fn batch_runs_steps_in_order_and_stops_at_the_first_refusal() {
    let (sandbox, _turn) = desktop();
    let host = glovebox_testkit::host(sandbox, "batch").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Batch"), &["--no-password"]);
    let window = window_of(&host, &fixture);
    fixture.send(json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    let seen = observe(&host, window, false);
    let budget = seen.grant.budget_left;
    let steps = vec![
        Action::Click {
            target: element(&seen, Role::PushButton, "Submit"),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
        Action::Type { text: "xyz".into() },
        Action::Key { combo: "Home".parse().unwrap(), repeat: 1 },
    ];
    let done = host.batch(seen.frame.id, steps, DeliveryMode::Background).unwrap();
    assert!(done.failed.is_none(), "{:?}", done.failed);
    assert_eq!(done.delivered.len(), 3);
    fixture.wait_state("all three steps", |s| {
        s["clicks"]["submit"] == 1
            && s["values"]["name"] == "xyz"
            && s["keys"].as_array().unwrap().last().is_some_and(|k| k["key"] == "Home")
    });
    assert_eq!(done.next.unwrap().grant.budget_left, budget - 3);

    // A batch of one step, or with a target after the first, runs nothing.
    let seen = observe(&host, window, false);
    let submit = element(&seen, Role::PushButton, "Submit");
    for steps in [
        vec![Action::Type { text: "a".into() }],
        vec![
            Action::Type { text: "a".into() },
            Action::Click { target: submit, button: Button::Left, count: 1, modifiers: vec![] },
        ],
    ] {
        assert_eq!(
            host.batch(seen.frame.id, steps, DeliveryMode::Background).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }
    assert_eq!(fixture.state().unwrap()["values"]["name"], "xyz");
}

#[test]
fn a_batch_step_that_would_type_into_a_password_field_is_refused_and_named() {
    let (sandbox, _turn) = desktop();
    let host = glovebox_testkit::host(sandbox, "batch-secure").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Batch secure"), &[]);
    // The user works in another window, so the fixture's toolkit does not
    // report which of its widgets has focus (an active window would be
    // refused outright while its password field has focus).
    let user = Fixture::launch(sandbox, &unique_title("Batch user"), &["--x", "900"]);
    user.activate();
    let window = window_of(&host, &fixture);
    fixture.send(json!({"cmd": "focus", "widget": "password"}));
    fixture.wait_state("password focused", |s| s["focus"] == "password");
    let seen = observe(&host, window, false);
    let steps = vec![
        Action::Click {
            target: element(&seen, Role::PushButton, "Submit"),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
        Action::Type { text: "hunter2".into() },
    ];
    let done = host.batch(seen.frame.id, steps, DeliveryMode::Background).unwrap();
    assert_eq!(done.delivered.len(), 1);
    let (step, refusal) = done.failed.unwrap();
    assert_eq!((step, refusal.code), (2, ErrorCode::SecureInput), "{refusal}");
    assert!(refusal.message.starts_with("batch step 2"), "{refusal}");
    let state = fixture.wait_state("the click", |s| s["clicks"]["submit"] == 1);
    assert_eq!(state["values"]["password_length"], 0);
}

#[test]
fn wait_times_out_honestly_and_notices_what_appears() {
    let (sandbox, _turn) = desktop();
    let host = glovebox_testkit::host(sandbox, "wait").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Wait"), &[]);
    let window = window_of(&host, &fixture);
    observe(&host, window, false);
    let timed = host.wait(WaitFor::Seconds(0.5), false).unwrap();
    assert_eq!(timed.confirmed, None);
    assert!(timed.waited_ms >= 500);
    let blue = ElementQuery { role: Some("combo box".into()), name: Some("blue".into()) };
    let absent = host
        .wait(
            WaitFor::Until {
                condition: WaitCondition::Appear,
                query: blue.clone(),
                timeout_secs: 0.5,
            },
            false,
        )
        .unwrap();
    assert_eq!(absent.confirmed, Some(false), "a timeout proves nothing and says so");
    let started = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            fixture.send(json!({"cmd": "set", "widget": "combo", "value": "Blue"}));
        });
        let seen = host
            .wait(
                WaitFor::Until {
                    condition: WaitCondition::Appear,
                    query: blue.clone(),
                    timeout_secs: 5.0,
                },
                false,
            )
            .unwrap();
        assert_eq!(seen.confirmed, Some(true));
        assert!(seen.observation.tree.root.as_ref().unwrap().walk().any(|e| blue.matches(e)));
    });
    assert!(started.elapsed() < Duration::from_secs(5));
    for bad in [
        WaitFor::Seconds(6.0),
        WaitFor::Until {
            condition: WaitCondition::Change,
            query: ElementQuery { role: None, name: None },
            timeout_secs: 1.0,
        },
    ] {
        assert_eq!(host.wait(bad, false).unwrap_err().code, ErrorCode::InvalidArgument);
    }
}

#[test]
fn zoom_crops_the_frame_at_full_resolution_and_refuses_outside_it() {
    let (sandbox, _turn) = desktop();
    let host = glovebox_testkit::host(sandbox, "zoom").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Zoom"), &[]);
    let window = window_of(&host, &fixture);
    let seen = observe(&host, window, true);
    let red = &fixture.state().unwrap()["swatches"]["red"];
    let (x, y, w, h) = (
        red[0].as_i64().unwrap() as i32,
        red[1].as_i64().unwrap() as i32,
        red[2].as_u64().unwrap() as u32,
        red[3].as_u64().unwrap() as u32,
    );
    assert_eq!(seen.frame.scale, 1.0, "the fixture window fits the capture limits");
    let zoomed = host.zoom(seen.frame.id, Rect::new(x, y, w, h)).unwrap();
    let image = RgbImage::decode_png(&zoomed.png).unwrap();
    assert_eq!((image.width, image.height), (w, h));
    assert_eq!(image.pixel(w / 2, h / 2), [255, 0, 0]);
    let outside = Rect::new(seen.frame.image.width as i32 - 5, 0, 10, 10);
    assert_eq!(
        host.zoom(seen.frame.id, outside).unwrap_err().code,
        ErrorCode::CoordinateOutOfBounds
    );
    let without_pixels = observe(&host, window, false);
    assert_eq!(
        host.zoom(without_pixels.frame.id, Rect::new(0, 0, 5, 5)).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn switch_window_moves_the_grant_and_ends_the_old_frames() {
    let (sandbox, _turn) = desktop();
    let host = glovebox_testkit::host(sandbox, "switch").open();
    let first = Fixture::launch(sandbox, &unique_title("Switch one"), &[]);
    let second = Fixture::launch(sandbox, &unique_title("Switch two"), &[]);
    let (one, two) = (window_of(&host, &first), window_of(&host, &second));
    let seen = observe(&host, one, false);
    let active_before = second.state().unwrap()["window_active"].clone();
    let switched = host.switch_window(&WindowRef::Id(two), false).unwrap();
    assert_eq!(switched.grant.target, Some(two));
    assert!(switched.grant.revision > seen.grant.revision);
    assert_eq!(
        second.state().unwrap()["window_active"],
        active_before,
        "switching never raises or focuses"
    );
    let stale = host.act(
        seen.frame.id,
        Action::Click {
            target: element(&seen, Role::PushButton, "Submit"),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
    );
    assert_eq!(stale.unwrap_err().code, ErrorCode::StaleRef);
    assert_eq!(first.state().unwrap()["clicks"]["submit"], 0);
}

#[test]
fn open_app_starts_binds_and_refuses_denied_or_unknown_apps() {
    let (sandbox, _turn) = desktop();
    let denied = glovebox_testkit::host(sandbox, "open-denied").deny(&["xterm"]).open();
    let count_xterms = |host: &Host| host.list_windows(Some("XTerm"), 1).unwrap().total;
    let before = count_xterms(&denied);
    assert_eq!(
        denied.open_app("xterm", glovebox_model::Desktop::User, false).unwrap_err().code,
        ErrorCode::TargetDenylisted
    );
    assert_eq!(
        denied
            .open_app("no-such-app-glovebox", glovebox_model::Desktop::User, false)
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count_xterms(&denied), before, "nothing was started");
    drop(denied);

    let host = glovebox_testkit::host(sandbox, "open").open();
    // The user works in their own window; a launch must leave it active and on top.
    let user =
        Fixture::launch(sandbox, &unique_title("Open app user"), &["--x", "40", "--y", "40"]);
    user.activate();
    let user_window = wait_until("user window listed", || {
        host.list_windows(Some(&user.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    });
    let opened =
        host.open_app("gtk3-widget-factory", glovebox_model::Desktop::User, false).unwrap();
    println!("open_app: {:?}", opened.how);
    assert_ne!(opened.how, glovebox_host::Opened::AlreadyRunning);
    assert_eq!(opened.window.app.to_lowercase(), "gtk3-widget-factory");
    assert_eq!(opened.observation.grant.target, Some(opened.window.id));
    let windows = host.list_windows(None, 1).unwrap().windows;
    assert!(windows.iter().any(|w| w.window.id == opened.window.id));
    assert_eq!(
        windows.iter().find(|w| w.window.focused).map(|w| w.window.id),
        Some(user_window),
        "the user's window lost focus ({:?})",
        opened.how
    );
    let rank = |id| windows.iter().position(|w| w.window.id == id);
    assert!(
        rank(user_window) < rank(opened.window.id),
        "the new window went over the user's (frontmost first: {windows:?})"
    );
    assert_eq!(user.state().unwrap()["window_active"], true);
    // Asked again, the running app's window comes back; nothing new starts.
    let count = |host: &Host| host.list_windows(Some("gtk3-widget-factory"), 1).unwrap().total;
    let windows_before = count(&host);
    let again = host.open_app("gtk3-widget-factory", glovebox_model::Desktop::User, false).unwrap();
    assert_eq!(
        (again.how, again.window.id),
        (glovebox_host::Opened::AlreadyRunning, opened.window.id)
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(count(&host), windows_before);
    // The app is ours to end: its process group.
    let _ = std::process::Command::new("kill").arg("--").arg(format!("-{}", opened.pid)).status();
}
