//! Windows whose applications report no accessibility tree, driven by the
//! elements glovebox sees in their pixels, on desktops started cold (plain
//! commands, no accessibility variables or switches, `IsEnabled` off until
//! glovebox starts), through the official MCP Python SDK's client in its
//! default mode with a person who approves every question.
//!
//! Oracles outside glovebox: the page's own state POSTed to this test's
//! loopback server (Chromium, Firefox), the Tk fixture's state file, a file
//! IDLE's Python wrote, a file the command typed into xterm wrote (read
//! from its working directory through /proc while it runs); and the
//! user's desktop (pointer, stacking, focus, a sentinel window) unchanged.
//! Covered windows are read with and without a compositor (xcompmgr)
//! redirecting every window.
#![cfg(target_os = "linux")]

use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::desktop::Desktop;
use glovebox_testkit::Reaped;
use serde_json::Value;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-seen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A form page served on 127.0.0.1; every POST the page makes (its state
/// after each change) is kept, newest last.
pub(crate) struct Page {
    pub(crate) url: String,
    posts: Arc<Mutex<Vec<Value>>>,
}

const FORM: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>TITLE</title></head>
<body style="font:16px sans-serif;margin:16px">
<p>Fill in your name and press Send.</p>
<label for="n">Name</label> <input id="n" autocomplete="off"> <button id="b" type="button">Send</button>
<p id="out">nothing sent</p>
<script>
let sent = 0;
const report = () => fetch('/state', {method: 'POST', body: JSON.stringify({name: n.value, sent})});
n.addEventListener('input', report);
b.addEventListener('click', () => { sent++; out.textContent = 'sent ' + sent + ': ' + n.value; report(); });
</script></body></html>"#;

pub(crate) fn serve(title: &str) -> Page {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let posts = Arc::new(Mutex::new(vec![]));
    let (kept, page) = (posts.clone(), FORM.replace("TITLE", title));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let Some((lines, body)) = glovebox_testkit::model::read_request(&mut reader) else {
                continue;
            };
            let answer = if lines.first().is_some_and(|l| l.starts_with("POST /state")) {
                if let Ok(state) = serde_json::from_slice(&body) {
                    kept.lock().unwrap().push(state);
                }
                String::new()
            } else {
                page.clone()
            };
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    Page { url, posts }
}

impl Page {
    pub(crate) fn newest(&self) -> Option<Value> {
        self.posts.lock().unwrap().last().cloned()
    }
}

/// Runs `testapps/sdk_mcp_seen.py TASK TITLE TEXT` against `glovebox mcp`
/// in the default approval mode (input asks; the script's person approves).
pub(crate) fn client(
    sandbox: &Sandbox,
    home: &Path,
    args: [&str; 3],
    env: &[(&str, &str)],
) -> Value {
    let python = repo().join("target/sdk-venv/bin/python");
    assert!(python.exists(), "run `bash .ci/install-deps` (the pinned SDK clients)");
    let mut command = sandbox.command_in_home(python, home);
    command
        .arg(repo().join("testapps/sdk_mcp_seen.py"))
        .args(args)
        .args([env!("CARGO_BIN_EXE_glovebox"), "mcp"])
        .env("GLOVEBOX_ENABLED", "true")
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    let out = command.output().unwrap();
    glovebox_testkit::sdk::report_of(&out)
}

/// The calls of `report` with `tool`, in order.
pub(crate) fn calls<'a>(report: &'a Value, tool: &str) -> Vec<&'a Value> {
    report["calls"].as_array().unwrap().iter().filter(|c| c["tool"] == tool).collect()
}

