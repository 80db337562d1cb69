//! The peer rows: glovebox beside cua-driver (trycua's driver, from its
//! PyPI wheel, pinned in `.ci/install-deps`) on the same sandbox windows,
//! both reached through the official MCP Python SDK as an agent reaches
//! them, calls interleaved (`testapps/bench_peer_mcp.py`): the fixture form
//! (a click that changes the window and one that changes nothing),
//! gtk3-widget-factory, and a Chromium page of 5,000 elements.

use anyhow::{bail, Context, Result};
use glovebox_model::WindowInfo;
use glovebox_sandbox::Sandbox;
use glovebox_x11::X11Backend;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Stdio};

/// One window both drivers read: a label, its pid and title, and the
/// buttons both click (by element) with their results.
pub struct PeerTarget<'a> {
    pub label: &'a str,
    pub pid: u32,
    pub title: &'a str,
    pub clicks: &'a [PeerClick<'a>],
}

/// A button clicked in every round, and what its click does to the window.
pub struct PeerClick<'a> {
    pub button: &'a str,
    pub effect: Effect,
}

#[derive(Clone, Copy)]
pub enum Effect {
    /// Every click changes the window (a panel shown, then hidden).
    Changes,
    /// After the first, a click changes nothing (the status already says
    /// so): the host must find out there was no reaction.
    Nothing,
}

/// The table page's rows: with a cell of three a row, 5,001 elements
/// (the table, its rows and their cells).
const BIG_PAGE_ROWS: usize = 1250;

fn big_page() -> String {
    let rows: String = (1..=BIG_PAGE_ROWS)
        .map(|i| {
            format!(
                "<tr><td>Order {i}</td><td>customer-{}</td><td>{}.{:02}</td></tr>",
                i * 37 % 900,
                i * 7 % 500,
                i % 100
            )
        })
        .collect();
    format!("<!doctype html><meta charset=utf-8><title>Bench big page</title><table>{rows}</table>")
}

fn spawn_quiet(sandbox: &Sandbox, program: &str, args: &[String]) -> Result<Child> {
    sandbox
        .command(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {program}"))
}

/// glovebox beside cua-driver on the fixture (a click on Details, which
/// shows or hides a panel, and on Cancel, which after the first says what
/// it already says), gtk3-widget-factory and a Chromium page of a
/// 1,250-row table.
pub fn peer_rows(
    sandbox: &Sandbox,
    backend: &X11Backend,
    runs: usize,
    glovebox: &Path,
    fixture: &WindowInfo,
) -> Result<()> {
    let dir = sandbox.runtime_dir().join("bench-peer");
    std::fs::create_dir_all(&dir)?;
    let page = dir.join("big.html");
    std::fs::write(&page, big_page())?;
    let mut started =
        vec![spawn_quiet(sandbox, "gtk3-widget-factory", &[]).context("gtk3-widget-factory")?];
    let browser = spawn_quiet(
        sandbox,
        "chromium",
        &[
            "--no-sandbox".into(),
            "--force-renderer-accessibility".into(),
            "--no-first-run".into(),
            "--disable-gpu".into(),
            "--window-size=1000,800".into(),
            format!("--user-data-dir={}", dir.join("chromium").display()),
            format!("file://{}", page.display()),
        ],
    );
    let result = (|| {
        started.push(browser?);
        let factory = crate::wait_window(backend, started[0].id(), "gtk3-widget-factory")?;
        let big = crate::wait_titled(backend, "Bench big page")?;
        // The page's tree is built once the renderer has laid it out.
        std::thread::sleep(std::time::Duration::from_secs(3));
        let fixture_clicks = [
            PeerClick { button: "Details", effect: Effect::Changes },
            PeerClick { button: "Cancel", effect: Effect::Nothing },
        ];
        let targets = [
            PeerTarget {
                label: "fixture form",
                pid: fixture.id.pid,
                title: &fixture.title,
                clicks: &fixture_clicks,
            },
            PeerTarget {
                label: "gtk3-widget-factory",
                pid: factory.id.pid,
                title: &factory.title,
                clicks: &[],
            },
            PeerTarget {
                label: "Chromium, 5,001 el.",
                pid: big.id.pid,
                title: "Bench big page",
                clicks: &[],
            },
        ];
        rows(sandbox, runs, glovebox, &targets)
    })();
    for mut child in started {
        let _ = (child.kill(), child.wait());
    }
    result
}

pub fn rows(sandbox: &Sandbox, runs: usize, glovebox: &Path, targets: &[PeerTarget]) -> Result<()> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/sdk-venv/bin");
    let (python, cua) = (venv.join("python"), venv.join("cua-driver"));
    if !cua.exists() {
        println!(
            "(skipping the peer rows: {} is missing; `bash .ci/install-deps` installs it)",
            cua.display()
        );
        return Ok(());
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/bench_peer_mcp.py");
    let specs: Vec<Value> = targets
        .iter()
        .map(|t| {
            let clicks: Vec<Value> = t
                .clicks
                .iter()
                .map(
                    |c| json!({"button": c.button, "changes": matches!(c.effect, Effect::Changes)}),
                )
                .collect();
            json!({"label": t.label, "pid": t.pid, "title": t.title, "clicks": clicks})
        })
        .collect();
    let out = sandbox
        .command(&python)
        .arg(&script)
        .arg(runs.to_string())
        .arg(glovebox)
        .arg(&cua)
        .arg(Value::Array(specs).to_string())
        .stdin(std::process::Stdio::null())
        .output()
        .context("running the peer rows (testapps/bench_peer_mcp.py)")?;
    if !out.status.success() {
        bail!(
            "the peer rows failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    let version = std::process::Command::new(&cua)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    println!("peer: {version} (`cua-driver mcp --no-overlay`) and `glovebox mcp`, official MCP Python SDK, interleaved, median of {runs}");
    println!(
        "{:<22} {:<30} {:>11} {:>11} {:>8} {:>17}",
        "window", "call", "glovebox", "cua-driver", "ratio", "text chars"
    );
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let row: Value = serde_json::from_str(line)
            .with_context(|| format!("the peer script printed {line:?}"))?;
        if let Some(protocols) = row.get("protocols") {
            println!(
                "(protocols negotiated: glovebox {}, cua-driver {})",
                protocols[0], protocols[1]
            );
            continue;
        }
        let (ours, theirs) = (
            row["glovebox_ms"].as_f64().unwrap_or(f64::NAN),
            row["peer_ms"].as_f64().unwrap_or(f64::NAN),
        );
        let chars = match (row["glovebox_chars"].as_u64(), row["peer_chars"].as_u64()) {
            (Some(a), Some(b)) => format!("{a} / {b}"),
            _ => String::new(),
        };
        println!(
            "{:<22} {:<30} {:>9.1}ms {:>9.1}ms {:>7.1}x {:>17}",
            row["window"].as_str().unwrap_or("?"),
            row["row"].as_str().unwrap_or("?"),
            ours,
            theirs,
            theirs / ours,
            chars
        );
        if let (Some(a), Some(b)) =
            (row["glovebox_png_bytes"].as_u64(), row["peer_png_bytes"].as_u64())
        {
            println!(
                "{:<22} {:<30} {:>10}B {:>10}B {:>7.2}x",
                "",
                "screenshot bytes",
                a,
                b,
                b as f64 / a as f64
            );
        }
    }
    Ok(())
}
