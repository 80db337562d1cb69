//! Presence on a real desktop: the agent's drawn cursor (override-redirect,
//! empty input shape, clicks pass through it, never in glovebox's own
//! screenshots, gone after Stop), and the indicator page in a real browser
//! (headless Chromium driven over WebDriver): it shows the bound window and
//! the budget live, and its Stop button ends the grant.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::Role;
use glovebox_model::{Action, Button, ErrorCode, Target, WindowId, WindowRef};
use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use glovebox_x11::overlay::{AIM_RGB, CURSOR_SIZE, CURSOR_TITLE, PRESS_RGB};
use serde_json::{json, Value};
use std::time::Duration;
use x11rb::connection::Connection;
use x11rb::protocol::shape::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, MapState};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::wrapper::ConnectionExt as _;

fn window_of(host: &Host, fixture: &Fixture) -> WindowId {
    wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    })
}

fn observe(host: &Host, window: WindowId, screenshot: bool) -> Observation {
    wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window)), screenshot)
            .ok()
            .filter(|o| o.tree.node_count > 10)
    })
}

fn element(seen: &Observation, role: Role, name: &str) -> (Target, glovebox_model::Rect) {
    let e = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name}"));
    (Target::Element(e.id), e.screen_bounds.expect("on screen"))
}

/// The cursor window, found as any tool would: a child of the root by name.
fn cursor_window(conn: &x11rb::rust_connection::RustConnection, root: u32) -> Option<u32> {
    let tree = conn.query_tree(root).ok()?.reply().ok()?;
    tree.children.into_iter().find(|&w| {
        conn.get_property(
            false,
            w,
            x11rb::protocol::xproto::AtomEnum::WM_NAME,
            x11rb::protocol::xproto::AtomEnum::STRING,
            0,
            64,
        )
        .ok()
        .and_then(|c| c.reply().ok())
        .is_some_and(|p| p.value == CURSOR_TITLE.as_bytes())
    })
}

fn colours(image: &RgbImage) -> std::collections::HashSet<[u8; 3]> {
    (0..image.height)
        .flat_map(|y| (0..image.width).map(move |x| (x, y)))
        .map(|(x, y)| image.pixel(x, y))
        .collect()
}

