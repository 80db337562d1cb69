//! Approvals (DESIGN.md §7), decided here and nowhere else: each call
//! belongs to a class (observe, input, foreground) whose policy is allow,
//! prompt or deny; input on an element whose name reads like a
//! consequential act (send, pay, delete, …) asks whatever its class says;
//! a provider's safety check is acknowledged only by the user's explicit yes.
//!
//! A surface supplies only its way to reach the person, a
//! [`crate::person::PersonChannel`]: MCP elicitation, the terminal, or none
//! (every prompt then fails closed). The host builds the
//! [`ApprovalRequest`], words the question and turns the
//! [`crate::person::Answer`] into a refusal; nothing here approves on the
//! user's behalf.

use glovebox_model::{Action, ApprovalClass, ApprovalMode, Button, Policy, Target};

/// The approval settings of one host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approvals {
    /// The policy of looking at the desktop (listing, observing, reading).
    pub observe: Policy,
    /// The policy of input delivered in the background.
    pub input: Policy,
    /// The policy of input with the real pointer and keyboard.
    pub foreground: Policy,
    /// Lower-cased words; a name with a word starting with one asks first.
    pub consequential: Vec<String>,
    /// Typing into a window that cannot say which field is a password
    /// field (no tree, or elements only seen in its pixels): asks in every
    /// mode but `yolo`, even where the input class allows.
    pub unknown_field_typing: Policy,
}

impl Approvals {
    /// The classes a mode sets; `custom` takes the three policies as given.
    pub fn new(mode: ApprovalMode, custom: [Policy; 3], consequential: &[String]) -> Approvals {
        let unknown_field_typing = match mode {
            ApprovalMode::Yolo => Policy::Allow,
            _ => Policy::Prompt,
        };
        let [observe, input, foreground] = match mode {
            ApprovalMode::Write => [Policy::Allow, Policy::Prompt, Policy::Prompt],
            ApprovalMode::Yolo => [Policy::Allow; 3],
            ApprovalMode::AlwaysAsk => [Policy::Prompt; 3],
            ApprovalMode::Custom => custom,
        };
        Approvals {
            observe,
            input,
            foreground,
            consequential: consequential
                .iter()
                .map(|t| t.trim().to_lowercase())
                .filter(|t| !t.is_empty())
                .collect(),
            unknown_field_typing,
        }
    }

    /// Every class allowed and nothing consequential: for tests and
    /// embedders that approve elsewhere.
    pub fn allow_all() -> Approvals {
        Approvals {
            observe: Policy::Allow,
            input: Policy::Allow,
            foreground: Policy::Allow,
            consequential: vec![],
            unknown_field_typing: Policy::Allow,
        }
    }

    /// The consequential term `name` reads like, if any (words, not substrings).
    pub fn consequential_term(&self, name: &str) -> Option<&str> {
        let lower = name.to_lowercase();
        let words: Vec<&str> =
            lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        self.consequential
            .iter()
            .find(|term| words.iter().any(|w| w.starts_with(term.as_str())))
            .map(String::as_str)
    }

    fn class_policy(&self, class: ApprovalClass) -> Policy {
        match class {
            ApprovalClass::Observe => self.observe,
            ApprovalClass::Input => self.input,
            ApprovalClass::Foreground => self.foreground,
        }
    }

    /// What a call of `class` on targets named `names` needs.
    pub fn verdict(&self, class: ApprovalClass, names: &[String]) -> Verdict {
        let base = self.class_policy(class);
        if class == ApprovalClass::Observe || base == Policy::Deny {
            return Verdict { policy: base, escalation: None, escalated_by: None };
        }
        match names.iter().find_map(|n| {
            self.consequential_term(n).map(|t| (n.clone(), format!("{n:?} reads like {t:?}")))
        }) {
            Some((name, why)) => {
                Verdict { policy: Policy::Prompt, escalation: Some(why), escalated_by: Some(name) }
            }
            None => Verdict { policy: base, escalation: None, escalated_by: None },
        }
    }
}

