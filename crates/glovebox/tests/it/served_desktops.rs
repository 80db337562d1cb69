//! glovebox on the desktops whose compositor serves windows and pixels
//! over D-Bus, headless: KDE Plasma's KWin 5.27 and GNOME Shell 43 (with
//! glovebox's extension), both on Wayland. On each, a native Wayland GTK3
//! window, a Qt 5 one and an XWayland xterm are listed with titles,
//! geometry, focus and stacking; their pictures are checked against the
//! colours the applications drew; the official MCP Python SDK fills
//! forms in the background with the applications' own reports as
//! oracle. What glovebox says is checked against the X server's word
//! (xwininfo) for XWayland and the applications' own (their state files)
//! for the rest.
#![cfg(target_os = "linux")]

use glovebox_model::{Rect, WindowInfo, WindowRef};
use glovebox_platform::RgbImage;
use glovebox_platform::ScreenCapture;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture, FixtureKind};
use glovebox_sandbox::gnome::GnomeSandbox;
use glovebox_sandbox::kde::KdeSandbox;
use serde_json::Value;
use std::path::Path;

/// One of the two desktops, as the tests use it.
#[derive(Clone, Copy)]
pub(crate) enum Desk {
    Kde(&'static KdeSandbox),
    Gnome(&'static GnomeSandbox),
}

impl Desk {
    pub(crate) fn sandbox(&self) -> &'static dyn glovebox_sandbox::Desktop {
        match *self {
            Desk::Kde(s) => s,
            Desk::Gnome(s) => s,
        }
    }

    pub(crate) fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        self.sandbox().command(program.as_ref())
    }

    fn x_display(&self) -> &'static str {
        match *self {
            Desk::Kde(s) => s.x_display(),
            Desk::Gnome(s) => s.x_display(),
        }
    }

    pub(crate) fn bus(&self) -> &'static str {
        match *self {
            Desk::Kde(s) => s.bus_address(),
            Desk::Gnome(s) => s.bus_address(),
        }
    }

    fn host(&self, name: &str) -> glovebox_host::Host {
        match *self {
            Desk::Kde(s) => glovebox_testkit::kde_host(s, name),
            Desk::Gnome(s) => glovebox_testkit::gnome_host(s, name),
        }
    }

    /// The compositor's service, connected afresh (as another process would).
    fn capture(&self) -> Box<dyn ScreenCapture> {
        match *self {
            Desk::Kde(_) => {
                Box::new(glovebox_wayland::kwin::KWinBackend::connect(Some(self.bus())).unwrap())
            }
            Desk::Gnome(_) => Box::new(
                glovebox_wayland::gnome::GnomeShellBackend::connect(Some(self.bus())).unwrap(),
            ),
        }
    }
}

fn glovebox_binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_glovebox"))
}

/// The KDE desktop, trusting this test binary's and glovebox's screenshots.
pub(crate) fn kde() -> (Desk, std::sync::MutexGuard<'static, ()>) {
    let (sandbox, turn) = KdeSandbox::shared_turn(&[glovebox_binary()]);
    (Desk::Kde(sandbox), turn)
}

/// The GNOME desktop with glovebox's extension answering this test binary and glovebox.
pub(crate) fn gnome() -> (Desk, std::sync::MutexGuard<'static, ()>) {
    let (sandbox, turn) = GnomeSandbox::shared_turn(|| {
        let me = std::env::current_exe().unwrap();
        let programs = [me.as_path(), glovebox_binary()];
        vec![glovebox_testkit::gnome_extension(&programs)]
    });
    (Desk::Gnome(sandbox), turn)
}

pub(crate) fn listed(host: &glovebox_host::Host, title: &str) -> WindowInfo {
    wait_until(&format!("{title} listed"), || {
        host.list_windows(Some(title), 1)
            .ok()?
            .windows
            .into_iter()
            .find(|w| w.window.title == title)
            .map(|w| w.window)
    })
}

