//! What the person at the terminal reads from the desktop: `windows`,
//! `screenshot`, `inspect` and `observe`. Each is carried out by the
//! display's warm host when one serves it, here otherwise (`ride.rs`),
//! with the same output: the bodies here print into a [`Printed`].

use super::exit::{refused, Failure, Printed};
use super::load_config;
use super::ride::{self, Call, Opener};
use anyhow::Context;
use clap::Args;
use glovebox_config::Config;
use glovebox_model::{CaptureLimits, DisplaySelection, TreeBudget, WindowRef};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct WindowsArgs {
    /// Case-insensitive filter on app, title and id.
    #[arg(long)]
    query: Option<String>,
    /// 1-based page of 30 windows.
    #[arg(long, default_value_t = 1)]
    page: usize,
    #[arg(long)]
    pub json: bool,
}

pub fn windows(config: Option<PathBuf>, args: WindowsArgs) -> Result<ExitCode, Failure> {
    let config = load_config(config, args.json)?.config;
    Ok(ride::run(&config, Call::Windows(args)))
}

pub(super) fn list_windows(
    config: &Config,
    args: WindowsArgs,
    open: Opener,
    out: &mut Printed,
) -> Result<(), Failure> {
    let page = open(config)
        .and_then(|host| host.list_windows(args.query.as_deref(), args.page))
        .map_err(|r| refused(r, args.json))?;
    if args.json {
        out.line(&serde_json::to_string_pretty(&page).context("serialising the window page")?);
        return Ok(());
    }
    out.line(&format!(
        "{:<20} {:<18} {:<3} {:<21} {:<19} TITLE",
        "ID", "APP", "", "GEOMETRY", "DENIED"
    ));
    for listed in &page.windows {
        let w = &listed.window;
        let flags =
            format!("{}{}", if w.focused { "*" } else { "" }, if w.minimized { "m" } else { "" });
        let g = w.geometry;
        let geometry = format!("{}x{}+{}+{}", g.width, g.height, g.x, g.y);
        let denied = listed
            .denial
            .as_ref()
            .map(|d| d.code().as_str().trim_start_matches("COMPUTER_").to_lowercase())
            .unwrap_or_default();
        out.line(&format!(
            "{:<20} {:<18} {:<3} {:<21} {:<19} {}",
            w.id.to_string(),
            // An application's words reach the person's terminal made visible.
            glovebox_model::visible(&w.app),
            flags,
            geometry,
            denied,
            glovebox_model::visible(&w.title)
        ));
    }
    out.line(&format!(
        "page {}/{} · {} window(s) · * focused, m minimised",
        page.page, page.pages, page.total
    ));
    Ok(())
}

#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct ScreenshotArgs {
    /// Window to capture: pid/xid, or pid/title.
    #[arg(long, conflicts_with = "display")]
    window: Option<String>,
    /// Display id to capture, or `all` for a composite (default from config).
    #[arg(long)]
    display: Option<String>,
    /// Where to write the PNG; `-` for standard output.
    #[arg(short, long, default_value = "screenshot.png")]
    pub output: PathBuf,
    #[arg(long)]
    max_width: Option<u32>,
    #[arg(long)]
    max_height: Option<u32>,
}

pub fn screenshot(config: Option<PathBuf>, args: ScreenshotArgs) -> Result<ExitCode, Failure> {
    let config = load_config(config, true)?.config;
    Ok(ride::run(&config, Call::Screenshot(args)))
}

pub(super) fn take_screenshot(
    config: &Config,
    args: ScreenshotArgs,
    open: Opener,
    out: &mut Printed,
) -> Result<(), Failure> {
    let json = true;
    let limits = CaptureLimits::new(
        args.max_width.unwrap_or(config.capture.max_width),
        args.max_height.unwrap_or(config.capture.max_height),
    )
    .map_err(|r| refused(r, json))?;
    let window: Option<WindowRef> =
        args.window.as_deref().map(str::parse).transpose().map_err(|r| refused(r, json))?;
    let selection: DisplaySelection = match &args.display {
        Some(text) => text.parse(),
        None => config.display_selection(),
    }
    .map_err(|r| refused(r, json))?;
    let host = open(config).map_err(|r| refused(r, json))?;
    let capture = match &window {
        Some(window) => host.read_window_pixels(window, limits),
        None => host.read_desktop_pixels(&selection, limits),
    }
    .map_err(|r| refused(r, json))?;
    let png = capture.image.encode_png().map_err(|r| refused(r, json))?;
    if args.output == Path::new("-") {
        out.stdout = png;
        out.error_line(&serde_json::to_string(&capture.frame).context("serialising the frame")?);
    } else {
        let record =
            serde_json::json!({ "file": args.output, "bytes": png.len(), "frame": capture.frame });
        out.line(&serde_json::to_string_pretty(&record).context("serialising the frame")?);
        out.file = Some((args.output, png));
    }
    Ok(())
}

