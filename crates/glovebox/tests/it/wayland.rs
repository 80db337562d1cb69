//! glovebox on a Wayland desktop: the headless sway sandbox, with the GTK3,
//! GTK4 and Qt 5 fixtures and FeatherPad as native Wayland clients.
//! Windows come from the compositor, trees from AT-SPI, pixels from
//! wlr-screencopy; input goes only through accessibility. Every result is
//! checked against the application's own report (or the file it saved),
//! and every action against the compositor's own word on focus and
//! stacking, a sentinel window that must hear nothing, and the seat, which
//! must never gain an input device.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::Role;
use glovebox_model::{Action, Button, ElementId, ErrorCode, Point, Target, WindowId, WindowRef};
use glovebox_platform::RgbImage;
use glovebox_platform::{Route, Semantic};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture, FixtureKind};
use glovebox_sandbox::wayland::WaylandSandbox;
use serde_json::Value;

/// What the compositor itself says, read with `swaymsg` (not glovebox's parser).
#[derive(Debug, Clone, PartialEq)]
struct Desk {
    /// The focused view's pid.
    focused: Option<u64>,
    /// Floating views, bottom to top, as `(pid, x, y, width, height)`.
    stacking: Vec<(u64, i64, i64, i64, i64)>,
    /// Input devices on the seat: none in the headless sandbox, and glovebox must add none.
    devices: usize,
}

fn desk(sandbox: &WaylandSandbox) -> Desk {
    let tree: Value = serde_json::from_str(&sandbox.swaymsg(&["-t", "get_tree"]).unwrap()).unwrap();
    let mut desk = Desk { focused: None, stacking: vec![], devices: 0 };
    fn walk(node: &Value, desk: &mut Desk) {
        if node["focused"] == true && node["pid"].is_u64() {
            desk.focused = node["pid"].as_u64();
        }
        for child in node["nodes"].as_array().into_iter().flatten() {
            walk(child, desk);
        }
        for float in node["floating_nodes"].as_array().into_iter().flatten() {
            let r = &float["rect"];
            desk.stacking.push((
                float["pid"].as_u64().unwrap_or(0),
                r["x"].as_i64().unwrap(),
                r["y"].as_i64().unwrap(),
                r["width"].as_i64().unwrap(),
                r["height"].as_i64().unwrap(),
            ));
            walk(float, desk);
        }
    }
    walk(&tree, &mut desk);
    let seats: Value =
        serde_json::from_str(&sandbox.swaymsg(&["-t", "get_seats"]).unwrap()).unwrap();
    desk.devices = seats
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| s["devices"].as_array().map_or(0, Vec::len))
        .sum();
    desk
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
            .filter(|o| o.tree.node_count > 5)
    })
}

