//! glovebox on Linux: the X11 and AT-SPI backends composed into the
//! [`Backends`] the host works through. Which input route reaches which
//! toolkit is decided here ([`routes`]), as is how applications start
//! ([`launcher`]), what `setup accessibility` changes for applications
//! started later ([`accessibility_setup`]), which Debian packages it runs
//! with ([`packages`]) and
//! how secure input is probed; the host above decides
//! whether anything may happen at all. Other platforms get a backend set
//! whose every call answers `COMPUTER_PLATFORM_UNSUPPORTED`.
#![forbid(unsafe_code)]

#[cfg(target_os = "linux")]
pub mod accessibility_setup;
#[cfg(target_os = "linux")]
pub mod agent;
#[cfg(target_os = "linux")]
pub mod agent_box;
#[cfg(target_os = "linux")]
pub mod launcher;
pub mod packages;
mod protected;
#[cfg(target_os = "linux")]
mod resolve;
#[cfg(target_os = "linux")]
pub mod routes;
#[cfg(target_os = "linux")]
mod seat;
#[cfg(target_os = "linux")]
mod seat_pointer;
#[cfg(target_os = "linux")]
pub mod wayland;

use glovebox_model::DisplayBackend;
use glovebox_platform::doctor::DoctorReport;
use glovebox_platform::process::ProcessTable;
use glovebox_platform::BackendError;
use glovebox_platform::Backends;
use std::path::PathBuf;

/// The display the host's grant lock is per: the X display, or the
/// Wayland socket when `backend` drives Wayland.
pub fn display_name(backend: DisplayBackend) -> String {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match chosen(backend) {
        DisplayBackend::Wayland => {
            var("WAYLAND_DISPLAY").map(|d| format!("wayland:{d}")).unwrap_or_else(|| "none".into())
        }
        _ => var("DISPLAY").unwrap_or_else(|| "none".into()),
    }
}

/// `backend` decided from this process's environment.
pub fn chosen(backend: DisplayBackend) -> DisplayBackend {
    let var = |name: &str| std::env::var(name).ok();
    backend.decide(
        var("WAYLAND_DISPLAY").as_deref(),
        var("XDG_SESSION_TYPE").as_deref(),
        var("DISPLAY").as_deref(),
    )
}

/// Linux's `/proc`.
#[derive(Debug, Default, Clone, Copy)]
pub struct ProcFs;

