//! The host against the real X11 + AT-SPI backends in a headless desktop:
//! denials, freshness and secure input, each checked against the fixture
//! app's own report that nothing reached it.
#![cfg(target_os = "linux")]

use glovebox_host::Host;
use glovebox_model::Role;
use glovebox_model::{
    Action, Button, Denial, ErrorCode, Origin, Refusal, Scope, Target, WindowInfo, WindowRef,
};
use glovebox_platform::Route;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, CreateWindowAux, PropMode, WindowClass,
};
use x11rb::wrapper::ConnectionExt as _;

fn fixture_window(host: &Host, fixture: &Fixture) -> WindowInfo {
    wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .find(|w| w.window.id.pid == fixture.pid())
            .map(|w| w.window)
    })
}

fn code<T>(r: Result<T, Refusal>) -> ErrorCode {
    match r {
        Ok(_) => panic!("expected a refusal"),
        Err(e) => e.code,
    }
}

/// The element id of the fixture's Submit button in an observation.
fn submit(seen: &glovebox_host::Observation) -> Target {
    Target::Element(
        seen.tree
            .root
            .as_ref()
            .unwrap()
            .walk()
            .find(|e| e.role == Role::PushButton && e.name == "Submit")
            .expect("Submit")
            .id,
    )
}

#[test]
fn self_target_refused_for_this_process_window() {
    // No window manager: the window maps at once and is listed as a root child.
    let sandbox =
        Sandbox::start(SandboxOptions { window_manager: false, ..Default::default() }).unwrap();
    let (conn, screen) = x11rb::connect(Some(sandbox.display())).unwrap();
    let root = conn.setup().roots[screen].root;
    let window = conn.generate_id().unwrap();
    conn.create_window(
        0,
        window,
        root,
        10,
        10,
        200,
        100,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &CreateWindowAux::new(),
    )
    .unwrap()
    .check()
    .unwrap();
    conn.change_property8(
        PropMode::REPLACE,
        window,
        AtomEnum::WM_CLASS,
        AtomEnum::STRING,
        b"own\0Own\0",
    )
    .unwrap()
    .check()
    .unwrap();
    conn.map_window(window).unwrap().check().unwrap();
    let host = glovebox_testkit::host(&sandbox, "self").shared_runtime().open();
    let own = wait_until("own window listed", || {
        host.list_windows(None, 1).ok()?.windows.into_iter().find(|w| w.window.id.handle == window)
    });
    assert_eq!(
        own.window.id.pid,
        std::process::id(),
        "X-Resource attributes the window to this process"
    );
    assert!(matches!(own.denial, Some(Denial::SelfTarget { .. })));
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(own.window.id)), false)),
        ErrorCode::SelfTarget
    );
    // With only glovebox's own window on the desktop, nothing is bound.
    assert_eq!(code(host.observe(None, false)), ErrorCode::TargetGone);
    sandbox.shutdown();
}

#[test]
fn self_target_refused_for_an_ancestor_window() {
    let sandbox = Sandbox::shared(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("Host ancestor"), &[]);
    let out = sandbox.runtime_dir().join(format!("ancestor-{}.json", fixture.pid()));
    // glovebox runs as the fixture's child: the fixture launched it.
    fixture.send(serde_json::json!({"cmd": "spawn", "argv": ["env", "GLOVEBOX_ENABLED=true", env!("CARGO_BIN_EXE_glovebox"), "windows", "--json", "--query", fixture.title], "stdout": out}));
    let listing: serde_json::Value = wait_until("child glovebox output", || {
        serde_json::from_str(&std::fs::read_to_string(&out).ok()?).ok()
    });
    let window = &listing["windows"][0];
    assert_eq!(window["title"], fixture.title.as_str());
    assert_eq!(window["denial"]["denial"], "self-target", "{listing:#}");
    // From this process (not a descendant of the fixture) the same window is allowed.
    let host = glovebox_testkit::host(sandbox, "ancestor-other").shared_runtime().open();
    assert_eq!(host.list_windows(Some(&fixture.title), 1).unwrap().windows[0].denial, None);
}

#[test]
fn built_in_deny_entry_refuses_a_credential_app() {
    let sandbox = Sandbox::shared(module_path!());
    // The configuration lists nothing, and cannot remove built-ins.
    let host = glovebox_testkit::host(sandbox, "deny").shared_runtime().deny(&[]).open();
    let fixture =
        Fixture::launch(sandbox, &unique_title("Host keepass"), &["--wm-class", "KeePassXC"]);
    let listed = wait_until("listed", || {
        host.list_windows(Some(&fixture.title), 1).ok()?.windows.into_iter().next()
    });
    assert_eq!(
        listed.denial,
        Some(Denial::Denylisted { entry: "keepassxc".into(), built_in: true })
    );
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(listed.window.id)), false)),
        ErrorCode::TargetDenylisted
    );
}

