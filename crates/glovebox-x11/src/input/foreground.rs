//! Foreground delivery through XTest: the target window is activated, the
//! real pointer and keyboard act in it, and afterwards the pointer goes back
//! where it was, the previously active window is activated again and the
//! stacking order is put back. Only for callers whose configuration allows
//! it and whose call asked for it; the user sees a brief focus change.
//!
//! Every key and button pressed is recorded in a guard that releases it on
//! drop, and the restoration is a guard too: an error or a panic half-way
//! through never leaves a key held, the pointer moved or focus taken.

use super::synthetic::{button_number, drag_path, wheel_presses};
use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use crate::keymap::KeyStroke;
use glovebox_model::Point;
use glovebox_platform::Gesture;
use glovebox_platform::{BackendError, BackendErrorKind};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ClientMessageEvent, ConnectionExt as _, EventMask, Window};
use x11rb::protocol::xtest::ConnectionExt as _;

const KEY_PRESS: u8 = 2;
const KEY_RELEASE: u8 = 3;
const BUTTON_PRESS: u8 = 4;
const BUTTON_RELEASE: u8 = 5;
const MOTION: u8 = 6;
/// How long the application gets to take the input while it is active:
/// GTK4 drops a click whose release it handles after losing focus.
const SETTLE: Duration = Duration::from_millis(50);
/// How long characters a person typed on lent key codes keep them.
const PERSON_LOAN_WAIT: Duration = Duration::from_millis(200);
/// Between the presses of a double or triple click.
const MULTI_CLICK_GAP: Duration = Duration::from_millis(40);
/// Between the notches of a scroll: longer than a toolkit's frame.
const WHEEL_NOTCH_GAP: Duration = Duration::from_millis(25);
/// How long the window manager gets to honour an activation request.
const ACTIVATION_TIMEOUT: Duration = Duration::from_secs(2);

/// Keys and buttons held down right now; released on drop.
struct Held<'a> {
    backend: &'a X11Backend,
    keys: Vec<u8>,
    buttons: Vec<u8>,
}

impl Held<'_> {
    fn fake(&self, kind: u8, detail: u8, at: Option<Point>) -> Result<(), BackendError> {
        let (x, y) = at.map(|p| (p.x as i16, p.y as i16)).unwrap_or((0, 0));
        let root = if at.is_some() { self.backend.root } else { x11rb::NONE };
        self.backend
            .conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, root, x, y, 0)
            .map_err(connection_lost)?;
        Ok(())
    }

    fn move_to(&self, at: Point) -> Result<(), BackendError> {
        self.fake(MOTION, 0, Some(at))
    }

    fn press_key(&mut self, keycode: u8) -> Result<(), BackendError> {
        self.keys.push(keycode);
        self.fake(KEY_PRESS, keycode, None)
    }

    fn release_key(&mut self, keycode: u8) -> Result<(), BackendError> {
        self.keys.retain(|&k| k != keycode);
        self.fake(KEY_RELEASE, keycode, None)
    }

    fn press_button(&mut self, button: u8) -> Result<(), BackendError> {
        self.buttons.push(button);
        self.fake(BUTTON_PRESS, button, None)
    }

    fn release_button(&mut self, button: u8) -> Result<(), BackendError> {
        self.buttons.retain(|&b| b != button);
        self.fake(BUTTON_RELEASE, button, None)
    }

    fn click(&mut self, button: u8) -> Result<(), BackendError> {
        self.press_button(button)?;
        self.release_button(button)
    }

    fn stroke(&mut self, stroke: &KeyStroke) -> Result<(), BackendError> {
        let modifiers: Vec<u8> = stroke.modifiers.iter().flatten().copied().collect();
        for &m in &modifiers {
            self.press_key(m)?;
        }
        self.press_key(stroke.keycode)?;
        self.release_key(stroke.keycode)?;
        for &m in modifiers.iter().rev() {
            self.release_key(m)?;
        }
        Ok(())
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        for key in std::mem::take(&mut self.keys) {
            let _ = self.fake(KEY_RELEASE, key, None);
        }
        for button in std::mem::take(&mut self.buttons) {
            let _ = self.fake(BUTTON_RELEASE, button, None);
        }
        let _ = self.backend.conn.flush();
    }
}

