//! The agent display end to end: `open_app` starts a real GTK4 application
//! from Debian (gtk4-widget-factory, GTK 4.8) on the private desktop
//! glovebox owns, and actions GTK4 takes from no background route (a click
//! into an entry, keys) are done there with that display's own pointer and
//! keyboard. The oracle is a second AT-SPI client (pyatspi on the agent
//! display's bus) reading the entry; the user's desktop — pointer, focus,
//! stacking and a sentinel window — must not change, and the indicator
//! page serves the agent display live. Also there: `open_url` (the page
//! POSTs what it got), through the host and through the official MCP
//! Python SDK answering the approval prompt, and LibreOffice Calc edited
//! and saved as CSV (the file is the oracle).
#![cfg(target_os = "linux")]

use glovebox_host::Observation;
use glovebox_model::Role;
use glovebox_model::{Action, Button, Desktop, ErrorCode, Point, Target, WindowRef};
use glovebox_platform::Route;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use std::io::{Read, Write};

/// The texts of every text and entry element of process `pid`, read by pyatspi on the agent display's bus.
fn texts_on(agent: &Sandbox, pid: u32) -> Vec<String> {
    let script = r#"
import pyatspi, sys
pid = int(sys.argv[1])
def texts(acc, out, depth=0):
    if depth > 40: return out
    try:
        if acc.getRoleName() in ('text', 'entry'):
            text = acc.queryText()
            # GTK 4.8 answers an end offset of -1 with nothing: ask for the character count.
            out.append(text.getText(0, text.characterCount))
    except Exception: pass
    for child in acc: texts(child, out, depth + 1)
    return out
for app in pyatspi.Registry.getDesktop(0):
    try:
        if app.get_process_id() != pid: continue
    except Exception: continue
    print('\n'.join(texts(app, [])))
"#;
    let out = glovebox_testkit::pyatspi(agent, script, pid);
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

/// The first editable, enabled text entry with bounds in the frame.
fn entry(seen: &Observation) -> (Target, Point) {
    let root = seen.tree.root.as_ref().expect("a tree");
    let e = root
        .walk()
        .find(|e| {
            e.role == Role::Text
                && e.has(glovebox_model::ElementState::Editable)
                && e.has(glovebox_model::ElementState::Enabled)
                && e.bounds.is_some()
        })
        .unwrap_or_else(|| panic!("no entry:\n{}", seen.tree.render_text()));
    let b = e.bounds.unwrap();
    (Target::Element(e.id), Point { x: b.x + 10, y: b.y + b.height as i32 / 2 })
}

/// The user's window, active on the user's desktop, which test `name` must leave as it is.
fn user_window(sandbox: &Sandbox, name: &str) -> Fixture {
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title(&format!("{name} sentinel")),
        &["--x", "900", "--y", "40"],
    );
    sentinel.activate();
    sentinel
}

