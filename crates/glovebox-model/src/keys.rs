//! Key combos as a model writes them (`ctrl+shift+p`, `Enter`, `F12`, `é`)
//! parsed into data: modifiers plus one key. Platform backends map the
//! result to their own key codes; nothing here knows about X11.

use crate::error::Refusal;
use std::fmt;

/// A key with a name (not a character it types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NamedKey {
    /// Return (also written `return`).
    Enter,
    /// Esc (also `esc`).
    Escape,
    /// Tab, which moves the focus to the next control.
    Tab,
    /// The space bar.
    Space,
    /// Backspace: deletes before the caret.
    Backspace,
    /// Delete: deletes after the caret (also `del`).
    Delete,
    /// Insert (also `ins`).
    Insert,
    /// The up arrow (also `arrowup`, `uparrow`).
    Up,
    /// The down arrow (also `arrowdown`, `downarrow`).
    Down,
    /// The left arrow (also `arrowleft`, `leftarrow`).
    Left,
    /// The right arrow (also `arrowright`, `rightarrow`).
    Right,
    /// Home: to the start of the line or list.
    Home,
    /// End: to the end of the line or list.
    End,
    /// Page Up (also `pgup`, `page_up`, `prior`).
    PageUp,
    /// Page Down (also `pgdn`, `page_down`, `next`).
    PageDown,
    /// F1..=F24.
    F(u8),
    /// The context-menu key (also `contextmenu`).
    Menu,
}

/// Modifier keys held while the key is pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Modifiers {
    /// Control is held.
    pub ctrl: bool,
    /// Shift is held.
    pub shift: bool,
    /// Alt is held.
    pub alt: bool,
    /// The Super (Windows, Command, logo) key is held; `super` itself is a
    /// Rust keyword.
    pub superkey: bool,
}

impl Modifiers {
    /// Whether no modifier is held.
    pub fn is_empty(self) -> bool {
        self == Modifiers::default()
    }

    /// The set of `keys` (a key named twice is held once).
    pub fn of(keys: &[ModifierKey]) -> Modifiers {
        let mut held = Modifiers::default();
        for key in keys {
            match key {
                ModifierKey::Ctrl => held.ctrl = true,
                ModifierKey::Shift => held.shift = true,
                ModifierKey::Alt => held.alt = true,
                ModifierKey::Super => held.superkey = true,
            }
        }
        held
    }

    /// Parses the modifier part of a combo as providers write it on its
    /// own (`ctrl`, `ctrl+shift`, `Shift Alt`); empty is none held.
    pub fn parse(text: &str) -> Result<Modifiers, Refusal> {
        let mut keys = vec![];
        for part in text.split(['+', ' ', ',']).map(str::trim).filter(|p| !p.is_empty()) {
            keys.push(modifier(&part.to_ascii_lowercase()).ok_or_else(|| {
                Refusal::invalid_argument(format!(
                    "{part:?} in {text:?} is not a modifier key (ctrl, shift, alt or super)"
                ))
            })?);
        }
        Ok(Modifiers::of(&keys))
    }

    /// The held keys, in the order a combo names them.
    pub fn keys(self) -> Vec<ModifierKey> {
        [
            (self.ctrl, ModifierKey::Ctrl),
            (self.shift, ModifierKey::Shift),
            (self.alt, ModifierKey::Alt),
            (self.superkey, ModifierKey::Super),
        ]
        .into_iter()
        .filter_map(|(on, key)| on.then_some(key))
        .collect()
    }
}

/// The key pressed last in a combo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A key with a name (Enter, an arrow, F5).
    Named(NamedKey),
    /// A single Unicode character (`a`, `?`, `é`, `中`). Letters keep their
    /// case: `ctrl+A` and `ctrl+a` differ only by the Shift they imply.
    Char(char),
    /// A modifier pressed on its own (`Shift`, `Super`).
    Modifier(ModifierKey),
}

/// A modifier key, as an action's `modifiers` list names it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ModifierKey {
    /// Control (also written `control`, `ctl`).
    Ctrl,
    /// Shift (written only `shift`).
    Shift,
    /// Alt (also `option`, `meta`).
    Alt,
    /// The Super key: Windows, Command or logo (also `win`, `cmd`, `logo`).
    Super,
}

impl Key {
    /// The key with a letter's case folded: `S` and `s` are one key.
    pub fn lowercase(self) -> Key {
        match self {
            Key::Char(c) => Key::Char(c.to_lowercase().next().unwrap_or(c)),
            other => other,
        }
    }
}