/// What the desktop looked like before a foreground action; put back on drop.
struct Restore<'a> {
    backend: &'a X11Backend,
    pointer: Point,
    active: Option<Window>,
    target: Window,
    /// The client windows stacked above the target, bottom to top.
    above_target: Vec<Window>,
    /// The whole stacking order before.
    stacking: Vec<Window>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let b = self.backend;
        let _ = b.conn.xtest_fake_input(
            MOTION,
            0,
            x11rb::CURRENT_TIME,
            b.root,
            self.pointer.x as i16,
            self.pointer.y as i16,
            0,
        );
        if let Some(previous) = self.active.filter(|&w| w != self.target) {
            let _ = b.activate(previous);
        }
        // Activation raised the target. Raising the windows that were above it,
        // lowest first, puts every one back in its place without asking the
        // window manager to place a window relative to a sibling (openbox
        // answers such a request by lowering the window to the bottom).
        for &window in &self.above_target {
            let _ = b.client_message(window, b.atoms._NET_RESTACK_WINDOW, [2, 0, 0, 0, 0]);
        }
        // Give the window manager a moment to carry the requests out, so the
        // caller's next look at the desktop sees it as it was.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline && b.stacking_order().ok().as_ref() != Some(&self.stacking)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = b.conn.get_input_focus().map(|c| c.reply());
    }
}

impl X11Backend {
    fn client_message(
        &self,
        window: Window,
        kind: u32,
        data: [u32; 5],
    ) -> Result<(), BackendError> {
        let event = ClientMessageEvent::new(32, window, kind, data);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(connection_lost)?;
        self.conn.flush().map_err(connection_lost)
    }

