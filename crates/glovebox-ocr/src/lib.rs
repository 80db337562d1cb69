//! Elements seen in a window's pixels, for windows whose accessibility
//! tree is missing or thin: text read by Tesseract and the framed controls
//! it labels ([`layout`]). The picture is cut into bands of rows
//! ([`rows`]) read at once by one engine per core ([`pool`]); the engine
//! is opened at run time ([`tesseract`], the crate's only unsafe code), and
//! a desktop without Tesseract runs glovebox as before and says what is
//! missing.
//!
//! A look at a window reuses what the last look read: only the rows whose
//! pixels changed, widened to the words they touch, are read again.
#![deny(missing_docs, unreachable_pub)]

mod boxes;
mod layout;
mod pool;
mod rows;
mod tesseract;
mod tsv;

use boxes::Grey;
use glovebox_model::{Rect, WindowId};
use glovebox_platform::{BackendError, RgbImage, SeenRead, SeenReader};
use rows::Segmentation;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tsv::Word;

/// Longest one read may take before it is given up.
const READ_TIMEOUT: Duration = Duration::from_secs(20);
/// Windows whose last read is kept.
const REMEMBERED: usize = 16;
/// Small windows are read at twice their size: screen fonts of 6–8 pixel
/// letters (xterm's `fixed`) read poorly at their own.
const UPSCALE_BELOW: u64 = 500_000;
/// Rows around a change read with it, so a line is read whole.
const BAND_MARGIN: u32 = 6;

/// What the last read of one window saw.
struct Remembered {
    grey: Grey,
    /// In the window's pixels.
    words: Vec<Word>,
    last_used: u64,
}

/// Tesseract behind [`SeenReader`]; one per process ([`shared_reader`]).
pub struct TesseractReader {
    pool: pool::Pool,
    memory: Mutex<(u64, HashMap<WindowId, Remembered>)>,
}

/// The process's reader (one engine, one worker thread).
pub fn shared_reader() -> Arc<dyn SeenReader> {
    static READER: OnceLock<Arc<TesseractReader>> = OnceLock::new();
    READER.get_or_init(|| Arc::new(TesseractReader::new())).clone()
}

impl Default for TesseractReader {
    fn default() -> Self {
        TesseractReader::new()
    }
}

impl TesseractReader {
    /// A reader whose workers start at its first read.
    pub fn new() -> TesseractReader {
        TesseractReader { pool: pool::Pool::new(), memory: Mutex::new((0, HashMap::new())) }
    }

    /// The words of rows `top..bottom` of `grey`, in its coordinates: the
    /// rows' bands of text ([`rows::plan`]) read at once on the pool;
    /// `small`: a window whose small letters are read magnified.
    fn words(
        &self,
        grey: &Grey,
        top: u32,
        bottom: u32,
        small: bool,
    ) -> Result<Vec<Word>, BackendError> {
        let bands: Vec<rows::Band> = rows::plan_within(grey, top, bottom)
            .into_iter()
            .map(|b| rows::Band {
                left: b.left.saturating_sub(INK_MARGIN),
                right: (b.right + INK_MARGIN).min(grey.width),
                ..b
            })
            .collect();
        let (pictures, preparations): (Vec<_>, Vec<_>) = bands
            .iter()
            .map(|b| {
                let rows = grey.rows(top + b.top, top + b.bottom);
                let band = padded(columns(&rows, b.left, b.right), BAND_PAD, SIDE_PAD);
                let preparation = Preparation::of(&band, b.segmentation, small);
                ((preparation.apply(&band), b.segmentation), preparation)
            })
            .unzip();
        let read = self.pool.read_all(pictures, READ_TIMEOUT)?;
        let mut words: Vec<Word> = vec![];
        for ((band, tsv), preparation) in bands.iter().zip(read).zip(preparations) {
            let scale = preparation.scale();
            let origin = (top + band.top) as i32 - BAND_PAD as i32;
            words.extend(tsv::words(&tsv).into_iter().map(|mut w| {
                let b = w.bounds;
                w.bounds = Rect::new(
                    b.x / scale as i32 + band.left as i32 - SIDE_PAD as i32,
                    b.y / scale as i32 + origin,
                    (b.width / scale).max(1),
                    (b.height / scale).max(1),
                );
                w
            }));
        }
        if bands.len() > 1 {
            // Tesseract numbers lines per read: order them as one page again.
            renumber_lines(&mut words);
        }
        Ok(words)
    }
}