/// A form driven by its seen field and button: the ids were found, every
/// call was delivered, the typing asked showing its text, and the picture
/// changes the results reported hold what was typed.
fn assert_form_driven(report: &Value, name: &str) {
    let observed = report["observed"].as_str().unwrap();
    assert!(observed.contains("seen in the pixels"), "{observed}");
    assert!(report["ids"]["field"].is_string() && report["ids"]["button"].is_string(), "{report}");
    for call in report["calls"].as_array().unwrap() {
        assert_eq!(call["error"], false, "{call}");
    }
    assert_eq!(calls(report, "click").len(), 2, "{report}");
    let typed = &calls(report, "type")[0];
    assert!(
        typed["text"].as_str().unwrap().contains(&format!("text (seen) \"{name}\"")),
        "{typed}"
    );
    let prompts: Vec<&str> =
        report["prompts"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let typing = prompts.iter().find(|p| p.contains("to type")).expect("typing asked");
    assert!(
        typing.contains(&format!("{name:?}"))
            && typing.contains("which of its fields is a password"),
        "{typing}"
    );
}

/// The browser `program` started by a plain command with a profile of its
/// own, before glovebox, showing `url` (`prevent_accessibility`: Firefox's
/// "prevent accessibility services" privacy setting).
fn browser(sandbox: &Sandbox, home: &Path, program: &str, url: &str) -> Child {
    let mut command = sandbox.command_in_home(program, home);
    if program == "chromium" {
        command.args([
            &format!("--user-data-dir={}", home.join("profile").display()),
            "--no-first-run",
            "--disable-gpu",
            "--window-position=0,0",
            "--window-size=900,600",
        ]);
        if std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0 {
            command.arg("--no-sandbox");
        }
    } else {
        let profile = home.join("profile");
        std::fs::create_dir_all(&profile).unwrap();
        // A person who ticked "Prevent accessibility services from accessing your browser".
        std::fs::write(
            profile.join("user.js"),
            "user_pref(\"accessibility.force_disabled\", 1);\n",
        )
        .unwrap();
        command.arg("--profile").arg(&profile).args([
            "--no-remote",
            "-width",
            "900",
            "-height",
            "600",
        ]);
    }
    command.arg(url).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect(program)
}

/// A GTK window the user works in, frontmost, beside where the test's windows are.
pub(crate) fn sentinel(sandbox: &Sandbox) -> Fixture {
    Fixture::launch(
        sandbox,
        &unique_title("seen user"),
        &["--no-password", "--x", "1300", "--y", "60"],
    )
}

/// What lies over the page while it is driven.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cover {
    Nothing,
    /// A terminal the person opened, over the whole page the whole time.
    Terminal,
    /// The same, with a compositor (Debian's xcompmgr) redirecting every window.
    TerminalUnderCompositor,
}

/// Debian's xcompmgr on `sandbox`: a compositor redirecting every window.
fn compositor(sandbox: &Sandbox) -> Reaped {
    Reaped(
        sandbox
            .command("xcompmgr")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xcompmgr"),
    )
}

