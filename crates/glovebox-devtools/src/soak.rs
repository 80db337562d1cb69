//! `glovebox-soak`: a long run of MCP calls against `glovebox mcp` on a
//! private sandbox desktop with the GTK3 fixture, and what it costs over
//! time: resident memory, open file descriptors, SysV shared-memory
//! segments, X windows, the accessibility bus's match rules, and latency
//! (median of the first and of the last tenth of the calls).
//!
//! The calls cycle through observation (tree, tree + screenshot, window
//! list, grant status), input (set_value, click, type, key on the fixture,
//! approved by `approval.mode yolo`) and refusals (a stale element id,
//! arguments outside the schema, a point outside the window).
//!
//! ```sh
//! cargo build --release -p glovebox-cli -p glovebox-devtools && target/release/glovebox-soak --calls 10000
//! ```
//! Exit status 1 when a bound is broken (see [`Bounds`]), 2 when the run
//! could not start.

use anyhow::{bail, Context as _};
use glovebox_sandbox::fixture::{unique_title, Fixture};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

/// What a run may cost.
struct Bounds {
    /// Resident memory growth after the warm-up, in KiB.
    memory_kib: i64,
    /// The last tenth's median latency over the first tenth's.
    latency_ratio: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
struct Sample {
    rss_kib: i64,
    fds: i64,
    shm_segments: i64,
    x_windows: i64,
    match_rules: Option<i64>,
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    fn call(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.next += 1;
        let id = self.next;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )?;
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("glovebox mcp closed its output");
            }
            let message: Value = serde_json::from_str(&line)?;
            if message["id"] == id {
                return Ok(message);
            }
        }
    }

    fn tool(&mut self, name: &str, arguments: Value) -> anyhow::Result<Value> {
        self.call("tools/call", json!({"name": name, "arguments": arguments}))
    }
}

fn pid_value(pid: u32, field: &str) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1)
}

fn fds(pid: u32) -> i64 {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count() as i64).unwrap_or(-1)
}

/// SysV segments created by `pid` (glovebox's XShm captures).
fn shm_segments(pid: u32) -> i64 {
    let table = std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    table
        .lines()
        .skip(1)
        .filter(|l| l.split_whitespace().nth(4).and_then(|c| c.parse::<u32>().ok()) == Some(pid))
        .count() as i64
}

fn x_windows(display: &str) -> i64 {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::ConnectionExt as _;
    let Ok((conn, screen)) = x11rb::connect(Some(display)) else { return -1 };
    let mut stack = vec![conn.setup().roots[screen].root];
    let mut count = 0;
    while let Some(window) = stack.pop() {
        count += 1;
        if let Ok(Ok(tree)) = conn.query_tree(window).map(|c| c.reply()) {
            stack.extend(tree.children);
        }
    }
    count
}

