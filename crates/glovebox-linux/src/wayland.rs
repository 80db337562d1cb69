//! glovebox on a Wayland desktop: the compositor for windows and pixels
//! (glovebox-wayland), AT-SPI for trees and for every input.
//!
//! Wayland lets no client send pointer or key events into another
//! client's window, so the only background routes are the application's
//! own accessible interfaces: actions, text, values, selection, and key
//! chords through the menu items bound to them. Pointer gestures and raw
//! keys are refused with the reason; no global input device (uinput,
//! ydotool, the RemoteDesktop portal) is ever used, since those move the
//! user's own pointer and keyboard.

use glovebox_atspi::AtspiBackend;
use glovebox_model::{Action, Button, DeliveryMode, WindowInfo};
use glovebox_platform::{BackendError, BackendErrorKind, Backends, Delivery, InputSink, ResolvedTarget, SecureInputProbe};
use glovebox_wayland::{Session, WaylandBackend};
use std::sync::Arc;

fn no_route(what: &str) -> BackendError {
    BackendError::new(
        BackendErrorKind::NoBackgroundRoute,
        format!(
            "{what} has no route on Wayland: the protocol lets no client send pointer or key events into another client's window, and glovebox takes no global input device (uinput, the RemoteDesktop portal), which would move the user's own pointer and keyboard; act through an element instead (click an element with an action, set_value, select, or a key chord the application's menus bind)"
        ),
    )
}

/// Input on Wayland: AT-SPI alone, in either delivery mode (there is no
/// foreground route to take).
pub struct WaylandInput {
    pub atspi: Arc<AtspiBackend>,
}

impl InputSink for WaylandInput {
    fn deliver(&self, window: &WindowInfo, action: &Action, targets: &[ResolvedTarget], _mode: DeliveryMode) -> Result<Delivery, BackendError> {
        let held = action.modifiers();
        match action {
            Action::SetValue { .. } | Action::Select { .. } | Action::Type { .. } => self.atspi.deliver_semantic(window, action, targets),
            Action::Click { button: Button::Left, count: 1, .. } if held.is_empty() => {
                let what = match targets.first() {
                    Some(ResolvedTarget::Global { .. }) => "a click at a point",
                    _ => "a click on this element",
                };
                match self.atspi.deliver_semantic(window, action, targets) {
                    // Without an accessible action there, the click would need a real pointer event.
                    Err(e) if matches!(e.kind, BackendErrorKind::NotActionable | BackendErrorKind::NoBackgroundRoute) => {
                        let mut refusal = no_route(what);
                        refusal.message = format!("{} ({})", refusal.message, e.message);
                        Err(refusal)
                    }
                    outcome => outcome,
                }
            }
            Action::Key { combo, repeat } => crate::routes::shortcut_by_menu(&self.atspi, window, combo, *repeat)
                .unwrap_or_else(|| Err(no_route(&format!("the key chord {combo} (bound to no menu item or button of this window)")))),
            Action::Click { button, count, .. } => {
                let what = match (button, count) {
                    (Button::Left, 1) => "a click".to_owned(),
                    (Button::Left, 2) => "a double click".to_owned(),
                    (Button::Left, n) => format!("a {n}-fold click"),
                    (Button::Right, _) => "a right click".to_owned(),
                    (Button::Middle, _) => "a middle click".to_owned(),
                    (Button::Back | Button::Forward, _) => "a side-button click".to_owned(),
                };
                Err(no_route(&if held.is_empty() { what } else { format!("{what} with {held} held") }))
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
        input: Some(Arc::new(WaylandInput { atspi: atspi.clone() })),
        secure_input: Arc::new(WaylandSecureInput { atspi }),
        processes: Arc::new(super::ProcFs),
        launcher: Some(Arc::new(crate::launcher::DesktopLauncher {
            display: Some(crate::launcher::ChildDisplay::Wayland(socket)),
            session_bus: session_bus.map(str::to_owned),
            window_manager: crate::launcher::WindowManager::Wayland(wayland),
        })),
        // Nothing can be drawn over other clients' windows on Wayland without a compositor protocol for it.
        presence: None,
    })
}

pub fn capabilities() -> Option<glovebox_platform::Capabilities> {
    let backend = WaylandBackend::connect(Session::from_env().ok()?).ok()?;
    let mut caps = backend.capabilities();
    caps.accessibility = AtspiBackend::support();
    Some(caps)
}
