//! The screen an Anthropic model sees: exactly the display size its tool
//! definition declared. The bound window's frame is scaled down (never up)
//! to fit that size keeping its aspect ratio — the host does the scaling
//! (`ObserveRequest::fit`), so the frame's image IS the placed picture —
//! and placed at the top-left; the rest is black and not clickable. A
//! display pixel inside the placed picture is the same pixel of the frame's
//! image, so coordinates map back exactly, with no rounding of our own.

use glovebox_model::{CaptureLimits, Point, Rect, Refusal, Size};
use glovebox_platform::image::RgbImage;

/// Largest declared display edge accepted (X11 coordinates are 16-bit).
pub const MAX_DISPLAY_EDGE: u32 = glovebox_model::frame::MAX_IMAGE_EDGE;

/// Where the frame's image sits inside the declared display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub display: Size,
    /// The frame's image size, placed at (0, 0); never larger than `display`.
    pub image: Size,
}

/// The limits that make the host fit a frame into `display`.
pub fn limits(display: Size) -> Result<CaptureLimits, Refusal> {
    CaptureLimits::new(display.width, display.height).map_err(|_| {
        Refusal::invalid_argument(format!(
            "display_width_px × display_height_px = {}×{} is outside 1..={MAX_DISPLAY_EDGE} per edge",
            display.width, display.height
        ))
    })
}

impl Placement {
    pub fn new(display: Size, image: Size) -> Result<Placement, Refusal> {
        if image.width > display.width || image.height > display.height {
            return Err(Refusal::backend_unavailable(format!(
                "the {}×{} frame does not fit the declared {}×{} display",
                image.width, image.height, display.width, display.height
            )));
        }
        Ok(Placement { display, image })
    }

    /// A display pixel as a point of the frame's image. Outside the display,
    /// or in the black area beside or below the picture, is refused.
    pub fn to_image(&self, x: i64, y: i64) -> Result<Point, Refusal> {
        let out = |why: String| glovebox_host::refusals::point_off(x, y, &why);
        if x < 0 || y < 0 {
            return Err(Refusal::invalid_argument(format!(
                "coordinates ({x}, {y}) must be display pixels (0 or more)"
            )));
        }
        if x >= self.display.width as i64 || y >= self.display.height as i64 {
            return Err(out(format!(
                "is outside the {}×{} display",
                self.display.width, self.display.height
            )));
        }
        if x >= self.image.width as i64 || y >= self.image.height as i64 {
            return Err(out(format!(
                "lies in the black area outside the window's {}×{} picture at the top-left of the display; nothing is there",
                self.image.width, self.image.height
            )));
        }
        Ok(Point { x: x as i32, y: y as i32 })
    }

    /// A display rectangle `[x0, y0, x1, y1]` (exclusive right and bottom)
    /// as a rectangle of the frame's image; it must lie inside the picture.
    pub fn region(&self, r: [i64; 4]) -> Result<Rect, Refusal> {
        let [x0, y0, x1, y1] = r;
        if x1 <= x0 || y1 <= y0 {
            return Err(Refusal::invalid_argument(format!(
                "region {r:?} is empty: it needs x0 < x1 and y0 < y1"
            )));
        }
        let a = self.to_image(x0, y0)?;
        self.to_image(x1 - 1, y1 - 1)?;
        Ok(Rect::new(a.x, a.y, (x1 - x0) as u32, (y1 - y0) as u32))
    }

