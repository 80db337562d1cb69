//! Route choice for input on Linux/X11: which way each action reaches which
//! toolkit. Semantic AT-SPI routes come first (they have read-back);
//! window-targeted synthetic events are used only for toolkits the action
//! matrix showed honour them, because such events have no read-back and a
//! toolkit that drops them would otherwise look like a success. Foreground
//! (XTest) runs only when the host let a foreground call through.

use glovebox_atspi::transport::ToolkitFamily;
use glovebox_atspi::{AtspiBackend, KeyDestination};
use glovebox_model::{Action, Button, DeliveryMode, KeyCombo, Modifiers, WindowInfo};
use glovebox_platform::{BackendError, BackendErrorKind};
use glovebox_platform::{
    Delivery, Gesture, InputSink, Mechanism, Reach, Receipt, ResolvedTarget, Route,
};
use glovebox_x11::input::{Aim, Framing, SyntheticStyle};
use glovebox_x11::X11Backend;
use std::sync::Arc;

/// Events X11 sends to the window alone (`SendEvent`).
pub const SEND_EVENT: Mechanism = Mechanism::named("x11:SendEvent");
/// Keys sent to the window alone after another route put the focus or cursor on the target.
pub const SEND_EVENT_KEYS: Mechanism = Mechanism::named("x11:SendEvent(keys)");
/// X11's device-level input (the XTest extension): the real pointer and keyboard.
pub const XTEST: Mechanism = Mechanism::named("x11:XTest");
/// The seat's keyboard through the Wayland compositor.
pub const SEAT_KEYS: Mechanism = Mechanism::named("wayland:the seat's keyboard");
/// The seat's pointer through the Wayland compositor.
pub const SEAT_POINTER: Mechanism = Mechanism::named("wayland:the seat's pointer");

/// The toolkits whose handling of synthetic events is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Toolkit {
    Gtk3,
    Gtk4,
    Qt5,
    /// Chromium, Chrome and Electron apps.
    Chromium,
    /// Firefox and Thunderbird.
    Gecko,
    XTerm,
    /// Tcl/Tk and Python's tkinter: no accessibility at all.
    Tk,
    /// Anything else, named by its AT-SPI toolkit name or WM_CLASS.
    Other(String),
}

/// Which synthetic (SendEvent) input a toolkit acts on; see
/// `docs/action-matrix.md` and `docs/input.md` for the measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntheticSupport {
    /// Clicks, hover and drags.
    pub pointer: bool,
    /// Wheel buttons (Gecko reads the wheel through XInput2 only).
    pub wheel: bool,
    /// A middle click is safe to send (xterm pastes the selection on one).
    pub middle_button: bool,
    pub keys: bool,
    pub style: SyntheticStyle,
    /// The accessible action that gives a text field keyboard focus
    /// without activating the window, where typing needs it (web fields).
    pub focus_actions: &'static [&'static str],
    /// Characters outside the Basic Multilingual Plane (emoji) can be typed
    /// as keys. Chromium's input method takes such a key as the start of a
    /// composition and swallows the keys after it (measured: action matrix).
    pub astral_keys: bool,
    /// `set_value` by keys may type on lent key codes. Chromium's page saw
    /// no input in about one run in two when a lent key ended the text,
    /// though its accessible text read right (measured: action matrix).
    pub lent_keys_in_fields: bool,
}

impl Default for SyntheticSupport {
    fn default() -> SyntheticSupport {
        SyntheticSupport {
            pointer: false,
            wheel: false,
            middle_button: false,
            keys: false,
            style: SyntheticStyle::PLAIN,
            focus_actions: &[],
            astral_keys: true,
            lent_keys_in_fields: true,
        }
    }
}

