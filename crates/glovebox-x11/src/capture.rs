//! Reading pixels: MIT-SHM into a shared memfd when the server is local,
//! plain GetImage otherwise; window frames cropped to the measured window,
//! desktop frames composed from the RandR monitors.

use crate::connection::{connection_lost, reply_error, X11Backend};
use crate::pixels::PixelFormat;
use glovebox_model::{CaptureLimits, DisplaySelection, Monitor, Rect, WindowId, WindowInfo, WindowRef};
use glovebox_platform::compose::{desktop_capture, window_capture, window_capture_rect};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::{BackendError, BackendErrorKind};
use glovebox_platform::{Capture, RgbImage, ScreenCapture, WindowSource};
use std::sync::Mutex;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};
use x11rb::rust_connection::RustConnection;

/// How pixels are read on this connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureRoute {
    /// Shared memory: the server writes into a memfd we mapped.
    Shm,
    /// Pixels come through the socket.
    GetImage,
    /// Nothing can be captured here, and why.
    Unavailable(String),
}

enum ShmState {
    /// Not tried yet (created on the first capture, not on connect).
    Untried,
    #[cfg(feature = "shm")]
    Ready(crate::shm::SharedSegment),
    Failed,
}

pub(crate) struct Capturer {
    screen: usize,
    format: Result<PixelFormat, String>,
    unavailable: Option<String>,
    shm: Mutex<ShmState>,
}

impl Capturer {
    pub(crate) fn new(conn: &RustConnection, screen: usize) -> Result<Capturer, BackendError> {
        let unavailable = crate::doctor::is_rootless_xwayland(conn)
            .then(|| "this X server is a rootless XWayland: its root window holds no pixels of Wayland clients".to_owned());
        let shm_present = cfg!(feature = "shm") && conn.extension_information("MIT-SHM").map_err(connection_lost)?.is_some();
        Ok(Capturer {
            screen,
            format: PixelFormat::of_root(conn.setup(), screen),
            unavailable,
            shm: Mutex::new(if shm_present { ShmState::Untried } else { ShmState::Failed }),
        })
    }

    pub(crate) fn route(&self) -> CaptureRoute {
        if let Some(reason) = self.unavailable.clone().or_else(|| self.format.clone().err()) {
            return CaptureRoute::Unavailable(reason);
        }
        match *self.shm.lock_recovered() {
            ShmState::Failed => CaptureRoute::GetImage,
            _ => CaptureRoute::Shm,
        }
    }

    fn format(&self) -> Result<PixelFormat, BackendError> {
        if let Some(reason) = &self.unavailable {
            return Err(BackendError::unavailable(reason.clone()));
        }
        self.format.clone().map_err(|reason| BackendError::unavailable(format!("cannot capture: {reason}")))
    }

    /// Reads `rect` (root coordinates, inside the screen) as RGB.
    fn read(&self, conn: &RustConnection, root: u32, rect: Rect) -> Result<RgbImage, BackendError> {
        let format = self.format()?;
        let (x, y, w, h) = (rect.x as i16, rect.y as i16, rect.width as u16, rect.height as u16);
        #[cfg(feature = "shm")]
        {
            let len = rect.width as usize * rect.height as usize * 4;
            let mut state = self.shm.lock_recovered();
            let needs_segment = match &*state {
                ShmState::Untried => true,
                ShmState::Ready(segment) => segment.len() < len,
                ShmState::Failed => false,
            };
            if needs_segment {
                let screen = &conn.setup().roots[self.screen];
                let size = len.max(screen.width_in_pixels as usize * screen.height_in_pixels as usize * 4);
                if let ShmState::Ready(old) = std::mem::replace(&mut *state, ShmState::Failed) {
                    old.detach(conn);
                }
                // A remote server cannot attach our memfd: fall back for good.
                if let Ok(segment) = crate::shm::SharedSegment::attach(conn, size) {
                    *state = ShmState::Ready(segment);
                }
            }
            if let ShmState::Ready(segment) = &*state {
                let reply = x11rb::protocol::shm::get_image(conn, root, x, y, w, h, !0, ImageFormat::Z_PIXMAP.into(), segment.id, 0)
                    .map_err(connection_lost)?
                    .reply()
                    .map_err(|e| reply_error(e, None))?;
                let bytes = segment.bytes(reply.size as usize);
                return format.to_rgb(bytes, rect.width, rect.height, rect.width as usize * 4);
            }
        }
        let reply = conn.get_image(ImageFormat::Z_PIXMAP, root, x, y, w, h, !0).map_err(connection_lost)?.reply().map_err(|e| reply_error(e, None))?;
        let stride = if h == 0 { 0 } else { reply.data.len() / h as usize };
        format.to_rgb(&reply.data, rect.width, rect.height, stride)
    }
}

