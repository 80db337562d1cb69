//! Characters no key of the layout produces ("é" on a US keyboard, "東京",
//! emoji), typed by lending them spare key codes: codes the server maps to
//! nothing get the character's keysym for the length of one gesture and
//! are mapped to nothing again after it. Only codes no key sends are
//! changed, so what the user types at the same moment means what it meant;
//! the loan is given back on every path (drop), after the application said
//! it had read the keys (a `_NET_WM_PING` answered after them), since it
//! looks the keysym up in its copy of the mapping only as it reads each key.

use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use crate::keymap::{char_keysym, KeyStroke};
use glovebox_model::WindowInfo;
use glovebox_platform::{BackendError, BackendErrorKind};
use std::time::Duration;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, KeyButMask};

/// How long the application gets to say it read the keys typed on a loan
/// before the codes are taken back regardless.
const RETURN_WAIT: Duration = Duration::from_secs(2);

/// How long the text typed on a loan gets to show in the application's
/// field (where the caller can read it) before the codes are taken back.
const SHOWN_WAIT: Duration = Duration::from_secs(1);

/// Key codes lent to characters; mapped to nothing again on drop.
pub(crate) struct Loan<'a> {
    backend: &'a X11Backend,
    codes: Vec<u8>,
    keysyms_per_code: u8,
}

impl Loan<'_> {
    /// Waits until `window`'s client has read everything sent before (or
    /// [`RETURN_WAIT`] passed), then gives the codes back.
    pub(crate) fn return_after(self, window: &WindowInfo) {
        let _ = self.backend.acknowledge(window, RETURN_WAIT);
    }

    /// As [`Loan::return_after`], then also until `shown` says the typed
    /// text is in the application's field (or [`SHOWN_WAIT`] passed).
    /// Chromium answered the ping and still lost the last lent characters
    /// in one CI run: it may look keys up after it answered.
    pub(crate) fn return_once_shown(self, window: &WindowInfo, shown: &dyn Fn() -> bool) {
        let _ = self.backend.acknowledge(window, RETURN_WAIT);
        let deadline = std::time::Instant::now() + SHOWN_WAIT;
        while !shown() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Loan<'_> {
    fn drop(&mut self) {
        let nothing = vec![vec![0u32; usize::from(self.keysyms_per_code)]; self.codes.len()];
        let _ = self.backend.map_codes(&self.codes, self.keysyms_per_code, &nothing);
        let _ = self.backend.conn.get_input_focus().map(|c| c.reply());
    }
}

fn refused(why: String) -> BackendError {
    BackendError::new(BackendErrorKind::NoBackgroundRoute, why)
}

impl X11Backend {
    /// The characters of `text` no key produces, each once, in order; a
    /// refusal for a control character (no key route types one).
    fn unmapped_chars(&self, text: &str) -> Result<Vec<char>, BackendError> {
        let keymap = self.keymap()?;
        let mut missing = vec![];
        for c in text.chars() {
            if keymap.char_stroke(c).is_some() || missing.contains(&c) {
                continue;
            }
            if c.is_control() {
                return Err(refused(format!(
                    "U+{:04X} is a control character no key types",
                    c as u32
                )));
            }
            missing.push(c);
        }
        Ok(missing)
    }

    /// Key codes the server maps to no keysym and no modifier (no key of
    /// the keyboard sends them as anything), in ascending order.
    fn spare_codes(&self) -> Result<(Vec<u8>, u8), BackendError> {
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let mapping = self
            .conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let modifiers = self
            .conn
            .get_modifier_mapping()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let per = mapping.keysyms_per_keycode.max(1);
        let spare = mapping
            .keysyms
            .chunks(usize::from(per))
            .enumerate()
            .filter(|(_, syms)| syms.iter().all(|&s| s == 0))
            .map(|(i, _)| min + i as u8)
            // Code 255 is left alone: some servers treat the top code specially.
            .filter(|&code| code < max && !modifiers.keycodes.contains(&code))
            .collect();
        Ok((spare, per))
    }

    /// `wanted` spare codes, consecutive where the keyboard has such a run:
    /// one mapping change then covers them all, and every client of the
    /// display re-reads its keyboard mapping once, not once per character.
    fn pick_codes(spare: &[u8], wanted: usize) -> Vec<u8> {
        let run = spare.windows(wanted).find(|w| w.windows(2).all(|pair| pair[1] == pair[0] + 1));
        run.map(<[u8]>::to_vec).unwrap_or_else(|| spare.iter().copied().take(wanted).collect())
    }

    /// Maps `codes` to `syms` (one row of keysyms per code), in one request
    /// when the codes are consecutive.
    fn map_codes(&self, codes: &[u8], per: u8, rows: &[Vec<u32>]) -> Result<(), BackendError> {
        let consecutive = codes.windows(2).all(|pair| pair[1] == pair[0] + 1);
        match (consecutive, codes.first()) {
            (true, Some(&first)) => {
                let all: Vec<u32> = rows.concat();
                self.conn
                    .change_keyboard_mapping(codes.len() as u8, first, per, &all)
                    .map_err(connection_lost)?;
            }
            _ => {
                for (&code, row) in codes.iter().zip(rows) {
                    self.conn
                        .change_keyboard_mapping(1, code, per, row)
                        .map_err(connection_lost)?;
                }
            }
        }
        Ok(())
    }

    /// Whether every character of `text` can be typed by keys: on a key of
    /// the layout or on a lent code. Nothing is changed.
    pub fn check_typeable(&self, text: &str) -> Result<(), BackendError> {
        let missing = self.unmapped_chars(text)?;
        if missing.is_empty() {
            return Ok(());
        }
        let (spare, _) = self.spare_codes()?;
        match missing.len() <= spare.len() {
            true => Ok(()),
            false => Err(refused(format!(
                "the text holds {} different characters no key of this layout produces, and the keyboard has {} spare key codes to lend them",
                missing.len(),
                spare.len()
            ))),
        }
    }

    /// Strokes for `text`, with spare codes lent to the characters the
    /// layout lacks (the loan, if any, must outlive the typing).
    pub(crate) fn text_strokes(
        &self,
        text: &str,
    ) -> Result<(Vec<KeyStroke>, Option<Loan<'_>>), BackendError> {
        let missing = self.unmapped_chars(text)?;
        let keymap = self.keymap()?;
        if missing.is_empty() {
            return Ok((keymap.text(text)?, None));
        }
        self.check_typeable(text)?;
        let (spare, per) = self.spare_codes()?;
        let codes = Self::pick_codes(&spare, missing.len());
        let rows: Vec<Vec<u32>> = missing
            .iter()
            .map(|&c| {
                let mut row = vec![0u32; usize::from(per)];
                // Both levels: the character comes whatever the shift state.
                row.iter_mut().take(2).for_each(|s| *s = char_keysym(c));
                row
            })
            .collect();
        self.map_codes(&codes, per, &rows)?;
        let loan = Loan { backend: self, codes: codes.clone(), keysyms_per_code: per };
        let lent: std::collections::HashMap<char, u8> =
            missing.iter().copied().zip(codes).collect();
        // The server has applied the change (and queued its notices) before any key follows.
        self.conn
            .get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let strokes = text
            .chars()
            .map(|c| match keymap.char_stroke(c) {
                Some(stroke) => stroke,
                None => KeyStroke {
                    keycode: lent[&c],
                    state: KeyButMask::default(),
                    modifiers: [None; 4],
                },
            })
            .collect();
        Ok((strokes, Some(loan)))
    }
}
