//! Which pixels of a redirected window the window has drawn itself since
//! glovebox redirected it. A window's new off-screen pixmap starts as a copy
//! of what the screen showed there — the windows covering it included —
//! until the application repaints (measured: a background-less window's
//! fresh pixmap held the covering xterm's pixels). Only pixels drawn since,
//! as the DAMAGE extension reports them, are ever shown.

use glovebox_model::Rect;

/// One bit per pixel of a window's interior, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Painted {
    width: u32,
    height: u32,
    words_per_row: usize,
    bits: Vec<u64>,
}

impl Painted {
    /// Nothing painted yet, in a window of `width`×`height`.
    pub(crate) fn new(width: u32, height: u32) -> Painted {
        let words_per_row = (width as usize).div_ceil(64);
        Painted { width, height, words_per_row, bits: vec![0; words_per_row * height as usize] }
    }

    pub(crate) fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The same window at a new size: what was painted and is still inside
    /// stays painted (the server copies it into the new pixmap), the rest
    /// is not.
    pub(crate) fn resized(&self, width: u32, height: u32) -> Painted {
        let mut out = Painted::new(width, height);
        for y in 0..height.min(self.height) {
            for x in 0..width.min(self.width) {
                if self.is_painted(x, y) {
                    out.set(x, y);
                }
            }
        }
        out
    }

    fn set(&mut self, x: u32, y: u32) {
        let i = y as usize * self.words_per_row + x as usize / 64;
        self.bits[i] |= 1 << (x % 64);
    }

    /// Marks `area` (window coordinates, clipped to the window) as drawn.
    pub(crate) fn add(&mut self, area: Rect) {
        let Some(r) = area.intersection(Rect::new(0, 0, self.width, self.height)) else { return };
        let (x0, x1) = (r.x as u32, r.x as u32 + r.width);
        for y in r.y as u32..r.y as u32 + r.height {
            let row = y as usize * self.words_per_row;
            let mut x = x0;
            while x < x1 {
                let (word, bit) = (x as usize / 64, x % 64);
                let span = (64 - bit).min(x1 - x);
                let mask = if span == 64 { !0 } else { ((1u64 << span) - 1) << bit };
                self.bits[row + word] |= mask;
                x += span;
            }
        }
    }

    /// Whether the window drew (`x`, `y`); outside it, no.
    pub(crate) fn is_painted(&self, x: u32, y: u32) -> bool {
        x < self.width
            && y < self.height
            && self.bits[y as usize * self.words_per_row + x as usize / 64] & (1 << (x % 64)) != 0
    }

    /// Every pixel of the window drawn.
    pub(crate) fn is_complete(&self) -> bool {
        (0..self.height).all(|y| {
            let row = &self.bits[y as usize * self.words_per_row..][..self.words_per_row];
            row.iter().enumerate().all(|(i, &w)| {
                let left = self.width as usize - i * 64;
                w == if left >= 64 { !0 } else { (1u64 << left) - 1 }
            })
        })
    }

    /// The smallest rectangle holding every pixel of `area` (window
    /// coordinates) the window did not draw, or `None` when it drew them all.
    pub(crate) fn unpainted_within(&self, area: Rect) -> Option<Rect> {
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for y in area.y..area.y + area.height as i32 {
            for x in area.x..area.x + area.width as i32 {
                let drawn = x >= 0 && y >= 0 && self.is_painted(x as u32, y as u32);
                if !drawn {
                    (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                }
            }
        }
        (x0 <= x1).then(|| Rect::new(x0, y0, (x1 - x0 + 1) as u32, (y1 - y0 + 1) as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_spans_across_words_and_finds_what_was_left() {
        let mut p = Painted::new(130, 4);
        assert_eq!(p.unpainted_within(Rect::new(0, 0, 130, 4)), Some(Rect::new(0, 0, 130, 4)));
        p.add(Rect::new(60, 1, 10, 2));
        assert!(p.is_painted(60, 1) && p.is_painted(69, 2) && p.is_painted(63, 1));
        assert!(!p.is_painted(70, 1) && !p.is_painted(59, 1) && !p.is_painted(60, 0));
        assert_eq!(p.unpainted_within(Rect::new(60, 1, 10, 2)), None);
        assert_eq!(p.unpainted_within(Rect::new(60, 1, 11, 2)), Some(Rect::new(70, 1, 1, 2)));
        assert!(!p.is_complete());
        // Clipped to the window: nothing panics, everything ends up drawn.
        p.add(Rect::new(-5, -5, 500, 500));
        assert!(p.is_complete());
        assert_eq!(p.unpainted_within(Rect::new(0, 0, 130, 4)), None);
        // Outside the window nothing was drawn.
        assert_eq!(p.unpainted_within(Rect::new(129, 3, 2, 1)), Some(Rect::new(130, 3, 1, 1)));
    }

    #[test]
    fn a_resize_keeps_what_stays_inside_and_leaves_the_new_area_unpainted() {
        let mut p = Painted::new(64, 2);
        p.add(Rect::new(0, 0, 64, 2));
        assert!(p.is_complete());
        let grown = p.resized(100, 3);
        assert!(!grown.is_complete());
        assert_eq!(grown.unpainted_within(Rect::new(0, 0, 64, 2)), None);
        assert_eq!(grown.unpainted_within(Rect::new(0, 0, 100, 3)), Some(Rect::new(0, 0, 100, 3)));
        assert_eq!(grown.unpainted_within(Rect::new(0, 0, 100, 2)), Some(Rect::new(64, 0, 36, 2)));
        assert!(p.resized(10, 1).is_complete());
    }
}
