//! Faults in the middle of real work, each on a desktop of its own (these
//! tests kill parts of it): the target application killed and frozen, the
//! accessibility bus killed, the X server killed, the MCP client's pipe
//! closed mid-call, and the server killed (`kill -9`) during a burst of
//! input. After each: the answer is a typed refusal within its deadline
//! (never a panic or a hang), the audit log holds every action up to the
//! fault and parses line by line, and the next call (or the next glovebox
//! process) works.
#![cfg(target_os = "linux")]

use glovebox_host::Host;
use glovebox_model::{Action, Button, ErrorCode, Refusal, Target, WindowId, WindowRef};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::{inflict, Fault, Sandbox, SandboxOptions};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn desktop() -> Sandbox {
    Sandbox::start(SandboxOptions::default()).expect("a private desktop")
}

/// Every record of an audit file; only a last line cut by a crash may fail to parse.
fn audit(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut records = vec![];
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Value>(line) {
            Ok(record) => records.push(record),
            Err(e) => assert!(
                i + 1 == lines.len(),
                "audit line {} of {} does not parse ({e}): {line:?}",
                i + 1,
                lines.len()
            ),
        }
    }
    records
}

fn bound(host: &Host, fixture: &Fixture) -> WindowId {
    let id = wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    });
    wait_until("fixture tree", || {
        host.observe(Some(&WindowRef::Id(id)), false).ok().filter(|o| o.tree.node_count > 10)
    });
    id
}

fn element(host: &Host, window: WindowId, name: &str) -> (glovebox_model::FrameId, Target) {
    let seen = host.observe(Some(&WindowRef::Id(window)), false).unwrap();
    let id = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.name == name)
        .map(|e| e.id)
        .unwrap_or_else(|| panic!("no {name}"));
    (seen.frame.id, Target::Element(id))
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

/// A call's refusal, checked to come within `limit`.
fn refused_within<T: std::fmt::Debug>(
    limit: Duration,
    call: impl FnOnce() -> Result<T, Refusal>,
) -> Refusal {
    let started = Instant::now();
    let result = call();
    let took = started.elapsed();
    assert!(took <= limit, "the call took {took:?}, past {limit:?}");
    result.expect_err("a refusal")
}