fn find(seen: &Observation, role: Role, name: &str) -> ElementId {
    seen.tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", seen.tree.render_text()))
        .id
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

/// Places a window (by its pid) where the test wants it, through the compositor.
fn place(sandbox: &WaylandSandbox, pid: u32, x: i32, y: i32) {
    sandbox
        .swaymsg(&[&format!("[pid={pid}]"), "move", "position", &x.to_string(), &y.to_string()])
        .unwrap();
}

#[test]
fn windows_trees_and_screenshots_come_from_the_compositor_and_covered_parts_stay_black() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "observe").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Wayland GTK3"), &[]);
    place(sandbox, fixture.pid(), 40, 40);
    let window = window_of(&host, &fixture);
    assert_eq!(window.pid, fixture.pid(), "the compositor's pid is the application's");
    let listed = host.list_windows(Some(&fixture.title), 1).unwrap().windows.remove(0).window;
    assert_eq!((listed.geometry.x, listed.geometry.y), (40, 40), "{listed:?}");

    let seen = observe(&host, window, true);
    println!("{}", seen.tree.render_text());
    // The application knows only window-relative places: the screen's are the compositor's placement added.
    let submit = seen.tree.find(find(&seen, Role::PushButton, "Submit")).unwrap();
    let (bounds, screen) = (
        submit.bounds.expect("Submit has bounds"),
        submit.screen_bounds.expect("and screen bounds"),
    );
    let state = fixture.state().unwrap();
    let alloc: Vec<i64> = state["allocations"]["submit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(
        (bounds.x as i64, bounds.y as i64, bounds.width as i64),
        (alloc[0], alloc[1], alloc[2]),
        "Submit's bounds against the fixture's allocation"
    );
    assert_eq!(
        (screen.x as i64, screen.y as i64),
        (40 + alloc[0], 40 + alloc[1]),
        "Submit's place on the screen"
    );
    // The red swatch is red in the screenshot, where the fixture says it is.
    let image = RgbImage::decode_png(seen.screenshot.as_ref().expect("a screenshot")).unwrap();
    assert_eq!((image.width, image.height), (listed.geometry.width, listed.geometry.height));
    let red: Vec<i64> =
        state["swatches"]["red"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert_eq!(
        image.pixel((red[0] + red[2] / 2) as u32, (red[1] + red[3] / 2) as u32),
        [255, 0, 0]
    );

    // The password field is refused as secure input, on Wayland as on X11, and nothing is typed.
    let password = find(&seen, Role::PasswordText, "Password");
    let refusal = host
        .act(
            seen.frame.id,
            Action::SetValue { target: Target::Element(password), text: "hunter2".into() },
        )
        .expect_err("a password field");
    assert_eq!(refusal.code, ErrorCode::SecureInput, "{refusal:?}");
    assert_eq!(fixture.state().unwrap()["values"]["password_length"], 0);
    let audit = std::fs::read_to_string(
        glovebox_sandbox::Desktop::runtime_dir(sandbox).join("audit-observe.jsonl"),
    )
    .unwrap_or_default();
    assert!(!audit.contains("hunter2"), "the secret never reaches the audit");

    // A GTK4 window laid over the red swatch: its pixels never appear in the GTK3 window's image.
    let cover =
        Fixture::launch_kind(sandbox, FixtureKind::Gtk4, &unique_title("Wayland cover"), &[]);
    let (cx, cy) = (40 + red[0] as i32 - 10, 40 + red[1] as i32 - 10);
    place(sandbox, cover.pid(), cx, cy);
    wait_until("cover placed", || {
        desk(sandbox)
            .stacking
            .last()
            .is_some_and(|top| top.0 == cover.pid() as u64 && top.1 == cx as i64)
            .then_some(())
    });
    let covered = observe(&host, window, true);
    let image = RgbImage::decode_png(covered.screenshot.as_ref().unwrap()).unwrap();
    assert_eq!(
        image.pixel((red[0] + red[2] / 2) as u32, (red[1] + red[3] / 2) as u32),
        [0, 0, 0],
        "the cover's pixels are blacked out"
    );
    assert!(
        !covered.frame.occluded.is_empty(),
        "the frame says what was covered: {:?}",
        covered.frame
    );
    let desktop = host.list_windows(None, 1).unwrap();
    assert_eq!(
        desktop.windows[0].window.id.pid,
        cover.pid(),
        "the most recently raised window is listed first"
    );
}

