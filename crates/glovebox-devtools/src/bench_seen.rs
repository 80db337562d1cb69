//! The seen-elements rows: a host observation of a window whose tree is
//! missing (Chromium started on a cold desktop shows its page as a bare
//! frame) at several window sizes — the first look (every row read), a
//! look at the unchanged window (what was read is reused), a look while a
//! line of it keeps changing (only that band is read) — and how many of the
//! words the page shows were read. A last row has the 1280×800 page under
//! a terminal the person opened: its covered pixels read from the window's
//! own pixmap (Composite), with the first capture that redirects it — and
//! waits for its repaint — timed on its own. The last has a dense terminal:
//! an xterm full of `ls -la`'s lines.

use anyhow::{Context, Result};
use glovebox_model::{WindowInfo, WindowRef};
use glovebox_sandbox::{AccessibilityAtStart, Sandbox, SandboxOptions};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The words the test page shows, in reading order.
const PAGE_WORDS: &str = "Order form Fill in the fields below and press Send when you are done. \
Name Email Quantity Send Cancel Shipping is free for orders over fifty pounds. \
Delivery takes three to five working days. Questions about your order? \
Write to the shop and quote the number printed on your receipt.";

/// The page; `ticking` adds a line whose counter changes every 50 ms.
fn page(title: &str, ticking: bool) -> String {
    let tick = if ticking {
        "<p id=t>0</p><script>let n=0;setInterval(()=>{t.textContent='tick '+(++n)},50)</script>"
    } else {
        ""
    };
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head>\
<body style='font:14px sans-serif;margin:8px'><style>p,h2{{margin:4px 0}}</style><h2>Order form</h2>\
<p>Fill in the fields below and press Send when you are done.</p>\
<p><label>Name <input></label></p><p><label>Email <input></label></p>\
<p><label>Quantity <input size=4></label></p>\
<p><button>Send</button> <button>Cancel</button></p>\
<p>Shipping is free for orders over fifty pounds.</p>\
<p>Delivery takes three to five working days.</p>\
<p>Questions about your order?</p>\
<p>Write to the shop and quote the number printed on your receipt.</p>{tick}</body></html>"
    )
}