/// Rows of background added above and below a band, and columns either
/// side of its ink: Tesseract reads a line that touches the picture's edge
/// worse than one with room around it. The room is the band's commonest
/// shade, never the window's pixels there: a pane's faint edge beside a
/// line was read as a letter of it (IDLE's gutter, "Idone 42").
const BAND_PAD: u32 = 10;
const SIDE_PAD: u32 = 8;
/// Columns of the window's own pixels kept either side of the ink found
/// (an anti-aliased letter's faint edge is no step of ink).
const INK_MARGIN: u32 = 2;

/// Columns `left..right` of `grey`.
fn columns(grey: &Grey, left: u32, right: u32) -> Grey {
    let (w, width) = (grey.width as usize, (right - left) as usize);
    let data = grey.data.chunks_exact(w).flat_map(|row| &row[left as usize..right as usize]);
    Grey { width: width as u32, height: grey.height, data: data.copied().collect() }
}

/// `band` with `rows` rows of its commonest shade above and below and
/// `sides` columns of it left and right.
fn padded(band: Grey, rows: u32, sides: u32) -> Grey {
    let mut counts = [0u32; 256];
    band.data.iter().for_each(|&v| counts[v as usize] += 1);
    let shade = (0..256).max_by_key(|&v| counts[v]).unwrap_or(255) as u8;
    let width = band.width + 2 * sides;
    let side = vec![shade; sides as usize];
    let mut data = vec![shade; (width * rows) as usize];
    for row in band.data.chunks_exact(band.width.max(1) as usize) {
        data.extend_from_slice(&side);
        data.extend_from_slice(row);
        data.extend_from_slice(&side);
    }
    data.extend(std::iter::repeat_n(shade, (width * rows) as usize));
    Grey { width, height: band.height + 2 * rows, data }
}

/// Shades at least this light are paper: a tinted panel behind text.
const PAPER: u8 = 200;

/// Makes light tints white: Tesseract's one global threshold takes a
/// tinted panel (a toolbar, a coloured box) for ink and loses the text on
/// it (measured: "Pad" on a #ccd box was never read). Dark text and dark
/// themes are left as they are.
fn lighten_tints(grey: &mut Grey) {
    // Only flat stretches (a pixel like its right and lower neighbours): the
    // light edge pixels of anti-aliased letters keep their shade.
    let (w, h) = (grey.width as usize, grey.height as usize);
    let flat: Vec<bool> = (0..w * h)
        .map(|i| {
            let v = grey.data[i];
            let right = if i % w + 1 < w { grey.data[i + 1] } else { v };
            let below = if i / w + 1 < h { grey.data[i + w] } else { v };
            v >= PAPER && v == right && v == below
        })
        .collect();
    for (v, flat) in grey.data.iter_mut().zip(flat) {
        if flat {
            *v = 255;
        }
    }
}

/// Luminance, one byte a pixel.
fn grey_of(image: &RgbImage) -> Grey {
    let data = image
        .data
        .chunks_exact(3)
        .map(|p| ((p[0] as u32 * 77 + p[1] as u32 * 150 + p[2] as u32 * 29) >> 8) as u8)
        .collect();
    Grey { width: image.width, height: image.height, data }
}

/// How a band's picture is made ready for Tesseract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Preparation {
    /// Read as it is (a large window's letters are large enough).
    AsIs,
    /// A bitmap font's sharp letters softened at their size ([`soften`]).
    Softened,
    /// Read at twice its size, smoothed between pixels: small anti-aliased
    /// letters (measured: Thunar's "report-draft.txt" under its icon was
    /// lost at its own size, softened or not).
    Doubled,
}

impl Preparation {
    fn of(band: &Grey, segmentation: Segmentation, small: bool) -> Preparation {
        match (small, segmentation) {
            (false, _) => Preparation::AsIs,
            (true, Segmentation::Uniform) if bitmap_text(band) => Preparation::Softened,
            (true, _) => Preparation::Doubled,
        }
    }

