//! Building frames from native pixel reads, shared by every backend: a
//! window crop, and a desktop composite whose gaps stay black.

use crate::{next_frame_id, now_ms, Capture, RgbImage};
use glovebox_model::{CaptureLimits, DesktopLayout, DisplaySelection, ErrorCode, Frame, FrameSubject, Monitor, Rect, Refusal, WindowInfo};

/// The part of `window` a capture can read: its client area clipped to the
/// screen. Minimised and fully off-screen windows have no pixels to read.
pub fn window_capture_rect(window: &WindowInfo, screen: Rect) -> Result<Rect, Refusal> {
    if window.minimized {
        return Err(Refusal::new(
            ErrorCode::BackgroundUnavailable,
            format!("window {} is minimised: it has no pixels until restored, and restoring it would change the user's desktop", window.id),
        ));
    }
    window.geometry.intersection(screen).ok_or_else(|| {
        Refusal::new(ErrorCode::BackgroundUnavailable, format!("window {} lies entirely outside the screen", window.id))
    })
}

/// A window frame from the native pixels of `rect`, scaled into `limits`.
pub fn window_capture(window: &WindowInfo, rect: Rect, native: RgbImage, limits: CaptureLimits) -> Capture {
    let image = native.downscale(limits.fit(rect.size()));
    let frame = Frame {
        id: next_frame_id(),
        subject: FrameSubject::Window { window: window.id, geometry: rect },
        image: image.size(),
        scale: image.width as f64 / rect.width as f64,
        captured_at_ms: now_ms(),
    };
    Capture { frame, image }
}

/// A desktop frame: plans the layout, reads each selected display's native
/// rectangle with `read`, composes them on black and scales into `limits`.
pub fn desktop_capture(
    monitors: &[Monitor],
    selection: &DisplaySelection,
    limits: CaptureLimits,
    mut read: impl FnMut(Rect) -> Result<RgbImage, Refusal>,
) -> Result<Capture, Refusal> {
    let layout = DesktopLayout::plan(monitors, selection, limits)?;
    let native = match layout.displays.as_slice() {
        [only] if only.logical == layout.bounds => read(layout.bounds)?,
        displays => {
            let mut canvas = RgbImage::black(layout.bounds.size());
            for display in displays {
                let pixels = read(display.logical)?;
                canvas.blit(&pixels, display.logical.x - layout.bounds.x, display.logical.y - layout.bounds.y);
            }
            canvas
        }
    };
    let image = native.downscale(layout.image);
    let frame = Frame {
        id: next_frame_id(),
        subject: FrameSubject::Desktop { bounds: layout.bounds, displays: layout.displays },
        image: image.size(),
        scale: image.width as f64 / layout.bounds.width as f64,
        captured_at_ms: now_ms(),
    };
    Ok(Capture { frame, image })
}
