//! The MCP server: `mcp` on stdio, `serve` on loopback HTTP; and the
//! resident warm host, `host`. Each keeps its desktop warm for the
//! display's one-shot CLI calls (`ride.rs`).

use super::exit::Failure;
use super::load_config;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Refuse and hide every input tool, whatever the configuration says.
    #[arg(long)]
    read_only: bool,
}

/// What keeps a server's host warm for the CLI while it lives.
#[cfg(unix)]
type Warm = glovebox_services::warm::WarmService;
#[cfg(not(unix))]
type Warm = ();

/// The warm service one-shot commands ride while this server lives.
#[cfg(unix)]
fn keep_warm(host: &glovebox_host::Host, config: &glovebox_config::Config) -> Option<Warm> {
    match super::ride::keep_warm(host, config, super::ride::Role::McpServer) {
        Ok(service) => Some(service),
        Err(e) => {
            eprintln!("glovebox: one-shot commands will not ride this server: {e}");
            None
        }
    }
}

/// Where no warm service is built yet, one-shot commands open their own desktop.
#[cfg(not(unix))]
fn keep_warm(_host: &glovebox_host::Host, _config: &glovebox_config::Config) -> Option<Warm> {
    None
}

/// The MCP server of this configuration (not yet serving), and its warm
/// service for the display's one-shot CLI calls: it serves them once no
/// other host of the display does.
fn mcp_server(config: &glovebox_config::Config) -> (glovebox_mcp::GloveboxServer, Option<Warm>) {
    let screenshot_dir = config
        .mcp
        .screenshot_files
        .then(|| glovebox_services::control::DisplayDir::default_root().join("screenshots"));
    // A binding that cannot work (a provider without a model, say) is the
    // computer tool's refusal to give, with the reason; other tools serve on.
    let model = glovebox::binding::model_binding(&config.model).map_err(|e| e.to_refusal());
    let options = glovebox_mcp::Options { read_only: config.read_only, screenshot_dir, model };
    // A disabled host never touches the desktop; every tool answers its refusal.
    let host = glovebox::platform::open_host(config);
    let warm = host.as_ref().ok().and_then(|host| {
        glovebox::platform::serve_indicator(host);
        keep_warm(host, config)
    });
    (glovebox_mcp::GloveboxServer::new(host, options), warm)
}

/// `glovebox mcp`: the MCP server on stdio. Nothing but protocol goes to stdout.
pub fn mcp(config: Option<PathBuf>, args: McpArgs) -> Result<ExitCode, Failure> {
    let mut config = load_config(config, false)?.config;
    config.read_only |= args.read_only;
    let (server, _warm) = mcp_server(&config);
    glovebox_mcp::run_stdio(server).map_err(|e| Failure::from(anyhow::anyhow!(e)))?;
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
        glovebox_services::access::new_token().context("making the per-run token")?
    } else {
        config.serve.token.clone()
    };
    let port = args.port.unwrap_or(config.serve.port);
    let announce = |address: std::net::SocketAddr| {
        println!("{}", serde_json::json!({"url": format!("http://{address}/mcp"), "token": token}));
        let _ = std::io::Write::flush(&mut std::io::stdout());
    };
    // The OpenAI/Anthropic executors under /v1/ share the MCP server's host (one grant per display).
    let (server, _warm) = mcp_server(&config);
    let routes = std::sync::Arc::new(glovebox_mcp::wire_routes::WireRoutes::new(
        server.host(),
        glovebox_mcp::pending::Store::new(glovebox_mcp::pending::Store::default_dir()),
    ));
    glovebox_mcp::http::run_http_with(server, port, token.clone(), announce, Some(routes))
        .map_err(|e| Failure::from(anyhow::anyhow!(e)))?;
    Ok(ExitCode::SUCCESS)
}

/// `glovebox host`: the resident warm host. Serves the display's one-shot
/// CLI calls until Ctrl-C, SIGTERM or `glovebox stop`; one per display.
#[cfg(target_os = "linux")]
pub fn resident(config: Option<PathBuf>) -> Result<ExitCode, Failure> {
    use super::exit::refused;
    let config = load_config(config, false)?.config;
    let host = super::open_reader(&config).map_err(|r| refused(r, false))?;
    let (ended, end) = std::sync::mpsc::channel::<u32>();
    let on_signal = ended.clone();
    ctrlc::set_handler(move || {
        let _ = on_signal.send(0);
    })
    .context("handling Ctrl-C and SIGTERM")?;
    let role = super::ride::Role::Resident { ended };
    let service = super::ride::keep_warm(&host, &config, role).map_err(|r| refused(r, false))?;
    println!(
        "{}",
        serde_json::json!({ "pid": std::process::id(), "display": glovebox_desktop::display_name(config.backend) })
    );
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let by = end.recv().unwrap_or(0);
    drop(service);
    match by {
        0 => eprintln!("glovebox: the warm host ended"),
        pid => eprintln!("glovebox: the warm host ended: `glovebox stop` (pid {pid}) asked"),
    }
    Ok(ExitCode::SUCCESS)
}
