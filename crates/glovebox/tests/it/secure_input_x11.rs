//! Secure input on a real desktop, by the routes that do not type: a
//! middle click pastes the PRIMARY selection into the field under it even
//! when that field is not focused, so one on a password field is refused
//! (a GTK3 fixture and zenity's forms dialog, nobody's here); and the
//! reads that do not capture anew — a zoom into an older screenshot, the
//! window list — show secure input as an observation would. The oracles
//! are the applications' own reports (the fixture's field lengths,
//! zenity's printed values).
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::{
    Action, Button, DeliveryMode, Denial, ErrorCode, Point, Rect, Refusal, Role, Target, WindowId,
    WindowRef,
};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::Reaped;
use serde_json::json;
use std::process::Stdio;
use std::time::Duration;

fn window_of(host: &Host, title: &str) -> WindowId {
    wait_until("window listed", || {
        host.list_windows(Some(title), 1).ok()?.windows.into_iter().next().map(|w| w.window.id)
    })
}

fn observe_until(
    host: &Host,
    window: WindowId,
    screenshot: bool,
    ready: impl Fn(&Observation) -> bool,
) -> Observation {
    wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window)), screenshot)
            .ok()
            .filter(|o| o.tree.node_count > 5 && ready(o))
    })
}

/// The centre of the element `role` `name` as a point of the frame's image.
fn point_of(seen: &Observation, role: Role, name: &str) -> (Target, Target) {
    let e = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?}"));
    let b = e.bounds.expect("bounds");
    let scale = seen.frame.scale;
    let at = Point {
        x: ((b.x + b.width as i32 / 2) as f64 * scale) as i32,
        y: ((b.y + b.height as i32 / 2) as f64 * scale) as i32,
    };
    (Target::Point(at), Target::Element(e.id))
}

fn middle(target: Target) -> Action {
    Action::Click { target, button: Button::Middle, count: 1, modifiers: vec![] }
}

fn refused<T: std::fmt::Debug>(result: Result<T, Refusal>) -> Refusal {
    result.expect_err("a refusal")
}

/// The fixture's Name field holds `text`, selected: GTK gives an entry's
/// selection to PRIMARY, which a middle click anywhere pastes.
fn select_into_primary(fixture: &Fixture, text: &str) {
    fixture.send(json!({"cmd": "set", "widget": "name", "value": text}));
    fixture.send(json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name" && s["values"]["name"] == text);
}

#[test]
fn a_middle_click_on_an_unfocused_password_field_pastes_nothing() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "paste").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Paste password"), &[]);
    fixture.activate();
    select_into_primary(&fixture, "Geheimnis");
    let window = window_of(&host, &fixture.title);
    let seen = observe_until(&host, window, false, |o| {
        o.tree.root.as_ref().unwrap().walk().any(|e| e.role == Role::PasswordText)
    });
    let (password_at, password) = point_of(&seen, Role::PasswordText, "Password");
    // By point (what a pixel-reading model sends), by id, and as a batch's first step.
    for target in [password_at, password] {
        let refusal = refused(host.act(seen.frame.id, middle(target)));
        assert_eq!(refusal.code, ErrorCode::SecureInput, "{refusal:?}");
        assert!(
            refusal.message.contains("never writes into password fields"),
            "{}",
            refusal.message
        );
    }
    let batch = host.batch(
        seen.frame.id,
        vec![middle(password_at), Action::Key { combo: "End".parse().unwrap(), repeat: 1 }],
        DeliveryMode::Background,
    );
    assert_eq!(refused(batch).code, ErrorCode::SecureInput);
    std::thread::sleep(Duration::from_millis(500));
    let state = fixture.state().unwrap();
    assert_eq!(state["values"]["password_length"], 0, "nothing was pasted into the password field");
    assert_eq!(state["focus"], "name", "the field did not even take focus");

    // The same click on the Email field pastes: PRIMARY held the text all along.
    let seen = observe_until(&host, window, false, |_| true);
    let (email_at, _) = point_of(&seen, Role::Text, "Email");
    host.act(seen.frame.id, middle(email_at)).expect("a middle click on a plain field");
    fixture.wait_state("pasted into Email", |s| s["values"]["email"] == "Geheimnis");
    assert_eq!(fixture.state().unwrap()["values"]["password_length"], 0);
}

