//! One way to ask the person. Whatever the host needs from them — a yes to a
//! call ([`Request::Approve`]), an acknowledgement of a provider's safety
//! check ([`Request::Acknowledge`]), an answer to the agent's question
//! ([`Request::Ask`]) — is one [`Request`], put through one
//! [`PersonChannel`] that the surface supplies (MCP elicitation, the
//! terminal, a task's input requests, the CLI that rode a warm host), and
//! comes back as one [`Answer`]. A channel only puts the question and
//! reports what was said; the host words the question, decides what the
//! answer makes of the call ([`crate::decide`]), and keeps every question
//! that waits across calls in its one store ([`crate::deferred`]).

use crate::approval::{ApprovalRequest, Subject};
use glovebox_model::Question;
use glovebox_platform::sync::LockRecovered as _;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// What the host puts to the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request<'a> {
    /// May this call go ahead? Answered yes or no.
    Approve(&'a ApprovalRequest),
    /// Did the person see the provider's safety check on this step? Only an
    /// explicit yes acknowledges it.
    Acknowledge(&'a ApprovalRequest),
    /// The agent's question (`ask_user`): answered with a text.
    Ask(&'a Question),
}

/// What shape of answer a request wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wants {
    /// Yes or no.
    YesOrNo,
    /// A text (within the question's choices, when it offers some).
    Text,
}

impl<'a> Request<'a> {
    /// The request an approval makes: an acknowledgement for a safety
    /// check, an approval for a call.
    pub fn of_approval(request: &'a ApprovalRequest) -> Request<'a> {
        match request.subject {
            Subject::SafetyCheck { .. } => Request::Acknowledge(request),
            Subject::Call { .. } => Request::Approve(request),
        }
    }

    /// The sentence every channel shows, made visible by the host.
    pub fn shown(&self) -> String {
        match self {
            Request::Approve(request) | Request::Acknowledge(request) => request.question(),
            Request::Ask(question) => question.shown(),
        }
    }

    /// The shape of answer it wants.
    pub fn wants(&self) -> Wants {
        match self {
            Request::Approve(_) | Request::Acknowledge(_) => Wants::YesOrNo,
            Request::Ask(_) => Wants::Text,
        }
    }

    /// The approval asked about, if this is one.
    pub fn approval(&self) -> Option<&'a ApprovalRequest> {
        match self {
            Request::Approve(request) | Request::Acknowledge(request) => Some(request),
            Request::Ask(_) => None,
        }
    }

    /// The request as the store of waiting questions keeps it.
    pub(crate) fn kept(self) -> Kept {
        match self {
            Request::Approve(request) | Request::Acknowledge(request) => {
                Kept::Approval(request.clone())
            }
            Request::Ask(question) => Kept::Question(question.clone()),
        }
    }
}

/// A request kept while it waits for its answer across calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kept {
    Approval(ApprovalRequest),
    Question(Question),
}

impl Kept {
    /// The request it keeps.
    pub(crate) fn request(&self) -> Request<'_> {
        match self {
            Kept::Approval(request) => Request::of_approval(request),
            Kept::Question(question) => Request::Ask(question),
        }
    }
}

/// What the person said, as the channel heard it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Yes: the call may go ahead, the safety check was seen.
    Approved,
    /// A text answer to a question.
    Given {
        /// What the person answered.
        text: String,
        /// Keep it out of the audit (the agent still gets it).
        private: bool,
    },
    /// The person said no, or declined to answer.
    Declined,
    /// The person dismissed the question without answering (closed the
    /// prompt, ended the input); taken as a no.
    Cancelled,
    /// There is no one to ask (no terminal, a client without elicitation),
    /// or the channel failed; said why.
    Unavailable(String),
}

