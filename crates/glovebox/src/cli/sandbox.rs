//! `glovebox sandbox`: a private headless desktop (X11, or Wayland with
//! `--wayland`) for trying glovebox and for tests, never the user's real
//! session.

use super::exit::{refused, Failure};
use clap::Args;
use glovebox_model::Refusal;
use glovebox_sandbox::gnome::{GnomeOptions, GnomeSandbox};
use glovebox_sandbox::kde::{KdeOptions, KdeSandbox};
use glovebox_sandbox::wayland::{WaylandOptions, WaylandSandbox};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use std::process::Command;
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
    /// A Wayland desktop (headless sway) instead of X11: its applications
    /// are native Wayland clients, and glovebox inside it uses the Wayland
    /// backend (semantic input only). The same as `--desktop sway`.
    #[arg(long, conflicts_with_all = ["no_wm", "monitors", "desktop"])]
    wayland: bool,
    /// Which desktop: `x11` (Xvfb and openbox), `sway` (headless sway on
    /// Wayland), `kde` (KDE Plasma's KWin on Wayland with XWayland; this
    /// glovebox may take screenshots there, as the installed package
    /// allows on a real Plasma desktop) or `gnome` (GNOME Shell on Wayland
    /// with XWayland and glovebox's extension answering this glovebox, as
    /// `glovebox setup gnome-extension` sets up a real GNOME desktop).
    #[arg(long, value_enum, default_value_t = DesktopChoice::X11, conflicts_with = "monitors")]
    desktop: DesktopChoice,
    /// Simulate a display (RandR monitor) `WxH+X+Y`; repeat for several. The
    /// first one is primary.
    #[arg(long = "monitor", value_name = "WxH+X+Y")]
    monitors: Vec<String>,
    /// Command to run inside the desktop; the desktop ends when it exits.
    #[arg(last = true)]
    command: Vec<String>,
}

/// The private desktops `glovebox sandbox` runs.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DesktopChoice {
    X11,
    Sway,
    Kde,
    Gnome,
}

/// Parses `WxH+X+Y` into a monitor named `DISPLAY-<index>`.
fn parse_monitor(index: usize, text: &str) -> Result<glovebox_sandbox::MonitorSpec, Refusal> {
    let bad = || {
        Refusal::invalid_argument(format!("monitor {text:?} is not WxH+X+Y (e.g. 1280x800+1280+0)"))
    };
    let (size, position) = text.split_once('+').ok_or_else(bad)?;
    let (width, height) = size.split_once('x').ok_or_else(bad)?;
    let (x, y) = position.split_once('+').ok_or_else(bad)?;
    let number = |s: &str| s.trim().parse::<u16>().map_err(|_| bad());
    let (width, height, x, y) = (number(width)?, number(height)?, number(x)?, number(y)?);
    if width == 0 || height == 0 || x > i16::MAX as u16 || y > i16::MAX as u16 {
        return Err(bad());
    }
    Ok(glovebox_sandbox::MonitorSpec {
        name: format!("DISPLAY-{index}"),
        x: x as i16,
        y: y as i16,
        width,
        height,
        primary: index == 0,
    })
}

/// The desktop this command started.
/// A private desktop of either kind, as `glovebox sandbox` and an episode run one.
pub(super) enum Running {
    X11(Sandbox),
    Wayland(WaylandSandbox),
    Kde(KdeSandbox),
    Gnome(GnomeSandbox),
}

impl Running {
    /// `program` to run inside the desktop, in its process group (ending with it).
    pub(super) fn command(&self, program: &std::path::Path) -> Command {
        match self {
            Running::X11(s) => s.command(program),
            Running::Wayland(s) => s.command(program),
            Running::Kde(s) => s.command(program),
            Running::Gnome(s) => s.command(program),
        }
    }

    fn env(&self) -> Vec<(String, String)> {
        match self {
            Running::X11(s) => s.env(),
            Running::Wayland(s) => s.env(),
            Running::Kde(s) => s.env(),
            Running::Gnome(s) => s.env(),
        }
    }

    fn foreground_command(&self, program: &str) -> Command {
        match self {
            Running::X11(s) => s.foreground_command(program),
            Running::Wayland(s) => s.foreground_command(program),
            Running::Kde(s) => s.foreground_command(program),
            Running::Gnome(s) => s.foreground_command(program),
        }
    }

    fn describe(&self) -> String {
        match self {
            Running::X11(s) => format!("desktop {}", s.display()),
            Running::Wayland(s) => format!(
                "Wayland desktop {} (sway, pid {})",
                s.socket().display(),
                s.compositor_pid()
            ),
            Running::Kde(s) => format!(
                "KDE Plasma desktop {} (KWin, pid {}; XWayland {})",
                s.socket().display(),
                s.compositor_pid(),
                s.x_display()
            ),
            Running::Gnome(s) => format!(
                "GNOME desktop {} (GNOME Shell, pid {}; XWayland {})",
                s.socket().display(),
                s.compositor_pid(),
                s.x_display()
            ),
        }
    }

