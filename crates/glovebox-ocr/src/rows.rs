//! Where a picture's text lies, as bands of rows with blank rows between
//! them, and how each is read: a band about a line tall is read as uniform
//! text (a terminal's rows, a form's row of label, field and button), a
//! taller one as a page whose layout Tesseract finds. Reading a dense
//! terminal as a page took Tesseract's layout analysis 1.0 s and cut its
//! columns apart (143 of 335 words of `ls -la` read); read as bands of rows
//! it reads 254 in about a quarter of the time, the bands read on several
//! engines at once.

use crate::boxes::Grey;

/// How Tesseract is told to read a band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segmentation {
    /// One block of uniform text: lines, no columns or pictures to find.
    Uniform,
    /// A page: Tesseract finds its blocks, columns and lines itself.
    Page,
}

/// Rows `top..bottom` of a picture, the columns `left..right` its ink
/// spans, and how they are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Band {
    pub(crate) top: u32,
    pub(crate) bottom: u32,
    pub(crate) left: u32,
    pub(crate) right: u32,
    pub(crate) segmentation: Segmentation,
}

/// A step between neighbouring pixels at least this large is ink's edge.
const STEP: u8 = 40;
/// A column with a step in this share of the rows (tenths) is a rule (a
/// pane's edge, a gutter, a scroll bar), not text: it joins no rows.
const RULE_SHARE: u32 = 6;
/// Pictures shorter than this have no rules: a glyph's stem in one line
/// of text would pass for one.
const RULE_SHORTEST: u32 = 48;
/// A blank row this thin joins the bands it separates: a terminal's lines
/// are two rows apart (xterm's `fixed`), so no more.
const JOINED_GAP: u32 = 1;
/// Bands shorter than this are no line of text: the dots of `i`s above
/// their stems (joined to the band below), or a separator line (dropped).
const SHORTEST_TEXT: u32 = 4;
/// How far below such dots their stems may start and still be joined.
const DOT_GAP: u32 = 4;
/// Bands up to half again as tall as the commonest band (a line), and
/// never taller than this, are a line of text, read as uniform; the rest
/// are read as pages.
const UNIFORM_TALLEST: u32 = 40;
/// A line may always be this tall, whatever the other bands are (the
/// short rows an icon's drawing makes).
const SHORTEST_LINE: u32 = 16;

/// The bands of `grey` holding text, top to bottom. Each is read on its
/// own: a terminal's 38 lines read as 38 pictures on two engines took
/// 280 ms, as two blocks of 19 lines as long, and one call per line lets
/// the readers share the work evenly.
pub(crate) fn plan(grey: &Grey) -> Vec<Band> {
    let mut bands = bands(grey);
    let line = line_height(&bands);
    classify(&mut bands, line);
    bands
}

/// The bands of rows `top..bottom` of `grey` (a part that changed), read
/// by the line height of the whole picture: the part alone may be one
/// band, which would pass for a line however tall it is.
pub(crate) fn plan_within(grey: &Grey, top: u32, bottom: u32) -> Vec<Band> {
    if (top, bottom) == (0, grey.height) {
        return plan(grey);
    }
    let line = line_height(&bands(grey));
    let mut bands = bands(&grey.rows(top, bottom));
    classify(&mut bands, line);
    bands
}

/// The commonest band's height: most bands are one line of text.
fn line_height(bands: &[Band]) -> u32 {
    let mut heights: Vec<u32> = bands.iter().map(|b| b.bottom - b.top).collect();
    heights.sort_unstable();
    heights.get(heights.len() / 2).copied().unwrap_or(0)
}

/// Bands much taller than a `line` are read as pages: one holds more than
/// a line of text with something beside it (a caret below a line, a
/// prompt in a gutter), which reading as uniform text runs together.
fn classify(bands: &mut [Band], line: u32) {
    let tallest_line = (line * 3 / 2).clamp(SHORTEST_LINE, UNIFORM_TALLEST);
    for band in bands {
        band.segmentation = if band.bottom - band.top > tallest_line {
            Segmentation::Page
        } else {
            Segmentation::Uniform
        };
    }
}