/// The policy a call gets, and why it asks when a consequential name made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Allow, prompt or deny, after escalation.
    pub policy: Policy,
    /// The sentence saying why (`"Send" reads like "send"`).
    pub escalation: Option<String>,
    /// The name that escalated.
    pub escalated_by: Option<String>,
}

/// What the user is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A call of an approval class: one line per action, in order.
    Call {
        /// The class whose policy asked.
        class: ApprovalClass,
        /// What the call would do (`click "Save"`).
        actions: Vec<String>,
    },
    /// A provider's safety check on a step the model proposed.
    SafetyCheck {
        /// The provider's id of the check; an acknowledgement names it.
        id: String,
        /// The provider's kind of check, when it gives one.
        code: Option<String>,
        /// The provider's explanation, when it gives one.
        message: Option<String>,
        /// The proposed step, one line per action.
        step: Vec<String>,
    },
}

/// One question for the user, built by the host. The text a call would
/// type is shown word for word ([`Typed`]): the person judges what goes
/// in, and the agent that asked knows it anyway; field values never.
/// Everything an application or an agent wrote (names, titles, the text)
/// is shown through [`visible`], so it cannot rewrite the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// What is asked about: a call of a class, or a safety check.
    pub subject: Subject,
    /// The bound window, as `app (pid/xid)`.
    pub window: Option<String>,
    /// The frame an input was checked against: an answer given for one
    /// frame never approves the same action on another.
    pub frame: Option<glovebox_model::FrameId>,
    /// Role and name of each element the call touches.
    pub targets: Vec<(glovebox_model::Role, String)>,
    /// Characters the call would enter.
    pub text_characters: usize,
    /// The text the call would enter, piece by piece, in order.
    pub typed: Vec<Typed>,
    /// Where the text goes when the person must read it to judge the call
    /// (a terminal runs it; a window without a tree cannot say whether
    /// the field is a password field): such text is approved only by a
    /// question that showed it, never by a standing approval that did not.
    pub typed_into: Option<ShownBecause>,
    /// Anything else worth showing (the application to start).
    pub detail: Option<String>,
    /// Why this asks although the class would not (a consequential name).
    pub escalation: Option<String>,
}

impl ApprovalRequest {
    /// A call of `class` doing `actions`.
    pub fn call(class: ApprovalClass, actions: Vec<String>) -> ApprovalRequest {
        ApprovalRequest {
            subject: Subject::Call { class, actions },
            window: None,
            frame: None,
            targets: vec![],
            text_characters: 0,
            typed: vec![],
            typed_into: None,
            detail: None,
            escalation: None,
        }
    }

    /// The approval class asked about; `None` for a safety check.
    pub fn class(&self) -> Option<ApprovalClass> {
        match &self.subject {
            Subject::Call { class, .. } => Some(*class),
            Subject::SafetyCheck { .. } => None,
        }
    }

    /// The question as the user reads it: the one sentence every prompt channel shows.
    pub fn question(&self) -> String {
        self.sentence(true)
    }

    /// The question without the typed text it shows, for what is kept or
    /// told elsewhere (a refusal saying the call waits, which the audit
    /// records).
    pub fn question_without_text(&self) -> String {
        self.sentence(false)
    }

    /// The texts a standing approval must have shown to cover this call:
    /// those typed where the person must read them ([`Self::typed_into`]).
    pub(crate) fn must_have_shown(&self) -> &[Typed] {
        match self.typed_into {
            Some(_) => &self.typed,
            None => &[],
        }
    }

