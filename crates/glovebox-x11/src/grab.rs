//! Detecting secure input: whether another client holds an active keyboard
//! grab, as pinentry and polkit prompts do.
//!
//! Grabbing the keyboard for real and releasing it at once would send the
//! focused window FocusOut/FocusIn. Instead the probe asks for a grab on a
//! window that was never mapped: the server answers `AlreadyGrabbed` when
//! another client holds an active grab and `NotViewable` otherwise, and in
//! neither case grabs anything. Limits: open menus and combo pop-ups grab
//! too (so the probe fires for them), it cannot name the grabbing client,
//! and passive (hotkey) grabs are invisible to it.

use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use glovebox_platform::BackendError;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ConnectionExt as _, CreateWindowAux, GrabMode, GrabStatus, WindowClass,
};
use x11rb::CURRENT_TIME;

impl X11Backend {
    fn grab_probe_window(&self) -> Result<u32, BackendError> {
        if let Some(window) = self.grab_probe.get() {
            return Ok(*window);
        }
        let window =
            self.conn.generate_id().map_err(|e| BackendError::unavailable(format!("X id: {e}")))?;
        self.conn
            .create_window(
                0,
                window,
                self.root,
                -1,
                -1,
                1,
                1,
                0,
                WindowClass::INPUT_ONLY,
                0,
                &CreateWindowAux::new(),
            )
            .map_err(connection_lost)?
            .check()
            .map_err(|e| reply_error(e, None))?;
        Ok(*self.grab_probe.get_or_init(|| window))
    }

    /// Whether another client holds an active keyboard grab right now.
    pub fn keyboard_grabbed_by_other(&self) -> Result<bool, BackendError> {
        let probe = self.grab_probe_window()?;
        let reply = self
            .conn
            .grab_keyboard(false, probe, CURRENT_TIME, GrabMode::ASYNC, GrabMode::ASYNC)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        if reply.status == GrabStatus::SUCCESS {
            // Not expected for an unmapped window; never keep a grab.
            self.conn.ungrab_keyboard(CURRENT_TIME).map_err(connection_lost)?;
            self.conn.flush().map_err(connection_lost)?;
        }
        Ok(reply.status == GrabStatus::ALREADY_GRABBED || reply.status == GrabStatus::FROZEN)
    }
}
