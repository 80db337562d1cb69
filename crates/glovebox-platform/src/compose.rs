//! Building frames from native pixel reads, shared by every backend: a
//! window crop, and a desktop composite whose gaps stay black.

use crate::error::{BackendError, BackendErrorKind};
use crate::{next_frame_id, now_ms, Capture, RgbImage};
use glovebox_model::{
    CaptureLimits, DesktopLayout, DisplaySelection, Frame, FrameSubject, Monitor, Rect, WindowId,
    WindowInfo,
};

/// The part of `window` a capture can read: its client area clipped to the
/// screen. Minimised and fully off-screen windows have no pixels to read.
pub fn window_capture_rect(window: &WindowInfo, screen: Rect) -> Result<Rect, BackendError> {
    if window.minimized {
        return Err(BackendError::new(
            BackendErrorKind::NoBackgroundRoute,
            format!("window {} is minimised: it has no pixels until restored, and restoring it would change the user's desktop", window.id),
        ));
    }
    window.geometry.intersection(screen).ok_or_else(|| {
        BackendError::new(
            BackendErrorKind::NoBackgroundRoute,
            format!("window {} lies entirely outside the screen", window.id),
        )
    })
}

/// A window frame from the native pixels of `rect`, scaled into `limits`.
/// `covered` are the parts (root coordinates) other windows lay over: they
/// are painted black before anything else sees the pixels, and listed.
pub fn window_capture(
    window: &WindowInfo,
    rect: Rect,
    mut native: RgbImage,
    limits: CaptureLimits,
    covered: &[Rect],
) -> Capture {
    let occluded = blacken(&mut native, rect, covered);
    let image = native.downscale(limits.fit(rect.size()));
    let frame = Frame {
        id: next_frame_id(),
        subject: FrameSubject::Window { window: window.id, geometry: rect },
        image: image.size(),
        scale: image.width as f64 / rect.width as f64,
        captured_at_ms: now_ms(),
        occluded,
    };
    Capture { frame, image }
}

/// A desktop frame: plans the layout, reads each selected display's native
/// rectangle with `read`, composes them on black, paints `hidden` (root
/// coordinates: where denied windows show) black and scales into `limits`.
pub fn desktop_capture(
    monitors: &[Monitor],
    selection: &DisplaySelection,
    limits: CaptureLimits,
    hidden: &[Rect],
    mut read: impl FnMut(Rect) -> Result<RgbImage, BackendError>,
) -> Result<Capture, BackendError> {
    let layout = DesktopLayout::plan(monitors, selection, limits)?;
    let mut native = match layout.displays.as_slice() {
        [only] if only.logical == layout.bounds => read(layout.bounds)?,
        displays => {
            let mut canvas = RgbImage::black(layout.bounds.size());
            for display in displays {
                let pixels = read(display.logical)?;
                canvas.blit(
                    &pixels,
                    display.logical.x - layout.bounds.x,
                    display.logical.y - layout.bounds.y,
                );
            }
            canvas
        }
    };
    let occluded = blacken(&mut native, layout.bounds, hidden);
    let image = native.downscale(layout.image);
    let frame = Frame {
        id: next_frame_id(),
        subject: FrameSubject::Desktop { bounds: layout.bounds, displays: layout.displays },
        image: image.size(),
        scale: image.width as f64 / layout.bounds.width as f64,
        captured_at_ms: now_ms(),
        occluded,
    };
    Ok(Capture { frame, image })
}

/// A picture of a mapped window that is entirely black is no picture of
/// it: a route that cannot read the window's pixels (an X11 read of an
/// XWayland window, a compositor that drew nothing) gives black, and that
/// is an error, never a capture.
pub fn refuse_black(image: &RgbImage, window: WindowId) -> Result<(), BackendError> {
    if image.is_black() {
        return Err(BackendError::new(
            BackendErrorKind::Unavailable,
            format!(
                "the capture of window {window} came back entirely black: this route gives no pixels of it; nothing was captured"
            ),
        ));
    }
    Ok(())
}

/// Paints the parts of `rects` (root coordinates) that fall inside `shown`
/// (the image's rectangle) black, and returns those parts.
fn blacken(image: &mut RgbImage, shown: Rect, rects: &[Rect]) -> Vec<Rect> {
    let inside: Vec<Rect> = rects.iter().filter_map(|r| r.intersection(shown)).collect();
    for r in &inside {
        image.fill(Rect::new(r.x - shown.x, r.y - shown.y, r.width, r.height), [0, 0, 0]);
    }
    inside
}

/// What covers `target` in a stacking of windows given frontmost first:
/// the parts of the windows before it that overlap it.
pub fn covering(target: Rect, above: impl IntoIterator<Item = Rect>) -> Vec<Rect> {
    above.into_iter().filter_map(|r| r.intersection(target)).collect()
}

/// Where each of the `hidden` windows shows in a stacking given frontmost
/// first (`(rect, hidden)`): its rectangle less every window above it.
pub fn visible_parts_of_hidden(stacking: &[(Rect, bool)]) -> Vec<Rect> {
    let mut out = vec![];
    for (i, (rect, hidden)) in stacking.iter().enumerate() {
        if !hidden {
            continue;
        }
        let mut parts = vec![*rect];
        for (above, _) in &stacking[..i] {
            parts = parts.into_iter().flat_map(|p| p.subtract(*above)).collect();
        }
        out.extend(parts);
    }
    out
}

#[cfg(test)]
mod occlusion_tests {
    use super::*;

    #[test]
    fn a_hidden_window_shows_only_where_nothing_lies_above_it() {
        let stacking = [
            (Rect::new(0, 0, 50, 50), false),
            (Rect::new(25, 0, 50, 50), true),
            (Rect::new(0, 0, 200, 200), false),
        ];
        let parts = visible_parts_of_hidden(&stacking);
        assert_eq!(parts, vec![Rect::new(50, 0, 25, 50)]);
        assert_eq!(
            covering(
                Rect::new(0, 0, 100, 100),
                [Rect::new(90, 90, 50, 50), Rect::new(300, 0, 5, 5)]
            ),
            vec![Rect::new(90, 90, 10, 10)]
        );
    }
}
