//! Windows with no tree on Wayland, read from their pixels: on GNOME and
//! KDE Plasma driven by their seen ids through the foreground class
//! (clicks with GNOME Shell's virtual pointer through glovebox's extension
//! or the desktop portal's pointer on KDE, text on the seat's keyboard),
//! through the host and through the official MCP Python client; on sway,
//! which lends no seat, read by the client and its clicks refused.
//! Oracles outside glovebox: a Tk form's state file, a page's POSTs to
//! this test's loopback server; the person's window focused and frontmost
//! again, having heard nothing, and the pointer where the person left it.
#![cfg(target_os = "linux")]

use crate::served_desktops::{gnome, kde, keys_host, listed, Desk};
use glovebox_model::WindowRef;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use serde_json::Value;
use std::path::Path;

/// A Tk form (no accessibility at all, on XWayland), filled in and sent by
/// the ids glovebox sees in its pixels through the foreground class:
/// clicks with the seat's pointer (GNOME Shell's virtual pointer, the
/// desktop portal's on KDE), text on the seat's keyboard. Oracles: the
/// form's state file; the person's window active and frontmost again,
/// having heard nothing; the pointer back where the person left it.
#[test]
fn a_tk_form_on_gnome_is_filled_in_by_its_seen_ids_with_the_seat_pointer() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    tk_form_filled_by_its_seen_ids(desk, "GNOME");
}

#[test]
fn a_tk_form_on_kde_is_filled_in_by_its_seen_ids_with_the_seat_pointer() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = kde();
    tk_form_filled_by_its_seen_ids(desk, "KDE");
}

fn tk_form_filled_by_its_seen_ids(desk: Desk, desktop: &str) {
    use glovebox_host::ActRequest;
    use glovebox_model::{Action, Button, DeliveryMode, Policy, SeenKind, Target};
    let title = unique_title(&format!("{desktop} seen Tk"));
    let state_file = desk.sandbox().runtime_dir().join(format!("{desktop}-seen-tk.json"));
    let _tk = glovebox_testkit::Reaped(
        desk.command("/usr/bin/python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/fixture_tk.py"))
            .arg(&title)
            .arg(&state_file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the Tk fixture"),
    );
    let host = keys_host(desk, &format!("{desktop}-seen-tk"), Some(Policy::Allow));
    let tk_window = listed(&host, &title);
    // The person's window, started last: the active one.
    let user = Fixture::launch(
        desk.sandbox(),
        &unique_title(&format!("{desktop} seen user")),
        &["--no-password"],
    );
    listed(&host, &user.title);
    user.wait_state("the user's window active", |s| s["window_active"] == true);
    let before = user.state().unwrap();
    let left_at = person_leaves_the_pointer(desk);

    let seen = |kind: SeenKind, text: &str| {
        wait_until(&format!("{kind:?} {text:?} seen"), || {
            let look = host.observe(Some(&WindowRef::Id(tk_window.id)), false).ok()?;
            let id = look.tree.seen.iter().find(|e| e.kind == kind && e.text == text)?.id;
            Some((look.frame.id, id))
        })
    };
    let foreground =
        |frame, action| host.perform(ActRequest::new(frame, action).mode(DeliveryMode::Foreground));
    let click = |id| Action::Click {
        target: Target::Element(id),
        button: Button::Left,
        count: 1,
        modifiers: vec![],
    };
    // In the background a click at a point has no route on Wayland.
    let (frame, field) = seen(SeenKind::Field, "Name");
    let refused = host.act(frame, click(field)).expect_err("no background pointer");
    assert_eq!(refused.code, glovebox_model::ErrorCode::BackgroundUnavailable, "{refused:?}");

    let done = foreground(frame, click(field)).expect("the field clicked");
    assert_eq!(
        done.delivery.route,
        glovebox_platform::Route::RealInput(glovebox_linux::routes::SEAT_POINTER)
    );
    let (frame, _) = seen(SeenKind::Field, "Name");
    let typed = foreground(frame, Action::Type { text: "Ada".into() }).expect("typed");
    assert_eq!(
        typed.delivery.route,
        glovebox_platform::Route::RealInput(glovebox_linux::routes::SEAT_KEYS)
    );
    let (frame, send) = seen(SeenKind::Button, "Send");
    foreground(frame, click(send)).expect("Send clicked");

    let read = || -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(&state_file).ok()?).ok()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let state = loop {
        match read() {
            Some(s) if s["clicks"]["send"] == 1 => break s,
            last if std::time::Instant::now() > deadline => {
                panic!("the form was never sent; its last state: {last:?}")
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    };
    assert_eq!(state["sent"], serde_json::json!(["Ada"]));
    person_undisturbed(desk, &host, &user, &before, left_at);
}

/// A Chromium page with the browser's accessibility off
/// (`--disable-renderer-accessibility`: its page has no tree, only the
/// browser's frame), filled in and sent by the official MCP Python client
/// through the ids glovebox sees in its pixels, asking for foreground
/// delivery (`input.foreground` on) and approving every question as a
/// person would: on GNOME with GNOME Shell's virtual pointer, on KDE
/// Plasma with the desktop portal's pointer. Oracles: the page's POSTs to
/// this test's loopback server; the person's window active and frontmost
/// again, having heard nothing; the pointer where the person left it.
#[test]
fn a_chromium_page_on_gnome_is_filled_in_by_the_mcp_client_through_its_seen_ids() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    chromium_page_filled_through_its_seen_ids(desk, "GNOME");
}