#[test]
fn a_gtk4_app_on_the_agent_display_takes_clicks_and_keys_without_touching_the_user() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, desktops) =
        glovebox_testkit::host(sandbox, "agent-display").open_with_agent_display();
    let sentinel = user_window(sandbox, "Agent display");
    sandbox.warp_pointer(1000, 200).unwrap();
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &sentinel);
    let before = user();

    let opened = host
        .open_app("gtk4-widget-factory", Desktop::Agent, false)
        .expect("open_app on the agent display");
    assert_eq!(opened.window.desktop, Desktop::Agent);
    assert_eq!(opened.how, glovebox_host::Opened::Started);
    let agent = desktops.running_agent().expect("the agent display runs");
    assert_ne!(agent.sandbox().display(), sandbox.display());
    // Listed with the user's windows, marked as the agent display's.
    let listed = host.list_windows(Some("widget"), 1).unwrap().windows;
    assert!(
        listed
            .iter()
            .any(|w| w.window.id == opened.window.id && w.window.desktop == Desktop::Agent),
        "{listed:?}"
    );

    let window = WindowRef::Id(opened.window.id);
    let seen = wait_until("the factory's tree", || {
        host.observe(Some(&window), false).ok().filter(|o| o.tree.node_count > 50)
    });
    let (_, point) = entry(&seen);
    // GTK4 reads the pointer through XInput2 only: a click into the entry by point has no
    // background route, so it goes by the agent display's own pointer.
    let clicked = host
        .act(
            seen.frame.id,
            Action::Click {
                target: Target::Point(point),
                button: Button::Left,
                count: 3,
                modifiers: vec![],
            },
        )
        .unwrap();
    assert!(
        matches!(clicked.delivery.route, Route::OnAgentDisplay(_)),
        "{}",
        clicked.delivery.route
    );
    let seen = host.observe(Some(&window), false).unwrap();
    let typed =
        host.act(seen.frame.id, Action::Type { text: "hello agent display".into() }).unwrap();
    let seen = host.observe(Some(&window), false).unwrap();
    // Keys reach GTK4 by no background route at all; the caret is after the typed text.
    let keyed = host
        .act(seen.frame.id, Action::Key { combo: "BackSpace".parse().unwrap(), repeat: 8 })
        .unwrap();
    assert_eq!(
        keyed.delivery.route,
        Route::OnAgentDisplay(Box::new(Route::RealInput(glovebox_linux::routes::XTEST))),
        "{}",
        keyed.delivery.route
    );
    println!(
        "routes: click {}, type {}, key {}",
        clicked.delivery.route, typed.delivery.route, keyed.delivery.route
    );
    let pid = opened.window.id.pid;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let texts = texts_on(agent.sandbox(), pid);
        if texts.iter().any(|t| t.ends_with("hello agent")) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "pyatspi reads no entry ending in the typed text: {texts:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(user(), before, "the user's pointer, focus, stacking and sentinel are untouched");

    // The same app on the user's desktop has no background route for keys, and says where one is.
    let mine = Fixture::launch_kind(
        sandbox,
        glovebox_sandbox::fixture::FixtureKind::Gtk4,
        &unique_title("Agent display user GTK4"),
        &["--no-password"],
    );
    sentinel.activate();
    let id = wait_until("user GTK4 listed", || {
        host.list_windows(Some(&mine.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    });
    let seen = wait_until("user GTK4 tree", || {
        host.observe(Some(&WindowRef::Id(id)), false).ok().filter(|o| o.tree.node_count > 5)
    });
    let refused = host
        .act(seen.frame.id, Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 1 })
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::BackgroundUnavailable);
    assert!(refused.message.contains("agent display"), "{refused}");

    // The indicator page shows the agent display: a PNG of its screen.
    let indicator = glovebox_indicator::serve(host.clone()).unwrap();
    let token = indicator.url.split("token=").nth(1).unwrap().to_owned();
    let mut stream = std::net::TcpStream::connect(indicator.address).unwrap();
    write!(
        stream,
        "GET /agent-display.png?token={token} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        indicator.address
    )
    .unwrap();
    let mut reply = vec![];
    stream.read_to_end(&mut reply).unwrap();
    let head_end = reply.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    assert!(reply.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&reply[..head_end]));
    let png = glovebox_platform::RgbImage::decode_png(&reply[head_end + 4..]).expect("a PNG");
    let (width, _) = glovebox_linux::agent::AGENT_DISPLAY_SIZE;
    assert_eq!(png.width, width.min(960));
    assert!(host.presence_view().agent_display);
}

/// A page on a loopback server that POSTs its field's value on load and on
/// every input: the oracle for what a browser on the agent display did.
struct Page {
    url: String,
    posts: std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>>,
    /// A local address the server redirects to (`/redirect`).
    local: std::sync::Arc<std::sync::Mutex<String>>,
}

const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>glovebox open_url page</title></head>
<body><label>Full name <input id="name" autocomplete="off"></label>
<script>
const post = why => fetch('/state', {method: 'POST', body: JSON.stringify({why, name: document.getElementById('name').value})});
addEventListener('load', () => post('load'));
document.getElementById('name').addEventListener('input', () => post('input'));
</script></body></html>"#;

