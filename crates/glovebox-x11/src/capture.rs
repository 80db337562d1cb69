//! Reading pixels: MIT-SHM into a shared memfd when the server is local,
//! plain GetImage otherwise; window frames cropped to the measured window,
//! desktop frames composed from the RandR monitors.

use crate::errors::{connection_lost, reply_error};
use crate::pixels::PixelFormat;
use glovebox_model::Rect;
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::{BackendError, RgbImage};
use std::sync::Mutex;
use x11rb::connection::{Connection, RequestConnection};
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
    /// The server is an XWayland, where a read of what the compositor
    /// keeps from it gives black, never an error. Asked on the first
    /// all-black read (two round trips), not on connect.
    xwayland: std::sync::OnceLock<bool>,
    shm: Mutex<ShmState>,
}

impl Capturer {
    pub(crate) fn new(conn: &RustConnection, screen: usize) -> Result<Capturer, BackendError> {
        let unavailable = crate::doctor::is_rootless_xwayland(conn, false)
            .then(|| "this X server is a rootless XWayland: its root window holds no pixels of Wayland clients".to_owned());
        let shm_present = cfg!(feature = "shm")
            && conn.extension_information("MIT-SHM").map_err(connection_lost)?.is_some();
        Ok(Capturer {
            screen,
            format: PixelFormat::of_root(conn.setup(), screen),
            unavailable,
            xwayland: std::sync::OnceLock::new(),
            shm: Mutex::new(if shm_present { ShmState::Untried } else { ShmState::Failed }),
        })
    }

    /// Whether `pixels` are no picture: all black, read from an XWayland.
    pub(crate) fn unread(&self, conn: &RustConnection, pixels: &RgbImage) -> bool {
        pixels.is_black() && *self.xwayland.get_or_init(|| crate::doctor::is_xwayland(conn))
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

    pub(crate) fn format(&self) -> Result<PixelFormat, BackendError> {
        if let Some(reason) = &self.unavailable {
            return Err(BackendError::unavailable(reason.clone()));
        }
        self.format
            .clone()
            .map_err(|reason| BackendError::unavailable(format!("cannot capture: {reason}")))
    }

    /// The screen captured on.
    pub(crate) fn screen(&self) -> usize {
        self.screen
    }

    /// Reads `rect` (root coordinates, inside the screen) as RGB.
    pub(crate) fn read(
        &self,
        conn: &RustConnection,
        root: u32,
        rect: Rect,
    ) -> Result<RgbImage, BackendError> {
        self.read_drawable(conn, root, rect, self.format()?)
    }

    /// Reads `rect` of `drawable` (the root, or a window's pixmap inside
    /// the screen's size), whose pixels are laid out as `format`.
    pub(crate) fn read_drawable(
        &self,
        conn: &RustConnection,
        root: u32,
        rect: Rect,
        format: PixelFormat,
    ) -> Result<RgbImage, BackendError> {
        self.format()?;
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
                let size =
                    len.max(screen.width_in_pixels as usize * screen.height_in_pixels as usize * 4);
                if let ShmState::Ready(old) = std::mem::replace(&mut *state, ShmState::Failed) {
                    old.detach(conn);
                }
                // A remote server cannot attach our memfd: fall back for good.
                if let Ok(segment) = crate::shm::SharedSegment::attach(conn, size) {
                    *state = ShmState::Ready(segment);
                }
            }
            if let ShmState::Ready(segment) = &*state {
                let reply = x11rb::protocol::shm::get_image(
                    conn,
                    root,
                    x,
                    y,
                    w,
                    h,
                    !0,
                    ImageFormat::Z_PIXMAP.into(),
                    segment.id,
                    0,
                )
                .map_err(connection_lost)?
                .reply()
                .map_err(|e| reply_error(e, None))?;
                let bytes = segment.bytes(reply.size as usize);
                return format.to_rgb(bytes, rect.width, rect.height, rect.width as usize * 4);
            }
        }
        let reply = conn
            .get_image(ImageFormat::Z_PIXMAP, root, x, y, w, h, !0)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let stride = if h == 0 { 0 } else { reply.data.len() / h as usize };
        format.to_rgb(&reply.data, rect.width, rect.height, stride)
    }
}
