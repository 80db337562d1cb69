//! Background delivery by window-targeted synthetic events (SendEvent): the
//! events go to the target window only, never through the server's pointer
//! or keyboard focus, so the user's pointer, focus and stacking order stay
//! as they are. Toolkits decide whether to honour them (the event carries
//! the `send_event` flag); which do is the caller's table to keep.
//!
//! Pointer gestures are framed the way a real pointer visit looks (Enter,
//! Motion, …, Leave), because GTK3 ignores a press on a widget the pointer
//! never entered.

use super::Aim;
use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use crate::keymap::KeyStroke;
use glovebox_model::{Button, Point};
use glovebox_platform::BackendError;
use glovebox_platform::Gesture;
use x11rb::protocol::xproto::{
    ButtonPressEvent, ConnectionExt as _, EnterNotifyEvent, EventMask, FocusInEvent, KeyButMask,
    KeyPressEvent, Motion, MotionNotifyEvent, NotifyDetail, NotifyMode, Window, BUTTON_PRESS_EVENT,
    BUTTON_RELEASE_EVENT, ENTER_NOTIFY_EVENT, FOCUS_IN_EVENT, FOCUS_OUT_EVENT, KEY_PRESS_EVENT,
    KEY_RELEASE_EVENT, LEAVE_NOTIFY_EVENT, MOTION_NOTIFY_EVENT,
};

/// An empty event mask sends the event to the client that created the
/// window, whatever it selected: toolkits that read input through XInput2
/// (GTK3) select no core motion, wheel or key events a mask could match.
const TO_CREATOR: EventMask = EventMask::NO_EVENT;

/// Steps of a synthetic drag between its ends; toolkits start a drag only
/// after the pointer travelled a few pixels with the button down.
const DRAG_STEPS: i32 = 8;

/// Milliseconds between the presses of a synthetic double or triple click.
const MULTI_CLICK_STEP_MS: u32 = 40;

/// The X11 (and evdev-order) number of a pointer button: 1 left, 2 middle,
/// 3 right, 8 back, 9 forward.
pub fn button_number(button: Button) -> u8 {
    match button {
        Button::Left => 1,
        Button::Middle => 2,
        Button::Right => 3,
        Button::Back => 8,
        Button::Forward => 9,
    }
}

fn button_mask(button: u8) -> KeyButMask {
    match button {
        1 => KeyButMask::BUTTON1,
        2 => KeyButMask::BUTTON2,
        3 => KeyButMask::BUTTON3,
        4 => KeyButMask::BUTTON4,
        5 => KeyButMask::BUTTON5,
        // The core protocol has state bits for buttons 1 to 5 only.
        _ => KeyButMask::default(),
    }
}

/// Wheel buttons and step counts for a scroll: 4/5 vertical, 6/7 horizontal.
pub(crate) fn wheel_presses(dx: i32, dy: i32) -> Vec<u8> {
    let mut presses = vec![];
    let vertical = if dy > 0 { 5 } else { 4 };
    presses.extend(std::iter::repeat_n(vertical, dy.unsigned_abs() as usize));
    let horizontal = if dx > 0 { 7 } else { 6 };
    presses.extend(std::iter::repeat_n(horizontal, dx.unsigned_abs() as usize));
    presses
}

/// The points a drag passes through, ends included.
pub(crate) fn drag_path(from: Point, to: Point) -> Vec<Point> {
    (0..=DRAG_STEPS)
        .map(|i| Point {
            x: from.x + (to.x - from.x) * i / DRAG_STEPS,
            y: from.y + (to.y - from.y) * i / DRAG_STEPS,
        })
        .collect()
}

/// One synthetic pointer visit to a window: where its events go and what
/// they say.
#[derive(Clone, Copy)]
struct Visit<'a> {
    backend: &'a X11Backend,
    /// The deepest window under the point, the one a real pointer would hit.
    window: Window,
    origin: Point,
    time: u32,
}

