//! The seat's pointer on Wayland, for foreground delivery only: GNOME
//! Shell's own virtual pointer through glovebox's extension, and on KDE
//! Plasma the desktop portal's RemoteDesktop pointer (relative motion,
//! KWin's script saying where the pointer is). It is the person's
//! pointer, so a click goes out only after the compositor gave the window
//! the focus (and raised it) and says nothing else lies at the point; the
//! buttons pressed are released on every path, and the pointer and the
//! focus go back where they were after.

use crate::seat::{SeatKeys, SeatPointer};
use glovebox_model::{Action, Point, WindowId, WindowInfo};
use glovebox_platform::{BackendError, BackendErrorKind, Delivery, ResolvedTarget, Route};
use std::time::Duration;

/// Between the presses of a double or triple click.
const MULTI_CLICK_GAP: Duration = Duration::from_millis(40);
/// How long the compositor gets to give the window the focus.
const FOCUS_TRIES: u32 = 50;
const FOCUS_POLL: Duration = Duration::from_millis(10);

impl SeatPointer for glovebox_wayland::gnome::GnomeShellBackend {
    fn move_pointer(&self, at: Point) -> Result<Point, BackendError> {
        let (x, y) = glovebox_wayland::gnome::GnomeShellBackend::move_pointer(
            self,
            f64::from(at.x),
            f64::from(at.y),
        )?;
        Ok(Point { x: x.round() as i32, y: y.round() as i32 })
    }

    fn button(&self, button: u32, pressed: bool) -> Result<(), BackendError> {
        Ok(self.pointer_button(button, pressed)?)
    }

    fn window_at(&self, at: Point) -> Result<Option<WindowId>, BackendError> {
        frontmost_at(self, at)
    }
}

/// The frontmost shown window of `served` whose frame holds `at`.
fn frontmost_at(
    served: &dyn glovebox_wayland::served::Served,
    at: Point,
) -> Result<Option<WindowId>, BackendError> {
    // Both compositors' snapshots list windows frontmost first.
    Ok(served
        .snapshot()?
        .windows
        .iter()
        .find(|l| l.shown && l.frame.contains(at))
        .map(|l| l.info.id))
}

/// How many relative moves KWin's pointer gets to reach its point.
const KWIN_MOVES: u32 = 4;
/// How long one relative move gets to show in KWin's report.
const KWIN_MOVE_TRIES: u32 = 20;
const KWIN_MOVE_POLL: Duration = Duration::from_millis(10);

/// The Linux input code of X button `button`, as the portal takes it.
fn evdev_button(button: u32) -> Result<u32, BackendError> {
    match button {
        1 => Ok(0x110),
        2 => Ok(0x112),
        3 => Ok(0x111),
        8 => Ok(0x113),
        9 => Ok(0x114),
        other => Err(BackendError::invalid_argument(format!("no pointer button {other}"))),
    }
}

/// Where KWin says the pointer is.
fn kwin_pointer(kwin: &glovebox_wayland::kwin::KWinBackend) -> Result<Point, BackendError> {
    kwin.report()?
        .pointer()
        .ok_or_else(|| BackendError::unavailable("KWin's script did not say where the pointer is"))
}

/// Moves KWin's pointer from `now` to `at` by relative moves, each one
/// waited for until KWin's report shows it (the portal answers once the
/// move is sent, not once KWin made it); where it ended.
fn kwin_move(
    kwin: &glovebox_wayland::kwin::KWinBackend,
    mut now: Point,
    at: Point,
) -> Result<Point, BackendError> {
    for _ in 0..KWIN_MOVES {
        if now == at {
            break;
        }
        kwin.pointer_motion(f64::from(at.x - now.x), f64::from(at.y - now.y))?;
        let before = now;
        for _ in 0..KWIN_MOVE_TRIES {
            now = kwin_pointer(kwin)?;
            if now != before {
                break;
            }
            std::thread::sleep(KWIN_MOVE_POLL);
        }
    }
    Ok(now)
}

impl SeatPointer for glovebox_wayland::kwin::KWinBackend {
    /// The portal moves the pointer by a distance only: moved from where
    /// KWin says it is to a pixel beside the point, then onto it. The last
    /// move is one inside the window: an XWayland window entered by a
    /// single jump from a Wayland one took no click there (measured with
    /// KWin 5.27 and a Tk form: the press went nowhere until one more
    /// motion inside the window).
    fn move_pointer(&self, at: Point) -> Result<Point, BackendError> {
        let was = kwin_pointer(self)?;
        let beside = Point { x: if at.x > 0 { at.x - 1 } else { at.x + 1 }, y: at.y };
        let near = kwin_move(self, was, beside)?;
        let now = kwin_move(self, near, at)?;
        if now == at {
            return Ok(was);
        }
        Err(BackendError::unavailable(format!(
            "the pointer stopped at {},{}, not {},{}; nothing was clicked",
            now.x, now.y, at.x, at.y
        )))
    }

