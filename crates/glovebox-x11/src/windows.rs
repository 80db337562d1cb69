//! EWMH window enumeration: the managed client list in stacking order, each
//! window's class, title, pid, root geometry and state, in one pipelined
//! round of requests.

use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use glovebox_model::{PidSource, Rect, WindowId, WindowInfo};
use glovebox_platform::WindowSource;
use glovebox_platform::{BackendError, BackendErrorKind};
use x11rb::connection::RequestConnection;
use x11rb::cookie::Cookie;
use x11rb::protocol::res::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, GetPropertyReply, MapState, Window};
use x11rb::rust_connection::RustConnection;

const WM_STATE_ICONIC: u32 = 3;

/// Requests in flight for one window.
struct Pending<'c> {
    window: Window,
    class: Cookie<'c, RustConnection, GetPropertyReply>,
    net_name: Cookie<'c, RustConnection, GetPropertyReply>,
    name: Cookie<'c, RustConnection, GetPropertyReply>,
    net_pid: Cookie<'c, RustConnection, GetPropertyReply>,
    net_state: Cookie<'c, RustConnection, GetPropertyReply>,
    wm_state: Cookie<'c, RustConnection, GetPropertyReply>,
    geometry: Cookie<'c, RustConnection, x11rb::protocol::xproto::GetGeometryReply>,
    origin: Cookie<'c, RustConnection, x11rb::protocol::xproto::TranslateCoordinatesReply>,
    server_pid: Option<Cookie<'c, RustConnection, res::QueryClientIdsReply>>,
}

fn text(reply: &GetPropertyReply) -> String {
    String::from_utf8_lossy(&reply.value).trim_end_matches('\0').to_owned()
}

impl X11Backend {
    /// The managed top-level windows, bottom of the stack first. Without a
    /// window manager (no EWMH list) the viewable, non-override-redirect
    /// children of the root stand in, in the server's stacking order.
    pub(crate) fn stacking_order(&self) -> Result<Vec<Window>, BackendError> {
        let conn = &self.conn;
        for list in [self.atoms._NET_CLIENT_LIST_STACKING, self.atoms._NET_CLIENT_LIST] {
            let reply = conn
                .get_property(false, self.root, list, AtomEnum::WINDOW, 0, u32::MAX / 4)
                .map_err(connection_lost)?
                .reply()
                .map_err(|e| reply_error(e, None))?;
            if reply.type_ != u32::from(AtomEnum::NONE) {
                if let Some(windows) = reply.value32() {
                    return Ok(windows.collect());
                }
            }
        }
        let tree = conn
            .query_tree(self.root)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let attributes: Vec<_> = tree
            .children
            .iter()
            .map(|&w| conn.get_window_attributes(w).map(|c| (w, c)))
            .collect::<Result<_, _>>()
            .map_err(connection_lost)?;
        Ok(attributes
            .into_iter()
            .filter_map(|(w, cookie)| cookie.reply().ok().map(|a| (w, a)))
            .filter(|(_, a)| a.map_state == MapState::VIEWABLE && !a.override_redirect)
            .map(|(w, _)| w)
            .collect())
    }

    pub(crate) fn active_window(&self) -> Result<Option<Window>, BackendError> {
        let reply = self
            .conn
            .get_property(false, self.root, self.atoms._NET_ACTIVE_WINDOW, AtomEnum::WINDOW, 0, 1)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        if let Some(active) = reply.value32().and_then(|mut v| v.next()) {
            return Ok((active != 0).then_some(active));
        }
        let focus = self
            .conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?
            .focus;
        Ok((focus > 1).then_some(focus))
    }

