//! Keys to X key codes: the server's keyboard mapping read once, then each
//! [`KeyCombo`] or character looked up as (key code, modifier mask). A key
//! the mapping cannot produce is refused, never replaced by another.

use glovebox_model::{Key, KeyCombo, ModifierKey, Modifiers, NamedKey};
use glovebox_platform::{BackendError, BackendErrorKind};
use std::collections::HashMap;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, KeyButMask};

/// One key press as X sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyStroke {
    pub keycode: u8,
    /// Modifier state the press carries (synthetic events) or needs held (XTest).
    pub state: KeyButMask,
    /// Key codes of the modifiers to hold, for routes that press them for real.
    pub modifiers: [Option<u8>; 4],
}

#[derive(Debug)]
pub struct Keymap {
    /// keysym → (keycode, shift level), lowest keycode and level first.
    codes: HashMap<u32, (u8, usize)>,
    /// Modifier masks of Alt and Super as this server maps them.
    alt_mask: KeyButMask,
    super_mask: KeyButMask,
}

const SHIFT_L: u32 = 0xffe1;
const CONTROL_L: u32 = 0xffe3;
const ALT_L: u32 = 0xffe9;
const SUPER_L: u32 = 0xffeb;

/// The X keysym of a named key.
fn named_keysym(key: NamedKey) -> u32 {
    match key {
        NamedKey::Enter => 0xff0d,
        NamedKey::Escape => 0xff1b,
        NamedKey::Tab => 0xff09,
        NamedKey::Space => 0x20,
        NamedKey::Backspace => 0xff08,
        NamedKey::Delete => 0xffff,
        NamedKey::Insert => 0xff63,
        NamedKey::Up => 0xff52,
        NamedKey::Down => 0xff54,
        NamedKey::Left => 0xff51,
        NamedKey::Right => 0xff53,
        NamedKey::Home => 0xff50,
        NamedKey::End => 0xff57,
        NamedKey::PageUp => 0xff55,
        NamedKey::PageDown => 0xff56,
        NamedKey::Menu => 0xff67,
        // F1 is 0xffbe and the rest follow in order up to F35.
        NamedKey::F(n) => 0xffbe + u32::from(n) - 1,
    }
}

/// The X keysym of a character: Latin-1 maps directly, everything else
/// through the Unicode keysym range.
pub fn char_keysym(c: char) -> u32 {
    match c {
        '\n' | '\r' => 0xff0d,
        '\t' => 0xff09,
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32,
        other => 0x0100_0000 + other as u32,
    }
}

fn modifier_keysym(m: ModifierKey) -> u32 {
    match m {
        ModifierKey::Ctrl => CONTROL_L,
        ModifierKey::Shift => SHIFT_L,
        ModifierKey::Alt => ALT_L,
        ModifierKey::Super => SUPER_L,
    }
}

/// The keysyms of modifiers held, in the order a combo presses them.
pub fn modifier_keysyms(mods: Modifiers) -> Vec<u32> {
    [(mods.ctrl, CONTROL_L), (mods.shift, SHIFT_L), (mods.alt, ALT_L), (mods.superkey, SUPER_L)]
        .into_iter()
        .filter_map(|(held, keysym)| held.then_some(keysym))
        .collect()
}

/// The keysyms a combo presses, modifiers first, the key last: for a
/// route that types keysyms itself (a compositor's remote desktop).
pub fn combo_keysyms(combo: &KeyCombo) -> Vec<u32> {
    let mut keysyms = modifier_keysyms(combo.modifiers);
    keysyms.push(match combo.key {
        Key::Named(k) => named_keysym(k),
        Key::Char(c) => char_keysym(c),
        Key::Modifier(m) => modifier_keysym(m),
    });
    keysyms
}