    fn apply(self, band: &Grey) -> Grey {
        match self {
            Preparation::AsIs => band.clone(),
            Preparation::Softened => soften(band),
            Preparation::Doubled => upscale(band, 2),
        }
    }

    /// How many times larger than the window's pixels the picture is.
    fn scale(self) -> u32 {
        match self {
            Preparation::Doubled => 2,
            Preparation::AsIs | Preparation::Softened => 1,
        }
    }
}

/// Share of a band's ink pixels (tenths) under which the text counts as a
/// bitmap font's: one shade of ink on one of background, hardly any between.
const BITMAP_BLEND_SHARE: usize = 1;

/// Whether `band`'s letters are drawn without anti-aliasing: its pixels
/// are its background's shade or its ink's, hardly any in between.
fn bitmap_text(band: &Grey) -> bool {
    let mut counts = [0usize; 256];
    band.data.iter().for_each(|&v| counts[v as usize] += 1);
    let background = (0..256).max_by_key(|&v| counts[v]).unwrap_or(255);
    let far = |v: usize| v.abs_diff(background) > 64;
    let Some(ink) = (0..256).filter(|&v| far(v)).max_by_key(|&v| counts[v]) else {
        return false;
    };
    let near = |v: usize, to: usize| v.abs_diff(to) <= 24;
    let inked: usize = (0..256).filter(|&v| !near(v, background)).map(|v| counts[v]).sum();
    let blended: usize =
        (0..256).filter(|&v| !near(v, background) && !near(v, ink)).map(|v| counts[v]).sum();
    inked > 0 && blended * 10 <= inked * BITMAP_BLEND_SHARE
}

/// `grey` at its size, each pixel mixed with its four neighbours: the
/// sharp 6–8 pixel letters of a bitmap font (xterm's `fixed`) read as
/// Tesseract's anti-aliased training text does (measured on a terminal of
/// `ls -la`: 252 of 335 words against 244 read at twice the size, in
/// half the time).
fn soften(grey: &Grey) -> Grey {
    let (w, h) = (grey.width as i64, grey.height as i64);
    let at =
        |x: i64, y: i64| grey.data[(y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize] as u32;
    let mut data = Vec::with_capacity(grey.data.len());
    for y in 0..h {
        for x in 0..w {
            let v = (at(x, y) * 4 + at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1)) / 8;
            data.push(v as u8);
        }
    }
    Grey { width: grey.width, height: grey.height, data }
}

/// `grey` at `scale` times its size (1 or 2), smoothed between pixels.
fn upscale(grey: &Grey, scale: u32) -> Grey {
    if scale == 1 {
        return grey.clone();
    }
    let (w, h) = (grey.width, grey.height);
    let at = |x: u32, y: u32| grey.data[(y.min(h - 1) * w + x.min(w - 1)) as usize] as u16;
    let mut data = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h * 2 {
        for x in 0..w * 2 {
            let (sx, sy) = (x / 2, y / 2);
            let (dx, dy) = (x % 2, y % 2);
            let v = (at(sx, sy) * 2 + at(sx + dx, sy) + at(sx, sy + dy)) / 4;
            data.push(v as u8);
        }
    }
    Grey { width: w * 2, height: h * 2, data }
}

