//! glovebox on a Wayland desktop: windows, geometry and stacking from the
//! compositor, pixels through wlroots' screencopy.
//!
//! Wayland gives a client no way to list, read or drive another client's
//! windows; the compositor has to. This crate speaks to wlroots
//! compositors that publish their window tree over sway's IPC ([`ipc`],
//! [`tree`]) and captures through `grim`, which uses the
//! `wlr-screencopy` protocol ([`capture`]). Input is not here: on Wayland
//! glovebox delivers only through accessibility (glovebox-linux).
#![forbid(unsafe_code)]

pub mod capture;
pub mod doctor;
pub mod gnome;
pub mod ipc;
pub mod kwin;
pub mod served;
pub mod tree;

use glovebox_model::{CaptureLimits, DisplaySelection, Monitor, WindowId, WindowInfo, WindowRef};
use glovebox_platform::compose::{
    covering, desktop_capture, visible_parts_of_hidden, window_capture, window_capture_rect,
};
use glovebox_platform::{
    BackendError, BackendErrorKind, Capabilities, Capture, ScreenCapture, Support, WindowSource,
};
use std::path::{Path, PathBuf};

/// Where a Wayland session's sockets are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The compositor's Wayland socket (absolute).
    pub wayland_display: PathBuf,
    /// The compositor's IPC socket (sway's `SWAYSOCK`).
    pub ipc: PathBuf,
}

impl Session {
    /// The session of this process's environment: `WAYLAND_DISPLAY`
    /// (relative to `XDG_RUNTIME_DIR` unless absolute) and `SWAYSOCK`, or
    /// the IPC socket next to the Wayland socket.
    pub fn from_env() -> Result<Session, BackendError> {
        let wayland_display = wayland_display_from_env()?;
        let ipc = match std::env::var_os("SWAYSOCK").filter(|s| !s.is_empty()) {
            Some(sock) => PathBuf::from(sock),
            None => ipc::find_socket_near(&wayland_display)?,
        };
        Ok(Session { wayland_display, ipc })
    }

    /// The session whose Wayland socket is `wayland_display`, its IPC
    /// socket found beside it.
    pub fn at(wayland_display: &Path) -> Result<Session, BackendError> {
        Ok(Session {
            wayland_display: wayland_display.to_owned(),
            ipc: ipc::find_socket_near(wayland_display)?,
        })
    }
}

/// The Wayland socket this process's environment names (`WAYLAND_DISPLAY`,
/// relative to `XDG_RUNTIME_DIR` unless absolute), once a compositor
/// answers on it.
pub fn wayland_display_from_env() -> Result<PathBuf, BackendError> {
    let display = std::env::var("WAYLAND_DISPLAY").ok().filter(|d| !d.is_empty());
    let Some(display) = display else {
        return Err(BackendError::new(
            BackendErrorKind::Unavailable,
            "WAYLAND_DISPLAY is not set: no Wayland compositor to talk to",
        ));
    };
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let socket = match (Path::new(&display).is_absolute(), runtime) {
        (true, _) => PathBuf::from(&display),
        (false, Some(dir)) => dir.join(&display),
        (false, None) => {
            return Err(BackendError::new(
                BackendErrorKind::Unavailable,
                "WAYLAND_DISPLAY is relative and XDG_RUNTIME_DIR is not set",
            ))
        }
    };
    // A name is not a desktop: a compositor must answer on it.
    match std::os::unix::net::UnixStream::connect(&socket) {
        Ok(_) => Ok(socket),
        Err(e) => Err(BackendError::new(
            BackendErrorKind::Unavailable,
            format!("no Wayland compositor answers at {} (WAYLAND_DISPLAY): {e}", socket.display()),
        )),
    }
}

/// A wlroots compositor with sway's IPC: windows and their geometry from
/// its tree, pixels through `grim`.
#[derive(Debug)]
pub struct WaylandBackend {
    session: Session,
    compositor: String,
}

