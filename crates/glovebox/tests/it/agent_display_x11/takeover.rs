//! The person takes the agent display over from the indicator page in a
//! real browser (Playwright's core on Debian's Chromium), types into a page
//! there and hands it back. The page's own POSTs are the oracle for what
//! was typed; the agent's calls meanwhile are answered
//! `COMPUTER_PAUSED_BY_USER`, its frames from before are stale after the
//! hand-back, and a fresh look works; the user's desktop never changes.

use super::*;

/// `method path` on the indicator, with `body` as JSON: the status line's code and the body.
fn indicator_call(
    address: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let code = reply.split_whitespace().nth(1).unwrap_or("0").parse().unwrap();
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (code, body)
}

#[test]
fn the_person_takes_the_agent_display_over_types_there_and_hands_it_back() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, _desktops) = glovebox_testkit::host(sandbox, "take-over").open_with_agent_display();
    let sentinel = user_window(sandbox, "Take over");
    sandbox.warp_pointer(1000, 300).unwrap();
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &sentinel);
    let before = user();
    let indicator = glovebox_indicator::serve(host.clone()).unwrap();
    let token = indicator.url.split("token=").nth(1).unwrap().to_owned();
    let call = |method: &str, path: &str, body: Option<&str>| {
        indicator_call(indicator.address, method, &format!("{path}?token={token}"), body)
    };

    // Nothing to take over yet: refused, nothing paused.
    let (code, said) = call("POST", "/take-over", None);
    assert_eq!(code, 409, "{said}");
    assert!(!host.presence_view().taken_over);

    let page = Page::serve();
    let opened = host.open_url(&page.url, false).expect("open_url");
    page.saw("its load", |s| s["why"] == "load");
    let window = WindowRef::Id(opened.window.id);
    let seen = wait_until("the page's field", || {
        host.observe(Some(&window), false).ok().filter(|o| {
            o.tree.root.as_ref().is_some_and(|r| {
                r.walk().any(|e| e.name == "Full name" && e.screen_bounds.is_some())
            })
        })
    });
    let field = full_name_field(&seen);
    let place = field.screen_bounds.unwrap();
    let (width, height) = glovebox_linux::agent::AGENT_DISPLAY_SIZE;
    let fraction = |at: i32, of: u32| format!("{:.4}", f64::from(at) / f64::from(of));
    let (x, y) = (
        fraction(place.x + place.width as i32 / 2, width),
        fraction(place.y + place.height as i32 / 2, height),
    );

    // Bad input first: a wrong token pauses nothing; input while not taken over is ignored;
    // handing back what was not taken changes nothing.
    let (code, _) = indicator_call(indicator.address, "POST", "/take-over?token=wrong", None);
    assert_eq!(code, 403);
    assert!(!host.presence_view().taken_over);
    let click = format!(r#"{{"type": "click", "at": {{"x": {x}, "y": {y}}}}}"#);
    let (code, said) = call("POST", "/agent-display/input", Some(&click));
    assert_eq!(code, 409, "{said}");
    assert!(said.contains("ignored"), "{said}");
    let (code, said) = call("POST", "/hand-back", None);
    assert_eq!(code, 200);
    assert!(said.contains("\"handed_back\":false") && said.contains("no change"), "{said}");
    host.observe(Some(&window), false).expect("the agent still works: nothing was paused");

    // The person, in a browser: Take over, click the field on the live picture, type.
    let mut person = std::process::Command::new("node")
        .arg(glovebox_testkit::sdk::repo().join("testapps/node/indicator_takeover.mjs"))
        .args([indicator.url.as_str(), &x, &y, "Ada Person"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(person.stdout.take().unwrap());
    let mut said = |expected: &str| {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut lines, &mut line).unwrap();
        assert!(line.starts_with(expected), "the person's browser said {line:?}");
        line
    };
    said("TAKEN");
    assert!(host.presence_view().taken_over);
    said("TYPED");
    page.saw("the person's typing", |s| s["name"] == "Ada Person");
    // The agent meanwhile: paused, nothing done, by observe and by an action on its old frame.
    let paused = host.observe(Some(&window), false).unwrap_err();
    assert_eq!(paused.code, ErrorCode::PausedByUser, "{paused}");
    assert!(paused.message.contains("taken over"), "{paused}");
    let paused = host.act(seen.frame.id, Action::Type { text: " agent".into() }).unwrap_err();
    assert_eq!(paused.code, ErrorCode::PausedByUser);
    // Hand back, from the page.
    person.stdin.take().unwrap().write_all(b"hand back\n").unwrap();
    said("HANDED");
    assert!(person.wait().unwrap().success());
    assert!(!host.presence_view().taken_over);

    // The agent's old frame is stale; a fresh look works, and its typing lands after the person's.
    let stale = host.act(seen.frame.id, Action::Type { text: " agent".into() }).unwrap_err();
    assert_eq!(stale.code, ErrorCode::StaleRef, "{stale}");
    let fresh = host.observe(Some(&window), false).expect("a fresh frame after the hand-back");
    assert_ne!(fresh.frame.id, seen.frame.id);
    let field = full_name_field(&fresh).id;
    host.act(
        fresh.frame.id,
        Action::Click {
            target: Target::Element(field),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
    )
    .unwrap();
    let fresh = host.observe(Some(&window), false).unwrap();
    host.act(fresh.frame.id, Action::Key { combo: "End".parse().unwrap(), repeat: 1 }).unwrap();
    let fresh = host.observe(Some(&window), false).unwrap();
    host.act(fresh.frame.id, Action::Type { text: " and agent".into() }).unwrap();
    page.saw("the agent's typing after the person's", |s| s["name"] == "Ada Person and agent");

    // The user's desktop never changed; the audit has both moments and not what the person typed.
    assert_eq!(user(), before, "the user's pointer, focus, stacking and sentinel are untouched");
    let audit =
        std::fs::read_to_string(glovebox_testkit::audit_path(sandbox, "take-over")).unwrap();
    assert!(audit.contains("\"taken-over\"") && audit.contains("\"handed-back\""), "{audit}");
    assert!(!audit.contains("Ada Person"), "the person's typing reached the audit");
}