/// The X server's own word on an XWayland window: its place and size.
fn xwininfo(sandbox: Desk, title: &str) -> Rect {
    let out = sandbox
        .command("xwininfo")
        .args(["-display", sandbox.x_display(), "-name", title])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> i64 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in xwininfo's answer:\n{text}"))
    };
    Rect::new(
        field("Absolute upper-left X:") as i32,
        field("Absolute upper-left Y:") as i32,
        field("Width:") as u32,
        field("Height:") as u32,
    )
}

fn share(image: &RgbImage, rgb: [u8; 3]) -> f64 {
    let same = image.data.chunks_exact(3).filter(|p| p == &rgb).count();
    same as f64 / (image.width * image.height) as f64
}

#[test]
fn kwin_lists_wayland_qt_and_xwayland_windows_and_shows_their_own_pixels() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = kde();
    windows_and_their_own_pixels(desk, "KDE");
}

#[test]
fn gnome_shell_lists_wayland_qt_and_xwayland_windows_and_shows_their_own_pixels() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    windows_and_their_own_pixels(desk, "GNOME");
}

fn windows_and_their_own_pixels(sandbox: Desk, name: &str) {
    let host = sandbox.host(&format!("{name}-windows"));
    let on = |what: &str| unique_title(&format!("{name} {what}"));
    let gtk = Fixture::launch(sandbox.sandbox(), &on("GTK3"), &["--no-password"]);
    let qt = Fixture::launch_kind(sandbox.sandbox(), FixtureKind::Qt5, &on("Qt5"), &[]);
    let xterm = Fixture::launch_kind(
        sandbox.sandbox(),
        FixtureKind::XTerm,
        &on("XTerm"),
        &["-bg", "#204080", "-fg", "#204080"],
    );
    // A Tk window on XWayland names no process (no `_NET_WM_PID`): listed all the same.
    let tk_title = on("Tk");
    let desktop = sandbox.sandbox();
    let _tk = glovebox_testkit::Reaped(
        desktop
            .command("/usr/bin/python3".as_ref())
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/fixture_tk.py"))
            .arg(&tk_title)
            .arg(desktop.runtime_dir().join(format!("{name}-tk.json")))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the Tk fixture"),
    );
    let (gtk_window, qt_window, x_window) =
        (listed(&host, &gtk.title), listed(&host, &qt.title), listed(&host, &xterm.title));
    let tk_window = listed(&host, &tk_title);
    assert_eq!(tk_window.geometry.size(), xwininfo(sandbox, &tk_title).size(), "{tk_window:?}");
    // Its process by the X server's record (X-Resource), which Tk cannot forge.
    assert_eq!(tk_window.id.pid, _tk.0.id(), "{tk_window:?}");
    assert_eq!(tk_window.pid_source, glovebox_model::PidSource::Server);
    gtk.wait_state("GTK3 ready", |s| s["ready"] == true);
    qt.wait_state("Qt ready", |s| s["ready"] == true);

    // Pids are the compositor's record, the applications' own.
    assert_eq!(gtk_window.id.pid, gtk.pid());
    assert_eq!(qt_window.id.pid, qt.pid());
    // XWayland: the X server says where the window is and how big.
    assert_eq!(x_window.geometry, xwininfo(sandbox, &xterm.title), "{x_window:?}");

    // Focus: the one window the compositor calls active is the one whose
    // application says it is, and (raised when it took the focus) it is
    // listed first. Read until the compositor has settled the last start.
    let gtk_window_id = gtk_window.id;
    let (all, gtk_state, qt_state) = wait_until("focus settled and agreed", || {
        let all = host.list_windows(None, 1).ok()?.windows;
        let gtk_state = gtk.state()?;
        let qt_state = qt.state()?;
        let focused: Vec<&WindowInfo> =
            all.iter().map(|w| &w.window).filter(|w| w.focused).collect();
        // Neither fixture active: one of the X clients (xterm or Tk), which report nothing.
        let active_by_app = if gtk_state["window_active"] == true {
            vec![gtk_window_id]
        } else if qt_state["window_active"] == true {
            vec![qt_window.id]
        } else {
            vec![x_window.id, tk_window.id]
        };
        (focused.len() == 1
            && active_by_app.contains(&focused[0].id)
            && all[0].window.id == focused[0].id)
            .then_some((all, gtk_state, qt_state))
    });

    // Each window's own pixels, even where another window covers it.
    let limits = glovebox_model::CaptureLimits::default();
    let service = sandbox.capture();
    // A window that has not drawn its first frame yet is refused (all
    // black is no picture): asked again until it has.
    let shot = |w: &WindowInfo| {
        let capture = wait_until(&format!("a picture of {}", w.title), || {
            match service.capture_window(&WindowRef::Id(w.id), limits) {
                Ok(capture) => Some(capture),
                Err(e) if e.message.contains("entirely black") => None,
                Err(e) => panic!("capturing {}: {e}", w.title),
            }
        });
        assert_eq!(
            (capture.image.width, capture.image.height),
            (w.geometry.width, w.geometry.height)
        );
        capture.image
    };
    let gtk_image = shot(&gtk_window);
    let red: Vec<u32> = gtk_state["swatches"]["red"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(
        gtk_image.pixel(red[0] + red[2] / 2, red[1] + red[3] / 2),
        [255, 0, 0],
        "the red swatch where the GTK3 fixture drew it"
    );
    let x_image = shot(&x_window);
    assert!(share(&x_image, [0x20, 0x40, 0x80]) > 0.9, "the xterm's own blue");
    let qt_image = shot(&qt_window);
    // The Qt window's pad is painted #ccccdd where Qt lays it out.
    let pad: Vec<u32> = qt_state["allocations"]["pad"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(qt_image.pixel(pad[0] + pad[2] / 2, pad[1] + pad[3] / 2), [0xcc, 0xcc, 0xdd]);
    assert!(share(&qt_image, [0, 0, 0]) < 0.5, "the Qt window is not black");

    // The desktop: at the red swatch's place on the screen, the pixel of
    // whichever window is frontmost there (windows listed frontmost first).
    let point = (
        gtk_window.geometry.x + (red[0] + red[2] / 2) as i32,
        gtk_window.geometry.y + (red[1] + red[3] / 2) as i32,
    );
    let top = all
        .iter()
        .map(|w| &w.window)
        .find(|w| w.geometry.contains(glovebox_model::Point { x: point.0, y: point.1 }))
        .expect("some window covers the swatch's place");
    let expected = if top.id == gtk_window.id {
        [255, 0, 0]
    } else {
        shot(top).pixel((point.0 - top.geometry.x) as u32, (point.1 - top.geometry.y) as u32)
    };
    let desktop = service
        .capture_desktop(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits { max_width: 4096, max_height: 4096 },
            &[],
        )
        .unwrap();
    assert_eq!(desktop.image.pixel(point.0 as u32, point.1 as u32), expected);

    // glovebox told to use X11 (`backend = "x11"`) on this XWayland: the
    // xterm is listed there, and its picture and the desktop's are refused
    // with their code — XWayland gives an X11 read black (KWin) or nothing
    // (GNOME's rootless one) — never a black picture reported as a capture.
    let home = std::env::temp_dir().join(format!("glovebox-{name}-x11-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let config = home.join("x11.toml");
    std::fs::write(&config, "backend = \"x11\"\n").unwrap();
    let cli = |args: &[&str]| {
        let out = sandbox
            .command(glovebox_binary())
            .arg("--config")
            .arg(&config)
            .args(args)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", home.join("state"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("GLOVEBOX_ENABLED", "true")
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    // The doctor, as a person runs it there (the Wayland backend): it passes.
    let doctor = sandbox
        .command(glovebox_binary())
        .arg("doctor")
        .env("HOME", &home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{report}");
    for check in ["[ok  ] wayland compositor", "[ok  ] wayland capture", "[ok  ] accessibility bus"]
    {
        assert!(report.contains(check), "{check} in:\n{report}");
    }
    let (code, listed_x11) = cli(&["windows", "--json"]);
    assert_eq!(code, Some(0), "{listed_x11}");
    let listed_x11: Value = serde_json::from_str(&listed_x11).unwrap();
    let x_id = listed_x11["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["title"] == xterm.title.as_str())
        .map(|w| w["id"].as_str().unwrap().to_owned())
        .expect("the xterm among XWayland's windows");
    let picture = home.join("x11.png");
    let picture = picture.to_str().unwrap();
    for args in
        [vec!["screenshot", "--window", &x_id, "-o", picture], vec!["screenshot", "-o", picture]]
    {
        let (code, out) = cli(&args);
        assert_eq!(code, Some(4), "{args:?} must be refused: {out}");
        assert!(out.contains("COMPUTER_BACKEND_UNAVAILABLE"), "{out}");
        assert!(!Path::new(picture).exists(), "no picture written");
    }
    let _ = std::fs::remove_dir_all(&home);

    // Through the host: the observation's tree and picture.
    let seen = wait_until("an observation with a tree", || {
        match host.observe(Some(&WindowRef::Id(gtk_window.id)), true) {
            Ok(o) => Some(o).filter(|o| o.tree.node_count > 5),
            Err(e) => {
                eprintln!("observe: {e:?}");
                None
            }
        }
    });
    assert!(seen.tree.render_text().contains("push button \"Submit\""));
    let picture = RgbImage::decode_png(seen.screenshot.as_ref().unwrap()).unwrap();
    assert_eq!(picture.width, gtk_window.geometry.width.min(limits.max_width));
}

/// `testapps/sdk_mcp_approvals.py` (the official MCP Python SDK, default
/// mode, every prompt accepted) inside the desktop, from a home of its own.
fn sdk_client(sandbox: Desk, home: &Path, title: &str, name: &str) -> Value {
    let out = sandbox
        .command(glovebox_testkit::sdk::python())
        .arg(glovebox_testkit::sdk::repo().join("testapps/sdk_mcp_approvals.py"))
        .args(["auto", "accept", title, name, env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_RUNTIME_DIR", home.join("run"))
        .env("GLOVEBOX_ENABLED", "true")
        .current_dir(home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn the_mcp_python_sdk_fills_gtk3_and_qt_forms_on_kde_in_the_background() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = kde();
    forms_in_the_background(desk, "KDE");
}

#[test]
fn the_mcp_python_sdk_fills_gtk3_and_qt_forms_on_gnome_in_the_background() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    forms_in_the_background(desk, "GNOME");
}

fn forms_in_the_background(sandbox: Desk, desktop: &str) {
    let host = sandbox.host(&format!("{desktop}-mcp"));
    let on = |what: &str| unique_title(&format!("{desktop} MCP {what}"));
    let gtk = Fixture::launch(sandbox.sandbox(), &on("GTK3"), &["--no-password"]);
    let qt = Fixture::launch_kind(sandbox.sandbox(), FixtureKind::Qt5, &on("Qt5"), &[]);
    for f in [&gtk, &qt] {
        listed(&host, &f.title);
        f.wait_state("ready", |s| s["ready"] == true);
    }
    // The person's window: started last, so the compositor makes it the active one.
    let user = Fixture::launch(sandbox.sandbox(), &on("user"), &["--no-password"]);
    let user_window = listed(&host, &user.title);
    user.wait_state("the user's window active", |s| s["window_active"] == true);
    let before = user.state().unwrap();
    for (fixture, name) in
        [(&gtk, format!("Ada on {desktop}")), (&qt, format!("Grace on {desktop}"))]
    {
        let name = name.as_str();
        let home = std::env::temp_dir().join(format!(
            "glovebox-kde-mcp-{}-{}",
            std::process::id(),
            fixture.pid()
        ));
        std::fs::create_dir_all(&home).unwrap();
        let report = sdk_client(sandbox, &home, &fixture.title, name);
        assert_eq!(report["calls"]["set_value"]["error"], false, "{report}");
        assert_eq!(report["calls"]["click"]["error"], false, "{report}");
        let state = fixture.wait_state("the form filled and submitted", |s| {
            s["values"]["name"] == name && s["clicks"]["submit"] == 1
        });
        assert_eq!(state["window_active"], false, "{}: stayed in the background", fixture.title);
        let _ = std::fs::remove_dir_all(&home);
    }
    // The person's window kept the focus and the top, and heard nothing.
    let now = user.state().unwrap();
    assert_eq!(now["window_active"], true);
    assert_eq!(
        (&now["values"], &now["clicks"], &now["keys"]),
        (&before["values"], &before["clicks"], &before["keys"])
    );
    let all = host.list_windows(None, 1).unwrap().windows;
    assert_eq!(all[0].window.id, user_window.id, "still frontmost: {all:#?}");
    assert!(all[0].window.focused);
}

/// The approval the foreground class gets in a host of the keys test.
pub(crate) fn keys_host(
    desk: Desk,
    name: &str,
    foreground: Option<glovebox_model::Policy>,
) -> glovebox_host::Host {
    let change = |config: &mut glovebox_host::HostConfig| {
        config.allow_foreground = foreground.is_some();
        if let Some(policy) = foreground {
            config.approvals.foreground = policy;
        }
    };
    match desk {
        Desk::Gnome(sandbox) => glovebox_testkit::gnome_host_with(sandbox, name, change),
        Desk::Kde(sandbox) => glovebox_testkit::kde_host_with(sandbox, name, change),
    }
}

#[test]
fn keys_reach_a_kde_window_only_through_the_foreground_class_with_its_approval() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = kde();
    keys_only_in_the_foreground(desk, "KDE");
}

#[test]
fn keys_reach_a_gnome_window_only_through_the_foreground_class_with_its_approval() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    keys_only_in_the_foreground(desk, "GNOME");
}

fn keys_only_in_the_foreground(desk: Desk, name: &str) {
    use glovebox_host::ActRequest;
    use glovebox_model::{Action, DeliveryMode, ErrorCode, KeyCombo, Policy};
    let title = |what: &str| unique_title(&format!("{name} {what}"));
    let target = Fixture::launch(desk.sandbox(), &title("keys"), &["--no-password"]);
    let allowed = keys_host(desk, &format!("{name}-keys"), Some(Policy::Allow));
    let target_window = listed(&allowed, &target.title);
    target.wait_state("ready", |s| s["ready"] == true && s["focus"] == "name");
    // The person's window, started last: the active one.
    let user = Fixture::launch(desk.sandbox(), &title("keys user"), &["--no-password"]);
    listed(&allowed, &user.title);
    user.wait_state("the user's window active", |s| s["window_active"] == true);
    let before = user.state().unwrap();
    let frame = |host: &glovebox_host::Host| {
        wait_until("an observation", || {
            host.observe(Some(&WindowRef::Id(target_window.id)), false)
                .ok()
                .filter(|o| o.tree.node_count > 5)
        })
        .frame
        .id
    };
    let typed = |host: &glovebox_host::Host, mode: DeliveryMode| {
        host.perform(ActRequest::new(frame(host), Action::Type { text: "hi".into() }).mode(mode))
    };

    // In the background a raw key has no route on Wayland: refused, nothing typed.
    let key = Action::Key { combo: "ctrl+a".parse::<KeyCombo>().unwrap(), repeat: 1 };
    let refused = allowed.act(frame(&allowed), key).expect_err("no background route for raw keys");
    assert_eq!(refused.code, ErrorCode::BackgroundUnavailable, "{refused:?}");
    // Foreground delivery off in the configuration, or its class denied: refused, nothing typed.
    let off = keys_host(desk, &format!("{name}-keys-off"), None);
    assert_eq!(typed(&off, DeliveryMode::Foreground).unwrap_err().code, ErrorCode::ApprovalDenied);
    let denied = keys_host(desk, &format!("{name}-keys-denied"), Some(Policy::Deny));
    assert_eq!(
        typed(&denied, DeliveryMode::Foreground).unwrap_err().code,
        ErrorCode::ApprovalDenied
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(target.state().unwrap()["values"]["name"], "", "nothing typed before the approval");

    // Allowed: the shell gives the window the focus, the seat's keyboard
    // types, and the person's window gets the focus back.
    let done = typed(&allowed, DeliveryMode::Foreground).unwrap();
    assert_eq!(
        done.delivery.route,
        glovebox_platform::Route::RealInput(glovebox_linux::routes::SEAT_KEYS)
    );
    target.wait_state("typed into the Name field", |s| s["values"]["name"] == "hi");
    user.wait_state("the person's window active again", |s| s["window_active"] == true);
    let after = user.state().unwrap();
    assert_eq!(
        (&after["values"], &after["keys"]),
        (&before["values"], &before["keys"]),
        "the person's window heard nothing"
    );
    let all = allowed.list_windows(None, 1).unwrap().windows;
    assert!(all[0].window.title == user.title && all[0].window.focused, "{all:#?}");
}

#[test]
fn a_portals_consent_dialog_is_listed_denied_and_never_acted_on() {
    use glovebox_model::ErrorCode;
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    let host = desk.host("gnome-consent");
    // A program asks the portal for remote control: GNOME asks the person.
    let mut asking = desk
        .command("/usr/bin/python3")
        .arg(glovebox_testkit::sdk::repo().join("testapps/portal_remote_desktop.py"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dialog = wait_until("the portal's consent dialog listed", || {
        host.list_windows(None, 1)
            .ok()?
            .windows
            .into_iter()
            .find(|w| w.window.app.starts_with("xdg-desktop-portal"))
    });
    assert!(dialog.denial.is_some(), "listed with its denial: {dialog:?}");
    let refusal = host
        .observe(Some(&WindowRef::Id(dialog.window.id)), true)
        .expect_err("a consent dialog is never observed");
    assert_eq!(refusal.code, ErrorCode::TargetDenylisted, "{refusal:?}");
    assert!(refusal.message.contains("only the person answers it"), "{refusal:?}");
    // A desktop picture shows it black wherever it shows.
    let desktop = host
        .read_desktop_pixels(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits::new(4096, 4096).unwrap(),
        )
        .expect("a desktop screenshot")
        .image;
    let r = dialog.window.geometry;
    let centre =
        desktop.pixel((r.x + r.width as i32 / 2) as u32, (r.y + r.height as i32 / 2) as u32);
    assert_eq!(centre, [0, 0, 0], "the dialog is black in the desktop's picture");
    // Nothing answered it: the portal never said Start.
    std::thread::sleep(std::time::Duration::from_secs(1));
    let _ = asking.kill();
    let out = asking.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("\"SelectDevices\"") && !said.contains("\"Start\""), "{said}");
}

/// Runs a copy of glovebox (a program the desktop has not been told to
/// trust) inside `desk` with `args`; its exit code and output.
fn untrusted_glovebox(
    desk: Desk,
    copy: &Path,
    home: &Path,
    data_home: &Path,
    args: &[&str],
) -> (Option<i32>, String) {
    let out = desk
        .command(copy)
        .args(args)
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", data_home)
        .env("GLOVEBOX_ENABLED", "true")
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code(), text)
}

/// A copy of the glovebox binary in a directory of its own (another path:
/// what the compositor's consent does not name).
fn glovebox_copy(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("glovebox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("glovebox");
    std::fs::copy(glovebox_binary(), &copy).unwrap();
    (dir, copy)
}

#[test]
fn kde_screenshots_need_the_desktop_file_and_stop_when_it_is_removed() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = kde();
    let Desk::Kde(sandbox) = desk else { unreachable!() };
    let (dir, copy) = glovebox_copy("kde-consent");
    // Something on the (otherwise black) desktop to see.
    let fixture = Fixture::launch(desk.sandbox(), &unique_title("KDE consent"), &["--no-password"]);
    fixture.wait_state("ready", |s| s["ready"] == true);
    // KWin reads the desktop's own data home (the sandbox's).
    let data_home = sandbox.runtime_dir().join("home/.local/share");
    let picture = dir.join("desk.png");
    let shot = |desk: Desk| {
        let _ = std::fs::remove_file(&picture);
        untrusted_glovebox(
            desk,
            &copy,
            &dir,
            &data_home,
            &["screenshot", "-o", picture.to_str().unwrap()],
        )
    };
    let (code, said) = shot(desk);
    assert_eq!(code, Some(4), "{said}");
    assert!(
        said.contains("COMPUTER_BACKEND_UNAVAILABLE")
            && said.contains("glovebox setup kde-screenshots"),
        "{said}"
    );
    assert!(!picture.exists());
    // The person consents (non-interactively, as after reading the change) …
    let (code, said) =
        untrusted_glovebox(desk, &copy, &dir, &data_home, &["setup", "kde-screenshots", "--yes"]);
    assert_eq!(code, Some(0), "{said}");
    let (code, said) = wait_until("KWin reads the new desktop file", || {
        let outcome = shot(desk);
        (outcome.0 == Some(0)).then_some(outcome)
    });
    assert_eq!(code, Some(0), "{said}");
    assert!(RgbImage::decode_png(&std::fs::read(&picture).unwrap()).is_ok_and(|i| !i.is_black()));
    // … and takes it back: refused again, with its code, nothing written.
    let (code, said) = untrusted_glovebox(
        desk,
        &copy,
        &dir,
        &data_home,
        &["setup", "kde-screenshots", "--undo", "--yes"],
    );
    assert_eq!(code, Some(0), "{said}");
    let (code, said) = wait_until("KWin forgets the removed desktop file", || {
        let outcome = shot(desk);
        (outcome.0 == Some(4)).then_some(outcome)
    });
    assert!(said.contains("COMPUTER_BACKEND_UNAVAILABLE"), "{code:?} {said}");
    assert!(!picture.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gnome_shells_extension_answers_only_the_programs_the_person_allowed() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (desk, _turn) = gnome();
    let (dir, copy) = glovebox_copy("gnome-consent");
    let data_home = dir.join("data");
    let fixture =
        Fixture::launch(desk.sandbox(), &unique_title("GNOME consent"), &["--no-password"]);
    let host = desk.host("gnome-consent");
    listed(&host, &fixture.title);
    // Another program: the extension refuses it, so windows come from the
    // accessibility bus and there are no pictures, each said with its reason.
    let (code, said) = untrusted_glovebox(desk, &copy, &dir, &data_home, &["doctor"]);
    assert!(
        said.contains("refused this program") && said.contains("[MISS] wayland capture"),
        "{code:?} {said}"
    );
    let picture = dir.join("desk.png");
    let (code, said) = untrusted_glovebox(
        desk,
        &copy,
        &dir,
        &data_home,
        &["screenshot", "-o", picture.to_str().unwrap()],
    );
    assert_eq!(code, Some(4), "{said}");
    assert!(said.contains("COMPUTER_BACKEND_UNAVAILABLE"), "{said}");
    assert!(!picture.exists(), "no picture written");
    let (code, said) = untrusted_glovebox(desk, &copy, &dir, &data_home, &["windows"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains(&fixture.title), "listed from the accessibility bus: {said}");
    let _ = std::fs::remove_dir_all(&dir);
}
