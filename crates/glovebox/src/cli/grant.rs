//! The grant from the terminal: `grant hold|status`, `stop`, `indicator`,
//! `audit`.

use super::exit::{refused, Failure};
use super::load_config;
use anyhow::Context;
use clap::{Args, Subcommand};
use glovebox_model::{Origin, Scope, WindowRef};
use std::path::PathBuf;
use std::process::ExitCode;

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
            let reply = glovebox_host::Host::remote_status(
                &glovebox_services::control::DisplayDir::default_root(),
                &glovebox_desktop::display_name(config.backend),
            )
            .map_err(|r| refused(r, true))?;
            println!("{reply}");
            Ok(ExitCode::SUCCESS)
        }
        GrantAction::Hold { window, scope } => {
            let host = glovebox::platform::open_host(&config).map_err(|r| refused(r, true))?;
            glovebox::platform::serve_indicator(&host);
            let window: Option<WindowRef> =
                window.map(|w| w.parse()).transpose().map_err(|r| refused(r, true))?;
            let scope = match scope {
                ScopeArg::Desktop => Scope::Desktop,
                ScopeArg::Window => Scope::Window,
            };
            let view = host
                .create_grant(Origin::User, scope, window.as_ref())
                .map_err(|r| refused(r, true))?;
            println!("{}", serde_json::to_string(&view).context("serialising the grant")?);
            let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let flag = interrupted.clone();
            let _ =
                ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::SeqCst));
            while host.grant_status().is_some()
                && !interrupted.load(std::sync::atomic::Ordering::SeqCst)
            {
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
    let reply = glovebox_host::Host::remote_indicator(
        &glovebox_services::control::DisplayDir::default_root(),
        &glovebox::platform::display_name(config),
    );
    let url = match reply {
        Ok(glovebox_services::control::ControlReply::Indicator { url }) => url,
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
    let reply = glovebox_host::Host::stop_display(
        &glovebox_services::control::DisplayDir::default_root(),
        &glovebox::platform::display_name(config.clone()),
        cooldown,
    )
    .map_err(|r| refused(r, false))?;
    println!("{reply}");
    // Stop ends everything: the resident warm host too (an MCP server's ends with its client).
    let config = glovebox_config::Layered::load(&glovebox_config::Sources::standard(config))
        .map(|l| l.config)
        .unwrap_or_default();
    if let Some(ended) = super::ride::end_resident(&config) {
        println!("{ended}");
    }
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
    let log =
        glovebox_services::audit::AuditLog::new(glovebox_services::audit::AuditLog::default_path());
    let since =
        args.since_secs.map(|s| glovebox_platform::now_ms().saturating_sub(s * 1000)).unwrap_or(0);
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
