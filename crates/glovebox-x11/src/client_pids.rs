//! The process behind an X window by the X server's own record
//! (X-Resource's client ids), for a compositor that lists XWayland windows
//! with the pid of `_NET_WM_PID` only: KWin 5.27 reports none for a window
//! whose client wrote none (Tk), while XWayland knows every local client's
//! pid from its socket.

use crate::errors::{connect_error, connection_lost};
use glovebox_platform::BackendError;
use x11rb::protocol::res::{self, ConnectionExt as _};
use x11rb::protocol::xproto::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

/// A connection to an X server that answers X-Resource.
pub struct ClientPids {
    conn: RustConnection,
}

impl std::fmt::Debug for ClientPids {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientPids").finish_non_exhaustive()
    }
}

impl ClientPids {
    /// Connects to `display`; refused when the server has no X-Resource.
    pub fn connect(display: &str) -> Result<ClientPids, BackendError> {
        let (conn, _) =
            x11rb::connect(Some(display)).map_err(|e| connect_error(Some(display), e))?;
        let present = conn
            .query_extension(res::X11_EXTENSION_NAME.as_bytes())
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| BackendError::unavailable(format!("X-Resource on {display}: {e}")))?
            .present;
        if !present {
            return Err(BackendError::unavailable(format!(
                "the X server of {display} has no X-Resource extension"
            )));
        }
        Ok(ClientPids { conn })
    }

    /// The pid of the local client that made `window`; `None` when the
    /// window is gone or its client is not local.
    pub fn pid_of(&self, window: u32) -> Option<u32> {
        let spec = res::ClientIdSpec { client: window, mask: res::ClientIdMask::LOCAL_CLIENT_PID };
        let reply = self.conn.res_query_client_ids(&[spec]).ok()?.reply().ok()?;
        reply.ids.into_iter().find_map(|id| id.value.first().copied()).filter(|&pid| pid != 0)
    }
}
