//! A fake desktop for tests of pure logic (policy, loop, surfaces): windows
//! are solid rectangles painted in stacking order on a black screen.
//! Backend behaviour is tested against the real X11 backend, not this.

use crate::compose::{desktop_capture, window_capture, window_capture_rect};
use crate::{Capture, RgbImage, ScreenCapture, WindowSource};
use glovebox_model::{CaptureLimits, DisplaySelection, Monitor, Rect, Refusal, WindowInfo, WindowRef};
use std::sync::Mutex;

#[derive(Debug, Clone)]
pub struct FakeWindow {
    pub info: WindowInfo,
    pub colour: [u8; 3],
}

/// Windows frontmost first, monitors, and the screen they sit on.
#[derive(Debug)]
pub struct FakeDesktop {
    pub screen: Rect,
    pub monitors: Mutex<Vec<Monitor>>,
    pub windows: Mutex<Vec<FakeWindow>>,
}

impl FakeDesktop {
    pub fn new(screen: Rect, monitors: Vec<Monitor>, windows: Vec<FakeWindow>) -> Self {
        FakeDesktop { screen, monitors: Mutex::new(monitors), windows: Mutex::new(windows) }
    }

    fn render(&self, rect: Rect) -> RgbImage {
        let mut image = RgbImage::black(rect.size());
        for w in self.windows.lock().unwrap().iter().rev().filter(|w| !w.info.minimized) {
            let g = w.info.geometry;
            image.fill(Rect::new(g.x - rect.x, g.y - rect.y, g.width, g.height), w.colour);
        }
        image
    }
}

impl WindowSource for FakeDesktop {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, Refusal> {
        Ok(self.windows.lock().unwrap().iter().map(|w| w.info.clone()).collect())
    }
}

impl ScreenCapture for FakeDesktop {
    fn monitors(&self) -> Result<Vec<Monitor>, Refusal> {
        Ok(self.monitors.lock().unwrap().clone())
    }

    fn capture_window(&self, window: &WindowRef, limits: CaptureLimits) -> Result<Capture, Refusal> {
        let info = self.find_window(window)?;
        let rect = window_capture_rect(&info, self.screen)?;
        Ok(window_capture(&info, rect, self.render(rect), limits))
    }

    fn capture_desktop(&self, selection: &DisplaySelection, limits: CaptureLimits) -> Result<Capture, Refusal> {
        let monitors = self.monitors()?;
        desktop_capture(&monitors, selection, limits, |rect| Ok(self.render(rect)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::{ErrorCode, FrameSubject, PidSource, Point, WindowId};

    fn desktop() -> FakeDesktop {
        let window = |xid, geometry, colour, minimized| FakeWindow {
            info: WindowInfo {
                id: WindowId { pid: 7, xid },
                app: "Fake".into(),
                instance: "fake".into(),
                title: format!("w{xid}"),
                pid_source: PidSource::Server,
                geometry,
                focused: false,
                minimized,
            },
            colour,
        };
        FakeDesktop::new(
            Rect::new(0, 0, 300, 200),
            vec![
                Monitor { name: "A".into(), logical: Rect::new(0, 0, 100, 200), primary: true },
                Monitor { name: "B".into(), logical: Rect::new(200, 0, 100, 100), primary: false },
            ],
            vec![
                window(1, Rect::new(10, 10, 50, 50), [255, 0, 0], false),
                window(2, Rect::new(0, 0, 300, 200), [0, 0, 255], false),
                window(3, Rect::new(0, 0, 10, 10), [0, 255, 0], true),
            ],
        )
    }

    #[test]
    fn window_capture_crops_to_the_window_and_sees_what_is_on_top() {
        let d = desktop();
        let capture = d.capture_window(&"7/0x2".parse().unwrap(), CaptureLimits::default()).unwrap();
        assert_eq!(capture.image.size(), glovebox_model::Size::new(300, 200));
        assert_eq!(capture.image.pixel(20, 20), [255, 0, 0]);
        assert_eq!(capture.image.pixel(100, 100), [0, 0, 255]);
        let minimised = d.capture_window(&"7/0x3".parse().unwrap(), CaptureLimits::default()).unwrap_err();
        assert_eq!(minimised.code, ErrorCode::BackgroundUnavailable);
        let unknown = d.capture_window(&"7/0x9".parse().unwrap(), CaptureLimits::default()).unwrap_err();
        assert_eq!(unknown.code, ErrorCode::TargetGone);
    }

    #[test]
    fn desktop_composite_blackens_gaps_and_maps_points_back() {
        let d = desktop();
        let capture = d.capture_desktop(&DisplaySelection::All, CaptureLimits::new(150, 150).unwrap()).unwrap();
        assert_eq!(capture.image.size(), glovebox_model::Size::new(150, 100));
        // The blue window covers the gap at (150, 150) natively; the composite is black there.
        assert_eq!(capture.image.pixel(75, 75), [0, 0, 0]);
        assert_eq!(capture.image.pixel(120, 75), [0, 0, 0]);
        assert_eq!(capture.image.pixel(120, 25), [0, 0, 255]);
        assert_eq!(capture.image.pixel(15, 15), [255, 0, 0]);
        let FrameSubject::Desktop { displays, .. } = &capture.frame.subject else { panic!("desktop frame") };
        assert_eq!(displays[1].pixel, Rect::new(100, 0, 50, 50));
        assert_eq!(capture.frame.image_to_global(Point { x: 120, y: 25 }).unwrap(), Point { x: 241, y: 51 });
        assert_eq!(capture.frame.image_to_global(Point { x: 120, y: 75 }).unwrap_err().code, ErrorCode::CoordinateOutOfBounds);
    }
}