/// The accessibility bus's match rules in all, from the bus's own statistics
/// (`org.freedesktop.DBus.Debug.Stats`), where the daemon offers them.
fn match_rules(sandbox: &Sandbox) -> Option<i64> {
    let address = sandbox
        .command("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.a11y.Bus",
            "/org/a11y/bus",
            "org.a11y.Bus.GetAddress",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&address.stdout);
    let address = text.split('"').nth(1)?.to_owned();
    let stats = sandbox
        .command("dbus-send")
        .arg(format!("--bus={address}"))
        .args([
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.Debug.Stats.GetStats",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&stats.stdout);
    let at = text.find("\"MatchRules\"")?;
    text[at..].split_whitespace().find_map(|w| w.parse::<i64>().ok())
}

fn sample(pid: u32, sandbox: &Sandbox) -> Sample {
    Sample {
        rss_kib: pid_value(pid, "VmRSS:"),
        fds: fds(pid),
        shm_segments: shm_segments(pid),
        x_windows: x_windows(sandbox.display()),
        match_rules: match_rules(sandbox),
    }
}

fn id_on_line(text: &str, needle: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains(needle) && l.contains('@'))?;
    line.split_whitespace()
        .find(|w| w.starts_with("@e"))
        .map(|w| w.trim_start_matches('@').to_owned())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn glovebox_binary() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let sibling = exe.with_file_name("glovebox");
    if sibling.is_file() {
        return Ok(sibling);
    }
    bail!("no glovebox binary beside {} (build the glovebox package first)", exe.display())
}

fn scratch() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("glovebox-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn start(sandbox: &Sandbox, home: &Path) -> anyhow::Result<Server> {
    let mut command = sandbox.command_in_home(glovebox_binary()?, home);
    command
        .arg("mcp")
        .env("GLOVEBOX_ENABLED", "true")
        .env("GLOVEBOX_APPROVAL_MODE", "yolo")
        .env("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")
        .env("GLOVEBOX_GRANT_BUDGET", "10000")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = command.spawn().context("starting glovebox mcp")?;
    let stdin = child.stdin.take().context("stdin")?;
    let stdout = BufReader::new(child.stdout.take().context("stdout")?);
    let mut server = Server { child, stdin, stdout, next: 0 };
    server.call("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "glovebox-soak", "version": "0"}}))?;
    writeln!(server.stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    Ok(server)
}

/// The figures of one run.
#[derive(Debug, serde::Serialize)]
struct Report {
    calls: usize,
    seconds: f64,
    refusals: usize,
    before: Sample,
    after: Sample,
    first_median_ms: f64,
    last_median_ms: f64,
}

fn soak(calls: usize) -> anyhow::Result<Report> {
    let sandbox = Sandbox::start(SandboxOptions::default()).context("the sandbox desktop")?;
    let fixture = Fixture::launch(
        &sandbox,
        &unique_title("Soak form"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let home = scratch()?;
    let mut server = start(&sandbox, &home)?;
    let window = format!("{}/{}", fixture.pid(), fixture.title);
    let mut latencies = Vec::with_capacity(calls);
    let mut refusals = 0;
    let mut before = None;
    let warm_up = (calls / 10).clamp(10, 200);
    let started = Instant::now();
    let mut tree = String::new();
    for n in 0..calls {
        if n == warm_up {
            before = Some(sample(server.child.id(), &sandbox));
        }
        let element = |name: &str| {
            id_on_line(&tree, name)
                .map(|id| json!({"element": id}))
                .unwrap_or(json!({"element": "e1"}))
        };
        let (name, arguments) = match n % 12 {
            0 => ("observe", json!({"window": window, "screenshot": false})),
            1 => ("set_value", json!({"target": element("\"Name\""), "text": format!("Soak {n}")})),
            2 => ("click", json!({"target": element("\"Submit\"")})),
            3 => ("list_windows", json!({})),
            4 => ("observe", json!({"window": window, "screenshot": true})),
            5 => ("click", json!({"target": {"element": "e99999"}})),
            6 => ("grant_status", json!({})),
            7 => ("key", json!({"combo": "Home"})),
            8 => ("click", json!({"target": {"point": {"x": 90000, "y": 5}}})),
            9 => ("scroll", json!({"target": element("\"Pad\""), "dy": 1})),
            10 => ("type", json!({"text": 17})),
            _ => ("observe", json!({"window": window, "screenshot": false})),
        };
        let asked = Instant::now();
        let answer = server.tool(name, arguments)?;
        latencies.push(asked.elapsed().as_secs_f64() * 1000.0);
        if answer.get("error").is_some() || answer["result"]["isError"] == true {
            refusals += 1;
        }
        if let Some(text) = answer["result"]["content"][0]["text"].as_str() {
            if text.contains("@e") {
                tree = text.to_owned();
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let after = sample(server.child.id(), &sandbox);
    let tenth = (calls / 10).max(1);
    let report = Report {
        calls,
        seconds,
        refusals,
        before: before.unwrap_or(after),
        after,
        first_median_ms: median(
            latencies[warm_up.min(latencies.len())..(warm_up + tenth).min(latencies.len())]
                .to_vec(),
        ),
        last_median_ms: median(latencies[latencies.len().saturating_sub(tenth)..].to_vec()),
    };
    drop(server.stdin);
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.child.try_wait()?.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = server.child.kill();
    let _ = server.child.wait();
    drop(fixture);
    Ok(report)
}

fn broken(report: &Report, bounds: &Bounds) -> Vec<String> {
    let (b, a) = (&report.before, &report.after);
    let mut broken = vec![];
    if a.rss_kib - b.rss_kib > bounds.memory_kib {
        broken.push(format!(
            "resident memory grew {} KiB (bound {} KiB)",
            a.rss_kib - b.rss_kib,
            bounds.memory_kib
        ));
    }
    if a.fds > b.fds {
        broken.push(format!("open file descriptors grew from {} to {}", b.fds, a.fds));
    }
    if a.shm_segments > b.shm_segments {
        broken.push(format!(
            "shared-memory segments grew from {} to {}",
            b.shm_segments, a.shm_segments
        ));
    }
    if a.x_windows > b.x_windows {
        broken.push(format!("X windows grew from {} to {}", b.x_windows, a.x_windows));
    }
    if let (Some(rb), Some(ra)) = (b.match_rules, a.match_rules) {
        if ra > rb {
            broken.push(format!("the accessibility bus's match rules grew from {rb} to {ra}"));
        }
    }
    if report.last_median_ms > report.first_median_ms * bounds.latency_ratio {
        broken.push(format!(
            "the last tenth's median latency {:.2} ms is over {:.0} % of the first tenth's {:.2} ms",
            report.last_median_ms,
            bounds.latency_ratio * 100.0,
            report.first_median_ms
        ));
    }
    broken
}

fn main() -> std::process::ExitCode {
    let mut calls = 10_000;
    let mut json_out = false;
    let mut latency_ratio = 1.2;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--calls" => calls = args.next().and_then(|v| v.parse().ok()).unwrap_or(calls),
            "--json" => json_out = true,
            // A CI machine runs other suites beside this one: latency is reported, bounded loosely there.
            "--latency-ratio" => {
                latency_ratio = args.next().and_then(|v| v.parse().ok()).unwrap_or(latency_ratio)
            }
            other => {
                eprintln!("glovebox-soak: unknown argument {other:?} (--calls N, --json, --latency-ratio R)");
                return std::process::ExitCode::from(2);
            }
        }
    }
    let report = match soak(calls.max(20)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("glovebox-soak: {e:#}");
            return std::process::ExitCode::from(2);
        }
    };
    let bounds = Bounds { memory_kib: 16 * 1024 + (calls as i64 / 1000) * 512, latency_ratio };
    let broken = broken(&report, &bounds);
    if json_out {
        println!("{}", json!({"report": report, "broken": broken}));
    } else {
        let (b, a) = (&report.before, &report.after);
        println!(
            "{} MCP calls in {:.1} s ({} refused, as the mix intends)",
            report.calls, report.seconds, report.refusals
        );
        println!(
            "resident memory: {} KiB after the warm-up, {} KiB at the end",
            b.rss_kib, a.rss_kib
        );
        println!(
            "file descriptors: {} -> {}; shared-memory segments: {} -> {}; X windows: {} -> {}",
            b.fds, a.fds, b.shm_segments, a.shm_segments, b.x_windows, a.x_windows
        );
        match (b.match_rules, a.match_rules) {
            (Some(rb), Some(ra)) => println!("accessibility bus match rules: {rb} -> {ra}"),
            _ => println!("accessibility bus match rules: the bus offers no statistics"),
        }
        println!(
            "median latency: {:.2} ms over the first tenth, {:.2} ms over the last",
            report.first_median_ms, report.last_median_ms
        );
        for line in &broken {
            println!("BROKEN: {line}");
        }
    }
    if broken.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}