/// `modifiers + key`, e.g. `ctrl+shift+p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    /// The modifiers held while `key` is pressed.
    pub modifiers: Modifiers,
    /// The key pressed last.
    pub key: Key,
}

fn modifier(name: &str) -> Option<ModifierKey> {
    Some(match name {
        "ctrl" | "control" | "ctl" => ModifierKey::Ctrl,
        "shift" => ModifierKey::Shift,
        "alt" | "option" | "meta" => ModifierKey::Alt,
        "super" | "win" | "windows" | "cmd" | "command" | "logo" => ModifierKey::Super,
        _ => return None,
    })
}

fn named(name: &str) -> Option<NamedKey> {
    use NamedKey::*;
    Some(match name {
        "enter" | "return" => Enter,
        "escape" | "esc" => Escape,
        "tab" => Tab,
        "space" => Space,
        "backspace" => Backspace,
        "delete" | "del" => Delete,
        "insert" | "ins" => Insert,
        "up" | "arrowup" | "uparrow" => Up,
        "down" | "arrowdown" | "downarrow" => Down,
        "left" | "arrowleft" | "leftarrow" => Left,
        "right" | "arrowright" | "rightarrow" => Right,
        "home" => Home,
        "end" => End,
        "pageup" | "pgup" | "page_up" | "prior" => PageUp,
        "pagedown" | "pgdn" | "page_down" | "next" => PageDown,
        "menu" | "contextmenu" => Menu,
        f if f.len() >= 2 && f.starts_with('f') && f[1..].chars().all(|c| c.is_ascii_digit()) => {
            let n: u8 = f[1..].parse().ok()?;
            if !(1..=24).contains(&n) {
                return None;
            }
            F(n)
        }
        _ => return None,
    })
}

impl KeyCombo {
    /// The character this chord types into a text field, if it types one:
    /// a character key with no modifier but Shift (a letter then upper
    /// case), or the space bar. Anything else (Enter, ctrl+v, an arrow)
    /// is a command to the application, not text.
    pub fn typed_char(&self) -> Option<char> {
        let Modifiers { ctrl: false, alt: false, superkey: false, shift } = self.modifiers else {
            return None;
        };
        match self.key {
            Key::Char(c) if shift => Some(c.to_uppercase().next().unwrap_or(c)),
            Key::Char(c) => Some(c),
            Key::Named(NamedKey::Space) => Some(' '),
            _ => None,
        }
    }

    /// Parses `ctrl+shift+p`, `Enter`, `F5`, `alt+F4`, `+`, `ctrl++`, `é`.
    /// Names are case-insensitive; a single character stands for itself.
    pub fn parse(text: &str) -> Result<KeyCombo, Refusal> {
        let bad = |why: String| Refusal::invalid_argument(format!("key combo {text:?}: {why}"));
        if text.trim().is_empty() && text != " " {
            return Err(bad("it is empty".into()));
        }
        // `+` is both the separator and a key: a trailing "++" or a lone "+" names the key.
        let (head, last) = if text == "+" {
            ("", "+")
        } else if let Some(head) = text.strip_suffix("++") {
            (head, "+")
        } else {
            match text.rsplit_once('+') {
                Some((head, last)) => (head, last),
                None => ("", text),
            }
        };
        let mut modifiers = Modifiers::default();
        if !head.is_empty() {
            for part in head.split('+') {
                let part = part.trim().to_ascii_lowercase();
                match modifier(&part) {
                    Some(ModifierKey::Ctrl) => modifiers.ctrl = true,
                    Some(ModifierKey::Shift) => modifiers.shift = true,
                    Some(ModifierKey::Alt) => modifiers.alt = true,
                    Some(ModifierKey::Super) => modifiers.superkey = true,
                    None if part.is_empty() => {
                        return Err(bad("it has an empty part between '+' signs".into()))
                    }
                    None => {
                        return Err(bad(format!(
                            "{part:?} is not a modifier (ctrl, shift, alt, super)"
                        )))
                    }
                }
            }
        }
        let last_trimmed = if last == " " { last } else { last.trim() };
        let lower = last_trimmed.to_lowercase();
        let mut chars = last_trimmed.chars();
        let key = match (chars.next(), chars.next()) {
            (Some(c), None) if !c.is_control() => Key::Char(c),
            (None, _) => return Err(bad("it ends without a key".into())),
            _ => match (named(&lower), modifier(&lower)) {
                (Some(k), _) => Key::Named(k),
                (None, Some(m)) => Key::Modifier(m),
                (None, None) => return Err(bad(format!("{last_trimmed:?} is not a key name (Enter, Escape, Tab, Space, Backspace, Delete, arrows, Home, End, PageUp, PageDown, F1–F24, or one character)"))),
            },
        };
        Ok(KeyCombo { modifiers, key })
    }
}

