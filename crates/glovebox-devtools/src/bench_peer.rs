//! The peer rows: glovebox beside cua-driver (trycua's driver, from its
//! PyPI wheel, pinned in `.ci/install-deps`) on the same sandbox windows,
//! both reached through the official MCP Python SDK as an agent reaches
//! them, calls interleaved (`testapps/bench_peer_mcp.py`).

use anyhow::{bail, Context, Result};
use glovebox_sandbox::Sandbox;
use serde_json::Value;
use std::path::Path;

/// One window both drivers read: a label, its pid and title, and a button
/// both click with their results (if any).
pub struct PeerTarget<'a> {
    pub label: &'a str,
    pub pid: u32,
    pub title: &'a str,
    pub button: Option<&'a str>,
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
    let specs: Vec<String> = targets
        .iter()
        .map(|t| {
            format!(
                "{}:{}:{}{}",
                t.label,
                t.pid,
                t.title,
                t.button.map(|b| format!(":{b}")).unwrap_or_default()
            )
        })
        .collect();
    let out = sandbox
        .command(&python)
        .arg(&script)
        .arg(runs.to_string())
        .arg(glovebox)
        .arg(&cua)
        .args(&specs)
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
        "{:<22} {:<28} {:>11} {:>11} {:>8}",
        "window", "call", "glovebox", "cua-driver", "ratio"
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
        let call = row["row"].as_str().unwrap_or("?");
        println!(
            "{:<22} {:<28} {:>9.1}ms {:>9.1}ms {:>7.1}x",
            row["window"].as_str().unwrap_or("?"),
            call,
            ours,
            theirs,
            theirs / ours
        );
        if let (Some(a), Some(b)) =
            (row["glovebox_png_bytes"].as_u64(), row["peer_png_bytes"].as_u64())
        {
            println!(
                "{:<22} {:<28} {:>10}B {:>10}B {:>7.2}x",
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