    /// Asks the window manager to activate `window` and waits until it has.
    fn activate(&self, window: Window) -> Result<(), BackendError> {
        let current = self.active_window()?.unwrap_or(0);
        if current == window {
            return Ok(());
        }
        // Source 2: a pager acting for the user, which window managers honour without focus-stealing checks.
        self.client_message(
            window,
            self.atoms._NET_ACTIVE_WINDOW,
            [2, self.server_time()?, current, 0, 0],
        )?;
        let deadline = Instant::now() + ACTIVATION_TIMEOUT;
        // The window manager announces the new active window before the X
        // focus has moved for clients that take focus themselves
        // (WM_TAKE_FOCUS, as xterm does): keys sent in between would reach
        // the old window. Both must have arrived.
        while self.active_window()? != Some(window) || !self.focus_within(window)? {
            if Instant::now() > deadline {
                return Err(BackendError::new(
                    BackendErrorKind::NoBackgroundRoute,
                    format!("the window manager did not activate window 0x{window:x} within {ACTIVATION_TIMEOUT:?}"),
                ));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(())
    }

    /// After an application started: if the window manager activated the
    /// new window `started` (or stacked it over the user's window), the
    /// user's window `user` is activated again and raised back over it.
    /// Returns whether anything had to be put back.
    pub fn hand_back(&self, user: Window, started: Window) -> Result<bool, BackendError> {
        let stacking = self.stacking_order()?;
        let position = |w: Window| stacking.iter().position(|&s| s == w);
        let took_focus = self.active_window()? == Some(started);
        let covers = matches!((position(started), position(user)), (Some(s), Some(u)) if s > u);
        if !(took_focus || covers) {
            return Ok(false);
        }
        if took_focus {
            self.activate(user)?;
        }
        // Source 2 (a pager): raise the user's window back on top.
        self.client_message(user, self.atoms._NET_RESTACK_WINDOW, [2, 0, 0, 0, 0])?;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            let now = self.stacking_order()?;
            if now.iter().position(|&w| w == user) > now.iter().position(|&w| w == started) {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Ok(true)
    }

    /// Whether the X input focus is `window` or inside it.
    fn focus_within(&self, window: Window) -> Result<bool, BackendError> {
        let mut focus = self
            .conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?
            .focus;
        for _ in 0..16 {
            if focus == window {
                return Ok(true);
            }
            if focus <= 1 || focus == self.root {
                return Ok(false);
            }
            focus = match self.conn.query_tree(focus).map_err(connection_lost)?.reply() {
                Ok(tree) => tree.parent,
                Err(_) => return Ok(false),
            };
        }
        Ok(false)
    }

    fn pointer_position(&self) -> Result<Point, BackendError> {
        let reply = self
            .conn
            .query_pointer(self.root)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        Ok(Point { x: i32::from(reply.root_x), y: i32::from(reply.root_y) })
    }

    /// Performs `gesture` in window `top` with the real pointer and keyboard.
    pub(crate) fn send_foreground(
        &self,
        top: Window,
        gesture: &Gesture,
        keys: &[KeyStroke],
    ) -> Result<(), BackendError> {
        if !self.has_extension(x11rb::protocol::xtest::X11_EXTENSION_NAME) {
            return Err(BackendError::unavailable(
                "the X server has no XTEST extension: no foreground route",
            ));
        }
        let stacking = self.stacking_order()?;
        let above_target = stacking
            .iter()
            .position(|&w| w == top)
            .map(|i| stacking[i + 1..].to_vec())
            .unwrap_or_default();
        let _restore = Restore {
            backend: self,
            pointer: self.pointer_position()?,
            active: self.active_window()?,
            target: top,
            above_target,
            stacking: stacking.clone(),
        };
        self.activate(top)?;
        self.play(gesture, keys)
    }

    /// A person's own pointer and key events, through XTest, where they
    /// fall: no window activated first and nothing put back after, as a
    /// hand on this display's mouse and keyboard would do. Only the agent
    /// display is ever given these (the indicator page's take-over).
    pub fn play_as_person(&self, gesture: &Gesture) -> Result<(), BackendError> {
        if !self.has_extension(x11rb::protocol::xtest::X11_EXTENSION_NAME) {
            return Err(BackendError::unavailable("the X server has no XTEST extension"));
        }
        let (keys, loan) = self.strokes(gesture)?;
        let played = self.play(gesture, &keys);
        if loan.is_some() {
            // Lent key codes go back once the application has had time to read them.
            std::thread::sleep(PERSON_LOAN_WAIT);
        }
        drop(loan);
        played
    }

    /// `gesture` with the real pointer and keyboard where they are now;
    /// every key and button pressed is released on every path.
    fn play(&self, gesture: &Gesture, keys: &[KeyStroke]) -> Result<(), BackendError> {
        let modifier_codes = if gesture.held().is_empty() {
            vec![]
        } else {
            self.keymap()?.modifier_codes(gesture.held())?
        };
        let mut held = Held { backend: self, keys: vec![], buttons: vec![] };
        // Modifiers go down first and come up when `held` drops, on every path.
        for &code in &modifier_codes {
            held.press_key(code)?;
        }
        match gesture {
            Gesture::Click { at, button, count, .. } => {
                held.move_to(*at)?;
                for n in 0..*count {
                    if n > 0 {
                        // Each press of a multi-click reaches the server on its own, well
                        // inside the double-click time (a CI run once saw a double click as one press).
                        self.conn
                            .get_input_focus()
                            .map_err(connection_lost)?
                            .reply()
                            .map_err(|e| reply_error(e, None))?;
                        std::thread::sleep(MULTI_CLICK_GAP);
                    }
                    held.click(button_number(*button))?;
                }
            }
            Gesture::Hover { at, .. } => held.move_to(*at)?,
            Gesture::Scroll { at, dx, dy, .. } => {
                held.move_to(*at)?;
                for (n, button) in wheel_presses(*dx, *dy).into_iter().enumerate() {
                    if n > 0 {
                        // A wheel's notches come apart in time; notches in one frame of
                        // the toolkit are merged into one wheel event (Gecko does).
                        self.conn
                            .get_input_focus()
                            .map_err(connection_lost)?
                            .reply()
                            .map_err(|e| reply_error(e, None))?;
                        std::thread::sleep(WHEEL_NOTCH_GAP);
                    }
                    held.click(button)?;
                }
            }
            Gesture::Drag { from, to, .. } => {
                held.move_to(*from)?;
                held.press_button(1)?;
                for point in drag_path(*from, *to).into_iter().skip(1) {
                    held.move_to(point)?;
                    // Toolkits compress motion; a round trip per step lets each one count.
                    self.conn
                        .get_input_focus()
                        .map_err(connection_lost)?
                        .reply()
                        .map_err(|e| reply_error(e, None))?;
                }
                held.release_button(1)?;
            }
            Gesture::Key { repeat, .. } => {
                for _ in 0..*repeat {
                    for stroke in keys {
                        held.stroke(stroke)?;
                    }
                }
            }
            Gesture::Text { .. } => {
                for stroke in keys {
                    held.stroke(stroke)?;
                }
            }
        }
        drop(held);
        // Every event is with the server before focus and pointer go back.
        self.conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        std::thread::sleep(SETTLE);
        Ok(())
    }
}