#[test]
fn a_chromium_page_on_kde_is_filled_in_by_the_mcp_client_through_its_seen_ids() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = kde();
    chromium_page_filled_through_its_seen_ids(desk, "KDE");
}

/// Where the person leaves the pointer: put in a corner on GNOME (its
/// extension moves the pointer and says where it was), left where it is on
/// KDE (KWin's script says where).
fn person_leaves_the_pointer(desk: Desk) -> (i32, i32) {
    match desk {
        Desk::Gnome(_) => {
            pointer_at(desk);
            PARKED
        }
        Desk::Kde(_) => pointer_at(desk),
    }
}

/// The corner GNOME's pointer is parked in.
const PARKED: (i32, i32) = (5, 5);

/// Where the pointer is, said by the compositor (on GNOME read by putting
/// it back at [`PARKED`]).
fn pointer_at(desk: Desk) -> (i32, i32) {
    match desk {
        Desk::Gnome(_) => {
            let shell =
                glovebox_wayland::gnome::GnomeShellBackend::connect(Some(desk.bus())).unwrap();
            let (x, y) = shell.move_pointer(f64::from(PARKED.0), f64::from(PARKED.1)).unwrap();
            (x.round() as i32, y.round() as i32)
        }
        Desk::Kde(_) => {
            let kwin = glovebox_wayland::kwin::KWinBackend::connect(Some(desk.bus())).unwrap();
            let at = kwin.report().unwrap().pointer().expect("KWin says where the pointer is");
            (at.x, at.y)
        }
    }
}

fn chromium_page_filled_through_its_seen_ids(desk: Desk, desktop: &str) {
    let title = unique_title(&format!("{desktop} seen page"));
    let page = crate::seen_pixels::serve(&title);
    let home = desk.sandbox().runtime_dir().join(format!("{desktop}-seen-chromium"));
    std::fs::create_dir_all(&home).unwrap();
    let _chromium = chromium_without_accessibility(desk.sandbox(), &home, &page.url, &[]);
    let host = keys_host(desk, &format!("{desktop}-seen-page"), None);
    wait_until("the page's window", || {
        host.list_windows(Some(&title), 1).ok()?.windows.into_iter().next().map(|_| ())
    });
    let user = Fixture::launch(
        desk.sandbox(),
        &unique_title(&format!("{desktop} page user")),
        &["--no-password"],
    );
    listed(&host, &user.title);
    user.wait_state("the user's window active", |s| s["window_active"] == true);
    let before = user.state().unwrap();
    let left_at = person_leaves_the_pointer(desk);

    let name = "Ada Lovelace";
    let foreground = [("GLOVEBOX_INPUT_FOREGROUND", "true"), ("DELIVERY", "foreground")];
    let report = mcp_client_fills_the_form(desk.sandbox(), &home, &title, name, &foreground);
    assert!(report["ids"]["field"].is_string() && report["ids"]["button"].is_string(), "{report}");
    // Every call delivered, but for a click refused as stale (the page repainting after its
    // focus went back) that the client made again after looking again.
    let calls = report["calls"].as_array().unwrap();
    for (n, call) in calls.iter().enumerate() {
        let stale = call["text"].as_str().unwrap().starts_with("COMPUTER_STALE_REF");
        let redone =
            calls[n + 1..].iter().any(|c| c["tool"] == call["tool"] && c["error"] == false);
        assert!(call["error"] == false || (stale && redone), "{call}");
    }
    let clicks: Vec<&Value> = crate::seen_pixels::calls(&report, "click")
        .into_iter()
        .filter(|c| c["error"] == false)
        .collect();
    assert_eq!(clicks.len(), 2, "{report}");
    assert!(clicks.iter().all(|c| c["text"].as_str().unwrap().contains("the seat's pointer")));
    let took: Vec<&Value> = clicks.iter().map(|c| &c["ms"]).collect();
    println!("{desktop}: foreground clicks took {took:?} ms, the approval included");
    let prompts: Vec<&str> =
        report["prompts"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(prompts.len() >= 3, "each foreground call asked: {prompts:?}");
    let state = wait_until("the page's POST", || {
        page.newest().filter(|s| s["sent"] == 1 && s["name"] == name)
    });
    assert_eq!(state["name"], name);
    person_undisturbed(desk, &host, &user, &before, left_at);
}

/// A Chromium page with its accessibility off on sway (a native Wayland
/// client there): the official MCP Python client finds its field and
/// button among the elements glovebox sees in its pixels. sway lends no
/// seat to a client (no foreground class there), so the click on the
/// seen field is refused with its code and the page hears nothing (no POST
/// reaches this test's loopback server).
#[test]
fn a_chromium_page_on_sway_is_read_by_the_mcp_client_and_a_click_is_refused_with_its_code() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = glovebox_sandbox::wayland::WaylandSandbox::shared_turn();
    let title = unique_title("sway seen page");
    let page = crate::seen_pixels::serve(&title);
    let home = glovebox_sandbox::Desktop::runtime_dir(sandbox).join("sway-seen-chromium");
    std::fs::create_dir_all(&home).unwrap();
    let wayland = ["--ozone-platform=wayland"];
    let _chromium = chromium_without_accessibility(sandbox, &home, &page.url, &wayland);
    let host = glovebox_testkit::wayland_host(sandbox, "seen-page").open();
    wait_until("the page's window", || {
        host.list_windows(Some(&title), 1).ok()?.windows.into_iter().next().map(|_| ())
    });

    let report = mcp_client_fills_the_form(sandbox, &home, &title, "Ada", &[]);
    assert!(report["ids"]["field"].is_string() && report["ids"]["button"].is_string(), "{report}");
    let clicks = crate::seen_pixels::calls(&report, "click");
    assert_eq!(clicks.len(), 1, "the client stops at the refusal: {report}");
    let said = clicks[0]["text"].as_str().unwrap();
    assert!(
        clicks[0]["error"] == true && said.starts_with("COMPUTER_BACKGROUND_UNAVAILABLE"),
        "{said}"
    );
    assert!(crate::seen_pixels::calls(&report, "type").is_empty(), "{report}");
    // Nothing reached the page: it posts on every input and click.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(page.newest(), None, "the page heard something");
}