    fn button(&self, button: u32, pressed: bool) -> Result<(), BackendError> {
        Ok(self.pointer_button(evdev_button(button)?, pressed)?)
    }

    fn window_at(&self, at: Point) -> Result<Option<WindowId>, BackendError> {
        frontmost_at(self, at)
    }
}

/// Keysyms and buttons held down; released, last first, on drop.
struct Held<'a> {
    seat: &'a dyn SeatKeys,
    pointer: &'a dyn SeatPointer,
    keysyms: Vec<u32>,
    buttons: Vec<u32>,
}

impl Held<'_> {
    fn press_key(&mut self, keysym: u32) -> Result<(), BackendError> {
        self.keysyms.push(keysym);
        self.seat.keysyms(&[(keysym, true)])
    }

    fn click(&mut self, button: u32) -> Result<(), BackendError> {
        self.buttons.push(button);
        self.pointer.button(button, true)?;
        self.buttons.pop();
        self.pointer.button(button, false)
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        for &button in self.buttons.iter().rev() {
            let _ = self.pointer.button(button, false);
        }
        for &keysym in self.keysyms.iter().rev() {
            let _ = self.seat.keysyms(&[(keysym, false)]);
        }
    }
}

/// Clicks with the seat's pointer: the window focused
/// and raised first (and checked to be frontmost at the point), the
/// pointer and the focus given back after.
pub(crate) fn through_the_pointer(
    seat: &dyn SeatKeys,
    pointer: &dyn SeatPointer,
    window: &WindowInfo,
    action: &Action,
    targets: &[ResolvedTarget],
) -> Result<Delivery, BackendError> {
    let at = targets.first().and_then(ResolvedTarget::point).ok_or_else(|| {
        BackendError::new(BackendErrorKind::NotActionable, "the target has no place on screen")
    })?;
    if !window.geometry.contains(at) {
        return Err(BackendError::new(
            BackendErrorKind::OutOfBounds,
            format!("the point {},{} is outside window {}", at.x, at.y, window.id),
        ));
    }
    let previous = seat.focus(window)?;
    let outcome = focused_then(seat, window).and_then(|()| {
        // Raised with the focus; anything still over the point would take the click.
        match pointer.window_at(at)? {
            Some(id) if id == window.id => {}
            other => {
                return Err(BackendError::new(
                    BackendErrorKind::Unavailable,
                    format!(
                        "{} lies over window {} at {},{}; nothing was clicked",
                        other.map_or("another surface".to_owned(), |id| format!("window {id}")),
                        window.id,
                        at.x,
                        at.y
                    ),
                ))
            }
        }
        let was = pointer.move_pointer(at)?;
        let played = play(seat, pointer, action);
        if played.is_ok() {
            // The click reaches the window while it has the focus (GTK4 drops a click whose
            // release it handles after losing it; the compositor answers once it is queued).
            std::thread::sleep(crate::seat::SEAT_SETTLE);
        }
        let back = pointer.move_pointer(was);
        played.and(back.map(|_| ()))
    });
    if let Some(previous) = previous {
        crate::seat::give_focus_back(seat, &previous, window);
    }
    outcome.map(|()| Delivery::by(Route::RealInput(crate::routes::SEAT_POINTER)))
}

/// Waits until the compositor says `window` has the focus.
fn focused_then(seat: &dyn SeatKeys, window: &WindowInfo) -> Result<(), BackendError> {
    for _ in 0..FOCUS_TRIES {
        match seat.focused()? {
            Some(id) if id == window.id => return Ok(()),
            _ => std::thread::sleep(FOCUS_POLL),
        }
    }
    Err(BackendError::new(
        BackendErrorKind::Unavailable,
        format!("the compositor did not give window {} the focus; nothing was clicked", window.id),
    ))
}

