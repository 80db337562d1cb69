//! Input routes of the X11 backend: window-targeted synthetic events
//! (background) and XTest (foreground, opt-in), both fed [`Gesture`]s.
//! Which toolkit honours which route is not decided here: the caller
//! chooses a route from what it knows of the target.

mod foreground;
mod lend;
mod synthetic;

pub use crate::keymap::{KeyStroke, Keymap};
pub use synthetic::button_number;

/// How long a toolkit gets to take a synthetic FocusIn before the events it frames.
const FOCUS_SETTLE: Duration = Duration::from_millis(30);

/// How background events are framed for the window's toolkit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// The events alone (GTK3, xterm).
    Bare,
    /// Between a synthetic FocusIn and FocusOut sent to the window alone:
    /// Chromium takes keys, and Qt its shortcuts, only while it believes
    /// it is focused. The server's focus, the active window and the
    /// stacking order do not change (measured: action matrix).
    InFocus,
}

/// Which window of the target's tree pointer events are addressed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aim {
    /// The deepest window under the point, as a real pointer would hit
    /// (xterm draws in a child window).
    Deepest,
    /// The top-level client window: Gecko keeps a child window over its
    /// whole client area and acts only on events addressed to the top level.
    TopLevel,
}

/// How a toolkit wants background events sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntheticStyle {
    pub framing: Framing,
    pub aim: Aim,
}

impl SyntheticStyle {
    pub const PLAIN: SyntheticStyle = SyntheticStyle { framing: Framing::Bare, aim: Aim::Deepest };
}

use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use glovebox_model::{DeliveryMode, WindowInfo};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::BackendError;
use glovebox_platform::Gesture;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask, PropMode,
    WindowClass,
};
use x11rb::protocol::Event;

impl X11Backend {
    /// The server's keyboard mapping, read on first use.
    pub fn keymap(&self) -> Result<&Keymap, BackendError> {
        if let Some(map) = self.keymap.get() {
            return Ok(map);
        }
        let map = Keymap::read(&self.conn)?;
        Ok(self.keymap.get_or_init(|| map))
    }

