//! The agent's questions to the person (`ask_user`): a login's second
//! factor, a choice only the person can make. They go through the handle's
//! one way to reach the person ([`crate::person`]): an elicitation on MCP,
//! the terminal for `glovebox run`, a retry's answer across calls. When
//! that channel cannot reach anyone, the indicator page asks, and with no
//! page either the call is refused at once. The host checks the question
//! and the answer, waits a bounded time, and audits the question and that
//! it was answered — the answer itself only when the person did not keep
//! it private.

use crate::person::{Answer, Request};
use crate::Host;
use glovebox_model::{Question, Refusal};
use glovebox_services::audit::AuditRecord;
use std::time::{Duration, Instant};

/// The person's answer as the host took it: within the question's bounds,
/// a choice spelt as offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// The answer.
    pub text: String,
    /// The person kept it out of the audit (the agent still gets it).
    pub private: bool,
}

/// How often the page's answer is looked for.
const PAGE_POLL: Duration = Duration::from_millis(100);

impl Host {
    /// Puts `question` to the person through this handle's channel (or, when that reaches no
    /// one, the indicator page) and hands back their answer. A declined question is
    /// `COMPUTER_APPROVAL_DENIED`; no way to reach the person, or no answer within the wait,
    /// `COMPUTER_APPROVAL_REQUIRED`; across calls, the question ends the call until its retry
    /// brings the answer.
    pub fn ask_user(&self, question: &Question) -> Result<Answered, Refusal> {
        self.inner.config.check_enabled()?;
        question.validate()?;
        let mut record = AuditRecord::new("asked-user");
        record.detail = Some(question.shown());
        self.audit(record);
        let answer = match self.put_to_person(Request::Ask(question))? {
            Answer::Unavailable(why) => self.ask_on_page(question, &why),
            answer => answer,
        };
        let mut record = AuditRecord::new("user-answered");
        let result = match answer {
            Answer::Given { text, private } => match question.accepts(&text) {
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
            Answer::Declined | Answer::Cancelled => {
                record.event = "user-declined".into();
                Err(crate::decide::session::person_declined())
            }
            Answer::Approved => {
                record.event = "user-unreachable".into();
                Err(crate::decide::session::person_unreachable(
                    "the channel answered yes or no to a question that wants an answer",
                ))
            }
            Answer::Unavailable(why) => {
                record.event = "user-unreachable".into();
                record.detail = Some(why.clone());
                Err(crate::decide::session::person_unreachable(&why))
            }
        };
        record.code = result.as_ref().err().map(|r| r.code);
        self.audit(record);
        result
    }

    /// The indicator page as the channel of last resort, when the handle's channel could not
    /// reach anyone (`unreached` says why): the question shows there until it is answered,
    /// declined, Stop is pressed or the wait ends.
    fn ask_on_page(&self, question: &Question, unreached: &str) -> Answer {
        if self.indicator_url().is_none() {
            return Answer::Unavailable(format!("{unreached}, and no indicator page is served"));
        }
        let id = self.put_on_page(question.clone());
        let wait = self.inner.config.answer_wait;
        let started = Instant::now();
        let said = loop {
            if let Some(said) = self.take_page_answer(id) {
                break said;
            }
            if self.stopped() {
                break Answer::Unavailable("the person pressed Stop".into());
            }
            if started.elapsed() >= wait {
                break Answer::Unavailable(format!(
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
