//! Framed boxes in a window's pixels: the borders (or filled faces) of
//! buttons, fields and check boxes, found as a top and bottom edge of the
//! same extent joined by two sides. Works on flat and 3D-relief borders
//! alike (each side may have its own colour), with rounded corners.

use glovebox_model::Rect;

/// A grey image, one byte a pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grey {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) data: Vec<u8>,
}

impl Grey {
    fn at(&self, x: u32, y: u32) -> i16 {
        self.data[(y * self.width + x) as usize] as i16
    }

    /// Rows `top..bottom`, whole width.
    pub(crate) fn rows(&self, top: u32, bottom: u32) -> Grey {
        let (from, to) = ((top * self.width) as usize, (bottom * self.width) as usize);
        Grey { width: self.width, height: bottom - top, data: self.data[from..to].to_vec() }
    }
}

/// How much brighter or darker an edge is than what it borders.
const EDGE: i16 = 24;
/// How much a line's colour may drift along it.
const ALONG: i16 = 10;
/// Smallest and largest boxes taken for controls.
const MIN_SIDE: u32 = 8;
const MAX_HEIGHT: u32 = 80;
const MAX_WIDTH: u32 = 900;
/// Pixels a rounded corner may take from each end of a side.
const CORNER: u32 = 4;

#[derive(Debug, Clone, Copy)]
struct Segment {
    y: u32,
    x0: u32,
    /// Exclusive.
    x1: u32,
}

/// Which neighbour an edge differs from: a box's first row differs from
/// the row above it, its last from the row below; its left column from the
/// column left of it, its right from the one right of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Facing {
    Before,
    After,
}

/// Runs of one colour that differ from the row above (`Before`) or below.
fn horizontal_segments(grey: &Grey, facing: Facing) -> Vec<Segment> {
    let mut out = vec![];
    for y in 0..grey.height {
        let mut start: Option<u32> = None;
        for x in 0..=grey.width {
            let edge = x < grey.width && {
                let v = grey.at(x, y);
                match facing {
                    Facing::Before => y > 0 && (v - grey.at(x, y - 1)).abs() > EDGE,
                    Facing::After => y + 1 < grey.height && (v - grey.at(x, y + 1)).abs() > EDGE,
                }
            };
            let continues =
                edge && start.is_some_and(|_| (grey.at(x, y) - grey.at(x - 1, y)).abs() <= ALONG);
            match (start, edge, continues) {
                (Some(_), _, true) => {}
                (Some(x0), _, false) => {
                    if x - x0 >= MIN_SIDE {
                        out.push(Segment { y, x0, x1: x });
                    }
                    start = edge.then_some(x);
                }
                (None, true, _) => start = Some(x),
                (None, false, _) => {}
            }
        }
    }
    out
}

/// Whether column `x` runs as one line from `top` to `bottom` (rounded
/// corners aside), differing from a neighbour column.
fn side(grey: &Grey, x: u32, top: u32, bottom: u32, facing: Facing) -> bool {
    let (from, to) =
        (top + CORNER.min((bottom - top) / 4), bottom - CORNER.min((bottom - top) / 4));
    if to <= from {
        return false;
    }
    let good = (from..=to)
        .filter(|&y| {
            let v = grey.at(x, y);
            let edge = match facing {
                Facing::Before => x > 0 && (v - grey.at(x - 1, y)).abs() > EDGE,
                Facing::After => x + 1 < grey.width && (v - grey.at(x + 1, y)).abs() > EDGE,
            };
            let along = y == from || (v - grey.at(x, y - 1)).abs() <= ALONG;
            edge && along
        })
        .count() as u32;
    good * 10 >= (to - from + 1) * 9
}

/// The framed boxes of `grey`, outermost of near-identical ones, in reading order.
pub(crate) fn frames(grey: &Grey) -> Vec<Rect> {
    let tops = horizontal_segments(grey, Facing::Before);
    let bottoms = horizontal_segments(grey, Facing::After);
    let mut found: Vec<Rect> = vec![];
    for top in &tops {
        if top.x1 - top.x0 > MAX_WIDTH {
            continue;
        }
        let first = bottoms.partition_point(|s| s.y < top.y + MIN_SIDE);
        // Every bottom of the same extent whose sides join it: a ring inside a
        // border ends a row early, and the dedup below keeps the outer one.
        let candidates = bottoms[first..]
            .iter()
            .take_while(|s| s.y <= top.y + MAX_HEIGHT)
            .filter(|s| s.x0.abs_diff(top.x0) <= 3 && s.x1.abs_diff(top.x1) <= 3);
        for bottom in candidates {
            let (y0, y1) = (top.y, bottom.y);
            // A rounded corner starts the edge a few pixels in from the side.
            let left = (top.x0.min(bottom.x0).saturating_sub(CORNER)..=top.x0.min(bottom.x0) + 1)
                .find(|&x| side(grey, x, y0, y1, Facing::Before));
            let right_end = (top.x1.max(bottom.x1) - 1 + CORNER).min(grey.width - 1);
            let right = (top.x1.max(bottom.x1).saturating_sub(2)..=right_end)
                .rev()
                .find(|&x| side(grey, x, y0, y1, Facing::After));
            if let (Some(l), Some(r)) = (left, right) {
                if r > l + MIN_SIDE {
                    found.push(Rect::new(l as i32, y0 as i32, r - l + 1, y1 - y0 + 1));
                }
            }
        }
    }
    // Near-identical boxes (a border two pixels thick, a focus ring) are one control.
    found.sort_by_key(|r| std::cmp::Reverse(r.width as u64 * r.height as u64));
    let mut kept: Vec<Rect> = vec![];
    for r in found {
        let same = |k: &Rect| {
            (r.x - k.x).abs() <= 4
                && (r.y - k.y).abs() <= 4
                && (r.x + r.width as i32 - k.x - k.width as i32).abs() <= 4
                && (r.y + r.height as i32 - k.y - k.height as i32).abs() <= 4
        };
        if !kept.iter().any(same) {
            kept.push(r);
        }
    }
    kept.sort_by_key(|r| (r.y, r.x));
    kept
}