/// `program` filled in and submitted by what is seen, under `cover`.
fn drive_browser(program: &str, cover: Cover) {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = glovebox_testkit::cold_desktop();
    let _compositor = (cover == Cover::TerminalUnderCompositor).then(|| compositor(&sandbox));
    let home = scratch(program);
    let title = unique_title(&format!("seen {program}"));
    let page = serve(&title);
    let mut shown = browser(&sandbox, &home, program, &page.url);
    wait_until("the page loaded", || page_loaded(&sandbox, &title));
    let cover = (cover != Cover::Nothing).then(|| {
        Reaped(
            sandbox
                .command("xterm")
                .args(["-geometry", "140x50+0+0"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("xterm"),
        )
    });
    let user = sentinel(&sandbox);
    user.activate();
    let looker = glovebox_testkit::host(&sandbox, "seen-looker").open();
    if let Some(cover) = &cover {
        // The terminal lies over the whole page: the browser is read from its own pixels.
        let cover_pid = cover.0.id();
        wait_until("the terminal over the page", || {
            let listed = looker.list_windows(None, 1).ok()?.windows;
            let terminal = listed.iter().position(|w| w.window.id.pid == cover_pid)?;
            let page = listed.iter().position(|w| w.window.title.contains(&title))?;
            (terminal < page).then_some(())
        });
    }
    let before = Desktop::now(&looker, &sandbox, &user);
    let name = "Ada Lovelace";
    let report = client(&sandbox, &home, ["form", &title, name], &[]);
    assert_form_driven(&report, name);
    // What the page last said and what the client did, should the page never say it was sent.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let state = loop {
        match page.newest() {
            Some(s) if s["sent"] == 1 && s["name"] == name => break s,
            last if std::time::Instant::now() > deadline => {
                panic!("the page never said {name:?} was sent; its last state {last:?}; the client: {report}")
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(25)),
        }
    };
    assert_eq!(state["name"], name, "{report}");
    assert_eq!(Desktop::now(&looker, &sandbox, &user), before, "the user's desktop as it was");
    let _ = (shown.kill(), shown.wait());
}

/// Whether a window titled `title` is listed (the browser shows the page).
fn page_loaded(sandbox: &Sandbox, title: &str) -> Option<()> {
    let out = sandbox
        .command(env!("CARGO_BIN_EXE_glovebox"))
        .args(["windows", "--json", "--query", title])
        .env("GLOVEBOX_ENABLED", "true")
        .output()
        .ok()?;
    let page: Value = serde_json::from_slice(&out.stdout).ok()?;
    (!page["windows"].as_array()?.is_empty()).then_some(())
}

#[test]
fn chromium_started_before_glovebox_is_filled_in_by_what_is_seen() {
    drive_browser("chromium", Cover::Nothing);
}

#[test]
fn chromium_under_the_persons_terminal_is_filled_in_by_what_is_seen() {
    drive_browser("chromium", Cover::Terminal);
}

#[test]
fn chromium_under_a_terminal_with_a_compositor_running_is_filled_in_by_what_is_seen() {
    drive_browser("chromium", Cover::TerminalUnderCompositor);
}

#[test]
fn firefox_with_accessibility_prevented_is_filled_in_by_what_is_seen() {
    drive_browser("firefox-esr", Cover::Nothing);
}

#[test]
fn tk_programs_and_xterm_are_driven_by_what_is_seen() {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = glovebox_testkit::cold_desktop();
    let home = scratch("tk");
    // The Tk fixture, and IDLE (Python's editor, Tk, from Debian's archive).
    let title = unique_title("seen tk");
    let state_file = home.join("tk-state.json");
    let mut tk = sandbox
        .command_in_home("/usr/bin/python3", &home)
        .arg(repo().join("testapps/fixture_tk.py"))
        .args([title.as_str(), state_file.to_str().unwrap(), "--x", "40", "--y", "40"])
        .arg("--relabel")
        .arg(home.join("relabel"))
        .spawn()
        .expect("the Tk fixture");
    let mut idle = sandbox
        .command_in_home("idle-python3.11", &home)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("IDLE");
    wait_until("the Tk fixture's window", || page_loaded(&sandbox, &title));
    wait_until("IDLE's shell", || page_loaded(&sandbox, "IDLE Shell"));
    // IDLE beside the form, where nothing covers it.
    let moved = sandbox
        .command("xdotool")
        .args(["search", "--name", "IDLE Shell", "windowmove", "%@", "560", "300"])
        .status()
        .expect("xdotool");
    assert!(moved.success());
    // A terminal the person opened lies over the whole form: every step below reads the
    // form from its own pixels, and the terminal stays on top.
    let _cover = Reaped(
        sandbox
            .command("xterm")
            .args(["-geometry", "80x16+10+10"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xterm"),
    );
    let user = sentinel(&sandbox);
    user.activate();
    let looker = glovebox_testkit::host(&sandbox, "seen-tk-looker").open();
    // Where the cover and the form are in the stacking, frontmost first.
    let cover_pid = _cover.0.id();
    let places = || -> Option<(usize, usize)> {
        let listed = looker.list_windows(None, 1).ok()?.windows;
        let at = |f: &dyn Fn(&glovebox_model::WindowId) -> bool| {
            listed.iter().position(|w| w.window.desktop.is_user() && f(&w.window.id))
        };
        Some((at(&|id| id.pid == cover_pid)?, at(&|id| id.pid == tk.id())?))
    };
    wait_until("the terminal over the form", || places().filter(|(c, t)| c < t));
    let before = Desktop::now(&looker, &sandbox, &user);

    let name = "Grace Hopper";
    let report = client(&sandbox, &home, ["form", &title, name], &[]);
    assert_form_driven(&report, name);
    let read = |path: &Path| -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    };
    let state = wait_until("the fixture's state", || {
        read(&state_file).filter(|s| s["clicks"]["send"] == 1)
    });
    assert_eq!(state["sent"], serde_json::json!([name]), "{report}");
    let tk_window: glovebox_model::WindowRef = report["window"].as_str().unwrap().parse().unwrap();

    // IDLE: a line of Python typed at its prompt runs; the file it writes is the oracle.
    let written = home.join("idle-wrote.txt");
    let line = format!(
        "open({:?}, 'w').write('glovebox %d' % (6 * 7)); print('done', 6 * 7)\n",
        written.to_str().unwrap()
    );
    // The shell's caret waits at its prompt: the keys go there, nothing is clicked.
    let report = client(
        &sandbox,
        &home,
        ["type", "IDLE Shell", &line],
        &[("CLICK_ON", ""), ("WAIT_FOR", "done 42")],
    );
    for call in report["calls"].as_array().unwrap() {
        assert_eq!(call["error"], false, "{call}");
    }
    let wrote = wait_until("IDLE ran the line", || std::fs::read_to_string(&written).ok());
    assert_eq!(wrote, "glovebox 42");
    // Read back from its pixels: the typed line (IDLE's "done 42" answer below it is not
    // read reliably since this round; the file is the oracle that it ran).
    assert!(report["read_back"].as_str().unwrap().contains("glovebox"), "{report}");
    assert_eq!(Desktop::now(&looker, &sandbox, &user), before, "the user's desktop as it was");

    // xterm takes no synthetic keys: on glovebox's own display it gets that display's keyboard.
    let command = "echo glovebox $((6*7)) | tee glovebox-out.txt\n";
    let report = client(
        &sandbox,
        &home,
        ["type", "xterm", command],
        &[("OPEN_APP", "xterm"), ("WAIT_FOR", "glovebox 42"), ("CWD_FILE", "glovebox-out.txt")],
    );
    for call in report["calls"].as_array().unwrap() {
        assert_eq!(call["error"], false, "{call}");
    }
    let read_back = report["read_back"].as_str().unwrap();
    assert!(read_back.contains("text (seen) \"glovebox 42\""), "{read_back}");
    assert_eq!(report["cwd_file"], "glovebox 42\n", "{report}");
    assert_eq!(Desktop::now(&looker, &sandbox, &user), before, "the user's desktop as it was");

    // Still covered by the person's terminal, the form is read from its own pixels and its
    // button clicked by its seen id in the background through the host; the terminal stays on top.
    let actor = glovebox_testkit::host(&sandbox, "seen-covered").open();
    let seen = actor.observe(Some(&tk_window), true).unwrap();
    assert!(seen.frame.occluded.is_empty(), "the covered parts read: {:?}", seen.frame.occluded);
    let send = seen
        .tree
        .seen
        .iter()
        .find(|e| e.kind == glovebox_model::SeenKind::Button && e.text == "Send")
        .unwrap_or_else(|| panic!("the covered Send button seen: {}", seen.tree.render_text()));
    let click = |id| glovebox_model::Action::Click {
        target: glovebox_model::Target::Element(id),
        button: glovebox_model::Button::Left,
        count: 1,
        modifiers: vec![],
    };
    actor.act(seen.frame.id, click(send.id)).expect("the covered button clicked");
    wait_until("the covered button's click", || {
        (read(&state_file)?["clicks"]["send"] == 2).then_some(())
    });
    let (cover_at, form_at) = places().unwrap();
    assert!(cover_at < form_at, "the terminal still over the form");

    // A compositor starts (Debian's xcompmgr, redirecting every window): the covered form
    // is filled in and sent again by the official client through its seen ids.
    let _compositor = compositor(&sandbox);
    // (The field still holds the first name: the new one goes where the click put the caret.)
    let name = "Katherine Johnson";
    let report = client(&sandbox, &home, ["form", &title, name], &[]);
    assert!(report["observed"].as_str().unwrap().contains("seen in the pixels"), "{report}");
    for call in report["calls"].as_array().unwrap() {
        assert_eq!(call["error"], false, "{call}");
    }
    assert_eq!(calls(&report, "click").len(), 2, "{report}");
    let state = wait_until("the form sent under the compositor", || {
        read(&state_file).filter(|s| s["clicks"]["send"] == 3)
    });
    let last = state["sent"].as_array().unwrap().last().unwrap().as_str().unwrap().to_owned();
    assert!(last.contains(name), "{last:?} sent: {report}");
    let (cover_at, form_at) = places().unwrap();
    assert!(cover_at < form_at, "the terminal still over the form");

    // A seen id whose pixels changed since its frame (the button relabelled) is stale, and nothing is sent.
    let seen = actor.observe(Some(&tk_window), false).unwrap();
    let send = seen.tree.seen.iter().find(|e| e.kind == glovebox_model::SeenKind::Button).unwrap();
    let before = actor
        .read_window_pixels(&tk_window, glovebox_model::CaptureLimits::new(2000, 2000).unwrap())
        .unwrap();
    let at = |p: &glovebox_platform::RgbImage| p.crop(send.bounds).unwrap();
    std::fs::write(home.join("relabel"), "Cancel everything").unwrap();
    wait_until("the button relabelled", || {
        let now = actor
            .read_window_pixels(&tk_window, glovebox_model::CaptureLimits::new(2000, 2000).unwrap())
            .ok()?;
        (at(&now.image) != at(&before.image)).then_some(())
    });
    let refused = actor.act(seen.frame.id, click(send.id)).unwrap_err();
    assert_eq!(refused.code, glovebox_model::ErrorCode::StaleRef, "{refused}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(read(&state_file).unwrap()["clicks"]["send"], 3, "nothing was clicked");
    let _ = (tk.kill(), idle.kill(), tk.wait(), idle.wait());
}