#[test]
fn elevated_target_refused_for_another_users_window() {
    let sandbox = Sandbox::shared(module_path!());
    let title = unique_title("Host elevated");
    // The desktop lets in its own user alone; its person lets `nobody` in, as `xhost` does.
    let xhost = |change: &str| {
        let ran = sandbox.command("xhost").arg(change).output().expect("xhost");
        assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    };
    xhost("+si:localuser:#65534");
    // xterm as `nobody` (uid 65534) on the same display.
    let mut other: Child = sandbox
        .command("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "xterm",
            "-title",
            &title,
            "-e",
            "sleep",
            "600",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("setpriv (util-linux) and xterm");
    let host = glovebox_testkit::host(sandbox, "elevated").shared_runtime().open();
    let listed = wait_until("other user's window", || {
        host.list_windows(Some(&title), 1).ok()?.windows.into_iter().next()
    });
    assert_eq!(listed.denial, Some(Denial::Elevated { uid: 65534 }));
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(listed.window.id)), false)),
        ErrorCode::TargetElevated
    );
    let _ = other.kill();
    let _ = other.wait();
    xhost("-si:localuser:#65534");
}

#[test]
fn stale_basis_when_the_window_manager_moved_the_window() {
    let sandbox = Sandbox::shared(module_path!());
    let host = glovebox_testkit::host(sandbox, "basis").shared_runtime().open();
    let fixture = Fixture::launch(sandbox, &unique_title("Host basis"), &[]);
    let window = fixture_window(&host, &fixture);
    let seen = wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window.id)), false).ok().filter(|s| s.tree.node_count > 10)
    });
    fixture.send(serde_json::json!({"cmd": "move", "x": window.geometry.x + 40, "y": window.geometry.y + 30}));
    wait_until("moved", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .find(|w| w.window.geometry != window.geometry)
    });
    let refused = host
        .act(
            seen.frame.id,
            Action::Click {
                target: submit(&seen),
                button: Button::Left,
                count: 1,
                modifiers: vec![],
            },
        )
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::StaleBasis, "{refused}");
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 0, "nothing reached the app");
    // A fresh observation is a fresh basis: the same click is delivered.
    let again = host.observe(None, false).unwrap();
    host.act(
        again.frame.id,
        Action::Click { target: submit(&again), button: Button::Left, count: 1, modifiers: vec![] },
    )
    .unwrap();
    fixture.wait_state("clicked", |s| s["clicks"]["submit"] == 1);
    let again = host.observe(None, false).unwrap();
    let outside = Target::Point(glovebox_model::Point { x: again.frame.image.width as i32, y: 5 });
    assert_eq!(
        code(host.act(
            again.frame.id,
            Action::Click { target: outside, button: Button::Left, count: 1, modifiers: vec![] }
        )),
        ErrorCode::CoordinateOutOfBounds
    );
}

#[test]
fn secure_input_while_a_password_field_has_focus_then_allowed_again() {
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let audit_path = glovebox_testkit::audit_path(&sandbox, "password");
    let host = glovebox_testkit::host(&sandbox, "password").shared_runtime().open();
    let fixture = Fixture::launch(&sandbox, &unique_title("Host password"), &[]);
    fixture.activate();
    fixture.send(serde_json::json!({"cmd": "set", "widget": "password", "value": "pw-Geheim-77"}));
    let window = fixture_window(&host, &fixture);
    let seen = host.observe(Some(&WindowRef::Id(window.id)), false).unwrap();
    fixture.send(serde_json::json!({"cmd": "focus", "widget": "password"}));
    fixture.wait_state("password focused", |s| s["focus"] == "password");
    // Neither the tree nor pixels are read while the password field has focus.
    wait_until("password focus seen", || {
        host.observe(None, false).err().filter(|e| e.code == ErrorCode::SecureInput)
    });
    assert_eq!(
        code(host.observe(None, true)),
        ErrorCode::SecureInput,
        "no screenshot while the password field has focus"
    );
    assert_eq!(
        code(host.act(seen.frame.id, Action::Type { text: "typed-secret".into() })),
        ErrorCode::SecureInput
    );
    assert_eq!(fixture.state().unwrap()["values"]["password_length"], 12, "the field is untouched");
    fixture.send(serde_json::json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    let after = wait_until("focus left", || {
        host.observe(None, true).ok().filter(|s| !s.tree.focused_password)
    });
    assert!(after.screenshot.is_some());
    // Focus is in the Name field now: typing is delivered there.
    host.act(after.frame.id, Action::Type { text: "typed-secret".into() }).unwrap();
    fixture.wait_state("typed", |s| {
        s["values"]["name"].as_str().is_some_and(|n| n.contains("typed-secret"))
    });
    assert_eq!(fixture.state().unwrap()["values"]["password_length"], 12);
    let audit = std::fs::read_to_string(audit_path).unwrap();
    assert!(!audit.contains("typed-secret") && !audit.contains("Geheim"), "{audit}");
    assert!(audit.contains("COMPUTER_SECURE_INPUT"));
    drop(fixture);
    sandbox.shutdown();
}

#[test]
fn secure_input_while_another_client_grabs_the_keyboard_and_the_probe_changes_nothing() {
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let host = glovebox_testkit::host(&sandbox, "grab").shared_runtime().open();
    let fixture = Fixture::launch(&sandbox, &unique_title("Host grab"), &[]);
    fixture.activate();
    let window = fixture_window(&host, &fixture);
    let seen = wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window.id)), false).ok().filter(|s| s.tree.node_count > 10)
    });
    // A prompt-like client grabs the keyboard on its own mapped window.
    let grab = glovebox_testkit::desktop::KeyboardGrab::take(sandbox.display());
    let events_before = fixture.state().unwrap()["events"].as_array().unwrap().len();
    assert_eq!(
        code(host.act(seen.frame.id, Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 1 })),
        ErrorCode::SecureInput
    );
    assert_eq!(code(host.observe(None, false)), ErrorCode::SecureInput);
    grab.release();
    let again = wait_until("grab released", || host.observe(None, false).ok());
    // Once the prompt is gone the same key goes through (GTK3 takes synthetic keys).
    let done = host
        .act(again.frame.id, Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 1 })
        .unwrap();
    assert_eq!(done.delivery.route, Route::WindowEvents(glovebox_linux::routes::SEND_EVENT));
    fixture.wait_state("ctrl+a arrived", |s| {
        s["keys"].as_array().is_some_and(|k| {
            k.len() == 1 && k[0]["key"] == "a" && k[0]["mods"] == serde_json::json!(["ctrl"])
        })
    });
    // Probing never took focus from the app.
    let state = fixture.state().unwrap();
    assert_eq!(state["window_active"], true);
    assert_eq!(state["events"].as_array().unwrap().len(), events_before);
    drop(fixture);
    sandbox.shutdown();
}

