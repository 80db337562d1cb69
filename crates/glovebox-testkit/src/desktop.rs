//! What a background action must leave as it was: the user's pointer, the
//! stacking order, the focused window, and the state of the sentinel window
//! the user works in. Shared by the end-to-end suites that act on
//! applications in the background.

use glovebox_host::Host;
use glovebox_model::WindowId;
use glovebox_sandbox::fixture::Fixture;
use glovebox_sandbox::Sandbox;
use serde_json::Value;

#[derive(Debug, PartialEq)]
pub struct Desktop {
    pub pointer: (i16, i16),
    /// Frontmost first.
    pub stacking: Vec<WindowId>,
    pub focused: Option<WindowId>,
    pub sentinel: Value,
}

impl Desktop {
    pub fn now(host: &Host, sandbox: &Sandbox, sentinel: &Fixture) -> Desktop {
        // The agent display is glovebox's own: only the user's desktop is the user's.
        let windows: Vec<_> = host
            .list_windows(None, 1)
            .unwrap()
            .windows
            .into_iter()
            .filter(|w| w.window.desktop.is_user())
            .collect();
        let state = sentinel.state().unwrap();
        Desktop {
            pointer: sandbox.pointer().unwrap(),
            stacking: windows.iter().map(|w| w.window.id).collect(),
            focused: windows.iter().find(|w| w.window.focused).map(|w| w.window.id),
            sentinel: serde_json::json!([
                state["values"],
                state["clicks"],
                state["keys"],
                state["pad"],
                state["window_active"]
            ]),
        }
    }
}

/// A prompt-like client holding the keyboard of an X display (as pinentry
/// or a polkit agent does): an override-redirect window of its own, mapped,
/// with the keyboard grabbed. [`KeyboardGrab::release`] lets it go.
pub struct KeyboardGrab {
    conn: x11rb::rust_connection::RustConnection,
    prompt: u32,
}

impl KeyboardGrab {
    /// Grabs the keyboard of `display`, waiting until the server grants it.
    pub fn take(display: &str) -> KeyboardGrab {
        use x11rb::connection::Connection as _;
        use x11rb::protocol::xproto::{
            ConnectionExt as _, CreateWindowAux, GrabMode, GrabStatus, WindowClass,
        };
        use x11rb::wrapper::ConnectionExt as _;
        let (conn, screen) = x11rb::connect(Some(display)).unwrap();
        let root = conn.setup().roots[screen].root;
        let prompt = conn.generate_id().unwrap();
        conn.create_window(
            0,
            prompt,
            root,
            0,
            0,
            50,
            50,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &CreateWindowAux::new().override_redirect(1),
        )
        .unwrap();
        conn.map_window(prompt).unwrap();
        conn.sync().unwrap();
        glovebox_sandbox::fixture::wait_until("grab", || {
            let r = conn
                .grab_keyboard(false, prompt, x11rb::CURRENT_TIME, GrabMode::ASYNC, GrabMode::ASYNC)
                .ok()?
                .reply()
                .ok()?;
            (r.status == GrabStatus::SUCCESS).then_some(())
        });
        KeyboardGrab { conn, prompt }
    }

    /// Lets the keyboard go and removes the prompt's window.
    pub fn release(self) {
        use x11rb::protocol::xproto::ConnectionExt as _;
        use x11rb::wrapper::ConnectionExt as _;
        self.conn.ungrab_keyboard(x11rb::CURRENT_TIME).unwrap();
        self.conn.destroy_window(self.prompt).unwrap();
        self.conn.sync().unwrap();
    }
}