/// A surface's way to reach the person. It only puts the request and
/// reports the answer; it never answers on the person's behalf.
pub trait PersonChannel: Send + Sync {
    /// Puts `request` to the person and waits for what they say.
    fn put(&self, request: Request<'_>) -> Answer;
}

impl<F: Fn(Request<'_>) -> Answer + Send + Sync> PersonChannel for F {
    fn put(&self, request: Request<'_>) -> Answer {
        self(request)
    }
}

/// A channel that answers approvals with `approve` and reaches no one with
/// a question: for embedders and tests whose person only approves.
pub fn approving<F>(approve: F) -> impl PersonChannel
where
    F: Fn(&ApprovalRequest) -> Answer + Send + Sync,
{
    move |request: Request<'_>| match request.approval() {
        Some(approval) => approve(approval),
        None => Answer::Unavailable("this channel only answers approvals".into()),
    }
}

/// No way to reach the person: every request fails closed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPrompt;

impl PersonChannel for NoPrompt {
    fn put(&self, _: Request<'_>) -> Answer {
        Answer::Unavailable("this surface has no prompt channel".into())
    }
}

/// Safety checks the caller states its user acknowledged (the JSON
/// endpoints of `glovebox serve` carry them in the request); every other
/// request fails closed.
#[derive(Debug, Clone, Default)]
pub struct StatedAcknowledgements(pub Vec<String>);

impl PersonChannel for StatedAcknowledgements {
    fn put(&self, request: Request<'_>) -> Answer {
        match request {
            Request::Acknowledge(ApprovalRequest {
                subject: Subject::SafetyCheck { id, .. },
                ..
            }) if self.0.contains(id) => Answer::Approved,
            Request::Acknowledge(_) => Answer::Unavailable(
                "the request did not list this safety check as acknowledged by the user".into(),
            ),
            Request::Approve(_) | Request::Ask(_) => Answer::Unavailable(
                "the JSON endpoints of glovebox serve have no prompt channel".into(),
            ),
        }
    }
}

/// A request as the person was shown it, kept by a surface that waits for
/// the answer out of band (a parked batch's record): an answer given to it
/// covers exactly what was shown, never something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shown {
    /// A call (its actions, targets, window), covered word for word.
    Call {
        /// The question as the host worded it.
        text: String,
    },
    /// A provider's safety check, covered by its id.
    SafetyCheck {
        /// The provider's id of the check.
        id: String,
        /// The question as the host worded it.
        text: String,
    },
}

impl Shown {
    /// The approval `request` as the person is shown it.
    pub fn of(request: &ApprovalRequest) -> Shown {
        match &request.subject {
            Subject::SafetyCheck { id, .. } => {
                Shown::SafetyCheck { id: id.clone(), text: request.question() }
            }
            Subject::Call { .. } => Shown::Call { text: request.question() },
        }
    }

    /// The question's text.
    pub fn text(&self) -> &str {
        match self {
            Shown::Call { text } | Shown::SafetyCheck { text, .. } => text,
        }
    }

    /// Whether a yes to this covers `request`: a call's question word for
    /// word (the same action, on the same element, in the same window), a
    /// safety check by its id.
    pub fn covers(&self, request: &ApprovalRequest) -> bool {
        match (self, &request.subject) {
            (Shown::SafetyCheck { id, .. }, Subject::SafetyCheck { id: asked, .. }) => id == asked,
            (Shown::Call { text }, Subject::Call { .. }) => *text == request.question(),
            _ => false,
        }
    }
}

/// The channel of a call run again after the person answered out of band
/// (`glovebox pending approve`): it says yes only to what the person was
/// shown and approved ([`Shown::covers`]) and to safety checks the request
/// stated acknowledged, and keeps every other request as shown, answering
/// that no one is there yet — so a call whose target changed while it
/// waited is refused, never run on an answer given for something else.
#[derive(Debug, Default)]
pub struct AnsweredOutOfBand {
    approved: Vec<Shown>,
    stated: Vec<String>,
    asked: Mutex<Vec<Shown>>,
}

impl AnsweredOutOfBand {
    /// The person approved `approved`; the request stated `stated` acknowledged.
    pub fn new(approved: Vec<Shown>, stated: Vec<String>) -> AnsweredOutOfBand {
        AnsweredOutOfBand { approved, stated, asked: Mutex::new(vec![]) }
    }

