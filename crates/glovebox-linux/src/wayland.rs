//! glovebox on a Wayland desktop: the compositor for windows and pixels
//! (glovebox-wayland), AT-SPI for trees and for every input.
//!
//! Wayland lets no client send pointer or key events into another
//! client's window, so the only background routes are the application's
//! own accessible interfaces: actions, text, values, selection, and key
//! chords through the menu items bound to them. Pointer gestures and raw
//! keys are refused in the background with the reason. In the foreground
//! (approved per call), keys go through the seat's keyboard the compositor
//! lends (GNOME's Mutter remote desktop, KDE's desktop portal) and clicks
//! through GNOME Shell's virtual pointer ([`crate::seat_pointer`]), the
//! window focused first and the focus and pointer given back after; no
//! device of the kernel's (uinput, ydotool) is ever used.

use glovebox_atspi::AtspiBackend;
use glovebox_model::{
    Action, Button, CaptureLimits, DisplaySelection, Monitor, PidSource, Rect, WindowId,
    WindowInfo, WindowRef,
};
use glovebox_platform::{
    BackendError, BackendErrorKind, Backends, Capture, Delivery, InputSink, ResolvedTarget,
    ScreenCapture, SecureInputProbe, Support, WindowSource,
};
use glovebox_wayland::{Session, WaylandBackend};

use crate::seat::{give_focus_back, SEAT_SETTLE};
pub use crate::seat::{SeatKeys, SeatPointer};

/// glovebox's GNOME Shell extension, for `glovebox setup gnome-extension`.
pub use glovebox_wayland::gnome::{ALLOWED_FILE, EXTENSION_FILES, EXTENSION_UUID};

/// glovebox's GNOME Shell extension for a private GNOME desktop,
/// answering `programs`.
pub fn gnome_sandbox_extension(
    programs: &[&std::path::Path],
) -> glovebox_sandbox::gnome::ShellExtension {
    let mut files: Vec<(String, String)> =
        EXTENSION_FILES.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
    let allowed: Vec<String> = programs.iter().map(|p| format!("{}\n", p.display())).collect();
    files.push((ALLOWED_FILE.to_owned(), allowed.concat()));
    glovebox_sandbox::gnome::ShellExtension { uuid: EXTENSION_UUID.to_owned(), files }
}
use std::sync::Arc;

fn no_route(what: &str) -> BackendError {
    BackendError::new(
        BackendErrorKind::NoBackgroundRoute,
        format!(
            "{what} has no route on Wayland: the protocol lets no client send pointer or key events into another client's window, and glovebox takes no global input device (uinput, the RemoteDesktop portal), which would move the user's own pointer and keyboard; act through an element instead (click an element with an action, set_value, select, or a key chord the application's menus bind)"
        ),
    )
}

/// The compositor's own name for `window`.
fn handle_of(
    served: &dyn glovebox_wayland::served::Served,
    window: &WindowInfo,
) -> Result<String, BackendError> {
    served
        .snapshot()?
        .windows
        .into_iter()
        .find(|l| l.info.id == window.id)
        .map(|l| l.handle)
        .ok_or_else(|| BackendError::gone(format!("window {} closed", window.id)))
}

/// The window the compositor says has the keyboard focus.
fn focused_of(
    served: &dyn glovebox_wayland::served::Served,
) -> Result<Option<WindowId>, BackendError> {
    Ok(served.snapshot()?.windows.iter().find(|l| l.info.focused).map(|l| l.info.id))
}

/// The X server's record of XWayland clients (X-Resource), for KWin.
struct XwaylandPids(glovebox_x11::ClientPids);

impl glovebox_wayland::kwin::XwaylandClients for XwaylandPids {
    fn pid_of(&self, window: u32) -> Option<u32> {
        self.0.pid_of(window)
    }
}

/// `kwin`, naming the processes of XWayland windows that wrote no pid by
/// the X server of `xwayland` (the session's `DISPLAY`), where it answers
/// X-Resource; as it was otherwise (those windows' processes unknown).
pub fn kwin_with_xwayland(
    kwin: glovebox_wayland::kwin::KWinBackend,
    xwayland: Option<&str>,
) -> glovebox_wayland::kwin::KWinBackend {
    match xwayland.filter(|d| !d.is_empty()).map(glovebox_x11::ClientPids::connect) {
        Some(Ok(pids)) => kwin.with_xwayland(Box::new(XwaylandPids(pids))),
        _ => kwin,
    }
}

