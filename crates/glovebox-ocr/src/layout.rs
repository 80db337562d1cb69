//! Words and framed boxes made into seen elements: words of one line
//! joined into runs, a box holding a centred run is a button named by it,
//! an empty wide box a field and an empty small square a check box, each
//! named by the run that labels it (beside it, or above a field).

use crate::tsv::Word;
use glovebox_model::{Rect, SeenKind};
use glovebox_platform::SeenItem;

/// A run of words on one line.
#[derive(Debug, Clone)]
struct Run {
    text: String,
    bounds: Rect,
}

fn union(a: Rect, b: Rect) -> Rect {
    let x0 = a.x.min(b.x);
    let y0 = a.y.min(b.y);
    let x1 = (a.x + a.width as i32).max(b.x + b.width as i32);
    let y1 = (a.y + a.height as i32).max(b.y + b.height as i32);
    Rect::new(x0, y0, (x1 - x0) as u32, (y1 - y0) as u32)
}

fn centre(r: Rect) -> (i32, i32) {
    (r.x + r.width as i32 / 2, r.y + r.height as i32 / 2)
}

fn holds(frame: Rect, r: Rect) -> bool {
    let (cx, cy) = centre(r);
    frame.contains(glovebox_model::Point { x: cx, y: cy })
}

/// Which frame (if any) holds `r`'s centre.
fn frame_of(frames: &[Rect], r: Rect) -> Option<usize> {
    frames.iter().position(|f| holds(*f, r))
}

/// Words of one line, in order, split where the gap is wider than the
/// text is tall or where a box's edge runs between them.
fn runs(words: &[Word], frames: &[Rect]) -> Vec<Run> {
    let mut out: Vec<Run> = vec![];
    let mut last: Option<(&Word, Option<usize>)> = None;
    for word in words {
        let frame = frame_of(frames, word.bounds);
        let joins = last.is_some_and(|(prev, prev_frame)| {
            let gap = word.bounds.x - (prev.bounds.x + prev.bounds.width as i32);
            let tall = prev.bounds.height.max(word.bounds.height) as i32;
            prev.line == word.line && prev_frame == frame && gap >= -2 && gap <= tall * 6 / 5
        });
        match (joins, out.last_mut()) {
            (true, Some(run)) => {
                run.text.push(' ');
                run.text.push_str(&word.text);
                run.bounds = union(run.bounds, word.bounds);
            }
            _ => out.push(Run { text: word.text.clone(), bounds: word.bounds }),
        }
        last = Some((word, frame));
    }
    out
}

/// The run labelling a field or check box at `f`: on its row to the left
/// (a field) or right (a check box), else just above it.
fn label_of(runs: &[Run], used: &[bool], f: Rect, kind: SeenKind) -> String {
    let (_, cy) = centre(f);
    let same_row = |r: &Run| r.bounds.y <= cy && cy <= r.bounds.y + r.bounds.height as i32;
    let beside = runs
        .iter()
        .enumerate()
        .filter(|(i, r)| !used[*i] && same_row(r))
        .filter_map(|(_, r)| {
            let gap = match kind {
                SeenKind::CheckBox => r.bounds.x - (f.x + f.width as i32),
                _ => f.x - (r.bounds.x + r.bounds.width as i32),
            };
            (-2..=240).contains(&gap).then_some((gap, r))
        })
        .min_by_key(|(gap, _)| *gap);
    if let Some((_, run)) = beside {
        return run.text.clone();
    }
    runs.iter()
        .enumerate()
        .filter(|(i, r)| {
            let above = f.y - (r.bounds.y + r.bounds.height as i32);
            !used[*i] && (0..=30).contains(&above) && (r.bounds.x - f.x).abs() <= 40
        })
        .map(|(_, r)| r.text.clone())
        .next_back()
        .unwrap_or_default()
}