#[test]
fn semantic_input_reaches_a_gtk3_window_and_pointer_gestures_and_raw_keys_are_refused() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "input").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Wayland input"), &["--no-password"]);
    place(sandbox, fixture.pid(), 60, 60);
    let sentinel =
        Fixture::launch_kind(sandbox, FixtureKind::Gtk4, &unique_title("Wayland sentinel"), &[]);
    place(sandbox, sentinel.pid(), 1200, 100);
    let window = window_of(&host, &fixture);
    let sentinel_before = sentinel.state().unwrap();
    let before = desk(sandbox);
    assert_eq!(
        before.focused,
        Some(sentinel.pid() as u64),
        "the sentinel, started last, has the focus: {before:?}"
    );
    let unchanged = |what: &str| {
        let now = desk(sandbox);
        assert_eq!(now, before, "{what}: focus, stacking and the seat stay as they were");
        let s = sentinel.state().unwrap();
        assert_eq!(
            (&s["values"], &s["clicks"], &s["keys"]),
            (&sentinel_before["values"], &sentinel_before["clicks"], &sentinel_before["keys"]),
            "{what}: the sentinel heard nothing"
        );
    };

    let seen = observe(&host, window, false);
    let done = host
        .act(
            seen.frame.id,
            Action::SetValue {
                target: Target::Element(find(&seen, Role::Text, "Name")),
                text: "Grace Hopper".into(),
            },
        )
        .unwrap();
    fixture.wait_state("name set", |s| s["values"]["name"] == "Grace Hopper");
    println!("set_value: {}", done.delivery.route);
    unchanged("set_value");

    let seen = observe(&host, window, false);
    let done = host
        .act(seen.frame.id, click(Target::Element(find(&seen, Role::PushButton, "Submit"))))
        .unwrap();
    fixture.wait_state("Submit pressed", |s| s["clicks"]["submit"] == 1);
    assert!(done.delivery.route.is_accessible(), "{}", done.delivery.route);
    unchanged("click Submit");

    let seen = observe(&host, window, false);
    host.act(seen.frame.id, click(Target::Element(find(&seen, Role::CheckBox, "Subscribe"))))
        .unwrap();
    fixture.wait_state("Subscribe ticked", |s| s["values"]["subscribe"] == true);
    unchanged("toggle Subscribe");

    let seen = observe(&host, window, false);
    host.act(
        seen.frame.id,
        Action::Select {
            target: Target::Element(find(&seen, Role::ComboBox, "Red")),
            option: "Blue".into(),
        },
    )
    .unwrap();
    fixture.wait_state("Blue chosen", |s| s["values"]["combo"] == "Blue");
    unchanged("select Blue");

    // Typing goes into the focused field through EditableText, where the toolkit says which one has focus.
    let seen = observe(&host, window, false);
    let focused = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.has(glovebox_model::ElementState::Focused))
        .map(|e| (e.role, e.name.clone()));
    match host.act(seen.frame.id, Action::Type { text: " & Co ✓".into() }) {
        Ok(done) => {
            fixture.wait_state("typed", |s| {
                s["values"]["name"].as_str().is_some_and(|n| n.contains("& Co ✓"))
            });
            println!("type: {} into {focused:?}", done.delivery.route);
        }
        Err(refusal) => {
            // GTK3 reports no focused widget in a window that is not active.
            assert!(
                focused.is_none(),
                "focus is known ({focused:?}) yet typing was refused: {refusal:?}"
            );
            assert_eq!(refusal.code, ErrorCode::ElementNotActionable, "{refusal:?}");
            assert_eq!(fixture.state().unwrap()["values"]["name"], "Grace Hopper");
            println!("type refused: {}", refusal.message);
        }
    }
    unchanged("type");

    // A point on the Cancel button is that button's own action.
    let seen = observe(&host, window, false);
    let cancel = seen.tree.find(find(&seen, Role::PushButton, "Cancel")).unwrap().bounds.unwrap();
    let at =
        Point { x: cancel.x + cancel.width as i32 / 2, y: cancel.y + cancel.height as i32 / 2 };
    host.act(seen.frame.id, click(Target::Point(at))).unwrap();
    fixture.wait_state("Cancel pressed", |s| s["clicks"]["cancel"] == 1);
    unchanged("click at Cancel's point");

    // Ctrl+N is the File menu's New item: activated as the application's own shortcut.
    let seen = observe(&host, window, false);
    let done = host
        .act(seen.frame.id, Action::Key { combo: "ctrl+n".parse().unwrap(), repeat: 1 })
        .unwrap();
    fixture.wait_state("New chosen", |s| s["clicks"]["menu_new"] == 1);
    assert!(
        matches!(&done.delivery.route, Route::Shortcut { combo, .. } if combo.to_string() == "ctrl+n"),
        "{}",
        done.delivery.route
    );
    unchanged("ctrl+n");

    // Refusals: exact, and nothing changes.
    let quiet = fixture.state().unwrap();
    let refusals: Vec<(&str, Action)> = vec![
        (
            "a right click",
            Action::Click {
                target: Target::Element(find(&seen, Role::PushButton, "Submit")),
                button: Button::Right,
                count: 1,
                modifiers: vec![],
            },
        ),
        ("a raw key", Action::Key { combo: "Return".parse().unwrap(), repeat: 1 }),
        (
            "a double click",
            Action::Click {
                target: Target::Element(find(&seen, Role::PushButton, "Submit")),
                button: Button::Left,
                count: 2,
                modifiers: vec![],
            },
        ),
        ("a scroll", Action::Scroll { target: Target::Point(at), dx: 0, dy: 3, modifiers: vec![] }),
        ("a click at a label's point", click(Target::Point(label_point(&seen, "Email")))),
    ];
    for (what, action) in refusals {
        let frame = observe(&host, window, false).frame.id;
        let refusal = host.act(frame, action).expect_err(what);
        assert_eq!(refusal.code, ErrorCode::BackgroundUnavailable, "{what}: {refusal:?}");
        assert!(
            refusal.message.contains("Wayland"),
            "{what}: the reason is said: {}",
            refusal.message
        );
        println!("{what}: {}", refusal.message);
    }
    // Ctrl+V is bound to Paste, which is disabled (GTK3 then publishes no action and no binding for
    // it): refused, nothing sent.
    let frame = observe(&host, window, false).frame.id;
    let refusal = host
        .act(frame, Action::Key { combo: "ctrl+v".parse().unwrap(), repeat: 1 })
        .expect_err("ctrl+v on a disabled item");
    assert_eq!(refusal.code, ErrorCode::BackgroundUnavailable, "{refusal:?}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let after = fixture.state().unwrap();
    assert_eq!(
        (&after["values"], &after["clicks"], &after["events"]),
        (&quiet["values"], &quiet["clicks"], &quiet["events"]),
        "the refusals changed nothing"
    );
    unchanged("the refusals");
}

