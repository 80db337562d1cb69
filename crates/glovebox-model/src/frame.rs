//! Capture frames: what an image shows and how its pixels map back to the
//! desktop. Holds the pure arithmetic of fitting an image inside capture
//! limits and of laying several displays out in one composite image.

use crate::error::{ErrorCode, Refusal};
use crate::geometry::{Point, Rect, Size};
use crate::window::WindowId;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The largest edge accepted for capture limits; X11 coordinates are 16-bit.
pub const MAX_IMAGE_EDGE: u32 = 32_767;
/// The most native pixels one capture may read (a 16K × 16K desktop).
pub const MAX_CAPTURE_PIXELS: u64 = 268_435_456;

/// Identifies one capture. Ids grow within a process.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct FrameId(pub u64);

impl fmt::Display for FrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "f{}", self.0)
    }
}

/// The largest image a capture may return; larger captures are scaled down,
/// keeping their aspect ratio, never up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaptureLimits {
    /// Widest image returned, in pixels (1..=32767; 1920 by default).
    pub max_width: u32,
    /// Tallest image returned, in pixels (1..=32767; 1200 by default).
    pub max_height: u32,
}

impl Default for CaptureLimits {
    fn default() -> Self {
        CaptureLimits { max_width: 1920, max_height: 1200 }
    }
}

impl CaptureLimits {
    /// Checks both limits lie in 1..=32767.
    pub fn new(max_width: u32, max_height: u32) -> Result<Self, Refusal> {
        for (name, value) in [("max width", max_width), ("max height", max_height)] {
            if value == 0 || value > MAX_IMAGE_EDGE {
                return Err(Refusal::invalid_argument(format!(
                    "{name} {value} is outside 1..={MAX_IMAGE_EDGE} pixels"
                )));
            }
        }
        Ok(CaptureLimits { max_width, max_height })
    }

    /// The image size for `native` pixels: unchanged when it fits, otherwise
    /// the largest size within the limits with the same aspect ratio (each
    /// edge at least one pixel).
    pub fn fit(self, native: Size) -> Size {
        if native.width <= self.max_width && native.height <= self.max_height {
            return native;
        }
        // Compare ratios in integers so the result never exceeds a limit by rounding.
        let (w, h) = (native.width as u64, native.height as u64);
        let (mw, mh) = (self.max_width as u64, self.max_height as u64);
        if w * mh >= h * mw {
            Size::new(mw as u32, ((h * mw) / w).max(1) as u32)
        } else {
            Size::new(((w * mh) / h).max(1) as u32, mh as u32)
        }
    }
}

/// Which displays a desktop capture covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DisplaySelection {
    /// Every display, in one composite image.
    All,
    /// A display id as listed in a frame's display metadata (`"0"`, `"1"`, …).
    One(String),
}

impl FromStr for DisplaySelection {
    type Err = Refusal;

    fn from_str(text: &str) -> Result<Self, Refusal> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("all") {
            Ok(DisplaySelection::All)
        } else if !text.is_empty() && text.len() <= 4 && text.bytes().all(|b| b.is_ascii_digit()) {
            Ok(DisplaySelection::One(text.trim_start_matches('0').to_owned()).normalised())
        } else {
            Err(Refusal::invalid_argument(format!(
                "display {text:?} is neither `all` nor a display id such as 0"
            )))
        }
    }
}

impl DisplaySelection {
    fn normalised(self) -> Self {
        match self {
            DisplaySelection::One(id) if id.is_empty() => DisplaySelection::One("0".into()),
            other => other,
        }
    }
}

impl fmt::Display for DisplaySelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisplaySelection::All => f.write_str("all"),
            DisplaySelection::One(id) => f.write_str(id),
        }
    }
}

/// A monitor as the platform reports it, before layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monitor {
    /// The output's name as the display server gives it (`DP-1`, `eDP-1`).
    pub name: String,
    /// Its rectangle on the global desktop, in root coordinates.
    pub logical: Rect,
    /// The display server marks it as the primary monitor.
    pub primary: bool,
}

/// One display inside a desktop frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DisplayInfo {
    /// Stable for an unchanged layout: the position in (y, x, name) order.
    pub id: String,
    /// The monitor's name (`DP-1`); of mirrored monitors, the primary's.
    pub name: String,
    /// It is the primary monitor.
    pub primary: bool,
    /// The display's rectangle on the global desktop.
    pub logical: Rect,
    /// Where the display lies inside the frame's image.
    pub pixel: Rect,
    /// The platform's own display scale (1.0 on X11, which has none).
    pub scale: f64,
}

