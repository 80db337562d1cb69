//! Desktops whose compositor serves its window list and pictures over
//! D-Bus — KWin's scripting and ScreenShot2, GNOME Shell with glovebox's
//! extension — and the frames glovebox builds from what they serve. The
//! compositor draws each window alone, so no other window's pixels are
//! ever in a window's picture; a desktop picture blacks out the denied
//! windows where they show, read again after the pixels.

use glovebox_model::{
    CaptureLimits, DisplaySelection, Monitor, Rect, WindowId, WindowInfo, WindowRef,
};
use glovebox_platform::compose::{
    desktop_capture, refuse_black, visible_parts_of_hidden, window_capture, window_capture_rect,
};
use glovebox_platform::{BackendError, BackendErrorKind, Capture, RgbImage};
use std::path::PathBuf;

/// A window glovebox lists, with what its compositor needs to draw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub info: WindowInfo,
    /// The compositor's own name for the window (KWin's UUID, Mutter's id).
    pub handle: String,
    /// What the client's buffer covers, client-side shadows included.
    pub buffer: Rect,
    /// The window with the decorations the compositor draws around it.
    pub frame: Rect,
    /// The X11 window of an XWayland client.
    pub x11: Option<u32>,
    /// On screen: not minimised, not hidden, on the current workspace.
    pub shown: bool,
}

/// The desktop as the compositor served it: screens, and windows
/// frontmost first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    pub monitors: Vec<Monitor>,
    pub windows: Vec<Listed>,
}

/// What a serving compositor answers.
pub trait Served {
    /// Who answers, for messages (`KWin 5.27.5`, `GNOME Shell 43.9`).
    fn compositor(&self) -> &str;
    fn snapshot(&self) -> Result<Snapshot, BackendError>;
    /// The window drawn alone: its buffer or its frame, in logical pixels.
    fn window_pixels(&self, window: &Listed) -> Result<RgbImage, BackendError>;
    /// The whole workspace (the bounds of every monitor), in logical pixels.
    fn screen_pixels(&self) -> Result<RgbImage, BackendError>;
}

fn no_screen(served: &dyn Served) -> BackendError {
    BackendError::new(
        BackendErrorKind::Unavailable,
        format!("{} reports no screen", served.compositor()),
    )
}

fn bounds(monitors: &[Monitor]) -> Option<Rect> {
    monitors.iter().map(|m| m.logical).reduce(|a, b| a.union(b))
}

pub fn list_windows(served: &dyn Served) -> Result<Vec<WindowInfo>, BackendError> {
    Ok(served.snapshot()?.windows.into_iter().map(|l| l.info).collect())
}

pub fn monitors(served: &dyn Served) -> Result<Vec<Monitor>, BackendError> {
    let monitors = served.snapshot()?.monitors;
    if monitors.is_empty() {
        return Err(no_screen(served));
    }
    Ok(monitors)
}

pub fn capture_window(
    served: &dyn Served,
    window: &WindowRef,
    limits: CaptureLimits,
) -> Result<Capture, BackendError> {
    let snapshot = served.snapshot()?;
    let infos: Vec<WindowInfo> = snapshot.windows.iter().map(|l| l.info.clone()).collect();
    let info = window.resolve(&infos)?.clone();
    let entry =
        snapshot.windows.iter().find(|l| l.info.id == info.id).expect("resolved from this list");
    let screen = bounds(&snapshot.monitors).ok_or_else(|| no_screen(served))?;
    let rect = window_capture_rect(&info, screen)?;
    let whole = served.window_pixels(entry)?;
    // The compositor draws the window's buffer (with client-side shadows),
    // its frame or its client area; the window's part on screen is what
    // glovebox shows.
    let origin = [entry.buffer, entry.frame, info.geometry]
        .into_iter()
        .find(|r| r.width == whole.width && r.height == whole.height)
        .ok_or_else(|| {
            BackendError::new(
                BackendErrorKind::Moved,
                format!("window {} changed size while it was captured; capture again", info.id),
            )
        })?;
    let native = whole
        .crop(Rect::new(rect.x - origin.x, rect.y - origin.y, rect.width, rect.height))
        .ok_or_else(|| {
            BackendError::new(
                BackendErrorKind::Moved,
                format!("window {} moved while it was captured; capture again", info.id),
            )
        })?;
    refuse_black(&native, info.id)?;
    // The window's own pixels: nothing of another window is in them.
    Ok(window_capture(&info, rect, native, limits, &[]))
}