fn label_point(seen: &Observation, name: &str) -> Point {
    let label = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::Label && e.name == name)
        .expect("label")
        .bounds
        .expect("label bounds");
    Point { x: label.x + label.width as i32 / 2, y: label.y + label.height as i32 / 2 }
}

#[test]
fn gtk4_and_qt5_windows_take_fields_buttons_and_choices_through_accessibility() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "toolkits").open();
    let gtk4 = Fixture::launch_kind(
        sandbox,
        FixtureKind::Gtk4,
        &unique_title("Wayland GTK4"),
        &["--no-password"],
    );
    place(sandbox, gtk4.pid(), 100, 500);
    let qt5 = Fixture::launch_kind(sandbox, FixtureKind::Qt5, &unique_title("Wayland Qt5"), &[]);
    place(sandbox, qt5.pid(), 700, 500);
    let before = desk(sandbox);

    let window = window_of(&host, &gtk4);
    let seen = observe(&host, window, true);
    println!("{}", seen.tree.render_text());
    host.act(
        seen.frame.id,
        Action::SetValue {
            target: Target::Element(find(&seen, Role::Text, "Name")),
            text: "Ada".into(),
        },
    )
    .unwrap();
    gtk4.wait_state("GTK4 name", |s| s["values"]["name"] == "Ada");
    // GTK 4.8 publishes no action for a check button: nothing can toggle it without a pointer.
    let seen = observe(&host, window, false);
    let refusal = host
        .act(seen.frame.id, click(Target::Element(find(&seen, Role::CheckBox, "Subscribe"))))
        .expect_err("GTK4's check box");
    assert_eq!(refusal.code, ErrorCode::BackgroundUnavailable, "{refusal:?}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(
        gtk4.state().unwrap()["values"]["subscribe"],
        false,
        "the check box stayed as it was"
    );
    let seen = observe(&host, window, false);
    host.act(seen.frame.id, click(Target::Element(find(&seen, Role::PushButton, "Submit"))))
        .unwrap();
    gtk4.wait_state("GTK4 submit", |s| s["clicks"]["submit"] == 1);

    let window = window_of(&host, &qt5);
    let seen = observe(&host, window, true);
    println!("{}", seen.tree.render_text());
    host.act(
        seen.frame.id,
        Action::SetValue {
            target: Target::Element(find(&seen, Role::Text, "Name")),
            text: "Lovelace".into(),
        },
    )
    .unwrap();
    qt5.wait_state("Qt name", |s| s["values"]["name"] == "Lovelace");
    // Qt says which field has focus even in an inactive window: typing goes there through EditableText.
    let seen = observe(&host, window, false);
    let typed = host
        .act(seen.frame.id, Action::Type { text: "·Ω".into() })
        .expect("typing into Qt's focused field");
    qt5.wait_state("Qt typed", |s| {
        s["values"]["name"].as_str().is_some_and(|n| n.contains("·Ω") && n.contains("Lovelace"))
    });
    assert!(
        matches!(typed.delivery.route.base(), Route::Semantic(Semantic::InsertText, _)),
        "{}",
        typed.delivery.route
    );
    let seen = observe(&host, window, false);
    host.act(seen.frame.id, click(Target::Element(find(&seen, Role::PushButton, "Submit"))))
        .unwrap();
    qt5.wait_state("Qt submit", |s| s["clicks"]["submit"] == 1);
    let seen = observe(&host, window, false);
    let refusal = host
        .act(seen.frame.id, Action::Key { combo: "Return".parse().unwrap(), repeat: 1 })
        .expect_err("a raw key to Qt");
    assert_eq!(refusal.code, ErrorCode::BackgroundUnavailable);
    assert_eq!(desk(sandbox), before, "focus, stacking and the seat stay as they were");
}

