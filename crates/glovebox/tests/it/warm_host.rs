//! One-shot CLI calls ridden over the display's warm host (`glovebox host`,
//! an MCP server): the same output as alone, the CLI's own identity, the
//! person's desktop untouched; and what the CLI does with another user's
//! socket, a stale one, a host that does not answer and one killed in the
//! middle of a call. Each test has a home (runtime directory, audit) of
//! its own on the suite's desktop.
#![cfg(target_os = "linux")]

use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{wait_until, Fixture};
use glovebox_sandbox::{inflict, Fault, Sandbox};
use serde_json::Value;
use std::io::{BufRead, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-warm-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn glovebox(sandbox: &Sandbox, home: &Path) -> Command {
    let mut command = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), home);
    command.stdin(Stdio::null()).env("GLOVEBOX_ENABLED", "true");
    command
}

#[derive(Debug, Clone, PartialEq)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<std::process::Output> for Ran {
    fn from(out: std::process::Output) -> Ran {
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

fn run(command: &mut Command) -> Ran {
    command.output().unwrap().into()
}

/// [`run`] for a command that should end at once (a second `glovebox
/// host`): one still running after 10 s is killed and reported as such.
fn run_briefly(command: &mut Command) -> Ran {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            return Ran {
                code: -1,
                stdout: String::new(),
                stderr: "still running after 10 s".into(),
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap().into()
}

/// `ran` without what differs from one run to the next: capture times,
/// how long a read took, frame ids (unique in the process that captured:
/// a warm host counts on from its earlier captures), and a picture's size
/// in bytes (two captures of a window a moment apart may differ by a
/// caret's blink; the pictures themselves are compared apart, pixel by
/// pixel).
fn steady(ran: Ran) -> Ran {
    let changing = |line: &str| {
        let line = line.trim();
        line.contains("captured_at_ms")
            || line.starts_with("\"elapsed_ms\"")
            || line.starts_with("\"bytes\"")
            || line
                .strip_prefix("\"id\": ")
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    };
    let drop_times =
        |text: String| text.lines().filter(|l| !changing(l)).collect::<Vec<_>>().join("\n");
    Ran { code: ran.code, stdout: drop_times(ran.stdout), stderr: drop_times(ran.stderr) }
}

/// The warm socket of `sandbox`'s display in `home`'s runtime directory.
fn warm_socket(sandbox: &Sandbox, home: &Path) -> PathBuf {
    let display: String = sandbox
        .display()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' })
        .collect();
    home.join("run/glovebox").join(format!("display-{display}.warm.sock"))
}

/// `glovebox host` in `home`, once it says it serves; its stderr (one line
/// per call it carries out) goes to `home/host.err`.
struct Resident {
    child: Child,
    log: PathBuf,
}

impl Resident {
    fn start(sandbox: &Sandbox, home: &Path) -> Resident {
        let log = home.join("host.err");
        let mut child = glovebox(sandbox, home)
            .arg("host")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let said: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("glovebox host said {line:?} ({e}): {}", read(&log)));
        assert_eq!(said["pid"], child.id());
        Resident { child, log }
    }

    /// The calls it carried out, as it logged them.
    fn calls(&self) -> Vec<String> {
        read(&self.log).lines().filter(|l| l.contains(" for pid ")).map(str::to_owned).collect()
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Resident {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The fixture titled `title` and its id as `glovebox windows` lists it.
fn fixture(sandbox: &Sandbox, home: &Path, title: &str) -> (Fixture, String) {
    let fixture = Fixture::launch(sandbox, title, &[]);
    let id = wait_until("fixture listed", || {
        let ran = run(glovebox(sandbox, home).args(["windows", "--json", "--query", title]));
        let page: Value = serde_json::from_str(&ran.stdout).ok()?;
        page["windows"][0]["id"].as_str().map(str::to_owned)
    });
    (fixture, id)
}

/// Share of equal pixels of two PNG files of one size.
fn same_pixels(a: &Path, b: &Path) -> f64 {
    let a = RgbImage::decode_png(&std::fs::read(a).unwrap()).unwrap();
    let b = RgbImage::decode_png(&std::fs::read(b).unwrap()).unwrap();
    assert_eq!((a.width, a.height), (b.width, b.height));
    let equal = a.data.chunks(3).zip(b.data.chunks(3)).filter(|(x, y)| x == y).count();
    equal as f64 / (a.width * a.height) as f64
}

#[test]
fn one_shot_calls_ride_the_warm_host_with_the_output_they_have_alone() {
    // A desktop of its own: the stacking order it checks is the whole desktop's.
    let own = Sandbox::start(Default::default()).expect("a sandbox desktop");
    let sandbox = &own;
    let home = scratch("ride");
    let title = "warm-ride";
    let (app, id) = fixture(sandbox, &home, title);
    let host = glovebox_testkit::host(sandbox, "warm-ride").open();
    sandbox.warp_pointer(40, 40).unwrap();
    let user = || glovebox_testkit::desktop::Desktop::now(&host, sandbox, &app);
    let calls: Vec<Vec<String>> = [
        vec!["windows", "--query", title],
        vec!["windows", "--json", "--query", title],
        vec!["inspect", "--window", &id],
        vec!["inspect", "--json", "--window", &id, "--max-nodes", "20"],
        vec!["screenshot", "--window", &id, "-o", "PNG"],
        vec!["screenshot", "-o", "PNG", "--max-width", "800", "--max-height", "600"],
        // Refusals: the same code, sentence and exit status.
        vec!["inspect", "--window", "1/0x2"],
        vec!["inspect", "--json", "--window", &id, "--max-nodes", "0"],
        vec!["screenshot", "--window", "nonsense", "-o", "PNG"],
    ]
    .iter()
    .map(|c| c.iter().map(|s| s.to_string()).collect())
    .collect();
    let run_all = |tag: &str| -> Vec<Ran> {
        calls
            .iter()
            .enumerate()
            .map(|(n, call)| {
                let args: Vec<String> = call
                    .iter()
                    .map(|a| if a == "PNG" { format!("{tag}-{n}.png") } else { a.clone() })
                    .collect();
                let ran = run(glovebox(sandbox, &home).args(&args));
                Ran { stdout: ran.stdout.replace(&format!("{tag}-{n}.png"), "PNG"), ..ran }
            })
            .map(steady)
            .collect()
    };
    let alone = run_all("alone");
    let before = user();
    let resident = Resident::start(sandbox, &home);
    let ridden = run_all("ridden");
    assert_eq!(user(), before, "a ridden read moved, raised, focused or typed something");
    for ((call, a), r) in calls.iter().zip(&alone).zip(&ridden) {
        assert_eq!(a, r, "{call:?}: alone and ridden differ");
    }
    assert_eq!(alone[0].code, 0, "{:?}", alone[0]);
    assert!(alone[0].stdout.contains(title));
    assert_eq!(alone[6].code, 3, "{:?}", alone[6]);
    assert_eq!(alone[7].code, 2, "{:?}", alone[7]);
    for (n, call) in calls.iter().enumerate().filter(|(_, c)| c.contains(&"PNG".to_string())) {
        if alone[n].code == 0 {
            let (a, r) =
                (home.join(format!("alone-{n}.png")), home.join(format!("ridden-{n}.png")));
            assert!(same_pixels(&a, &r) > 0.99, "{call:?}: the two pictures differ");
        } else {
            assert!(!home.join(format!("ridden-{n}.png")).exists(), "{call:?} left a file");
        }
    }
    // The host carried out every call, each for the CLI process that asked.
    let carried = resident.calls();
    assert_eq!(carried.len(), calls.len(), "{carried:?}");

    // An observation rides with the CLI's identity: its grant is named
    // after the CLI's pid, and so is every audit record it leaves.
    let child = glovebox(sandbox, &home)
        .args(["observe", "--json", "--window", &id])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cli_pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    let grant = seen["grant"]["grant_id"].as_str().unwrap().to_owned();
    assert!(grant.starts_with(&format!("g{cli_pid}-")), "{seen}");
    assert!(seen["tree"]["node_count"].as_u64().unwrap() > 10, "{seen}");
    assert_eq!(resident.calls().len(), calls.len() + 1);
    let audit = read(&home.join("state/glovebox/audit/audit.jsonl"));
    let records: Vec<Value> = audit.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let of_grant: Vec<&Value> =
        records.iter().filter(|r| r["grant_id"] == grant.as_str()).collect();
    assert!(!of_grant.is_empty(), "{audit}");
    assert!(of_grant.iter().all(|r| r["pid"] == cli_pid), "{audit}");
    assert!(records.iter().all(|r| r["pid"] != resident.pid()), "{audit}");
    assert_eq!(user(), before);
}

/// Runs `windows` alone first, and gives a check that a later run has
/// the same output.
fn windows_alone(sandbox: &Sandbox, home: &Path, title: &str) -> Ran {
    let ran = steady(run(glovebox(sandbox, home).args(["windows", "--query", title])));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.contains(title), "{ran:?}");
    ran
}

#[test]
fn a_socket_of_another_user_is_not_ridden_and_the_cli_does_the_work_itself() {
    if glovebox_platform::files::euid() != 0 {
        eprintln!("skipped: making another user's socket takes root");
        return;
    }
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("foreign");
    let title = "warm-foreign";
    let (_app, _) = fixture(sandbox, &home, title);
    let alone = windows_alone(sandbox, &home, title);
    // A listener of uid 65534 (nobody) in a directory it owns, recording what it is sent.
    let theirs = scratch("foreign-theirs");
    let heard = theirs.join("heard");
    std::fs::write(&heard, "").unwrap();
    let chown = |path: &Path| {
        std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
    };
    chown(&theirs);
    chown(&heard);
    let script = r#"
import socket, sys, os
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b'{"hello":{"pid":1,"version":"any"}}\n')
    c.settimeout(2)
    try:
        data = c.recv(65536)
    except OSError:
        data = b""
    open(sys.argv[2], "ab").write(data)
    c.close()
"#;
    let listening = theirs.join("warm.sock");
    let mut foreign = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c"])
        .arg(script)
        .arg(&listening)
        .arg(&heard)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(foreign.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    // Put where this user's warm socket goes: only root could; the CLI must still not use it.
    let ours = warm_socket(sandbox, &home);
    std::fs::create_dir_all(ours.parent().unwrap()).unwrap();
    std::fs::rename(&listening, &ours).unwrap();
    let ridden = run(glovebox(sandbox, &home).args(["windows", "--query", title]));
    let _ = foreign.kill();
    let _ = foreign.wait();
    assert_eq!(ridden.code, 0, "{ridden:?}");
    assert_eq!(steady(ridden.clone()).stdout, alone.stdout);
    assert!(ridden.stderr.contains("served by uid 65534"), "{}", ridden.stderr);
    assert_eq!(read(&heard), "", "the CLI sent another user's listener something");
    assert!(ours.exists(), "another user's socket was removed");
}

#[test]
fn a_stale_socket_is_removed_and_a_silent_host_is_passed_over_in_time() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("stale");
    let title = "warm-stale";
    let (_app, _) = fixture(sandbox, &home, title);
    let alone = windows_alone(sandbox, &home, title);
    let socket = warm_socket(sandbox, &home);

    // A host killed outright leaves its socket file behind.
    let mut killed = Resident::start(sandbox, &home);
    inflict(killed.pid(), Fault::Kill).unwrap();
    killed.child.wait().unwrap();
    drop(killed);
    assert!(socket.exists());
    assert_eq!(steady(run(glovebox(sandbox, &home).args(["windows", "--query", title]))), alone);
    assert!(!socket.exists(), "the stale socket of this user was left");

    // A host that does not answer (frozen): passed over after the greeting's wait.
    let frozen = Resident::start(sandbox, &home);
    inflict(frozen.pid(), Fault::Freeze).unwrap();
    let started = Instant::now();
    let ran = steady(run(glovebox(sandbox, &home).args(["windows", "--query", title])));
    let took = started.elapsed();
    inflict(frozen.pid(), Fault::Thaw).unwrap();
    assert_eq!(ran, alone);
    assert!(took < Duration::from_secs(10), "the CLI waited {took:?} on a frozen host");
    assert!(frozen.calls().is_empty(), "{:?}", frozen.calls());
    assert!(socket.exists(), "a live host's socket was removed");
}

#[test]
fn a_host_killed_mid_call_fails_the_call_with_its_code_at_once() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("killed");
    let (app, id) = fixture(sandbox, &home, "warm-killed");
    let resident = Resident::start(sandbox, &home);
    // A frozen application holds the host's tree read until its deadline.
    app.inflict(Fault::Freeze);
    let mut cli = glovebox(sandbox, &home)
        .args(["inspect", "--json", "--window", &id, "--deadline-ms", "60000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    let still_running = cli.try_wait().unwrap().is_none();
    inflict(resident.pid(), Fault::Kill).unwrap();
    let killed_at = Instant::now();
    let out = loop {
        if cli.try_wait().unwrap().is_some() || killed_at.elapsed() > Duration::from_secs(20) {
            let _ = cli.kill();
            break cli.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = killed_at.elapsed();
    app.inflict(Fault::Thaw);
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(still_running, "the call was over before the host was killed: {stdout} {stderr}");
    assert!(took < Duration::from_secs(3), "the CLI took {took:?} after its host died");
    assert_eq!(out.status.code(), Some(4), "{stdout} {stderr}");
    let said: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(said["error"]["code"], "COMPUTER_BACKEND_UNAVAILABLE", "{said}");
    assert!(stderr.contains("ended during the call"), "{stderr}");
    assert!(resident.calls().is_empty());
}

#[test]
fn one_resident_host_per_display_stop_ends_it_and_an_mcp_server_keeps_the_display_warm() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("stop");
    let title = "warm-stop";
    let (_app, _) = fixture(sandbox, &home, title);
    let alone = windows_alone(sandbox, &home, title);
    let mut resident = Resident::start(sandbox, &home);
    let second = run_briefly(glovebox(sandbox, &home).arg("host"));
    assert_ne!(second.code, 0, "{second:?}");
    assert!(second.stderr.contains(&format!("(pid {})", resident.pid())), "{second:?}");
    let stop = run(glovebox(sandbox, &home).arg("stop"));
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(
        stop.stdout.contains(&format!("the resident warm host (pid {}) ended", resident.pid())),
        "{stop:?}"
    );
    let ended = wait_until("the resident host ended", || resident.child.try_wait().unwrap());
    assert!(ended.success());
    assert!(!warm_socket(sandbox, &home).exists());

    // An MCP server serves the display's one-shot calls while it runs.
    let mut mcp = glovebox(sandbox, &home)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = warm_socket(sandbox, &home).with_extension("lock");
    wait_until("the MCP server serves the warm socket", || {
        (read(&lock) == mcp.id().to_string() && warm_socket(sandbox, &home).exists()).then_some(())
    });
    let refused = run_briefly(glovebox(sandbox, &home).arg("host"));
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(refused.stderr.contains(&format!("(pid {})", mcp.id())), "{refused:?}");
    assert_eq!(steady(run(glovebox(sandbox, &home).args(["windows", "--query", title]))), alone);
    // Stop does not end an MCP server's host: its client does.
    let stop = run(glovebox(sandbox, &home).arg("stop"));
    assert!(!stop.stdout.contains("resident"), "{stop:?}");
    assert!(mcp.try_wait().unwrap().is_none());
    drop(mcp.stdin.take());
    wait_until("the MCP server ended with its client", || mcp.try_wait().unwrap());
    let again = Resident::start(sandbox, &home);
    assert_eq!(steady(run(glovebox(sandbox, &home).args(["windows", "--query", title]))), alone);
    assert_eq!(again.calls().len(), 1);
}

/// JSON-RPC over an MCP server's stdio: one request, its answer.
fn mcp_call(
    to: &mut impl std::io::Write,
    from: &mut impl BufRead,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let request =
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    to.write_all(format!("{request}\n").as_bytes()).unwrap();
    to.flush().unwrap();
    loop {
        let mut line = String::new();
        assert!(from.read_line(&mut line).unwrap() > 0, "the server ended before answering {id}");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
    }
}

/// The `"id"` of the frame a `--json` capture printed.
fn frame_id(ran: &Ran) -> Option<u64> {
    ran.stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"id\": ")?.trim_end_matches(',').parse().ok())
}

#[test]
fn a_ridden_call_reaches_the_persons_desktop_alone_never_the_servers_agent_display() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("agent");
    let title = "warm-agent";
    let (_app, id) = fixture(sandbox, &home, title);
    // Every call here, the server's and the CLI's, in the same (allowing) settings.
    let glovebox = |home: &Path| {
        let mut command = glovebox(sandbox, home);
        command.env("GLOVEBOX_APPROVAL_MODE", "yolo");
        command
    };
    let mut server = glovebox(&home)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = server.stdin.take().unwrap();
    let mut from = std::io::BufReader::new(server.stdout.take().unwrap());
    let init = serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "warm-agent", "version": "0"}});
    mcp_call(&mut to, &mut from, 0, "initialize", init);
    to.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").unwrap();
    let opened = mcp_call(
        &mut to,
        &mut from,
        1,
        "tools/call",
        serde_json::json!({"name": "open_app", "arguments": {"name": "xterm", "desktop": "agent"}}),
    );
    assert_ne!(opened["result"]["isError"], true, "{opened}");
    // The agent's terminal, as the server lists it.
    let listed = mcp_call(
        &mut to,
        &mut from,
        2,
        "tools/call",
        serde_json::json!({"name": "list_windows", "arguments": {}}),
    );
    let text = listed["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    let agent_window = text
        .lines()
        .find(|l| l.to_lowercase().contains("xterm"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("the agent's xterm is not listed: {text}"))
        .to_owned();
    let lock = warm_socket(sandbox, &home).with_extension("lock");
    wait_until("the MCP server serves the warm socket", || {
        (read(&lock) == server.id().to_string()).then_some(())
    });

    // The CLI alone: a runtime directory of its own finds no warm host.
    let alone_home = |command: &mut Command| {
        let run_dir = home.join("alone-run");
        std::fs::create_dir_all(&run_dir).unwrap();
        command.env("XDG_RUNTIME_DIR", &run_dir);
    };
    let calls: Vec<Vec<&str>> = vec![
        vec!["windows", "--json"],
        vec!["windows"],
        vec!["inspect", "--window", &agent_window],
        vec!["screenshot", "--window", &agent_window, "-o", "agent.png"],
        vec!["inspect", "--window", &id, "--max-nodes", "5"],
    ];
    for call in &calls {
        let ridden = steady(run(glovebox(&home).args(call)));
        let mut alone = glovebox(&home);
        alone_home(&mut alone);
        let alone = steady(run(alone.args(call)));
        assert_eq!(ridden, alone, "{call:?}: ridden and alone differ");
        if call[0] == "windows" {
            assert!(!ridden.stdout.contains(&agent_window), "{call:?}: {ridden:?}");
        }
    }
    assert!(!home.join("agent.png").exists(), "no picture of the agent's window");
    let refused = run(glovebox(&home).args(["inspect", "--window", &agent_window]));
    assert_ne!(refused.code, 0, "{refused:?}");
    // They rode: a capture ridden on the server counts on from the server's own frames.
    let capture = ["screenshot", "--window", id.as_str(), "-o", "person.png"];
    let ridden = run(glovebox(&home).args(capture));
    let mut alone = glovebox(&home);
    alone_home(&mut alone);
    let alone = run(alone.args(capture));
    assert_eq!(ridden.code, 0, "{ridden:?}");
    assert_ne!(frame_id(&ridden), frame_id(&alone), "{ridden:?} {alone:?}");
    drop(to);
    wait_until("the MCP server ended with its client", || server.try_wait().unwrap());
}