impl std::str::FromStr for KeyCombo {
    type Err = Refusal;

    fn from_str(text: &str) -> Result<KeyCombo, Refusal> {
        KeyCombo::parse(text)
    }
}

/// On the wire a combo is its text (`ctrl+s`, `Enter`): a model or client
/// writes it so, and one that does not parse is refused with the parser's
/// sentence.
impl serde::Serialize for KeyCombo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for KeyCombo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        KeyCombo::parse(&text).map_err(|refusal| serde::de::Error::custom(refusal.message))
    }
}

impl schemars::JsonSchema for KeyCombo {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KeyCombo".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

/// `ctrl+shift`, as a combo writes the held part.
impl fmt::Display for Modifiers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self
            .keys()
            .into_iter()
            .map(|k| match k {
                ModifierKey::Ctrl => "ctrl",
                ModifierKey::Shift => "shift",
                ModifierKey::Alt => "alt",
                ModifierKey::Super => "super",
            })
            .collect();
        f.write_str(&names.join("+"))
    }
}

impl fmt::Display for KeyCombo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, name) in [
            (self.modifiers.ctrl, "ctrl"),
            (self.modifiers.shift, "shift"),
            (self.modifiers.alt, "alt"),
            (self.modifiers.superkey, "super"),
        ] {
            if on {
                write!(f, "{name}+")?;
            }
        }
        match self.key {
            Key::Named(NamedKey::F(n)) => write!(f, "F{n}"),
            Key::Named(k) => write!(f, "{k:?}"),
            Key::Char(c) => write!(f, "{c}"),
            Key::Modifier(m) => write!(f, "{m:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn combo(text: &str) -> KeyCombo {
        KeyCombo::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn names_are_case_insensitive_and_chords_compose() {
        assert_eq!(combo("ENTER").key, Key::Named(NamedKey::Enter));
        assert_eq!(combo("Return"), combo("enter"));
        let c = combo("Ctrl+Shift+p");
        assert!(c.modifiers.ctrl && c.modifiers.shift && !c.modifiers.alt);
        assert_eq!(c.key, Key::Char('p'));
        assert_eq!(combo("alt+F4").key, Key::Named(NamedKey::F(4)));
        assert_eq!(combo("f24").key, Key::Named(NamedKey::F(24)));
        assert_eq!(combo("super").key, Key::Modifier(ModifierKey::Super));
        assert_eq!(combo("PageDown").key, Key::Named(NamedKey::PageDown));
        assert_eq!(combo("ctrl+shift+p").to_string(), "ctrl+shift+p");
    }

    #[test]
    fn single_characters_stand_for_themselves() {
        assert_eq!(combo("+").key, Key::Char('+'));
        assert_eq!(
            combo("ctrl++"),
            KeyCombo {
                modifiers: Modifiers { ctrl: true, ..Default::default() },
                key: Key::Char('+')
            }
        );
        assert_eq!(combo("é").key, Key::Char('é'));
        assert_eq!(combo("中").key, Key::Char('中'));
        assert_eq!(combo("😀").key, Key::Char('😀'));
        assert_eq!(combo("A").key, Key::Char('A'));
        assert_eq!(combo(" ").key, Key::Char(' '));
    }

    #[test]
    fn a_combo_reads_back_from_its_text_and_travels_as_it() {
        for text in [
            "ctrl+shift+p",
            "Enter",
            "Return",
            "pagedown",
            "ctrl++",
            "+",
            " ",
            "é",
            "super",
            "ctrl+shift",
            "alt+F4",
            "shift+Tab",
            "Menu",
            "ctrl+A",
        ] {
            let parsed = combo(text);
            assert_eq!(combo(&parsed.to_string()), parsed, "{text:?} → {parsed}");
            let json = serde_json::to_value(parsed).unwrap();
            assert_eq!(json, serde_json::json!(parsed.to_string()));
            assert_eq!(serde_json::from_value::<KeyCombo>(json).unwrap(), parsed);
        }
        let refused = serde_json::from_value::<KeyCombo>(serde_json::json!("hyper+a")).unwrap_err();
        assert!(refused.to_string().contains("not a modifier"), "{refused}");
    }

    #[test]
    fn unknown_names_are_refused() {
        for bad in [
            "", "  ", "F0", "F25", "ctrl+", "hyper+a", "Entr", "ctrl++a", "ctrl+ +a", "ab", "\u{7}",
        ] {
            let e = KeyCombo::parse(bad).expect_err(bad);
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{bad:?}");
        }
    }
}
