//! Evidence that an application reacted to an input: its own events, read
//! from just before the input until it has gone quiet. The watch is a match
//! rule on the accessibility bus for the application's signals; toolkits
//! send them once a client registered for them
//! ([`crate::transport::Bus::listen_for_events`]).
//!
//! Beside the events, one request goes to the application once the input
//! is delivered, served by the same loop that handles its input. Its
//! answer comes after every event the application sent before answering
//! (one connection, in order): an application known to send its reactions
//! while it handles an input, that answered with nothing sent, did nothing
//! the tree would show — a short wait after the answer says so instead of
//! the whole first wait.

use futures_util::{FutureExt as _, StreamExt as _};
use glovebox_platform::{SettleLimits, Settled};
use std::future::Future;
use tokio::time::Instant;

/// When an application's first event after an input came, beside the answer
/// to the request sent after the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FirstEvent {
    /// Before the answer: sent while it handled the input.
    InTurn,
    /// After the answer: sent later (another process's work, an idle turn).
    Late,
}

/// What a watch saw: the settled state and, when events came and the
/// request was answered, how the first event stood to the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Watched {
    pub settled: Settled,
    pub first_event: Option<FirstEvent>,
}

/// Reads `events` until the application has been quiet for the gap after
/// its last event, or sent none within the first wait, or the cap is
/// reached. Events that came during the delivery are already queued and
/// count as arriving now. `answer` resolves when the application answered
/// the request sent after the input, with whether it is believed to send
/// its reactions before such an answer (`None`: no answer); when believed
/// and nothing came before it, the first wait ends
/// [`SettleLimits::after_answer`] after the answer.
pub(crate) async fn settle(
    events: &mut zbus::MessageStream,
    answer: impl Future<Output = Option<bool>>,
    limits: SettleLimits,
) -> Watched {
    let start = Instant::now();
    let cap = start + limits.cap;
    let mut seen = 0u32;
    let mut last: Option<Instant> = None;
    let mut answered: Option<Instant> = None;
    let mut believed = false;
    let mut first_event = None;
    // No answer: the first wait runs out as it would.
    let answer = answer.then(|said| async move {
        match said {
            Some(believed) => believed,
            None => std::future::pending().await,
        }
    });
    let mut answer = std::pin::pin!(answer.fuse());
    let watched = |settled, first_event: Option<FirstEvent>, answered: Option<Instant>| Watched {
        settled,
        first_event: first_event.filter(|_| answered.is_some()),
    };
    loop {
        let until = match last {
            None => {
                let first = start + limits.first_event;
                let early = limits.after_answer.zip(answered).filter(|_| believed);
                early.map_or(first, |(wait, at)| first.min(at + wait)).min(cap)
            }
            Some(at) => (at + limits.quiet_gap).min(cap),
        };
        let event = tokio::select! {
            biased;
            event = tokio::time::timeout_at(until, events.next()) => event,
            said = &mut answer, if answered.is_none() => {
                answered = Some(Instant::now());
                believed = said;
                // What the reader queued with the answer came before it.
                while let Some(Some(Ok(_))) = events.next().now_or_never() {
                    seen = seen.saturating_add(1);
                    last = Some(Instant::now());
                    first_event.get_or_insert(FirstEvent::InTurn);
                }
                continue;
            }
        };
        match event {
            Ok(Some(Ok(_))) => {
                seen = seen.saturating_add(1);
                let now = Instant::now();
                last = Some(now);
                first_event.get_or_insert(match answered {
                    None => FirstEvent::InTurn,
                    Some(_) => FirstEvent::Late,
                });
                if now >= cap {
                    return watched(Settled::Flooding { events: seen }, first_event, answered);
                }
            }
            // The connection closed under the watch: what was seen stands.
            Ok(Some(Err(_)) | None) if seen == 0 => {
                return watched(Settled::Unwatched, None, answered)
            }
            Ok(Some(Err(_)) | None) => {
                let after = start.elapsed();
                return watched(Settled::Quiet { events: seen, after }, first_event, answered);
            }
            Err(_elapsed) => {
                let settled = match last {
                    None if Instant::now() < start + limits.first_event => Settled::Answered,
                    None => Settled::Silent,
                    Some(_) if Instant::now() >= cap => Settled::Flooding { events: seen },
                    Some(_) => Settled::Quiet { events: seen, after: start.elapsed() },
                };
                return watched(settled, first_event, answered);
            }
        }
    }
}