    fn sentence(&self, with_text: bool) -> String {
        let window = visible(self.window.as_deref().unwrap_or("the bound window"));
        let mut text = match &self.subject {
            Subject::Call { class, actions } => {
                let on = self
                    .targets
                    .iter()
                    .map(|(role, name)| format!("{role} {}", glovebox_model::quoted(name)))
                    .collect::<Vec<_>>()
                    .join(" and ");
                let actions: Vec<String> = actions.iter().map(|a| visible(a)).collect();
                let mut text = format!("glovebox wants to {} ", actions.join(", then "));
                if !on.is_empty() {
                    text.push_str(&format!("on {on} "));
                }
                text.push_str(&format!("in {window}"));
                if *class == ApprovalClass::Foreground {
                    text.push_str(", using your real pointer and keyboard for a moment");
                }
                text
            }
            Subject::SafetyCheck { code, message, step, .. } => format!(
                "The model's provider flagged a step ({}): {}. The step: {} in {window}",
                visible(code.as_deref().unwrap_or("safety check")),
                visible(message.as_deref().unwrap_or("no details given")),
                visible(&step.join(", "))
            ),
        };
        if self.text_characters > 0 {
            text.push_str(&format!(", entering {} character(s)", self.text_characters));
            if with_text && !self.typed.is_empty() {
                let into = match self.typed_into {
                    Some(ShownBecause::Terminal) => " into a terminal",
                    Some(ShownBecause::NoTree) => {
                        " into a window that does not say what it is (no accessibility tree)"
                    }
                    None => "",
                };
                let pieces: Vec<String> = self.typed.iter().map(Typed::shown).collect();
                text.push_str(&format!("{into}: {}", pieces.join(", then ")));
            }
        }
        if let Some(detail) = &self.detail {
            text.push_str(&format!(" ({})", visible(detail)));
        }
        if let Some(why) = &self.escalation {
            text.push_str(&format!(". Asking because {}", visible(why)));
        }
        text.push_str(match self.subject {
            Subject::Call { .. } => ". Approve?",
            Subject::SafetyCheck { .. } => ". Acknowledge and let it run?",
        });
        text
    }
}

/// A piece of text a call would enter, as its question shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// Entered word for word; the question shows its first 300 characters.
    Text(String),
    /// Text the question cannot show, and why (a recording that did not
    /// keep it: the person replaying gives it when the step runs).
    Withheld {
        /// Its length.
        characters: usize,
        /// Why it is not shown.
        why: String,
    },
}

impl Typed {
    /// Longest text shown whole; the rest is counted.
    const MAX_SHOWN: usize = 300;

    /// Its length in characters.
    pub fn characters(&self) -> usize {
        match self {
            Typed::Text(text) => text.chars().count(),
            Typed::Withheld { characters, .. } => *characters,
        }
    }

    fn shown(&self) -> String {
        match self {
            Typed::Text(text) => {
                let shown: String = text.chars().take(Self::MAX_SHOWN).collect();
                let more = text.chars().count().saturating_sub(Self::MAX_SHOWN);
                let more =
                    if more > 0 { format!(" and {more} more character(s)") } else { String::new() };
                // Escaped, so a newline or a control character is seen, not acted on.
                format!("{}{more}", glovebox_model::quoted(&shown))
            }
            Typed::Withheld { characters, why } => {
                format!("{characters} character(s) not shown ({})", visible(why))
            }
        }
    }
}

/// Why a question must show the typed text for the person to judge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownBecause {
    /// The focused element is a terminal.
    Terminal,
    /// The window exposes no accessibility tree.
    NoTree,
}

/// `text` as a person may be shown it: what an application or an agent
/// wrote, with every character that could rewrite what the person reads
/// (see [`glovebox_model::visible`]) shown escaped.
fn visible(text: &str) -> String {
    glovebox_model::visible(text).into_owned()
}

/// An approval the user gave for a whole span of calls (a run of the loop,
/// one provider batch): prompts of `class` (and, for input, observation)
/// inside it are already answered, except consequential targets unless the
/// user was shown them, text typed where the person must read it unless
/// the question showed that text, and foreground delivery, which always
/// asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Standing {
    pub(crate) class: ApprovalClass,
    /// Names of consequential targets the user was shown when approving (a
    /// batch whose targets were known): these do not ask again one by one.
    pub(crate) shown: Vec<String>,
    /// The texts the question showed word for word: a step typing one of
    /// them into a terminal or a window without a tree asks no more.
    pub(crate) shown_texts: Vec<String>,
}