pub fn capture_desktop(
    served: &dyn Served,
    selection: &DisplaySelection,
    limits: CaptureLimits,
    hidden: &[WindowId],
) -> Result<Capture, BackendError> {
    let hidden_parts = |snapshot: &Snapshot| {
        let stacking: Vec<(Rect, bool)> = snapshot
            .windows
            .iter()
            .filter(|l| l.shown)
            .map(|l| (l.frame, hidden.contains(&l.info.id)))
            .collect();
        visible_parts_of_hidden(&stacking)
    };
    let before = served.snapshot()?;
    let workspace = bounds(&before.monitors).ok_or_else(|| no_screen(served))?;
    let whole = served.screen_pixels()?;
    // Windows may have moved between the list and the picture: the denied
    // ones are blacked where they were and where they are now.
    let mut parts = hidden_parts(&before);
    parts.extend(hidden_parts(&served.snapshot()?));
    desktop_capture(&before.monitors, selection, limits, &parts, |rect| {
        whole
            .crop(Rect::new(rect.x - workspace.x, rect.y - workspace.y, rect.width, rect.height))
            .ok_or_else(|| {
                BackendError::new(
                    BackendErrorKind::Moved,
                    "the screens changed while the desktop was captured; capture again",
                )
            })
    })
}

/// `$XDG_RUNTIME_DIR/NAME` (or `NAME-UID` in the temporary directory),
/// private to this user: where scripts and pictures pass through.
pub fn private_dir(name: &str) -> std::io::Result<PathBuf> {
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(runtime) => PathBuf::from(runtime).join(name),
        None => std::env::temp_dir().join(format!("{name}-{}", glovebox_platform::files::euid())),
    };
    glovebox_platform::files::private_dir(&dir)?;
    Ok(dir)
}

/// A runtime of one worker named `thread` and a connection to the session
/// bus at `address` (this process's when `None`), within `answer`; why not.
pub fn connect_bus(
    address: Option<&str>,
    thread: &str,
    answer: std::time::Duration,
) -> Result<(tokio::runtime::Runtime, zbus::Connection), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(thread)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the D-Bus runtime: {e}"))?;
    let bus = runtime.block_on(async {
        let connecting = async {
            match address {
                Some(a) => zbus::connection::Builder::address(a)?.build().await,
                None => zbus::Connection::session().await,
            }
        };
        tokio::time::timeout(answer, connecting)
            .await
            .map_err(|_| "no answer".to_owned())?
            .map_err(|e| e.to_string())
    })?;
    Ok((runtime, bus))
}

/// `WindowSource` and `ScreenCapture` for a [`Served`] compositor: this
/// module's functions, the same for every one.
macro_rules! platform_traits {
    ($backend:ty) => {
        impl glovebox_platform::WindowSource for $backend {
            fn list_windows(
                &self,
            ) -> Result<Vec<glovebox_model::WindowInfo>, glovebox_platform::BackendError> {
                $crate::served::list_windows(self)
            }
        }

        impl glovebox_platform::ScreenCapture for $backend {
            fn monitors(
                &self,
            ) -> Result<Vec<glovebox_model::Monitor>, glovebox_platform::BackendError> {
                $crate::served::monitors(self)
            }

            fn capture_window(
                &self,
                window: &glovebox_model::WindowRef,
                limits: glovebox_model::CaptureLimits,
            ) -> Result<glovebox_platform::Capture, glovebox_platform::BackendError> {
                $crate::served::capture_window(self, window, limits)
            }

            fn capture_desktop(
                &self,
                selection: &glovebox_model::DisplaySelection,
                limits: glovebox_model::CaptureLimits,
                hidden: &[glovebox_model::WindowId],
            ) -> Result<glovebox_platform::Capture, glovebox_platform::BackendError> {
                $crate::served::capture_desktop(self, selection, limits, hidden)
            }
        }
    };
}
pub(crate) use platform_traits;