/// Rows that differ between two pictures of one size, as bands widened to
/// whole words of the last read, and the box of what changed.
fn changed_bands(before: &Grey, now: &Grey, words: &[Word]) -> (Vec<(u32, u32)>, Option<Rect>) {
    let w = now.width as usize;
    let mut bands: Vec<(u32, u32)> = vec![];
    let (mut x0, mut x1) = (usize::MAX, 0usize);
    for y in 0..now.height {
        let row = y as usize * w..(y as usize + 1) * w;
        let (a, b) = (&before.data[row.clone()], &now.data[row]);
        if a == b {
            continue;
        }
        let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
        let last =
            w - 1 - a.iter().rev().zip(b.iter().rev()).position(|(p, q)| p != q).unwrap_or(0);
        (x0, x1) = (x0.min(first), x1.max(last));
        let (top, bottom) = (y.saturating_sub(BAND_MARGIN), (y + 1 + BAND_MARGIN).min(now.height));
        match bands.last_mut() {
            Some(band) if band.1 >= top => band.1 = bottom,
            _ => bands.push((top, bottom)),
        }
    }
    if bands.is_empty() {
        return (bands, None);
    }
    // A word the band cuts through is read again whole.
    loop {
        let mut grew = false;
        for band in &mut bands {
            for word in words {
                let (top, bottom) = (
                    word.bounds.y.max(0) as u32,
                    (word.bounds.y.max(0) as u32 + word.bounds.height).min(now.height),
                );
                if top < band.1 && bottom > band.0 && (top < band.0 || bottom > band.1) {
                    (band.0, band.1) = (
                        band.0.min(top.saturating_sub(2)),
                        band.1.max((bottom + 2).min(now.height)),
                    );
                    grew = true;
                }
            }
        }
        bands.sort_unstable();
        bands.dedup_by(|next, band| {
            let overlaps = next.0 <= band.1;
            if overlaps {
                band.1 = band.1.max(next.1);
            }
            overlaps
        });
        if !grew {
            break;
        }
    }
    let (top, bottom) = (bands[0].0, bands[bands.len() - 1].1);
    let changed = Rect::new(x0 as i32, top as i32, (x1 - x0 + 1) as u32, bottom - top);
    (bands, Some(changed))
}

impl SeenReader for TesseractReader {
    fn read(&self, window: WindowId, image: &RgbImage) -> Result<SeenRead, BackendError> {
        let grey = grey_of(image);
        if grey.width == 0 || grey.height == 0 {
            return Ok(SeenRead::default());
        }
        let frames = boxes::frames(&grey);
        let mut masked = grey.clone();
        boxes::mask_borders(&mut masked, &frames);
        lighten_tints(&mut masked);
        let small = (grey.width as u64 * grey.height as u64) < UPSCALE_BELOW;
        let before = {
            let mut memory = self.memory.lock().unwrap_or_else(|p| p.into_inner());
            let (_, windows) = &mut *memory;
            windows
                .get(&window)
                .filter(|r| r.grey.width == grey.width && r.grey.height == grey.height)
                .map(|r| (r.grey.clone(), r.words.clone()))
        };
        let (words, rows_read, changed) = match before {
            None => (self.words(&masked, 0, masked.height, small)?, grey.height, None),
            Some((old, words)) => {
                let (bands, changed) = changed_bands(&old, &grey, &words);
                let rows: u32 = bands.iter().map(|(t, b)| b - t).sum();
                if rows * 10 > grey.height * 6 {
                    (self.words(&masked, 0, masked.height, small)?, grey.height, changed)
                } else {
                    let in_band = |w: &Word| {
                        bands.iter().any(|&(t, b)| {
                            w.bounds.y < b as i32 && w.bounds.y + w.bounds.height as i32 > t as i32
                        })
                    };
                    let mut kept: Vec<Word> = words.into_iter().filter(|w| !in_band(w)).collect();
                    for &(top, bottom) in &bands {
                        kept.extend(self.words(&masked, top, bottom, small)?);
                    }
                    if !bands.is_empty() {
                        // Tesseract numbers lines per read: order them as one page again.
                        renumber_lines(&mut kept);
                    }
                    (kept, rows, changed)
                }
            }
        };
        let items = layout::items(&words, &frames);
        let mut memory = self.memory.lock().unwrap_or_else(|p| p.into_inner());
        let (clock, windows) = &mut *memory;
        *clock += 1;
        windows.insert(window, Remembered { grey, words, last_used: *clock });
        if windows.len() > REMEMBERED {
            if let Some(oldest) = windows.iter().min_by_key(|(_, r)| r.last_used).map(|(k, _)| *k) {
                windows.remove(&oldest);
            }
        }
        Ok(SeenRead { items, rows_read, changed })
    }

    fn forget(&self, window: WindowId) {
        let mut memory = self.memory.lock().unwrap_or_else(|p| p.into_inner());
        memory.1.remove(&window);
    }

    fn ready(&self) -> Result<String, String> {
        // An empty picture waits for an engine to open without reading anything.
        let empty = (Grey { width: 0, height: 0, data: vec![] }, Segmentation::Page);
        self.pool.read_all(vec![empty], READ_TIMEOUT).map_err(|e| e.message)?;
        self.pool.engine().unwrap_or_else(|| Err("the OCR worker did not start".into()))
    }
}

