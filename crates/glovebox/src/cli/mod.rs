//! The `glovebox` command line: one file per group of commands, each given
//! the configuration file named by `--config`. Library crates decide and
//! refuse; this binary parses arguments, picks the platform backend, prints,
//! and maps refusals to exit statuses (`exit.rs`).

mod desktop;
#[cfg(target_os = "linux")]
mod episode;
mod exit;
mod grant;
mod mcp_config;
mod pending;
#[cfg(target_os = "linux")]
mod replay;
mod ride;
#[cfg(target_os = "linux")]
mod run;
#[cfg(target_os = "linux")]
mod sandbox;
mod serve;
mod setup;
#[cfg(target_os = "linux")]
mod setup_accessibility;
#[cfg(target_os = "linux")]
mod setup_compositor;
#[cfg(target_os = "linux")]
mod setup_guided;
mod terminal;

use clap::{CommandFactory, Parser, Subcommand};
use exit::{refused, Failure};
use glovebox_config::{Layered, Sources};
use glovebox_model::Refusal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "glovebox", version, about = "A native computer-use host for AI agents")]
struct Cli {
    /// An extra configuration file layered over the user and project files.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the desktop's windows, frontmost first, 30 per page.
    Windows(desktop::WindowsArgs),
    /// Capture a window or displays to a PNG and print the frame record.
    Screenshot(desktop::ScreenshotArgs),
    /// Observe through the host: grant, denials, frame, tree (and screenshot).
    Observe(desktop::ObserveArgs),
    /// Create or query grants.
    Grant {
        #[command(subcommand)]
        action: grant::GrantAction,
    },
    /// Revoke this display's grant from any terminal; agent grants are refused for 30 s.
    Stop,
    /// Print the URL of the indicator page (what the agent holds, and Stop) of this display's grant holder.
    Indicator(grant::IndicatorArgs),
    /// Read the audit trail.
    Audit(grant::AuditArgs),
    /// Read a window's accessibility tree (compact text, or JSON).
    Inspect(desktop::InspectArgs),
    /// Print the JSON schema of an output: window-page, frame, accessibility-tree, error, episode or episode-record.
    Schema {
        #[arg(value_enum)]
        output: setup::SchemaOutput,
    },
    /// Check what this environment offers glovebox.
    Doctor {
        #[arg(long)]
        json: bool,
    },
    /// Set glovebox up on this desktop, step by step: computer use on, the desktop checked,
    /// accessibility for later apps, the MCP clients you pick; each change shown and asked first.
    #[cfg(target_os = "linux")]
    #[command(args_conflicts_with_subcommands = true)]
    Setup {
        #[command(subcommand)]
        what: Option<setup_accessibility::SetupWhat>,
        #[command(flatten)]
        guided: setup_guided::GuidedArgs,
    },
    /// Run a private headless desktop (Xvfb, session bus, openbox), printing
    /// its environment or running a command inside it.
    #[cfg(target_os = "linux")]
    Sandbox(sandbox::SandboxArgs),
    /// Keep a warm host on this desktop that one-shot commands (windows, screenshot, inspect,
    /// observe) ride, until Ctrl-C, SIGTERM or `glovebox stop`.
    #[cfg(target_os = "linux")]
    Host,
    /// Serve the MCP tools over stdin/stdout (for Claude Code, Cursor, VS Code, …).
    Mcp(serve::McpArgs),
    /// Print the entry an MCP client (claude-code, cursor, vscode, codex) needs to start glovebox, or add it with --write.
    McpConfig(mcp_config::McpConfigArgs),
    /// Serve the MCP tools over streamable HTTP on 127.0.0.1, behind a bearer token.
    Serve(serve::ServeArgs),
    /// Native calls waiting for your answer (glovebox serve with "park": true); approve or decline one.
    Pending(pending::PendingArgs),
    /// Run an instruction with the bound model: a bounded observe → decide → act loop, with a summary and an HTML report.
    #[cfg(target_os = "linux")]
    Run(run::RunArgs),
    /// Desktop episodes for evaluating agents: one in a fresh desktop, or a directory of them in parallel.
    #[cfg(target_os = "linux")]
    Episode {
        #[command(subcommand)]
        action: episode::EpisodeAction,
    },
    /// The recordings of delivered actions that `glovebox replay` can run again.
    #[cfg(target_os = "linux")]
    Trajectories(replay::TrajectoriesArgs),
    /// Run a recording again with no model, through the same gate, stopping at the first divergence.
    #[cfg(target_os = "linux")]
    Replay(replay::ReplayArgs),
    /// Read or change the configuration.
    Config {
        #[command(subcommand)]
        action: setup::ConfigAction,
    },
    /// Print the shell completion script for bash, zsh, fish, elvish or powershell.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (glovebox.1 and one per command) into a directory.
    Man {
        /// Where the pages go; created when missing.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Parses the command line and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Windows(args) => desktop::windows(cli.config, args),
        Command::Screenshot(args) => desktop::screenshot(cli.config, args),
        Command::Inspect(args) => desktop::inspect(cli.config, args),
        Command::Observe(args) => desktop::observe(cli.config, args),
        Command::Grant { action } => grant::grant(cli.config, action),
        Command::Stop => grant::stop(cli.config),
        Command::Indicator(args) => grant::indicator(cli.config, args),
        Command::Audit(args) => grant::audit(args),
        Command::Schema { output } => setup::schema(output),
        Command::Doctor { json } => setup::doctor(cli.config, json),
        #[cfg(target_os = "linux")]
        Command::Setup { what: Some(what), .. } => setup_accessibility::setup(what),
        #[cfg(target_os = "linux")]
        Command::Setup { what: None, guided } => setup_guided::guided(cli.config, guided),
        #[cfg(target_os = "linux")]
        Command::Sandbox(args) => sandbox::run(args),
        Command::Config { action } => setup::config(cli.config, action),
        #[cfg(target_os = "linux")]
        Command::Host => serve::resident(cli.config),
        Command::Mcp(args) => serve::mcp(cli.config, args),
        Command::McpConfig(args) => mcp_config::mcp_config(args),
        Command::Serve(args) => serve::serve(cli.config, args),
        Command::Pending(args) => pending::pending(args),
        #[cfg(target_os = "linux")]
        Command::Run(args) => run::run(cli.config, args),
        #[cfg(target_os = "linux")]
        Command::Episode { action } => episode::episode(cli.config, action),
        #[cfg(target_os = "linux")]
        Command::Trajectories(args) => replay::trajectories(args),
        #[cfg(target_os = "linux")]
        Command::Replay(args) => replay::replay(cli.config, args),
        Command::Completions { shell } => setup::completions(Cli::command(), shell),
        Command::Man { dir } => setup::man(Cli::command(), &dir),
    };
    match result {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}

/// The host for a one-shot read by the person at the terminal: its
/// observe-class prompts (`approval.observe = prompt`) ask on the terminal.
fn open_reader(config: &glovebox_config::Config) -> Result<glovebox_host::Host, Refusal> {
    // A one-shot read draws no cursor: nothing stays to show it on.
    let config = glovebox_config::Config { overlay: false, ..config.clone() };
    glovebox::platform::open_host(&config)
        .map(|host| host.with_channel(std::sync::Arc::new(terminal::Terminal::default())))
}

fn load_config(explicit: Option<PathBuf>, json: bool) -> Result<Layered, Failure> {
    Layered::load(&Sources::standard(explicit)).map_err(|e| refused(e.into(), json))
}