#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct InspectArgs {
    /// Window to read: pid/xid, or pid/title.
    #[arg(long)]
    window: String,
    /// Print the structured tree as JSON instead of the compact text.
    #[arg(long, conflicts_with = "text")]
    pub json: bool,
    /// Print the compact text tree (the default).
    #[arg(long)]
    text: bool,
    #[arg(long, default_value_t = TreeBudget::default().max_nodes)]
    max_nodes: usize,
    #[arg(long, default_value_t = TreeBudget::default().max_depth)]
    max_depth: usize,
    /// Deadline of the whole read, in milliseconds.
    #[arg(long, default_value_t = TreeBudget::default().deadline.as_millis() as u64)]
    pub deadline_ms: u64,
}

pub fn inspect(config: Option<PathBuf>, args: InspectArgs) -> Result<ExitCode, Failure> {
    let config = load_config(config, args.json)?.config;
    Ok(ride::run(&config, Call::Inspect(args)))
}

pub(super) fn read_tree(
    config: &Config,
    args: InspectArgs,
    open: Opener,
    out: &mut Printed,
) -> Result<(), Failure> {
    let json = args.json;
    let budget = TreeBudget::new(
        args.max_nodes,
        args.max_depth,
        std::time::Duration::from_millis(args.deadline_ms),
    )
    .map_err(|r| refused(r, json))?;
    let reference: WindowRef = args.window.parse().map_err(|r| refused(r, json))?;
    let host = open(config).map_err(|r| refused(r, json))?;
    let (_, tree) = host.read_tree(&reference, budget).map_err(|r| refused(r, json))?;
    // Numbered as this process alone would, whichever host read it.
    let tree = tree.numbered_afresh();
    if json {
        out.line(&serde_json::to_string_pretty(&tree).context("serialising the tree")?);
    } else {
        out.stdout.extend_from_slice(tree.render_text().as_bytes());
    }
    Ok(())
}

#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct ObserveArgs {
    /// Bind to this window first (pid/xid or pid/title).
    #[arg(long)]
    window: Option<String>,
    /// Also take a screenshot and write it here.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

/// One observation through the host, as an agent's first call would make it.
pub fn observe(config: Option<PathBuf>, args: ObserveArgs) -> Result<ExitCode, Failure> {
    let config = load_config(config, args.json)?.config;
    Ok(ride::run(&config, Call::Observe(args)))
}

pub(super) fn observe_once(
    config: &Config,
    args: ObserveArgs,
    open: Opener,
    out: &mut Printed,
) -> Result<(), Failure> {
    let json = args.json;
    let host = open(config).map_err(|r| refused(r, json))?;
    let window: Option<WindowRef> =
        args.window.map(|w| w.parse()).transpose().map_err(|r| refused(r, json))?;
    let mut seen =
        host.observe(window.as_ref(), args.screenshot.is_some()).map_err(|r| refused(r, json))?;
    // Numbered as this process alone would; the frame ends with the call anyway.
    seen.tree = seen.tree.numbered_afresh();
    if json {
        let value =
            serde_json::json!({ "frame": seen.frame, "grant": seen.grant, "tree": seen.tree });
        out.line(&serde_json::to_string_pretty(&value).context("serialising the observation")?);
    } else {
        out.line(&format!(
            "frame {} · revision {} · grant {} ({:?}, budget {})",
            seen.frame.id,
            seen.frame.revision,
            seen.grant.grant_id,
            seen.grant.scope,
            seen.grant.budget_left
        ));
        out.stdout.extend_from_slice(seen.tree.render_text().as_bytes());
    }
    if let (Some(path), Some(png)) = (args.screenshot, seen.screenshot) {
        out.file = Some((path, png));
    }
    host.revoke("one-shot observation done");
    Ok(())
}
