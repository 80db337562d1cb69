//! Benchmark rows on the Wayland sandbox (headless sway): observing the
//! GTK3 fixture as a native Wayland client (tree only, and with the
//! screenshot grim reads through wlr-screencopy), the capture alone, and a
//! gated semantic click, all through the host.

use super::{measure, median};
use anyhow::{bail, Context, Result};
use glovebox_model::{Action, Button, CaptureLimits, Target, WindowRef};
use glovebox_platform::ScreenCapture;
use glovebox_sandbox::wayland::{WaylandOptions, WaylandSandbox};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

pub fn rows(runs: usize) -> Result<()> {
    let sandbox = WaylandSandbox::start(WaylandOptions::default())?;
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/fixture_gtk3.py");
    let state = glovebox_sandbox::Desktop::runtime_dir(&sandbox).join("bench-wayland-fixture.json");
    let mut fixture = sandbox
        .command("/usr/bin/python3")
        .arg(&script)
        .args(["--title", "bench wayland fixture"])
        .env("GLOVEBOX_FIXTURE_STATE", &state)
        .stdin(Stdio::null())
        .spawn()
        .context("starting the GTK3 fixture app (python3-gi)")?;
    let mut config =
        glovebox_host::HostConfig::new(&format!("wayland:{}", sandbox.socket().display()));
    config.approvals = glovebox_host::Approvals::allow_all();
    config.runtime_root =
        glovebox_sandbox::Desktop::runtime_dir(&sandbox).join("glovebox-bench-wayland");
    config.audit_path =
        glovebox_sandbox::Desktop::runtime_dir(&sandbox).join("bench-wayland-audit.jsonl");
    config.budget = 10_000;
    let session =
        glovebox_wayland::Session::at(sandbox.socket()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let compositor = glovebox_wayland::WaylandBackend::connect(session.clone())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let host = glovebox_host::Host::open(
        glovebox_linux::wayland::backends(session, Some(sandbox.bus_address()))
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        config,
    )
    .map_err(fail)?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let window = loop {
        let ready =
            std::fs::read_to_string(&state).map(|s| s.contains("\"ready\": true")).unwrap_or(false);
        let listed = host
            .list_windows(Some("bench wayland fixture"), 1)
            .ok()
            .and_then(|p| p.windows.into_iter().next());
        match (ready, listed) {
            (true, Some(w)) => break w.window,
            _ if Instant::now() > deadline => {
                bail!("the fixture window did not appear on the Wayland sandbox")
            }
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let reference = WindowRef::Id(window.id);
    println!(
        "\nWayland sandbox ({}), GTK3 fixture as a native Wayland client, window {}x{}",
        compositor.compositor(),
        window.geometry.width,
        window.geometry.height
    );
    let mut elements = 0;
    let tree = measure(runs, || {
        elements = host.observe(Some(&reference), false).map_err(fail)?.tree.node_count;
        Ok(())
    })?;
    let with_pixels = measure(runs, || {
        host.observe(Some(&reference), true).map_err(fail)?.screenshot.context("no screenshot")?;
        Ok(())
    })?;
    let capture = measure(runs, || {
        compositor
            .capture_window(&reference, CaptureLimits::default())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(())
    })?;
    let seen = host.observe(Some(&reference), false).map_err(fail)?;
    let submit = seen
        .tree
        .root
        .as_ref()
        .and_then(|r| r.walk().find(|e| e.name == "Submit"))
        .map(|e| e.id)
        .context("no Submit button")?;
    let click = Action::Click {
        target: Target::Element(submit),
        button: Button::Left,
        count: 1,
        modifiers: vec![],
    };
    let clicked = median(super::bench_input::gated_clicks(&host, &click, runs)?);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("{:<46} {:>9.2} ms ({elements} elements)", "wayland: observe, tree only", ms(tree));
    println!("{:<46} {:>9.2} ms", "wayland: observe, tree + screenshot", ms(with_pixels));
    println!("{:<46} {:>9.2} ms", "wayland: window capture (grim), no PNG", ms(capture));
    println!("{:<46} {:>9.2} ms", "wayland: gated click (DoAction), unobserved", ms(clicked));
    // The fixture's own count, once its last press is reported (DoAction returns before the handler runs).
    let pressed = || {
        let reported = std::fs::read_to_string(&state)
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok());
        reported.as_ref().and_then(|s| s["clicks"]["submit"].as_u64()).unwrap_or(0)
    };
    let settle = Instant::now() + Duration::from_secs(3);
    while pressed() < runs as u64 + 1 && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(20));
    }
    println!(
        "{:<46} {:>9} of {}",
        "wayland: Submit presses the fixture counted",
        pressed(),
        runs + 1
    );
    let _ = fixture.kill();
    let _ = fixture.wait();
    sandbox.shutdown();
    Ok(())
}