#[test]
fn the_agents_cursor_is_drawn_click_through_never_captured_and_gone_after_stop() {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let host = glovebox_testkit::host(&sandbox, "overlay").overlay().open();
    let fixture = Fixture::launch(
        &sandbox,
        &unique_title("Presence"),
        &["--no-password", "--x", "60", "--y", "60"],
    );
    let window = window_of(&host, &fixture);
    let (conn, screen) = x11rb::connect(Some(sandbox.display())).unwrap();
    let root = conn.setup().roots[screen].root;
    assert!(
        cursor_window(&conn, root).is_none_or(|w| conn
            .get_window_attributes(w)
            .unwrap()
            .reply()
            .unwrap()
            .map_state
            != MapState::VIEWABLE),
        "no cursor before a grant"
    );

    let seen = observe(&host, window, false);
    // The overlay's own thread maps the window it created: wait for both (a loaded machine shows the gap).
    let viewable = |w: u32| {
        conn.get_window_attributes(w)
            .ok()?
            .reply()
            .ok()
            .filter(|a| a.map_state == MapState::VIEWABLE)
            .map(|_| w)
    };
    let cursor = wait_until("cursor drawn", || cursor_window(&conn, root).and_then(viewable));
    let attributes = conn.get_window_attributes(cursor).unwrap().reply().unwrap();
    assert!(attributes.override_redirect, "the window manager never manages it");
    assert_eq!(
        attributes.map_state,
        MapState::VIEWABLE,
        "it appears with the grant's first observation"
    );
    let input = conn
        .shape_get_rectangles(cursor, x11rb::protocol::shape::SK::INPUT)
        .unwrap()
        .reply()
        .unwrap();
    assert!(input.rectangles.is_empty(), "an empty input shape: it can never receive input");
    let listed = host.list_windows(None, 1).unwrap();
    assert!(
        listed.windows.iter().all(|w| w.window.id.handle != cursor),
        "never in the window list"
    );

    // Before the click the cursor moves to the button's centre; after it, it shows a press.
    let (cancel, bounds) = element(&seen, Role::PushButton, "Cancel");
    host.act(
        seen.frame.id,
        Action::Click { target: cancel, button: Button::Left, count: 1, modifiers: vec![] },
    )
    .unwrap();
    fixture.wait_state("cancel clicked by the host", |s| s["clicks"]["cancel"] == 1);
    let centre = (bounds.x + bounds.width as i32 / 2, bounds.y + bounds.height as i32 / 2);
    let placed = conn.translate_coordinates(cursor, root, 0, 0).unwrap().reply().unwrap();
    let half = i32::from(CURSOR_SIZE / 2);
    assert_eq!(
        (i32::from(placed.dst_x) + half, i32::from(placed.dst_y) + half),
        centre,
        "the cursor marks the element's centre"
    );

    // A real click (XTest) at the cursor's centre lands on the button below it.
    conn.xtest_fake_input(6, 0, 0, root, centre.0 as i16, centre.1 as i16, 0).unwrap();
    conn.xtest_fake_input(4, 1, 0, root, 0, 0, 0).unwrap();
    conn.xtest_fake_input(5, 1, 0, root, 0, 0, 0).unwrap();
    conn.sync().unwrap();
    fixture.wait_state("the click passed through the cursor", |s| s["clicks"]["cancel"] == 2);

    // glovebox's own screenshot holds none of the cursor; the root (ImageMagick) does.
    let next = observe(&host, window, true);
    let shot = RgbImage::decode_png(next.screenshot.as_ref().unwrap()).unwrap();
    let ours = colours(&shot);
    assert!(
        !ours.contains(&PRESS_RGB) && !ours.contains(&AIM_RGB),
        "the cursor reached glovebox's screenshot"
    );
    let root_png = sandbox.runtime_dir().join("presence-root.png");
    assert!(sandbox
        .command("import")
        .args(["-window", "root", root_png.to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let outside = colours(&RgbImage::decode_png(&std::fs::read(&root_png).unwrap()).unwrap());
    assert!(
        outside.contains(&PRESS_RGB) || outside.contains(&AIM_RGB),
        "an outside tool sees the cursor"
    );

    host.stop().unwrap();
    wait_until("cursor gone", || {
        (conn.get_window_attributes(cursor).ok()?.reply().ok()?.map_state != MapState::VIEWABLE)
            .then_some(())
    });
    assert_eq!(host.observe(None, false).unwrap_err().code, ErrorCode::StoppedByUser);
    drop(fixture);
    sandbox.shutdown();
}

/// One HTTP/1.1 request; the status and the JSON body (read to its
/// `Content-Length`: chromedriver keeps connections open).
fn http(address: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    use std::io::{BufRead, Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head =
        format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut reader = std::io::BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let mut payload = vec![0; length.unwrap_or(0)];
    reader.read_exact(&mut payload).unwrap();
    let payload = String::from_utf8_lossy(&payload).into_owned();
    (status, serde_json::from_str(payload.trim()).unwrap_or(Value::String(payload)))
}

/// A WebDriver session of Debian's chromedriver and headless Chromium.
struct Browser {
    driver: std::process::Child,
    address: String,
    session: String,
}

impl Browser {
    fn start(home: &std::path::Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = std::process::Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromedriver (Debian package chromium-driver)");
        let address = format!("127.0.0.1:{port}");
        wait_until("chromedriver ready", || std::net::TcpStream::connect(&address).ok());
        let profile = home.join("chromium-profile");
        let capabilities = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--window-size=900,900", format!("--user-data-dir={}", profile.display())]
        }}}});
        let (status, reply) = http(&address, "POST", "/session", Some(&capabilities));
        assert_eq!(status, 200, "{reply}");
        let session = reply["value"]["sessionId"].as_str().unwrap().to_owned();
        Browser { driver, address, session }
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, reply) =
            http(&self.address, method, &format!("/session/{}{path}", self.session), body.as_ref());
        assert_eq!(status, 200, "{method} {path}: {reply}");
        reply["value"].clone()
    }

    fn text_of(&self, css: &str) -> String {
        let found =
            self.command("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap()
            .to_owned();
        self.command("GET", &format!("/element/{id}/text"), None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn click(&self, css: &str) {
        let found =
            self.command("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap()
            .to_owned();
        self.command("POST", &format!("/element/{id}/click"), Some(json!({})));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(&self.address, "DELETE", &format!("/session/{}", self.session), None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

#[test]
fn the_indicator_shows_the_grant_live_in_a_real_browser_and_its_stop_ends_it() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "indicator").overlay().open();
    let fixture = Fixture::launch(sandbox, &unique_title("Indicator"), &["--no-password"]);
    let window = window_of(&host, &fixture);
    let indicator = glovebox_indicator::serve(host.clone()).unwrap();
    let address = indicator.address.to_string();
    assert_eq!(http(&address, "GET", "/", None).0, 403, "no token: nothing shown");
    assert_eq!(
        http(&address, "GET", "/?token=0123456789abcdef0123456789abcdef", None).0,
        403,
        "wrong token"
    );
    assert_eq!(http(&address, "POST", "/stop?token=wrong", None).0, 403);

    let seen = observe(&host, window, false);
    let home = sandbox.runtime_dir().join("indicator-browser");
    std::fs::create_dir_all(&home).unwrap();
    let browser = Browser::start(&home);
    browser.command("POST", "/url", Some(json!({"url": indicator.url})));
    wait_until("the page shows the bound window", || {
        browser.text_of("#window").contains(&fixture.title).then_some(())
    });
    let before: u32 = browser.text_of("#budget").parse().unwrap();
    assert_eq!(before, seen.grant.budget_left);
    assert!(browser.text_of("#state").contains("holds a grant"));

    // An action: the budget shown drops without a reload, and the action is listed.
    let (cancel, _) = element(&seen, Role::PushButton, "Cancel");
    host.act(
        seen.frame.id,
        Action::Click { target: cancel, button: Button::Left, count: 1, modifiers: vec![] },
    )
    .unwrap();
    fixture.wait_state("clicked", |s| s["clicks"]["cancel"] == 1);
    wait_until("budget drops live", || {
        (browser.text_of("#budget") == (before - 1).to_string()).then_some(())
    });
    assert!(browser.text_of("#recent").contains("click"), "{}", browser.text_of("#recent"));

    // A look at the page as a person sees it.
    let png = browser.command("GET", "/screenshot", None);
    let png =
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, png.as_str().unwrap())
            .unwrap();
    std::fs::write(home.join("indicator.png"), &png).unwrap();
    if let Ok(dir) = std::env::var("GLOVEBOX_INDICATOR_SHOT") {
        std::fs::write(dir, &png).unwrap();
    }

    // Stop, pressed in the page: the grant ends, the page says so, the agent is refused.
    browser.click("#stop");
    wait_until("the page says it stopped", || {
        browser.text_of("#stopped").contains("Stopped").then_some(())
    });
    wait_until("no grant shown", || browser.text_of("#state").contains("Stopped").then_some(()));
    assert!(host.grant_status().is_none());
    assert_eq!(host.observe(None, false).unwrap_err().code, ErrorCode::StoppedByUser);
    let audit =
        std::fs::read_to_string(sandbox.runtime_dir().join("audit-indicator.jsonl")).unwrap();
    let token = indicator.url.split("token=").nth(1).unwrap();
    assert!(!audit.contains(token), "the token never reaches the audit log");
}
