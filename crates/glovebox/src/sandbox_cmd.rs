//! `glovebox sandbox`: a private headless desktop for trying glovebox and
//! for tests, never the user's real session.

use crate::exit::{refused, Failure};
use clap::Args;
use glovebox_model::Refusal;
use glovebox_sandbox::{Sandbox, SandboxOptions};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct SandboxArgs {
    #[arg(long, default_value_t = 1920)]
    width: u32,
    #[arg(long, default_value_t = 1080)]
    height: u32,
    /// Start without a window manager.
    #[arg(long)]
    no_wm: bool,
    /// Command to run inside the desktop; the desktop ends when it exits.
    #[arg(last = true)]
    command: Vec<String>,
}

fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

pub fn run(args: SandboxArgs) -> Result<ExitCode, Failure> {
    if !(64..=16384).contains(&args.width) || !(64..=16384).contains(&args.height) {
        return Err(refused(Refusal::invalid_argument("sandbox width and height must lie in 64..=16384"), false));
    }
    let (stop_tx, stop_rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = stop_tx.send(());
    })
    .map_err(|e| anyhow::anyhow!("installing the Ctrl-C handler: {e}"))?;
    let options = SandboxOptions { width: args.width, height: args.height, window_manager: !args.no_wm };
    let sandbox = Sandbox::start(options).map_err(|e| refused(Refusal::backend_unavailable(format!("sandbox: {e}")), false))?;

    let Some((program, rest)) = args.command.split_first() else {
        for (key, value) in sandbox.env() {
            println!("export {key}={}", shell_quote(&value));
        }
        eprintln!("glovebox sandbox: desktop {} is up; Ctrl-C ends it", sandbox.display());
        let _ = stop_rx.recv();
        sandbox.shutdown();
        return Ok(ExitCode::SUCCESS);
    };

    let mut child = sandbox
        .foreground_command(program)
        .args(rest)
        .spawn()
        .map_err(|e| refused(Refusal::invalid_argument(format!("cannot run {program:?}: {e}")), false))?;
    let mut interrupted_at: Option<Instant> = None;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| anyhow::anyhow!("waiting for {program}: {e}"))? {
            break Some(status);
        }
        if stop_rx.try_recv().is_ok() && interrupted_at.is_none() {
            interrupted_at = Some(Instant::now());
        }
        // The terminal's Ctrl-C reached the command too; give it time to end.
        if interrupted_at.is_some_and(|t| t.elapsed() > Duration::from_secs(5)) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    sandbox.shutdown();
    Ok(match status.and_then(|s| s.code()) {
        Some(code) => ExitCode::from(code.clamp(0, 255) as u8),
        None => ExitCode::from(130),
    })
}