    /// The X server's current time, read from a property change on a
    /// private unmapped window. Synthetic events carry it so toolkits order
    /// them (double-click detection) against real ones.
    pub(crate) fn server_time(&self) -> Result<u32, BackendError> {
        let clock = match self.clock.get() {
            Some(w) => *w,
            None => {
                let w = self
                    .conn
                    .generate_id()
                    .map_err(|e| BackendError::unavailable(format!("X id: {e}")))?;
                let aux = CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE);
                self.conn
                    .create_window(
                        0,
                        w,
                        self.root,
                        -1,
                        -1,
                        1,
                        1,
                        0,
                        WindowClass::INPUT_ONLY,
                        0,
                        &aux,
                    )
                    .map_err(connection_lost)?;
                let _ = self.conn.change_window_attributes(
                    w,
                    &ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
                );
                *self.clock.get_or_init(|| w)
            }
        };
        self.conn
            .change_property(
                PropMode::APPEND,
                clock,
                AtomEnum::WM_NAME,
                AtomEnum::STRING,
                8,
                0,
                &[],
            )
            .map_err(connection_lost)?;
        // After this reply the server has queued the PropertyNotify for us.
        self.conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let deadline = Instant::now() + Duration::from_secs(1);
        loop {
            match self.conn.poll_for_event().map_err(connection_lost)? {
                Some(Event::PropertyNotify(e)) if e.window == clock => return Ok(e.time),
                Some(_) => continue,
                None if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
                None => {
                    return Err(BackendError::unavailable("the X server did not report its time"))
                }
            }
        }
    }

    /// Whether the keys of a key or text gesture can be typed here (text
    /// the layout lacks on lent key codes), or a refusal naming what cannot.
    /// Nothing is sent or changed.
    pub fn check_keys(&self, gesture: &Gesture) -> Result<(), BackendError> {
        match gesture {
            Gesture::Key { combo, .. } => self.keymap()?.combo(combo).map(drop),
            Gesture::Text { text } => self.check_typeable(text),
            _ => Ok(()),
        }
    }

    /// Whether every character of `text` is on a key of the layout itself
    /// (no key code lent). Nothing is sent or changed.
    pub fn check_layout_keys(&self, text: &str) -> Result<(), BackendError> {
        self.keymap()?.text(text).map(drop)
    }

    /// The strokes a gesture types, and the loan of key codes they need
    /// until the application has read them.
    fn strokes(
        &self,
        gesture: &Gesture,
    ) -> Result<(Vec<KeyStroke>, Option<lend::Loan<'_>>), BackendError> {
        match gesture {
            Gesture::Key { combo, .. } => Ok((vec![self.keymap()?.combo(combo)?], None)),
            Gesture::Text { text } => self.text_strokes(text),
            _ => Ok((vec![], None)),
        }
    }

    /// Performs `gesture` in `window`: background as synthetic events sent
    /// to the window alone, foreground through XTest with the desktop put
    /// back afterwards.
    pub fn perform(
        &self,
        window: &WindowInfo,
        gesture: &Gesture,
        mode: DeliveryMode,
    ) -> Result<(), BackendError> {
        match mode {
            DeliveryMode::Background => {
                self.perform_background(window, gesture, SyntheticStyle::PLAIN)
            }
            DeliveryMode::Foreground => {
                let (keys, loan) = self.strokes(gesture)?;
                let sent = self.send_foreground(window.id.handle, gesture, &keys);
                if let Some(loan) = loan {
                    loan.return_after(window);
                }
                sent
            }
        }
    }

    /// Sends `gesture` to `window` alone as synthetic events, framed as its toolkit needs.
    pub fn perform_background(
        &self,
        window: &WindowInfo,
        gesture: &Gesture,
        style: SyntheticStyle,
    ) -> Result<(), BackendError> {
        self.send_background(window, gesture, style, None)
    }

    /// As [`X11Backend::perform_background`]; key codes lent for the text
    /// are taken back only once `shown` says the text is in the field (or a
    /// second passed), not as soon as the application answered a ping.
    pub fn perform_background_until_shown(
        &self,
        window: &WindowInfo,
        gesture: &Gesture,
        style: SyntheticStyle,
        shown: &dyn Fn() -> bool,
    ) -> Result<(), BackendError> {
        self.send_background(window, gesture, style, Some(shown))
    }

    fn send_background(
        &self,
        window: &WindowInfo,
        gesture: &Gesture,
        style: SyntheticStyle,
        shown: Option<&dyn Fn() -> bool>,
    ) -> Result<(), BackendError> {
        let (keys, loan) = self.strokes(gesture)?;
        let sent = match style.framing {
            Framing::Bare => self.send_synthetic(window.id.handle, gesture, &keys, style.aim),
            Framing::InFocus => {
                self.send_focus(window.id.handle, true)?;
                // Qt takes a press in a window it does not yet believe focused
                // as a click to activate it (it asks the window manager): the
                // toolkit must have handled the FocusIn before the first press.
                self.conn
                    .get_input_focus()
                    .map_err(connection_lost)?
                    .reply()
                    .map_err(|e| reply_error(e, None))?;
                std::thread::sleep(FOCUS_SETTLE);
                let sent = self.send_synthetic(window.id.handle, gesture, &keys, style.aim);
                // The window must not go on believing it is focused, whatever happened between.
                let unfocused = self.send_focus(window.id.handle, false);
                sent.and(unfocused)
            }
        };
        match (loan, shown) {
            (Some(loan), Some(shown)) => loan.return_once_shown(window, shown),
            (Some(loan), None) => loan.return_after(window),
            (None, _) => {}
        }
        sent
    }
}

impl X11Backend {
    fn pinger(&self) -> Result<&std::sync::Mutex<crate::ping::Pinger>, BackendError> {
        if let Some(pinger) = self.pinger.get() {
            return Ok(pinger);
        }
        let pinger = crate::ping::Pinger::connect(self.display.as_deref())?;
        Ok(self.pinger.get_or_init(|| std::sync::Mutex::new(pinger)))
    }

    /// Waits until `window`'s client has read the input sent to it so far:
    /// a `_NET_WM_PING` after it, answered within `within`. `Ok(None)` when
    /// the client does not take part in the protocol or did not answer in
    /// time (a busy or frozen client), `Ok(Some(took))` once it answered.
    pub fn acknowledge(
        &self,
        window: &WindowInfo,
        within: Duration,
    ) -> Result<Option<Duration>, BackendError> {
        let started = Instant::now();
        let xid = window.id.handle;
        // The input went over the main connection: once the server answers
        // a request there, it has handled (and queued) everything before it.
        self.conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let protocols = self
            .conn
            .get_property(false, xid, self.atoms.WM_PROTOCOLS, AtomEnum::ATOM, 0, 32)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, Some(&window.id)))?;
        if !protocols.value32().into_iter().flatten().any(|atom| atom == self.atoms._NET_WM_PING) {
            return Ok(None);
        }
        let atoms = crate::ping::PingAtoms {
            protocols: self.atoms.WM_PROTOCOLS,
            ping: self.atoms._NET_WM_PING,
        };
        self.pinger()?.lock_recovered().ping(xid, atoms, started, started + within)
    }
}
