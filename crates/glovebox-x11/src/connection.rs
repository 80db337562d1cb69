//! The X connection: connecting with exact refusals instead of hangs (see
//! [`crate::errors`]), the atoms glovebox reads, and what the connection
//! can do.

use crate::errors::{connect_error, connection_lost, no_display_refusal, reply_error};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::BackendError;
use x11rb::connection::Connection as _;
use x11rb::rust_connection::RustConnection;

x11rb::atom_manager! {
    pub Atoms: AtomsCookie {
        _NET_CLIENT_LIST,
        _NET_CLIENT_LIST_STACKING,
        _NET_ACTIVE_WINDOW,
        _NET_RESTACK_WINDOW,
        _NET_SUPPORTING_WM_CHECK,
        _NET_WM_NAME,
        _NET_WM_PID,
        _NET_WM_STATE,
        _NET_WM_STATE_HIDDEN,
        WM_STATE,
        WM_PROTOCOLS,
        _NET_WM_PING,
        UTF8_STRING,
    }
}

/// A connected X11 backend. Cheap to keep; every call is one round of
/// pipelined requests over the same connection.
pub struct X11Backend {
    pub(crate) conn: RustConnection,
    pub(crate) root: u32,
    pub(crate) atoms: Atoms,
    pub(crate) capture: crate::capture::Capturer,
    /// A never-mapped window for the keyboard-grab probe, made on first use.
    pub(crate) grab_probe: std::sync::OnceLock<u32>,
    /// A never-mapped window whose property changes tell the server time.
    pub(crate) clock: std::sync::OnceLock<u32>,
    pub(crate) keymap: std::sync::OnceLock<crate::keymap::Keymap>,
    /// glovebox's own windows (the agent's cursor): blacked out of every
    /// desktop capture, as window captures black out whatever covers them.
    pub(crate) own_windows: std::sync::Mutex<Vec<u32>>,
    /// The display connected to, for a second connection of its own.
    pub(crate) display: Option<String>,
    /// The connection that pings clients, made on first use ([`crate::ping`]).
    pub(crate) pinger: std::sync::OnceLock<std::sync::Mutex<crate::ping::Pinger>>,
    /// The connection holding covered windows' redirections ([`crate::backing`]),
    /// made on the first covered capture, or why it cannot be.
    pub(crate) backing: std::sync::OnceLock<Result<crate::backing::Backing, String>>,
}

impl std::fmt::Debug for X11Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11Backend")
            .field("root", &self.root)
            .field("capture", &self.capture.route())
            .finish()
    }
}

impl X11Backend {
    /// Connects to `display` (or `$DISPLAY`) and prepares capture.
    pub fn connect(display: Option<&str>) -> Result<X11Backend, BackendError> {
        if display.is_none() && std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty()) {
            return Err(no_display_refusal());
        }
        let (conn, screen) = x11rb::connect(display).map_err(|e| connect_error(display, e))?;
        let root = conn.setup().roots[screen].root;
        let atoms = Atoms::new(&conn)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let capture = crate::capture::Capturer::new(&conn, screen)?;
        Ok(X11Backend {
            conn,
            root,
            atoms,
            capture,
            grab_probe: Default::default(),
            clock: Default::default(),
            keymap: Default::default(),
            own_windows: Default::default(),
            display: display.map(str::to_owned),
            pinger: Default::default(),
            backing: Default::default(),
        })
    }

    /// Keeps `window` (one of glovebox's own) out of every desktop capture.
    pub fn exclude_from_captures(&self, window: u32) {
        self.own_windows.lock_recovered().push(window);
    }

    /// What this connection can do, before anything is asked of it.
    /// Accessibility is another backend's to state; it is left missing here.
    pub fn capabilities(&self) -> glovebox_platform::Capabilities {
        use glovebox_platform::Support;
        let wm = self.window_manager_present();
        let window_listing = Support::Available {
            detail: if wm {
                "EWMH client list".into()
            } else {
                "root children (no window manager: no focus or stacking hints)".into()
            },
        };
        let capture = match self.capture_route() {
            crate::CaptureRoute::Unavailable(reason) => Support::Missing { reason },
            crate::CaptureRoute::Shm => Support::Available { detail: "MIT-SHM".into() },
            crate::CaptureRoute::GetImage => Support::Available { detail: "GetImage".into() },
        };
        let randr = self.has_extension(x11rb::protocol::randr::X11_EXTENSION_NAME);
        let desktop_capture = match &capture {
            Support::Available { detail } if randr => {
                Support::Available { detail: format!("{detail}, RandR monitors") }
            }
            Support::Available { detail } => Support::Available {
                detail: format!("{detail}, the screen as one display (no RandR)"),
            },
            missing => missing.clone(),
        };
        glovebox_platform::Capabilities {
            backend: "x11".into(),
            window_listing,
            window_capture: capture,
            desktop_capture,
            accessibility: Support::Missing { reason: "not provided by the X11 backend".into() },
        }
    }

    fn window_manager_present(&self) -> bool {
        use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
        self.conn
            .get_property(
                false,
                self.root,
                self.atoms._NET_SUPPORTING_WM_CHECK,
                AtomEnum::WINDOW,
                0,
                1,
            )
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|r| r.value32().and_then(|mut v| v.next()).is_some())
    }

    /// Which route captures pixels on this connection.
    pub fn capture_route(&self) -> crate::CaptureRoute {
        self.capture.route()
    }
}