/// What a frame's image shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FrameSubject {
    /// One window's client area, cropped to its measured geometry.
    Window {
        /// The window captured.
        window: WindowId,
        /// Its client area in root coordinates when the pixels were read.
        geometry: Rect,
    },
    /// A composite of the selected displays; areas between them are black and
    /// not clickable.
    Desktop {
        /// The union of the selected displays, in root coordinates.
        bounds: Rect,
        /// The selected displays, each with where it lies in the image.
        displays: Vec<DisplayInfo>,
    },
}

/// The record of one capture: what it shows and how to map its pixels back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Frame {
    /// This capture's id (`f12`).
    pub id: FrameId,
    /// What the image shows: one window or the displays of the desktop.
    pub subject: FrameSubject,
    /// Size of the returned image.
    pub image: Size,
    /// Image pixels per native pixel (1.0 when not scaled down).
    pub scale: f64,
    /// Milliseconds since the Unix epoch when the pixels were read.
    pub captured_at_ms: u64,
    /// Rectangles (root coordinates) painted black because another window
    /// covered the captured window there, or, in a desktop image, because
    /// a denied window showed there. Their pixels never reach an image.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub occluded: Vec<Rect>,
}

impl Frame {
    /// The native rectangle the image was made from.
    pub fn native_rect(&self) -> Rect {
        match &self.subject {
            FrameSubject::Window { geometry, .. } => *geometry,
            FrameSubject::Desktop { bounds, .. } => *bounds,
        }
    }

    /// Maps a point in the image's pixels to global desktop coordinates.
    /// Points outside the image, or in a gap between displays, are refused,
    /// never clamped.
    pub fn image_to_global(&self, p: Point) -> Result<Point, Refusal> {
        let out = |why: &str| {
            Refusal::new(
                ErrorCode::CoordinateOutOfBounds,
                format!("point ({}, {}) {why}", p.x, p.y),
            )
        };
        let image_rect = Rect::new(0, 0, self.image.width, self.image.height);
        if !image_rect.contains(p) {
            return Err(out(&format!(
                "is outside the {}×{} image",
                self.image.width, self.image.height
            )));
        }
        let native = self.native_rect();
        if let FrameSubject::Desktop { displays, .. } = &self.subject {
            if !displays.iter().any(|d| d.pixel.contains(p)) {
                return Err(out("lies in a gap between displays"));
            }
        }
        // Centre of the image pixel, scaled to native pixels per axis.
        let map = |v: i32, image_len: u32, native_len: u32, origin: i32| {
            let native_offset = ((2 * v as i64 + 1) * native_len as i64) / (2 * image_len as i64);
            (origin as i64 + native_offset) as i32
        };
        Ok(Point {
            x: map(p.x, self.image.width, native.width, native.x),
            y: map(p.y, self.image.height, native.height, native.y),
        })
    }
}

/// A planned desktop capture: which native rectangle to read and where each
/// selected display lands in the image.
#[derive(Debug, Clone, PartialEq)]
pub struct DesktopLayout {
    /// The native rectangle to read: the union of the selected displays, in
    /// root coordinates.
    pub bounds: Rect,
    /// Size of the image the capture returns, within the capture limits.
    pub image: Size,
    /// The selected displays, each with where it lands in the image.
    pub displays: Vec<DisplayInfo>,
}

