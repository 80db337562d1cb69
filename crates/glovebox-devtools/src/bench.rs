//! `glovebox-bench`: capture and accessibility figures on a private sandbox
//! desktop, printed as medians next to the tools a user would otherwise
//! reach for (scrot, ImageMagick `import`, a pyatspi walk), all measured in
//! the same run.
//!
//! Run: `cargo build --release -p glovebox-cli -p glovebox-devtools && target/release/glovebox-bench [--runs N]` (it runs the `glovebox` binary beside it)
//! (`--peer-only`: the rows beside cua-driver; `--inspect-only`: the
//! accessibility rows; `--input-only`: the host's input rows;
//! `--wayland-only`: the Wayland rows; `--seen-only`: the rows of elements
//! seen in the pixels)

use anyhow::{bail, Context, Result};
use glovebox_atspi::AtspiBackend;
use glovebox_host::{ActRequest, LookAfter};
use glovebox_model::{CaptureLimits, DisplaySelection, TreeBudget, WindowInfo, WindowRef};
use glovebox_platform::{ScreenCapture, WindowSource};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use glovebox_x11::X11Backend;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

mod bench_input;
mod bench_peer;
mod bench_seen;
mod bench_tokens;
mod bench_wayland;

use bench_input::{bench_host, bench_input};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn measure(runs: usize, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    f()?; // warm-up
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        samples.push(start.elapsed());
    }
    Ok(median(samples))
}

fn run_tool(sandbox: &Sandbox, program: &Path, args: &[&str]) -> Result<()> {
    let status = sandbox
        .command(program)
        .args(args)
        // The bench's own private desktop: computer use is on there.
        .env("GLOVEBOX_ENABLED", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("running {}", program.display()))?;
    if !status.success() {
        bail!("{} {:?} failed: {status}", program.display(), args);
    }
    Ok(())
}

/// `glovebox host` on the sandbox, as a person keeps one for one-shot
/// commands to ride; ended when dropped.
struct WarmHost(std::process::Child);

impl WarmHost {
    fn start(sandbox: &Sandbox, glovebox: &Path) -> Result<WarmHost> {
        use std::io::BufRead as _;
        let mut child = sandbox
            .command(glovebox)
            .arg("host")
            .env("GLOVEBOX_ENABLED", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting `glovebox host`")?;
        let mut line = String::new();
        let stdout = child.stdout.take().context("the warm host's stdout")?;
        std::io::BufReader::new(stdout).read_line(&mut line)?;
        if !line.contains("\"pid\"") {
            let _ = child.kill();
            let _ = child.wait();
            bail!("`glovebox host` did not start: {line:?}");
        }
        Ok(WarmHost(child))
    }
}

impl Drop for WarmHost {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(program)).find(|p| p.is_file())
}