/// The person's window has the focus back, frontmost, and heard nothing
/// since `before`; the pointer is where the person left it (`left_at`).
fn person_undisturbed(
    desk: Desk,
    host: &glovebox_host::Host,
    user: &Fixture,
    before: &Value,
    left_at: (i32, i32),
) {
    user.wait_state("the person's window active again", |s| s["window_active"] == true);
    let after = user.state().unwrap();
    assert_eq!((&after["values"], &after["keys"]), (&before["values"], &before["keys"]));
    let all = host.list_windows(None, 1).unwrap().windows;
    assert!(all[0].window.title == user.title && all[0].window.focused, "{all:#?}");
    assert_eq!(pointer_at(desk), left_at, "the pointer given back");
}

/// Chromium started by a plain command inside `desktop`, with a profile of
/// its own under `home` and its accessibility off
/// (`--disable-renderer-accessibility`: its page has no tree, only the
/// browser's frame), showing `url`; `extra` flags besides.
fn chromium_without_accessibility(
    desktop: &dyn glovebox_sandbox::Desktop,
    home: &Path,
    url: &str,
    extra: &[&str],
) -> glovebox_testkit::Reaped {
    let mut chromium = desktop.command("chromium".as_ref());
    chromium
        .args([
            &format!("--user-data-dir={}", home.join("profile").display()),
            "--no-first-run",
            "--disable-gpu",
            "--disable-renderer-accessibility",
            "--window-size=900,600",
        ])
        .args(extra);
    if std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0 {
        chromium.arg("--no-sandbox");
    }
    glovebox_testkit::Reaped(
        chromium
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromium"),
    )
}

/// `testapps/sdk_mcp_seen.py form TITLE NAME` run inside `desktop` against
/// `glovebox mcp` (the official MCP Python client, approving as a person
/// would), `home` its home and working directory, `env` besides; its report.
fn mcp_client_fills_the_form(
    desktop: &dyn glovebox_sandbox::Desktop,
    home: &Path,
    title: &str,
    name: &str,
    env: &[(&str, &str)],
) -> Value {
    let out = desktop
        .command(glovebox_testkit::sdk::python().as_ref())
        .arg(glovebox_testkit::sdk::repo().join("testapps/sdk_mcp_seen.py"))
        .args(["form", title, name, env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("GLOVEBOX_ENABLED", "true")
        .envs(env.iter().copied())
        .current_dir(home)
        .output()
        .unwrap();
    glovebox_testkit::sdk::report_of(&out)
}