/// The doctor's check: whether windows without a tree can be read from their pixels.
pub fn doctor_check() -> glovebox_platform::doctor::Check {
    use glovebox_platform::doctor::Check;
    match shared_reader().ready() {
        Ok(engine) => Check::ok(
            "seen elements",
            format!("{engine}: windows with no or a thin accessibility tree are read from their pixels"),
        ),
        Err(why) => Check::warning(
            "seen elements",
            why,
            &["elements seen in the pixels of windows without an accessibility tree (their screenshots still work)"],
        ),
    }
}

/// Gives words whose boxes share a row one line number, so runs join
/// them whichever read they came from.
fn renumber_lines(words: &mut [Word]) {
    words.sort_by_key(|w| (w.bounds.y + w.bounds.height as i32 / 2, w.bounds.x));
    let mut line = 0u32;
    let mut row_bottom = i32::MIN;
    for word in words.iter_mut() {
        let middle = word.bounds.y + word.bounds.height as i32 / 2;
        if middle > row_bottom {
            line += 1;
            row_bottom = word.bounds.y + word.bounds.height as i32;
        }
        word.line = (0, 0, line);
    }
    words.sort_by_key(|w| (w.line, w.bounds.x));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grey(rows: &[&[u8]]) -> Grey {
        Grey { width: rows[0].len() as u32, height: rows.len() as u32, data: rows.concat() }
    }

    #[test]
    fn unchanged_pictures_have_no_bands_and_a_change_is_widened_to_its_words() {
        let blank = vec![255u8; 40];
        let mut rows: Vec<Vec<u8>> = vec![blank.clone(); 60];
        let before = grey(&rows.iter().map(|r| r.as_slice()).collect::<Vec<_>>());
        assert_eq!(changed_bands(&before, &before, &[]), (vec![], None));
        rows[30][10] = 0;
        let now = grey(&rows.iter().map(|r| r.as_slice()).collect::<Vec<_>>());
        let word = Word {
            text: "x".into(),
            confidence: 90.0,
            bounds: Rect::new(0, 20, 20, 16),
            line: (1, 1, 1),
        };
        let (bands, changed) = changed_bands(&before, &now, &[word]);
        assert_eq!(bands, vec![(18, 38)]);
        assert_eq!(changed, Some(Rect::new(10, 18, 1, 20)));
    }

    #[test]
    fn a_bitmap_fonts_letters_are_softened_and_anti_aliased_ones_doubled() {
        // Black strokes on white: a bitmap font's.
        let mut sharp = vec![255u8; 40 * 12];
        (0..12).for_each(|y| [5, 6, 20, 30].iter().for_each(|&x| sharp[y * 40 + x] = 0));
        let sharp = Grey { width: 40, height: 12, data: sharp };
        // The same strokes with blended edges.
        let mut smooth = sharp.clone();
        (0..12).for_each(|y| {
            [4, 7, 19, 21, 29, 31].iter().for_each(|&x| smooth.data[y * 40 + x] = 128)
        });
        assert!(bitmap_text(&sharp) && !bitmap_text(&smooth));
        assert!(!bitmap_text(&Grey { width: 4, height: 1, data: vec![200; 4] }), "no ink");
        let of = |g: &Grey, s, small| Preparation::of(g, s, small);
        assert_eq!(of(&sharp, Segmentation::Uniform, true), Preparation::Softened);
        assert_eq!(of(&smooth, Segmentation::Uniform, true), Preparation::Doubled);
        assert_eq!(of(&sharp, Segmentation::Page, true), Preparation::Doubled);
        assert_eq!(of(&sharp, Segmentation::Uniform, false), Preparation::AsIs);
        assert_eq!(Preparation::Doubled.apply(&sharp).width, 80);
    }

    #[test]
    fn upscaling_doubles_each_side() {
        let g = grey(&[&[0, 255], &[255, 0]]);
        let up = upscale(&g, 2);
        assert_eq!((up.width, up.height), (4, 4));
        assert_eq!(up.data[0], 0);
        assert_eq!(up.data[3], 255);
    }
}
