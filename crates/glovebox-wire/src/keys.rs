//! Provider key names onto glovebox's key-combo syntax
//! (`glovebox_model::keys`): OpenAI GA `keypress` lists (`["CTRL", "SHIFT",
//! "P"]`, `"ARROWUP"`, `"CMD"`) and Anthropic's xdotool syntax (`ctrl+a`,
//! `Return`, `KP_Enter`, `super`, several combos separated by spaces).
//! Every result is checked by glovebox's own parser; nothing unknown passes.

use glovebox_model::keys::KeyCombo;
use glovebox_model::Refusal;

/// Most combos one xdotool `key` string may press in sequence.
pub const MAX_SEQUENCE: usize = 20;

/// A modifier name of either provider, as glovebox spells it. `meta`,
/// `cmd` and the Windows key are Super here (the GA contract groups them),
/// unlike glovebox's own parser, where `meta` is Alt.
fn modifier(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "control_l" | "control_r" | "ctl" => "ctrl",
        "shift" | "shift_l" | "shift_r" => "shift",
        "alt" | "option" | "alt_l" | "alt_r" => "alt",
        "meta" | "meta_l" | "meta_r" | "cmd" | "command" | "super" | "super_l" | "super_r"
        | "win" | "windows" | "logo" => "super",
        _ => return None,
    })
}

/// An xdotool keysym name glovebox spells differently.
fn keysym(name: &str) -> Option<&'static str> {
    Some(match name {
        "return" | "kp_enter" | "linefeed" => "Enter",
        "backspace" => "Backspace",
        "escape" => "Escape",
        "tab" => "Tab",
        "space" | "kp_space" => "Space",
        "delete" | "kp_delete" => "Delete",
        "insert" | "kp_insert" => "Insert",
        "home" | "kp_home" => "Home",
        "end" | "kp_end" => "End",
        "page_up" | "prior" | "kp_page_up" | "kp_prior" => "PageUp",
        "page_down" | "next" | "kp_page_down" | "kp_next" => "PageDown",
        "up" | "kp_up" => "Up",
        "down" | "kp_down" => "Down",
        "left" | "kp_left" => "Left",
        "right" | "kp_right" => "Right",
        "menu" => "Menu",
        "kp_add" | "plus" => "+",
        "kp_subtract" | "minus" => "-",
        "kp_multiply" | "asterisk" => "*",
        "kp_divide" | "slash" => "/",
        "kp_decimal" | "period" => ".",
        "kp_equal" | "equal" => "=",
        "comma" => ",",
        "backslash" => "\\",
        "semicolon" => ";",
        "apostrophe" => "'",
        "grave" => "`",
        "bracketleft" => "[",
        "bracketright" => "]",
        "braceleft" => "{",
        "braceright" => "}",
        "parenleft" => "(",
        "parenright" => ")",
        "exclam" => "!",
        "at" => "@",
        "numbersign" => "#",
        "dollar" => "$",
        "percent" => "%",
        "asciicircum" => "^",
        "ampersand" => "&",
        "underscore" => "_",
        "question" => "?",
        "colon" => ":",
        "quotedbl" => "\"",
        "less" => "<",
        "greater" => ">",
        "bar" => "|",
        "asciitilde" => "~",
        "kp_0" => "0",
        "kp_1" => "1",
        "kp_2" => "2",
        "kp_3" => "3",
        "kp_4" => "4",
        "kp_5" => "5",
        "kp_6" => "6",
        "kp_7" => "7",
        "kp_8" => "8",
        "kp_9" => "9",
        _ => return None,
    })
}

/// Splits `ctrl+shift+p` on `+`, where a lone or trailing `+` is the key.
fn split_plus(text: &str) -> Vec<&str> {
    if text == "+" {
        return vec!["+"];
    }
    if let Some(head) = text.strip_suffix("++") {
        let mut parts: Vec<&str> = head.split('+').collect();
        parts.push("+");
        return parts;
    }
    text.split('+').collect()
}

/// Modifiers first, then exactly one key, checked by glovebox's parser.
fn compose(tokens: Vec<String>, what: &str) -> Result<KeyCombo, Refusal> {
    let mut mods: Vec<&'static str> = vec![];
    let mut keys = vec![];
    for token in &tokens {
        if token.is_empty() {
            return Err(Refusal::invalid_argument(format!("{what} has an empty key name")));
        }
        match modifier(token) {
            Some(m) if !mods.contains(&m) => mods.push(m),
            Some(_) => {}
            None => keys.push(token.clone()),
        }
    }
    let combo = match (keys.len(), mods.split_last()) {
        // Modifiers alone: the last one is the key pressed with the others held.
        (0, Some((last, held))) => held.iter().chain([last]).copied().collect::<Vec<_>>().join("+"),
        (1, _) => mods.iter().copied().chain([keys[0].as_str()]).collect::<Vec<_>>().join("+"),
        (0, None) => return Err(Refusal::invalid_argument(format!("{what} names no key"))),
        _ => {
            return Err(Refusal::invalid_argument(format!(
                "{what} presses {} keys at once ({}); glovebox presses modifiers plus one key per combo",
                keys.len(),
                keys.join(", ")
            )))
        }
    };
    KeyCombo::parse(&combo).map_err(|e| Refusal::invalid_argument(format!("{what}: {}", e.message)))
}

