//! The screen as the model sees it: RandR monitors, a window captured
//! against its measured geometry (refused when it moved meanwhile; what
//! covers it read from its own pixmap, [`crate::backing`]), the
//! desktop composed from its displays with hidden windows blacked out.
//! Pixels are read by [`crate::capture`].

use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use glovebox_model::{
    CaptureLimits, DisplaySelection, Monitor, Rect, WindowId, WindowInfo, WindowRef,
};
use glovebox_platform::compose::{
    desktop_capture, refuse_black, window_capture, window_capture_rect,
};
use glovebox_platform::{BackendError, BackendErrorKind};
use glovebox_platform::{Capture, RgbImage, ScreenCapture, WindowSource};
use x11rb::connection::RequestConnection;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::ConnectionExt as _;

impl X11Backend {
    /// The root window's current size (RandR may have changed it since connect).
    pub fn screen_rect(&self) -> Result<Rect, BackendError> {
        let g = self
            .conn
            .get_geometry(self.root)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
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
    pub fn capture_measured_window(
        &self,
        window: &WindowInfo,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        self.capture.format()?;
        let screen = self.screen_rect()?;
        let rect = window_capture_rect(window, screen)?;
        let covered = self.covering(window)?;
        let native = self.capture.read(&self.conn, self.root, rect)?;
        if self.capture.unread(&self.conn, &native) {
            refuse_black(&native, window.id)?;
        }
        let after = self.measure(window.id.handle)?;
        if after.geometry != window.geometry || after.minimized != window.minimized {
            return Err(BackendError::new(
                BackendErrorKind::Moved,
                format!("window {} moved, resized or was minimised while it was captured; capture again", window.id),
            ));
        }
        // What covered the window may have moved while it was read: what
        // covers it now is replaced too, so neither state leaks.
        let mut covered = covered;
        for now in self.covering(window)? {
            if !covered.contains(&now) {
                covered.push(now);
            }
        }
        let mut native = native;
        if !covered.is_empty() {
            // The covered parts from the window's own pixmap; what cannot be
            // read from it stays black, as every covered part did before.
            match self.own_pixels_under(window, rect, &mut native, &covered) {
                Ok(left) => covered = left,
                Err(e) if whole(rect, &covered) => {
                    return Err(BackendError::new(
                        BackendErrorKind::Unavailable,
                        format!(
                            "window {} is covered by other windows and its own pixels cannot be read ({}); a screenshot of it would be black",
                            window.id, e.message
                        ),
                    ))
                }
                Err(_) => {}
            }
        }
        Ok(window_capture(window, rect, native, limits, &covered))
    }
}

/// Whether `parts` cover every pixel of `rect`.
fn whole(rect: Rect, parts: &[Rect]) -> bool {
    let mut left = vec![rect];
    for part in parts {
        left = left.into_iter().flat_map(|l| l.subtract(*part)).collect();
    }
    left.is_empty()
}

impl ScreenCapture for X11Backend {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        let screen = self.screen_rect()?;
        if self
            .conn
            .extension_information(randr::X11_EXTENSION_NAME)
            .map_err(connection_lost)?
            .is_none()
        {
            return Ok(vec![Monitor { name: "screen".into(), logical: screen, primary: true }]);
        }
        let reply = self
            .conn
            .randr_get_monitors(self.root, true)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let names: Vec<_> = reply
            .monitors
            .iter()
            .map(|m| self.conn.get_atom_name(m.name))
            .collect::<Result<_, _>>()
            .map_err(connection_lost)?;
        reply
            .monitors
            .iter()
            .zip(names)
            .map(|(m, name)| {
                let name = name
                    .reply()
                    .map(|n| String::from_utf8_lossy(&n.name).into_owned())
                    .map_err(|e| reply_error(e, None))?;
                Ok(Monitor {
                    name,
                    logical: Rect::new(m.x.into(), m.y.into(), m.width.into(), m.height.into()),
                    primary: m.primary,
                })
            })
            .collect()
    }

    fn capture_window(
        &self,
        window: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        let info = self.find_window(window)?;
        self.capture_measured_window(&info, limits)
    }

    fn capture_desktop(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Result<Capture, BackendError> {
        self.capture.format()?;
        let screen = self.screen_rect()?;
        let monitors = self.monitors()?;
        let mut parts = self.hidden_parts(hidden)?;
        let read = |rect| {
            let pixels = self.read_clipped(rect, screen)?;
            if self.capture.unread(&self.conn, &pixels) {
                return Err(BackendError::unavailable(
                    "the desktop's capture came back entirely black: this XWayland gives no pixels of the desktop; nothing was captured",
                ));
            }
            Ok(pixels)
        };
        let mut capture = desktop_capture(&monitors, selection, limits, &parts, read)?;
        // A hidden window that moved while the displays were read is
        // blacked out where it is now as well.
        let now = self.hidden_parts(hidden)?;
        if now != parts {
            parts.extend(now);
            capture = desktop_capture(&monitors, selection, limits, &parts, read)?;
        }
        Ok(capture)
    }
}
