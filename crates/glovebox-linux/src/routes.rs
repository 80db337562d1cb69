//! Route choice for input on Linux/X11: which way each action reaches which
//! toolkit. Semantic AT-SPI routes come first (they have read-back);
//! window-targeted synthetic events are used only for toolkits the action
//! matrix showed honour them, because such events have no read-back and a
//! toolkit that drops them would otherwise look like a success. Foreground
//! (XTest) runs only when the host let a foreground call through.

use glovebox_atspi::AtspiBackend;
use glovebox_model::{Action, Button, DeliveryMode, KeyCombo, Modifiers, WindowInfo};
use glovebox_platform::{BackendError, BackendErrorKind};
use glovebox_platform::{Delivery, Gesture, InputSink, ResolvedTarget};
use glovebox_x11::X11Backend;
use std::sync::Arc;

/// The toolkits whose handling of synthetic events is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Toolkit {
    Gtk3,
    Gtk4,
    XTerm,
    /// Anything else, named by its AT-SPI toolkit name or WM_CLASS.
    Other(String),
}

/// Which synthetic (SendEvent) input a toolkit acts on; see
/// `docs/action-matrix.md` and `../shared/notes` for the measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SyntheticSupport {
    /// Clicks, hover, wheel and drags.
    pub pointer: bool,
    /// A middle click is safe to send (xterm pastes the selection on one).
    pub middle_button: bool,
    pub keys: bool,
}

impl Toolkit {
    /// Identifies the toolkit behind `window`: AT-SPI's answer when the
    /// window was matched to an accessible, else its WM_CLASS.
    pub fn of(atspi: &AtspiBackend, window: &WindowInfo) -> Toolkit {
        if let Some((name, version)) = atspi.toolkit(window) {
            return match (name.to_ascii_lowercase().as_str(), version.split('.').next()) {
                ("gtk", Some("3")) => Toolkit::Gtk3,
                ("gtk", Some("4")) => Toolkit::Gtk4,
                _ => Toolkit::Other(format!("{name} {version}")),
            };
        }
        match window.app.as_str() {
            "XTerm" | "UXTerm" => Toolkit::XTerm,
            other => Toolkit::Other(other.to_owned()),
        }
    }

    pub fn synthetic(&self) -> SyntheticSupport {
        match self {
            Toolkit::Gtk3 => SyntheticSupport { pointer: true, middle_button: true, keys: true },
            // xterm drops synthetic keys (allowSendEvents is off by default).
            Toolkit::XTerm => SyntheticSupport { pointer: true, middle_button: false, keys: false },
            // GTK4 ignores synthetic events; others are unmeasured, so unused.
            Toolkit::Gtk4 | Toolkit::Other(_) => SyntheticSupport::default(),
        }
    }

    /// Whether the program in a window of this toolkit sees `held`
    /// modifiers with a pointer button. xterm keeps ctrl (its menus) and
    /// shift (its own selection and scrollback) for itself, in either
    /// delivery, and reports only alt to the program (measured: action matrix).
    fn check_held_pointer_modifiers(&self, held: Modifiers) -> Result<(), BackendError> {
        match self {
            Toolkit::XTerm if held.ctrl || held.shift => Err(BackendError::new(
                BackendErrorKind::NotActionable,
                format!("xterm keeps {held} with a pointer button for itself (its menus, its own selection and scrollback) and never passes it to the program inside; send it without those keys"),
            )),
            _ => Ok(()),
        }
    }

    fn name(&self) -> String {
        match self {
            Toolkit::Gtk3 => "GTK3".into(),
            Toolkit::Gtk4 => "GTK4".into(),
            Toolkit::XTerm => "xterm".into(),
            Toolkit::Other(name) => name.clone(),
        }
    }
}

/// The Linux input sink: AT-SPI, then synthetic X events, or XTest.
pub struct LinuxInput {
    pub x11: Arc<X11Backend>,
    pub atspi: Arc<AtspiBackend>,
}

fn unavailable(what: &str, toolkit: &Toolkit) -> BackendError {
    BackendError::new(
        BackendErrorKind::NoBackgroundRoute,
        format!("no background route delivers {what} to this {} window; it would need foreground delivery (the real pointer and keyboard)", toolkit.name()),
    )
}

fn point_of(target: &ResolvedTarget) -> Result<glovebox_model::Point, BackendError> {
    target.point().ok_or_else(|| BackendError::new(BackendErrorKind::NotActionable, "the element has no visible bounds inside the window to point at"))
}

/// The pointer or keyboard gesture an action amounts to, when it has one.
fn gesture(action: &Action, targets: &[ResolvedTarget]) -> Result<Option<Gesture>, BackendError> {
    let at = |i: usize| targets.get(i).ok_or_else(|| BackendError::invalid_argument("this action needs a target")).and_then(point_of);
    let held = action.modifiers();
    Ok(Some(match action {
        Action::Click { button, count, .. } => Gesture::Click { at: at(0)?, button: *button, count: *count, held },
        Action::Move { .. } => Gesture::Hover { at: at(0)?, held },
        Action::Drag { .. } => Gesture::Drag { from: at(0)?, to: at(1)?, held },
        Action::Scroll { dx, dy, .. } => Gesture::Scroll { at: at(0)?, dx: *dx, dy: *dy, held },
        Action::Key { combo, repeat } => Gesture::Key { combo: KeyCombo::parse(combo)?, repeat: *repeat },
        Action::Type { text } => Gesture::Text { text: text.clone() },
        Action::SetValue { .. } | Action::Select { .. } => return Ok(None),
    }))
}