impl Visit<'_> {
    fn send(&self, event: [u8; 32]) -> Result<(), BackendError> {
        self.backend
            .conn
            .send_event(false, self.window, TO_CREATOR, event)
            .map_err(connection_lost)?;
        Ok(())
    }

    fn crossing(&self, kind: u8, at: Point, state: KeyButMask) -> Result<(), BackendError> {
        let event = EnterNotifyEvent {
            response_type: kind,
            detail: NotifyDetail::NONLINEAR,
            sequence: 0,
            time: self.time,
            root: self.backend.root,
            event: self.window,
            child: 0,
            root_x: at.x as i16,
            root_y: at.y as i16,
            event_x: (at.x - self.origin.x) as i16,
            event_y: (at.y - self.origin.y) as i16,
            state,
            mode: NotifyMode::NORMAL,
            // same-screen, not focus
            same_screen_focus: 0x02,
        };
        self.send(event.into())
    }

    fn motion(&self, at: Point, state: KeyButMask) -> Result<(), BackendError> {
        let event = MotionNotifyEvent {
            response_type: MOTION_NOTIFY_EVENT,
            detail: Motion::NORMAL,
            sequence: 0,
            time: self.time,
            root: self.backend.root,
            event: self.window,
            child: 0,
            root_x: at.x as i16,
            root_y: at.y as i16,
            event_x: (at.x - self.origin.x) as i16,
            event_y: (at.y - self.origin.y) as i16,
            state,
            same_screen: true,
        };
        self.send(event.into())
    }

    fn button(
        &self,
        kind: u8,
        button: u8,
        at: Point,
        state: KeyButMask,
    ) -> Result<(), BackendError> {
        let event = ButtonPressEvent {
            response_type: kind,
            detail: button,
            sequence: 0,
            time: self.time,
            root: self.backend.root,
            event: self.window,
            child: 0,
            root_x: at.x as i16,
            root_y: at.y as i16,
            event_x: (at.x - self.origin.x) as i16,
            event_y: (at.y - self.origin.y) as i16,
            state,
            same_screen: true,
        };
        self.send(event.into())
    }

    fn click(&self, button: u8, at: Point, held: KeyButMask) -> Result<(), BackendError> {
        self.button(BUTTON_PRESS_EVENT, button, at, held)?;
        self.button(BUTTON_RELEASE_EVENT, button, at, held | button_mask(button))
    }
}

impl X11Backend {
    /// The deepest mapped window of `top` under global `at`, with its origin.
    fn window_under(&self, top: Window, at: Point) -> Result<(Window, Point), BackendError> {
        let gone = format!("0x{top:x}");
        let mut window = top;
        for _ in 0..16 {
            let reply = self
                .conn
                .translate_coordinates(self.root, window, at.x as i16, at.y as i16)
                .map_err(connection_lost)?
                .reply()
                .map_err(|e| reply_error(e, Some(&gone)))?;
            if reply.child == 0 {
                let origin =
                    Point { x: at.x - i32::from(reply.dst_x), y: at.y - i32::from(reply.dst_y) };
                return Ok((window, origin));
            }
            window = reply.child;
        }
        Err(BackendError::unavailable(format!(
            "window 0x{top:x} nests deeper than 16 levels at {at:?}"
        )))
    }

