//! X requests the sandbox itself needs: waiting for the window manager and
//! laying out simulated monitors with RandR 1.5; and the real pointer, which
//! tests place and read to prove that background input left it alone.

use crate::SandboxError;
use x11rb::connection::Connection;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};

/// One simulated monitor in root coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonitorSpec {
    pub name: String,
    pub x: i16,
    pub y: i16,
    pub width: u16,
    pub height: u16,
    pub primary: bool,
}

fn x11_error(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::X11(e.to_string())
}

fn connect(display: &str) -> Result<(x11rb::rust_connection::RustConnection, usize), SandboxError> {
    x11rb::connect(Some(display)).map_err(x11_error)
}

/// Lets `host` (a server-interpreted address: `localuser\0#uid`) connect to
/// the server of `display` without a cookie, asked over a connection that
/// presents `cookie` (the only one it lets in until then).
pub(crate) fn admit(display: &str, cookie: &[u8], host: &[u8]) -> Result<(), SandboxError> {
    use x11rb::protocol::xproto::{Family, HostMode};
    let number = display.trim_start_matches(':').split('.').next().unwrap_or_default();
    let socket = std::os::unix::net::UnixStream::connect(format!("/tmp/.X11-unix/X{number}"))?;
    let (stream, _) = x11rb::rust_connection::DefaultStream::from_unix_stream(socket)?;
    let conn = x11rb::rust_connection::RustConnection::connect_to_stream_with_auth_info(
        stream,
        0,
        b"MIT-MAGIC-COOKIE-1".to_vec(),
        cookie.to_vec(),
    )
    .map_err(x11_error)?;
    conn.change_hosts(HostMode::INSERT, Family::SERVER_INTERPRETED, host)
        .map_err(x11_error)?
        .check()
        .map_err(x11_error)?;
    Ok(())
}

/// The real pointer in root coordinates.
pub(crate) fn pointer(display: &str) -> Result<(i16, i16), SandboxError> {
    let (conn, screen) = connect(display)?;
    let reply = conn
        .query_pointer(conn.setup().roots[screen].root)
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?;
    Ok((reply.root_x, reply.root_y))
}

/// Moves the real pointer to `(x, y)` in root coordinates; done when this returns.
pub(crate) fn warp_pointer(display: &str, x: i16, y: i16) -> Result<(), SandboxError> {
    let (conn, screen) = connect(display)?;
    conn.warp_pointer(x11rb::NONE, conn.setup().roots[screen].root, 0, 0, 0, 0, x, y)
        .map_err(x11_error)?;
    // A round trip: the server has applied the warp once it answers.
    conn.get_input_focus().map_err(x11_error)?.reply().map_err(x11_error)?;
    Ok(())
}

/// The name of the EWMH window manager, `None` until one announces itself
/// and redirects the root's substructure (before that, a window mapped now
/// would escape management).
pub(crate) fn window_manager_name(display: &str) -> Result<Option<String>, SandboxError> {
    let (conn, screen) = connect(display)?;
    let root = conn.setup().roots[screen].root;
    let masks = conn
        .get_window_attributes(root)
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?
        .all_event_masks;
    if !masks.contains(x11rb::protocol::xproto::EventMask::SUBSTRUCTURE_REDIRECT) {
        return Ok(None);
    }
    let check = conn
        .intern_atom(false, b"_NET_SUPPORTING_WM_CHECK")
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?
        .atom;
    let reply = conn
        .get_property(false, root, check, AtomEnum::WINDOW, 0, 1)
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?;
    let Some(wm_window) = reply.value32().and_then(|mut v| v.next()) else { return Ok(None) };
    let name_atom = conn
        .intern_atom(false, b"_NET_WM_NAME")
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?
        .atom;
    let name = conn
        .get_property(false, wm_window, name_atom, AtomEnum::ANY, 0, 64)
        .map_err(x11_error)?
        .reply()
        .map(|r| String::from_utf8_lossy(&r.value).into_owned())
        .unwrap_or_default();
    Ok(Some(name))
}

pub(crate) fn set_monitors(display: &str, monitors: &[MonitorSpec]) -> Result<(), SandboxError> {
    let (conn, screen) = connect(display)?;
    let root = conn.setup().roots[screen].root;
    let existing =
        conn.randr_get_monitors(root, false).map_err(x11_error)?.reply().map_err(x11_error)?;
    let resources = conn
        .randr_get_screen_resources_current(root)
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?;
    for old in existing.monitors.iter().filter(|m| !m.automatic) {
        conn.randr_delete_monitor(root, old.name).map_err(x11_error)?.check().map_err(x11_error)?;
    }
    for (index, spec) in monitors.iter().enumerate() {
        let name = conn
            .intern_atom(false, spec.name.as_bytes())
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .atom;
        // The first monitor takes the screen's output, so the server stops
        // generating its automatic whole-screen monitor.
        let outputs = if index == 0 { resources.outputs.clone() } else { vec![] };
        let info = randr::MonitorInfo {
            name,
            primary: spec.primary,
            automatic: false,
            x: spec.x,
            y: spec.y,
            width: spec.width,
            height: spec.height,
            width_in_millimeters: spec.width as u32 * 254 / 960,
            height_in_millimeters: spec.height as u32 * 254 / 960,
            outputs,
        };
        conn.randr_set_monitor(root, info).map_err(x11_error)?.check().map_err(x11_error)?;
    }
    conn.flush().map_err(x11_error)?;
    Ok(())
}