impl Toolkit {
    /// Identifies the toolkit behind `window`: AT-SPI's answer when the
    /// window was matched to an accessible, else its WM_CLASS.
    pub fn of(atspi: &AtspiBackend, window: &WindowInfo) -> Toolkit {
        if let Some(named) = atspi.toolkit(window) {
            return match (named.family, named.major) {
                (ToolkitFamily::Gtk, Some(3)) => Toolkit::Gtk3,
                (ToolkitFamily::Gtk, Some(4)) => Toolkit::Gtk4,
                (ToolkitFamily::Qt, Some(5)) => Toolkit::Qt5,
                (ToolkitFamily::Chromium, _) => Toolkit::Chromium,
                (ToolkitFamily::Gecko, _) => Toolkit::Gecko,
                _ => Toolkit::Other(named.said),
            };
        }
        match window.app.as_str() {
            "XTerm" | "UXTerm" => return Toolkit::XTerm,
            _ => {}
        }
        // No accessible to ask: the libraries the process mapped say what drew the window.
        use glovebox_atspi::no_tree::DarkToolkit;
        match DarkToolkit::of_process(window.id.pid) {
            Some(DarkToolkit::Chromium) => Toolkit::Chromium,
            Some(DarkToolkit::Gecko) => Toolkit::Gecko,
            Some(DarkToolkit::Tk) => Toolkit::Tk,
            _ => Toolkit::Other(window.app.clone()),
        }
    }

