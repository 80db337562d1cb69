//! The one-shot commands: windows, screenshot, doctor, config.

use crate::exit::{refused, Failure};
use anyhow::Context;
use clap::{Args, Subcommand};
use glovebox_config::{Layered, Sources};
use glovebox_model::{CaptureLimits, DisplaySelection, Origin, Refusal, Scope, TreeBudget, WindowRef};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The host for a one-shot read by the person at the terminal: its
/// observe-class prompts (`approval.observe = prompt`) ask on the terminal.
fn open_reader(config: &glovebox_config::Config) -> Result<glovebox_host::Host, Refusal> {
    // A one-shot read draws no cursor: nothing stays to show it on.
    let config = glovebox_config::Config { overlay: false, ..config.clone() };
    glovebox::platform::open_host(&config).map(|host| host.with_approver(std::sync::Arc::new(crate::terminal::Terminal)))
}

fn load_config(explicit: Option<PathBuf>, json: bool) -> Result<Layered, Failure> {
    Layered::load(&Sources::standard(explicit)).map_err(|e| refused(e.into(), json))
}

#[derive(Args, Debug)]
pub struct WindowsArgs {
    /// Case-insensitive filter on app, title and id.
    #[arg(long)]
    query: Option<String>,
    /// 1-based page of 30 windows.
    #[arg(long, default_value_t = 1)]
    page: usize,
    #[arg(long)]
    json: bool,
}

pub fn windows(config: Option<PathBuf>, args: WindowsArgs) -> Result<ExitCode, Failure> {
    let config = load_config(config, args.json)?.config;
    let page = open_reader(&config).and_then(|host| host.list_windows(args.query.as_deref(), args.page)).map_err(|r| refused(r, args.json))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&page).context("serialising the window page")?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{:<20} {:<18} {:<3} {:<21} {:<19} TITLE", "ID", "APP", "", "GEOMETRY", "DENIED");
    for listed in &page.windows {
        let w = &listed.window;
        let flags = format!("{}{}", if w.focused { "*" } else { "" }, if w.minimized { "m" } else { "" });
        let g = w.geometry;
        let geometry = format!("{}x{}+{}+{}", g.width, g.height, g.x, g.y);
        let denied = listed.denial.as_ref().map(|d| d.code().as_str().trim_start_matches("COMPUTER_").to_lowercase()).unwrap_or_default();
        println!("{:<20} {:<18} {:<3} {:<21} {:<19} {}", w.id.to_string(), w.app, flags, geometry, denied, w.title);
    }
    println!("page {}/{} · {} window(s) · * focused, m minimised", page.page, page.pages, page.total);
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct ScreenshotArgs {
    /// Window to capture: pid/xid, or pid/title.
    #[arg(long, conflicts_with = "display")]
    window: Option<String>,
    /// Display id to capture, or `all` for a composite (default from config).
    #[arg(long)]
    display: Option<String>,
    /// Where to write the PNG; `-` for standard output.
    #[arg(short, long, default_value = "screenshot.png")]
    output: PathBuf,
    #[arg(long)]
    max_width: Option<u32>,
    #[arg(long)]
    max_height: Option<u32>,
}

