//! glovebox on KDE Plasma's compositor (KWin 5.27 on Wayland, headless):
//! a native Wayland GTK3 window, a Qt 5 one and an XWayland xterm listed
//! with titles, geometry, focus and stacking from KWin; their pictures
//! from ScreenShot2 checked against the colours the applications drew;
//! the official MCP Python SDK filling forms in the background with the
//! applications' own reports as oracle. What glovebox says is checked
//! against the X server's word (xwininfo) for XWayland and the
//! applications' own (their state files) for the rest.
#![cfg(target_os = "linux")]

use glovebox_model::{Rect, WindowInfo, WindowRef};
use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture, FixtureKind};
use glovebox_sandbox::kde::KdeSandbox;
use serde_json::Value;
use std::path::Path;

fn kde() -> (&'static KdeSandbox, std::sync::MutexGuard<'static, ()>) {
    KdeSandbox::shared_turn(&[Path::new(env!("CARGO_BIN_EXE_glovebox"))])
}

fn listed(host: &glovebox_host::Host, title: &str) -> WindowInfo {
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
fn xwininfo(sandbox: &KdeSandbox, title: &str) -> Rect {
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
    let (sandbox, _turn) = kde();
    let host = glovebox_testkit::kde_host(sandbox, "kde-windows");
    let gtk = Fixture::launch(sandbox, &unique_title("KDE GTK3"), &["--no-password"]);
    let qt = Fixture::launch_kind(sandbox, FixtureKind::Qt5, &unique_title("KDE Qt5"), &[]);
    let xterm = Fixture::launch_kind(
        sandbox,
        FixtureKind::XTerm,
        &unique_title("KDE XTerm"),
        &["-bg", "#204080", "-fg", "#204080"],
    );
    let (gtk_window, qt_window, x_window) =
        (listed(&host, &gtk.title), listed(&host, &qt.title), listed(&host, &xterm.title));
    gtk.wait_state("GTK3 ready", |s| s["ready"] == true);
    qt.wait_state("Qt ready", |s| s["ready"] == true);

    // Pids are the compositor's record, the applications' own.
    assert_eq!(gtk_window.id.pid, gtk.pid());
    assert_eq!(qt_window.id.pid, qt.pid());
    // XWayland: the X server says where the window is and how big.
    assert_eq!(x_window.geometry, xwininfo(sandbox, &xterm.title), "{x_window:?}");

    // Focus: the one window KWin calls active is the one whose application says it is.
    let all = host.list_windows(None, 1).unwrap().windows;
    let focused: Vec<&WindowInfo> = all.iter().map(|w| &w.window).filter(|w| w.focused).collect();
    assert_eq!(focused.len(), 1, "exactly one focused window: {all:#?}");
    let gtk_state = gtk.state().unwrap();
    let qt_state = qt.state().unwrap();
    let active_by_app = if gtk_state["window_active"] == true {
        gtk_window.id
    } else if qt_state["window_active"] == true {
        qt_window.id
    } else {
        x_window.id
    };
    assert_eq!(focused[0].id, active_by_app, "{all:#?}");
    // Stacking: the active window was raised last, so it is listed first.
    assert_eq!(all[0].window.id, focused[0].id, "frontmost first: {all:#?}");

    // Each window's own pixels, even where another window covers it.
    let limits = glovebox_model::CaptureLimits::default();
    let shot = |w: &WindowInfo| {
        let capture = glovebox_platform::ScreenCapture::capture_window(
            &glovebox_wayland::kwin::KWinBackend::connect(Some(sandbox.bus_address())).unwrap(),
            &WindowRef::Id(w.id),
            limits,
        )
        .unwrap_or_else(|e| panic!("capturing {}: {e}", w.title));
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
    let name: Vec<u32> = qt_state["allocations"]["name"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    // The Qt window's name field is a white box at the place Qt gives it.
    assert_eq!(qt_image.pixel(name[0] + name[2] / 2, name[1] + name[3] / 2), [255, 255, 255]);
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
    let desktop = glovebox_platform::ScreenCapture::capture_desktop(
        &glovebox_wayland::kwin::KWinBackend::connect(Some(sandbox.bus_address())).unwrap(),
        &glovebox_model::DisplaySelection::All,
        glovebox_model::CaptureLimits { max_width: 4096, max_height: 4096 },
        &[],
    )
    .unwrap();
    assert_eq!(desktop.image.pixel(point.0 as u32, point.1 as u32), expected);

    // The X11 route on this XWayland reads black: refused, never a picture.
    let x11 = glovebox_x11::X11Backend::connect(Some(sandbox.x_display())).unwrap();
    let xid = glovebox_platform::WindowSource::list_windows(&x11)
        .unwrap()
        .into_iter()
        .find(|w| w.title == xterm.title)
        .expect("the xterm among XWayland's windows");
    for outcome in [
        glovebox_platform::ScreenCapture::capture_window(&x11, &WindowRef::Id(xid.id), limits)
            .map(|_| ()),
        glovebox_platform::ScreenCapture::capture_desktop(
            &x11,
            &glovebox_model::DisplaySelection::All,
            limits,
            &[],
        )
        .map(|_| ()),
    ] {
        let error = outcome.expect_err("XWayland gives no pixels to an X11 read");
        assert_eq!(error.kind, glovebox_platform::BackendErrorKind::Unavailable, "{error}");
        assert!(error.message.contains("black"), "{error}");
    }

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
fn sdk_client(sandbox: &KdeSandbox, home: &Path, title: &str, name: &str) -> Value {
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
    let (sandbox, _turn) = kde();
    let host = glovebox_testkit::kde_host(sandbox, "kde-mcp");
    let gtk = Fixture::launch(sandbox, &unique_title("KDE MCP GTK3"), &["--no-password"]);
    let qt = Fixture::launch_kind(sandbox, FixtureKind::Qt5, &unique_title("KDE MCP Qt5"), &[]);
    for f in [&gtk, &qt] {
        listed(&host, &f.title);
        f.wait_state("ready", |s| s["ready"] == true);
    }
    // The person's window: started last, so KWin makes it the active one.
    let user = Fixture::launch(sandbox, &unique_title("KDE MCP user"), &["--no-password"]);
    let user_window = listed(&host, &user.title);
    user.wait_state("the user's window active", |s| s["window_active"] == true);
    let before = user.state().unwrap();
    for (fixture, name) in [(&gtk, "Ada on KDE"), (&qt, "Grace on KDE")] {
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