impl SeatKeys for glovebox_wayland::kwin::KWinBackend {
    fn focus(&self, window: &WindowInfo) -> Result<Option<String>, BackendError> {
        Ok(glovebox_wayland::kwin::KWinBackend::focus(self, &handle_of(self, window)?)?)
    }

    fn give_back(&self, previous: &str) -> Result<(), BackendError> {
        glovebox_wayland::kwin::KWinBackend::focus(self, previous).map(|_| ()).map_err(Into::into)
    }

    fn focused(&self) -> Result<Option<WindowId>, BackendError> {
        focused_of(self)
    }

    fn keysyms(&self, strokes: &[(u32, bool)]) -> Result<(), BackendError> {
        glovebox_wayland::kwin::KWinBackend::keysyms(self, strokes).map_err(Into::into)
    }

    fn pointer(&self) -> Option<&dyn SeatPointer> {
        Some(self)
    }
}

impl SeatKeys for glovebox_wayland::gnome::GnomeShellBackend {
    fn focus(&self, window: &WindowInfo) -> Result<Option<String>, BackendError> {
        Ok(glovebox_wayland::gnome::GnomeShellBackend::focus(self, &handle_of(self, window)?)?)
    }

    fn give_back(&self, previous: &str) -> Result<(), BackendError> {
        glovebox_wayland::gnome::GnomeShellBackend::focus(self, previous)
            .map(|_| ())
            .map_err(Into::into)
    }

    fn focused(&self) -> Result<Option<WindowId>, BackendError> {
        focused_of(self)
    }

    fn keysyms(&self, strokes: &[(u32, bool)]) -> Result<(), BackendError> {
        glovebox_wayland::gnome::GnomeShellBackend::keysyms(self, strokes).map_err(Into::into)
    }

    fn pointer(&self) -> Option<&dyn SeatPointer> {
        Some(self)
    }
}

/// Input on Wayland: AT-SPI in the background; in the foreground, keys on
/// the seat's keyboard where the compositor offers it ([`SeatKeys`]).
pub struct WaylandInput {
    pub atspi: Arc<AtspiBackend>,
    pub seat_keys: Option<Arc<dyn SeatKeys>>,
}

impl WaylandInput {
    /// Keys and text through the seat's keyboard: the window focused
    /// first (and checked to be), every key pressed released on every
    /// path, the focus given back after.
    fn through_the_seat(
        &self,
        seat: &dyn SeatKeys,
        window: &WindowInfo,
        action: &Action,
    ) -> Result<Delivery, BackendError> {
        let presses: Vec<Vec<u32>> = match action {
            Action::Key { combo, repeat } => {
                let keysyms = glovebox_x11::combo_keysyms(combo);
                (0..(*repeat).max(1)).map(|_| keysyms.clone()).collect()
            }
            // A keysym the seat's layout has no key for is dropped by the
            // compositor without a word: only text every layout types is
            // sent, the rest refused before any key goes out.
            Action::Type { text, .. } if !text.chars().all(|c| c.is_ascii_graphic() || c == ' ' || c == '\n' || c == '\t') => {
                return Err(BackendError::new(
                    BackendErrorKind::NoBackgroundRoute,
                    "the seat's keyboard types only ASCII here (a character its layout has no key for would be dropped without a word); set_value the field instead",
                ))
            }
            Action::Type { text, .. } => {
                text.chars().map(|c| vec![glovebox_x11::char_keysym(c)]).collect()
            }
            _ => unreachable!("only keys and text go through the seat"),
        };
        let previous = seat.focus(window)?;
        let focused = (0..50).find_map(|_| match seat.focused() {
            Ok(Some(id)) if id == window.id => Some(Ok(())),
            Err(e) => Some(Err(e)),
            _ => {
                std::thread::sleep(std::time::Duration::from_millis(10));
                None
            }
        });
        let outcome = match focused {
            Some(Ok(())) => {
                let mut sent = Ok(());
                for chord in &presses {
                    // Held keys are released whatever happened to the press.
                    let press: Vec<(u32, bool)> = chord.iter().map(|&k| (k, true)).collect();
                    let release: Vec<(u32, bool)> =
                        chord.iter().rev().map(|&k| (k, false)).collect();
                    let pressed = seat.keysyms(&press);
                    let released = seat.keysyms(&release);
                    if let Err(e) = pressed.and(released) {
                        sent = Err(e);
                        break;
                    }
                }
                // The compositor answers a key once it is queued, not delivered: the focus
                // handed back at once took the last keys with it (CI: the served matrix's
                // ctrl+a reached the person's window).
                std::thread::sleep(SEAT_SETTLE);
                sent
            }
            Some(Err(e)) => Err(e),
            None => Err(BackendError::new(
                BackendErrorKind::Unavailable,
                format!(
                    "the compositor did not give window {} the focus; nothing was typed",
                    window.id
                ),
            )),
        };
        if let Some(previous) = previous {
            give_focus_back(seat, &previous, window);
        }
        outcome
            .map(|()| Delivery::by(glovebox_platform::Route::RealInput(crate::routes::SEAT_KEYS)))
    }
}

