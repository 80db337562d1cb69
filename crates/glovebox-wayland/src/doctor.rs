//! What a Wayland session offers glovebox, as `glovebox doctor` reports it.

use crate::{Session, WaylandBackend};
use glovebox_platform::doctor::Check;

/// The session's checks: the compositor (windows), capture, and what input can and cannot do there.
pub fn checks() -> Vec<Check> {
    let backend = Session::from_env().and_then(WaylandBackend::connect);
    if backend.is_err() {
        if let Ok(kwin) = crate::kwin::KWinBackend::connect(None) {
            return kwin_checks(&kwin);
        }
        if let Ok(gnome) = crate::gnome::GnomeShellBackend::connect(None) {
            return gnome_checks(&gnome);
        }
    }
    let mut checks = vec![];
    match &backend {
        Ok(b) => checks.push(Check::ok(
            "wayland compositor",
            format!(
                "{} at {}: windows, geometry and stacking from its IPC ({})",
                b.compositor(),
                b.session().wayland_display.display(),
                b.session().ipc.display()
            ),
        )),
        Err(e) => match crate::wayland_display_from_env() {
            Err(no_compositor) => checks.push(Check::missing("wayland compositor", no_compositor.message, &["every operation on the Wayland desktop"])),
            Ok(_) => checks.push(Check::warning(
                "wayland compositor",
                format!(
                    "{}; windows come from the accessibility bus instead (each application's frames: title, pid, size, active; no positions, no stacking)",
                    e.message
                ),
                &["screenshots (grants are accessibility-only)", "window positions and stacking", "giving the user's window back after open_app"],
            )),
        },
    }
    checks.push(match crate::capture::grim() {
        Ok(path) if backend.is_ok() => Check::ok(
            "wayland capture",
            format!(
                "wlr-screencopy through {}; other windows' pixels are blacked out",
                path.display()
            ),
        ),
        Ok(_) => Check::missing(
            "wayland capture",
            "no compositor to capture from",
            &["screenshots (grants are accessibility-only)"],
        ),
        Err(e) => Check::missing(
            "wayland capture",
            e.message,
            &["screenshots (grants are accessibility-only)"],
        ),
    });
    checks.push(Check::ok(
        "wayland input",
        "semantic only: accessible actions, text, values, selection and shortcuts through the application's menu items (AT-SPI); pointer gestures and raw keys are refused, since Wayland lets no client send events to another client's window and glovebox takes no global input device (uinput, RemoteDesktop portal)",
    ));
    checks.push(Check::warning(
        "wayland keyboard grabs",
        "another client's keyboard grab (a pinentry or polkit prompt) cannot be probed on Wayland; password fields are still refused by their role and focus",
        &["the keyboard-grab probe of secure input"],
    ));
    checks
}

/// GNOME: glovebox's shell extension for windows and pixels.
fn gnome_checks(gnome: &crate::gnome::GnomeShellBackend) -> Vec<Check> {
    use crate::served::Served as _;
    let listed = gnome.listed();
    let mut checks = vec![match &listed {
        Ok(windows) => Check::ok(
            "wayland compositor",
            format!(
                "{} with glovebox's extension: windows with title, class, frame, focus and stacking ({} listed)",
                gnome.compositor(),
                windows.len()
            ),
        ),
        Err(e) => Check::warning(
            "wayland compositor",
            format!("{}: {e}; windows come from the accessibility bus instead (titles, sizes, no positions, no stacking)", gnome.compositor()),
            &["screenshots (grants are accessibility-only)", "window positions and stacking"],
        ),
    }];
    checks.push(match listed.and_then(|_| gnome.screen_pixels().map_err(|e| crate::gnome::GnomeError::Call { call: "CaptureScreen", message: e.message })) {
        Ok(_) => Check::ok(
            "wayland capture",
            "glovebox's GNOME Shell extension: each window drawn alone (never what covers it), and the screen",
        ),
        Err(e) => Check::missing("wayland capture", e.to_string(), &["screenshots (grants are accessibility-only)"]),
    });
    checks.extend(input_checks(
        "GNOME Shell",
        "the shell's own virtual pointer (glovebox's extension)",
    ));
    checks
}

/// What input can and cannot do on a desktop whose compositor serves
/// windows but no per-window input; `pointer` names the seat's pointer
/// glovebox clicks with there.
fn input_checks(compositor: &str, pointer: &str) -> Vec<Check> {
    vec![
        Check::ok(
            "wayland input",
            format!("in the background, semantic only: accessible actions, text, values, selection and shortcuts through the application's menu items (AT-SPI); in the foreground (`input.foreground`, approved per call), keys and ASCII text on the seat's keyboard and clicks with {pointer} after {compositor} focuses and raises the window, the focus and the pointer given back after; moves, drags and scrolls are refused, since {compositor} lets no client send pointer events to one window"),
        ),
        Check::warning(
            "wayland keyboard grabs",
            "another client's keyboard grab (a pinentry or polkit prompt) cannot be probed on Wayland; password fields are still refused by their role and focus",
            &["the keyboard-grab probe of secure input"],
        ),
    ]
}

/// KDE Plasma: KWin's scripting for windows, ScreenShot2 for pixels.
fn kwin_checks(kwin: &crate::kwin::KWinBackend) -> Vec<Check> {
    let mut checks = vec![match kwin.listed() {
        Ok(windows) => Check::ok(
            "wayland compositor",
            format!(
                "{}: windows with title, class, geometry, focus and stacking from its scripting ({} listed)",
                kwin.compositor(),
                windows.len()
            ),
        ),
        Err(e) => Check::missing(
            "wayland compositor",
            format!("{} answers, but its window script did not: {e}", kwin.compositor()),
            &["listing windows"],
        ),
    }];
    checks.push(match kwin.screenshot_allowed() {
        Ok(()) => Check::ok(
            "wayland capture",
            "org.kde.KWin.ScreenShot2: each window's own pixels (never what covers it) and the workspace",
        ),
        Err(e) => Check::missing(
            "wayland capture",
            e.to_string(),
            &["screenshots (grants are accessibility-only)"],
        ),
    });
    checks.extend(input_checks("KWin", "the desktop portal's RemoteDesktop pointer"));
    checks
}