fn main() -> Result<()> {
    let runs: usize = match std::env::args().skip_while(|a| a != "--runs").nth(1) {
        Some(n) => n.parse().context("--runs takes a number")?,
        None => 30,
    };
    let wayland_rows = || bench_wayland::rows(runs);
    if std::env::args().any(|a| a == "--seen-only") {
        return bench_seen::bench_seen(runs);
    }
    if std::env::args().any(|a| a == "--wayland-only") {
        return wayland_rows();
    }
    let sandbox = Sandbox::start(SandboxOptions::default())?;
    let fixture_script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/fixture_gtk3.py");
    let state = sandbox.runtime_dir().join("bench-fixture.json");
    let mut fixture = sandbox
        .command("/usr/bin/python3")
        .arg(&fixture_script)
        .args(["--title", "bench fixture"])
        .env("GLOVEBOX_FIXTURE_STATE", &state)
        .stdin(Stdio::null())
        .spawn()
        .context("starting the GTK3 fixture app (python3-gi)")?;
    let backend =
        X11Backend::connect(Some(sandbox.display())).map_err(|r| anyhow::anyhow!("{r}"))?;
    let reference = WindowRef::PidTitle { pid: fixture.id(), title: "bench fixture".into() };
    let deadline = Instant::now() + Duration::from_secs(20);
    let window = loop {
        let ready =
            std::fs::read_to_string(&state).map(|s| s.contains("\"ready\": true")).unwrap_or(false);
        if let (true, Ok(windows)) = (ready, backend.list_windows()) {
            if let Ok(w) = reference.resolve(&windows) {
                break w.clone();
            }
        }
        if Instant::now() > deadline {
            bail!("the fixture window did not appear");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let window_id = window.id.to_string();
    let xid = format!("{:#x}", window.id.handle);
    let limits = CaptureLimits::default();
    let out_dir = sandbox.runtime_dir().join("bench-out");
    std::fs::create_dir_all(&out_dir)?;
    let out = |name: &str| out_dir.join(name).to_string_lossy().into_owned();
    let glovebox = std::env::current_exe()?.with_file_name("glovebox");
    let only = |flag: &str| std::env::args().any(|a| a == flag);
    let part = if only("--input-only") {
        Some(bench_input(&sandbox, runs, &window))
    } else if only("--inspect-only") {
        Some(inspect_rows(&sandbox, &backend, runs, &glovebox, &window))
    } else if only("--peer-only") {
        Some(bench_peer::peer_rows(&sandbox, &backend, runs, &glovebox, &window))
    } else {
        None
    };
    if let Some(result) = part {
        let _ = fixture.kill();
        let _ = fixture.wait();
        sandbox.shutdown();
        return result;
    }

    println!("glovebox-bench: {runs} runs per row after one warm-up, median wall time");
    println!(
        "desktop 1920x1080x24 (Xvfb {}), window {}x{}, capture route {:?}",
        sandbox.display(),
        window.geometry.width,
        window.geometry.height,
        backend.capture_route()
    );
    let mut rows: Vec<(String, Duration)> = vec![];
    let desktop = measure(runs, || {
        let capture = backend
            .capture_desktop(&DisplaySelection::All, limits, &[])
            .map_err(|r| anyhow::anyhow!("{r}"))?;
        capture.image.encode_png().map_err(|r| anyhow::anyhow!("{r}"))?;
        Ok(())
    })?;
    rows.push(("in-process: desktop capture + PNG".into(), desktop));
    let desktop_raw = measure(runs, || {
        backend
            .capture_desktop(&DisplaySelection::All, limits, &[])
            .map_err(|r| anyhow::anyhow!("{r}"))?;
        Ok(())
    })?;
    rows.push(("in-process: desktop capture only".into(), desktop_raw));
    let window_ref: WindowRef = window_id.parse().map_err(|r| anyhow::anyhow!("{r}"))?;
    let in_window = measure(runs, || {
        let capture =
            backend.capture_window(&window_ref, limits).map_err(|r| anyhow::anyhow!("{r}"))?;
        capture.image.encode_png().map_err(|r| anyhow::anyhow!("{r}"))?;
        Ok(())
    })?;
    rows.push(("in-process: window capture + PNG".into(), in_window));
    let cli_desktop = if glovebox.is_file() {
        let d =
            measure(runs, || run_tool(&sandbox, &glovebox, &["screenshot", "-o", &out("g.png")]))?;
        rows.push(("one-shot CLI: glovebox screenshot (desktop)".into(), d));
        let w = measure(runs, || {
            run_tool(
                &sandbox,
                &glovebox,
                &["screenshot", "--window", &window_id, "-o", &out("gw.png")],
            )
        })?;
        rows.push(("one-shot CLI: glovebox screenshot --window".into(), w));
        let warm = WarmHost::start(&sandbox, &glovebox)?;
        let dw =
            measure(runs, || run_tool(&sandbox, &glovebox, &["screenshot", "-o", &out("g.png")]))?;
        rows.push(("one-shot CLI, warm host: screenshot (desktop)".into(), dw));
        let ww = measure(runs, || {
            run_tool(
                &sandbox,
                &glovebox,
                &["screenshot", "--window", &window_id, "-o", &out("gw.png")],
            )
        })?;
        rows.push(("one-shot CLI, warm host: screenshot --window".into(), ww));
        drop(warm);
        Some((d, dw))
    } else {
        println!("(skipping CLI rows: build the glovebox binary in the same profile first)");
        None
    };
    let scrot = match which("scrot") {
        Some(scrot) => {
            let d = measure(runs, || run_tool(&sandbox, &scrot, &["-o", &out("scrot.png")]))?;
            rows.push(("scrot (desktop)".into(), d));
            Some(d)
        }
        None => None,
    };
    let import = match which("import") {
        Some(import) => {
            let d = measure(runs, || {
                run_tool(&sandbox, &import, &["-window", "root", &out("import.png")])
            })?;
            rows.push(("ImageMagick import -window root".into(), d));
            let w = measure(runs, || {
                run_tool(&sandbox, &import, &["-window", &xid, &out("importw.png")])
            })?;
            rows.push(("ImageMagick import -window ID".into(), w));
            Some(d)
        }
        None => None,
    };
    for (name, d) in &rows {
        println!("{name:<46} {:>9.2} ms", d.as_secs_f64() * 1000.0);
    }
    if let Some((cli, warm)) = cli_desktop {
        if let Some(s) = scrot {
            println!(
                "{:<46} {:>9.1}x",
                "scrot / glovebox CLI",
                s.as_secs_f64() / cli.as_secs_f64()
            );
            println!(
                "{:<46} {:>9.1}x",
                "scrot / glovebox CLI, warm host",
                s.as_secs_f64() / warm.as_secs_f64()
            );
        }
        if let Some(i) = import {
            println!(
                "{:<46} {:>9.1}x",
                "import / glovebox CLI",
                i.as_secs_f64() / cli.as_secs_f64()
            );
        }
    }
    let result = bench_peer::peer_rows(&sandbox, &backend, runs, &glovebox, &window);
    if let Err(e) = result {
        println!("(the peer rows failed: {e:#})");
    }
    let factory = sandbox
        .command("gtk3-widget-factory")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match factory {
        Ok(mut factory) => {
            let result = bench_inspect(
                &sandbox,
                &backend,
                runs,
                &glovebox,
                &[
                    (window.clone(), "fixture app (200-row list)"),
                    (
                        wait_window(&backend, factory.id(), "gtk3-widget-factory")?,
                        "gtk3-widget-factory",
                    ),
                ],
            );
            let _ = factory.kill();
            let _ = factory.wait();
            result?;
        }
        Err(e) => println!("(skipping accessibility rows: gtk3-widget-factory: {e})"),
    }
    let result = bench_input(&sandbox, runs, &window);
    // After the input rows: these apps take the focus the input rows' fixture holds.
    let result = result.and_then(|_| bench_real_apps(&sandbox, &backend, runs, &glovebox));
    let _ = fixture.kill();
    let _ = fixture.wait();
    sandbox.shutdown();
    result.and_then(|_| bench_seen::bench_seen(runs)).and_then(|_| wayland_rows())
}

/// Only the accessibility rows, on the fixture, gtk3-widget-factory and
/// (when installed) LibreOffice Calc: the quick loop for work on reading.
fn inspect_rows(
    sandbox: &Sandbox,
    backend: &X11Backend,
    runs: usize,
    glovebox: &Path,
    fixture: &WindowInfo,
) -> Result<()> {
    let home = sandbox.runtime_dir().join("bench-inspect-home");
    std::fs::create_dir_all(&home)?;
    let mut started = vec![];
    let mut windows = vec![(fixture.clone(), "fixture app (200-row list)")];
    let factory = sandbox
        .command("gtk3-widget-factory")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    windows
        .push((wait_window(backend, factory.id(), "gtk3-widget-factory")?, "gtk3-widget-factory"));
    started.push(factory);
    if which("localc").is_some() {
        let calc = sandbox
            .command("localc")
            .args(["--norestore", "--nologo"])
            .env("HOME", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        started.push(calc);
        windows
            .push((wait_titled(backend, "LibreOffice Calc")?, "LibreOffice Calc: a spreadsheet"));
    }
    let result = bench_inspect(sandbox, backend, runs, glovebox, &windows);
    for mut child in started {
        let _ = child.kill();
        let _ = child.wait();
    }
    result
}

/// The window whose title contains `part`, once it is listed.
pub(crate) fn wait_titled(backend: &X11Backend, part: &str) -> Result<WindowInfo> {
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        if let Some(w) = backend
            .list_windows()
            .ok()
            .and_then(|ws| ws.into_iter().find(|w| w.title.contains(part)))
        {
            return Ok(w);
        }
        if Instant::now() > deadline {
            bail!("no window titled {part:?} appeared");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Accessibility rows on applications nobody here wrote: a browser showing
/// a form page, a Qt editor with a document, a spreadsheet, a GTK4 app.
/// Each is skipped (and said so) when it is not installed.
fn bench_real_apps(
    sandbox: &Sandbox,
    backend: &X11Backend,
    runs: usize,
    glovebox: &Path,
) -> Result<()> {
    let dir = sandbox.runtime_dir().join("bench-apps");
    std::fs::create_dir_all(&dir)?;
    let page = dir.join("form.html");
    let fields: String = (1..=12)
        .map(|i| format!("<label for=f{i}>Field {i}</label> <input id=f{i}><br>\n"))
        .collect();
    std::fs::write(
        &page,
        format!("<!doctype html><title>Bench form</title><form>{fields}<select aria-label=Colour><option>Red<option>Blue</select><button>Send</button></form>"),
    )?;
    let document = dir.join("notes.txt");
    std::fs::write(
        &document,
        (1..=200)
            .map(|i| format!("line {i} of a document open in the editor\n"))
            .collect::<String>(),
    )?;
    let profile = format!("--user-data-dir={}", dir.join("chromium").display());
    let url = format!("file://{}", page.display());
    // Chromium last: its renderer is the one that must keep up with the
    // five-step row's typing, so it is not left under the other windows.
    let apps: [(&str, Vec<&str>, &str, &str); 4] = [
        (
            "featherpad",
            vec![document.to_str().unwrap_or_default()],
            "notes.txt",
            "FeatherPad (Qt 5): a document",
        ),
        (
            "localc",
            vec!["--norestore", "--nologo"],
            "LibreOffice Calc",
            "LibreOffice Calc: a spreadsheet",
        ),
        ("gtk4-widget-factory", vec![], "Widget Factory", "gtk4-widget-factory"),
        (
            "chromium",
            vec![
                "--no-sandbox",
                "--force-renderer-accessibility",
                "--no-first-run",
                "--disable-gpu",
                "--window-size=1000,800",
                &profile,
                &url,
            ],
            "Bench form",
            "Chromium: a form page",
        ),
    ];
    let mut started = vec![];
    let mut windows = vec![];
    for (program, args, title, label) in apps {
        if which(program).is_none() {
            println!("(skipping the {label} row: {program} is not installed)");
            continue;
        }
        let child = sandbox
            .command(program)
            .args(&args)
            .env("HOME", &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        started.push(child);
        match wait_titled(backend, title) {
            Ok(window) => windows.push((window, label)),
            Err(e) => println!("(skipping the {label} row: {e})"),
        }
    }
    let result = bench_inspect(sandbox, backend, runs, glovebox, &windows)
        .and_then(|_| bench_app_diffs(sandbox, runs, &windows));
    for mut child in started {
        let _ = child.kill();
        let _ = child.wait();
    }
    // LibreOffice's launcher script leaves soffice.bin behind: the sandbox's process group ends it.
    result
}

/// Diff rows on the real applications, and the five-step token row on the
/// browser's form page.
fn bench_app_diffs(sandbox: &Sandbox, runs: usize, windows: &[(WindowInfo, &str)]) -> Result<()> {
    let host = bench_host(sandbox, "glovebox-bench-apps", false)?;
    println!();
    for (window, label) in windows {
        let reference = WindowRef::Id(window.id);
        let (diff, elements) = bench_tokens::diff_time(&host, &reference, runs)?;
        println!(
            "{:<58} {:>9.3} ms",
            format!("diff of two looks, {label} ({elements} el.)"),
            diff.as_secs_f64() * 1000.0
        );
        if label.starts_with("Chromium") {
            use bench_tokens::set_field;
            let steps = vec![
                set_field("Field 1", "Ada"),
                set_field("Field 2", "Lovelace"),
                set_field("Field 3", "London"),
                set_field("Field 4", "1815"),
                set_field("Field 5", "analyst"),
            ];
            bench_tokens::five_steps(&host, &reference, "Chromium form page", &steps)?;
        }
    }
    Ok(())
}

pub(crate) fn wait_window(backend: &X11Backend, pid: u32, title: &str) -> Result<WindowInfo> {
    let reference = WindowRef::PidTitle { pid, title: title.into() };
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(windows) = backend.list_windows() {
            if let Ok(w) = reference.resolve(&windows) {
                return Ok(w.clone());
            }
        }
        if Instant::now() > deadline {
            bail!("window {title:?} did not appear");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Accessibility rows: in-process and one-shot CLI inspect next to a full
/// pyatspi walk, and the text tree's size next to the window's PNG.
fn bench_inspect(
    sandbox: &Sandbox,
    backend: &X11Backend,
    runs: usize,
    glovebox: &Path,
    windows: &[(WindowInfo, &str)],
) -> Result<()> {
    let atspi = AtspiBackend::on_session_bus(Some(sandbox.bus_address()))
        .map_err(|r| anyhow::anyhow!("{r}"))?;
    let budget = TreeBudget::default();
    let walker = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/pyatspi_walk.py");
    println!();
    println!(
        "{:<34} {:>8} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7} {:>9} {:>9} {:>9}",
        "inspect",
        "elements",
        "in-proc",
        "CLI",
        "CLI warm",
        "pyatspi",
        "÷CLI",
        "÷warm",
        "text B",
        "~tokens",
        "PNG B"
    );
    for (window, label) in windows {
        // Let the application's accessibility bridge come up before timing it.
        let deadline = Instant::now() + Duration::from_secs(20);
        let tree = loop {
            let tree = atspi.inspect(window, budget).map_err(|r| anyhow::anyhow!("{r}"))?;
            if tree.node_count > 10 || Instant::now() > deadline {
                break tree;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let in_process = measure(runs, || {
            atspi.inspect(window, budget).map(|_| ()).map_err(|r| anyhow::anyhow!("{r}"))
        })?;
        let id = window.id.to_string();
        let cli =
            measure(runs.min(10), || run_tool(sandbox, glovebox, &["inspect", "--window", &id]))?;
        let warm = WarmHost::start(sandbox, glovebox)?;
        let cli_warm =
            measure(runs, || run_tool(sandbox, glovebox, &["inspect", "--window", &id]))?;
        drop(warm);
        let walk = sandbox
            .command("/usr/bin/python3")
            .arg(&walker)
            .args(["--pid", &window.id.pid.to_string(), "--title", &window.title, "--runs", "5"])
            .output()
            .context("running the pyatspi baseline (python3-pyatspi)")?;
        let walked = String::from_utf8_lossy(&walk.stdout);
        let (walk_nodes, walk_ms) = walked.trim().split_once(' ').unwrap_or(("?", "nan"));
        let walk_ms: f64 = walk_ms.parse().unwrap_or(f64::NAN);
        let text = tree.render_text();
        let png = backend
            .capture_window(
                &id.parse().map_err(|r| anyhow::anyhow!("{r}"))?,
                CaptureLimits::default(),
            )
            .map_err(|r| anyhow::anyhow!("{r}"))
            .and_then(|c| c.image.encode_png().map_err(|r| anyhow::anyhow!("{r}")))
            .map(|p| p.len())?;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:<34} {:>8} {:>8.2}ms {:>8.2}ms {:>8.2}ms {:>8.1}ms {:>6.1}x {:>6.1}x {:>9} {:>9} {:>9}",
            label,
            tree.node_count,
            ms(in_process),
            ms(cli),
            ms(cli_warm),
            walk_ms,
            walk_ms / ms(cli),
            walk_ms / ms(cli_warm),
            text.len(),
            text.len() / 4,
            png
        );
        println!("{:<34} (pyatspi walked {walk_nodes} nodes: every row of long lists)", "");
    }
    println!(
        "CLI: a one-shot `glovebox inspect` alone; CLI warm: the same riding `glovebox host`;"
    );
    println!("÷CLI, ÷warm: pyatspi's walk (already connected, in one process) over each");
    println!("tokens are estimated as text bytes / 4; PNG is the same window's screenshot");
    Ok(())
}