impl Standing {
    /// Whether this approval answers a call of `class`, escalated by the
    /// consequential name `escalated_by`, that must have shown `texts`
    /// (a withheld text was never shown, so it is never covered).
    pub(crate) fn covers(
        &self,
        class: ApprovalClass,
        escalated_by: Option<&str>,
        texts: &[Typed],
    ) -> bool {
        let class_covered = matches!(
            (self.class, class),
            (ApprovalClass::Input, ApprovalClass::Observe | ApprovalClass::Input)
                | (ApprovalClass::Observe, ApprovalClass::Observe)
        );
        class_covered
            && escalated_by.is_none_or(|name| self.shown.iter().any(|s| s == name))
            && texts.iter().all(|typed| match typed {
                Typed::Text(text) => self.shown_texts.contains(text),
                Typed::Withheld { .. } => false,
            })
    }
}

/// One line describing `action` for a prompt: what it does, never the text.
pub fn describe_action(action: &Action) -> String {
    let at = |t: &Target| match t {
        Target::Point(p) => format!(" at ({}, {})", p.x, p.y),
        Target::Element(e) => format!(" {e}"),
    };
    let held = action.modifiers();
    let holding = if held.is_empty() { String::new() } else { format!(" with {held} held") };
    let line = match action {
        Action::Click { target, button, count, .. } => {
            let button = match button {
                Button::Left => "",
                Button::Right => "right-",
                Button::Middle => "middle-",
                Button::Back => "back-button ",
                Button::Forward => "forward-button ",
            };
            let times = if *count > 1 { format!(" ×{count}") } else { String::new() };
            format!("{button}click{times}{}", at(target))
        }
        Action::Move { target, .. } => format!("move the pointer{}", at(target)),
        Action::Drag { from, to, .. } => format!("drag from{} to{}", at(from), at(to)),
        Action::Scroll { target, dx, dy, .. } => format!("scroll {dx}, {dy} step(s){}", at(target)),
        Action::Type { .. } => "type".into(),
        Action::Key { combo, repeat } if *repeat > 1 => format!("press {combo} ×{repeat}"),
        Action::Key { combo, .. } => format!("press {combo}"),
        Action::SetValue { target, .. } => format!("set the value of{}", at(target)),
        Action::Select { target, option } => format!("choose {option:?} in{}", at(target)),
    };
    line + &holding
}

/// Who asked what: the surface's identity of one call (its client, the
/// tool, the exact arguments). The host only compares keys; a surface
/// builds them with [`CallKey::new`] from whatever identifies a call there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallKey(u64);

