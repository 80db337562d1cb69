//! GTK4 through its own accessibility, in the background on the user's
//! desktop: gtk4-widget-factory from Debian 12 (GTK 4.8) and from Debian 13
//! (GTK 4.18, in a root built by `mmdebstrap` and entered with bubblewrap,
//! talking to the sandbox's X server and buses). A slider and a spin button
//! take `Value.SetCurrentValue`, a check box and a toggle button their own
//! actions, an entry typed text through `EditableText`, and a label's
//! right click its `menu.popup`. The oracle is a second AT-SPI client
//! (pyatspi) reading the widgets; the user's pointer, focus, stacking and
//! sentinel window must not change.
#![cfg(target_os = "linux")]

use glovebox_host::Observation;
use glovebox_model::Role;
use glovebox_model::{Action, Button, ElementState, ErrorCode, Target, WindowRef};
use glovebox_platform::{Route, Semantic};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::{Desktop as _, InRoot, Sandbox, CURRENT_GTK4_ROOT};
use serde_json::Value;
use std::time::{Duration, Instant};

/// What a second AT-SPI client reads of the factory's widgets, in tree order.
fn read_widgets(sandbox: &Sandbox, pid: u32) -> Value {
    let script = r#"
import json, pyatspi, sys
pid = int(sys.argv[1])
out = {"sliders": [], "spins": [], "checks": [], "toggles": [], "texts": [], "menus": 0}
def walk(acc, depth=0):
    if acc is None or depth > 60: return
    try:
        role, states = acc.getRoleName(), acc.getState()
        if role == "slider": out["sliders"].append(acc.queryValue().currentValue)
        elif role == "spin button":
            out["spins"].append(acc.queryValue().currentValue)
        elif role == "check box": out["checks"].append(states.contains(pyatspi.STATE_CHECKED))
        elif acc.name == "togglebutton" and role in ("toggle button", "push button"): out["toggles"].append(states.contains(pyatspi.STATE_PRESSED) or states.contains(pyatspi.STATE_CHECKED))
        elif role in ("text", "entry") and not states.contains(pyatspi.STATE_MULTI_LINE):
            t = acc.queryText(); out["texts"].append(t.getText(0, t.characterCount))
        elif role in ("menu", "popup menu", "panel") and states.contains(pyatspi.STATE_SHOWING) and "menu" in role: out["menus"] += 1
    except Exception: pass
    for child in acc: walk(child, depth + 1)
for app in pyatspi.Registry.getDesktop(0):
    try:
        if app.get_process_id() == pid: walk(app)
    except Exception: pass
print(json.dumps(out))
"#;
    let out = glovebox_testkit::pyatspi(sandbox, script, pid);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// The first enabled, showing element of `role` (named `name` when given).
fn first(
    seen: &Observation,
    role: Role,
    name: Option<&str>,
    also: impl Fn(&glovebox_model::Element) -> bool,
) -> Target {
    let root = seen.tree.root.as_ref().expect("a tree");
    let found = root.walk().find(|e| {
        e.role == role
            && name.is_none_or(|n| e.name == n)
            && e.has(ElementState::Enabled)
            && e.bounds.is_some()
            && also(e)
    });
    Target::Element(
        found
            .unwrap_or_else(|| panic!("no enabled {role} {name:?}:\n{}", seen.tree.render_text()))
            .id,
    )
}

/// Reads the oracle until `check` holds on it (a toolkit may apply a
/// write on its next main-loop turn).
fn oracle_shows(sandbox: &Sandbox, pid: u32, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let now = read_widgets(sandbox, pid);
        if check(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "pyatspi never read {what}: {now}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One factory run through every route; `current` is GTK 4.18.
fn drive(sandbox: &'static Sandbox, current: bool) {
    let name = if current { "gtk4-18" } else { "gtk4-8" };
    let host = glovebox_testkit::host(sandbox, name).open();
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title(&format!("GTK4 routes sentinel {name}")),
        &["--x", "1500", "--y", "700", "--rows", "4"],
    );
    let root = InRoot { desktop: sandbox, root: CURRENT_GTK4_ROOT.into(), binds: vec![] };
    let mut factory = match current {
        true => root.command("gtk4-widget-factory".as_ref()),
        false => sandbox.command("gtk4-widget-factory"),
    };
    let mut factory = factory
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("gtk4-widget-factory");
    let window = wait_until("the factory's window", || {
        host.list_windows(Some("Widget Factory"), 1)
            .ok()?
            .windows
            .into_iter()
            .map(|w| w.window)
            .find(|w| w.app == "gtk4-widget-factory")
    });
    let pid = window.id.pid;
    let at = WindowRef::Id(window.id);
    wait_until("the factory's tree", || {
        host.observe(Some(&at), false).ok().filter(|o| o.tree.node_count > 100)
    });
    sentinel.activate();
    std::thread::sleep(Duration::from_millis(300));
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &sentinel);
    let before = wait_until("the user's window active", || {
        Some(user()).filter(|d| d.focused.is_some_and(|f| f.handle != window.id.handle))
    });
    let start = read_widgets(sandbox, pid);
    // On the frame the target was found in: ids are the frame's own.
    let act = |seen: &Observation, action: Action| {
        let result = host.act(seen.frame.id, action);
        assert_eq!(user(), before, "{name}: the user's desktop changed");
        result
    };
    let mut routes = vec![];

    // A slider and a spin button: Value.SetCurrentValue.
    let seen = host.observe(Some(&at), false).unwrap();
    let slider = first(&seen, Role::Slider, None, |_| true);
    let done = act(&seen, Action::SetValue { target: slider, text: "75".into() }).expect("slider");
    routes.push(format!("slider: {}", done.delivery.route));
    oracle_shows(sandbox, pid, "a slider at 75", |now| {
        now["sliders"].as_array().unwrap().iter().any(|v| v == 75.0)
    });
    // GTK4's spin button takes the value, then parses its old text back on
    // the next main-loop turn: refused, with the spin buttons as they were.
    let seen = host.observe(Some(&at), false).unwrap();
    let spins = read_widgets(sandbox, pid)["spins"].clone();
    match act(
        &seen,
        Action::SetValue {
            target: first(&seen, Role::SpinButton, None, |_| true),
            text: "7".into(),
        },
    ) {
        Ok(done) => {
            routes.push(format!("spin button: {}", done.delivery.route));
            oracle_shows(sandbox, pid, "a spin button at 7", |now| {
                now["spins"].as_array().unwrap().iter().any(|v| v == 7.0)
            });
        }
        Err(refusal) => {
            assert_eq!(refusal.code, ErrorCode::BackgroundUnavailable, "{refusal}");
            routes.push(format!("spin button: refused {}", refusal.code));
            oracle_shows(sandbox, pid, "the spin buttons as they were", |now| {
                now["spins"] == spins
            });
        }
    }

    // A toggle button: its own click. (GTK 4.8 exposes no pressed state to read it back by.)
    if current {
        let seen = host.observe(Some(&at), false).unwrap();
        let toggle = first(&seen, Role::ToggleButton, Some("togglebutton"), |e| {
            !e.has(ElementState::Pressed) && !e.has(ElementState::Checked)
        });
        let done = act(
            &seen,
            Action::Click { target: toggle, button: Button::Left, count: 1, modifiers: vec![] },
        )
        .expect("toggle button");
        routes.push(format!("toggle button: {}", done.delivery.route));
        let pressed =
            |v: &Value| v["toggles"].as_array().unwrap().iter().filter(|t| **t == true).count();
        oracle_shows(sandbox, pid, "one more toggle button pressed", |now| {
            pressed(now) == pressed(&start) + 1
        });
    }

    // A switch (a check box with a toggle action): its own action. A check
    // button offers none on either version, and no event reaches GTK4 in the
    // background: refused, nothing changed.
    let checked =
        |v: &Value| v["checks"].as_array().unwrap().iter().filter(|c| **c == true).count();
    let seen = host.observe(Some(&at), false).unwrap();
    let switch = first(&seen, Role::CheckBox, None, |e| {
        !e.has(ElementState::Checked)
            && e.actions.iter().any(|a| a.kind == glovebox_model::ActionKind::Toggle)
    });
    let done = act(
        &seen,
        Action::Click { target: switch, button: Button::Left, count: 1, modifiers: vec![] },
    )
    .expect("switch");
    routes.push(format!("switch: {}", done.delivery.route));
    let now = oracle_shows(sandbox, pid, "one more check box checked", |now| {
        checked(now) == checked(&start) + 1
    });
    let seen = host.observe(Some(&at), false).unwrap();
    let check = first(&seen, Role::CheckBox, None, |e| {
        !e.has(ElementState::Checked) && e.actions.is_empty()
    });
    let refusal = act(
        &seen,
        Action::Click { target: check, button: Button::Left, count: 1, modifiers: vec![] },
    )
    .unwrap_err();
    assert!(
        matches!(refusal.code, ErrorCode::BackgroundUnavailable | ErrorCode::ElementNotActionable),
        "{refusal}"
    );
    routes.push(format!("check button: refused {}", refusal.code));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(checked(&read_widgets(sandbox, pid)), checked(&now), "a refusal changed nothing");

    // Text into the focused entry: EditableText.
    let seen = host.observe(Some(&at), false).unwrap();
    let entry = first(&seen, Role::Text, None, |e| {
        e.has(ElementState::Editable) && !e.has(ElementState::Multiline)
    });
    let done = act(&seen, Action::SetValue { target: entry, text: "Zoë Müller 東京".into() })
        .expect("entry");
    routes.push(format!("entry: {}", done.delivery.route));
    oracle_shows(sandbox, pid, "the entry's new text", |now| {
        now["texts"].as_array().unwrap().iter().any(|t| t == "Zoë Müller 東京")
    });

    // A label's right click: its menu.popup (last: an open menu may hold the keyboard).
    let seen = host.observe(Some(&at), false).unwrap();
    let done = act(
        &seen,
        Action::Click {
            target: first(&seen, Role::Label, Some("Title 1"), |_| true),
            button: Button::Right,
            count: 1,
            modifiers: vec![],
        },
    )
    .expect("label's context menu");
    assert!(
        matches!(done.delivery.route.base(), Route::Semantic(Semantic::Invoke(action), _) if action == "menu.popup"),
        "{}",
        done.delivery.route
    );
    routes.push(format!("label right click: {}", done.delivery.route));
    println!("{name}:\n  {}", routes.join("\n  "));
    let _ = factory.kill();
    let _ = factory.wait();
}

#[test]
fn gtk4_8_takes_values_toggles_text_and_context_menus_through_accessibility() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    drive(sandbox, false);
}

#[test]
fn gtk4_18_from_debian_13_takes_them_too() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    assert!(
        InRoot::<Sandbox>::available(CURRENT_GTK4_ROOT.as_ref()),
        "no GTK 4.18 root at {CURRENT_GTK4_ROOT} (`.ci/install-deps` builds it with mmdebstrap; bubblewrap enters it)"
    );
    drive(sandbox, true);
}
