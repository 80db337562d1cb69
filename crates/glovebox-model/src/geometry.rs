//! Integer geometry in one coordinate space at a time (X11 root coordinates,
//! or the pixel space of a frame's image); the type says nothing of which,
//! the field holding it does.

use serde::{Deserialize, Serialize};

/// A point in pixels; the field holding it says in which space (root
/// coordinates, a window's client area, a frame's image).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
// Tool schemas embed this (a target point), and models read them in every
// turn: `#[schemars(description = "")]` keeps the field rustdoc out.
pub struct Point {
    /// Pixels right of the origin.
    #[schemars(description = "")]
    pub x: i32,
    /// Pixels down from the origin.
    #[schemars(description = "")]
    pub y: i32,
}

/// A width and a height, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Size {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
}

impl Size {
    /// A size of `width` × `height` pixels.
    pub const fn new(width: u32, height: u32) -> Self {
        Size { width, height }
    }

    /// Pixels covered, widened to `u64` so no size overflows.
    pub const fn area(self) -> u64 {
        self.width as u64 * self.height as u64
    }
}

/// An axis-aligned rectangle; `x`/`y` is the top-left corner, the right and
/// bottom edges are exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
// Tool schemas embed this (a zoom region), and models read them in every
// turn: `#[schemars(description = "")]` keeps the field rustdoc out.
pub struct Rect {
    /// Left edge, in pixels from the origin.
    #[schemars(description = "")]
    pub x: i32,
    /// Top edge, in pixels from the origin.
    #[schemars(description = "")]
    pub y: i32,
    /// Pixels across; the right edge `x + width` lies outside.
    #[schemars(description = "")]
    pub width: u32,
    /// Pixels down; the bottom edge `y + height` lies outside.
    #[schemars(description = "")]
    pub height: u32,
}

impl Rect {
    /// The rectangle with its top-left corner at (`x`, `y`) and the given size.
    pub const fn new(x: i32, y: i32, width: u32, height: u32) -> Self {
        Rect { x, y, width, height }
    }

    /// Its width and height.
    pub const fn size(self) -> Size {
        Size { width: self.width, height: self.height }
    }

    /// The exclusive right edge, `x + width`, widened to `i64` so it cannot overflow.
    pub const fn right(self) -> i64 {
        self.x as i64 + self.width as i64
    }

    /// The exclusive bottom edge, `y + height`, widened to `i64` so it cannot overflow.
    pub const fn bottom(self) -> i64 {
        self.y as i64 + self.height as i64
    }

    /// Whether it covers no pixel (zero width or height).
    pub const fn is_empty(self) -> bool {
        self.width == 0 || self.height == 0
    }

    /// Whether `p` lies inside; the right and bottom edges are outside.
    pub fn contains(self, p: Point) -> bool {
        let (px, py) = (p.x as i64, p.y as i64);
        px >= self.x as i64 && py >= self.y as i64 && px < self.right() && py < self.bottom()
    }

    /// The overlapping part of both rectangles, `None` when they do not overlap.
    pub fn intersection(self, other: Rect) -> Option<Rect> {
        let x0 = (self.x as i64).max(other.x as i64);
        let y0 = (self.y as i64).max(other.y as i64);
        let x1 = self.right().min(other.right());
        let y1 = self.bottom().min(other.bottom());
        (x1 > x0 && y1 > y0)
            .then(|| Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32))
    }

    /// The parts of `self` outside `other`: up to four disjoint rectangles
    /// (bands above and below, then the sides of the overlap's rows).
    pub fn subtract(self, other: Rect) -> Vec<Rect> {
        let Some(cut) = self.intersection(other) else { return vec![self] };
        let mut parts = vec![];
        let (top, bottom) = (cut.y as i64, cut.bottom());
        if top > self.y as i64 {
            parts.push(Rect::new(self.x, self.y, self.width, (top - self.y as i64) as u32));
        }
        if bottom < self.bottom() {
            parts.push(Rect::new(
                self.x,
                bottom as i32,
                self.width,
                (self.bottom() - bottom) as u32,
            ));
        }
        if cut.x as i64 > self.x as i64 {
            parts.push(Rect::new(self.x, cut.y, (cut.x as i64 - self.x as i64) as u32, cut.height));
        }
        if cut.right() < self.right() {
            parts.push(Rect::new(
                cut.right() as i32,
                cut.y,
                (self.right() - cut.right()) as u32,
                cut.height,
            ));
        }
        parts
    }

    /// The smallest rectangle holding both.
    pub fn union(self, other: Rect) -> Rect {
        let x0 = (self.x as i64).min(other.x as i64);
        let y0 = (self.y as i64).min(other.y as i64);
        let x1 = self.right().max(other.right());
        let y1 = self.bottom().max(other.bottom());
        Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtracting_leaves_the_disjoint_parts_outside_the_other_rectangle() {
        let r = Rect::new(0, 0, 100, 100);
        assert_eq!(r.subtract(Rect::new(200, 200, 10, 10)), vec![r]);
        assert!(r.subtract(Rect::new(-10, -10, 200, 200)).is_empty());
        let parts = r.subtract(Rect::new(40, 40, 20, 20));
        assert_eq!(
            parts.iter().map(|p| p.width as u64 * p.height as u64).sum::<u64>(),
            100 * 100 - 20 * 20
        );
        for (i, a) in parts.iter().enumerate() {
            assert!(a.intersection(Rect::new(40, 40, 20, 20)).is_none());
            assert!(parts[i + 1..].iter().all(|b| a.intersection(*b).is_none()), "disjoint");
        }
    }

    #[test]
    fn right_and_bottom_edges_are_exclusive() {
        let r = Rect::new(10, 20, 5, 5);
        assert!(r.contains(Point { x: 10, y: 20 }));
        assert!(r.contains(Point { x: 14, y: 24 }));
        assert!(!r.contains(Point { x: 15, y: 24 }));
        assert!(!r.contains(Point { x: 14, y: 25 }));
        assert!(!r.contains(Point { x: 9, y: 20 }));
    }

    #[test]
    fn intersection_and_union() {
        let a = Rect::new(0, 0, 100, 100);
        let b = Rect::new(50, -10, 100, 30);
        assert_eq!(a.intersection(b), Some(Rect::new(50, 0, 50, 20)));
        assert_eq!(a.union(b), Rect::new(0, -10, 150, 110));
        assert_eq!(a.intersection(Rect::new(100, 0, 5, 5)), None);
    }
}