/// Paints each frame's border in its face's colour, so Tesseract does not
/// read a field's edge as `[` or a button's as `)`: from each side inward,
/// every pixel unlike the face (a border, a focus ring outside it with a
/// gap between, a 3D relief) up to [`MASK_DEPTH`]; text starts deeper.
pub(crate) fn mask_borders(grey: &mut Grey, frames: &[Rect]) {
    for f in frames {
        let (x0, y0) = (f.x as u32, f.y as u32);
        let (x1, y1) = (x0 + f.width - 1, y0 + f.height - 1);
        let face = face_of(grey, *f);
        let unlike = |v: u8| (v as i16 - face as i16).abs() > ALONG;
        let paint = |grey: &mut Grey, x: u32, y: u32| {
            let i = (y * grey.width + x) as usize;
            if unlike(grey.data[i]) {
                grey.data[i] = face;
            }
        };
        for x in x0..=x1 {
            for d in 0..MASK_DEPTH.min(f.height / 2) {
                paint(grey, x, y0 + d);
                paint(grey, x, y1 - d);
            }
        }
        for y in y0..=y1 {
            for d in 0..MASK_DEPTH.min(f.width / 2) {
                paint(grey, x0 + d, y);
                paint(grey, x1 - d, y);
            }
        }
    }
}

/// How deep a border, with the focus ring around it, may reach into a box.
const MASK_DEPTH: u32 = 4;

/// The commonest shade just inside the box's top edge: its face.
fn face_of(grey: &Grey, f: Rect) -> u8 {
    let y = (f.y as u32 + MASK_DEPTH + 1).min(f.y as u32 + f.height - 1);
    let mut counts = [0u32; 256];
    for x in f.x as u32 + MASK_DEPTH..(f.x as u32 + f.width).saturating_sub(MASK_DEPTH) {
        counts[grey.data[(y * grey.width + x) as usize] as usize] += 1;
    }
    (0..256).max_by_key(|&v| counts[v]).unwrap_or(255) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canvas(width: u32, height: u32) -> Grey {
        Grey { width, height, data: vec![200; (width * height) as usize] }
    }

    fn outline(g: &mut Grey, r: Rect, shade: u8) {
        for x in r.x..r.x + r.width as i32 {
            g.data[(r.y as u32 * g.width + x as u32) as usize] = shade;
            g.data[((r.y as u32 + r.height - 1) * g.width + x as u32) as usize] = shade;
        }
        for y in r.y..r.y + r.height as i32 {
            g.data[(y as u32 * g.width + r.x as u32) as usize] = shade;
            g.data[(y as u32 * g.width + r.x as u32 + r.width - 1) as usize] = shade;
        }
    }

    #[test]
    fn outlined_and_relief_boxes_are_found_once_and_lines_are_not_boxes() {
        let mut g = canvas(300, 120);
        let field = Rect::new(50, 10, 180, 22);
        outline(&mut g, field, 120);
        // A second ring just inside: one control, not two.
        outline(&mut g, Rect::new(51, 11, 178, 20), 160);
        // A 3D button: light top and left, dark bottom and right.
        let button = Rect::new(20, 60, 70, 26);
        outline(&mut g, button, 40);
        for x in 20..90 {
            g.data[(60 * 300 + x) as usize] = 250;
        }
        for x in 0..300 {
            g.data[(100 * 300 + x) as usize] = 0; // a separator line: no box
        }
        let found = frames(&g);
        assert_eq!(found, vec![field, button], "{found:?}");
        let mut masked = g.clone();
        mask_borders(&mut masked, &found);
        assert_eq!(masked.at(50, 20), 200, "the field's border takes its face's colour");
    }

    #[test]
    fn an_empty_picture_has_no_boxes() {
        assert!(frames(&canvas(64, 64)).is_empty());
    }
}