impl CallKey {
    /// A key over `parts` (hashed with a per-process secret seed, so a key
    /// holds no argument text and cannot be predicted from outside).
    pub fn new(parts: &[&str]) -> CallKey {
        use std::hash::{BuildHasher as _, Hash as _, Hasher as _};
        static SEED: std::sync::OnceLock<std::collections::hash_map::RandomState> =
            std::sync::OnceLock::new();
        let mut hasher = SEED.get_or_init(Default::default).build_hasher();
        for part in parts {
            part.hash(&mut hasher);
        }
        CallKey(hasher.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_set_the_classes_and_consequential_names_escalate() {
        let terms: Vec<String> = ["send", "löschen", "pay"].iter().map(|s| s.to_string()).collect();
        let yolo = Approvals::new(ApprovalMode::Yolo, [Policy::Deny; 3], &terms);
        assert_eq!(yolo.verdict(ApprovalClass::Input, &["Cancel".into()]).policy, Policy::Allow);
        assert_eq!(
            yolo.verdict(ApprovalClass::Input, &["Send message".into()]).policy,
            Policy::Prompt
        );
        assert_eq!(
            yolo.verdict(ApprovalClass::Input, &["Jetzt LÖSCHEN".into()]).policy,
            Policy::Prompt
        );
        assert_eq!(yolo.verdict(ApprovalClass::Input, &["Payment".into()]).policy, Policy::Prompt);
        assert_eq!(
            yolo.verdict(ApprovalClass::Input, &["Resend".into()]).policy,
            Policy::Allow,
            "words, not substrings"
        );
        let write = Approvals::new(ApprovalMode::Write, [Policy::Deny; 3], &[]);
        assert_eq!(write.verdict(ApprovalClass::Observe, &[]).policy, Policy::Allow);
        assert_eq!(write.verdict(ApprovalClass::Input, &[]).policy, Policy::Prompt);
        let custom = Approvals::new(
            ApprovalMode::Custom,
            [Policy::Allow, Policy::Deny, Policy::Prompt],
            &terms,
        );
        assert_eq!(
            custom.verdict(ApprovalClass::Input, &["Send".into()]).policy,
            Policy::Deny,
            "deny stays deny"
        );
        assert_eq!(
            custom.verdict(ApprovalClass::Observe, &["Send".into()]).policy,
            Policy::Allow,
            "observation never escalates"
        );
    }

    #[test]
    fn a_standing_approval_covers_its_class_but_not_foreground_or_unseen_consequential_targets() {
        let run = Standing { class: ApprovalClass::Input, shown: vec![], shown_texts: vec![] };
        assert!(run.covers(ApprovalClass::Input, None, &[]));
        assert!(run.covers(ApprovalClass::Observe, None, &[]));
        assert!(!run.covers(ApprovalClass::Input, Some("Send"), &[]));
        assert!(!run.covers(ApprovalClass::Foreground, None, &[]));
        let typed = |t: &str| [Typed::Text(t.into())];
        assert!(!run.covers(ApprovalClass::Input, None, &typed("ls")), "a command it never showed");
        let batch = Standing {
            class: ApprovalClass::Input,
            shown: vec!["Send".into()],
            shown_texts: vec!["ls -la".into()],
        };
        assert!(batch.covers(ApprovalClass::Input, Some("Send"), &[]), "the user saw this one");
        assert!(!batch.covers(ApprovalClass::Input, Some("Delete"), &[]), "but not this one");
        assert!(batch.covers(ApprovalClass::Input, None, &typed("ls -la")), "the text it showed");
        assert!(!batch.covers(ApprovalClass::Input, None, &typed("rm -rf ~")), "but not another");
        let withheld = [Typed::Withheld { characters: 6, why: "not kept".into() }];
        assert!(!batch.covers(ApprovalClass::Input, None, &withheld), "never shown");
        let look = Standing { class: ApprovalClass::Observe, shown: vec![], shown_texts: vec![] };
        assert!(!look.covers(ApprovalClass::Input, None, &[]));
    }

    #[test]
    fn the_question_shows_the_text_and_escapes_what_others_wrote() {
        let mut request = ApprovalRequest::call(ApprovalClass::Input, vec!["type".into()]);
        request.targets = vec![(glovebox_model::Role::Text, "Name".into())];
        request.window = Some("Fixture (1/0x2)".into());
        request.text_characters = 4;
        request.typed = vec![Typed::Text("Ada\n".into())];
        assert_eq!(request.question(), "glovebox wants to type on text \"Name\" in Fixture (1/0x2), entering 4 character(s): \"Ada\\n\". Approve?");
        assert_eq!(request.question_without_text(), "glovebox wants to type on text \"Name\" in Fixture (1/0x2), entering 4 character(s). Approve?");
        // A class or a name that would move the cursor back, hide or reorder the text.
        request.window = Some("evil\r\u{1b}[8m (1/0x3)".into());
        request.targets = vec![(glovebox_model::Role::PushButton, "OK\u{202e}kO".into())];
        let asked = request.question();
        assert!(!asked.chars().any(|c| c.is_control() || c == '\u{202e}'), "{asked:?}");
        assert!(asked.contains("evil\\r\\u{1b}[8m") && asked.contains("OK\\u{202e}kO"), "{asked}");
        request.typed = vec![Typed::Withheld { characters: 4, why: "not kept".into() }];
        assert!(request.question().contains("4 character(s) not shown (not kept)"));
    }
}
