//! The indicator page over real loopback sockets, on a host over the fake
//! desktop: the routes answer as they always did, and what reaches the
//! page before its token is checked is bounded — connections at once, the
//! time a request may take to arrive — and a request from another site's
//! page does nothing.

use glovebox_indicator::{CONNECTIONS, REQUEST_DEADLINE};
use glovebox_testkit::fake::{fake_world, FakeWorld};
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// An indicator serving a fake world's host.
struct Served {
    world: FakeWorld,
    address: SocketAddr,
    token: String,
}

fn served(name: &str) -> Served {
    let world = fake_world(name).open();
    let indicator = glovebox_indicator::serve(world.host.clone()).unwrap();
    let token = indicator.url.split("token=").nth(1).unwrap().to_owned();
    Served { world, address: indicator.address, token }
}

/// A reply as it came: its status, its head in lower case, its body.
#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
}

/// A request of `method` on `target` with `headers` (and a loopback Host)
/// and `body` with its length.
fn request(
    address: SocketAddr,
    method: &str,
    target: &str,
    headers: &[&str],
    body: &str,
) -> String {
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {address}\r\n");
    for header in headers {
        head.push_str(&format!("{header}\r\n"));
    }
    format!("{head}Content-Length: {}\r\n\r\n{body}", body.len())
}

/// Sends `raw` whole and reads the reply to its end: the page answers one
/// request per connection.
fn exchange(address: SocketAddr, raw: &str) -> Reply {
    try_exchange(address, raw).unwrap()
}

/// [`exchange`], or how the connection failed.
fn try_exchange(address: SocketAddr, raw: &str) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.write_all(raw.as_bytes())?;
    let mut reply = vec![];
    stream.read_to_end(&mut reply)?;
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok(Reply { status, head: head.to_lowercase(), body: body.to_owned() })
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn every_route_answers_as_the_page_expects() {
    let page = served("routes");
    let (address, token) = (page.address, page.token.as_str());
    let get = |target: &str| exchange(address, &request(address, "GET", target, &[], ""));
    let post = |target: &str, body: &str| {
        exchange(
            address,
            &request(address, "POST", target, &["Content-Type: application/json"], body),
        )
    };

    assert_eq!(get("/").status, 403, "no token: nothing shown");
    assert_eq!(get("/?token=0123456789abcdef0123456789abcdef").status, 403, "wrong token");
    let elsewhere = format!("GET /?token={token} HTTP/1.1\r\nHost: evil.example\r\n\r\n");
    assert_eq!(exchange(address, &elsewhere).status, 403, "a name that is not loopback");

    let shown = get(&format!("/?token={token}"));
    assert_eq!(shown.status, 200, "{shown:?}");
    assert!(shown.body.contains("<button id=\"stop\""), "the page itself");
    for header in [
        "content-type: text/html; charset=utf-8",
        "cache-control: no-store",
        "x-content-type-options: nosniff",
        "referrer-policy: no-referrer",
    ] {
        assert!(shown.head.contains(header), "{header} missing: {}", shown.head);
    }
    assert_eq!(get(&format!("/nothing?token={token}")).status, 404);
    let picture = get(&format!("/agent-display.png?token={token}"));
    assert_eq!((picture.status, picture.body.as_str()), (404, "no agent display runs"));

    // Bad input gets a clear answer and changes nothing.
    let no_length = format!("POST /answer?token={token} HTTP/1.1\r\nHost: {address}\r\n\r\n");
    assert_eq!(exchange(address, &no_length).status, 413, "a body without its length");
    let huge = post(&format!("/answer?token={token}"), &"x".repeat(5000));
    assert_eq!(huge.status, 413);
    assert!(huge.json()["message"].as_str().unwrap().contains("4096 bytes"), "{huge:?}");
    let answer = post(&format!("/answer?token={token}"), "{\"id\": \"one\"}");
    assert_eq!((answer.status, answer.json()["answered"].as_bool()), (400, Some(false)));
    let nobody_asked = post(&format!("/answer?token={token}"), "{\"id\": 7, \"text\": \"yes\"}");
    assert_eq!(nobody_asked.status, 409, "{nobody_asked:?}");
    let input = post(&format!("/agent-display/input?token={token}"), "{\"type\": \"fly\"}");
    assert_eq!((input.status, input.json()["delivered"].as_bool()), (400, Some(false)));
    let handed = post(&format!("/hand-back?token={token}"), "");
    assert_eq!((handed.status, handed.json()["handed_back"].as_bool()), (200, Some(false)));
    let taken = post(&format!("/take-over?token={token}"), "");
    assert_eq!((taken.status, taken.json()["taken_over"].as_bool()), (409, Some(false)));
    assert!(!page.world.host.presence_view().stopped);

    // The events: the host's view at once, as server-sent events.
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream
        .write_all(request(address, "GET", &format!("/events?token={token}"), &[], "").as_bytes())
        .unwrap();
    let mut seen = String::new();
    let view = loop {
        let mut chunk = [0; 4096];
        let read = stream.read(&mut chunk).unwrap();
        assert!(read > 0, "the stream ended: {seen}");
        seen.push_str(&String::from_utf8_lossy(&chunk[..read]));
        let Some((_, after)) = seen.split_once("data: ") else { continue };
        if let Some((view, _)) = after.split_once("\n\n") {
            break serde_json::from_str::<serde_json::Value>(view).unwrap();
        }
    };
    assert!(seen.to_lowercase().contains("content-type: text/event-stream"), "{seen}");
    assert_eq!(view["stopped"], false, "{view}");
    assert!(view["grant"].is_null(), "{view}");
}

