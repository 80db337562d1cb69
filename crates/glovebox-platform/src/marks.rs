//! Marks on a screenshot: each actionable element's id drawn as a thin box
//! around it and a small label, for vision models that click by id. Labels
//! are placed where they cover no other label when a place exists.

use crate::image::RgbImage;
use glovebox_model::{ElementId, Rect};

/// The boxes' and labels' colour: magenta, rare in interfaces.
pub const MARK_RGB: [u8; 3] = [255, 0, 255];
const TEXT_RGB: [u8; 3] = [255, 255, 255];
/// Glyphs are 3×5 cells drawn at this many pixels per cell.
const CELL: u32 = 2;
const PAD: u32 = 2;

/// One mark as drawn, in the image's pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacedMark {
    /// The element the mark names.
    pub id: ElementId,
    /// The element's box (its outline is drawn on these edges).
    pub rect: Rect,
    /// Where its id label was drawn.
    pub label: Rect,
}

/// Rows of a 3-wide glyph, top to bottom, high bit on the left.
fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b001, 0b001, 0b001],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        'e' => [0b000, 0b111, 0b111, 0b100, 0b111],
        _ => [0; 5],
    }
}

fn label_size(text: &str) -> (u32, u32) {
    let n = text.chars().count() as u32;
    (n * 3 * CELL + n.saturating_sub(1) * CELL + 2 * PAD, 5 * CELL + 2 * PAD)
}

fn overlaps(a: Rect, b: Rect) -> bool {
    a.intersection(b).is_some()
}

fn outline(image: &mut RgbImage, r: Rect) {
    let (w, h) = (r.width.max(1), r.height.max(1));
    image.fill(Rect::new(r.x, r.y, w, 1), MARK_RGB);
    image.fill(Rect::new(r.x, r.y + h as i32 - 1, w, 1), MARK_RGB);
    image.fill(Rect::new(r.x, r.y, 1, h), MARK_RGB);
    image.fill(Rect::new(r.x + w as i32 - 1, r.y, 1, h), MARK_RGB);
}

fn text(image: &mut RgbImage, at: Rect, label: &str) {
    image.fill(at, MARK_RGB);
    let mut x = at.x + PAD as i32;
    for c in label.chars() {
        for (row, bits) in glyph(c).iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) != 0 {
                    let cell = Rect::new(
                        x + (col * CELL) as i32,
                        at.y + PAD as i32 + (row as u32 * CELL) as i32,
                        CELL,
                        CELL,
                    );
                    image.fill(cell, TEXT_RGB);
                }
            }
        }
        x += (4 * CELL) as i32;
    }
}

/// Draws `marks` (element id, box in image pixels) on `image`, in order:
/// each box's outline, then its label above its top-left corner, or inside
/// it, or below it, whichever first stays in the image and covers no label
/// placed before. Boxes outside the image are skipped.
pub fn draw_marks(image: &mut RgbImage, marks: &[(ElementId, Rect)]) -> Vec<PlacedMark> {
    let bounds = Rect::new(0, 0, image.width, image.height);
    let mut placed: Vec<PlacedMark> = vec![];
    for &(id, rect) in marks {
        let Some(rect) = rect.intersection(bounds) else { continue };
        let name = id.to_string();
        let (w, h) = label_size(&name);
        let candidates = [
            Rect::new(rect.x, rect.y - h as i32, w, h),
            Rect::new(rect.x + 1, rect.y + 1, w, h),
            Rect::new(rect.x, rect.y + rect.height as i32, w, h),
            Rect::new(rect.x + rect.width as i32 - w as i32, rect.y - h as i32, w, h),
        ];
        let inside = |c: &Rect| {
            c.x >= 0
                && c.y >= 0
                && c.x + c.width as i32 <= image.width as i32
                && c.y + c.height as i32 <= image.height as i32
        };
        let free = |c: &Rect| placed.iter().all(|p| !overlaps(p.label, *c));
        let label = candidates
            .iter()
            .find(|c| inside(c) && free(c))
            .or_else(|| candidates.iter().find(|c| inside(c)))
            .copied()
            .unwrap_or(Rect::new(
                rect.x.clamp(0, image.width.saturating_sub(w) as i32),
                rect.y.clamp(0, image.height.saturating_sub(h) as i32),
                w,
                h,
            ));
        outline(image, rect);
        placed.push(PlacedMark { id, rect, label });
    }
    // Labels last, so no outline crosses one.
    for p in &placed {
        text(image, p.label, &p.id.to_string());
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::Size;

    #[test]
    fn boxes_outline_their_elements_and_labels_do_not_overlap() {
        let mut image = RgbImage::black(Size { width: 200, height: 120 });
        let marks = [
            (ElementId::tree(1).unwrap(), Rect::new(20, 30, 60, 20)),
            (ElementId::tree(2).unwrap(), Rect::new(30, 32, 60, 20)),
            (ElementId::tree(34).unwrap(), Rect::new(100, 0, 50, 40)),
        ];
        let placed = draw_marks(&mut image, &marks);
        assert_eq!(placed.len(), 3);
        for p in &placed {
            let r = p.rect;
            // Edges in the mark colour (where no label lies over them).
            let on_edge = [
                (r.x, r.y + r.height as i32 / 2),
                (r.x + r.width as i32 - 1, r.y + r.height as i32 - 1),
            ];
            for (x, y) in on_edge {
                if placed.iter().all(|q| !q.label.contains(glovebox_model::Point { x, y })) {
                    assert_eq!(image.pixel(x as u32, y as u32), MARK_RGB, "{p:?} at {x},{y}");
                }
            }
            assert!(p.label.x >= 0 && p.label.y >= 0 && p.label.x + p.label.width as i32 <= 200);
        }
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                assert!(!overlaps(a.label, b.label), "{a:?} / {b:?}");
            }
        }
        // The first label sits above its box; the third (at the image's top) inside it.
        assert_eq!(placed[0].label.y + placed[0].label.height as i32, 30);
        assert_eq!(placed[2].label.y, 1);
        // The label's text is drawn: white cells inside it.
        let l = placed[0].label;
        let white = (l.x..l.x + l.width as i32)
            .flat_map(|x| (l.y..l.y + l.height as i32).map(move |y| (x, y)))
            .filter(|&(x, y)| image.pixel(x as u32, y as u32) == TEXT_RGB)
            .count();
        assert!(white > 10, "{white} white pixels");
    }

    #[test]
    fn a_box_outside_the_image_is_skipped() {
        let mut image = RgbImage::black(Size { width: 50, height: 50 });
        assert!(draw_marks(
            &mut image,
            &[(ElementId::tree(9).unwrap(), Rect::new(80, 80, 10, 10))]
        )
        .is_empty());
    }
}