impl Keymap {
    pub fn read(conn: &impl Connection) -> Result<Keymap, BackendError> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let failed = |e: &dyn std::fmt::Display| {
            BackendError::unavailable(format!("reading the X keyboard mapping: {e}"))
        };
        let mapping = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(|e| failed(&e))?
            .reply()
            .map_err(|e| failed(&e))?;
        let per = usize::from(mapping.keysyms_per_keycode).max(1);
        let mut codes = HashMap::new();
        for (i, syms) in mapping.keysyms.chunks(per).enumerate() {
            // Levels 0 and 1 only: higher levels need AltGr/ISO shifts whose
            // modifier differs between layouts.
            for (level, &sym) in syms.iter().take(2).enumerate() {
                if sym != 0 {
                    codes.entry(sym).or_insert((min + i as u8, level));
                }
            }
        }
        let modmap =
            conn.get_modifier_mapping().map_err(|e| failed(&e))?.reply().map_err(|e| failed(&e))?;
        let per_mod = usize::from(modmap.keycodes_per_modifier()).max(1);
        let mask_of = |keysym: u32, fallback: KeyButMask| {
            let Some(&(code, _)) = codes.get(&keysym) else { return fallback };
            modmap
                .keycodes
                .chunks(per_mod)
                .position(|chunk| chunk.contains(&code))
                .map(|index| KeyButMask::from(1u16 << index))
                .unwrap_or(fallback)
        };
        let alt_mask = mask_of(ALT_L, KeyButMask::MOD1);
        let super_mask = mask_of(SUPER_L, KeyButMask::MOD4);
        Ok(Keymap { codes, alt_mask, super_mask })
    }

    fn code(&self, keysym: u32) -> Option<(u8, usize)> {
        self.codes.get(&keysym).copied()
    }

    fn unmapped(what: &str) -> BackendError {
        BackendError::new(
            BackendErrorKind::NoBackgroundRoute,
            format!("{what} has no key on this keyboard layout, so no key route can type it"),
        )
    }

    /// The stroke for a combo: the key's code, plus Shift when the key sits
    /// on the shifted level, plus the combo's own modifiers.
    pub fn combo(&self, combo: &KeyCombo) -> Result<KeyStroke, BackendError> {
        let keysym = match combo.key {
            Key::Named(k) => named_keysym(k),
            Key::Char(c) => char_keysym(c),
            Key::Modifier(m) => modifier_keysym(m),
        };
        let (keycode, level) = match (self.code(keysym), combo.key) {
            (Some(found), _) => found,
            // A letter combo names the key, whatever case was written.
            (None, Key::Char(c)) if c.is_ascii_uppercase() => self
                .code(char_keysym(c.to_ascii_lowercase()))
                .map(|(k, _)| (k, 1))
                .ok_or_else(|| Self::unmapped(&combo.to_string()))?,
            (None, _) => return Err(Self::unmapped(&combo.to_string())),
        };
        let mods = combo.modifiers;
        let mut state = KeyButMask::default();
        let mut held = [None; 4];
        let mut hold = |slot: usize, on: bool, mask: KeyButMask, keysym: u32| {
            if on {
                state |= mask;
                held[slot] = self.code(keysym).map(|(code, _)| code);
            }
        };
        hold(0, mods.ctrl, KeyButMask::CONTROL, CONTROL_L);
        hold(1, mods.shift || level == 1, KeyButMask::SHIFT, SHIFT_L);
        hold(2, mods.alt, self.alt_mask, ALT_L);
        hold(3, mods.superkey, self.super_mask, SUPER_L);
        Ok(KeyStroke { keycode, state, modifiers: held })
    }

    /// The state mask of `held` modifiers as this server maps them.
    pub fn mask(&self, held: Modifiers) -> KeyButMask {
        let mut mask = KeyButMask::default();
        for (on, bit) in [
            (held.ctrl, KeyButMask::CONTROL),
            (held.shift, KeyButMask::SHIFT),
            (held.alt, self.alt_mask),
            (held.superkey, self.super_mask),
        ] {
            if on {
                mask |= bit;
            }
        }
        mask
    }

    /// The key codes to press for `held` modifiers, or a refusal naming one
    /// this keyboard has no key for.
    pub fn modifier_codes(&self, held: Modifiers) -> Result<Vec<u8>, BackendError> {
        held.keys()
            .into_iter()
            .map(|key| {
                self.code(modifier_keysym(key))
                    .map(|(code, _)| code)
                    .ok_or_else(|| Self::unmapped(&format!("{key:?}")))
            })
            .collect()
    }

    /// The stroke that types `c` on this layout, if a key produces it.
    pub fn char_stroke(&self, c: char) -> Option<KeyStroke> {
        let (keycode, level) = self.code(char_keysym(c))?;
        let shift = level == 1;
        Some(KeyStroke {
            keycode,
            state: if shift { KeyButMask::SHIFT } else { KeyButMask::default() },
            modifiers: [
                None,
                if shift { self.code(SHIFT_L).map(|(c, _)| c) } else { None },
                None,
                None,
            ],
        })
    }

    /// Strokes for every character of `text`, or a refusal naming the first
    /// character no key produces (nothing is typed then).
    pub fn text(&self, text: &str) -> Result<Vec<KeyStroke>, BackendError> {
        text.chars()
            .map(|c| {
                self.char_stroke(c)
                    .ok_or_else(|| Self::unmapped(&format!("{c:?} (U+{:04X})", c as u32)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms_follow_the_x_tables() {
        assert_eq!(char_keysym('a'), 0x61);
        assert_eq!(char_keysym('é'), 0xe9);
        assert_eq!(char_keysym('中'), 0x0100_4e2d);
        assert_eq!(named_keysym(NamedKey::F(1)), 0xffbe);
        assert_eq!(named_keysym(NamedKey::F(12)), 0xffc9);
        assert_eq!(named_keysym(NamedKey::F(24)), 0xffd5);
    }
}