#[test]
fn a_post_from_another_sites_page_is_refused_and_does_nothing() {
    let page = served("origin");
    let (address, token) = (page.address, page.token.as_str());
    let post = |target: &str, origin: &str| {
        exchange(address, &request(address, "POST", target, &[&format!("Origin: {origin}")], ""))
    };
    let stop = format!("/stop?token={token}");
    let other_port = format!("http://127.0.0.1:{}", address.port() + 1);
    for origin in ["http://evil.example", "null", other_port.as_str(), "https://127.0.0.1"] {
        let refused = post(&stop, origin);
        assert_eq!(refused.status, 403, "Stop from {origin}: {refused:?}");
        let taken = post(&format!("/take-over?token={token}"), origin);
        assert_eq!(taken.status, 403, "take-over from {origin}: {taken:?}");
    }
    assert!(!page.world.host.presence_view().stopped, "a refused Stop stopped nothing");

    // The page's own script names the page's origin: its Stop stops.
    let own = post(&stop, &format!("http://localhost:{}", address.port()));
    assert_eq!((own.status, own.json()["stopped"].as_bool()), (200, Some(true)), "{own:?}");
    assert!(page.world.host.presence_view().stopped);
    let again = post(&stop, &format!("http://127.0.0.1:{}", address.port()));
    assert_eq!(again.status, 200, "{again:?}");
}

#[test]
fn many_idle_connections_hold_no_thread_each_and_the_page_still_answers() {
    let page = served("flood");
    let address = page.address;
    let before = threads();
    let started = Instant::now();
    let idle: Vec<TcpStream> = (0..300).map(|_| TcpStream::connect(address).unwrap()).collect();
    for stream in &idle {
        stream.set_nonblocking(true).unwrap();
    }
    // Those past the cap are answered at once (503, closed), not kept
    // waiting: looked for well before the deadline that ends the others.
    let answered = || {
        let waiting = std::io::ErrorKind::WouldBlock;
        idle.iter()
            .filter(|stream| !matches!(stream.peek(&mut [0; 1]), Err(e) if e.kind() == waiting))
            .count()
    };
    let mut answered_at_once = answered();
    while answered_at_once < 300 - CONNECTIONS && started.elapsed() < REQUEST_DEADLINE / 2 {
        std::thread::sleep(Duration::from_millis(50));
        answered_at_once = answered();
    }
    let during = threads();
    // Other tests of this binary start a few threads meanwhile; a thread per
    // connection would be 300.
    assert!(
        during < before + 100,
        "{before} threads before 300 idle connections, {during} with them"
    );
    assert!(
        answered_at_once >= 300 - CONNECTIONS,
        "{answered_at_once} of 300 idle connections answered within {:?}",
        REQUEST_DEADLINE / 2
    );
    let mut busy = vec![];
    idle[299].set_nonblocking(false).unwrap();
    (&idle[299]).read_to_end(&mut busy).unwrap();
    assert!(String::from_utf8_lossy(&busy).starts_with("HTTP/1.1 503"), "{busy:?}");

    // Once they go, the person's page answers again (once the page has seen
    // them go: until then it is busy, or a reset raced its 503).
    drop(idle);
    let target = format!("/?token={}", page.token);
    let deadline = Instant::now() + Duration::from_secs(3);
    let shown = loop {
        let shown = try_exchange(address, &request(address, "GET", &target, &[], ""));
        let busy = shown.as_ref().map_or(true, |reply| reply.status == 503);
        if !busy || Instant::now() > deadline {
            break shown.unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(shown.status, 200, "{shown:?}");
    assert!(shown.body.contains("<button id=\"stop\""));
}

/// Sends `start` at once, then one byte every 200 ms; how long after the
/// connection the page ended it (`None`: not within 12 s), and what it said.
fn trickled(address: SocketAddr, start: String) -> (Option<Duration>, String) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(address).unwrap();
    stream.write_all(start.as_bytes()).unwrap();
    let mut reader = stream.try_clone().unwrap();
    let (ended, end) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut said = vec![];
        // An error (a reset) ends it as well as the end of the stream.
        let _ = reader.read_to_end(&mut said);
        let _ = ended.send((started.elapsed(), String::from_utf8_lossy(&said).into_owned()));
    });
    while started.elapsed() < Duration::from_secs(12) {
        match end.recv_timeout(Duration::from_millis(200)) {
            Ok((when, said)) => return (Some(when), said),
            Err(_) => {
                let _ = stream.write_all(b"a");
            }
        }
    }
    (None, String::new())
}

#[test]
fn a_request_trickled_a_byte_at_a_time_is_cut_off_at_the_deadline() {
    let page = served("trickle");
    let (address, token) = (page.address, page.token.clone());
    // A head that never ends, and a body that comes far slower than it should.
    let head = format!("GET /?token={token} HTTP/1.1\r\nHost: {address}\r\nX-Slow: ");
    let body = format!(
        "POST /answer?token={token} HTTP/1.1\r\nHost: {address}\r\nContent-Length: 400\r\n\r\n"
    );
    let in_head = std::thread::spawn(move || trickled(address, head));
    let (in_body, said) = trickled(address, body);
    let (in_head, _) = in_head.join().unwrap();
    let bound = REQUEST_DEADLINE + Duration::from_secs(2);
    for (what, ended) in [("head", in_head), ("body", in_body)] {
        let ended = ended.unwrap_or_else(|| panic!("a trickled {what} was still read after 12 s"));
        assert!(ended < bound, "a trickled {what} was read for {ended:?}");
    }
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(!page.world.host.presence_view().stopped);
}
