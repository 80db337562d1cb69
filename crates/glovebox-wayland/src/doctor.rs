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
    checks.push(Check::ok(
        "wayland input",
        "in the background, semantic only: accessible actions, text, values, selection and shortcuts through the application's menu items (AT-SPI); pointer gestures and raw keys are refused, since KWin lets no client send events to one window, and its global input devices would move the user's own pointer and keyboard",
    ));
    checks.push(Check::warning(
        "wayland keyboard grabs",
        "another client's keyboard grab (a pinentry or polkit prompt) cannot be probed on Wayland; password fields are still refused by their role and focus",
        &["the keyboard-grab probe of secure input"],
    ));
    checks
}