    pub fn synthetic(&self) -> SyntheticSupport {
        let all = SyntheticSupport {
            pointer: true,
            wheel: true,
            middle_button: true,
            keys: true,
            style: SyntheticStyle::PLAIN,
            focus_actions: &[],
            astral_keys: true,
            lent_keys_in_fields: true,
        };
        match self {
            Toolkit::Gtk3 => all,
            // A bare press activates and raises a Chromium window, and it
            // takes keys only while it believes it is focused.
            Toolkit::Chromium => SyntheticSupport {
                style: SyntheticStyle { framing: Framing::InFocus, aim: Aim::Deepest },
                focus_actions: &["activate", "click"],
                astral_keys: false,
                lent_keys_in_fields: false,
                ..all
            },
            // Qt types bare keys but fires its shortcuts (QAction) only in
            // what it thinks is the active window, and a bare press raises
            // it; it reads the wheel through XInput2 alone.
            Toolkit::Qt5 => SyntheticSupport {
                wheel: false,
                style: SyntheticStyle { framing: Framing::InFocus, aim: Aim::Deepest },
                focus_actions: &["SetFocus"],
                ..all
            },
            // Gecko reads the wheel through XInput2 alone, and pointer
            // events only when addressed to its top-level window (a child
            // window covering the client area ignores synthetic presses).
            Toolkit::Gecko => SyntheticSupport {
                wheel: false,
                style: SyntheticStyle { framing: Framing::Bare, aim: Aim::TopLevel },
                focus_actions: &["activate", "click"],
                ..all
            },
            // xterm drops synthetic keys (allowSendEvents is off by default).
            Toolkit::XTerm => SyntheticSupport { middle_button: false, keys: false, ..all },
            // Tk takes keys only while it believes one of its windows has the
            // focus (a FocusIn first), and each widget is an X window of its own.
            Toolkit::Tk => SyntheticSupport {
                style: SyntheticStyle { framing: Framing::InFocus, aim: Aim::Deepest },
                ..all
            },
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
            Toolkit::Qt5 => "Qt 5".into(),
            Toolkit::Chromium => "Chromium".into(),
            Toolkit::Gecko => "Firefox (Gecko)".into(),
            Toolkit::XTerm => "xterm".into(),
            Toolkit::Tk => "Tk".into(),
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

/// Refuses text with characters outside the Basic Multilingual Plane
/// where the toolkit cannot take them as keys, before anything is sent.
fn check_astral(gesture: &Gesture, accepts: SyntheticSupport) -> Result<(), BackendError> {
    match gesture {
        Gesture::Text { text } if !accepts.astral_keys => match text.chars().find(|c| u32::from(*c) > 0xffff) {
            Some(c) => Err(BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                format!("{c:?} (U+{:X}) lies outside the Basic Multilingual Plane, and this toolkit's input method swallows the keys after one typed as a key; no key route types it here", u32::from(c)),
            )),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

fn point_of(target: &ResolvedTarget) -> Result<glovebox_model::Point, BackendError> {
    target.point().ok_or_else(|| {
        BackendError::new(
            BackendErrorKind::NotActionable,
            "the element has no visible bounds inside the window to point at",
        )
    })
}

/// The pointer or keyboard gesture an action amounts to, when it has one.
fn gesture(action: &Action, targets: &[ResolvedTarget]) -> Result<Option<Gesture>, BackendError> {
    let at = |i: usize| {
        targets
            .get(i)
            .ok_or_else(|| BackendError::invalid_argument("this action needs a target"))
            .and_then(point_of)
    };
    let held = action.modifiers();
    Ok(Some(match action {
        Action::Click { button, count, .. } => {
            Gesture::Click { at: at(0)?, button: *button, count: *count, held }
        }
        Action::Move { .. } => Gesture::Hover { at: at(0)?, held },
        Action::Drag { .. } => Gesture::Drag { from: at(0)?, to: at(1)?, held },
        Action::Scroll { dx, dy, .. } => Gesture::Scroll { at: at(0)?, dx: *dx, dy: *dy, held },
        Action::Key { combo, repeat } => Gesture::Key { combo: *combo, repeat: *repeat },
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
        let secure =
            |why: &str| Err(BackendError::new(BackendErrorKind::SecureInput, why.to_owned()));
        match self.atspi.key_destination(window)? {
            KeyDestination::Password => secure("the focused field is a password field: glovebox types nothing into it"),
            KeyDestination::Field | KeyDestination::Unknown { has_password: false } => Ok(()),
            KeyDestination::Unknown { has_password: true } => secure(
                "keys would go to this inactive window's focused widget, which its toolkit does not report, and the window has a password field; use set_value on the field you mean",
            ),
        }
    }

    fn synthetic(
        &self,
        window: &WindowInfo,
        gesture: &Gesture,
        accepts: SyntheticSupport,
    ) -> Result<Delivery, BackendError> {
        if matches!(gesture, Gesture::Key { .. } | Gesture::Text { .. }) {
            check_astral(gesture, accepts)?;
            self.check_key_destination(window)?;
        }
        match gesture {
            // Lent key codes are taken back once the text shows in the field (where it can be read).
            Gesture::Text { text } if self.x11.check_layout_keys(text).is_err() => {
                let before = self.atspi.focused_text(window);
                let shown = || match (&before, self.atspi.focused_text(window)) {
                    (Some(before), Some(now)) => {
                        now.contains(text.as_str())
                            && now.chars().count() >= before.chars().count() + text.chars().count()
                    }
                    _ => true,
                };
                self.x11.perform_background_until_shown(window, gesture, accepts.style, &shown)?;
            }
            _ => self.x11.perform_background(window, gesture, accepts.style)?,
        }
        Ok(self.acknowledged(window, Delivery::by(Route::WindowEvents(SEND_EVENT))))
    }

    /// `set_value` by keys: focus the field through its own accessible
    /// action, select all, type, and read the field back. Only characters
    /// the keyboard layout produces can go in this way.
    fn set_by_keys(
        &self,
        window: &WindowInfo,
        targets: &[ResolvedTarget],
        text: &str,
        accepts: SyntheticSupport,
    ) -> Result<Delivery, BackendError> {
        let target = targets
            .first()
            .ok_or_else(|| BackendError::invalid_argument("set_value needs a target"))?;
        let typed = Gesture::Text { text: text.to_owned() };
        check_astral(&typed, accepts)?;
        // Refused before anything is sent when the layout lacks a character.
        let typeable = match accepts.lent_keys_in_fields {
            true => self.x11.check_keys(&typed),
            false => self.x11.check_layout_keys(text),
        };
        typeable.map_err(|e| {
            BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                format!("{}; this field takes text only as key presses", e.message),
            )
        })?;
        if accepts.focus_actions.is_empty() {
            return Err(BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                "no way to focus the field",
            ));
        }
        let focused = self.atspi.focus_field(window, target, accepts.focus_actions)?;
        let select_all = Gesture::Key { combo: KeyCombo::parse("ctrl+a")?, repeat: 1 };
        self.x11.perform_background(window, &select_all, accepts.style)?;
        let replace = if text.is_empty() {
            Gesture::Key { combo: KeyCombo::parse("backspace")?, repeat: 1 }
        } else {
            typed
        };
        self.x11.perform_background(window, &replace, accepts.style)?;
        self.atspi.expect_text(window, target, text)?;
        Ok(Delivery::by(Route::ThenKeys(Box::new(focused), SEND_EVENT_KEYS)))
    }

    /// `set_value` on a spreadsheet's cell by keys: the table's selection
    /// puts the cursor on the cell, the text replaces its content, Return
    /// commits it, and the cell is read back. `None` when the target is
    /// not a cell that takes text as keys.
    fn set_cell_by_keys(
        &self,
        window: &WindowInfo,
        targets: &[ResolvedTarget],
        text: &str,
        accepts: SyntheticSupport,
    ) -> Result<Option<Delivery>, BackendError> {
        let target = targets
            .first()
            .ok_or_else(|| BackendError::invalid_argument("set_value needs a target"))?;
        if !self.atspi.is_keyed_cell(window, target)? {
            return Ok(None);
        }
        if text.is_empty() {
            return Err(BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                "no route empties this cell: Calc keeps a cell whose edit ends empty, and its Delete key sent to it left the cell as it was (measured)",
            ));
        }
        let typed = Gesture::Text { text: text.to_owned() };
        if text.contains(['\n', '\t']) {
            return Err(BackendError::invalid_argument(
                "a cell's text cannot hold a line break or a tab: they move the cell cursor",
            ));
        }
        check_astral(&typed, accepts)?;
        let typeable = match accepts.lent_keys_in_fields {
            true => self.x11.check_keys(&typed),
            false => self.x11.check_layout_keys(text),
        };
        typeable.map_err(|e| {
            BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                format!("{}; this cell takes text only as key presses", e.message),
            )
        })?;

        let selected = self.atspi.select_in_table(window, target)?;
        // Typing replaces a spreadsheet cell's content; Return commits it.
        self.x11.perform_background(window, &typed, accepts.style)?;
        self.x11.perform_background(
            window,
            &Gesture::Key { combo: KeyCombo::parse("Return")?, repeat: 1 },
            accepts.style,
        )?;
        self.atspi.expect_text(window, target, text)?;
        Ok(Some(Delivery::by(Route::ThenKeys(Box::new(selected), SEND_EVENT_KEYS))))
    }

    fn background(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
    ) -> Result<Delivery, BackendError> {
        let toolkit = Toolkit::of(&self.atspi, window);
        let accepts = toolkit.synthetic();
        if matches!(action, Action::Select { .. })
            && matches!(toolkit, Toolkit::Gecko | Toolkit::Chromium)
        {
            // Measured: Gecko's Selection on the options' list changes the page's value without a
            // change event, and its options' `select` action changes nothing; Chromium's `select`
            // marks the option chosen in its tree but, now and then, leaves the page's value as
            // it was, and its drop-down exposes no value to read back.
            return Err(BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                format!("{} web drop-downs cannot be chosen through accessibility with a read-back (the page's value does not reliably follow, and none can be read); no background route chooses an option here", toolkit.name()),
            ));
        }
        // A plain click on an element with no point on screen (GTK 4.18 places some
        // outside their window) can still be the element's own action.
        if matches!(action, Action::Click { button: Button::Left, count: 1, .. })
            && action.modifiers().is_empty()
            && targets.first().is_some_and(|t| t.point().is_none())
        {
            return self.atspi.deliver_semantic(window, action, targets);
        }
        let Some(gesture) = gesture(action, targets)? else {
            return match (action, self.atspi.deliver_semantic(window, action, targets)) {
                // Web fields take no text over AT-SPI (Chromium has no EditableText there, Gecko drops
                // it), nor do a spreadsheet's cells (a number goes in as their value): keys, where they reach.
                (Action::SetValue { text, .. }, Err(e))
                    if accepts.keys
                        && matches!(
                            e.kind,
                            BackendErrorKind::NotActionable | BackendErrorKind::NoBackgroundRoute
                        ) =>
                {
                    if let Some(delivery) = self.set_cell_by_keys(window, targets, text, accepts)? {
                        return Ok(delivery);
                    }
                    if accepts.focus_actions.is_empty() {
                        return Err(e);
                    }
                    self.set_by_keys(window, targets, text, accepts).map_err(|keys| {
                        if keys.is(&BackendErrorKind::NoBackgroundRoute) {
                            BackendError::new(
                                BackendErrorKind::NoBackgroundRoute,
                                format!("{}; by keys: {}", e.message, keys.message),
                            )
                        } else {
                            keys
                        }
                    })
                }
                (_, outcome) => outcome,
            };
        };
        let takes_pointer = match action {
            Action::Scroll { .. } => accepts.wheel,
            _ => accepts.pointer,
        };
        let held = action.modifiers();
        if !held.is_empty() {
            toolkit.check_held_pointer_modifiers(held)?;
        }
        match action {
            Action::Click { button: Button::Middle, .. } if takes_pointer && !accepts.middle_button => Err(BackendError::new(
                BackendErrorKind::NoBackgroundRoute,
                format!("a synthetic middle click in a {} window pastes the selection; glovebox does not send one in the background", toolkit.name()),
            )),
            // An accessibility action cannot hold a key: a click with modifiers is events or nothing.
            _ if !held.is_empty() && takes_pointer => self.synthetic(window, &gesture, accepts),
            _ if !held.is_empty() => Err(unavailable(&format!("a {} with {held} held", action.kind()), &toolkit)),
            Action::Click { button: Button::Left, count: 1, .. } | Action::Type { .. } => match self.atspi.deliver_semantic(window, action, targets) {
                // GTK4 runs the activation before it answers: a menu button's popup is open now.
                Ok(delivery) if toolkit == Toolkit::Gtk4 && matches!(action, Action::Click { .. }) => Ok(self.report_grab(delivery, None)),
                Ok(delivery) => Ok(delivery),
                // No semantic route for this element (or no accessible at all): events, where the toolkit takes them.
                Err(e) if matches!(e.kind, BackendErrorKind::NotActionable | BackendErrorKind::NoBackgroundRoute) => {
                    let usable = if matches!(action, Action::Type { .. }) { accepts.keys } else { takes_pointer };
                    match (usable, &toolkit) {
                        (true, _) => self.synthetic(window, &gesture, accepts),
                        // Without accessibility the semantic refusal says nothing useful.
                        (false, Toolkit::XTerm) => Err(unavailable(if matches!(action, Action::Type { .. }) { "typing" } else { "this click" }, &toolkit)),
                        (false, _) => Err(e),
                    }
                }
                Err(e) => Err(e),
            },
            // Where no event reaches the toolkit, a right click is the element's own context-menu action.
            Action::Click { button: Button::Right, count: 1, .. } if !takes_pointer => {
                let delivery = self.atspi.deliver_semantic(window, action, targets).map_err(|e| match e.kind {
                    BackendErrorKind::NotActionable | BackendErrorKind::NoBackgroundRoute => unavailable("this right click", &toolkit),
                    _ => e,
                })?;
                Ok(self.report_grab(delivery, Some(POPUP_GRAB_WAIT)))
            }
            Action::Key { .. } if accepts.keys => self.synthetic(window, &gesture, accepts),
            Action::Key { combo, repeat } => shortcut_by_menu(&self.atspi, window, combo, *repeat).unwrap_or_else(|| Err(unavailable("key presses", &toolkit))),
            _ if takes_pointer => self.synthetic(window, &gesture, accepts),
            _ => Err(unavailable(&format!("a {}", action.kind()), &toolkit)),
        }
    }

    fn foreground(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
    ) -> Result<Delivery, BackendError> {
        let Some(gesture) = gesture(action, targets)? else {
            // Setting a value or choosing an option never needs the real pointer.
            return self.atspi.deliver_semantic(window, action, targets);
        };
        if let Gesture::Text { .. } = gesture {
            // Characters no key produces go in through the semantic route
            // instead, where the application exposes a focused field.
            if let Err(no_keys) = self.x11.check_keys(&gesture) {
                return self.atspi.deliver_semantic(window, action, targets).map_err(|_| no_keys);
            }
        }
        if matches!(gesture, Gesture::Key { .. } | Gesture::Text { .. }) {
            check_astral(&gesture, Toolkit::of(&self.atspi, window).synthetic())?;
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
        Ok(self.acknowledged(window, Delivery::by(Route::RealInput(XTEST))))
    }

    /// On a desktop glovebox owns: the background routes first (the
    /// semantic ones read back), else that desktop's own pointer and
    /// keyboard, which nobody else uses.
    fn on_agent_display(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
    ) -> Result<Delivery, BackendError> {
        match self.background(window, action, targets) {
            // Setting a value or choosing an option has no pointer or key form to fall back on.
            Err(no_route)
                if no_route.is(&BackendErrorKind::NoBackgroundRoute)
                    && gesture(action, targets)?.is_some() =>
            {
                let delivery =
                    self.foreground(window, action, targets).map_err(|full| {
                        match full.is(&BackendErrorKind::NoBackgroundRoute) {
                            true => BackendError::new(
                                BackendErrorKind::NoBackgroundRoute,
                                format!(
                                    "{}; with the agent display's own input: {}",
                                    no_route.message, full.message
                                ),
                            ),
                            false => full,
                        }
                    })?;
                Ok(Delivery { route: Route::OnAgentDisplay(Box::new(delivery.route)), ..delivery })
            }
            other => other,
        }
    }

    /// `delivery`, saying so when a menu it opened holds the keyboard after
    /// `wait` (toolkits grab for their popups): until it closes, secure
    /// input refuses further input, and Escape or a choice closes it.
    fn report_grab(&self, delivery: Delivery, wait: Option<std::time::Duration>) -> Delivery {
        if let Some(wait) = wait {
            std::thread::sleep(wait);
        }
        match self.x11.keyboard_grabbed_by_other() {
            Ok(true) => {
                Delivery { route: Route::MenuHoldsKeyboard(Box::new(delivery.route)), ..delivery }
            }
            _ => delivery,
        }
    }

    /// `delivery` once the client has said it read the events (a ping
    /// after them, answered within [`ACKNOWLEDGE_WAIT`]); a client that
    /// takes no pings, or is too busy to answer, leaves it unacknowledged.
    fn acknowledged(&self, window: &WindowInfo, delivery: Delivery) -> Delivery {
        match self.x11.acknowledge(window, ACKNOWLEDGE_WAIT) {
            Ok(Some(_)) => Delivery { receipt: Receipt::Acknowledged, ..delivery },
            _ => delivery,
        }
    }
}

/// How long a popup gets to take its grab after the action that opened it.
const POPUP_GRAB_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// How long a client is given to answer the ping after X11 input.
const ACKNOWLEDGE_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// A key chord no event route delivers, as the application's own menu
/// item or button bound to it: `None` when nothing in the window is.
pub(crate) fn shortcut_by_menu(
    atspi: &AtspiBackend,
    window: &WindowInfo,
    wanted: &KeyCombo,
    repeat: u8,
) -> Option<Result<Delivery, BackendError>> {
    let same = |bound: &KeyCombo| {
        bound.modifiers == wanted.modifiers && bound.key.lowercase() == wanted.key.lowercase()
    };
    let tree = glovebox_platform::AccessibilitySource::inspect(
        atspi,
        window,
        glovebox_model::TreeBudget::default(),
    )
    .ok()?;
    let root = tree.root.as_ref()?;
    let mut bound: Vec<&glovebox_model::Element> =
        root.walk().filter(|e| e.shortcut.as_ref().is_some_and(same)).collect();
    if bound.is_empty() {
        // Menu items whose actions named no binding may still have one (Qt's accelerators); a
        // menu-opening first action's binding is a mnemonic, which works only while its menu is open.
        let presses =
            |e: &glovebox_model::Element| e.actions.first().is_some_and(|a| !a.opens_menu());
        let unnamed: Vec<_> = root
            .walk()
            .filter(|e| e.shortcut.is_none() && e.role.is_menu_item() && presses(e))
            .map(|e| e.id)
            .collect();
        let asked = atspi.asked_shortcuts(window, &unnamed);
        bound = asked
            .iter()
            .filter(|(_, shortcut)| same(shortcut))
            .filter_map(|(id, _)| tree.find(*id))
            .collect();
    }
    let element =
        bound.iter().find(|e| e.has(glovebox_model::ElementState::Enabled)).or(bound.first())?;
    if !element.has(glovebox_model::ElementState::Enabled) {
        return Some(Err(BackendError::new(
            BackendErrorKind::NotActionable,
            format!(
                "{wanted} is bound to the {} \"{}\", which is disabled now; nothing was sent",
                element.role, element.name
            ),
        )));
    }
    let press = Action::Click {
        target: glovebox_model::Target::Element(element.id),
        button: Button::Left,
        count: 1,
        modifiers: vec![],
    };
    let target = [ResolvedTarget::Element { id: element.id, center: None }];
    let mut delivery = None;
    for _ in 0..repeat.max(1) {
        delivery = Some(match atspi.deliver_semantic(window, &press, &target) {
            Ok(d) => d,
            Err(e) => return Some(Err(e)),
        });
    }
    let route = Box::new(delivery?.route);
    Some(Ok(Delivery::by(Route::Shortcut {
        route,
        role: element.role,
        name: element.name.clone(),
        combo: *wanted,
    })))
}

impl InputSink for LinuxInput {
    fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        reach: Reach,
    ) -> Result<Delivery, BackendError> {
        match reach {
            Reach::Background => self.background(window, action, targets),
            Reach::Foreground => self.foreground(window, action, targets),
            Reach::AgentDisplay => self.on_agent_display(window, action, targets),
        }
    }
}