#[test]
fn a_middle_click_on_zenitys_password_field_pastes_nothing() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "paste-zenity").open();
    // The selection comes from another application, as a user's would.
    let source = Fixture::launch(
        sandbox,
        &unique_title("Paste source"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    source.activate();
    select_into_primary(&source, "Geheimnis");
    let title = unique_title("Paste forms");
    let out = sandbox.runtime_dir().join(format!("{}.out", title.replace(' ', "_")));
    let mut zenity = Reaped(
        sandbox
            .command("zenity")
            .args([
                "--forms",
                "--title",
                &title,
                "--add-entry",
                "Login",
                "--add-password",
                "Secret",
            ])
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("zenity (installed by .ci/install-deps)"),
    );
    let dialog = window_of(&host, &title);
    let has = |o: &Observation, role, name: &str| {
        o.tree.root.as_ref().unwrap().walk().any(|e| e.role == role && e.name == name)
    };
    let seen = observe_until(&host, dialog, false, |o| {
        has(o, Role::PasswordText, "Secret") && has(o, Role::PushButton, "OK")
    });
    let (secret_at, _) = point_of(&seen, Role::PasswordText, "Secret");
    assert_eq!(refused(host.act(seen.frame.id, middle(secret_at))).code, ErrorCode::SecureInput);
    // Login takes the paste (the selection is there), then OK prints both fields.
    let seen = observe_until(&host, dialog, false, |_| true);
    let (login_at, _) = point_of(&seen, Role::Text, "Login");
    host.act(seen.frame.id, middle(login_at)).expect("a middle click on zenity's plain field");
    let seen = wait_until("pasted into Login", || {
        let seen = host.observe(Some(&WindowRef::Id(dialog)), false).ok()?;
        let login =
            seen.tree.root.as_ref()?.walk().find(|e| e.role == Role::Text && e.name == "Login")?.id;
        (host.read(seen.frame.id, &[login]).ok()?.first()?.text == "Geheimnis").then_some(seen)
    });
    let ok = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::PushButton && e.name == "OK")
        .unwrap()
        .id;
    host.act(
        seen.frame.id,
        Action::Click {
            target: Target::Element(ok),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
    )
    .expect("OK");
    let status = wait_until("zenity exits", || zenity.0.try_wait().ok().flatten());
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().trim_end(),
        "Geheimnis|",
        "zenity printed Login and an empty Secret"
    );
}

#[test]
fn a_zoom_sees_a_password_field_take_focus() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "zoom-secure").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Zoom password"), &[]);
    fixture.activate();
    fixture.send(json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    let window = window_of(&host, &fixture.title);
    let seen = observe_until(&host, window, true, |_| true);
    let region = Rect::new(0, 0, 40, 40);
    host.zoom(seen.frame.id, region).expect("a zoom before the password field has focus");
    let listed = |host: &Host| {
        host.list_windows(Some(&fixture.title), 1)
            .unwrap()
            .windows
            .into_iter()
            .find(|w| w.window.id == window)
            .unwrap()
    };
    assert_eq!(listed(&host).denial, None);

    fixture.send(json!({"cmd": "focus", "widget": "password"}));
    fixture.wait_state("password focused", |s| s["focus"] == "password");
    // The screenshot predates the focus; the zoom asks again now and refuses as observe does.
    let refusal = wait_until("zoom refused", || {
        host.zoom(seen.frame.id, region).err().filter(|e| e.code == ErrorCode::SecureInput)
    });
    assert_eq!(
        refusal.message,
        refused(host.observe(None, true)).message,
        "the zoom refuses in observe's words"
    );
    // A listing does not walk the window's tree for a password field (costly on large
    // applications); it shows the keyboard grab only, and an observation refuses.
    assert_eq!(listed(&host).denial, None);

    // Focus leaves the field: the same old frame may be zoomed into again.
    fixture.send(json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    wait_until("zoom allowed again", || host.zoom(seen.frame.id, region).ok());
    wait_until("listed without a denial", || listed(&host).denial.is_none().then_some(()));
}

#[test]
fn a_keyboard_grab_shows_on_every_listed_window_and_stops_a_zoom() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "zoom-grab").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Zoom grab"), &["--no-password"]);
    let window = window_of(&host, &fixture.title);
    let seen = observe_until(&host, window, true, |_| true);
    let region = Rect::new(0, 0, 40, 40);
    host.zoom(seen.frame.id, region).expect("a zoom before the grab");
    // A prompt-like client grabs the keyboard on its own window.
    let grab = glovebox_testkit::desktop::KeyboardGrab::take(sandbox.display());
    let refusal = refused(host.zoom(seen.frame.id, region));
    assert_eq!(refusal.code, ErrorCode::SecureInput);
    assert!(refusal.message.contains("holds the keyboard"), "{}", refusal.message);
    let page = host.list_windows(Some(&fixture.title), 1).unwrap();
    let listed = page.windows.iter().find(|w| w.window.id == window).unwrap();
    assert!(
        matches!(&listed.denial, Some(Denial::SecureInput { detail }) if detail.contains("holds the keyboard")),
        "{:?}",
        listed.denial
    );
    grab.release();
    wait_until("grab released", || host.zoom(seen.frame.id, region).ok());
    assert_eq!(host.list_windows(Some(&fixture.title), 1).unwrap().windows[0].denial, None);
}