fn glovebox_cli(sandbox: &Sandbox, state: &PathBuf) -> std::process::Command {
    let mut command = sandbox.command(env!("CARGO_BIN_EXE_glovebox"));
    command
        .env("XDG_STATE_HOME", state)
        .env("HOME", state)
        .env("GLOVEBOX_ENABLED", "true")
        .stdin(Stdio::null());
    command
}

/// Another process (`glovebox grant hold`) takes the display's grant; returns
/// it with the grant it reported.
fn hold_grant_elsewhere(sandbox: &Sandbox, state: &PathBuf) -> (Child, serde_json::Value) {
    let mut holder = glovebox_cli(sandbox, state)
        .args(["grant", "hold"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let grant: serde_json::Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("holder said {line:?}: {e}"));
    assert_eq!(grant["origin"], "user");
    (holder, grant)
}

#[test]
fn one_grant_per_display_across_processes_and_stop_wins() {
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let state = sandbox.runtime_dir().join("state");
    let fixture = Fixture::launch(&sandbox, &unique_title("Host lock"), &[]);
    let host = glovebox_testkit::host(&sandbox, "lock").shared_runtime().open();
    fixture_window(&host, &fixture);
    let (mut holder, grant) = hold_grant_elsewhere(&sandbox, &state);
    let refused = host.observe(None, false).unwrap_err();
    assert_eq!(refused.code, ErrorCode::NoGrant);
    assert!(refused.message.contains(&holder.id().to_string()), "{}", refused.message);
    let status = glovebox_cli(&sandbox, &state).args(["grant", "status"]).output().unwrap();
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["grant_id"], grant["grant_id"]);
    // Stop from a third process: the holder's grant ends at once.
    let stopped_at = Instant::now();
    let stop = glovebox_cli(&sandbox, &state).arg("stop").output().unwrap();
    assert!(stop.status.success(), "{}", String::from_utf8_lossy(&stop.stderr));
    wait_until("holder exits", || holder.try_wait().ok().flatten());
    assert!(stopped_at.elapsed() < Duration::from_secs(3));
    // The cooldown refuses agent grants here too; a user grant clears it.
    assert_eq!(code(host.observe(None, false)), ErrorCode::StoppedByUser);
    host.create_grant(Origin::User, Scope::Desktop, None).unwrap();
    host.observe(None, false).unwrap();
    let audit = glovebox_cli(&sandbox, &state).args(["audit", "--json"]).output().unwrap();
    let audit = String::from_utf8_lossy(&audit.stdout);
    assert!(audit.contains("grant-created") && audit.contains("stopped by the user"), "{audit}");
    drop(fixture);
    sandbox.shutdown();
}

#[test]
fn a_crashed_holder_never_blocks_the_display() {
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let state = sandbox.runtime_dir().join("state");
    let fixture = Fixture::launch(&sandbox, &unique_title("Host crash"), &[]);
    let host = glovebox_testkit::host(&sandbox, "crash").shared_runtime().open();
    fixture_window(&host, &fixture);
    let (mut holder, _) = hold_grant_elsewhere(&sandbox, &state);
    let refused = host.observe(None, false).map(|o| o.grant).unwrap_err();
    assert_eq!(refused.code, ErrorCode::NoGrant, "{refused}");
    holder.kill().unwrap(); // SIGKILL: no cleanup runs
    holder.wait().unwrap();
    host.observe(None, false).unwrap_or_else(|e| panic!("after the holder died: {e}"));
    drop(fixture);
    sandbox.shutdown();
}