    /// Re-encodes the frame's PNG onto a black canvas of the display's size.
    pub fn pad_png(&self, png_bytes: &[u8]) -> Result<Vec<u8>, Refusal> {
        let broken = |e: String| {
            Refusal::backend_unavailable(format!(
                "the screenshot could not be placed on the display: {e}"
            ))
        };
        let picture = RgbImage::decode_png(png_bytes).map_err(|e| broken(e.message))?;
        if picture.size() != self.image {
            return Err(broken(format!(
                "the PNG is {}×{}, the frame says {}×{}",
                picture.width, picture.height, self.image.width, self.image.height
            )));
        }
        let mut canvas = RgbImage::black(self.display);
        canvas.blit(&picture, 0, 0);
        canvas.encode_png().map_err(|e| broken(e.message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::ErrorCode;

    #[test]
    fn a_1920x1080_window_on_a_1366x768_display_fills_it_and_maps_per_axis() {
        // The host fits the window with the display as its limits.
        let image = limits(Size::new(1366, 768)).unwrap().fit(Size::new(1920, 1080));
        // 1366×768 is a hair wider than 16:9, so the picture is 1365 wide and column 1365 is black.
        assert_eq!(image, Size::new(1365, 768));
        let p = Placement::new(Size::new(1366, 768), image).unwrap();
        assert_eq!(p.to_image(683, 384).unwrap(), Point { x: 683, y: 384 });
        assert_eq!(p.to_image(1364, 767).unwrap(), Point { x: 1364, y: 767 });
        for (x, y) in [(1365, 0), (1366, 0), (0, 768)] {
            assert_eq!(p.to_image(x, y).unwrap_err().code, ErrorCode::CoordinateOutOfBounds);
        }
        assert_eq!(p.to_image(-1, 0).unwrap_err().code, ErrorCode::InvalidArgument);
        // The host's per-axis mapping of that image pixel lands inside the native pixels it covers.
        let frame = glovebox_model::Frame {
            id: glovebox_model::FrameId(1),
            subject: glovebox_model::FrameSubject::Window {
                window: glovebox_model::WindowId { pid: 1, handle: 2 },
                geometry: Rect::new(0, 0, 1920, 1080),
            },
            image,
            scale: 1365.0 / 1920.0,
            captured_at_ms: 0,
            occluded: vec![],
        };
        for (x, y) in [(0, 0), (683, 384), (1364, 767), (100, 700)] {
            let g = frame.image_to_global(Point { x, y }).unwrap();
            let (x0, x1) = (x as f64 * 1920.0 / 1365.0, (x + 1) as f64 * 1920.0 / 1365.0);
            let (y0, y1) = (y as f64 * 1080.0 / 768.0, (y + 1) as f64 * 1080.0 / 768.0);
            assert!(
                (x0.floor()..x1.ceil()).contains(&(g.x as f64))
                    && (y0.floor()..y1.ceil()).contains(&(g.y as f64)),
                "({x}, {y}) → {g:?}"
            );
        }
    }

    #[test]
    fn a_tall_window_leaves_black_padding_on_the_right() {
        let image = limits(Size::new(1024, 768)).unwrap().fit(Size::new(600, 1200));
        assert_eq!(image, Size::new(384, 768));
        let p = Placement::new(Size::new(1024, 768), image).unwrap();
        assert_eq!(p.to_image(383, 767).unwrap(), Point { x: 383, y: 767 });
        let e = p.to_image(384, 10).unwrap_err();
        assert_eq!(e.code, ErrorCode::CoordinateOutOfBounds);
        assert!(e.message.contains("black area"), "{}", e.message);
        // Never up: a small window stays at its own size.
        assert_eq!(
            limits(Size::new(1024, 768)).unwrap().fit(Size::new(480, 640)),
            Size::new(480, 640)
        );
        assert!(Placement::new(Size::new(100, 100), Size::new(101, 50)).is_err());
        assert_eq!(limits(Size::new(0, 768)).unwrap_err().code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn regions_must_lie_inside_the_picture() {
        let p = Placement::new(Size::new(100, 100), Size::new(50, 100)).unwrap();
        assert_eq!(p.region([10, 20, 30, 60]).unwrap(), Rect::new(10, 20, 20, 40));
        assert_eq!(p.region([10, 20, 51, 60]).unwrap_err().code, ErrorCode::CoordinateOutOfBounds);
        assert_eq!(p.region([10, 20, 10, 60]).unwrap_err().code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn padding_keeps_the_picture_top_left_and_blackens_the_rest() {
        let picture = RgbImage { width: 2, height: 1, data: vec![255, 0, 0, 0, 255, 0] }
            .encode_png()
            .unwrap();
        let p = Placement::new(Size::new(3, 2), Size::new(2, 1)).unwrap();
        let padded = RgbImage::decode_png(&p.pad_png(&picture).unwrap()).unwrap();
        assert_eq!(padded.size(), Size::new(3, 2));
        assert_eq!(padded.data, vec![255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(
            Placement::new(Size::new(3, 2), Size::new(1, 1)).unwrap().pad_png(&picture).is_err(),
            "a PNG of another size is refused"
        );
    }
}