impl ProcessTable for ProcFs {
    fn parent(&self, pid: u32) -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The name is in parentheses and may itself contain spaces or ')'.
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.split_whitespace().nth(1)?.parse().ok()
    }

    #[cfg(unix)]
    fn owner_uid(&self, pid: u32) -> Option<u32> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(format!("/proc/{pid}")).ok().map(|m| m.uid())
    }

    #[cfg(not(unix))]
    fn owner_uid(&self, _pid: u32) -> Option<u32> {
        None
    }

    fn executable(&self, pid: u32) -> Option<PathBuf> {
        std::fs::read_link(format!("/proc/{pid}/exe")).ok()
    }

    fn name(&self, pid: u32) -> Option<String> {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|s| s.trim().to_owned())
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use glovebox_atspi::AtspiBackend;
    use glovebox_model::WindowInfo;
    use glovebox_platform::{BackendError, Backends, SecureInputProbe};
    use glovebox_x11::X11Backend;
    use std::sync::Arc;

    /// Secure input on Linux: the X server's keyboard grabs and the focused
    /// element of the window's accessibility tree.
    pub struct LinuxSecureInput {
        pub x11: Arc<X11Backend>,
        pub atspi: Arc<AtspiBackend>,
    }

    impl SecureInputProbe for LinuxSecureInput {
        fn keyboard_grabbed(&self) -> Result<bool, BackendError> {
            self.x11.keyboard_grabbed_by_other()
        }

        fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError> {
            self.atspi.focused_password(window)
        }
    }

    /// X11 for windows, capture, grabs and event input; AT-SPI for trees,
    /// password focus and semantic input (actions, text, values, selection).
    pub fn backends(
        display: Option<&str>,
        session_bus: Option<&str>,
        options: &super::Options,
    ) -> Result<Backends, BackendError> {
        let x11 = Arc::new(X11Backend::connect(display)?);
        // The cursor is drawn where it can be; without it nothing else changes.
        let presence: Option<Arc<dyn glovebox_platform::Presence>> = match options.overlay {
            true => glovebox_x11::overlay::Overlay::open(display).ok().map(|overlay| {
                x11.exclude_from_captures(overlay.window());
                Arc::new(overlay) as Arc<dyn glovebox_platform::Presence>
            }),
            false => None,
        };
        let atspi = Arc::new(AtspiBackend::on_session_bus(session_bus)?);
        Ok(Backends {
            windows: x11.clone(),
            capture: x11.clone(),
            accessibility: atspi.clone(),
            input: Some(Arc::new(crate::routes::LinuxInput {
                x11: x11.clone(),
                atspi: atspi.clone(),
            })),
            secure_input: Arc::new(LinuxSecureInput { x11: x11.clone(), atspi }),
            processes: Arc::new(super::ProcFs),
            launcher: Some(Arc::new(crate::launcher::DesktopLauncher {
                display: display.map(|d| crate::launcher::ChildDisplay::X11(d.to_owned())),
                session_bus: session_bus.map(str::to_owned),
                window_manager: crate::launcher::WindowManager::X11(x11),
            })),
            presence,
            agent_display: None,
            seen: Some(glovebox_ocr::shared_reader()),
            protected: crate::PROTECTED,
        })
    }

    pub fn doctor() -> glovebox_platform::doctor::DoctorReport {
        use glovebox_platform::doctor::Check;
        let mut report = glovebox_x11::doctor::doctor(None);
        if std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty()) {
            let chosen = super::chosen(glovebox_model::DisplayBackend::Auto);
            let x11_checks = report.checks.len();
            let mut wayland = glovebox_wayland::doctor::checks();
            wayland.push(Check::ok(
                "backend",
                match chosen {
                    glovebox_model::DisplayBackend::Wayland => "Wayland (auto): native Wayland windows; `backend = \"x11\"` serves XWayland's windows instead",
                    _ => "X11 (auto, DISPLAY is set and XDG_SESSION_TYPE is not wayland); `backend = \"wayland\"` serves native Wayland windows",
                },
            ));
            report.checks.extend(wayland);
            if chosen == glovebox_model::DisplayBackend::Wayland {
                // The X11 checks describe XWayland at most: the Wayland ones
                // decide. What XWayland lacks (its root pixels, an X11
                // capture) disables only `backend = "x11"`.
                use glovebox_platform::doctor::CheckStatus;
                report.checks.retain(|c| c.name != "display" || c.status != CheckStatus::Missing);
                for check in report.checks.iter_mut().take(x11_checks) {
                    if check.status == CheckStatus::Missing {
                        check.status = CheckStatus::Warning;
                        check.detail = format!("XWayland: {}", check.detail);
                        check.disables = vec!["`backend = \"x11\"` on this desktop".into()];
                    }
                }
                report.session = glovebox_platform::doctor::SessionType::Wayland;
                report.checks.push(glovebox_atspi::doctor_check());
                report.checks.push(glovebox_ocr::doctor_check());
                return report;
            }
        }
        report.checks.push(glovebox_atspi::doctor_check());
        report.checks.push(glovebox_ocr::doctor_check());
        let windows = X11Backend::connect(None)
            .ok()
            .and_then(|x11| glovebox_platform::WindowSource::list_windows(&x11).ok());
        if let Some(check) = windows.and_then(|w| glovebox_atspi::windows_without_trees_check(&w)) {
            report.checks.push(check);
        }
        report.checks.push(match glovebox_x11::overlay::Overlay::open(None) {
            Ok(_) => {
                Check::ok("overlay", "the agent's cursor can be drawn (override-redirect, empty input shape); the grant holder draws it while `overlay = true`")
            }
            Err(e) => Check::warning("overlay", e.message, &["the agent's drawn cursor (everything else works)"]),
        });
        report
    }

    pub fn capabilities() -> Option<glovebox_platform::Capabilities> {
        if super::chosen(glovebox_model::DisplayBackend::Auto)
            == glovebox_model::DisplayBackend::Wayland
        {
            return crate::wayland::capabilities();
        }
        let mut caps = X11Backend::connect(None).ok()?.capabilities();
        caps.accessibility = AtspiBackend::support();
        Some(caps)
    }
}

#[cfg(target_os = "linux")]
pub use linux::LinuxSecureInput;
pub use protected::PROTECTED;

