//! Text an application or an agent wrote (a window's title and class, an
//! element's name, text read from pixels, an agent's question, the text
//! it would type) made safe to show a person in a terminal, a prompt or
//! a page: every character that could move the cursor, erase or recolour
//! what is shown (CR, ESC sequences and the other controls), reorder it
//! (bidirectional overrides and isolates) or hide text (invisible
//! formatting, tag characters) is shown escaped, as `\r`, `\n`, `\t` or
//! `\u{…}`. Everything else, every script and emoji, is left as written.

use std::borrow::Cow;

/// Whether `c` would act on what a person sees rather than be seen.
pub fn acts_unseen(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'                      // soft hyphen: invisible
            | '\u{061C}'                    // Arabic letter mark
            | '\u{180E}'                    // Mongolian vowel separator
            | '\u{200B}'                    // zero-width space
            | '\u{200E}'..='\u{200F}'       // left-to-right and right-to-left marks
            | '\u{2028}'..='\u{202E}'       // line and paragraph separators, embeddings, overrides
            | '\u{2060}'..='\u{2064}'       // word joiner, invisible operators
            | '\u{2066}'..='\u{206F}'       // isolates and deprecated format characters
            | '\u{FEFF}'                    // byte order mark
            | '\u{FFF9}'..='\u{FFFB}'       // interlinear annotation
            | '\u{E0000}'..='\u{E007F}' // tag characters: invisible text
        )
}

/// `text` with every character of [`acts_unseen`] escaped; borrowed when
/// there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts_unseen) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    Cow::Owned(out)
}

/// `text` in double quotes, escaped as [`visible`] does and with its own
/// quotes and backslashes escaped, so it cannot close the quote and pass
/// its words off as the sentence around it.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => push_visible(&mut out, c),
        }
    }
    out.push('"');
    out
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        c if acts_unseen(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_would_act_unseen_is_escaped_and_every_script_kept() {
        assert!(matches!(visible("Rechnung – Müller 中文 👩‍💻 नमस्ते"), Cow::Borrowed(_)));
        assert_eq!(visible("app\r\u{1b}[8mother"), "app\\r\\u{1b}[8mother");
        assert_eq!(
            visible("a\u{202e}b\u{2066}c\u{85}d\u{E0041}"),
            "a\\u{202e}b\\u{2066}c\\u{85}d\\u{e0041}"
        );
        assert_eq!(visible("two\nlines\t"), "two\\nlines\\t");
        assert_eq!(quoted("Pay\" and button \"OK\\"), "\"Pay\\\" and button \\\"OK\\\\\"");
        for text in ["\u{1b}]0;title\u{7}", "\u{9b}31m", "\u{2028}", "\u{feff}x"] {
            assert!(!visible(text).chars().any(acts_unseen), "{text:?}");
            assert!(!quoted(text).chars().any(acts_unseen), "{text:?}");
        }
    }
}