impl InputSink for WaylandInput {
    fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        reach: glovebox_platform::Reach,
    ) -> Result<Delivery, BackendError> {
        let held = action.modifiers();
        if let (glovebox_platform::Reach::Foreground, Some(seat)) = (reach, &self.seat_keys) {
            match action {
                Action::Key { .. } | Action::Type { .. } => {
                    return self.through_the_seat(seat.as_ref(), window, action)
                }
                Action::Click { .. } if let Some(pointer) = seat.pointer() => {
                    return crate::seat_pointer::through_the_pointer(
                        seat.as_ref(),
                        pointer,
                        window,
                        action,
                        targets,
                    )
                }
                _ => {}
            }
        }
        match action {
            Action::SetValue { .. } | Action::Select { .. } | Action::Type { .. } => {
                self.atspi.deliver_semantic(window, action, targets)
            }
            Action::Click { button: Button::Left, count: 1, .. } if held.is_empty() => {
                let what = match targets.first() {
                    Some(ResolvedTarget::Global { .. }) => "a click at a point",
                    _ => "a click on this element",
                };
                match self.atspi.deliver_semantic(window, action, targets) {
                    // Without an accessible action there, the click would need a real pointer event.
                    Err(e)
                        if matches!(
                            e.kind,
                            BackendErrorKind::NotActionable | BackendErrorKind::NoBackgroundRoute
                        ) =>
                    {
                        let mut refusal = no_route(what);
                        refusal.message = format!("{} ({})", refusal.message, e.message);
                        Err(refusal)
                    }
                    outcome => outcome,
                }
            }
            Action::Key { combo, repeat } => {
                crate::routes::shortcut_by_menu(&self.atspi, window, combo, *repeat).unwrap_or_else(
                    || {
                        Err(no_route(&format!(
                    "the key chord {combo} (bound to no menu item or button of this window)"
                )))
                    },
                )
            }
            Action::Click { button, count, .. } => {
                let what = match (button, count) {
                    (Button::Left, 1) => "a click".to_owned(),
                    (Button::Left, 2) => "a double click".to_owned(),
                    (Button::Left, n) => format!("a {n}-fold click"),
                    (Button::Right, _) => "a right click".to_owned(),
                    (Button::Middle, _) => "a middle click".to_owned(),
                    (Button::Back | Button::Forward, _) => "a side-button click".to_owned(),
                };
                Err(no_route(&if held.is_empty() {
                    what
                } else {
                    format!("{what} with {held} held")
                }))
            }
            other => Err(no_route(&format!("a {}", other.kind()))),
        }
    }
}

/// Secure input on Wayland: the focused element's role and state. Another
/// client's keyboard grab cannot be seen (`glovebox doctor` says so).
pub struct WaylandSecureInput {
    pub atspi: Arc<AtspiBackend>,
}

impl SecureInputProbe for WaylandSecureInput {
    fn keyboard_grabbed(&self) -> Result<bool, BackendError> {
        Ok(false)
    }

    fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError> {
        self.atspi.focused_password(window)
    }
}

/// The Wayland compositor of `session` for windows and capture, AT-SPI
/// on `session_bus` for trees and input.
pub fn backends(session: Session, session_bus: Option<&str>) -> Result<Backends, BackendError> {
    let socket = session.wayland_display.clone();
    let wayland = Arc::new(WaylandBackend::connect(session)?);
    let atspi = Arc::new(AtspiBackend::on_session_bus(session_bus)?);
    Ok(Backends {
        windows: wayland.clone(),
        capture: wayland.clone(),
        accessibility: atspi.clone(),
        input: Some(Arc::new(WaylandInput { atspi: atspi.clone(), seat_keys: None })),
        secure_input: Arc::new(WaylandSecureInput { atspi }),
        processes: Arc::new(super::ProcFs),
        launcher: Some(Arc::new(crate::launcher::DesktopLauncher {
            display: Some(crate::launcher::ChildDisplay::Wayland(socket)),
            session_bus: session_bus.map(str::to_owned),
            window_manager: crate::launcher::WindowManager::Wayland(wayland),
        })),
        // Nothing can be drawn over other clients' windows on Wayland without a compositor protocol for it.
        presence: None,
        agent_display: None,
        seen: Some(glovebox_ocr::shared_reader()),
        protected: crate::PROTECTED,
    })
}

/// A compositor that serves windows and pixels over D-Bus (KDE Plasma's
/// KWin, GNOME Shell with glovebox's extension) and the seat's keys for
/// foreground delivery, AT-SPI for trees and background input.
pub fn backends_served<S>(
    served: S,
    session_bus: Option<&str>,
    wayland_display: Option<std::path::PathBuf>,
) -> Result<Backends, BackendError>
where
    S: WindowSource + ScreenCapture + SeatKeys + 'static,
{
    let served = Arc::new(served);
    backends_served_with(served.clone(), Some(served), session_bus, wayland_display)
}

fn backends_served_with(
    served: Arc<dyn ServedDesktop>,
    seat_keys: Option<Arc<dyn SeatKeys>>,
    session_bus: Option<&str>,
    wayland_display: Option<std::path::PathBuf>,
) -> Result<Backends, BackendError> {
    let atspi = Arc::new(AtspiBackend::on_session_bus(session_bus)?);
    Ok(Backends {
        windows: served.clone().as_windows(),
        capture: served.as_capture(),
        accessibility: atspi.clone(),
        input: Some(Arc::new(WaylandInput { atspi: atspi.clone(), seat_keys })),
        secure_input: Arc::new(WaylandSecureInput { atspi }),
        processes: Arc::new(super::ProcFs),
        launcher: Some(Arc::new(crate::launcher::DesktopLauncher {
            display: wayland_display.map(crate::launcher::ChildDisplay::Wayland),
            session_bus: session_bus.map(str::to_owned),
            window_manager: crate::launcher::WindowManager::Unreachable,
        })),
        presence: None,
        agent_display: None,
        seen: Some(glovebox_ocr::shared_reader()),
        protected: crate::PROTECTED,
    })
}

/// A compositor's windows and pixels behind one pointer.
trait ServedDesktop: WindowSource + ScreenCapture + Send + Sync {
    fn as_windows(self: Arc<Self>) -> Arc<dyn WindowSource + Send + Sync>;
    fn as_capture(self: Arc<Self>) -> Arc<dyn ScreenCapture + Send + Sync>;
}

impl<T: WindowSource + ScreenCapture + Send + Sync + 'static> ServedDesktop for T {
    fn as_windows(self: Arc<Self>) -> Arc<dyn WindowSource + Send + Sync> {
        self
    }
    fn as_capture(self: Arc<Self>) -> Arc<dyn ScreenCapture + Send + Sync> {
        self
    }
}

/// Windows from the accessibility bus, where the compositor lists none to
/// other clients: each application's shown top-level accessibles, with
/// their size (a Wayland client knows no position, so each lies at 0,0).
pub struct AccessibleWindows {
    pub atspi: Arc<AtspiBackend>,
}