/// How the Linux backends are put together: the options every system's
/// desktop is opened with.
pub use glovebox_platform::DesktopOptions as Options;

/// This platform's backends on `display` and `session_bus` (the
/// environment's when `None`), without the drawn cursor.
pub fn backends(
    display: Option<&str>,
    session_bus: Option<&str>,
) -> Result<Backends, BackendError> {
    backends_with(display, session_bus, &Options::default())
}

/// [`backends`] put together as `options` say, with an agent display
/// beside the user's desktop where this platform has one.
pub fn backends_with(
    display: Option<&str>,
    session_bus: Option<&str>,
    options: &Options,
) -> Result<Backends, BackendError> {
    #[cfg(target_os = "linux")]
    return Ok(desktops_with(display, session_bus, options)?.backends());
    #[cfg(not(target_os = "linux"))]
    user_backends(display, session_bus, options)
}

/// The user's desktop on `display` and `session_bus` and an agent display
/// started when first asked for.
#[cfg(target_os = "linux")]
pub fn desktops_with(
    display: Option<&str>,
    session_bus: Option<&str>,
    options: &Options,
) -> Result<std::sync::Arc<agent::Desktops>, BackendError> {
    Ok(agent::Desktops::new(user_backends(display, session_bus, options)?, options.agent_browser))
}

/// The backends of the user's desktop alone.
fn user_backends(
    display: Option<&str>,
    session_bus: Option<&str>,
    options: &Options,
) -> Result<Backends, BackendError> {
    #[cfg(target_os = "linux")]
    return match (display, chosen(options.backend)) {
        (None, DisplayBackend::Wayland) => match glovebox_wayland::Session::from_env() {
            Ok(session) => wayland::backends(session, session_bus),
            // KDE Plasma: KWin's own services.
            Err(_) if let Ok(kwin) = glovebox_wayland::kwin::KWinBackend::connect(session_bus) => {
                let xwayland = std::env::var("DISPLAY").ok();
                wayland::backends_served(
                    wayland::kwin_with_xwayland(kwin, xwayland.as_deref()),
                    session_bus,
                    glovebox_wayland::wayland_display_from_env().ok(),
                )
            }
            // GNOME: GNOME Shell, through glovebox's extension once installed.
            Err(no_compositor)
                if let Ok(gnome) =
                    glovebox_wayland::gnome::GnomeShellBackend::connect(session_bus) =>
            {
                match gnome.listed() {
                    Ok(_) => wayland::backends_served(
                        gnome,
                        session_bus,
                        glovebox_wayland::wayland_display_from_env().ok(),
                    ),
                    // Without the extension: windows from the accessibility bus, and why.
                    Err(e) => wayland::backends_without_compositor(
                        session_bus,
                        &format!("{}; {e}", no_compositor.message),
                    ),
                }
            }
            // A Wayland desktop whose compositor lists no windows: the accessibility bus does.
            Err(no_compositor) if glovebox_wayland::wayland_display_from_env().is_ok() => {
                wayland::backends_without_compositor(session_bus, &no_compositor.message)
            }
            Err(no_wayland) => Err(no_wayland),
        },
        _ => linux::backends(display, session_bus, options),
    };
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (display, session_bus, options);
        Err(glovebox_platform::unsupported::UnsupportedPlatform::current().error())
    }
}

/// What this environment offers (`glovebox doctor`), with the runtime
/// packages that are installed and what each missing one disables.
pub fn doctor() -> DoctorReport {
    #[cfg(target_os = "linux")]
    let mut report = linux::doctor();
    #[cfg(not(target_os = "linux"))]
    let mut report = glovebox_platform::unsupported::UnsupportedPlatform::current().doctor();
    report.checks.extend(packages::checks());
    report
}

/// What the platform backend says it can do; `None` when it cannot even connect.
pub fn capabilities() -> Option<glovebox_platform::Capabilities> {
    #[cfg(target_os = "linux")]
    return linux::capabilities();
    #[cfg(not(target_os = "linux"))]
    Some(glovebox_platform::unsupported::UnsupportedPlatform::current().capabilities())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_parent_an_owner_and_an_executable() {
        let me = std::process::id();
        assert!(ProcFs.parent(me).is_some());
        assert!(ProcFs.owner_uid(me).is_some());
        assert!(ProcFs.executable(me).is_some());
        assert!(!glovebox_platform::process::ancestors(&ProcFs, me).contains(&me));
    }
}