impl Page {
    fn serve() -> Page {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/form", listener.local_addr().unwrap());
        let posts = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
        let kept = posts.clone();
        let local = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let local_there = local.clone();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let mut request = vec![];
                let mut buf = [0u8; 4096];
                // Head, then as much body as Content-Length says.
                let body = loop {
                    let n = stream.read(&mut buf).unwrap_or(0);
                    if n == 0 {
                        break None;
                    }
                    request.extend_from_slice(&buf[..n]);
                    let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&request[..end]).to_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break Some((head, request[end + 4..end + 4 + length].to_vec()));
                    }
                };
                let Some((head, body)) = body else { continue };
                let reply = if head.starts_with("post /state") {
                    if let Ok(state) = serde_json::from_slice(&body) {
                        kept.lock().unwrap().push(state);
                    }
                    "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".to_owned()
                } else if head.starts_with("get /redirect") {
                    format!("HTTP/1.1 302 Found\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", local_there.lock().unwrap())
                } else {
                    // The page takes a second to come, as a real site's may.
                    if head.starts_with("get /form") {
                        std::thread::sleep(std::time::Duration::from_secs(1));
                    }
                    format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}", PAGE.len())
                };
                let _ = stream.write_all(reply.as_bytes());
            }
        });
        Page { url, posts, local }
    }

    fn saw(&self, what: &str, check: impl Fn(&serde_json::Value) -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !self.posts.lock().unwrap().iter().any(&check) {
            assert!(
                std::time::Instant::now() < deadline,
                "the page never reported {what}: {:?}",
                self.posts.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

#[test]
fn open_url_opens_a_page_on_the_agent_display_and_leaves_the_user_active() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, _desktops) = glovebox_testkit::host(sandbox, "open-url").open_with_agent_display();
    let sentinel = user_window(sandbox, "Open url");
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &sentinel);
    let before = user();

    // Not the web, not an address: refused before anything starts, nothing spent.
    for (url, code) in [
        ("file:///etc/passwd", ErrorCode::ScopeViolation),
        ("javascript:alert(1)", ErrorCode::ScopeViolation),
        ("https://", ErrorCode::InvalidArgument),
        ("no scheme at all", ErrorCode::InvalidArgument),
        ("http://exa mple.org/", ErrorCode::InvalidArgument),
    ] {
        assert_eq!(host.open_url(url, false).unwrap_err().code, code, "{url}");
    }
    assert!(!host.presence_view().agent_display, "a refused address starts nothing");

    let page = Page::serve();
    let opened = host.open_url(&page.url, false).expect("open_url");
    assert_eq!(opened.window.desktop, Desktop::Agent);
    // Its own observation already holds the page, which took a second to come.
    assert!(!opened.still_loading, "{}", opened.observation.tree.render_text());
    full_name_field(&opened.observation);
    page.saw("its load", |s| s["why"] == "load");
    assert_eq!(user(), before, "the user's active window, pointer and stacking are as they were");

    // Text no US key produces, typed into the page's form there; the page says what it got.
    let window = WindowRef::Id(opened.window.id);
    let seen = wait_until("the page's field", || {
        host.observe(Some(&window), false).ok().filter(|o| {
            o.tree
                .root
                .as_ref()
                .is_some_and(|r| r.walk().any(|e| e.name == "Full name" && e.bounds.is_some()))
        })
    });
    let field = full_name_field(&seen).id;
    host.act(
        seen.frame.id,
        Action::Click {
            target: Target::Element(field),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
    )
    .unwrap();
    let seen = host.observe(Some(&window), false).unwrap();
    let typed = host.act(seen.frame.id, Action::Type { text: "Zoë Müller 東京".into() }).unwrap();
    println!("typed by {}", typed.delivery.route);
    page.saw("the typed name", |s| s["name"] == "Zoë Müller 東京");
    assert_eq!(user(), before);
}

/// The test page's editable "Full name" field in `seen`.
fn full_name_field(seen: &Observation) -> &glovebox_model::Element {
    let root = seen.tree.root.as_ref().expect("a tree");
    root.walk()
        .find(|e| e.name == "Full name" && e.has(glovebox_model::ElementState::Editable))
        .unwrap_or_else(|| panic!("no editable Full name:\n{}", seen.tree.render_text()))
}

/// The element of `seen` with `role` and `name`.
fn named(seen: &Observation, role: Role, name: &str) -> Target {
    let root = seen.tree.root.as_ref().expect("a tree");
    let found = root.walk().find(|e| e.role == role && e.name == name);
    Target::Element(
        found.unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", seen.tree.render_text())).id,
    )
}

#[test]
fn a_spreadsheet_on_the_agent_display_is_edited_and_saved_as_csv() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, desktops) = glovebox_testkit::host(sandbox, "calc-csv")
        .guidance(glovebox_config::guidance::shipped())
        .open_with_agent_display();
    let sentinel = user_window(sandbox, "Calc csv");
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &sentinel);
    let agent = desktops.agent().expect("the agent display starts");
    let csv = agent
        .sandbox()
        .runtime_dir()
        .join(format!("{}.csv", unique_title("fruit").replace(' ', "-")));
    std::fs::write(&csv, "fruit,count\nApples,3\nPears,5\n").unwrap();
    let before = user();
    let log = std::fs::File::create(agent.sandbox().runtime_dir().join("localc.log")).unwrap();
    let mut calc = agent
        .sandbox()
        .command("localc")
        .args(["--norestore", "--nologo", "--infilter=CSV:44,34,76,1"])
        .arg(&csv)
        .env("HOME", agent.sandbox().runtime_dir())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("localc (installed by .ci/install-deps)");
    let name = csv.file_name().unwrap().to_str().unwrap().to_owned();
    let listed = wait_until("Calc listed", || {
        host.list_windows(Some(&name), 1).ok()?.windows.into_iter().next().map(|w| w.window)
    });
    assert_eq!(listed.desktop, Desktop::Agent);
    let sheet = WindowRef::Id(listed.id);
    // The grant's first look at Calc carries glovebox's guidance for it, under its own header;
    // later looks do not repeat it.
    let first = wait_until("a first look at Calc", || host.observe(Some(&sheet), false).ok());
    let guidance = first.tree.guidance.as_ref().unwrap_or_else(|| {
        panic!(
            "no guidance for {:?}:
{}",
            listed.app,
            first.tree.render_text()
        )
    });
    assert_eq!(guidance.source, "shipped with glovebox");
    assert!(guidance.notes.iter().any(|n| n.contains("set_value on the cell")), "{guidance:?}");
    let text = first.tree.render_text();
    assert!(text.contains("glovebox guidance for libreoffice-calc (glovebox's notes, shipped with glovebox; not the application's text):"), "{text}");
    let has_cell = |o: &Observation| {
        o.tree
            .root
            .as_ref()
            .is_some_and(|r| r.walk().any(|e| e.role == Role::TableCell && e.name == "B2"))
    };
    let seen =
        wait_until("the sheet's cells", || host.observe(Some(&sheet), false).ok().filter(has_cell));
    assert_eq!(seen.tree.guidance, None, "once per grant and window");

    // A number through the cell's value; text as keys to the cell the table's selection put the cursor on.
    let set = |cell: &str, text: &str| {
        let seen = host.observe(Some(&sheet), false).unwrap();
        let done = host.act(
            seen.frame.id,
            Action::SetValue { target: named(&seen, Role::TableCell, cell), text: text.into() },
        );
        done.unwrap_or_else(|e| panic!("{cell} = {text:?}: {e}")).delivery.route.to_string()
    };
    drop(seen);
    assert_eq!(set("B2", "42"), "at-spi:Value.CurrentValue");
    let route = set("A3", "Plums");
    assert!(route.contains("Selection.SelectChild") && route.contains("keys"), "{route}");
    set("A4", "Zoë Müller");
    let seen = host.observe(Some(&sheet), false).unwrap();
    let ids: Vec<_> = ["B2", "A3", "A4"]
        .iter()
        .map(|c| match named(&seen, Role::TableCell, c) {
            Target::Element(id) => id,
            _ => unreachable!(),
        })
        .collect();
    let read: Vec<String> =
        host.read(seen.frame.id, &ids).unwrap().into_iter().map(|v| v.text).collect();
    assert_eq!(read, ["42", "Plums", "Zoë Müller"]);

    // Saving a CSV asks whether to keep the format: the dialog is a window of its own there.
    let saved = host
        .act(
            seen.frame.id,
            Action::Click {
                target: named(&seen, Role::PushButton, "Save"),
                button: Button::Left,
                count: 1,
                modifiers: vec![],
            },
        )
        .unwrap();
    println!("save by {} {:?}", saved.delivery.route, saved.delivery.receipt);
    let keep = wait_until("the keep-format dialog", || {
        let windows = host.list_windows(None, 1).ok()?.windows;
        windows
            .into_iter()
            .find(|w| {
                w.window.desktop == Desktop::Agent
                    && w.window.id.pid == listed.id.pid
                    && w.window.id != listed.id
            })
            .map(|w| w.window.id)
    });
    let has_button = |o: &Observation| {
        o.tree
            .root
            .as_ref()
            .is_some_and(|r| r.walk().any(|e| e.role == Role::PushButton && e.name.contains("CSV")))
    };
    let dialog = wait_until("the dialog's buttons", || {
        host.observe(Some(&WindowRef::Id(keep)), false).ok().filter(has_button)
    });
    let button = dialog
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::PushButton && e.name.contains("CSV"))
        .unwrap();
    println!("choosing {:?}", button.name);
    let chose = host.act(
        dialog.frame.id,
        Action::Click {
            target: Target::Element(button.id),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
    );
    println!("chose by {:?}", chose.as_ref().map(|c| &c.delivery.route));
    let expected = "fruit,count\nApples,42\nPlums,5\nZoë Müller,\n";
    // Calc quotes text cells as it writes them.
    let unquoted = || std::fs::read_to_string(&csv).unwrap().replace('"', "");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while unquoted() != expected && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(unquoted(), expected, "the file Calc saved: {:?}", std::fs::read_to_string(&csv));
    assert_eq!(user(), before, "the user's pointer, focus, stacking and sentinel are untouched");
    let _ = calc.kill();
    let _ = calc.wait();
}

