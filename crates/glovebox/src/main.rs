//! The `glovebox` command line: window listing, screenshots, the sandbox
//! desktop, doctor and configuration. Library crates decide and refuse; this
//! binary parses arguments, picks the platform backend, prints and maps
//! refusals to exit codes.

mod commands;
mod exit;
#[cfg(target_os = "linux")]
mod run_cmd;
#[cfg(target_os = "linux")]
mod sandbox_cmd;
mod terminal;

use clap::{Parser, Subcommand};
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
    Windows(commands::WindowsArgs),
    /// Capture a window or displays to a PNG and print the frame record.
    Screenshot(commands::ScreenshotArgs),
    /// Observe through the host: grant, denials, frame, tree (and screenshot).
    Observe(commands::ObserveArgs),
    /// Create or query grants.
    Grant {
        #[command(subcommand)]
        action: commands::GrantAction,
    },
    /// Revoke this display's grant from any terminal; agent grants are refused for 30 s.
    Stop,
    /// Print the URL of the indicator page (what the agent holds, and Stop) of this display's grant holder.
    Indicator(commands::IndicatorArgs),
    /// Read the audit trail.
    Audit(commands::AuditArgs),
    /// Read a window's accessibility tree (compact text, or JSON).
    Inspect(commands::InspectArgs),
    /// Print the JSON schema of an output: window-page, frame, accessibility-tree or error.
    Schema {
        #[arg(value_enum)]
        output: commands::SchemaOutput,
    },
    /// Check what this environment offers glovebox.
    Doctor {
        #[arg(long)]
        json: bool,
    },
    /// Run a private headless desktop (Xvfb, session bus, openbox), printing
    /// its environment or running a command inside it.
    #[cfg(target_os = "linux")]
    Sandbox(sandbox_cmd::SandboxArgs),
    /// Serve the MCP tools over stdin/stdout (for Claude Code, Cursor, VS Code, …).
    Mcp(commands::McpArgs),
    /// Serve the MCP tools over streamable HTTP on 127.0.0.1, behind a bearer token.
    Serve(commands::ServeArgs),
    /// Run an instruction with the bound model: a bounded observe → decide → act loop, with a summary and an HTML report.
    #[cfg(target_os = "linux")]
    Run(run_cmd::RunArgs),
    /// Read or change the configuration.
    Config {
        #[command(subcommand)]
        action: commands::ConfigAction,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Windows(args) => commands::windows(cli.config, args),
        Command::Screenshot(args) => commands::screenshot(cli.config, args),
        Command::Inspect(args) => commands::inspect(cli.config, args),
        Command::Observe(args) => commands::observe(cli.config, args),
        Command::Grant { action } => commands::grant(cli.config, action),
        Command::Stop => commands::stop(cli.config),
        Command::Indicator(args) => commands::indicator(cli.config, args),
        Command::Audit(args) => commands::audit(args),
        Command::Schema { output } => commands::schema(output),
        Command::Doctor { json } => commands::doctor(cli.config, json),
        #[cfg(target_os = "linux")]
        Command::Sandbox(args) => sandbox_cmd::run(args),
        Command::Config { action } => commands::config(cli.config, action),
        Command::Mcp(args) => commands::mcp(cli.config, args),
        Command::Serve(args) => commands::serve(cli.config, args),
        #[cfg(target_os = "linux")]
        Command::Run(args) => run_cmd::run(cli.config, args),
    };
    match result {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}