/// The rows holding ink, as bands (uniform until classified).
fn bands(grey: &Grey) -> Vec<Band> {
    let (w, h) = (grey.width as usize, grey.height);
    if w < 2 || h == 0 {
        return vec![];
    }
    // Columns where a step to the pixel on their left is.
    let steps = |y: u32| {
        let row = &grey.data[y as usize * w..(y as usize + 1) * w];
        row.windows(2).enumerate().filter(|(_, p)| p[0].abs_diff(p[1]) >= STEP).map(|(x, _)| x + 1)
    };
    let mut rule = vec![false; w];
    if h >= RULE_SHORTEST {
        let mut counts = vec![0u32; w];
        (0..h).for_each(|y| steps(y).for_each(|x| counts[x] += 1));
        for (x, count) in counts.iter().enumerate() {
            rule[x] = *count * 10 >= h * RULE_SHARE;
        }
    }
    let mut bands: Vec<Band> = vec![];
    for y in 0..h {
        let mut ink = steps(y).filter(|&x| !rule[x]);
        let Some(first) = ink.next() else { continue };
        let (left, right) = (first as u32 - 1, ink.next_back().unwrap_or(first) as u32 + 1);
        match bands.last_mut() {
            // The rows before are this close, or too few for text (the dots over this line).
            Some(last)
                if y - last.bottom <= JOINED_GAP
                    || (last.bottom - last.top < SHORTEST_TEXT && y - last.bottom <= DOT_GAP) =>
            {
                (last.bottom, last.left, last.right) =
                    (y + 1, last.left.min(left), last.right.max(right));
            }
            _ => bands.push(Band {
                top: y,
                bottom: y + 1,
                left,
                right,
                segmentation: Segmentation::Uniform,
            }),
        }
    }
    bands.retain(|b| b.bottom - b.top >= SHORTEST_TEXT);
    bands
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white picture `width` wide with black marks on the given rows at
    /// the given columns.
    fn picture(width: u32, height: u32, marks: &[(u32, u32, u32)]) -> Grey {
        let mut data = vec![255u8; (width * height) as usize];
        for &(top, bottom, x) in marks {
            for y in top..bottom {
                data[(y * width + x) as usize] = 0;
            }
        }
        Grey { width, height, data }
    }

    fn spans(bands: &[Band]) -> Vec<(u32, u32, u32, u32)> {
        bands.iter().map(|b| (b.top, b.bottom, b.left, b.right)).collect()
    }

    #[test]
    fn lines_of_text_are_uniform_bands_and_blank_rows_part_them() {
        // Three "lines" of 10 rows with 3 blank rows between them.
        let marks = [(2, 12, 5), (15, 25, 9), (28, 38, 30)];
        let bands = plan(&picture(60, 40, &marks));
        assert_eq!(spans(&bands), vec![(2, 12, 4, 7), (15, 25, 8, 11), (28, 38, 29, 32)]);
        assert!(bands.iter().all(|b| b.segmentation == Segmentation::Uniform));
    }

    #[test]
    fn a_small_gap_joins_and_a_separator_line_is_no_text() {
        // An i's dot three rows above its stem; a one-row rule far below.
        let marks = [(2, 4, 5), (7, 14, 5), (30, 31, 20)];
        assert_eq!(spans(&plan(&picture(40, 40, &marks))), vec![(2, 14, 4, 7)]);
        // One blank row joins, two part.
        let marks = [(2, 8, 5), (9, 14, 5), (16, 22, 5)];
        assert_eq!(spans(&plan(&picture(40, 40, &marks))), vec![(2, 14, 4, 7), (16, 22, 4, 7)]);
    }

    #[test]
    fn a_pane_edge_running_down_the_picture_joins_no_rows() {
        // A gutter's edge at x 3 from top to bottom, and two lines beside it.
        let marks = [(0, 100, 3), (10, 20, 40), (60, 70, 50)];
        assert_eq!(
            spans(&plan(&picture(80, 100, &marks))),
            vec![(10, 20, 39, 42), (60, 70, 49, 52)]
        );
    }

    #[test]
    fn a_band_much_taller_than_the_lines_is_read_as_a_page() {
        // Lines of 12 rows, and one of 30 (a line with a caret below it).
        let marks = [(2, 14, 5), (20, 32, 7), (40, 70, 9), (80, 92, 11), (100, 112, 13)];
        let bands = plan(&picture(20, 120, &marks));
        let kinds: Vec<Segmentation> = bands.iter().map(|b| b.segmentation).collect();
        use Segmentation::{Page, Uniform};
        assert_eq!(kinds, vec![Uniform, Uniform, Page, Uniform, Uniform]);
        // The tall band alone, as a part that changed: still measured by the lines.
        let within = plan_within(&picture(20, 120, &marks), 36, 74);
        assert_eq!(within.iter().map(|b| b.segmentation).collect::<Vec<_>>(), vec![Page]);
        assert_eq!((within[0].top, within[0].bottom), (4, 34), "in the part's rows");
    }

    #[test]
    fn a_tall_band_is_read_as_a_page() {
        let bands = plan(&picture(40, 120, &[(10, 80, 20)]));
        assert_eq!(spans(&bands), vec![(10, 80, 19, 22)]);
        assert_eq!(bands[0].segmentation, Segmentation::Page);
        assert!(plan(&picture(1, 10, &[]),).is_empty());
        assert!(plan(&picture(10, 10, &[]),).is_empty());
    }
}