/// The seen elements of one read, in reading order.
pub(crate) fn items(words: &[Word], frames: &[Rect]) -> Vec<SeenItem> {
    let mut runs = runs(words, frames);
    let mut used = vec![false; runs.len()];
    let mut items = vec![];
    for &f in frames {
        let inside: Vec<usize> = (0..runs.len()).filter(|&i| holds(f, runs[i].bounds)).collect();
        if let Some(text) = inside.iter().map(|&i| runs[i].bounds).reduce(union) {
            let left_gap = text.x - f.x;
            let right_gap = f.x + f.width as i32 - (text.x + text.width as i32);
            let filled_field = right_gap > 2 * left_gap + 12 && f.width >= 3 * f.height;
            if !filled_field {
                let label: Vec<&str> = inside.iter().map(|&i| runs[i].text.as_str()).collect();
                inside.iter().for_each(|&i| used[i] = true);
                items.push(SeenItem { kind: SeenKind::Button, text: label.join(" "), bounds: f });
                continue;
            }
            // A field's text ends at its caret, which reads as a bar glued to the last letter.
            for &i in &inside {
                if let Some(text) = runs[i].text.strip_suffix('|').filter(|t| !t.is_empty()) {
                    runs[i].text = text.trim_end().to_owned();
                }
            }
        }
        let kind = if f.width.abs_diff(f.height) <= 3 && f.width <= 24 {
            SeenKind::CheckBox
        } else if f.width >= 2 * f.height && f.height >= 12 {
            SeenKind::Field
        } else {
            continue;
        };
        let text = label_of(&runs, &used, f, kind);
        items.push(SeenItem { kind, text, bounds: f });
    }
    for (run, used) in runs.into_iter().zip(used) {
        if !used {
            items.push(SeenItem { kind: SeenKind::Text, text: run.text, bounds: run.bounds });
        }
    }
    // Rows by their middles (a label and its taller field share one), then left to right.
    items.sort_by_key(|i| ((i.bounds.y + i.bounds.height as i32 / 2) / 12, i.bounds.x));
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, x: i32, y: i32, w: u32, line: u32) -> Word {
        Word {
            text: text.into(),
            confidence: 90.0,
            bounds: Rect::new(x, y, w, 14),
            line: (1, 1, line),
        }
    }

    #[test]
    fn a_form_row_reads_as_label_field_and_button() {
        let words = [
            word("Name", 8, 154, 38, 1),
            word("Submit", 245, 154, 50, 1),
            word("The", 8, 187, 26, 2),
            word("quick", 38, 187, 36, 2),
            word("Far", 400, 187, 20, 2),
        ];
        let field = Rect::new(54, 150, 179, 22);
        let button = Rect::new(237, 150, 64, 22);
        let got = items(&words, &[field, button]);
        let shown: Vec<(SeenKind, &str)> = got.iter().map(|i| (i.kind, i.text.as_str())).collect();
        assert_eq!(
            shown,
            [
                (SeenKind::Text, "Name"),
                (SeenKind::Field, "Name"),
                (SeenKind::Button, "Submit"),
                (SeenKind::Text, "The quick"),
                (SeenKind::Text, "Far"),
            ]
        );
        assert_eq!(got[2].bounds, button);
    }

    #[test]
    fn a_filled_field_keeps_its_text_as_text_and_a_square_is_a_check_box() {
        let words = [
            word("Email", 8, 10, 40, 1),
            word("ada", 60, 10, 24, 1),
            word("Remember", 30, 50, 70, 2),
        ];
        let field = Rect::new(56, 6, 200, 22);
        let check = Rect::new(10, 50, 14, 14);
        let got = items(&words, &[field, check]);
        let shown: Vec<(SeenKind, &str)> = got.iter().map(|i| (i.kind, i.text.as_str())).collect();
        assert!(shown.contains(&(SeenKind::Field, "Email")), "{shown:?}");
        assert!(shown.contains(&(SeenKind::Text, "ada")), "{shown:?}");
        assert!(shown.contains(&(SeenKind::CheckBox, "Remember")), "{shown:?}");
    }
}