impl WindowSource for AccessibleWindows {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        Ok(self
            .atspi
            .windows()?
            .into_iter()
            .filter_map(|w| {
                let (width, height) = w.size?;
                Some(WindowInfo {
                    id: WindowId { pid: w.pid, handle: w.number },
                    app: w.app.clone(),
                    instance: w.app,
                    title: w.title,
                    // The bus daemon's record of the peer, not the client's word.
                    pid_source: PidSource::Server,
                    geometry: Rect::new(0, 0, width, height),
                    focused: w.active,
                    minimized: false,
                    desktop: glovebox_model::Desktop::User,
                })
            })
            .collect())
    }
}

/// Capture where no protocol reads other clients' pixels without asking:
/// refused, and declared, so grants are accessibility-only.
pub struct NoCapture {
    pub reason: String,
}

impl NoCapture {
    fn refusal(&self) -> BackendError {
        BackendError::new(
            BackendErrorKind::Unavailable,
            format!("no screenshots on this desktop: {}", self.reason),
        )
    }
}

impl ScreenCapture for NoCapture {
    fn availability(&self) -> Support {
        Support::Missing { reason: self.reason.clone() }
    }

    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        Err(self.refusal())
    }

    fn capture_window(
        &self,
        _window: &WindowRef,
        _limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        Err(self.refusal())
    }

    fn capture_desktop(
        &self,
        _selection: &DisplaySelection,
        _limits: CaptureLimits,
        _hidden: &[WindowId],
    ) -> Result<Capture, BackendError> {
        Err(self.refusal())
    }
}

/// A Wayland desktop whose compositor lists no windows to glovebox (no
/// sway IPC: GNOME, KDE): windows from AT-SPI's application frames, no
/// pixels (accessibility-only grants), the same semantic input.
/// `why` says why the compositor could not be used.
pub fn backends_without_compositor(
    session_bus: Option<&str>,
    why: &str,
) -> Result<Backends, BackendError> {
    let atspi = Arc::new(AtspiBackend::on_session_bus(session_bus)?);
    let reason = format!(
        "{why}; the compositor offers no wlr-screencopy, and the desktop portal's Screenshot asks the user for each picture, which glovebox does not do behind their back"
    );
    Ok(Backends {
        windows: Arc::new(AccessibleWindows { atspi: atspi.clone() }),
        capture: Arc::new(NoCapture { reason }),
        accessibility: atspi.clone(),
        input: Some(Arc::new(WaylandInput { atspi: atspi.clone(), seat_keys: None })),
        secure_input: Arc::new(WaylandSecureInput { atspi }),
        processes: Arc::new(super::ProcFs),
        launcher: Some(Arc::new(crate::launcher::DesktopLauncher {
            display: None,
            session_bus: session_bus.map(str::to_owned),
            window_manager: crate::launcher::WindowManager::Unreachable,
        })),
        presence: None,
        agent_display: None,
        seen: Some(glovebox_ocr::shared_reader()),
        protected: crate::PROTECTED,
    })
}

pub fn capabilities() -> Option<glovebox_platform::Capabilities> {
    let kwin = || glovebox_wayland::kwin::KWinBackend::connect(None).ok();
    let gnome = || glovebox_wayland::gnome::GnomeShellBackend::connect(None).ok();
    let mut caps = match Session::from_env().and_then(WaylandBackend::connect) {
        Ok(backend) => backend.capabilities(),
        Err(_) if let Some(kwin) = kwin() => kwin.capabilities(),
        Err(_) if let Some(gnome) = gnome() => gnome.capabilities(),
        Err(e) => {
            glovebox_wayland::wayland_display_from_env().ok()?;
            let none = Support::Missing {
                reason: format!(
                    "{}: no wlr-screencopy, and the portal asks the user per picture",
                    e.message
                ),
            };
            glovebox_platform::Capabilities {
                backend: "wayland (windows from the accessibility bus)".into(),
                window_listing: Support::Available {
                    detail: "each application's top-level accessibles (sizes, no positions)".into(),
                },
                window_capture: none.clone(),
                desktop_capture: none,
                accessibility: Support::Missing { reason: String::new() },
            }
        }
    };
    caps.accessibility = AtspiBackend::support();
    Some(caps)
}
