//! The indicator (DESIGN.md §7): a small page on 127.0.0.1 that shows what
//! the agent holds right now — the bound window, scope, origin, budget,
//! capture mode, the last actions and their results — live over
//! server-sent events, with a Stop that does exactly what `glovebox stop`
//! does, and Take over / Hand back of the agent display (the person's
//! clicks and keys on its live picture go to that display; the agent's
//! calls are paused meanwhile). Every request needs the per-run token in
//! its URL (403 without it) and a loopback `Host`; a request that says it
//! comes from another site's page (an `Origin` that is not this page's) is
//! refused before anything runs, so no page the person visits can press
//! Stop or take the display over. The page is plain HTML, CSS and
//! JavaScript embedded here; it shows only what the host's presence view
//! gives it.
//!
//! It is served by hyper on a runtime of its own, on a thread of its own:
//! at most [`CONNECTIONS`] connections at once, streams included (more are
//! answered 503 at once, unread), and a request's head and body must
//! arrive within [`REQUEST_DEADLINE`] of its connection, so neither many
//! connections nor a request trickled a byte at a time holds anything.
//! The host's calls (captures, Stop, take-over) run on blocking threads,
//! never on the one that serves the connections.
#![forbid(unsafe_code)]

mod streams;

use glovebox_host::Host;
use glovebox_services::access::{loopback, new_token, same_secret};
use http_body_util::{combinators::BoxBody, BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PAGE: &str = include_str!("page.html");
/// How wide the agent display's picture is served.
const AGENT_VIEW_WIDTH: u32 = 960;
/// Longest request head read (hyper answers 431 beyond it).
const MAX_HEAD: usize = 8 * 1024;
/// Longest request body read (one piece of the person's input).
const MAX_BODY: usize = 4 * 1024;
/// How many connections are served at once, the page's long-lived streams
/// included. The page needs a few (its events, the agent display's
/// picture, a button's POST); more are someone else's, answered 503 at
/// once without reading them or holding a thread for them.
pub const CONNECTIONS: usize = 32;
/// How long a request's head and body may take to arrive, counted from
/// the connection's start, whatever pace its bytes come at.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(5);
/// What a connection beyond [`CONNECTIONS`] gets before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\nCache-Control: no-store\r\nConnection: close\r\n\r\ntoo many connections\n";

/// Every response's body: a whole one, or one of the streams.
type Body = BoxBody<Bytes, Infallible>;

/// A running indicator; it serves until the process ends.
pub struct Indicator {
    pub url: String,
    pub address: SocketAddr,
}

/// What every request is answered from.
struct Page {
    host: Host,
    token: String,
    /// The page's own origins: a request from the page's script carries one.
    origins: [String; 2],
}

/// Starts serving `host`'s indicator on a free loopback port and tells the
/// host its URL (so `glovebox indicator` can ask for it).
pub fn serve(host: Host) -> std::io::Result<Indicator> {
    let token = new_token()?;
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    let address = listener.local_addr()?;
    listener.set_nonblocking(true)?;
    // The caller is a plain thread with no runtime: the page brings its own.
    // One thread serves every connection; a host call in flight per
    // connection at most, so no more blocking threads than connections.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(CONNECTIONS)
        .thread_name("glovebox-indicator-call")
        .build()?;
    let listener = {
        let _context = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    let url = format!("http://{address}/?token={token}");
    let port = address.port();
    let page = Arc::new(Page {
        host: host.clone(),
        token,
        origins: [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")],
    });
    std::thread::Builder::new()
        .name("glovebox-indicator".into())
        .spawn(move || runtime.block_on(accept(listener, page)))?;
    host.set_indicator_url(url.clone());
    Ok(Indicator { url, address })
}

/// Takes connections for ever, each served while it holds one of the
/// [`CONNECTIONS`] slots.
async fn accept(listener: tokio::net::TcpListener, page: Arc<Page>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, say: wait for some to close rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            // Never waits. What of the request is already in is taken first:
            // closing over unread bytes resets the connection, and the
            // client would see that instead of the 503.
            let _ = stream.try_read(&mut [0; MAX_HEAD]);
            let _ = stream.try_write(BUSY);
            continue;
        };
        let page = page.clone();
        tokio::spawn(async move {
            let by = Instant::now() + REQUEST_DEADLINE;
            let service = hyper::service::service_fn(move |request| {
                let page = page.clone();
                async move { Ok::<_, Infallible>(answer(&page, request, by).await) }
            });
            // One request per connection (as `Connection: close` always
            // was), so an idle kept-alive connection holds no slot.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(REQUEST_DEADLINE)
                .max_header_size(MAX_HEAD)
                .keep_alive(false)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            drop(slot);
        });
    }
}

impl Page {
    /// The refusal of a request that must not reach the host, if it is one.
    fn refusal<B>(&self, request: &Request<B>) -> Option<Response<Body>> {
        let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
        if !header(header::HOST).is_some_and(loopback) {
            return Some(respond(StatusCode::FORBIDDEN, "text/plain", "forbidden"));
        }
        // A page of another site can POST here (a form, `fetch` with
        // `no-cors`) and its browser names that site in `Origin`; the token
        // in the URL is the only other guard, so such a request is refused
        // whatever it carries. Requests with no Origin (curl, the page's own
        // GETs) are not from another site's script.
        if let Some(origin) = request.headers().get(header::ORIGIN) {
            if !self.origins.iter().any(|own| origin.as_bytes() == own.as_bytes()) {
                let why = "requests from other sites' pages are refused";
                return Some(respond(StatusCode::FORBIDDEN, "text/plain", why));
            }
        }
        let query = request.uri().query().unwrap_or_default();
        let presented =
            query.split('&').find_map(|pair| pair.strip_prefix("token=")).unwrap_or_default();
        if !same_secret(presented.as_bytes(), self.token.as_bytes()) {
            return Some(respond(StatusCode::FORBIDDEN, "text/plain", "forbidden"));
        }
        None
    }
}

/// Answers one request whose body, if it has one, must be in by `by`.
async fn answer(page: &Page, request: Request<Incoming>, by: Instant) -> Response<Body> {
    if let Some(refused) = page.refusal(&request) {
        return refused;
    }
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let host = page.host.clone();
    match (method, path.as_str()) {
        (Method::GET, "/") => respond(StatusCode::OK, "text/html; charset=utf-8", PAGE),
        (Method::GET, "/events") => streams::events(host),
        (Method::GET, "/agent-display.png") => on_host(host, agent_display_png).await,
        (Method::GET, "/agent-display.stream") => streams::agent_display(host),
        (Method::POST, "/take-over") => on_host(host, take_over).await,
        (Method::POST, "/hand-back") => on_host(host, hand_back).await,
        (Method::POST, "/answer") => match read_body(request, by).await {
            Ok(body) => on_host(host, move |host| page_answer(host, &body)).await,
            Err(refused) => refused,
        },
        (Method::POST, "/agent-display/input") => match read_body(request, by).await {
            Ok(body) => on_host(host, move |host| person_input(host, &body)).await,
            Err(refused) => refused,
        },
        (Method::POST, "/stop") => on_host(host, stop).await,
        _ => respond(StatusCode::NOT_FOUND, "text/plain", "not found"),
    }
}

/// Runs `call` on a blocking thread: the host's calls capture, wait on
/// its state or the desktop, and must not hold the thread that serves.
async fn on_host(
    host: Host,
    call: impl FnOnce(&Host) -> Response<Body> + Send + 'static,
) -> Response<Body> {
    match tokio::task::spawn_blocking(move || call(&host)).await {
        Ok(response) => response,
        Err(e) => respond(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain",
            format!("the host's call failed: {e}"),
        ),
    }
}

/// A response with the headers every answer of the page carries.
fn respond(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    with_headers(Response::new(Full::new(body.into()).boxed()), status, content_type)
}

fn json(status: StatusCode, body: &serde_json::Value) -> Response<Body> {
    respond(status, "application/json", body.to_string())
}

/// Sets `response`'s status, its type, and the headers that keep it out of
/// caches, type sniffing and other sites' referrers.
fn with_headers(
    mut response: Response<Body>,
    status: StatusCode,
    content_type: &'static str,
) -> Response<Body> {
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// A request's body of at most [`MAX_BODY`] bytes, by its Content-Length,
/// in by `by`; otherwise the answer that says why not.
async fn read_body(request: Request<Incoming>, by: Instant) -> Result<Bytes, Response<Body>> {
    let length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|length| *length <= MAX_BODY);
    if length.is_none() {
        return Err(too_large());
    }
    let read = Limited::new(request.into_body(), MAX_BODY).collect();
    match tokio::time::timeout_at(by.into(), read).await {
        Ok(Ok(body)) => Ok(body.to_bytes()),
        Ok(Err(_)) => Err(too_large()),
        Err(_) => {
            let why = format!(
                "the request did not arrive within {} s of its connection",
                REQUEST_DEADLINE.as_secs()
            );
            Err(json(StatusCode::REQUEST_TIMEOUT, &serde_json::json!({"message": why})))
        }
    }
}

fn too_large() -> Response<Body> {
    let body = serde_json::json!({"message": format!("a body of at most {MAX_BODY} bytes, with its Content-Length")});
    json(StatusCode::PAYLOAD_TOO_LARGE, &body)
}

fn agent_display_png(host: &Host) -> Response<Body> {
    match host.agent_display_png(AGENT_VIEW_WIDTH) {
        Some(Ok(png)) => respond(StatusCode::OK, "image/png", png),
        Some(Err(refusal)) => {
            respond(StatusCode::SERVICE_UNAVAILABLE, "text/plain", refusal.to_string())
        }
        None => respond(StatusCode::NOT_FOUND, "text/plain", "no agent display runs"),
    }
}

fn take_over(host: &Host) -> Response<Body> {
    match host.take_over() {
        Ok(_) => json(
            StatusCode::OK,
            &serde_json::json!({"taken_over": true, "message": "You have the agent display: click and type on its picture. The agent's calls are paused until you hand it back."}),
        ),
        Err(refusal) => json(
            StatusCode::CONFLICT,
            &serde_json::json!({"taken_over": false, "message": refusal.to_string()}),
        ),
    }
}

fn hand_back(host: &Host) -> Response<Body> {
    let body = match host.hand_back() {
        Ok(true) => {
            serde_json::json!({"handed_back": true, "message": "Handed back: the agent goes on, from a fresh look at the desktop."})
        }
        Ok(false) => {
            serde_json::json!({"handed_back": false, "message": "Nothing was taken over; no change."})
        }
        Err(refusal) => serde_json::json!({"handed_back": false, "message": refusal.to_string()}),
    };
    json(StatusCode::OK, &body)
}

fn stop(host: &Host) -> Response<Body> {
    let body = match host.stop() {
        Ok(()) => {
            serde_json::json!({"stopped": true, "message": "Stopped: the grant is revoked, the agent's turn is aborted, and agent grants are refused for 30 seconds."})
        }
        Err(e) => serde_json::json!({"stopped": false, "message": format!("Stop failed: {e}")}),
    };
    json(StatusCode::OK, &body)
}

/// The person's answer to the agent's question the page shows.
fn page_answer(host: &Host, body: &[u8]) -> Response<Body> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Answer {
        id: u64,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        private: bool,
        #[serde(default)]
        declined: bool,
    }
    let said = match serde_json::from_slice::<Answer>(body) {
        Ok(Answer { id, declined: true, .. }) => Ok((id, glovebox_host::Answer::Declined)),
        Ok(Answer { id, text: Some(text), private, .. }) => {
            Ok((id, glovebox_host::Answer::Given { text, private }))
        }
        Ok(_) => Err("an answer needs its text, or declined: true".to_owned()),
        Err(e) => Err(format!("not an answer: {e}")),
    };
    let (status, body) = match said.map(|(id, said)| host.answer_on_page(id, said)) {
        Ok(Ok(())) => {
            (StatusCode::OK, serde_json::json!({"answered": true, "message": "Answered."}))
        }
        Ok(Err(refusal)) => (
            StatusCode::CONFLICT,
            serde_json::json!({"answered": false, "message": refusal.message}),
        ),
        Err(why) => {
            (StatusCode::BAD_REQUEST, serde_json::json!({"answered": false, "message": why}))
        }
    };
    json(status, &body)
}