impl X11Backend {
    /// The root window's current size (RandR may have changed it since connect).
    fn screen_rect(&self) -> Result<Rect, BackendError> {
        let g = self.conn.get_geometry(self.root).map_err(connection_lost)?.reply().map_err(|e| reply_error(e, None))?;
        Ok(Rect::new(0, 0, g.width.into(), g.height.into()))
    }

    /// Reads `rect`, leaving any part outside the screen black.
    fn read_clipped(&self, rect: Rect, screen: Rect) -> Result<RgbImage, BackendError> {
        match rect.intersection(screen) {
            Some(inside) if inside == rect => self.capture.read(&self.conn, self.root, rect),
            Some(inside) => {
                let mut canvas = RgbImage::black(rect.size());
                let pixels = self.capture.read(&self.conn, self.root, inside)?;
                canvas.blit(&pixels, inside.x - rect.x, inside.y - rect.y);
                Ok(canvas)
            }
            None => Ok(RgbImage::black(rect.size())),
        }
    }

    /// Captures a window measured earlier. The window is measured again after
    /// the pixels are read: if it closed, moved or resized meanwhile the
    /// capture is refused rather than returned with mixed content.
    pub fn capture_measured_window(&self, window: &WindowInfo, limits: CaptureLimits) -> Result<Capture, BackendError> {
        self.capture.format()?;
        let screen = self.screen_rect()?;
        let rect = window_capture_rect(window, screen)?;
        let covered = self.covering(window)?;
        let native = self.capture.read(&self.conn, self.root, rect)?;
        let after = self.measure(window.id.xid)?;
        if after.geometry != window.geometry || after.minimized != window.minimized {
            return Err(BackendError::new(
                BackendErrorKind::Moved,
                format!("window {} moved, resized or was minimised while it was captured; capture again", window.id),
            ));
        }
        // What covered the window may have moved while it was read: what
        // covers it now is blacked out too, so neither state leaks.
        let mut covered = covered;
        for now in self.covering(window)? {
            if !covered.contains(&now) {
                covered.push(now);
            }
        }
        Ok(window_capture(window, rect, native, limits, &covered))
    }
}

impl ScreenCapture for X11Backend {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        let screen = self.screen_rect()?;
        if self.conn.extension_information(randr::X11_EXTENSION_NAME).map_err(connection_lost)?.is_none() {
            return Ok(vec![Monitor { name: "screen".into(), logical: screen, primary: true }]);
        }
        let reply = self.conn.randr_get_monitors(self.root, true).map_err(connection_lost)?.reply().map_err(|e| reply_error(e, None))?;
        let names: Vec<_> = reply.monitors.iter().map(|m| self.conn.get_atom_name(m.name)).collect::<Result<_, _>>().map_err(connection_lost)?;
        reply
            .monitors
            .iter()
            .zip(names)
            .map(|(m, name)| {
                let name = name.reply().map(|n| String::from_utf8_lossy(&n.name).into_owned()).map_err(|e| reply_error(e, None))?;
                Ok(Monitor { name, logical: Rect::new(m.x.into(), m.y.into(), m.width.into(), m.height.into()), primary: m.primary })
            })
            .collect()
    }

    fn capture_window(&self, window: &WindowRef, limits: CaptureLimits) -> Result<Capture, BackendError> {
        let info = self.find_window(window)?;
        self.capture_measured_window(&info, limits)
    }

    fn capture_desktop(&self, selection: &DisplaySelection, limits: CaptureLimits, hidden: &[WindowId]) -> Result<Capture, BackendError> {
        self.capture.format()?;
        let screen = self.screen_rect()?;
        let monitors = self.monitors()?;
        let mut parts = self.hidden_parts(hidden)?;
        let mut capture = desktop_capture(&monitors, selection, limits, &parts, |rect| self.read_clipped(rect, screen))?;
        // A hidden window that moved while the displays were read is
        // blacked out where it is now as well.
        let now = self.hidden_parts(hidden)?;
        if now != parts {
            parts.extend(now);
            capture = desktop_capture(&monitors, selection, limits, &parts, |rect| self.read_clipped(rect, screen))?;
        }
        Ok(capture)
    }
}
