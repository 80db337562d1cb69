//! A person's own input on the agent display, sent from the indicator
//! page's live view while they have taken the desktop over: where on the
//! picture they clicked or scrolled (as fractions of its width and height,
//! so the page need not know the display's size), the keys they pressed
//! and the text they typed. It never passes the gate's rules for the
//! agent's input (it is not the agent's), and it is never recorded.

use crate::action::Button;
use crate::error::Refusal;
use crate::keys::KeyCombo;
use serde::Deserialize;

/// Longest text one message from the page types.
pub const MAX_PERSON_TEXT: usize = 256;

/// A place on the agent display's picture: 0 is its left (top) edge, 1 its right (bottom).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenFraction {
    /// From the left edge.
    pub x: f64,
    /// From the top edge.
    pub y: f64,
}

/// One piece of a person's input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PersonInput {
    /// A press and release of `button` at `at`.
    Click {
        /// Where.
        at: ScreenFraction,
        /// Which button (default the primary one).
        #[serde(default = "primary")]
        button: Button,
    },
    /// Wheel steps at `at`: positive down.
    Scroll {
        /// Where the pointer is.
        at: ScreenFraction,
        /// How many steps.
        dy: i32,
    },
    /// A key with its modifiers, in the `key` action's spelling (`ctrl+a`, `Return`).
    Key {
        /// The combo.
        combo: String,
    },
    /// Characters typed as they are.
    Text {
        /// What is typed.
        text: String,
    },
}

fn primary() -> Button {
    Button::Left
}

/// Longest scroll one message makes.
const MAX_PERSON_SCROLL: i32 = 10;

impl PersonInput {
    /// Checks it is something a hand on the display could do: places on
    /// the picture, a key that exists, a bounded printable text.
    pub fn validate(&self) -> Result<(), Refusal> {
        let on_picture = |at: &ScreenFraction| {
            if [at.x, at.y].iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)) {
                Ok(())
            } else {
                Err(Refusal::invalid_argument(format!(
                    "({}, {}) is not on the picture: both are fractions from 0 to 1",
                    at.x, at.y
                )))
            }
        };
        match self {
            PersonInput::Click { at, .. } => on_picture(at),
            PersonInput::Scroll { at, dy } => {
                on_picture(at)?;
                if *dy == 0 || dy.abs() > MAX_PERSON_SCROLL {
                    return Err(Refusal::invalid_argument(format!(
                        "a scroll of {dy} steps: 1 to {MAX_PERSON_SCROLL} either way"
                    )));
                }
                Ok(())
            }
            PersonInput::Key { combo } => KeyCombo::parse(combo).map(drop),
            PersonInput::Text { text } => {
                if text.is_empty() || text.chars().count() > MAX_PERSON_TEXT {
                    return Err(Refusal::invalid_argument(format!(
                        "text of {} characters: 1 to {MAX_PERSON_TEXT}",
                        text.chars().count()
                    )));
                }
                if text.chars().any(char::is_control) {
                    return Err(Refusal::invalid_argument(
                        "text with a control character: send Return, Tab or BackSpace as a key",
                    ));
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(json: &str) -> Result<PersonInput, String> {
        serde_json::from_str::<PersonInput>(json)
            .map_err(|e| e.to_string())
            .and_then(|i| i.validate().map(|()| i).map_err(|r| r.message))
    }

    #[test]
    fn what_a_hand_could_do_is_taken_and_nothing_else() {
        assert_eq!(
            parsed(r#"{"type": "click", "at": {"x": 0.5, "y": 0.25}}"#).unwrap(),
            PersonInput::Click { at: ScreenFraction { x: 0.5, y: 0.25 }, button: Button::Left }
        );
        assert!(parsed(r#"{"type": "key", "combo": "ctrl+a"}"#).is_ok());
        assert!(parsed(r#"{"type": "text", "text": "Ada"}"#).is_ok());
        for bad in [
            r#"{"type": "click", "at": {"x": 1.5, "y": 0.2}}"#,
            r#"{"type": "click", "at": {"x": -0.1, "y": 0.2}}"#,
            r#"{"type": "scroll", "at": {"x": 0.1, "y": 0.2}, "dy": 0}"#,
            r#"{"type": "scroll", "at": {"x": 0.1, "y": 0.2}, "dy": 500}"#,
            r#"{"type": "key", "combo": "ctrl+nosuchkey"}"#,
            r#"{"type": "text", "text": ""}"#,
            r#"{"type": "text", "text": "line\nbreak"}"#,
            r#"{"type": "click", "at": {"x": 0.1, "y": 0.2}, "extra": 1}"#,
            r#"{"type": "drag"}"#,
        ] {
            assert!(parsed(bad).is_err(), "{bad}");
        }
        let long = format!(r#"{{"type": "text", "text": "{}"}}"#, "a".repeat(MAX_PERSON_TEXT + 1));
        assert!(parsed(&long).is_err());
    }
}
