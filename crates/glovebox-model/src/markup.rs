//! Text put into HTML or XML that glovebox writes (trajectory reports, the
//! episodes' pages and JUnit files): the five markup characters escaped,
//! and the characters XML 1.0 cannot hold at all (most C0 controls, U+FFFE,
//! U+FFFF) left out, so a window's or an app's text never becomes markup.

/// `text` safe inside an element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_characters_are_escaped_and_controls_left_out() {
        assert_eq!(
            super::escape("<a href=\"x\">'&'\u{1}\n</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;\n&lt;/a&gt;"
        );
    }
}
