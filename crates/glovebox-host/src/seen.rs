//! Elements seen in the pixels, as the host adds them to an observation:
//! only where the tree is missing or thin, or inside a hole of a whole one
//! ([`holes`]), only when the grant may look at pixels (what is read from
//! them is pixels in other words), after the
//! denials and secure input were checked for the read itself. The host
//! mints their ids ([`ElementId::seen`], never a tree's) and keeps an
//! unchanged element's id from one look to the next.

use glovebox_model::{
    AccessibilityTree, ElementId, ElementState, Fidelity, Rect, Role, SeenElement, SeenKind,
    WindowId,
};
use glovebox_platform::{Capture, SeenItem, SeenReader};
use std::collections::HashMap;

/// The ids handed to seen elements, per window: the same kind, text and
/// place keeps its id across looks.
#[derive(Debug, Default)]
pub(crate) struct SeenIds {
    /// How many seen ids were handed out ([`ElementId::seen`] mints them).
    minted: u32,
    last: HashMap<WindowId, Vec<(SeenKind, String, Rect, ElementId)>>,
}

impl SeenIds {
    fn id_for(&mut self, window: WindowId, kind: SeenKind, text: &str, bounds: Rect) -> ElementId {
        let known = self.last.get(&window).and_then(|l| {
            l.iter().find(|(k, t, b, _)| *k == kind && t == text && *b == bounds).map(|e| e.3)
        });
        known.unwrap_or_else(|| {
            // Past the seen ids' end the numbering starts again; a frame holds at most MAX_SEEN.
            let id = ElementId::seen(self.minted);
            self.minted = self.minted.wrapping_add(1);
            id
        })
    }
}

/// Whether an observation of this tree looks in the pixels too: there is
/// no tree, or a thin one — not whole, and nothing in it but containers (a
/// browser's bare frame). A tree a budget cut short, or one with a few
/// objects unreadable, still has its elements, and is not read again from
/// its pixels (that would cost a big window's every look).
pub(crate) fn wanted(tree: &AccessibilityTree) -> bool {
    match &tree.root {
        None => true,
        Some(root) => {
            !matches!(tree.fidelity, Fidelity::Full)
                && tree.truncated.is_none()
                && !root.walk().skip(1).any(|e| e.is_actionable())
        }
    }
}

/// Roles of elements that draw their content themselves: when one of them
/// is large and empty in an otherwise whole tree (Thunar's icon view is a
/// `panel` with no children), what it shows is read from its pixels.
const DRAWN_CONTENT: &[Role] = &[
    Role::Panel,
    Role::Canvas,
    Role::DrawingArea,
    Role::DocumentFrame,
    Role::DocumentWeb,
    Role::Viewport,
    Role::Filler,
    Role::DirectoryPane,
    Role::LayeredPane,
];

/// The share of the window's area an empty element must cover to be read.
const HOLE_SHARE: f64 = 0.10;

/// Where a tree has holes: the large elements it leaves empty (a drawn
/// view with no children, editable text and values aside), in window
/// coordinates; the pixels there hold what the tree does not say.
pub(crate) fn holes(tree: &AccessibilityTree, window: Rect) -> Vec<Rect> {
    let Some(root) = &tree.root else { return vec![] };
    let area = f64::from(window.width) * f64::from(window.height);
    let mut out: Vec<Rect> = vec![];
    for e in root.walk().skip(1) {
        let Some(b) = e.bounds else { continue };
        let empty = e.children.is_empty()
            && !e.has(ElementState::Editable)
            && !e.has_value
            && DRAWN_CONTENT.contains(&e.role);
        let large = f64::from(b.width) * f64::from(b.height) >= HOLE_SHARE * area;
        if empty && large && !out.iter().any(|o| o.intersection(b) == Some(b)) {
            out.push(b);
        }
    }
    out
}

/// Says in the fidelity's reason why nothing was read from the pixels.
pub(crate) fn note_unread(tree: &mut AccessibilityTree, why: &str) {
    let note = format!("; {}: {why}", glovebox_model::PIXELS_UNREAD);
    match &mut tree.fidelity {
        Fidelity::Partial { reason } | Fidelity::None { reason } => reason.push_str(&note),
        Fidelity::Full => {}
    }
}

/// What `reader` sees in `capture` (the window's own pixels), added to
/// `tree` with ids from `ids` (the frame store's); with `only` (window coordinates) given,
/// what lies in those holes of the tree alone. A read that fails adds
/// nothing and says why in the fidelity's reason; a read that finds
/// nothing adds nothing. Answers each seen element's box in the capture's pixels.
pub(crate) fn add_seen(
    reader: &dyn SeenReader,
    ids: &mut SeenIds,
    tree: &mut AccessibilityTree,
    capture: &Capture,
    geometry: Rect,
    only: &[Rect],
) -> HashMap<ElementId, Rect> {
    let read = match reader.read(tree.window, &capture.image) {
        Ok(read) => read,
        Err(e) => {
            note_unread(tree, &e.message);
            return HashMap::new();
        }
    };
    let shown = capture.frame.native_rect();
    let (sx, sy) = (
        capture.image.width as f64 / shown.width.max(1) as f64,
        capture.image.height as f64 / shown.height.max(1) as f64,
    );
    let mut boxes = HashMap::new();
    let mut seen = vec![];
    let mut remembered = vec![];
    let total = read.items.len();
    for SeenItem { kind, text, bounds } in
        read.items.into_iter().take(glovebox_model::seen::MAX_SEEN)
    {
        let global = Rect::new(
            shown.x + (bounds.x as f64 / sx).round() as i32,
            shown.y + (bounds.y as f64 / sy).round() as i32,
            ((bounds.width as f64 / sx).round() as u32).max(1),
            ((bounds.height as f64 / sy).round() as u32).max(1),
        );
        let relative =
            Rect::new(global.x - geometry.x, global.y - geometry.y, global.width, global.height);
        let centre = glovebox_model::Point {
            x: relative.x + relative.width as i32 / 2,
            y: relative.y + relative.height as i32 / 2,
        };
        if !only.is_empty() && !only.iter().any(|hole| hole.contains(centre)) {
            continue;
        }
        let id = ids.id_for(tree.window, kind, &text, relative);
        remembered.push((kind, text.clone(), relative, id));
        boxes.insert(id, bounds);
        seen.push(SeenElement { id, kind, text, bounds: relative, screen_bounds: global });
    }
    ids.last.insert(tree.window, remembered);
    tree.seen = seen;
    tree.seen_omitted = total.saturating_sub(glovebox_model::seen::MAX_SEEN);
    boxes
}