impl DesktopLayout {
    /// Sorts monitors by (y, x, name), merges mirrors (the same rectangle;
    /// the primary's name wins), refuses overlapping non-mirrored monitors,
    /// selects, and scales the union of the selection into `limits`.
    pub fn plan(
        monitors: &[Monitor],
        selection: &DisplaySelection,
        limits: CaptureLimits,
    ) -> Result<DesktopLayout, Refusal> {
        let mut sorted: Vec<Monitor> =
            monitors.iter().filter(|m| !m.logical.is_empty()).cloned().collect();
        if sorted.is_empty() {
            return Err(Refusal::backend_unavailable("the display server reports no monitors"));
        }
        sorted.sort_by(|a, b| {
            (a.logical.y, a.logical.x, !a.primary, &a.name).cmp(&(
                b.logical.y,
                b.logical.x,
                !b.primary,
                &b.name,
            ))
        });
        sorted.dedup_by(|later, kept| later.logical == kept.logical);
        for (i, a) in sorted.iter().enumerate() {
            if let Some(b) =
                sorted[i + 1..].iter().find(|b| a.logical.intersection(b.logical).is_some())
            {
                return Err(Refusal::backend_unavailable(format!(
                    "monitors {} and {} overlap without mirroring each other; refusing to guess the layout",
                    a.name, b.name
                )));
            }
        }
        let numbered = sorted.into_iter().enumerate().map(|(i, m)| (i.to_string(), m));
        let selected: Vec<(String, Monitor)> = match selection {
            DisplaySelection::All => numbered.collect(),
            DisplaySelection::One(id) => {
                let all: Vec<_> = numbered.collect();
                let count = all.len();
                let one: Vec<_> = all.into_iter().filter(|(i, _)| i == id).collect();
                if one.is_empty() {
                    return Err(Refusal::invalid_argument(format!(
                        "display {id} does not exist: this desktop has displays 0..={}",
                        count - 1
                    )));
                }
                one
            }
        };
        let bounds = selected
            .iter()
            .map(|(_, m)| m.logical)
            .reduce(Rect::union)
            .expect("selection is not empty");
        if bounds.size().area() > MAX_CAPTURE_PIXELS {
            return Err(Refusal::invalid_argument(format!(
                "the selected displays span {}×{} pixels, over the {MAX_CAPTURE_PIXELS}-pixel capture limit; select one display",
                bounds.width, bounds.height
            )));
        }
        let image = limits.fit(bounds.size());
        let to_pixels = |offset: i64, native_len: u32, image_len: u32| {
            ((offset * image_len as i64) / native_len as i64) as i32
        };
        let displays = selected
            .into_iter()
            .map(|(id, m)| {
                let x0 = to_pixels(m.logical.x as i64 - bounds.x as i64, bounds.width, image.width);
                let y0 =
                    to_pixels(m.logical.y as i64 - bounds.y as i64, bounds.height, image.height);
                let x1 = to_pixels(m.logical.right() - bounds.x as i64, bounds.width, image.width);
                let y1 =
                    to_pixels(m.logical.bottom() - bounds.y as i64, bounds.height, image.height);
                DisplayInfo {
                    id,
                    name: m.name,
                    primary: m.primary,
                    logical: m.logical,
                    pixel: Rect::new(x0, y0, (x1 - x0) as u32, (y1 - y0) as u32),
                    scale: 1.0,
                }
            })
            .collect();
        Ok(DesktopLayout { bounds, image, displays })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor(name: &str, x: i32, y: i32, w: u32, h: u32) -> Monitor {
        Monitor { name: name.into(), logical: Rect::new(x, y, w, h), primary: false }
    }

    #[test]
    fn fit_keeps_aspect_ratio_and_never_upscales() {
        let limits = CaptureLimits::default();
        assert_eq!(limits.fit(Size::new(800, 600)), Size::new(800, 600));
        assert_eq!(limits.fit(Size::new(3840, 2160)), Size::new(1920, 1080));
        assert_eq!(limits.fit(Size::new(1920, 2400)), Size::new(960, 1200));
        assert_eq!(
            CaptureLimits::new(100, 100).unwrap().fit(Size::new(10_000, 1)),
            Size::new(100, 1)
        );
        assert_eq!(CaptureLimits::new(1, 1).unwrap().fit(Size::new(3, 2)), Size::new(1, 1));
        for (w, h) in [(1921, 1081), (2560, 1440), (5000, 1000), (1000, 5000), (1921, 1201)] {
            let fitted = limits.fit(Size::new(w, h));
            assert!(fitted.width <= 1920 && fitted.height <= 1200, "{w}x{h} -> {fitted:?}");
            let (ratio, fitted_ratio) =
                (w as f64 / h as f64, fitted.width as f64 / fitted.height as f64);
            assert!((ratio - fitted_ratio).abs() / ratio < 0.01, "{w}x{h} -> {fitted:?}");
        }
    }

    #[test]
    fn limits_of_zero_or_absurd_size_are_refused() {
        for (w, h) in [(0, 100), (100, 0), (40_000, 100), (100, u32::MAX)] {
            assert_eq!(CaptureLimits::new(w, h).unwrap_err().code, ErrorCode::InvalidArgument);
        }
    }

    #[test]
    fn display_selection_parses_all_and_ids() {
        assert_eq!("ALL".parse::<DisplaySelection>().unwrap(), DisplaySelection::All);
        assert_eq!("1".parse::<DisplaySelection>().unwrap(), DisplaySelection::One("1".into()));
        assert_eq!("00".parse::<DisplaySelection>().unwrap(), DisplaySelection::One("0".into()));
        for bad in ["", "-1", "one", "99999", "1.5"] {
            assert_eq!(
                bad.parse::<DisplaySelection>().unwrap_err().code,
                ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn two_monitor_layout_orders_scales_and_leaves_gaps() {
        // Right monitor sits higher, so it sorts first by y.
        let monitors = [monitor("LEFT", 0, 200, 1280, 1024), monitor("RIGHT", 1280, 0, 1280, 800)];
        let layout = DesktopLayout::plan(
            &monitors,
            &DisplaySelection::All,
            CaptureLimits::new(1280, 1280).unwrap(),
        )
        .unwrap();
        assert_eq!(layout.bounds, Rect::new(0, 0, 2560, 1224));
        assert_eq!(layout.image, Size::new(1280, 612));
        assert_eq!(layout.displays[0].name, "RIGHT");
        assert_eq!(layout.displays[0].id, "0");
        assert_eq!(layout.displays[0].pixel, Rect::new(640, 0, 640, 400));
        assert_eq!(layout.displays[1].pixel, Rect::new(0, 100, 640, 512));
        let frame = Frame {
            id: FrameId(1),
            subject: FrameSubject::Desktop {
                bounds: layout.bounds,
                displays: layout.displays.clone(),
            },
            image: layout.image,
            scale: 0.5,
            captured_at_ms: 0,
            occluded: vec![],
        };
        assert_eq!(frame.image_to_global(Point { x: 0, y: 100 }).unwrap(), Point { x: 1, y: 201 });
        assert_eq!(
            frame.image_to_global(Point { x: 1279, y: 399 }).unwrap(),
            Point { x: 2559, y: 799 }
        );
        // Above the left monitor, and below the right one: gaps.
        for gap in [Point { x: 10, y: 50 }, Point { x: 1000, y: 500 }] {
            assert_eq!(
                frame.image_to_global(gap).unwrap_err().code,
                ErrorCode::CoordinateOutOfBounds
            );
        }
        for outside in [Point { x: -1, y: 150 }, Point { x: 1280, y: 150 }, Point { x: 5, y: 612 }]
        {
            assert_eq!(
                frame.image_to_global(outside).unwrap_err().code,
                ErrorCode::CoordinateOutOfBounds
            );
        }
    }

    #[test]
    fn selection_of_one_display_and_unknown_ids() {
        let monitors = [monitor("A", 0, 0, 800, 600), monitor("B", 800, 0, 1024, 768)];
        let one = DesktopLayout::plan(
            &monitors,
            &DisplaySelection::One("1".into()),
            CaptureLimits::default(),
        )
        .unwrap();
        assert_eq!(one.bounds, Rect::new(800, 0, 1024, 768));
        assert_eq!(one.displays.len(), 1);
        assert_eq!(one.displays[0].pixel, Rect::new(0, 0, 1024, 768));
        let err = DesktopLayout::plan(
            &monitors,
            &DisplaySelection::One("2".into()),
            CaptureLimits::default(),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn mirrors_merge_and_overlaps_fail_closed() {
        let mut primary = monitor("P", 0, 0, 800, 600);
        primary.primary = true;
        let mirrored = [monitor("A", 0, 0, 800, 600), primary];
        let layout =
            DesktopLayout::plan(&mirrored, &DisplaySelection::All, CaptureLimits::default())
                .unwrap();
        assert_eq!(layout.displays.len(), 1);
        assert_eq!(layout.displays[0].name, "P");
        let overlapping = [monitor("A", 0, 0, 800, 600), monitor("B", 400, 0, 800, 600)];
        let err =
            DesktopLayout::plan(&overlapping, &DisplaySelection::All, CaptureLimits::default())
                .unwrap_err();
        assert_eq!(err.code, ErrorCode::BackendUnavailable);
        assert_eq!(
            DesktopLayout::plan(&[], &DisplaySelection::All, CaptureLimits::default())
                .unwrap_err()
                .code,
            ErrorCode::BackendUnavailable
        );
    }
}