    /// The requests put that nobody has answered yet, as shown.
    pub fn unanswered(&self) -> Vec<Shown> {
        self.asked.lock_recovered().clone()
    }
}

impl PersonChannel for AnsweredOutOfBand {
    fn put(&self, request: Request<'_>) -> Answer {
        let Some(approval) = request.approval() else {
            return Answer::Unavailable(
                "a call answered out of band cannot put the agent's question".into(),
            );
        };
        if let Subject::SafetyCheck { id, .. } = &approval.subject {
            if self.stated.contains(id) {
                return Answer::Approved;
            }
        }
        if self.approved.iter().any(|shown| shown.covers(approval)) {
            return Answer::Approved;
        }
        let shown = Shown::of(approval);
        let mut asked = self.asked.lock_recovered();
        if !asked.contains(&shown) {
            asked.push(shown);
        }
        let why = if self.approved.is_empty() {
            "the call waits for the user's answer (glovebox pending)"
        } else {
            "the call now asks something the user was not shown: what it would do changed while it waited"
        };
        Answer::Unavailable(why.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::ApprovalClass;

    #[test]
    fn an_approval_of_a_safety_check_is_an_acknowledgement() {
        let call = ApprovalRequest::call(ApprovalClass::Input, vec!["click".into()]);
        assert!(matches!(Request::of_approval(&call), Request::Approve(_)));
        let check = ApprovalRequest {
            subject: Subject::SafetyCheck {
                id: "sc_1".into(),
                code: None,
                message: None,
                step: vec![],
            },
            ..call.clone()
        };
        assert!(matches!(Request::of_approval(&check), Request::Acknowledge(_)));
        assert_eq!(
            StatedAcknowledgements(vec!["sc_1".into()]).put(Request::of_approval(&check)),
            Answer::Approved
        );
        assert!(matches!(
            StatedAcknowledgements(vec!["sc_1".into()]).put(Request::of_approval(&call)),
            Answer::Unavailable(_)
        ));
        let question = Question { text: "Which?".into(), choices: vec![] };
        assert!(matches!(
            approving(|_| Answer::Approved).put(Request::Ask(&question)),
            Answer::Unavailable(_)
        ));
        assert_eq!(
            approving(|_| Answer::Approved).put(Request::of_approval(&call)),
            Answer::Approved
        );
    }

    #[test]
    fn answered_out_of_band_approves_only_what_was_shown_word_for_word() {
        let click = ApprovalRequest::call(ApprovalClass::Input, vec!["click at (3, 4)".into()]);
        let parking = AnsweredOutOfBand::new(vec![], vec!["cu_sc_1".into()]);
        assert!(matches!(parking.put(Request::of_approval(&click)), Answer::Unavailable(_)));
        let check = |id: &str| ApprovalRequest {
            subject: Subject::SafetyCheck {
                id: id.into(),
                code: None,
                message: None,
                step: vec![],
            },
            ..ApprovalRequest::call(ApprovalClass::Input, vec![])
        };
        assert_eq!(
            parking.put(Request::of_approval(&check("cu_sc_1"))),
            Answer::Approved,
            "stated by the request"
        );
        assert!(matches!(
            parking.put(Request::of_approval(&check("cu_sc_2"))),
            Answer::Unavailable(_)
        ));
        assert_eq!(parking.unanswered().len(), 2);

        let resumed = AnsweredOutOfBand::new(parking.unanswered(), vec![]);
        assert_eq!(resumed.put(Request::of_approval(&click)), Answer::Approved);
        assert_eq!(resumed.put(Request::of_approval(&check("cu_sc_2"))), Answer::Approved);
        let elsewhere =
            ApprovalRequest::call(ApprovalClass::Input, vec!["click at (30, 4)".into()]);
        assert!(
            matches!(resumed.put(Request::of_approval(&elsewhere)), Answer::Unavailable(why) if why.contains("changed"))
        );
        assert!(resumed.unanswered().len() == 1);
    }
}