/// One piece of the person's input from the page's live view; never logged.
fn person_input(host: &Host, body: &[u8]) -> Response<Body> {
    use glovebox_model::ErrorCode;
    let input = match serde_json::from_slice::<glovebox_model::PersonInput>(body) {
        Ok(input) => input,
        Err(e) => {
            let body =
                serde_json::json!({"delivered": false, "message": format!("not an input: {e}")});
            return json(StatusCode::BAD_REQUEST, &body);
        }
    };
    let (status, body) = match host.person_input(&input) {
        Ok(()) => (StatusCode::OK, serde_json::json!({"delivered": true})),
        Err(refusal) if refusal.code == ErrorCode::ScopeViolation => (
            StatusCode::CONFLICT,
            serde_json::json!({"delivered": false, "ignored": true, "message": refusal.message}),
        ),
        Err(refusal) if refusal.code == ErrorCode::InvalidArgument => (
            StatusCode::BAD_REQUEST,
            serde_json::json!({"delivered": false, "message": refusal.to_string()}),
        ),
        Err(refusal) => (
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"delivered": false, "message": refusal.to_string()}),
        ),
    };
    json(status, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_has_a_real_stop_button_and_a_live_status() {
        assert!(PAGE.contains("<button id=\"stop\" type=\"button\""));
        assert!(PAGE.contains("role=\"status\"") && PAGE.contains("EventSource"));
        assert!(!PAGE.contains("setInterval"), "no polling loop in the page");
    }
}