    fn visit(&self, top: Window, at: Point, aim: Aim) -> Result<Visit<'_>, BackendError> {
        let (window, origin) = match aim {
            Aim::Deepest => self.window_under(top, at)?,
            Aim::TopLevel => {
                let reply = self
                    .conn
                    .translate_coordinates(self.root, top, at.x as i16, at.y as i16)
                    .map_err(connection_lost)?
                    .reply()
                    .map_err(|e| reply_error(e, Some(&format!("0x{top:x}"))))?;
                (top, Point { x: at.x - i32::from(reply.dst_x), y: at.y - i32::from(reply.dst_y) })
            }
        };
        Ok(Visit { backend: self, window, origin, time: self.server_time()? })
    }

    /// Sends `gesture` to window `top` as synthetic events. `keys` are the
    /// strokes of a key or text gesture, looked up by the caller.
    pub(crate) fn send_synthetic(
        &self,
        top: Window,
        gesture: &Gesture,
        keys: &[KeyStroke],
        aim: Aim,
    ) -> Result<(), BackendError> {
        // Held modifiers travel in each event's state, as a real keyboard's would.
        let held = if gesture.held().is_empty() {
            KeyButMask::default()
        } else {
            self.keymap()?.mask(gesture.held())
        };
        match gesture {
            Gesture::Click { at, button, count, .. } => {
                let visit = self.visit(top, *at, aim)?;
                visit.crossing(ENTER_NOTIFY_EVENT, *at, held)?;
                visit.motion(*at, held)?;
                for n in 0..*count {
                    // Each press of a multi-click a few milliseconds after the last:
                    // Chromium counts no repeat between events of the same time.
                    let press = Visit {
                        time: visit.time.wrapping_add(u32::from(n) * MULTI_CLICK_STEP_MS),
                        ..visit
                    };
                    press.click(button_number(*button), *at, held)?;
                }
                visit.crossing(LEAVE_NOTIFY_EVENT, *at, held)?;
            }
            Gesture::Hover { at, .. } => {
                let visit = self.visit(top, *at, aim)?;
                visit.crossing(ENTER_NOTIFY_EVENT, *at, held)?;
                // A pointer arrives from somewhere: Qt drops a move to where it last
                // saw the pointer, and folds moves queued together into the last one.
                visit.motion(Point { x: at.x - 1, ..*at }, held)?;
                self.conn
                    .get_input_focus()
                    .map_err(connection_lost)?
                    .reply()
                    .map_err(|e| reply_error(e, None))?;
                std::thread::sleep(std::time::Duration::from_millis(10));
                visit.motion(*at, held)?;
            }
            Gesture::Scroll { at, dx, dy, .. } => {
                let visit = self.visit(top, *at, aim)?;
                visit.crossing(ENTER_NOTIFY_EVENT, *at, held)?;
                visit.motion(*at, held)?;
                for button in wheel_presses(*dx, *dy) {
                    visit.click(button, *at, held)?;
                }
                visit.crossing(LEAVE_NOTIFY_EVENT, *at, held)?;
            }
            Gesture::Drag { from, to, .. } => {
                let visit = self.visit(top, *from, aim)?;
                visit.crossing(ENTER_NOTIFY_EVENT, *from, held)?;
                visit.motion(*from, held)?;
                visit.button(BUTTON_PRESS_EVENT, 1, *from, held)?;
                for point in drag_path(*from, *to).into_iter().skip(1) {
                    visit.motion(point, held | KeyButMask::BUTTON1)?;
                }
                visit.button(BUTTON_RELEASE_EVENT, 1, *to, held | KeyButMask::BUTTON1)?;
                visit.crossing(LEAVE_NOTIFY_EVENT, *to, held)?;
            }
            Gesture::Key { repeat, .. } => {
                for _ in 0..*repeat {
                    self.send_keys(top, keys)?;
                }
            }
            Gesture::Text { .. } => self.send_keys(top, keys)?,
        }
        // The round trip makes sure the server has taken every event before we report.
        self.conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        Ok(())
    }

    /// A synthetic FocusIn (or FocusOut) for `top` alone, as a window
    /// manager's focus change would deliver it; the server's focus stays.
    pub(crate) fn send_focus(&self, top: Window, gained: bool) -> Result<(), BackendError> {
        let event = FocusInEvent {
            response_type: if gained { FOCUS_IN_EVENT } else { FOCUS_OUT_EVENT },
            detail: NotifyDetail::NONLINEAR,
            sequence: 0,
            event: top,
            mode: NotifyMode::NORMAL,
        };
        self.conn.send_event(false, top, TO_CREATOR, event).map_err(connection_lost)?;
        x11rb::connection::Connection::flush(&self.conn).map_err(connection_lost)?;
        Ok(())
    }

    fn send_keys(&self, top: Window, strokes: &[KeyStroke]) -> Result<(), BackendError> {
        let time = self.server_time()?;
        for stroke in strokes {
            for kind in [KEY_PRESS_EVENT, KEY_RELEASE_EVENT] {
                let event = KeyPressEvent {
                    response_type: kind,
                    detail: stroke.keycode,
                    sequence: 0,
                    time,
                    root: self.root,
                    event: top,
                    child: 0,
                    root_x: 0,
                    root_y: 0,
                    event_x: 0,
                    event_y: 0,
                    state: stroke.state,
                    same_screen: true,
                };
                self.conn.send_event(false, top, TO_CREATOR, event).map_err(connection_lost)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_steps_follow_the_x_buttons() {
        assert_eq!(wheel_presses(0, 3), vec![5, 5, 5]);
        assert_eq!(wheel_presses(-2, -1), vec![4, 6, 6]);
        assert_eq!(wheel_presses(1, 0), vec![7]);
    }

    #[test]
    fn drags_pass_through_both_ends() {
        let path = drag_path(Point { x: 0, y: 0 }, Point { x: 80, y: -16 });
        assert_eq!(path.first(), Some(&Point { x: 0, y: 0 }));
        assert_eq!(path.last(), Some(&Point { x: 80, y: -16 }));
        assert_eq!(path.len(), DRAG_STEPS as usize + 1);
    }
}
