//! Progress for a call that takes a while (an `open_app` waiting for its
//! window, a `wait`, a whole `computer` task): when the client's request
//! carries a progress token, a `notifications/progress` each second until the
//! call answers, so the person watching the client sees it working and a
//! client that resets its timeout on progress keeps waiting. Clients that
//! sent no token get nothing.

use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use std::time::{Duration, Instant};

/// How often a call still running says so.
const EVERY: Duration = Duration::from_secs(1);

/// Ends the notifications when dropped (the call answered, or failed).
pub(crate) struct Heartbeat(tokio::task::JoinHandle<()>);

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the notifications for this request, if its client asked for progress.
pub(crate) fn heartbeat(context: &RequestContext<RoleServer>) -> Option<Heartbeat> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let started = Instant::now();
    Some(Heartbeat(tokio::spawn(async move {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + EVERY, EVERY);
        loop {
            ticks.tick().await;
            let seconds = started.elapsed().as_secs();
            let note = ProgressNotificationParam::new(token.clone(), seconds as f64)
                .with_message(format!("still working ({seconds} s)"));
            if peer.notify_progress(note).await.is_err() {
                return; // the client has gone; the call's own answer will fail the same way
            }
        }
    })))
}
