//! The seat the Wayland compositor lends for foreground input: its
//! keyboard ([`SeatKeys`]) and its pointer ([`SeatPointer`]), both the
//! person's own, so used only after the compositor gave the window the
//! focus, which goes back after. The traits live apart from what uses them
//! (`wayland.rs` for keys, `seat_pointer.rs` for clicks), so neither of
//! those reaches into the other.

use glovebox_model::{Point, WindowId, WindowInfo};
use glovebox_platform::BackendError;

/// Keys on the seat's keyboard, where the compositor offers them (GNOME's
/// Mutter remote desktop, KDE's desktop portal): global input, so only for
/// foreground delivery, after the compositor gave the window the focus,
/// which goes back after.
pub trait SeatKeys: Send + Sync {
    /// Gives `window` the keyboard focus; the compositor's name for the
    /// window that had it.
    fn focus(&self, window: &WindowInfo) -> Result<Option<String>, BackendError>;
    /// Gives the focus back to the window [`SeatKeys::focus`] named.
    fn give_back(&self, previous: &str) -> Result<(), BackendError>;
    /// The window that has the keyboard focus now.
    fn focused(&self) -> Result<Option<WindowId>, BackendError>;
    /// Presses (`true`) and releases keysyms, in order.
    fn keysyms(&self, strokes: &[(u32, bool)]) -> Result<(), BackendError>;
    /// The seat's pointer, where the compositor lends one glovebox can
    /// work (GNOME Shell through glovebox's extension, KDE Plasma through
    /// the desktop portal).
    fn pointer(&self) -> Option<&dyn SeatPointer>;
}

/// How long input sent through the seat gets to reach the window while it
/// has the focus, before the focus goes back.
pub(crate) const SEAT_SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

/// Gives the focus back to the window the compositor called `previous`,
/// and waits (a moment at most) until `from` no longer has it: input sent
/// right after would otherwise race the hand-back (measured on GNOME: the
/// next action's keys, sent once the shell said its window was focused,
/// went to the person's window whose focus came back after).
pub(crate) fn give_focus_back(seat: &dyn SeatKeys, previous: &str, from: &WindowInfo) {
    if seat.give_back(previous).is_err() {
        return;
    }
    for _ in 0..50 {
        match seat.focused() {
            Ok(Some(id)) if id == from.id => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            _ => return,
        }
    }
}

/// The pointer of the seat, where the compositor lends one.
pub trait SeatPointer: Send + Sync {
    /// Moves the pointer to `at` (global desktop coordinates); where it was.
    fn move_pointer(&self, at: Point) -> Result<Point, BackendError>;
    /// Presses (`true`) or releases `button` (1 left, 2 middle, 3 right,
    /// 8 back, 9 forward).
    fn button(&self, button: u32, pressed: bool) -> Result<(), BackendError>;
    /// The frontmost window shown at `at`.
    fn window_at(&self, at: Point) -> Result<Option<WindowId>, BackendError>;
}
