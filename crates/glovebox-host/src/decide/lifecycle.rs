//! The refusals of the host's own state: computer use off, read-only and
//! observe-only, the grant's life (none, ended, expired, closed, its
//! window gone), Stop, and the person's take-over of the agent display.
//! The host reads its flags and stores and asks here what to answer.

use glovebox_model::{ErrorCode, Refusal, WindowId};
use std::time::Duration;

/// Computer use is off.
pub(crate) fn disabled() -> Refusal {
    Refusal::new(
        ErrorCode::Disabled,
        "computer use is turned off; the user enables it with `glovebox config set enabled true`",
    )
}

/// Why input is refused before anyone is asked: the host runs read-only,
/// or this handle serves an observe-only task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoInput {
    ReadOnly,
    ObserveOnly,
}

/// Input on a read-only host or an observe-only handle.
pub(crate) fn no_input(why: NoInput) -> Refusal {
    let message = match why {
        NoInput::ReadOnly => "glovebox runs read-only: no input is delivered",
        NoInput::ObserveOnly => {
            "this task is observe-only: look and answer with text; no input is delivered"
        }
    };
    Refusal::new(ErrorCode::ReadOnly, message)
}

/// A call that needs a grant found none and may not create one.
pub(crate) fn no_active_grant() -> Refusal {
    Refusal::new(ErrorCode::NoGrant, "there is no active grant; observe first")
}

/// The grant a locked call ensured is gone (a question let the lock go).
pub(crate) fn grant_ended() -> Refusal {
    Refusal::new(ErrorCode::NoGrant, "the grant ended while this call ran; observe again")
}

/// The grant went unused for `idle`.
pub(crate) fn grant_expired(idle: Duration) -> Refusal {
    Refusal::new(
        ErrorCode::GrantExpired,
        format!("the grant expired after {} s idle", idle.as_secs()),
    )
}

/// An agent asks for a grant after `closed` ended the last one: only the
/// person may start again.
pub(crate) fn closed_until_the_user_grants(closed: &Refusal) -> Refusal {
    Refusal::new(
        closed.code,
        format!("{}; the user must create a new grant (`glovebox grant`)", closed.message),
    )
}

/// A window-scoped grant was asked for without a window.
pub(crate) fn window_grant_without_window() -> Refusal {
    Refusal::invalid_argument("a window-scoped grant needs a window")
}

/// The grant lost its window and no window may take its place.
pub(crate) fn no_target(reason: &str) -> Refusal {
    Refusal::new(ErrorCode::TargetGone, format!("the grant has no target: {reason}"))
}

/// The window a window-scoped grant was bound to closed; the grant is revoked.
pub(crate) fn bound_window_closed(window: WindowId) -> Refusal {
    Refusal::new(
        ErrorCode::TargetGone,
        format!("window {window} closed; its window-scoped grant is revoked"),
    )
}

/// The window a desktop grant was bound to closed; the grant moved on.
pub(crate) fn grant_moved_on(window: WindowId) -> Refusal {
    Refusal::new(
        ErrorCode::StaleRevision,
        format!("window {window} closed; the grant moved on (observe again)"),
    )
}

/// When Stop was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopSeen {
    /// Before anything of the call was delivered.
    Before,
    /// After the call's action was delivered (its result is not looked at).
    AfterDelivery,
    /// On a call using the grant Stop revoked.
    GrantRevoked,
}

/// The person pressed Stop.
pub(crate) fn stopped(seen: StopSeen) -> Refusal {
    let message = match seen {
        StopSeen::Before => "the user pressed Stop",
        StopSeen::AfterDelivery => "the user pressed Stop after this action was delivered",
        StopSeen::GrantRevoked => "the user pressed Stop; the grant is revoked",
    };
    Refusal::new(ErrorCode::StoppedByUser, message)
}

/// An agent asks for a grant within Stop's cooldown.
pub(crate) fn stop_cooldown(left: Duration) -> Refusal {
    Refusal::new(
        ErrorCode::StoppedByUser,
        format!(
            "the user pressed Stop; agent grants are refused for {} more second(s)",
            left.as_secs() + 1
        ),
    )
}

/// Why the person's take-over or input could not reach the agent display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoAgentDisplay {
    /// None runs: nothing to take over.
    NotRunning,
    /// It ended.
    Ended,
    /// This platform has none.
    Unsupported,
}

/// The agent display cannot be taken over or reached.
pub(crate) fn no_agent_display(why: NoAgentDisplay) -> Refusal {
    match why {
        NoAgentDisplay::NotRunning => Refusal::new(
            ErrorCode::BackendUnavailable,
            "no agent display runs, so there is nothing to take over; nothing was paused",
        ),
        NoAgentDisplay::Ended => {
            Refusal::new(ErrorCode::BackendUnavailable, "the agent display has ended")
        }
        NoAgentDisplay::Unsupported => {
            Refusal::new(ErrorCode::PlatformUnsupported, "this platform has no agent display")
        }
    }
}

/// The person's input from the page while the agent display is not theirs.
pub(crate) fn person_input_not_taken_over() -> Refusal {
    Refusal::new(
        ErrorCode::ScopeViolation,
        "ignored: the page's input reaches the agent display only while it is taken over \
         (press Take over first)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_answers_its_own_code() {
        assert_eq!(disabled().code, ErrorCode::Disabled);
        assert_eq!(no_input(NoInput::ObserveOnly).code, ErrorCode::ReadOnly);
        assert_eq!(
            grant_expired(Duration::from_secs(90)).message,
            "the grant expired after 90 s idle"
        );
        let closed = closed_until_the_user_grants(&grant_expired(Duration::from_secs(5)));
        assert_eq!(closed.code, ErrorCode::GrantExpired);
        assert!(closed.message.ends_with("(`glovebox grant`)"), "{}", closed.message);
        assert_eq!(stop_cooldown(Duration::from_millis(1500)).code, ErrorCode::StoppedByUser);
        assert!(stop_cooldown(Duration::from_millis(1500)).message.contains("2 more second(s)"));
        assert_eq!(
            no_agent_display(NoAgentDisplay::Unsupported).code,
            ErrorCode::PlatformUnsupported
        );
    }
}
