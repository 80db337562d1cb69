//! Key bindings as toolkits write them (GTK's `<Control>s` and
//! `mnemonic;path;accelerator`, Qt's `Ctrl+Shift+S`) read once into a
//! [`KeyCombo`]: what an element's `shortcut` shows and what a key chord is
//! matched against.

use glovebox_model::KeyCombo;

/// A toolkit's key binding as a key chord (`ctrl+shift+s`), or `None`
/// when it names no key chord. GTK writes `mnemonic;path;accelerator`
/// (`s;<Alt>f:s;<Control>s`) or just `<Control>s`; Qt writes `Ctrl+Shift+S`.
/// A mnemonic alone (GTK's first part, a bare `<Alt>x`) works only while
/// its menu is open, so it is not a shortcut.
pub fn shortcut(binding: &str) -> Option<KeyCombo> {
    let binding = binding.trim();
    if binding.is_empty() {
        return None;
    }
    let accelerator = match binding.split(';').collect::<Vec<_>>().as_slice() {
        [_, _, accelerator] => accelerator.trim(),
        [single] => single.trim(),
        _ => return None,
    };
    let accelerator = accelerator.split(", ").next().unwrap_or("").trim();
    if accelerator.is_empty() {
        return None;
    }
    let (modifiers, key) = if accelerator.starts_with('<') {
        let mut modifiers = vec![];
        let mut rest = accelerator;
        while let Some(after) = rest.strip_prefix('<') {
            let (name, tail) = after.split_once('>')?;
            modifiers.push(match name.to_ascii_lowercase().as_str() {
                "control" | "ctrl" | "primary" => "ctrl",
                "shift" => "shift",
                "alt" | "mod1" => "alt",
                "super" | "meta" | "mod4" => "super",
                _ => return None,
            });
            rest = tail;
        }
        (modifiers, rest.to_owned())
    } else {
        let parts: Vec<&str> = if let Some(head) = accelerator.strip_suffix("++") {
            head.split('+').chain(["+"]).collect()
        } else {
            accelerator.split('+').collect()
        };
        let (key, held) = parts.split_last()?;
        let mut modifiers = vec![];
        for part in held {
            modifiers.push(match part.to_ascii_lowercase().as_str() {
                "ctrl" | "control" => "ctrl",
                "shift" => "shift",
                "alt" => "alt",
                "meta" | "super" => "super",
                _ => return None,
            });
        }
        (modifiers, (*key).to_owned())
    };
    let key = match key.as_str() {
        "" => return None,
        k if k.chars().count() == 1 => k.to_lowercase(),
        "Return" | "KP_Enter" => "enter".into(),
        "Escape" | "Esc" => "escape".into(),
        "Del" => "delete".into(),
        "Ins" => "insert".into(),
        "Page_Up" | "PgUp" | "Prior" => "pageup".into(),
        "Page_Down" | "PgDown" | "Next" => "pagedown".into(),
        "plus" => "+".into(),
        "minus" => "-".into(),
        "comma" => ",".into(),
        "period" => ".".into(),
        "slash" => "/".into(),
        "space" | "Space" => "space".into(),
        other => other.to_ascii_lowercase(),
    };
    // A bare letter is a mnemonic or type-ahead, not a chord.
    if modifiers.is_empty() && key.chars().count() == 1 {
        return None;
    }
    KeyCombo::parse(&if modifiers.is_empty() {
        key
    } else {
        format!("{}+{key}", modifiers.join("+"))
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_bindings_in_each_spelling() {
        assert_eq!(shortcut("<Control>s").map(|c| c.to_string()).as_deref(), Some("ctrl+s"));
        assert_eq!(
            shortcut("s;<Alt>f:s;<Control>s").map(|c| c.to_string()).as_deref(),
            Some("ctrl+s")
        );
        assert_eq!(
            shortcut("<Primary><Shift>z").map(|c| c.to_string()).as_deref(),
            Some("ctrl+shift+z")
        );
        assert_eq!(shortcut("Ctrl+S").map(|c| c.to_string()).as_deref(), Some("ctrl+s"));
        assert_eq!(
            shortcut("Ctrl+Shift+R").map(|c| c.to_string()).as_deref(),
            Some("ctrl+shift+r")
        );
        assert_eq!(shortcut("Ctrl++").map(|c| c.to_string()).as_deref(), Some("ctrl++"));
        assert_eq!(shortcut("F3").map(|c| c.to_string()).as_deref(), Some("F3"));
        assert_eq!(shortcut("Alt+Right").map(|c| c.to_string()).as_deref(), Some("alt+Right"));
        assert_eq!(
            shortcut("<Control>Page_Down").map(|c| c.to_string()).as_deref(),
            Some("ctrl+PageDown")
        );
        assert_eq!(shortcut("Ctrl+Q, Ctrl+W").map(|c| c.to_string()).as_deref(), Some("ctrl+q"));
        // Mnemonics only, or nothing.
        assert_eq!(shortcut("s;<Alt>f:s;"), None);
        assert_eq!(shortcut("x"), None);
        assert_eq!(shortcut(""), None);
        assert_eq!(shortcut("<Hyper>x"), None);
        assert_eq!(shortcut("Ctrl+Bogus"), None);
    }
}
