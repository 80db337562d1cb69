//! Tesseract's TSV output as words: the text, how sure it is, its box and
//! the line it belongs to.

use glovebox_model::Rect;

/// One word Tesseract read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub(crate) text: String,
    /// 0–100.
    pub(crate) confidence: f32,
    /// In the pixels given to Tesseract.
    pub(crate) bounds: Rect,
    /// Block, paragraph and line numbers: words of one line share them.
    pub(crate) line: (u32, u32, u32),
}

/// How sure Tesseract must be of a word for it to count: below, screen
/// reads are mostly icons and borders taken for letters.
const MIN_CONFIDENCE: f32 = 40.0;

/// The words of `tsv` worth listing: sure enough, with a letter or digit.
pub(crate) fn words(tsv: &str) -> Vec<Word> {
    tsv.lines()
        .filter_map(|row| {
            let cells: Vec<&str> = row.split('\t').collect();
            if cells.len() < 12 || cells[0] != "5" {
                return None;
            }
            let num = |i: usize| cells[i].trim().parse::<i64>().ok();
            let text = cells[11].trim();
            let confidence: f32 = cells[10].trim().parse().ok()?;
            if confidence < MIN_CONFIDENCE || !text.chars().any(char::is_alphanumeric) {
                return None;
            }
            let (left, top, width, height) = (num(6)?, num(7)?, num(8)?, num(9)?);
            if width <= 0 || height <= 0 {
                return None;
            }
            Some(Word {
                text: text.to_owned(),
                confidence,
                bounds: Rect::new(left as i32, top as i32, width as u32, height as u32),
                line: (num(2)? as u32, num(3)? as u32, num(4)? as u32),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_sure_readable_ones_with_their_lines() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t640\t480\t-1\t
4\t1\t1\t1\t1\t0\t8\t150\t300\t20\t-1\t
5\t1\t1\t1\t1\t1\t8\t153\t38\t15\t96.5\tName
5\t1\t1\t1\t1\t2\t60\t150\t4\t20\t30.1\t[
5\t1\t1\t1\t1\t3\t245\t153\t50\t15\t91\tSubmit
5\t1\t2\t1\t1\t1\t8\t190\t30\t15\t88\t@
5\t1\t2\t1\t2\t1\t8\t210\t0\t15\t88\tzero
garbage";
        let words = words(tsv);
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Name", "Submit"]);
        assert_eq!(words[1].bounds, Rect::new(245, 153, 50, 15));
        assert_eq!(words[0].line, (1, 1, 1));
    }
}