fn median(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

/// Words of `shown` read exactly (case and edge punctuation aside), and
/// the words it has.
fn words_read(seen: &[glovebox_model::SeenElement], shown: &str) -> (usize, usize) {
    let word = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let mut pool: Vec<String> =
        seen.iter().flat_map(|e| e.text.split_whitespace().map(word).collect::<Vec<_>>()).collect();
    let shown: Vec<String> = shown.split_whitespace().map(word).filter(|w| !w.is_empty()).collect();
    let found = shown
        .iter()
        .filter(|w| match pool.iter().position(|r| r == *w) {
            Some(i) => {
                pool.swap_remove(i);
                true
            }
            None => false,
        })
        .count();
    (found, shown.len())
}

fn chromium(sandbox: &Sandbox, dir: &Path, page: &Path, size: (u32, u32)) -> Result<Child> {
    let profile = dir.join(format!("profile-{}", page.file_stem().unwrap().to_string_lossy()));
    sandbox
        .command("chromium")
        .args([
            &format!("--user-data-dir={}", profile.display()),
            "--no-first-run",
            "--disable-gpu",
            "--no-sandbox",
            "--window-position=0,0",
            &format!("--window-size={},{}", size.0, size.1),
            &format!("file://{}", page.display()),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("chromium")
}

fn wait_for(host: &glovebox_host::Host, title: &str) -> Result<WindowInfo> {
    let started = Instant::now();
    loop {
        let page = host.list_windows(Some(title), 1).map_err(|r| anyhow::anyhow!("{r}"))?;
        if let Some(w) = page.windows.into_iter().next() {
            return Ok(w.window);
        }
        anyhow::ensure!(started.elapsed() < Duration::from_secs(30), "no window titled {title}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Looks at `title`'s window `runs` times: the medians of the first look
/// (its reading forgotten before each), of the look after it, and the
/// words the last first look read.
fn looks(
    host: &glovebox_host::Host,
    title: &str,
    shown: &str,
    runs: usize,
) -> Result<(f64, f64, (usize, usize))> {
    let window = wait_for(host, title)?;
    let reference = WindowRef::Id(window.id);
    // Painted and settled.
    std::thread::sleep(Duration::from_secs(3));
    let reader = glovebox_ocr::shared_reader();
    let (mut first, mut next, mut words) = (vec![], vec![], (0, 0));
    for _ in 0..runs {
        reader.forget(window.id);
        let started = Instant::now();
        let seen = host.observe(Some(&reference), false).map_err(|r| anyhow::anyhow!("{r}"))?;
        first.push(started.elapsed());
        words = words_read(&seen.tree.seen, shown);
        let started = Instant::now();
        host.observe(None, false).map_err(|r| anyhow::anyhow!("{r}"))?;
        next.push(started.elapsed());
    }
    Ok((median(first), median(next), words))
}

pub(crate) fn bench_seen(runs: usize) -> Result<()> {
    let sandbox = Sandbox::start(SandboxOptions {
        accessibility: AccessibilityAtStart::Cold,
        ..SandboxOptions::default()
    })?;
    let dir = sandbox.runtime_dir().join("bench-seen");
    std::fs::create_dir_all(&dir)?;
    let host = crate::bench_input::bench_host(&sandbox, "bench-seen", false)?;
    println!(
        "seen elements: a host observation of Chromium started cold (its page a bare frame, read from its pixels); {}; {runs} runs",
        glovebox_ocr::doctor_check().detail
    );
    println!(
        "{:<26} {:>11} {:>11} {:>13} {:>11}",
        "window", "first look", "unchanged", "a line ticks", "words read"
    );
    let result = (|| -> Result<()> {
        for (width, height) in [(640u32, 400u32), (1280, 800), (1920, 1080)] {
            let mut row = vec![];
            for ticking in [false, true] {
                let title = format!("bench seen {width} {ticking}");
                let file = dir.join(format!("page-{width}-{ticking}.html"));
                std::fs::write(&file, page(&title, ticking))?;
                let mut browser = chromium(&sandbox, &dir, &file, (width, height))?;
                let measured = looks(&host, &title, PAGE_WORDS, runs);
                let _ = browser.kill();
                let _ = browser.wait();
                row.push(measured?);
            }
            let ((first, unchanged, words), (_, ticking, _)) = (row[0], row[1]);
            println!(
                "{:<26} {:>9.1}ms {:>9.1}ms {:>11.1}ms {:>6}/{:<4}",
                format!("Chromium page {width}x{height}"),
                first,
                unchanged,
                ticking,
                words.0,
                words.1
            );
        }
        covered_row(&sandbox, &host, &dir, runs)?;
        terminal_row(&sandbox, &host, &dir, runs)
    })();
    sandbox.shutdown();
    result
}

/// The 1280×800 page with a terminal over all of it: the first capture
/// (the window redirected, its repaint waited for), then the usual looks.
fn covered_row(
    sandbox: &Sandbox,
    host: &glovebox_host::Host,
    dir: &Path,
    runs: usize,
) -> Result<()> {
    let title = "bench seen covered";
    let file = dir.join("page-covered.html");
    std::fs::write(&file, page(title, false))?;
    let mut browser = chromium(sandbox, dir, &file, (1280, 800))?;
    let measured = (|| -> Result<(f64, f64, f64, (usize, usize))> {
        let window = wait_for(host, title)?;
        std::thread::sleep(Duration::from_secs(3));
        let mut cover = sandbox
            .command("xterm")
            .args(["-geometry", "250x70+0+0"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("xterm")?;
        std::thread::sleep(Duration::from_millis(1500));
        let limits = glovebox_model::CaptureLimits::new(2000, 2000)?;
        let started = Instant::now();
        let shot = host.read_window_pixels(&WindowRef::Id(window.id), limits);
        let redirecting = started.elapsed().as_secs_f64() * 1000.0;
        let shot = shot.map_err(|r| anyhow::anyhow!("{r}"));
        let looked = looks(host, title, PAGE_WORDS, runs);
        let _ = (cover.kill(), cover.wait());
        anyhow::ensure!(shot?.frame.occluded.is_empty(), "the covered page was not read whole");
        let (first, unchanged, words) = looked?;
        Ok((redirecting, first, unchanged, words))
    })();
    let _ = (browser.kill(), browser.wait());
    let (redirecting, first, unchanged, words) = measured?;
    println!(
        "{:<26} {:>9.1}ms {:>9.1}ms {:>13} {:>6}/{:<4}   (its first capture, redirecting it: {redirecting:.1}ms)",
        "... 1280x800, covered", first, unchanged, "-", words.0, words.1
    );
    Ok(())
}

/// A listing as `ls -la` prints it, 38 lines: what fills the terminal row's xterm.
fn listing() -> String {
    let names = [
        "report-draft",
        "notes",
        "budget-2026",
        "minutes",
        "invoice",
        "summary",
        "photos",
        "backup",
        "readme",
        "changelog",
        "letters",
        "contracts",
        "travel",
        "recipes",
    ];
    let kinds = ["txt", "md", "ods", "pdf"];
    let mut out = String::from("total 152\n");
    for i in 0..37usize {
        let name = format!("{}-{:02}.{}", names[i % names.len()], i, kinds[i % kinds.len()]);
        let size = 1000 + (i * 7919) % 90000;
        let (day, hour, minute) = (1 + i % 28, 8 + i % 12, (i * 13) % 60);
        let kind = if i % 9 == 0 { "drwxr-xr-x 2" } else { "-rw-r--r-- 1" };
        out.push_str(&format!(
            "{kind} person person {size:>6} Nov {day:>2} {hour:02}:{minute:02} {name}\n"
        ));
    }
    out
}

/// An xterm of 100×40 cells (606×526 pixels in its default font) full of
/// `ls -la`'s lines: a dense terminal, read from its pixels.
fn terminal_row(
    sandbox: &Sandbox,
    host: &glovebox_host::Host,
    dir: &Path,
    runs: usize,
) -> Result<()> {
    let title = "bench seen terminal";
    let text = listing();
    let file = dir.join("listing.txt");
    std::fs::write(&file, &text)?;
    let mut xterm = sandbox
        .command("xterm")
        .args(["-T", title, "-geometry", "100x40+0+0", "-e", "sh", "-c"])
        .arg(format!("cat '{}'; exec sleep 100000", file.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("xterm")?;
    let measured = looks(host, title, &text, runs);
    let _ = (xterm.kill(), xterm.wait());
    let (first, unchanged, words) = measured?;
    println!(
        "{:<26} {:>9.1}ms {:>9.1}ms {:>13} {:>6}/{:<4}",
        "xterm 100x40 of ls -la", first, unchanged, "-", words.0, words.1
    );
    Ok(())
}
