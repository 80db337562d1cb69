//! The page's two long-lived answers: server-sent events of the host's
//! presence view, and the agent display's picture as
//! `multipart/x-mixed-replace` (which browsers show in an `<img>`). Each is
//! a body fed through a channel by a task of its own, which asks the host
//! on a blocking thread and ends when the page goes: the connection's end
//! drops the body, and the task sees its channel closed.

use crate::{with_headers, Body, AGENT_VIEW_WIDTH};
use glovebox_host::Host;
use http_body_util::BodyExt as _;
use hyper::body::{Bytes, Frame};
use hyper::{Response, StatusCode};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How often an event stream looks at the host's view for a change.
const TICK: Duration = Duration::from_millis(100);
/// A comment line this often keeps proxies and the browser from timing out.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// How often the agent display's picture is taken while the page shows it.
const AGENT_VIEW_TICK: Duration = Duration::from_millis(400);
/// What separates the pictures of the agent display's stream (a macro, so
/// the content type names it in a constant too).
macro_rules! boundary {
    () => {
        "glovebox-agent-display"
    };
}
const BOUNDARY: &str = boundary!();

/// A response body whose chunks come through a channel; it ends when the
/// sending task does.
struct Fed(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Fed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|chunk| chunk.map(|bytes| Ok(Frame::data(bytes))))
    }
}

/// A streamed response of `content_type`, fed by `feed` from its own task.
fn fed<F, Fut>(content_type: &'static str, feed: F) -> Response<Body>
where
    F: FnOnce(mpsc::Sender<Bytes>) -> Fut,
    Fut: std::future::Future<Output = Option<()>> + Send + 'static,
{
    // One chunk waits at most: a page that stops reading stops the asking.
    let (sender, receiver) = mpsc::channel(1);
    tokio::spawn(feed(sender));
    with_headers(Response::new(Fed(receiver).boxed()), StatusCode::OK, content_type)
}

/// Asks the host on a blocking thread; `None` when the call failed.
async fn ask<T: Send + 'static>(
    host: &Host,
    call: impl FnOnce(&Host) -> T + Send + 'static,
) -> Option<T> {
    let host = host.clone();
    tokio::task::spawn_blocking(move || call(&host)).await.ok()
}

/// Waits `tick`, or less when the page has gone; `None` then.
async fn wait(tick: Duration, sender: &mpsc::Sender<Bytes>) -> Option<()> {
    tokio::select! {
        () = tokio::time::sleep(tick) => Some(()),
        () = sender.closed() => None,
    }
}

/// Server-sent events: the view whenever it changes, until the page goes.
pub(crate) fn events(host: Host) -> Response<Body> {
    fed("text/event-stream", move |sender| async move {
        let mut last = String::new();
        let mut quiet_since = Instant::now();
        loop {
            let view =
                ask(&host, |host| serde_json::to_string(&host.presence_view()).unwrap_or_default())
                    .await?;
            if view != last {
                sender.send(Bytes::from(format!("data: {view}\n\n"))).await.ok()?;
                last = view;
                quiet_since = Instant::now();
            } else if quiet_since.elapsed() > KEEPALIVE {
                sender.send(Bytes::from_static(b": still here\n\n")).await.ok()?;
                quiet_since = Instant::now();
            }
            wait(TICK, &sender).await?;
        }
    })
}

/// The agent display live: a new picture whenever the screen changed,
/// until the page goes or the agent display ends.
pub(crate) fn agent_display(host: Host) -> Response<Body> {
    const CONTENT_TYPE: &str = concat!("multipart/x-mixed-replace; boundary=", boundary!());
    fed(CONTENT_TYPE, move |sender| async move {
        let mut last = Bytes::new();
        loop {
            match ask(&host, |host| host.agent_display_png(AGENT_VIEW_WIDTH)).await? {
                None => return None,
                // A prompt holds the keyboard: nothing new is shown until it lets go.
                Some(Err(_)) => {}
                Some(Ok(png)) if png != last => {
                    let head = format!(
                        "--{BOUNDARY}\r\nContent-Type: image/png\r\nContent-Length: {}\r\n\r\n",
                        png.len()
                    );
                    sender.send(Bytes::from(head)).await.ok()?;
                    let png = Bytes::from(png);
                    sender.send(png.clone()).await.ok()?;
                    sender.send(Bytes::from_static(b"\r\n")).await.ok()?;
                    last = png;
                }
                Some(Ok(_)) => {}
            }
            wait(AGENT_VIEW_TICK, &sender).await?;
        }
    })
}