#[test]
fn featherpad_saves_through_its_own_ctrl_s_menu_item() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "featherpad").open();
    let home = glovebox_sandbox::Desktop::runtime_dir(sandbox).join("featherpad-home");
    std::fs::create_dir_all(&home).unwrap();
    let path = home.join("wayland-notes.txt");
    std::fs::write(&path, "before\n").unwrap();
    let mut editor = sandbox
        .command("featherpad")
        .arg(&path)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("featherpad (Debian package featherpad)");
    let pid = editor.id();
    let window = wait_until("FeatherPad listed", || {
        host.list_windows(None, 1)
            .ok()?
            .windows
            .into_iter()
            .find(|w| w.window.id.pid == pid)
            .map(|w| w.window.id)
    });
    let seen = wait_until("FeatherPad's document", || {
        host.observe(Some(&WindowRef::Id(window)), false).ok().filter(|o| {
            o.tree
                .root
                .as_ref()
                .is_some_and(|r| r.walk().any(|e| e.role == Role::Text && e.has_value))
        })
    });
    let document = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::Text && e.has_value)
        .unwrap()
        .id;
    let before = desk(sandbox);
    host.act(
        seen.frame.id,
        Action::SetValue { target: Target::Element(document), text: "written on Wayland\n".into() },
    )
    .unwrap();
    let seen = observe(&host, window, false);
    let save = host
        .act(seen.frame.id, Action::Key { combo: "ctrl+s".parse().unwrap(), repeat: 1 })
        .expect("ctrl+s through FeatherPad's menu");
    wait_until("FeatherPad saved the file", || {
        (std::fs::read_to_string(&path).ok()? == "written on Wayland\n").then_some(())
    });
    println!("featherpad ctrl+s: {}", save.delivery.route);
    assert!(
        matches!(&save.delivery.route, Route::Shortcut { combo, .. } if combo.to_string() == "ctrl+s"),
        "{}",
        save.delivery.route
    );
    assert_eq!(desk(sandbox), before, "focus, stacking and the seat stay as they were");
    let _ = editor.kill();
    let _ = editor.wait();
}

#[test]
fn without_the_compositors_ipc_windows_come_from_accessibility_and_grants_hold_no_pixels() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "unlisted")
        .without_compositor_ipc("the test does not use the compositor's IPC")
        .open();
    let fixture = Fixture::launch(sandbox, &unique_title("Wayland unlisted"), &["--no-password"]);
    let window = window_of(&host, &fixture);
    assert_eq!(window.pid, fixture.pid(), "the bus daemon's pid is the application's");
    let listed = host.list_windows(Some(&fixture.title), 1).unwrap().windows.remove(0).window;
    let compositor = desk(sandbox)
        .stacking
        .into_iter()
        .find(|v| v.0 == fixture.pid() as u64)
        .expect("the compositor shows the fixture");
    assert_eq!(
        (listed.geometry.width as i64, listed.geometry.height as i64),
        (compositor.3, compositor.4),
        "the size the toolkit reports is the compositor's"
    );
    assert_eq!(
        host.list_windows(Some(&fixture.title), 1).unwrap().windows[0].window.id,
        window,
        "the id holds from listing to listing"
    );

    let seen = observe(&host, window, false);
    assert_eq!(
        seen.grant.capture,
        glovebox_model::CaptureMode::A11yOnly,
        "the grant says it holds no pixels"
    );
    let refusal = host.observe(Some(&WindowRef::Id(window)), true).expect_err("a screenshot");
    assert_eq!(refusal.code, ErrorCode::BackendUnavailable, "{refusal:?}");
    assert!(refusal.message.contains("accessibility-only"), "{}", refusal.message);

    host.act(
        seen.frame.id,
        Action::SetValue {
            target: Target::Element(find(&seen, Role::Text, "Email")),
            text: "ada@example.org".into(),
        },
    )
    .unwrap();
    fixture.wait_state("email set", |s| s["values"]["email"] == "ada@example.org");
    let seen = observe(&host, window, false);
    host.act(seen.frame.id, click(Target::Element(find(&seen, Role::PushButton, "Submit"))))
        .unwrap();
    fixture.wait_state("Submit pressed", |s| s["clicks"]["submit"] == 1);
}

