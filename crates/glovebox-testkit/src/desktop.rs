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
        let windows: Vec<_> = host.list_windows(None, 1).unwrap().windows.into_iter().filter(|w| w.window.desktop.is_user()).collect();
        let state = sentinel.state().unwrap();
        Desktop {
            pointer: sandbox.pointer().unwrap(),
            stacking: windows.iter().map(|w| w.window.id).collect(),
            focused: windows.iter().find(|w| w.window.focused).map(|w| w.window.id),
            sentinel: serde_json::json!([state["values"], state["clicks"], state["keys"], state["pad"], state["window_active"]]),
        }
    }
}
