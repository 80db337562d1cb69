//! The seam of elements seen in pixels: a reader takes a window's own
//! pixels and answers the text runs and controls it finds, in the image's
//! coordinates. The host decides when to ask (a tree missing or thin, a
//! grant that may look at pixels) and mints the ids.

use crate::error::BackendError;
use crate::image::RgbImage;
use glovebox_model::{Rect, SeenKind, WindowId};

/// One thing found in the pixels, before the host gives it an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenItem {
    /// What the pixels show it to be.
    pub kind: SeenKind,
    /// The text read (a control's label; empty when none was read).
    pub text: String,
    /// In the image's pixels (the window's client area at full resolution).
    pub bounds: Rect,
}

/// One read of one window's pixels.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeenRead {
    /// In reading order: top to bottom, then left to right.
    pub items: Vec<SeenItem>,
    /// Rows of pixels read again this time; the rest was unchanged since
    /// the window's last read and its words were reused.
    pub rows_read: u32,
    /// Where the picture changed since the window's last read (image
    /// pixels); `None` on a first read or when nothing changed.
    pub changed: Option<Rect>,
}

/// Reads elements from pixels.
pub trait SeenReader: Send + Sync {
    /// What `image`, `window`'s own pixels, shows. An image with nothing
    /// readable answers an empty read, never an error.
    fn read(&self, window: WindowId, image: &RgbImage) -> Result<SeenRead, BackendError>;

    /// Drops what was read of `window`: its next look reads every row.
    fn forget(&self, window: WindowId);

    /// Whether reading works here; `Err` says what is missing and how to get it.
    fn ready(&self) -> Result<String, String>;
}