#[test]
fn an_mcp_sdk_client_opens_a_page_and_types_into_it_on_the_agent_display() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, _desktops) =
        glovebox_testkit::host(sandbox, "sdk-open-url").open_with_agent_display();
    let sentinel = user_window(sandbox, "SDK open url");
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &sentinel);
    let before = user();
    let page = Page::serve();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = repo.join("target/sdk-venv/bin/python");
    assert!(python.exists(), "{} is missing: run `bash .ci/install-deps`", python.display());
    let home = sandbox.runtime_dir().join(unique_title("sdk-open-url-home").replace(' ', "-"));
    std::fs::create_dir_all(&home).unwrap();
    let typed = "Zoë Müller 東京";
    // The official Python SDK in its default mode, against `glovebox mcp` as a client starts it.
    let out = sandbox
        .command_in_home(python, &home)
        .arg(repo.join("testapps/sdk_mcp_open_url.py"))
        .args([page.url.as_str(), typed, env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("GLOVEBOX_ENABLED", "true")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    println!("{report}");
    // The user was asked, and the prompt named the address.
    let prompts: Vec<&str> =
        report["prompts"].as_array().unwrap().iter().filter_map(|p| p.as_str()).collect();
    assert!(
        prompts.iter().any(|p| p.contains(&page.url) && p.contains("in a new window")),
        "{prompts:?}"
    );
    for tool in ["open_url", "click", "type"] {
        assert_eq!(report["calls"][tool]["error"], false, "{tool}: {report}");
    }
    assert!(
        report["calls"]["open_url"]["text"]
            .as_str()
            .unwrap()
            .starts_with("opened on the agent display"),
        "{report}"
    );
    // The page's own report.
    page.saw("the typed name", |s| s["name"] == typed);
    assert_eq!(user(), before, "the user's pointer, focus, stacking and sentinel are untouched");
}

#[test]
fn the_agent_display_keeps_the_gate_denials_and_secure_input() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, desktops) = glovebox_testkit::host(sandbox, "agent-gate")
        .deny(&["gtk3-widget-factory"])
        .open_with_agent_display();

    // A denied application is not moved to the agent display: refused before anything starts.
    let refused = host.open_app("gtk3-widget-factory", Desktop::Agent, false).unwrap_err();
    assert_eq!(refused.code, ErrorCode::TargetDenylisted, "{refused}");
    assert!(desktops.running_agent().is_none(), "a refused open starts no agent display");

    // An application there that holds the keyboard (a prompt) stops input to every window there.
    let agent = desktops.agent().expect("the agent display starts");
    let fixture = Fixture::launch(agent.sandbox(), &unique_title("Agent gate"), &["--no-password"]);
    let window = wait_until("listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    });
    let seen = wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window)), false).ok().filter(|s| s.tree.node_count > 10)
    });
    let grab = glovebox_testkit::desktop::KeyboardGrab::take(agent.sandbox().display());
    let keys_before = fixture.state().unwrap()["keys"].clone();
    let refused = host
        .act(seen.frame.id, Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 1 })
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::SecureInput, "{refused}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(fixture.state().unwrap()["keys"], keys_before, "nothing reached the window");
    grab.release();
    let again =
        wait_until("grab released", || host.observe(Some(&WindowRef::Id(window)), false).ok());
    host.act(again.frame.id, Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 1 })
        .expect("the key once the prompt is gone");
    fixture.wait_state("ctrl+a arrived", |s| {
        s["keys"].as_array().is_some_and(|k| {
            k.iter().any(|k| k["key"] == "a" && k["mods"] == serde_json::json!(["ctrl"]))
        })
    });
}

mod other_users;
mod takeover;
mod terminal;
