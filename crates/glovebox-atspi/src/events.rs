//! Evidence that an application reacted to an input: its own events, read
//! from just before the input until it has gone quiet. The watch is a match
//! rule on the accessibility bus for the application's signals; toolkits
//! send them once a client registered for them
//! ([`crate::transport::Bus::listen_for_events`]).

use futures_util::StreamExt as _;
use glovebox_platform::{SettleLimits, Settled};
use tokio::time::Instant;

/// Reads `events` until the application has been quiet for the gap after
/// its last event, or sent none within the first wait, or the cap is
/// reached. Events that came during the delivery are already queued and
/// count as arriving now.
pub(crate) async fn settle(events: &mut zbus::MessageStream, limits: SettleLimits) -> Settled {
    let start = Instant::now();
    let cap = start + limits.cap;
    let mut seen = 0u32;
    let mut last: Option<Instant> = None;
    loop {
        let until = match last {
            None => (start + limits.first_event).min(cap),
            Some(at) => (at + limits.quiet_gap).min(cap),
        };
        match tokio::time::timeout_at(until, events.next()).await {
            Ok(Some(Ok(_))) => {
                seen = seen.saturating_add(1);
                let now = Instant::now();
                last = Some(now);
                if now >= cap {
                    return Settled::Flooding { events: seen };
                }
            }
            // The connection closed under the watch: what was seen stands.
            Ok(Some(Err(_)) | None) if seen == 0 => return Settled::Unwatched,
            Ok(Some(Err(_)) | None) => {
                return Settled::Quiet { events: seen, after: start.elapsed() }
            }
            Err(_elapsed) => {
                return match last {
                    None => Settled::Silent,
                    Some(_) if Instant::now() >= cap => Settled::Flooding { events: seen },
                    Some(_) => Settled::Quiet { events: seen, after: start.elapsed() },
                }
            }
        }
    }
}
