//! A question the agent puts to the person (`ask_user`): its text and, when
//! the answer is one of a few, the choices. The answer comes back through
//! the surface's prompt channel; the host checks both ends.

use crate::error::Refusal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest question, in characters.
pub const MAX_QUESTION_CHARS: usize = 500;
/// Most choices a question offers.
pub const MAX_CHOICES: usize = 8;
/// Longest choice, in characters.
pub const MAX_CHOICE_CHARS: usize = 80;
/// Longest answer taken, in characters.
pub const MAX_ANSWER_CHARS: usize = 2000;

/// What the agent asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Question {
    /// The question, as the person will read it.
    pub text: String,
    /// When the answer is one of these, the choices; empty for a free answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

impl Question {
    /// A readable question with at most [`MAX_CHOICES`] distinct, short choices.
    pub fn validate(&self) -> Result<(), Refusal> {
        let length = self.text.trim().chars().count();
        if length == 0 || self.text.chars().count() > MAX_QUESTION_CHARS {
            return Err(Refusal::invalid_argument(format!(
                "a question of {length} characters: 1 to {MAX_QUESTION_CHARS}"
            )));
        }
        if self.choices.len() > MAX_CHOICES {
            return Err(Refusal::invalid_argument(format!(
                "{} choices: at most {MAX_CHOICES}",
                self.choices.len()
            )));
        }
        for (i, choice) in self.choices.iter().enumerate() {
            let length = choice.trim().chars().count();
            if length == 0 || choice.chars().count() > MAX_CHOICE_CHARS {
                return Err(Refusal::invalid_argument(format!(
                    "choice {} has {length} characters: 1 to {MAX_CHOICE_CHARS}",
                    i + 1
                )));
            }
            if self.choices[..i].contains(choice) {
                return Err(Refusal::invalid_argument(format!("choice {choice:?} is given twice")));
            }
        }
        if self
            .text
            .chars()
            .chain(self.choices.iter().flat_map(|c| c.chars()))
            .any(|c| c.is_control() && c != '\n')
        {
            return Err(Refusal::invalid_argument("a question or choice with a control character"));
        }
        Ok(())
    }

    /// `answer` as this question takes it: within [`MAX_ANSWER_CHARS`], and one of the choices
    /// (compared without case, answered as the choice is spelt) when there are choices.
    pub fn accepts(&self, answer: &str) -> Result<String, Refusal> {
        let answer = answer.trim();
        if answer.chars().count() > MAX_ANSWER_CHARS {
            return Err(Refusal::invalid_argument(format!(
                "an answer of {} characters: at most {MAX_ANSWER_CHARS}",
                answer.chars().count()
            )));
        }
        if self.choices.is_empty() {
            return Ok(answer.to_owned());
        }
        // A choice is shown made visible ([`crate::visible`]): either spelling picks it.
        let picks = |c: &&String| {
            c.eq_ignore_ascii_case(answer) || crate::visible(c).eq_ignore_ascii_case(answer)
        };
        self.choices.iter().find(picks).cloned().ok_or_else(|| {
            Refusal::invalid_argument(format!(
                "the answer {answer:?} is not one of the choices ({})",
                self.choices.join(", ")
            ))
        })
    }

    /// The question as a person reads it, marked as the agent's own words
    /// and quoted whole ([`crate::quoted`]: a newline, a control or a
    /// bidirectional character is shown, not acted on, so the agent cannot
    /// make its words pass for glovebox's), with its choices.
    pub fn shown(&self) -> String {
        let asked = format!("The agent asks, in its own words: {}", crate::quoted(&self.text));
        match self.choices.as_slice() {
            [] => asked,
            choices => {
                let choices: Vec<String> = choices.iter().map(|c| crate::quoted(c)).collect();
                format!("{asked} Choose one: {}", choices.join(" / "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(text: &str, choices: &[&str]) -> Question {
        Question { text: text.into(), choices: choices.iter().map(|c| c.to_string()).collect() }
    }

    #[test]
    fn a_question_and_its_answer_are_bounded_and_choices_hold() {
        let q = question("Which account?", &["Work", "Home"]);
        assert!(q.validate().is_ok());
        assert_eq!(q.accepts(" home ").unwrap(), "Home");
        assert!(q.accepts("Other").is_err());
        assert_eq!(question("Your code?", &[]).accepts("123 456").unwrap(), "123 456");
        assert!(question("", &[]).validate().is_err());
        assert!(question(&"x".repeat(MAX_QUESTION_CHARS + 1), &[]).validate().is_err());
        assert!(question("q", &["a"; MAX_CHOICES + 1]).validate().is_err());
        assert!(question("q", &["a", "a"]).validate().is_err());
        assert!(question("q", &[""]).validate().is_err());
        assert!(question("q\u{7}", &[]).validate().is_err());
        assert!(question("q", &[]).accepts(&"a".repeat(MAX_ANSWER_CHARS + 1)).is_err());
        assert_eq!(
            q.shown(),
            "The agent asks, in its own words: \"Which account?\" Choose one: \"Work\" / \"Home\""
        );
        let forged = question("Continue?\n\nglovebox: approved \u{202e}", &["y\u{202e}es"]);
        assert!(forged.validate().is_ok());
        let shown = forged.shown();
        assert!(!shown.contains('\n') && !shown.contains('\u{202e}'), "{shown:?}");
        assert!(shown.contains(r#""Continue?\n\nglovebox: approved \u{202e}""#), "{shown}");
        assert_eq!(forged.accepts(r"y\u{202e}es").unwrap(), "y\u{202e}es", "as it was shown");
    }
}