    pub(super) fn shutdown(self) {
        match self {
            Running::X11(s) => s.shutdown(),
            Running::Wayland(s) => s.shutdown(),
            Running::Kde(s) => s.shutdown(),
            Running::Gnome(s) => s.shutdown(),
        }
    }
}

fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

pub fn run(args: SandboxArgs) -> Result<ExitCode, Failure> {
    if !(64..=16384).contains(&args.width) || !(64..=16384).contains(&args.height) {
        return Err(refused(
            Refusal::invalid_argument("sandbox width and height must lie in 64..=16384"),
            false,
        ));
    }
    let monitors: Vec<_> = args
        .monitors
        .iter()
        .enumerate()
        .map(|(i, m)| parse_monitor(i, m))
        .collect::<Result<_, _>>()
        .map_err(|r| refused(r, false))?;
    let desktop = if args.wayland { DesktopChoice::Sway } else { args.desktop };
    if args.no_wm && desktop != DesktopChoice::X11 {
        return Err(refused(
            Refusal::invalid_argument(
                "--no-wm is for the X11 desktop; a Wayland compositor is its window manager",
            ),
            false,
        ));
    }
    let (stop_tx, stop_rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = stop_tx.send(());
    })
    .map_err(|e| anyhow::anyhow!("installing the Ctrl-C handler: {e}"))?;
    let unavailable = |e: glovebox_sandbox::SandboxError| {
        refused(Refusal::backend_unavailable(format!("sandbox: {e}")), false)
    };
    // Drawn only on a terminal: indicatif hides itself when stderr is a pipe.
    let starting = indicatif::ProgressBar::new_spinner()
        .with_finish(indicatif::ProgressFinish::AndClear)
        .with_message(match desktop {
            DesktopChoice::Sway => "starting a private Wayland desktop (sway, session bus, accessibility bus)…",
            DesktopChoice::Kde => "starting a private KDE Plasma desktop (KWin, XWayland, session bus, accessibility bus)…",
            DesktopChoice::Gnome => "starting a private GNOME desktop (GNOME Shell, XWayland, session and system buses, accessibility bus)…",
            DesktopChoice::X11 => "starting a private desktop (Xvfb, session bus, accessibility bus, openbox)…",
        });
    starting.enable_steady_tick(Duration::from_millis(120));
    let sandbox = if desktop == DesktopChoice::Gnome {
        let me = std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("finding this program's path: {e}"))?;
        Running::Gnome(
            GnomeSandbox::start(GnomeOptions {
                width: args.width,
                height: args.height,
                extensions: vec![glovebox_linux::wayland::gnome_sandbox_extension(&[&me])],
            })
            .map_err(unavailable)?,
        )
    } else if desktop == DesktopChoice::Kde {
        let me = std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("finding this program's path: {e}"))?;
        Running::Kde(
            KdeSandbox::start(KdeOptions {
                width: args.width,
                height: args.height,
                screenshot_programs: vec![me],
            })
            .map_err(unavailable)?,
        )
    } else if desktop == DesktopChoice::Sway {
        Running::Wayland(
            WaylandSandbox::start(WaylandOptions {
                width: args.width,
                height: args.height,
                ..Default::default()
            })
            .map_err(unavailable)?,
        )
    } else {
        let sandbox = Sandbox::start(SandboxOptions {
            width: args.width,
            height: args.height,
            window_manager: !args.no_wm,
            ..SandboxOptions::default()
        })
        .map_err(unavailable)?;
        if !monitors.is_empty() {
            sandbox.set_monitors(&monitors).map_err(|e| {
                refused(Refusal::backend_unavailable(format!("sandbox monitors: {e}")), false)
            })?;
        }
        Running::X11(sandbox)
    };
    starting.finish_and_clear();

    // The desktop's XDG_CONFIG_HOME is its own; a glovebox run in it keeps the person's configuration.
    let kept = glovebox_config::user_config_dir()
        .map(|dir| (glovebox_config::CONFIG_HOME_ENV.to_owned(), dir.display().to_string()));
    let Some((program, rest)) = args.command.split_first() else {
        for (key, value) in sandbox.env().into_iter().chain(kept) {
            println!("export {key}={}", shell_quote(&value));
        }
        eprintln!("glovebox sandbox: {} is up; Ctrl-C ends it", sandbox.describe());
        let _ = stop_rx.recv();
        sandbox.shutdown();
        return Ok(ExitCode::SUCCESS);
    };

    let mut child =
        sandbox.foreground_command(program).args(rest).envs(kept).spawn().map_err(|e| {
            refused(Refusal::invalid_argument(format!("cannot run {program:?}: {e}")), false)
        })?;
    let mut interrupted_at: Option<Instant> = None;
    let status = loop {
        if let Some(status) =
            child.try_wait().map_err(|e| anyhow::anyhow!("waiting for {program}: {e}"))?
        {
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
