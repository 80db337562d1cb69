//! The indicator (DESIGN.md §7): a small page on 127.0.0.1 that shows what
//! the agent holds right now — the bound window, scope, origin, budget,
//! capture mode, the last actions and their results — live over
//! server-sent events, with a Stop that does exactly what `glovebox stop`
//! does, and Take over / Hand back of the agent display (the person's
//! clicks and keys on its live picture go to that display; the agent's
//! calls are paused meanwhile). Every request needs the per-run token in
//! its URL (403 without it) and a loopback `Host`. The page is plain HTML, CSS and JavaScript
//! embedded here; it shows only what the host's presence view gives it.
#![forbid(unsafe_code)]

use glovebox_host::access::{loopback, new_token, same_secret};
use glovebox_host::Host;
use std::io::{BufRead, BufReader, Read as _, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

const PAGE: &str = include_str!("page.html");
/// How often an event stream looks at the host's view for a change.
const TICK: Duration = Duration::from_millis(100);
/// A comment line this often keeps proxies and the browser from timing out.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// How wide the agent display's picture is served.
const AGENT_VIEW_WIDTH: u32 = 960;
/// How often the agent display's picture is taken while the page shows it.
const AGENT_VIEW_TICK: Duration = Duration::from_millis(400);
/// Longest request head read.
const MAX_HEAD: usize = 8 * 1024;
/// Longest request body read (one piece of the person's input).
const MAX_BODY: usize = 4 * 1024;

/// A running indicator; it serves until the process ends.
pub struct Indicator {
    pub url: String,
    pub address: SocketAddr,
}

/// Starts serving `host`'s indicator on a free loopback port and tells the
/// host its URL (so `glovebox indicator` can ask for it).
pub fn serve(host: Host) -> std::io::Result<Indicator> {
    let token = new_token()?;
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let address = listener.local_addr()?;
    let url = format!("http://{address}/?token={token}");
    host.set_indicator_url(url.clone());
    std::thread::Builder::new().name("glovebox-indicator".into()).spawn(move || {
        for stream in listener.incoming().flatten() {
            let (host, token) = (host.clone(), token.clone());
            let _ = std::thread::Builder::new().name("glovebox-indicator-conn".into()).spawn(
                move || {
                    let _ = answer(stream, &host, &token);
                },
            );
        }
    })?;
    Ok(Indicator { url, address })
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &str,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn respond_bytes(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)
}

fn answer(mut stream: TcpStream, host: &Host, token: &str) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.by_ref().take(MAX_HEAD as u64).read_line(&mut request_line)?;
    let mut host_header = None;
    let mut content_length: Option<usize> = None;
    let mut head = request_line.len();
    loop {
        let mut line = String::new();
        if reader.by_ref().take(MAX_HEAD as u64).read_line(&mut line)? == 0
            || line == "\r\n"
            || line == "\n"
        {
            break;
        }
        head += line.len();
        if head > MAX_HEAD {
            return respond(
                &mut stream,
                "431 Request Header Fields Too Large",
                "text/plain",
                "too large",
            );
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("host") {
                host_header = Some(value.trim().to_owned());
            } else if name.eq_ignore_ascii_case("content-length") {
                content_length = value.trim().parse().ok();
            }
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let presented =
        query.split('&').find_map(|pair| pair.strip_prefix("token=")).unwrap_or_default();
    if !host_header.as_deref().is_some_and(loopback)
        || !same_secret(presented.as_bytes(), token.as_bytes())
    {
        return respond(&mut stream, "403 Forbidden", "text/plain", "forbidden");
    }
    match (method, path) {
        ("GET", "/") => respond(&mut stream, "200 OK", "text/html; charset=utf-8", PAGE),
        ("GET", "/events") => events(stream, host),
        ("GET", "/agent-display.png") => match host.agent_display_png(AGENT_VIEW_WIDTH) {
            Some(Ok(png)) => respond_bytes(&mut stream, "200 OK", "image/png", &png),
            Some(Err(refusal)) => {
                respond(&mut stream, "503 Service Unavailable", "text/plain", &refusal.to_string())
            }
            None => respond(&mut stream, "404 Not Found", "text/plain", "no agent display runs"),
        },
        ("GET", "/agent-display.stream") => agent_display_stream(stream, host),
        ("POST", "/take-over") => {
            let (status, body) = match host.take_over() {
                Ok(_) => (
                    "200 OK",
                    serde_json::json!({"taken_over": true, "message": "You have the agent display: click and type on its picture. The agent's calls are paused until you hand it back."}),
                ),
                Err(refusal) => (
                    "409 Conflict",
                    serde_json::json!({"taken_over": false, "message": refusal.to_string()}),
                ),
            };
            respond(&mut stream, status, "application/json", &body.to_string())
        }
        ("POST", "/hand-back") => {
            let body = match host.hand_back() {
                Ok(true) => {
                    serde_json::json!({"handed_back": true, "message": "Handed back: the agent goes on, from a fresh look at the desktop."})
                }
                Ok(false) => {
                    serde_json::json!({"handed_back": false, "message": "Nothing was taken over; no change."})
                }
                Err(refusal) => {
                    serde_json::json!({"handed_back": false, "message": refusal.to_string()})
                }
            };
            respond(&mut stream, "200 OK", "application/json", &body.to_string())
        }
        ("POST", "/answer") => {
            let body = match read_body(&mut reader, content_length) {
                Some(body) => body,
                None => return too_large(&mut stream),
            };
            page_answer(&mut stream, host, &body)
        }
        ("POST", "/agent-display/input") => {
            let body = match read_body(&mut reader, content_length) {
                Some(body) => body,
                None => return too_large(&mut stream),
            };
            person_input(&mut stream, host, &body)
        }
        ("POST", "/stop") => {
            let body = match host.stop() {
                Ok(()) => {
                    serde_json::json!({"stopped": true, "message": "Stopped: the grant is revoked, the agent's turn is aborted, and agent grants are refused for 30 seconds."})
                }
                Err(e) => {
                    serde_json::json!({"stopped": false, "message": format!("Stop failed: {e}")})
                }
            };
            respond(&mut stream, "200 OK", "application/json", &body.to_string())
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", "not found"),
    }
}

/// A request's body of at most [`MAX_BODY`] bytes, by its Content-Length.
fn read_body(reader: &mut impl std::io::Read, length: Option<usize>) -> Option<Vec<u8>> {
    let length = length.filter(|l| *l <= MAX_BODY)?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

fn too_large(stream: &mut TcpStream) -> std::io::Result<()> {
    let body = serde_json::json!({"message": format!("a body of at most {MAX_BODY} bytes, with its Content-Length")});
    respond(stream, "413 Payload Too Large", "application/json", &body.to_string())
}

/// The person's answer to the agent's question the page shows.
fn page_answer(stream: &mut TcpStream, host: &Host, body: &[u8]) -> std::io::Result<()> {
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
        Ok(Answer { id, declined: true, .. }) => Ok((id, glovebox_host::Said::Declined)),
        Ok(Answer { id, text: Some(text), private, .. }) => {
            Ok((id, glovebox_host::Said::Answer { text, private }))
        }
        Ok(_) => Err("an answer needs its text, or declined: true".to_owned()),
        Err(e) => Err(format!("not an answer: {e}")),
    };
    let (status, body) = match said.map(|(id, said)| host.answer_on_page(id, said)) {
        Ok(Ok(())) => ("200 OK", serde_json::json!({"answered": true, "message": "Answered."})),
        Ok(Err(refusal)) => {
            ("409 Conflict", serde_json::json!({"answered": false, "message": refusal.message}))
        }
        Err(why) => ("400 Bad Request", serde_json::json!({"answered": false, "message": why})),
    };
    respond(stream, status, "application/json", &body.to_string())
}

/// One piece of the person's input from the page's live view; never logged.
fn person_input(stream: &mut TcpStream, host: &Host, body: &[u8]) -> std::io::Result<()> {
    let input = match serde_json::from_slice::<glovebox_model::PersonInput>(body) {
        Ok(input) => input,
        Err(e) => {
            let body =
                serde_json::json!({"delivered": false, "message": format!("not an input: {e}")});
            return respond(stream, "400 Bad Request", "application/json", &body.to_string());
        }
    };
    let (status, body) = match host.person_input(&input) {
        Ok(()) => ("200 OK", serde_json::json!({"delivered": true})),
        Err(refusal) if refusal.code == glovebox_model::ErrorCode::ScopeViolation => (
            "409 Conflict",
            serde_json::json!({"delivered": false, "ignored": true, "message": refusal.message}),
        ),
        Err(refusal) if refusal.code == glovebox_model::ErrorCode::InvalidArgument => (
            "400 Bad Request",
            serde_json::json!({"delivered": false, "message": refusal.to_string()}),
        ),
        Err(refusal) => (
            "503 Service Unavailable",
            serde_json::json!({"delivered": false, "message": refusal.to_string()}),
        ),
    };
    respond(stream, status, "application/json", &body.to_string())
}

/// The agent display live: a new picture whenever the screen changed
/// (`multipart/x-mixed-replace`, which browsers show in an `<img>`),
/// until the page goes or the agent display ends.
fn agent_display_stream(mut stream: TcpStream, host: &Host) -> std::io::Result<()> {
    const BOUNDARY: &str = "glovebox-agent-display";
    stream.write_all(format!("HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary={BOUNDARY}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n").as_bytes())?;
    let mut last = vec![];
    loop {
        match host.agent_display_png(AGENT_VIEW_WIDTH) {
            None => return Ok(()),
            // A prompt holds the keyboard: nothing new is shown until it lets go.
            Some(Err(_)) => {}
            Some(Ok(png)) if png != last => {
                stream.write_all(
                    format!(
                        "--{BOUNDARY}\r\nContent-Type: image/png\r\nContent-Length: {}\r\n\r\n",
                        png.len()
                    )
                    .as_bytes(),
                )?;
                stream.write_all(&png)?;
                stream.write_all(b"\r\n")?;
                stream.flush()?;
                last = png;
            }
            Some(Ok(_)) => {}
        }
        std::thread::sleep(AGENT_VIEW_TICK);
    }
}

/// Server-sent events: the view whenever it changes, until the page goes.
fn events(mut stream: TcpStream, host: &Host) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\n")?;
    let mut last = String::new();
    let mut quiet_since = Instant::now();
    loop {
        let view = serde_json::to_string(&host.presence_view()).unwrap_or_default();
        if view != last {
            stream.write_all(format!("data: {view}\n\n").as_bytes())?;
            stream.flush()?;
            last = view;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() > KEEPALIVE {
            stream.write_all(b": still here\n\n")?;
            quiet_since = Instant::now();
        }
        std::thread::sleep(TICK);
    }
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