impl LinuxInput {
    /// Synthetic keys go to whatever widget the application has focused,
    /// which AT-SPI does not report for an inactive GTK3 window. Keys are
    /// sent only when the focused element is known and is not a password
    /// field, or when the window has no password field at all.
    fn check_key_destination(&self, window: &WindowInfo) -> Result<(), BackendError> {
        let tree = glovebox_platform::AccessibilitySource::inspect(&*self.atspi, window, glovebox_model::TreeBudget::default())?;
        let Some(root) = tree.root.as_ref() else { return Ok(()) };
        let secure = |why: &str| Err(BackendError::new(BackendErrorKind::SecureInput, why.to_owned()));
        let focused = root.walk().find(|e| e.has(glovebox_model::ElementState::Focused)).map(|e| e.is_password());
        let has_password = root.walk().any(|e| e.is_password());
        match focused {
            Some(true) => secure("the focused field is a password field: glovebox types nothing into it"),
            Some(false) => Ok(()),
            None if has_password => secure(
                "keys would go to this inactive window's focused widget, which its toolkit does not report, and the window has a password field; use set_value on the field you mean",
            ),
            None => Ok(()),
        }
    }

    fn synthetic(&self, window: &WindowInfo, gesture: &Gesture) -> Result<Delivery, BackendError> {
        if matches!(gesture, Gesture::Key { .. } | Gesture::Text { .. }) {
            self.check_key_destination(window)?;
        }
        self.x11.perform(window, gesture, DeliveryMode::Background)?;
        Ok(Delivery { route: "x11:SendEvent".into() })
    }

    fn background(&self, window: &WindowInfo, action: &Action, targets: &[ResolvedTarget]) -> Result<Delivery, BackendError> {
        let toolkit = Toolkit::of(&self.atspi, window);
        let accepts = toolkit.synthetic();
        let Some(gesture) = gesture(action, targets)? else {
            return self.atspi.deliver_semantic(window, action, targets);
        };
        let held = action.modifiers();
        if !held.is_empty() {
            toolkit.check_held_pointer_modifiers(held)?;
        }
        match action {
            Action::Click { button: Button::Middle, .. } if accepts.pointer && !accepts.middle_button => Err(BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                format!("a synthetic middle click in a {} window pastes the selection; glovebox does not send one in the background", toolkit.name()),
            )),
            // An accessibility action cannot hold a key: a click with modifiers is events or nothing.
            _ if !held.is_empty() && accepts.pointer => self.synthetic(window, &gesture),
            _ if !held.is_empty() => Err(unavailable(&format!("a {} with {held} held", action.kind()), &toolkit)),
            Action::Click { button: Button::Left, count: 1, .. } | Action::Type { .. } => match self.atspi.deliver_semantic(window, action, targets) {
                Ok(delivery) => Ok(delivery),
                // No semantic route for this element (or no accessible at all): events, where the toolkit takes them.
                Err(e) if matches!(e.kind, BackendErrorKind::NotActionable | BackendErrorKind::NoBackgroundRoute) => {
                    let usable = if matches!(action, Action::Type { .. }) { accepts.keys } else { accepts.pointer };
                    match (usable, &toolkit) {
                        (true, _) => self.synthetic(window, &gesture),
                        // Without accessibility the semantic refusal says nothing useful.
                        (false, Toolkit::XTerm) => Err(unavailable(if matches!(action, Action::Type { .. }) { "typing" } else { "this click" }, &toolkit)),
                        (false, _) => Err(e),
                    }
                }
                Err(e) => Err(e),
            },
            Action::Key { .. } if accepts.keys => self.synthetic(window, &gesture),
            Action::Key { .. } => Err(unavailable("key presses", &toolkit)),
            _ if accepts.pointer => self.synthetic(window, &gesture),
            _ => Err(unavailable(&format!("a {}", action.kind()), &toolkit)),
        }
    }

    fn foreground(&self, window: &WindowInfo, action: &Action, targets: &[ResolvedTarget]) -> Result<Delivery, BackendError> {
        let Some(gesture) = gesture(action, targets)? else {
            // Setting a value or choosing an option never needs the real pointer.
            return self.atspi.deliver_semantic(window, action, targets);
        };
        if let Gesture::Text { .. } = gesture {
            // Characters no key produces go in through the semantic route
            // instead, where the application exposes a focused field.
            if let Err(no_keys) = self.x11.strokes(&gesture) {
                return self.atspi.deliver_semantic(window, action, targets).map_err(|_| no_keys);
            }
        }
        if matches!(gesture, Gesture::Key { .. } | Gesture::Text { .. }) {
            self.check_key_destination(window)?;
        }
        let held = gesture.held();
        if !held.is_empty() {
            Toolkit::of(&self.atspi, window).check_held_pointer_modifiers(held)?;
            if (held.alt || held.superkey) && !matches!(gesture, Gesture::Hover { .. }) {
                // Sent to the window directly, background events bypass those bindings; the real pointer cannot.
                return Err(BackendError::new(
                    BackendErrorKind::NotActionable,
                    format!("with {held} held, the real pointer's buttons and wheel belong to the window manager (it moves, resizes or switches desktops); glovebox sends no such foreground action: deliver it in the background"),
                ));
            }
        }
        self.x11.perform(window, &gesture, DeliveryMode::Foreground)?;
        Ok(Delivery { route: "x11:XTest".into() })
    }
}

impl InputSink for LinuxInput {
    fn deliver(&self, window: &WindowInfo, action: &Action, targets: &[ResolvedTarget], mode: DeliveryMode) -> Result<Delivery, BackendError> {
        match mode {
            DeliveryMode::Background => self.background(window, action, targets),
            DeliveryMode::Foreground => self.foreground(window, action, targets),
        }
    }
}