#[test]
fn a_killed_application_is_gone_and_the_grant_falls_back() {
    let sandbox = desktop();
    let host = glovebox_testkit::host(&sandbox, "killed").open();
    let other = Fixture::launch(
        &sandbox,
        &unique_title("Faults other"),
        &["--no-password", "--x", "900", "--y", "40"],
    );
    let target = Fixture::launch(
        &sandbox,
        &unique_title("Faults killed"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let window = bound(&host, &target);
    let (frame, submit) = element(&host, window, "Submit");
    host.act(frame, click(submit)).unwrap();
    target.wait_state("the first click", |s| s["clicks"]["submit"] == 1);

    // Killed while observations run: each one answers, Ok or refused, never hangs.
    let observer = {
        let host = host.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let mut last = None;
            while started.elapsed() < Duration::from_millis(1500) {
                if let Ok(seen) = host.observe(Some(&WindowRef::Id(window)), true) {
                    let submit = seen
                        .tree
                        .root
                        .as_ref()
                        .and_then(|r| r.walk().find(|e| e.name == "Submit").map(|e| e.id));
                    last = submit.map(|id| (seen.frame.id, Target::Element(id))).or(last);
                }
            }
            last
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    target.inflict(Fault::Kill);
    let (frame, submit) = observer
        .join()
        .expect("no panic while the application died")
        .expect("an observation before the kill");

    // The action made on the last frame of the dead window: refused, nothing sent anywhere.
    let refusal = refused_within(Duration::from_secs(5), || host.act(frame, click(submit)));
    println!("a click on the killed application's last frame: {refusal}");
    assert!(
        matches!(
            refusal.code,
            ErrorCode::TargetGone | ErrorCode::StaleRevision | ErrorCode::StaleBasis
        ),
        "{refusal}"
    );
    let other_clicks = other.state().unwrap()["clicks"]["submit"].clone();
    // The desktop grant falls back to the frontmost allowed window (DESIGN.md §3), and work goes on there.
    let next = wait_until("the grant falls back", || {
        host.observe(None, false).ok().filter(|o| o.frame.window != window)
    });
    assert_eq!(next.frame.window, bound(&host, &other));
    assert_eq!(
        other.state().unwrap()["clicks"]["submit"],
        other_clicks,
        "nothing reached the other window"
    );
    let records = audit(&glovebox_testkit::audit_path(&sandbox, "killed"));
    assert!(
        records.iter().any(|r| r["event"] == "action"
            && r["action"] == "click"
            && r["target"] == json!(window)),
        "the click before the fault is in the audit: {records:?}"
    );
}

#[test]
fn a_frozen_application_times_out_and_the_next_call_works_once_it_thaws() {
    let sandbox = desktop();
    let host = glovebox_testkit::host(&sandbox, "frozen").open();
    let target = Fixture::launch(
        &sandbox,
        &unique_title("Faults frozen"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let window = bound(&host, &target);
    let (frame, submit) = element(&host, window, "Submit");
    target.inflict(Fault::Freeze);
    // Its accessibility calls go unanswered: each call ends by its own deadline.
    let started = Instant::now();
    let refusal = refused_within(Duration::from_secs(12), || host.act(frame, click(submit)));
    println!("a click into the frozen application: {refusal} after {:?}", started.elapsed());
    assert!(
        matches!(
            refusal.code,
            ErrorCode::Timeout | ErrorCode::BackendUnavailable | ErrorCode::TargetGone
        ),
        "{refusal}"
    );
    let started = Instant::now();
    let observed = host.observe(Some(&WindowRef::Id(window)), false);
    assert!(started.elapsed() <= Duration::from_secs(12), "observe took {:?}", started.elapsed());
    println!(
        "an observation of the frozen application: {:?} after {:?}",
        observed.as_ref().map(|o| o.tree.node_count).map_err(|r| r.to_string()),
        started.elapsed()
    );
    if let Err(refusal) = &observed {
        assert!(
            matches!(refusal.code, ErrorCode::Timeout | ErrorCode::BackendUnavailable),
            "{refusal}"
        );
        // Told apart from a busy one: the process is stopped.
        assert!(
            refusal.code != ErrorCode::Timeout || refusal.message.contains("stopped"),
            "{refusal}"
        );
    }
    target.inflict(Fault::Thaw);
    let (frame, submit) = wait_until("a tree once thawed", || {
        let seen = host.observe(Some(&WindowRef::Id(window)), false).ok()?;
        let id = seen.tree.root.as_ref()?.walk().find(|e| e.name == "Submit")?.id;
        Some((seen.frame.id, Target::Element(id)))
    });
    host.act(frame, click(submit)).unwrap();
    target.wait_state("a click once thawed", |s| s["clicks"]["submit"].as_i64() >= Some(1));
}

#[test]
fn an_action_a_busy_application_is_still_running_is_pending_and_the_next_look_tells() {
    let sandbox = desktop();
    let host = glovebox_testkit::host(&sandbox, "busy").open();
    // Its Submit runs a 6 s job on the main thread, as an import or a recalculation does.
    let target = Fixture::launch(
        &sandbox,
        &unique_title("Faults busy"),
        &["--no-password", "--job-ms", "6000"],
    );
    let window = bound(&host, &target);
    let (frame, submit) = element(&host, window, "Submit");
    let started = Instant::now();
    let done = host.act(frame, click(submit)).expect("the click is delivered");
    println!(
        "a click that starts a long job: {:?} after {:?}, next {:?}",
        done.delivery,
        started.elapsed(),
        done.next.as_ref().err()
    );
    assert_eq!(done.delivery.receipt, glovebox_host::Receipt::Pending, "{:?}", done.delivery);
    let unanswered = done.next.as_ref().expect_err("no look while the job runs");
    assert_eq!(unanswered.code, ErrorCode::Timeout);
    assert!(unanswered.message.contains("busy"), "{unanswered}");
    // The application's own report: the click counts once the job is done, and the next look sees it.
    target.wait_state("the job done", |s| s["clicks"]["submit"] == 1);
    let seen = wait_until("a look once the job is done", || {
        host.observe(Some(&WindowRef::Id(window)), false).ok()
    });
    assert!(seen.tree.node_count > 10);
}

/// The process ids of the accessibility bus (its launcher and daemon) the session bus activated.
fn accessibility_bus(sandbox: &Sandbox) -> Vec<u32> {
    let out = sandbox
        .command("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetConnectionUnixProcessID",
            "string:org.a11y.Bus",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let launcher: u32 = text
        .split_whitespace()
        .last()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no org.a11y.Bus owner: {text}"));
    let mut pids = vec![launcher];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The parent is the field after the parenthesised command name.
        let parent = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if parent == Some(launcher) {
            pids.push(pid);
        }
    }
    pids
}

#[test]
fn a_killed_accessibility_bus_is_unavailable_and_a_new_one_is_used() {
    let sandbox = desktop();
    let host = glovebox_testkit::host(&sandbox, "bus").open();
    let target = Fixture::launch(
        &sandbox,
        &unique_title("Faults bus"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let window = bound(&host, &target);
    let (frame, submit) = element(&host, window, "Submit");
    for pid in accessibility_bus(&sandbox) {
        let _ = inflict(pid, Fault::Kill);
    }
    std::thread::sleep(Duration::from_millis(300));
    // The tree and the semantic route are gone with the bus; the answer says so in time.
    let refusal = refused_within(Duration::from_secs(12), || host.act(frame, click(submit)));
    println!("a click after the accessibility bus died: {refusal}");
    assert!(!matches!(refusal.code, ErrorCode::InvalidArgument), "{refusal}");
    let started = Instant::now();
    let _ = host.observe(Some(&WindowRef::Id(window)), false);
    assert!(started.elapsed() <= Duration::from_secs(12), "observe took {:?}", started.elapsed());
    // The bus comes back (the session bus activates it again on the next request for it, as an
    // application's start does), and an application started now registers there; the same host reads it.
    let restarted = sandbox
        .command("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.a11y.Bus",
            "/org/a11y/bus",
            "org.a11y.Bus.GetAddress",
        ])
        .output()
        .unwrap();
    assert!(restarted.status.success(), "{}", String::from_utf8_lossy(&restarted.stderr));
    let fresh = Fixture::launch(
        &sandbox,
        &unique_title("Faults fresh bus"),
        &["--no-password", "--x", "600", "--y", "40"],
    );
    let id = wait_until("the fresh window listed", || {
        host.list_windows(Some(&fresh.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    });
    let seen = wait_until("a tree over the new bus", || {
        host.observe(Some(&WindowRef::Id(id)), false).ok().filter(|o| o.tree.node_count > 10)
    });
    let submit = seen.tree.root.as_ref().unwrap().walk().find(|e| e.name == "Submit").unwrap().id;
    host.act(seen.frame.id, click(Target::Element(submit))).unwrap();
    fresh.wait_state("a click over the new bus", |s| s["clicks"]["submit"] == 1);
}

#[test]
fn a_killed_x_server_makes_every_call_unavailable_without_a_panic() {
    let sandbox = desktop();
    let host = glovebox_testkit::host(&sandbox, "x").open();
    let target = Fixture::launch(
        &sandbox,
        &unique_title("Faults X"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let window = bound(&host, &target);
    let (frame, submit) = element(&host, window, "Submit");
    inflict(sandbox.x_server_pid(), Fault::Kill).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let limit = Duration::from_secs(12);
    let listed = refused_within(limit, || host.list_windows(None, 1));
    assert_eq!(listed.code, ErrorCode::BackendUnavailable, "{listed}");
    let observed = refused_within(limit, || host.observe(Some(&WindowRef::Id(window)), true));
    assert!(
        matches!(observed.code, ErrorCode::BackendUnavailable | ErrorCode::TargetGone),
        "{observed}"
    );
    let acted = refused_within(limit, || host.act(frame, click(submit)));
    println!("after the X server died: list {listed}; observe {observed}; click {acted}");
    assert!(
        matches!(
            acted.code,
            ErrorCode::BackendUnavailable | ErrorCode::TargetGone | ErrorCode::StaleRevision
        ),
        "{acted}"
    );
    // Still no panic, and still a typed answer, the second time round.
    assert_eq!(
        refused_within(limit, || host.list_windows(None, 1)).code,
        ErrorCode::BackendUnavailable
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glovebox mcp` on the sandbox with its own home (and audit file).
fn mcp(sandbox: &Sandbox, home: &Path, env: &[(&str, &str)]) -> std::process::Child {
    let mut command = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), home);
    command
        .arg("mcp")
        .env("GLOVEBOX_ENABLED", "true")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command.spawn().unwrap()
}

fn line(message: Value) -> String {
    format!("{message}\n")
}

fn initialize() -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "faults", "version": "0"}}});
    line(init) + &line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
}

fn tool(id: u64, name: &str, arguments: Value) -> String {
    line(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
    )
}

/// Reads lines until the response with `id`, within `limit`.
fn response(reader: &mut impl BufRead, id: u64) -> Value {
    loop {
        let mut text = String::new();
        assert!(
            reader.read_line(&mut text).unwrap() > 0,
            "the server closed its output before answering {id}"
        );
        let message: Value = serde_json::from_str(&text).unwrap();
        // A request from the server (an approval prompt) would wait for an answer this client never gives.
        assert!(
            message.get("method").is_none() || message.get("id").is_none(),
            "the server asked the client something: {message}"
        );
        if message["id"] == id {
            return message;
        }
    }
}

#[test]
fn a_client_that_closes_its_pipe_mid_call_lets_the_server_exit_and_release_the_display() {
    let sandbox = desktop();
    let _target = Fixture::launch(&sandbox, &unique_title("Faults pipe"), &["--no-password"]);
    let home = scratch("pipe");
    let mut server = mcp(&sandbox, &home, &[]);
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    stdin.write_all(initialize().as_bytes()).unwrap();
    response(&mut stdout, 0);
    stdin.write_all(tool(1, "observe", json!({"screenshot": false})).as_bytes()).unwrap();
    assert!(response(&mut stdout, 1)["result"]["isError"] != true);
    // A call in flight, and the client goes away.
    stdin.write_all(tool(2, "wait", json!({"wait": {"seconds": 3}})).as_bytes()).unwrap();
    drop(stdin);
    drop(stdout);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the server did not exit after its client left"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit {status:?}");
    // The display is free: the next process takes the grant at once.
    let mut next = mcp(&sandbox, &home, &[]);
    let mut stdin = next.stdin.take().unwrap();
    let mut stdout = BufReader::new(next.stdout.take().unwrap());
    stdin.write_all(initialize().as_bytes()).unwrap();
    response(&mut stdout, 0);
    stdin.write_all(tool(1, "observe", json!({"screenshot": false})).as_bytes()).unwrap();
    let answer = response(&mut stdout, 1);
    assert_ne!(answer["result"]["isError"], true, "the next process took the grant: {answer}");
    drop(stdin);
    let _ = next.wait();
    let records = audit(&home.join("state/glovebox/audit/audit.jsonl"));
    assert!(
        records.iter().filter(|r| r["event"] == "grant-created").count() >= 2,
        "both processes' grants are in the audit: {records:?}"
    );
}

#[test]
fn a_server_killed_during_a_burst_loses_at_most_the_line_being_written() {
    let sandbox = desktop();
    let target = Fixture::launch(&sandbox, &unique_title("Faults burst"), &["--no-password"]);
    let home = scratch("burst");
    let mut server = mcp(
        &sandbox,
        &home,
        &[("GLOVEBOX_APPROVAL_MODE", "yolo"), ("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")],
    );
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    stdin.write_all(initialize().as_bytes()).unwrap();
    response(&mut stdout, 0);
    target.send(json!({"cmd": "focus", "widget": "name"}));
    target.wait_state("name focused", |s| s["focus"] == "name");
    stdin.write_all(tool(1, "observe", json!({"window": format!("{}/{}", target.pid(), target.title), "screenshot": false})).as_bytes()).unwrap();
    assert_ne!(response(&mut stdout, 1)["result"]["isError"], true);
    // A burst of typing, sent without waiting; the server dies part-way.
    let burst: String =
        (2..202).map(|n| tool(n, "type", json!({"text": format!("SECRET-{n}")}))).collect();
    stdin.write_all(burst.as_bytes()).unwrap();
    // Answers come as the server finishes them; collect those of the first part of the burst.
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for text in stdout.lines() {
            let Ok(text) = text else { break };
            if let Ok(message) = serde_json::from_str::<Value>(&text) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        }
    });
    let mut answered = std::collections::BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while answered.len() < 38 && Instant::now() < deadline {
        if let Ok(message) = rx.recv_timeout(Duration::from_millis(200)) {
            assert!(
                message.get("method").is_none(),
                "the server asked the client something: {message}"
            );
            answered.insert(message["id"].as_u64().unwrap_or(0), message);
        }
    }
    assert!(
        answered.len() >= 38,
        "only {} of the burst answered in 60 s: {:?}",
        answered.len(),
        answered.keys().collect::<Vec<_>>()
    );
    let delivered = answered.values().filter(|m| m["result"]["isError"] != true).count();
    server.kill().unwrap();
    let _ = server.wait();
    let records = audit(&home.join("state/glovebox/audit/audit.jsonl"));
    let typed = records.iter().filter(|r| r["event"] == "action" && r["action"] == "type").count();
    assert!(typed >= delivered, "{delivered} answered typing actions, {typed} in the audit");
    let text = std::fs::read_to_string(home.join("state/glovebox/audit/audit.jsonl")).unwrap();
    assert!(!text.contains("SECRET"), "typed text never reaches the audit");
    assert!(
        records
            .iter()
            .filter(|r| r["action"] == "type")
            .all(|r| r["text_length"].as_u64() >= Some(8)),
        "typing is audited as a length"
    );
}