pub fn screenshot(config: Option<PathBuf>, args: ScreenshotArgs) -> Result<ExitCode, Failure> {
    let json = true;
    let config = load_config(config, json)?.config;
    let limits = CaptureLimits::new(args.max_width.unwrap_or(config.capture.max_width), args.max_height.unwrap_or(config.capture.max_height))
        .map_err(|r| refused(r, json))?;
    let window: Option<WindowRef> = args.window.as_deref().map(str::parse).transpose().map_err(|r| refused(r, json))?;
    let selection: DisplaySelection = match &args.display {
        Some(text) => text.parse(),
        None => config.display_selection(),
    }
    .map_err(|r| refused(r, json))?;
    let host = open_reader(&config).map_err(|r| refused(r, json))?;
    let capture = match &window {
        Some(window) => host.read_window_pixels(window, limits),
        None => host.read_desktop_pixels(&selection, limits),
    }
    .map_err(|r| refused(r, json))?;
    let png = capture.image.encode_png().map_err(|r| refused(r, json))?;
    if args.output == Path::new("-") {
        std::io::stdout().write_all(&png).context("writing the PNG to standard output")?;
        eprintln!("{}", serde_json::to_string(&capture.frame).context("serialising the frame")?);
    } else {
        write_atomically(&args.output, &png)?;
        let record = serde_json::json!({ "file": args.output, "bytes": png.len(), "frame": capture.frame });
        println!("{}", serde_json::to_string_pretty(&record).context("serialising the frame")?);
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes through a temporary file in the same directory and renames it, so
/// a failure never leaves a partial image at `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let tmp = path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Window to read: pid/xid, or pid/title.
    #[arg(long)]
    window: String,
    /// Print the structured tree as JSON instead of the compact text.
    #[arg(long, conflicts_with = "text")]
    json: bool,
    /// Print the compact text tree (the default).
    #[arg(long)]
    text: bool,
    #[arg(long, default_value_t = TreeBudget::default().max_nodes)]
    max_nodes: usize,
    #[arg(long, default_value_t = TreeBudget::default().max_depth)]
    max_depth: usize,
    /// Deadline of the whole read, in milliseconds.
    #[arg(long, default_value_t = TreeBudget::default().deadline.as_millis() as u64)]
    deadline_ms: u64,
}

pub fn inspect(config: Option<PathBuf>, args: InspectArgs) -> Result<ExitCode, Failure> {
    let json = args.json;
    let config = load_config(config, json)?.config;
    let budget = TreeBudget::new(args.max_nodes, args.max_depth, std::time::Duration::from_millis(args.deadline_ms)).map_err(|r| refused(r, json))?;
    let reference: WindowRef = args.window.parse().map_err(|r| refused(r, json))?;
    let host = open_reader(&config).map_err(|r| refused(r, json))?;
    let (_, tree) = host.read_tree(&reference, budget).map_err(|r| refused(r, json))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&tree).context("serialising the tree")?);
    } else {
        print!("{}", tree.render_text());
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SchemaOutput {
    WindowPage,
    Frame,
    AccessibilityTree,
    Error,
}

pub fn schema(output: SchemaOutput) -> Result<ExitCode, Failure> {
    let schema = match output {
        SchemaOutput::WindowPage => schemars::schema_for!(glovebox_model::WindowPage),
        SchemaOutput::Frame => schemars::schema_for!(glovebox_model::Frame),
        SchemaOutput::AccessibilityTree => schemars::schema_for!(glovebox_model::AccessibilityTree),
        SchemaOutput::Error => schemars::schema_for!(glovebox_model::Refusal),
    };
    println!("{}", serde_json::to_string_pretty(&schema).context("serialising the schema")?);
    Ok(ExitCode::SUCCESS)
}

pub fn doctor(config: Option<PathBuf>, json: bool) -> Result<ExitCode, Failure> {
    let mut report = glovebox_linux::doctor();
    let served = glovebox_host::Host::remote_indicator(&glovebox_host::control::DisplayDir::default_root(), &glovebox::platform::display_name(config));
    report.checks.push(glovebox_platform::doctor::Check::ok(
        "indicator",
        match served {
            // The address only: the token stays with `glovebox indicator`.
            Ok(glovebox_host::control::ControlReply::Indicator { url }) => format!(
                "served by this display's grant holder at {}/ (`glovebox indicator` prints the URL with its token)",
                url.split("/?").next().unwrap_or_default()
            ),
            _ => "served on 127.0.0.1 by whichever glovebox process holds this display's grant; none holds one now".into(),
        },
    ));
    if json {
        let mut value = serde_json::to_value(&report).context("serialising the report")?;
        value["capabilities"] = serde_json::to_value(glovebox_linux::capabilities()).context("serialising the capabilities")?;
        println!("{}", serde_json::to_string_pretty(&value).context("serialising the report")?);
    } else {
        print!("{}", report.render_text());
    }
    Ok(if report.healthy() { ExitCode::SUCCESS } else { glovebox::exit_status::Exit::Unavailable.into() })
}

#[derive(Subcommand, Debug)]
pub enum ConfigAction {
    /// Print a key's effective value and the layer it came from.
    Get { key: String },
    /// Set a key in the user configuration file (or `--project`'s ./.glovebox.toml).
    Set {
        key: String,
        value: String,
        #[arg(long)]
        project: bool,
    },
    /// Print every key with its effective value and origin.
    List,
}

pub fn config(explicit: Option<PathBuf>, action: ConfigAction) -> Result<ExitCode, Failure> {
    let sources = Sources::standard(explicit);
    match action {
        ConfigAction::Get { key } => {
            let layered = Layered::load(&sources).map_err(|e| refused(e.into(), false))?;
            let (value, origin) = layered.get(&key).map_err(|e| refused(e.into(), false))?;
            println!("{value}\t# {origin}");
        }
        ConfigAction::Set { key, value, project } => {
            let file = if project { sources.project_file.clone() } else { sources.user_file.clone() }
                .ok_or_else(|| refused(Refusal::invalid_argument("no configuration directory: set HOME or XDG_CONFIG_HOME"), false))?;
            glovebox_config::set_in_file(&file, &key, &value).map_err(|e| refused(e.into(), false))?;
            println!("{key} = {value}\t# written to {}", file.display());
        }
        ConfigAction::List => {
            let layered = Layered::load(&sources).map_err(|e| refused(e.into(), false))?;
            for (key, _) in glovebox_config::keys() {
                let (value, origin) = layered.get(&key).map_err(|e| refused(e.into(), false))?;
                println!("{key} = {value}\t# {origin}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Subcommand, Debug)]
pub enum GrantAction {
    /// Create a user grant and hold it until Ctrl-C or `glovebox stop`.
    Hold {
        /// Bind to this window (pid/xid or pid/title) instead of the frontmost allowed one.
        #[arg(long)]
        window: Option<String>,
        /// `window` pins the grant to that window.
        #[arg(long, value_enum, default_value = "desktop")]
        scope: ScopeArg,
    },
    /// Ask the process holding this display's grant what it holds.
    Status,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ScopeArg {
    Desktop,
    Window,
}

pub fn grant(config: Option<PathBuf>, action: GrantAction) -> Result<ExitCode, Failure> {
    let config = load_config(config, true)?.config;
    match action {
        GrantAction::Status => {
            let reply = glovebox_host::Host::remote_status(&glovebox_host::control::DisplayDir::default_root(), &glovebox_linux::display_name(config.backend))
                .map_err(|r| refused(r, true))?;
            println!("{reply}");
            Ok(ExitCode::SUCCESS)
        }
        GrantAction::Hold { window, scope } => {
            let host = glovebox::platform::open_host(&config).map_err(|r| refused(r, true))?;
            glovebox::platform::serve_indicator(&host);
            let window: Option<WindowRef> = window.map(|w| w.parse()).transpose().map_err(|r| refused(r, true))?;
            let scope = match scope {
                ScopeArg::Desktop => Scope::Desktop,
                ScopeArg::Window => Scope::Window,
            };
            let view = host.create_grant(Origin::User, scope, window.as_ref()).map_err(|r| refused(r, true))?;
            println!("{}", serde_json::to_string(&view).context("serialising the grant")?);
            let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = interrupted.clone();
            #[cfg(target_os = "linux")]
            let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst));
            while host.grant_status().is_some() && !interrupted.load(std::sync::atomic::Ordering::SeqCst) {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            host.revoke("the holder ended");
            eprintln!("grant ended");
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[derive(Args, Debug)]
pub struct IndicatorArgs {
    /// Also open the page with `xdg-open`.
    #[arg(long)]
    open: bool,
}

/// `glovebox indicator`: the indicator page of the process holding this
/// display's grant.
pub fn indicator(config: Option<PathBuf>, args: IndicatorArgs) -> Result<ExitCode, Failure> {
    let reply = glovebox_host::Host::remote_indicator(&glovebox_host::control::DisplayDir::default_root(), &glovebox::platform::display_name(config));
    let url = match reply {
        Ok(glovebox_host::control::ControlReply::Indicator { url }) => url,
        Ok(other) => {
            eprintln!("the process holding this display's grant serves no indicator ({other})");
            return Ok(glovebox::exit_status::Exit::Missing.into());
        }
        Err(r) => return Err(refused(r, false)),
    };
    println!("{url}");
    if args.open {
        std::process::Command::new("xdg-open").arg(&url).spawn().context("running xdg-open")?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn stop(config: Option<PathBuf>) -> Result<ExitCode, Failure> {
    let cooldown = std::time::Duration::from_secs(30);
    let reply = glovebox_host::Host::stop_display(&glovebox_host::control::DisplayDir::default_root(), &glovebox::platform::display_name(config), cooldown)
        .map_err(|r| refused(r, false))?;
    println!("{reply}");
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Only records of the last N seconds.
    #[arg(long)]
    since_secs: Option<u64>,
    #[arg(long)]
    json: bool,
}

pub fn audit(args: AuditArgs) -> Result<ExitCode, Failure> {
    let log = glovebox_host::audit::AuditLog::new(glovebox_host::audit::AuditLog::default_path());
    let since = args.since_secs.map(|s| glovebox_platform::now_ms().saturating_sub(s * 1000)).unwrap_or(0);
    let records = log.read(since).with_context(|| format!("reading {}", log.path().display()))?;
    for r in records {
        if args.json {
            println!("{}", serde_json::to_string(&r).context("serialising a record")?);
        } else {
            let code = r.code.map(|c| c.as_str().to_owned()).unwrap_or_default();
            let target = r.target.map(|t| t.to_string()).unwrap_or_default();
            println!(
                "{} {:<14} {:<10} {:<18} {:<9} {} {}",
                r.ts_ms,
                r.event,
                r.grant_id.unwrap_or_default(),
                target,
                r.action.unwrap_or_default(),
                code,
                r.detail.unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct ObserveArgs {
    /// Bind to this window first (pid/xid or pid/title).
    #[arg(long)]
    window: Option<String>,
    /// Also take a screenshot and write it here.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

/// One observation through the host, as an agent's first call would make it.
pub fn observe(config: Option<PathBuf>, args: ObserveArgs) -> Result<ExitCode, Failure> {
    let json = args.json;
    let config = load_config(config, json)?.config;
    let host = open_reader(&config).map_err(|r| refused(r, json))?;
    let window: Option<WindowRef> = args.window.map(|w| w.parse()).transpose().map_err(|r| refused(r, json))?;
    let seen = host.observe(window.as_ref(), args.screenshot.is_some()).map_err(|r| refused(r, json))?;
    if let (Some(path), Some(png)) = (&args.screenshot, &seen.screenshot) {
        write_atomically(path, png)?;
    }
    if json {
        let value = serde_json::json!({ "frame": seen.frame, "grant": seen.grant, "tree": seen.tree });
        println!("{}", serde_json::to_string_pretty(&value).context("serialising the observation")?);
    } else {
        println!(
            "frame {} · revision {} · grant {} ({:?}, budget {})",
            seen.frame.id, seen.frame.revision, seen.grant.grant_id, seen.grant.scope, seen.grant.budget_left
        );
        print!("{}", seen.tree.render_text());
    }
    host.revoke("one-shot observation done");
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Refuse and hide every input tool, whatever the configuration says.
    #[arg(long)]
    read_only: bool,
}

/// The MCP server of this configuration (not yet serving).
fn mcp_server(config: &glovebox_config::Config) -> glovebox_mcp::GloveboxServer {
    let screenshot_dir = config.mcp.screenshot_files.then(|| glovebox_host::control::DisplayDir::default_root().join("screenshots"));
    // A binding that cannot work (a provider without a model, say) is the
    // computer tool's refusal to give, with the reason; other tools serve on.
    let model = glovebox::binding::model_binding(&config.model).map_err(|e| e.to_refusal());
    let options = glovebox_mcp::Options { read_only: config.read_only, screenshot_dir, model };
    // A disabled host never touches the desktop; every tool answers its refusal.
    let host = glovebox::platform::open_host(config);
    if let Ok(host) = &host {
        glovebox::platform::serve_indicator(host);
    }
    glovebox_mcp::GloveboxServer::new(host, options)
}

/// `glovebox mcp`: the MCP server on stdio. Nothing but protocol goes to stdout.
pub fn mcp(config: Option<PathBuf>, args: McpArgs) -> Result<ExitCode, Failure> {
    let mut config = load_config(config, false)?.config;
    config.read_only |= args.read_only;
    glovebox_mcp::run_stdio(mcp_server(&config)).map_err(|e| Failure::from(anyhow::anyhow!(e)))?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (default: serve.port; 0 picks a free one).
    #[arg(long)]
    port: Option<u16>,
    /// Refuse and hide every input tool, whatever the configuration says.
    #[arg(long)]
    read_only: bool,
}

/// `glovebox serve`: streamable HTTP on loopback; prints the URL and token.
pub fn serve(config: Option<PathBuf>, args: ServeArgs) -> Result<ExitCode, Failure> {
    let mut config = load_config(config, false)?.config;
    config.read_only |= args.read_only;
    let token = if config.serve.token.is_empty() {
        glovebox_host::access::new_token().context("reading /dev/urandom for a token")?
    } else {
        config.serve.token.clone()
    };
    let port = args.port.unwrap_or(config.serve.port);
    let announce = |address: std::net::SocketAddr| {
        println!("{}", serde_json::json!({"url": format!("http://{address}/mcp"), "token": token}));
        let _ = std::io::Write::flush(&mut std::io::stdout());
    };
    // The OpenAI/Anthropic executors under /v1/ share the MCP server's host (one grant per display).
    let server = mcp_server(&config);
    let routes = std::sync::Arc::new(glovebox_mcp::wire_routes::WireRoutes::new(server.host()));
    glovebox_mcp::http::run_http_with(server, port, token.clone(), announce, Some(routes)).map_err(|e| Failure::from(anyhow::anyhow!(e)))?;
    Ok(ExitCode::SUCCESS)
}