/// An OpenAI GA `keypress` `keys` list as one glovebox combo: the entries
/// are pressed together (`["CTRL", "C"]`, or one entry `"CTRL+SHIFT+P"`).
pub fn ga_keypress(keys: &[String]) -> Result<KeyCombo, Refusal> {
    if keys.is_empty() {
        return Err(Refusal::invalid_argument("keypress needs at least one key"));
    }
    let mut tokens = vec![];
    for entry in keys {
        for part in split_plus(entry) {
            let part = part.trim();
            // GA spells arrows ARROWUP and escape ESC; glovebox knows those already.
            // Its names are case-insensitive, and it writes letters in capitals:
            // CTRL+A is ctrl+a, never the ctrl+shift+a a capital means to glovebox.
            tokens.push(match modifier(part) {
                Some(m) => m.to_owned(),
                None if part.len() == 1 && part.chars().all(|c| c.is_ascii_uppercase()) => {
                    part.to_ascii_lowercase()
                }
                None => part.to_owned(),
            });
        }
    }
    compose(tokens, &format!("keypress {keys:?}"))
}

/// An xdotool `key` string as a sequence of glovebox combos: `ctrl+a`,
/// `Return`, `KP_Enter`, `ctrl+a Delete` (two combos, in order).
pub fn xdotool(text: &str) -> Result<Vec<KeyCombo>, Refusal> {
    let combos: Vec<&str> = text.split_whitespace().collect();
    if combos.is_empty() {
        return Err(Refusal::invalid_argument(
            "key needs a key name in `text` (xdotool syntax, e.g. ctrl+a or Return)",
        ));
    }
    if combos.len() > MAX_SEQUENCE {
        return Err(Refusal::invalid_argument(format!(
            "key presses at most {MAX_SEQUENCE} combos per call, not {}",
            combos.len()
        )));
    }
    combos
        .into_iter()
        .map(|combo| {
            let tokens = split_plus(combo)
                .into_iter()
                .map(|t| match (modifier(t), keysym(&t.to_ascii_lowercase())) {
                    (Some(m), _) => m.to_owned(),
                    (None, Some(k)) => k.to_owned(),
                    (None, None) => t.to_owned(),
                })
                .collect();
            compose(tokens, &format!("key {combo:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ga(keys: &[&str]) -> Result<String, Refusal> {
        ga_keypress(&keys.iter().map(|k| k.to_string()).collect::<Vec<_>>())
            .map(|combo| combo.to_string())
    }

    fn xdotool(text: &str) -> Result<Vec<String>, Refusal> {
        super::xdotool(text).map(|combos| combos.iter().map(KeyCombo::to_string).collect())
    }

    #[test]
    fn ga_names_map_onto_glovebox_combos() {
        assert_eq!(ga(&["CTRL", "A"]).unwrap(), "ctrl+a", "GA capitals are not Shift");
        assert_eq!(ga(&["ctrl", "c"]).unwrap(), "ctrl+c");
        assert_eq!(ga(&["CTRL+SHIFT+P"]).unwrap(), "ctrl+shift+p");
        assert_eq!(ga(&["ENTER"]).unwrap(), "Enter");
        assert_eq!(ga(&["ESC"]).unwrap(), "Escape");
        assert_eq!(ga(&["ARROWUP"]).unwrap(), "Up");
        assert_eq!(ga(&["CMD", "SPACE"]).unwrap(), "super+Space");
        assert_eq!(ga(&["META", "L"]).unwrap(), "super+l", "meta is Super in the GA contract");
        assert_eq!(ga(&["WIN"]).unwrap(), "Super");
        assert_eq!(ga(&["SHIFT", "CTRL"]).unwrap(), "shift+Ctrl");
        assert_eq!(ga(&["CTRL", "+"]).unwrap(), "ctrl++");
        assert_eq!(ga(&["F12"]).unwrap(), "F12");
        assert_eq!(ga(&["é"]).unwrap(), "é");
    }

    #[test]
    fn ga_refuses_unknown_names_and_chords_of_several_keys() {
        for bad in [&[][..], &["HYPER"], &["A", "B"], &["PRINTSCREEN"], &["CTRL+"], &[""]] {
            assert_eq!(
                ga(bad).unwrap_err().code,
                glovebox_model::ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn xdotool_keysyms_map_onto_glovebox_combos() {
        assert_eq!(xdotool("ctrl+a").unwrap(), vec!["ctrl+a"]);
        assert_eq!(xdotool("Return").unwrap(), vec!["Enter"]);
        assert_eq!(xdotool("KP_Enter").unwrap(), vec!["Enter"]);
        assert_eq!(xdotool("super").unwrap(), vec!["Super"]);
        assert_eq!(xdotool("alt+Tab").unwrap(), vec!["alt+Tab"]);
        assert_eq!(xdotool("ctrl+shift+t").unwrap(), vec!["ctrl+shift+t"]);
        assert_eq!(xdotool("Page_Down").unwrap(), vec!["PageDown"]);
        assert_eq!(xdotool("BackSpace").unwrap(), vec!["Backspace"]);
        assert_eq!(xdotool("KP_0").unwrap(), vec!["0"]);
        assert_eq!(xdotool("ctrl+plus").unwrap(), vec!["ctrl++"]);
        assert_eq!(xdotool("Super_L").unwrap(), vec!["Super"]);
        assert_eq!(xdotool("ctrl+a Delete").unwrap(), vec!["ctrl+a", "Delete"]);
        assert_eq!(xdotool("F5").unwrap(), vec!["F5"]);
    }

    #[test]
    fn xdotool_refuses_unknown_keysyms() {
        for bad in ["", "   ", "Hyper_L", "ctrl+", "XF86AudioPlay", &"a ".repeat(MAX_SEQUENCE + 1)]
        {
            assert_eq!(
                xdotool(bad).unwrap_err().code,
                glovebox_model::ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }
}
