//! Frames as the host keeps them: what each observation was made against,
//! so an action can be checked against exactly that basis.

use glovebox_model::{ElementId, FrameId, Point, Rect, Refusal, Size, WindowId};
use std::collections::HashMap;
use std::time::Instant;

/// What the host remembers of one observation.
#[derive(Debug, Clone)]
pub(crate) struct FrameRecord {
    pub(crate) id: FrameId,
    pub(crate) window: WindowId,
    pub(crate) revision: u64,
    /// The window's client area when the frame was made (root
    /// coordinates): an action is stale once the window measures otherwise.
    pub(crate) geometry: Rect,
    /// The part of the window the image shows (the client area clipped to
    /// the screen): points in the image map through it.
    pub(crate) shown: Rect,
    /// The pixel space coordinates refer to: the screenshot's, or the
    /// window's own pixels when no screenshot was taken.
    pub(crate) image: Size,
    /// Every element of the frame's tree: its role, and the centre of its
    /// visible part in global coordinates when it has one.
    pub(crate) elements: HashMap<ElementId, FrameElement>,
    /// Elements with visible bounds, in tree order (parents before children).
    pub(crate) hit_order: Vec<ElementId>,
    /// The window had no accessibility tree: element ids cannot exist.
    pub(crate) no_tree: bool,
    /// The window's pixels at full resolution: the screenshot, kept for
    /// zoom, or the pixels its seen elements were read from.
    pub(crate) pixels: Option<std::sync::Arc<glovebox_platform::RgbImage>>,
    /// The tree as observed: what the next input's result is compared with.
    pub(crate) tree: std::sync::Arc<glovebox_model::AccessibilityTree>,
    pub(crate) created: Instant,
}

#[derive(Debug, Clone)]
pub(crate) struct FrameElement {
    pub(crate) role: glovebox_model::Role,
    pub(crate) name: String,
    /// The part of the element inside the window, in global coordinates.
    pub(crate) visible: Option<Rect>,
    pub(crate) center: Option<Point>,
    /// For an element seen in the pixels: its box in the frame's kept
    /// pixels, which must be unchanged when an action lands on it.
    pub(crate) seen: Option<Rect>,
}

impl FrameElement {
    /// Records `element` of a window whose client area is `geometry`.
    pub(crate) fn of(element: &glovebox_model::Element, geometry: Rect) -> FrameElement {
        let visible = element.screen_bounds.and_then(|b| b.intersection(geometry));
        let center =
            visible.map(|v| Point { x: v.x + v.width as i32 / 2, y: v.y + v.height as i32 / 2 });
        FrameElement { role: element.role, name: element.name.clone(), visible, center, seen: None }
    }

    /// Records seen `element` of a window whose client area is `geometry`;
    /// `pixels` is its box in the frame's kept pixels.
    pub(crate) fn of_seen(
        element: &glovebox_model::SeenElement,
        geometry: Rect,
        pixels: Rect,
    ) -> FrameElement {
        let visible = element.screen_bounds.intersection(geometry);
        let center =
            visible.map(|v| Point { x: v.x + v.width as i32 / 2, y: v.y + v.height as i32 / 2 });
        FrameElement {
            role: element.kind.role(),
            name: element.text.clone(),
            visible,
            center,
            seen: Some(pixels),
        }
    }
}

impl FrameRecord {
    /// The deepest element of this frame whose visible part holds global
    /// point `at` (the last in tree order: children and later siblings
    /// are drawn over their predecessors).
    pub(crate) fn element_at(&self, at: Point) -> Option<ElementId> {
        self.hit_order.iter().rev().copied().find(|id| {
            self.elements.get(id).and_then(|e| e.visible).is_some_and(|r| r.contains(at))
        })
    }

    /// [`FrameRecord::element_at`] among the application's own elements
    /// (not those seen in the pixels, which no backend can look up).
    pub(crate) fn reported_element_at(&self, at: Point) -> Option<ElementId> {
        self.hit_order.iter().rev().copied().find(|id| {
            self.elements
                .get(id)
                .filter(|e| e.seen.is_none())
                .and_then(|e| e.visible)
                .is_some_and(|r| r.contains(at))
        })
    }

    /// Maps a point in the frame's image to global desktop coordinates.
    /// Outside the image is refused, never clamped.
    pub(crate) fn to_global(&self, p: Point) -> Result<Point, Refusal> {
        let frame = glovebox_model::Frame {
            id: self.id,
            subject: glovebox_model::FrameSubject::Window {
                window: self.window,
                geometry: self.shown,
            },
            image: self.image,
            scale: self.image.width as f64 / self.shown.width.max(1) as f64,
            captured_at_ms: 0,
            occluded: vec![],
        };
        frame.image_to_global(p)
    }
}

/// The newest frame of each window; older ones are gone by construction.
#[derive(Debug, Default)]
pub(crate) struct FrameStore {
    newest: HashMap<WindowId, FrameRecord>,
    /// Seen elements' ids, kept across frames (an unchanged element keeps its id).
    pub(crate) seen_ids: crate::seen::SeenIds,
}

impl FrameStore {
    pub(crate) fn insert(&mut self, frame: FrameRecord) {
        self.newest.insert(frame.window, frame);
    }

    pub(crate) fn get(&self, id: FrameId) -> Option<&FrameRecord> {
        self.newest.values().find(|f| f.id == id)
    }

    /// Ends a frame: ids and coordinates of it are stale from now on.
    pub(crate) fn end(&mut self, id: FrameId) {
        self.newest.retain(|_, f| f.id != id);
    }

    pub(crate) fn clear(&mut self) {
        self.newest.clear();
    }
}
