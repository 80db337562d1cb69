//! The approval's decisions: what a person's answer makes of a call, a
//! class the configuration denies, and whether a parked call's echoed
//! question tokens may be honoured — pure functions of the answer, the
//! request and what the ticket store says of each token.

use crate::approval::{ApprovalRequest, CallKey, Subject};
use crate::person::Answer;
use glovebox_model::{ApprovalClass, ErrorCode, Refusal};
use std::time::Duration;

/// Turns the user's answer into the call's fate.
pub(crate) fn answer_to_result(answer: Answer, request: &ApprovalRequest) -> Result<(), Refusal> {
    match (answer, &request.subject) {
        (Answer::Approved, _) => Ok(()),
        (_, Subject::SafetyCheck { .. }) => {
            Err(Refusal::new(ErrorCode::SafetyCheckUnacknowledged, "the user did not explicitly acknowledge the provider's safety check; nothing was executed"))
        }
        (Answer::Declined, _) => Err(Refusal::new(ErrorCode::ApprovalDenied, "the user declined this action")),
        (Answer::Cancelled, _) => Err(Refusal::new(ErrorCode::ApprovalDenied, "the user cancelled the approval prompt")),
        (Answer::Given { .. }, _) => answer_to_result(
            Answer::Unavailable("the channel answered a yes-or-no question with a text".into()),
            request,
        ),
        (Answer::Unavailable(why), _) => Err(Refusal::new(
            ErrorCode::ApprovalRequired,
            format!(
                "this call needs the user's approval and there is no one to ask ({why}); the user can allow the class in glovebox's configuration (`glovebox config set approval.mode yolo`, or `custom` with `approval.{} allow`)",
                request.class().map(ApprovalClass::as_str).unwrap_or("input")
            ),
        )),
    }
}

/// The refusal of a class the configuration denies.
pub(crate) fn denied(class: ApprovalClass) -> Refusal {
    let name = class.as_str();
    Refusal::new(
        ErrorCode::ApprovalDenied,
        format!("the configuration denies {name} calls (approval.{name} = deny)"),
    )
}

/// The refusal that parks a call until the person answers `request`.
pub(crate) fn waiting(request: &ApprovalRequest) -> Refusal {
    Refusal::new(
        ErrorCode::ApprovalRequired,
        format!(
            "waiting for the user's answer: {} Nothing was delivered yet.",
            request.question_without_text()
        ),
    )
}

/// What the store says of one token a retry echoes.
pub(crate) enum Echo {
    /// Open, this call's: whether the ticket or the retry holds its answer.
    Open { answered: bool },
    /// Already used by this call.
    Spent,
}

/// An open question as the ticket store holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenTicket<'a> {
    /// The call it was asked for.
    pub call: &'a CallKey,
    /// How long ago it was asked.
    pub age: Duration,
    /// Whether the person answered it (elsewhere: the terminal, the indicator page).
    pub answered: bool,
}

/// What may be made of `token` echoed by `call`, with an answer or not,
/// given the call that spent it (if one did) and its open ticket (if
/// any); the refusal (without its closing words) when it must not be
/// honoured.
pub(crate) fn echo(
    spent_by: Option<&CallKey>,
    open: Option<OpenTicket<'_>>,
    call: &CallKey,
    wait: Duration,
    token: &str,
    has_answer: bool,
) -> Result<Echo, Refusal> {
    let another = || {
        Refusal::new(
            ErrorCode::ApprovalRequired,
            "the approval answer was given for another call (another client, tool or arguments)",
        )
    };
    if let Some(spender) = spent_by {
        return if spender == call { Ok(Echo::Spent) } else { Err(another()) };
    }
    let Some(ticket) = open else {
        return Err(Refusal::new(
            ErrorCode::ApprovalRequired,
            format!("the approval answer names a question ({}) that is not open: used, expired after {} s, or never asked", short(token), wait.as_secs()),
        ));
    };
    if ticket.age > wait && !ticket.answered {
        return Err(Refusal::new(
            ErrorCode::Timeout,
            format!(
                "the approval question went unanswered for more than {} s and expired",
                wait.as_secs()
            ),
        ));
    }
    if ticket.call != call {
        return Err(another());
    }
    match (ticket.answered, has_answer) {
        (true, true) => Err(Refusal::new(
            ErrorCode::ApprovalRequired,
            format!("the question {} was already answered", short(token)),
        )),
        (answered, given) => Ok(Echo::Open { answered: answered || given }),
    }
}

/// Answers that name a question the retry's request state does not.
pub(crate) fn answer_not_asked(token: &str) -> Refusal {
    Refusal::invalid_argument(format!(
        "the answers name a question ({}) the request state does not",
        short(token)
    ))
}

/// A refusal of an echoed question, closed with what to do: nothing ran.
pub(crate) fn nothing_delivered(refusal: Refusal) -> Refusal {
    refusal.reworded(|m| format!("{m}; nothing was delivered; call again without it to be asked"))
}

/// No token could be drawn for a question.
pub(crate) fn no_token(e: &std::io::Error) -> Refusal {
    Refusal::backend_unavailable(format!("no token for the approval question: {e}"))
}

/// A token as a refusal may name it: enough to tell two apart, not to replay one.
pub(crate) fn short(token: &str) -> String {
    format!("{}…", token.chars().take(6).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_decides_the_call() {
        let request = ApprovalRequest::call(ApprovalClass::Input, vec!["type".into()]);
        assert!(answer_to_result(Answer::Approved, &request).is_ok());
        let text = Answer::Given { text: "yes".into(), private: false };
        assert_eq!(answer_to_result(text, &request).unwrap_err().code, ErrorCode::ApprovalRequired);
        assert_eq!(
            answer_to_result(Answer::Unavailable("none".into()), &request).unwrap_err().code,
            ErrorCode::ApprovalRequired
        );
        assert_eq!(
            answer_to_result(Answer::Declined, &request).unwrap_err().code,
            ErrorCode::ApprovalDenied
        );
        assert_eq!(
            answer_to_result(Answer::Cancelled, &request).unwrap_err().code,
            ErrorCode::ApprovalDenied
        );
        assert_eq!(denied(ApprovalClass::Foreground).code, ErrorCode::ApprovalDenied);
    }
}