/// The action's presses, the pointer already at its point.
fn play(
    seat: &dyn SeatKeys,
    pointer: &dyn SeatPointer,
    action: &Action,
) -> Result<(), BackendError> {
    let mut held = Held { seat, pointer, keysyms: vec![], buttons: vec![] };
    for keysym in glovebox_x11::modifier_keysyms(action.modifiers()) {
        held.press_key(keysym)?;
    }
    match action {
        Action::Click { button, count, .. } => {
            for n in 0..*count {
                if n > 0 {
                    std::thread::sleep(MULTI_CLICK_GAP);
                }
                held.click(u32::from(glovebox_x11::button_number(*button)))?;
            }
            Ok(())
        }
        other => unreachable!("only clicks go through the seat's pointer: {}", other.kind()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::{Button, ElementId, ModifierKey, PidSource, Rect, Target};
    use std::sync::Mutex;

    /// A seat that records what it was asked, and refuses the press of
    /// `failing_button`.
    struct Recorded {
        log: Mutex<Vec<String>>,
        failing_button: Option<u32>,
        frontmost: WindowId,
        focused: Mutex<Option<WindowId>>,
    }

    impl Recorded {
        fn new(failing_button: Option<u32>, frontmost: WindowId) -> Recorded {
            Recorded {
                log: Mutex::new(vec![]),
                failing_button,
                frontmost,
                focused: Mutex::new(None),
            }
        }
        fn note(&self, what: String) {
            self.log.lock().unwrap().push(what);
        }
        fn log(&self) -> Vec<String> {
            self.log.lock().unwrap().clone()
        }
    }

    impl SeatKeys for Recorded {
        fn focus(&self, window: &WindowInfo) -> Result<Option<String>, BackendError> {
            self.note(format!("focus {}", window.id));
            *self.focused.lock().unwrap() = Some(window.id);
            Ok(Some("person".into()))
        }
        fn give_back(&self, previous: &str) -> Result<(), BackendError> {
            self.note(format!("give back {previous}"));
            *self.focused.lock().unwrap() = None;
            Ok(())
        }
        fn focused(&self) -> Result<Option<WindowId>, BackendError> {
            Ok(*self.focused.lock().unwrap())
        }
        fn keysyms(&self, strokes: &[(u32, bool)]) -> Result<(), BackendError> {
            strokes.iter().for_each(|(k, down)| self.note(format!("key {k:#x} {down}")));
            Ok(())
        }
        fn pointer(&self) -> Option<&dyn SeatPointer> {
            Some(self)
        }
    }

    impl SeatPointer for Recorded {
        fn move_pointer(&self, at: Point) -> Result<Point, BackendError> {
            self.note(format!("move {},{}", at.x, at.y));
            Ok(Point { x: 3, y: 4 })
        }
        fn button(&self, button: u32, pressed: bool) -> Result<(), BackendError> {
            self.note(format!("button {button} {pressed}"));
            if pressed && Some(button) == self.failing_button {
                return Err(BackendError::new(BackendErrorKind::Unavailable, "refused"));
            }
            Ok(())
        }
        fn window_at(&self, _at: Point) -> Result<Option<WindowId>, BackendError> {
            Ok(Some(self.frontmost))
        }
    }

    fn window() -> WindowInfo {
        WindowInfo {
            id: WindowId { pid: 7, handle: 1 },
            app: "Tk".into(),
            instance: "tk".into(),
            title: "form".into(),
            pid_source: PidSource::ClientProperty,
            geometry: Rect::new(100, 100, 200, 100),
            focused: false,
            minimized: false,
            desktop: glovebox_model::Desktop::User,
        }
    }

    fn ctrl_click(count: u8) -> Action {
        Action::Click {
            target: Target::Element(ElementId::tree(1).unwrap()),
            button: Button::Right,
            count,
            modifiers: vec![ModifierKey::Ctrl],
        }
    }

    fn at(x: i32, y: i32) -> Vec<ResolvedTarget> {
        vec![ResolvedTarget::Global { at: Point { x, y }, under: None }]
    }

    #[test]
    fn a_click_holds_its_keys_and_gives_pointer_and_focus_back() {
        let seat = Recorded::new(None, window().id);
        let done = through_the_pointer(&seat, &seat, &window(), &ctrl_click(2), &at(150, 120));
        assert_eq!(done.unwrap().route, Route::RealInput(crate::routes::SEAT_POINTER));
        let control = 0xffe3;
        assert_eq!(
            seat.log(),
            [
                "focus 7/0x1".to_owned(),
                "move 150,120".into(),
                format!("key {control:#x} true"),
                "button 3 true".into(),
                "button 3 false".into(),
                "button 3 true".into(),
                "button 3 false".into(),
                format!("key {control:#x} false"),
                "move 3,4".into(),
                "give back person".into(),
            ]
        );
    }

    #[test]
    fn a_failed_press_releases_what_it_held_and_still_gives_back() {
        let seat = Recorded::new(Some(3), window().id);
        let refused = through_the_pointer(&seat, &seat, &window(), &ctrl_click(1), &at(150, 120));
        assert_eq!(refused.unwrap_err().kind, BackendErrorKind::Unavailable);
        let log = seat.log();
        let released = |what: &str| log.iter().any(|l| l == what);
        assert!(released("button 3 false") && released("key 0xffe3 false"), "{log:?}");
        assert_eq!(log[log.len() - 2..], ["move 3,4".to_owned(), "give back person".into()]);
    }

    #[test]
    fn a_point_outside_the_window_or_under_another_is_not_clicked() {
        let seat = Recorded::new(None, window().id);
        let outside = through_the_pointer(&seat, &seat, &window(), &ctrl_click(1), &at(5, 5));
        assert_eq!(outside.unwrap_err().kind, BackendErrorKind::OutOfBounds);
        assert!(seat.log().is_empty(), "nothing done: {:?}", seat.log());
        let covered = Recorded::new(None, WindowId { pid: 9, handle: 2 });
        let refused =
            through_the_pointer(&covered, &covered, &window(), &ctrl_click(1), &at(150, 120));
        assert!(refused.unwrap_err().message.contains("lies over window 7/0x1"));
        assert_eq!(covered.log(), ["focus 7/0x1".to_owned(), "give back person".into()]);
    }
}
