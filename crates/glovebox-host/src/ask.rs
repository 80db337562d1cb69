//! The agent's questions to the person (`ask_user`): a login's second
//! factor, a choice only the person can make. The surface supplies the
//! channel (an elicitation on MCP, the terminal for `glovebox run`); with
//! none, the indicator page asks, and with no page either the call is
//! refused at once. The host checks the question and the answer, waits a
//! bounded time, and audits the question and that it was answered — the
//! answer itself only when the person did not keep it private.

use crate::Host;
use glovebox_model::{Question, Refusal};
use glovebox_services::audit::AuditRecord;
use std::time::{Duration, Instant};

/// What the person said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// An answer.
    Answer {
        /// What the person answered.
        text: String,
        /// Keep it out of the audit.
        private: bool,
    },
    /// The person declined to answer, or cancelled.
    Declined,
    /// The channel could not put the question; said why.
    Unavailable(String),
}

/// The person's answer as the host took it: within the question's bounds,
/// a choice spelt as offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// The answer.
    pub text: String,
    /// The person kept it out of the audit (the agent still gets it).
    pub private: bool,
}

/// A surface's channel for the agent's questions. It only asks and reports.
pub trait Asker: Send + Sync {
    /// Puts `question` to the person and waits for what they say.
    fn ask_user(&self, question: &Question) -> Said;
}

/// The indicator page as a channel, for a surface that has no other (what
/// [`Host::ask_user`] uses when it is given none).
pub struct OnThePage(pub Host);

impl Asker for OnThePage {
    fn ask_user(&self, question: &Question) -> Said {
        self.0.ask_on_page(question)
    }
}

/// How often the page's answer is looked for.
const PAGE_POLL: Duration = Duration::from_millis(100);

impl Host {
    /// Puts `question` to the person through `channel` (or, with none, the indicator page) and
    /// hands back their answer. A declined question is `COMPUTER_APPROVAL_DENIED`; no way to
    /// reach the person, or no answer within the wait, `COMPUTER_APPROVAL_REQUIRED`.
    pub fn ask_user(
        &self,
        question: &Question,
        channel: Option<&dyn Asker>,
    ) -> Result<Answered, Refusal> {
        self.inner.config.check_enabled()?;
        question.validate()?;
        let mut record = AuditRecord::new("asked-user");
        record.detail = Some(question.shown());
        self.audit(record);
        let said = match channel {
            Some(channel) => channel.ask_user(question),
            None => self.ask_on_page(question),
        };
        let mut record = AuditRecord::new("user-answered");
        let result = match said {
            Said::Answer { text, private } => match question.accepts(&text) {
                Ok(answer) => {
                    record.detail = Some(match private {
                        true => "answered; the person kept the answer private".into(),
                        false => format!("answered: {answer}"),
                    });
                    Ok(Answered { text: answer, private })
                }
                Err(refusal) => {
                    record.event = "user-answer-refused".into();
                    record.detail = Some(match private {
                        true => "an answer outside the question's choices (kept private)".into(),
                        false => refusal.message.clone(),
                    });
                    Err(refusal)
                }
            },
            Said::Declined => {
                record.event = "user-declined".into();
                Err(crate::decide::session::person_declined())
            }
            Said::Unavailable(why) => {
                record.event = "user-unreachable".into();
                record.detail = Some(why.clone());
                Err(crate::decide::session::person_unreachable(&why))
            }
        };
        record.code = result.as_ref().err().map(|r| r.code);
        self.audit(record);
        result
    }

    /// The indicator page as the channel of last resort: the question shows there until it is
    /// answered, declined, Stop is pressed or the wait ends.
    fn ask_on_page(&self, question: &Question) -> Said {
        if self.indicator_url().is_none() {
            return Said::Unavailable(
                "this surface has no prompt channel and no indicator page is served".into(),
            );
        }
        let id = self.put_on_page(question.clone());
        let wait = self.inner.config.answer_wait;
        let started = Instant::now();
        let said = loop {
            if let Some(said) = self.take_page_answer(id) {
                break said;
            }
            if self.stopped() {
                break Said::Unavailable("the person pressed Stop".into());
            }
            if started.elapsed() >= wait {
                break Said::Unavailable(format!(
                    "no answer on the indicator page within {} s",
                    wait.as_secs()
                ));
            }
            std::thread::sleep(PAGE_POLL);
        };
        self.withdraw_from_page(id);
        said
    }
}
