//! Frames as the host keeps them: what each observation was made against,
//! so an action can be checked against exactly that basis.

use glovebox_model::{ElementId, FrameId, Point, Rect, Refusal, Size, WindowId};
use std::collections::HashMap;
use std::time::Instant;

/// What the host remembers of one observation.
#[derive(Debug, Clone)]
pub struct FrameRecord {
    pub id: FrameId,
    pub window: WindowId,
    pub revision: u64,
    /// The window's client area when the frame was made.
    pub geometry: Rect,
    /// The pixel space coordinates refer to: the screenshot's, or the
    /// window's own pixels when no screenshot was taken.
    pub image: Size,
    pub elements: HashMap<ElementId, String>,
    pub created: Instant,
}

impl FrameRecord {
    /// Maps a point in the frame's image to global desktop coordinates.
    /// Outside the image is refused, never clamped.
    pub fn to_global(&self, p: Point) -> Result<Point, Refusal> {
        let frame = glovebox_model::Frame {
            id: self.id,
            subject: glovebox_model::FrameSubject::Window { window: self.window, geometry: self.geometry },
            image: self.image,
            scale: self.image.width as f64 / self.geometry.width.max(1) as f64,
            captured_at_ms: 0,
        };
        frame.image_to_global(p)
    }
}

/// The newest frame of each window; older ones are gone by construction.
#[derive(Debug, Default)]
pub struct FrameStore {
    newest: HashMap<WindowId, FrameRecord>,
}

impl FrameStore {
    pub fn insert(&mut self, frame: FrameRecord) {
        self.newest.insert(frame.window, frame);
    }

    pub fn get(&self, id: FrameId) -> Option<&FrameRecord> {
        self.newest.values().find(|f| f.id == id)
    }

    /// Ends a frame: ids and coordinates of it are stale from now on.
    pub fn end(&mut self, id: FrameId) {
        self.newest.retain(|_, f| f.id != id);
    }

    pub fn clear(&mut self) {
        self.newest.clear();
    }
}