#[test]
fn a_denied_window_is_black_wherever_it_shows_on_a_desktop_screenshot_and_cannot_be_observed() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "deny").deny(&["fixture_gtk4.py"]).open();
    let open = Fixture::launch(sandbox, &unique_title("Wayland open"), &[]);
    place(sandbox, open.pid(), 0, 0);
    let denied =
        Fixture::launch_kind(sandbox, FixtureKind::Gtk4, &unique_title("Wayland denied"), &[]);
    place(sandbox, denied.pid(), 300, 200);
    wait_until("both placed", || {
        let d = desk(sandbox);
        let at = |pid: u32| d.stacking.iter().find(|v| v.0 == pid as u64).map(|v| (v.1, v.2));
        (at(open.pid()) == Some((0, 0)) && at(denied.pid()) == Some((300, 200))).then_some(())
    });
    let shot = host
        .read_desktop_pixels(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits::new(1920, 1080).unwrap(),
        )
        .unwrap();
    assert_eq!((shot.image.width, shot.image.height), (1920, 1080));
    let red: Vec<i64> = open.state().unwrap()["swatches"]["red"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(
        shot.image.pixel((red[0] + 5) as u32, (red[1] + 5) as u32),
        [255, 0, 0],
        "the open window shows"
    );
    let geometry = host.list_windows(Some(&denied.title), 1).unwrap().windows.remove(0);
    assert!(geometry.denial.is_some(), "the listing says the window is denied: {geometry:?}");
    let g = geometry.window.geometry;
    for (x, y) in [
        (g.x + 5, g.y + 5),
        (g.x + g.width as i32 / 2, g.y + g.height as i32 / 2),
        (g.x + g.width as i32 - 5, g.y + g.height as i32 - 5),
    ] {
        assert_eq!(
            shot.image.pixel(x as u32, y as u32),
            [0, 0, 0],
            "the denied window is black at {x},{y}"
        );
    }
    assert!(!shot.frame.occluded.is_empty(), "and listed as hidden: {:?}", shot.frame.occluded);
    let refusal = host
        .observe(Some(&WindowRef::Id(geometry.window.id)), false)
        .expect_err("observing a denied window");
    assert_eq!(refusal.code, ErrorCode::TargetDenylisted, "{refusal:?}");
}

#[test]
fn open_app_starts_a_native_wayland_client_and_gives_the_user_their_window_back() {
    let (sandbox, _turn) = WaylandSandbox::shared_turn();
    let host = glovebox_testkit::wayland_host(sandbox, "open-app").open();
    let user = Fixture::launch(sandbox, &unique_title("Wayland user"), &[]);
    place(sandbox, user.pid(), 20, 20);
    wait_until("the user's window focused", || {
        (desk(sandbox).focused == Some(user.pid() as u64)).then_some(())
    });
    let opened = host
        .open_app("gtk3-widget-factory", glovebox_model::Desktop::User, false)
        .expect("open_app on Wayland");
    println!("open_app: {:?} {:?}", opened.how, opened.window);
    assert_ne!(opened.how, glovebox_host::Opened::AlreadyRunning);
    assert_eq!(opened.window.id.pid, opened.pid, "the window is the started process's");
    assert!(
        opened.observation.tree.node_count > 20,
        "it is on the accessibility bus: {}",
        opened.observation.tree.render_text()
    );
    // Its header bar is drawn by the client, shadows around it: the frame the toolkit reports is larger
    // than the window the compositor placed. The Close button still lands in the window's top-right corner.
    let close = opened
        .observation
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::PushButton && e.name == "Close")
        .expect("the header bar's Close");
    let (b, w) = (close.bounds.expect("Close has bounds"), opened.window.geometry);
    let right_gap = w.width as i32 - (b.x + b.width as i32);
    assert!(
        (0..24).contains(&right_gap) && (0..24).contains(&b.y),
        "Close at {b:?} in a {}x{} window",
        w.width,
        w.height
    );
    let now = desk(sandbox);
    assert_eq!(
        now.focused,
        Some(user.pid() as u64),
        "the user's window has the focus again: {now:?}"
    );
    assert_eq!(now.stacking.last().map(|v| v.0), Some(user.pid() as u64), "and is on top: {now:?}");
    assert_eq!(now.devices, 0);
    let again = host.open_app("gtk3-widget-factory", glovebox_model::Desktop::User, false).unwrap();
    assert_eq!(
        (again.how, again.window.id),
        (glovebox_host::Opened::AlreadyRunning, opened.window.id)
    );
    let _ = std::process::Command::new("kill").arg("--").arg(format!("-{}", opened.pid)).status();
}