    fn request(&self, window: Window, has_res: bool) -> Result<Pending<'_>, BackendError> {
        let conn = &self.conn;
        let property = |atom: u32, kind: u32, length: u32| {
            conn.get_property(false, window, atom, kind, 0, length)
        };
        let any = u32::from(AtomEnum::ANY);
        let pending = Pending {
            window,
            class: property(AtomEnum::WM_CLASS.into(), AtomEnum::STRING.into(), 256)
                .map_err(connection_lost)?,
            net_name: property(self.atoms._NET_WM_NAME, self.atoms.UTF8_STRING, 1024)
                .map_err(connection_lost)?,
            name: property(AtomEnum::WM_NAME.into(), any, 1024).map_err(connection_lost)?,
            net_pid: property(self.atoms._NET_WM_PID, AtomEnum::CARDINAL.into(), 1)
                .map_err(connection_lost)?,
            net_state: property(self.atoms._NET_WM_STATE, AtomEnum::ATOM.into(), 64)
                .map_err(connection_lost)?,
            wm_state: property(self.atoms.WM_STATE, self.atoms.WM_STATE, 2)
                .map_err(connection_lost)?,
            geometry: conn.get_geometry(window).map_err(connection_lost)?,
            origin: conn.translate_coordinates(window, self.root, 0, 0).map_err(connection_lost)?,
            server_pid: if has_res {
                let spec =
                    res::ClientIdSpec { client: window, mask: res::ClientIdMask::LOCAL_CLIENT_PID };
                Some(conn.res_query_client_ids(&[spec]).map_err(connection_lost)?)
            } else {
                None
            },
        };
        Ok(pending)
    }

    /// Collects one window's replies; `Ok(None)` when it vanished meanwhile.
    fn collect(
        &self,
        pending: Pending<'_>,
        active: Option<Window>,
    ) -> Result<Option<WindowInfo>, BackendError> {
        let window = pending.window;
        let gone = |e| match reply_error(e, Some(&window)) {
            r if r.is(&BackendErrorKind::Gone) => Ok(None),
            r => Err(r),
        };
        macro_rules! reply {
            ($cookie:expr) => {
                match $cookie.reply() {
                    Ok(r) => r,
                    Err(e) => return gone(e),
                }
            };
        }
        let class = reply!(pending.class);
        let net_name = reply!(pending.net_name);
        let name = reply!(pending.name);
        let net_pid = reply!(pending.net_pid);
        let net_state = reply!(pending.net_state);
        let wm_state = reply!(pending.wm_state);
        let geometry = reply!(pending.geometry);
        let origin = reply!(pending.origin);
        let server_pid = pending
            .server_pid
            .and_then(|cookie| cookie.reply().ok())
            .and_then(|r| r.ids.into_iter().find_map(|id| id.value.first().copied()))
            .filter(|&pid| pid != 0);
        let client_pid = net_pid.value32().and_then(|mut v| v.next()).filter(|&pid| pid != 0);
        let (pid, pid_source) = match (server_pid, client_pid) {
            (Some(pid), _) => (pid, PidSource::Server),
            (None, Some(pid)) => (pid, PidSource::ClientProperty),
            (None, None) => (0, PidSource::Unknown),
        };
        let mut class_parts =
            class.value.split(|&b| b == 0).map(|part| String::from_utf8_lossy(part).into_owned());
        let instance = class_parts.next().unwrap_or_default();
        let app = class_parts.next().filter(|c| !c.is_empty()).unwrap_or_else(|| instance.clone());
        let title = if net_name.value.is_empty() { text(&name) } else { text(&net_name) };
        let hidden = net_state
            .value32()
            .is_some_and(|mut atoms| atoms.any(|a| a == self.atoms._NET_WM_STATE_HIDDEN));
        let iconic = wm_state.value32().and_then(|mut v| v.next()) == Some(WM_STATE_ICONIC);
        Ok(Some(WindowInfo {
            id: WindowId { pid, handle: window },
            app,
            instance,
            title,
            pid_source,
            geometry: Rect::new(
                origin.dst_x.into(),
                origin.dst_y.into(),
                geometry.width.into(),
                geometry.height.into(),
            ),
            focused: active == Some(window),
            minimized: hidden || iconic,
            desktop: glovebox_model::Desktop::User,
        }))
    }

    pub(crate) fn has_extension(&self, name: &'static str) -> bool {
        self.conn.extension_information(name).ok().flatten().is_some()
    }

    /// Measures one window now; `TargetGone` when it no longer exists.
    pub(crate) fn measure(&self, window: Window) -> Result<WindowInfo, BackendError> {
        let active = self.active_window()?;
        let pending = self.request(window, self.has_extension(res::X11_EXTENSION_NAME))?;
        self.collect(pending, active)?
            .ok_or_else(|| BackendError::gone(format!("window {window:#x} closed")))
    }
}

impl WindowSource for X11Backend {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        let order = self.stacking_order()?;
        let active = self.active_window()?;
        let has_res = self.has_extension(res::X11_EXTENSION_NAME);
        let pending: Vec<_> =
            order.iter().rev().map(|&w| self.request(w, has_res)).collect::<Result<_, _>>()?;
        let mut windows = Vec::with_capacity(pending.len());
        for p in pending {
            if let Some(info) = self.collect(p, active)? {
                windows.push(info);
            }
        }
        Ok(windows)
    }
}