impl WaylandBackend {
    /// Connects to the compositor's IPC and asks who it is.
    pub fn connect(session: Session) -> Result<WaylandBackend, BackendError> {
        let version = ipc::Ipc::connect(&session.ipc)?.request(ipc::Kind::GetVersion, "")?;
        let compositor = version
            .get("human_readable")
            .and_then(|v| v.as_str())
            .map(|v| format!("sway {v}"))
            .unwrap_or_else(|| "a sway-IPC compositor".into());
        Ok(WaylandBackend { session, compositor })
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The compositor's name and version as it reports them.
    pub fn compositor(&self) -> &str {
        &self.compositor
    }

    fn tree(&self) -> Result<tree::Desktop, BackendError> {
        let raw = ipc::Ipc::connect(&self.session.ipc)?.request(ipc::Kind::GetTree, "")?;
        Ok(tree::Desktop::from_tree(&raw))
    }

    /// Gives window `con_id` keyboard focus through the compositor (the
    /// launcher hands the user's window back with it).
    pub fn focus(&self, con_id: u32) -> Result<(), BackendError> {
        let reply = ipc::Ipc::connect(&self.session.ipc)?
            .request(ipc::Kind::RunCommand, &format!("[con_id={con_id}] focus"))?;
        ipc::check_command(&reply)
    }

    pub fn capabilities(&self) -> Capabilities {
        let capture = match capture::grim() {
            Ok(path) => {
                Support::Available { detail: format!("wlr-screencopy through {}", path.display()) }
            }
            Err(e) => Support::Missing { reason: e.message },
        };
        Capabilities {
            backend: format!("wayland ({})", self.compositor),
            window_listing: Support::Available {
                detail: "the compositor's window tree (sway IPC)".into(),
            },
            window_capture: capture.clone(),
            desktop_capture: capture,
            accessibility: Support::Missing { reason: "provided by the AT-SPI backend".into() },
        }
    }
}

impl WindowSource for WaylandBackend {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        Ok(self.tree()?.windows.iter().map(tree::Toplevel::info).collect())
    }
}

impl ScreenCapture for WaylandBackend {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        let raw = ipc::Ipc::connect(&self.session.ipc)?.request(ipc::Kind::GetOutputs, "")?;
        let monitors = tree::monitors(&raw);
        if monitors.is_empty() {
            return Err(BackendError::new(
                BackendErrorKind::Unavailable,
                "the compositor reports no active output",
            ));
        }
        Ok(monitors)
    }

    fn capture_window(
        &self,
        window: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        let desktop = self.tree()?;
        let listed: Vec<WindowInfo> = desktop.windows.iter().map(tree::Toplevel::info).collect();
        let info = window.resolve(&listed)?.clone();
        let screen = desktop.bounds().ok_or_else(|| {
            BackendError::new(
                BackendErrorKind::Unavailable,
                "the compositor reports no active output",
            )
        })?;
        let rect = window_capture_rect(&info, screen)?;
        let covered = desktop.covering(info.id);
        let native = capture::read(&self.session.wayland_display, rect)?;
        // Read again after the pixels: a window that moved, or one laid
        // over it meanwhile, must not leak into the image.
        let after = self.tree()?;
        let Some(now) = after.windows.iter().find(|t| t.id() == info.id) else {
            return Err(BackendError::gone(format!(
                "window {} closed while it was captured",
                info.id
            )));
        };
        if now.info().geometry != info.geometry || now.info().minimized != info.minimized {
            return Err(BackendError::new(
                BackendErrorKind::Moved,
                format!(
                    "window {} moved, resized or was hidden while it was captured; capture again",
                    info.id
                ),
            ));
        }
        let mut covered = covered;
        for part in after.covering(info.id) {
            if !covered.contains(&part) {
                covered.push(part);
            }
        }
        Ok(window_capture(&info, rect, native, limits, &covered))
    }

    fn capture_desktop(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Result<Capture, BackendError> {
        let monitors = self.monitors()?;
        let hidden_parts = |desktop: &tree::Desktop| {
            let stacking: Vec<_> = desktop
                .windows
                .iter()
                .filter(|t| t.visible)
                .map(|t| (t.content, hidden.contains(&t.id())))
                .collect();
            visible_parts_of_hidden(&stacking)
        };
        let mut parts = hidden_parts(&self.tree()?);
        let display = &self.session.wayland_display;
        let mut shot = desktop_capture(&monitors, selection, limits, &parts, |rect| {
            capture::read(display, rect)
        })?;
        let now = hidden_parts(&self.tree()?);
        if now != parts {
            parts.extend(now);
            shot = desktop_capture(&monitors, selection, limits, &parts, |rect| {
                capture::read(display, rect)
            })?;
        }
        Ok(shot)
    }
}

impl tree::Desktop {
    /// What lies over window `id`: the visible windows stacked above it.
    fn covering(&self, id: WindowId) -> Vec<glovebox_model::Rect> {
        let Some(index) = self.windows.iter().position(|t| t.id() == id) else { return vec![] };
        let target = self.windows[index].content;
        covering(target, self.windows[..index].iter().filter(|t| t.visible).map(|t| t.content))
    }
}

impl WaylandBackend {
    /// Gives the user's window `user` focus back (which also raises it)
    /// if the compositor gave it to the newly started window `started`.
    pub fn hand_back(&self, user: WindowId, started: WindowId) -> Result<bool, BackendError> {
        let desktop = self.tree()?;
        let focused = |id: WindowId| desktop.windows.iter().any(|t| t.id() == id && t.focused);
        if !focused(started) || focused(user) || !desktop.windows.iter().any(|t| t.id() == user) {
            return Ok(false);
        }
        self.focus(user.handle)?;
        Ok(true)
    }
}
