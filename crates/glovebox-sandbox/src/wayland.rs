//! A private headless Wayland desktop: sway with wlroots' headless
//! backend and pixman renderer (no GPU, no input devices), and a private
//! session bus on which the accessibility bus can be activated.
//!
//! sway refuses to run as root ("Unable to drop root"), so a sandbox
//! started as root runs the compositor as an unprivileged user (the
//! `GLOVEBOX_WAYLAND_USER` environment variable, else `glovebox-wayland`
//! when that account exists, else `nobody`) in a runtime directory that
//! user owns. Everything else — the bus, the applications, glovebox —
//! runs as the caller: root may open the compositor's socket, and the
//! applications share the caller's session bus. Windows float at the
//! size they ask for, as on a stacking desktop.

use crate::{
    announce_assistive_technology, end_group, require, start_bus, unique_runtime_dir, watchdog,
    Desktop, SandboxError, HEADLESS_TOOLKITS, PREPARED_TOOLKITS, READY_TIMEOUT,
};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// How to build the Wayland sandbox.
#[derive(Debug, Clone)]
pub struct WaylandOptions {
    pub width: u32,
    pub height: u32,
    /// The account the compositor runs as when the caller is root.
    pub user: Option<String>,
}

impl Default for WaylandOptions {
    fn default() -> Self {
        WaylandOptions {
            width: 1920,
            height: 1080,
            user: std::env::var("GLOVEBOX_WAYLAND_USER").ok().filter(|u| !u.is_empty()),
        }
    }
}

/// A running private Wayland desktop. Dropping it tears everything down.
#[derive(Debug)]
pub struct WaylandSandbox {
    /// The compositor's Wayland socket (absolute).
    socket: PathBuf,
    /// sway's IPC socket.
    ipc: PathBuf,
    bus_address: String,
    runtime_dir: PathBuf,
    compositor_dir: PathBuf,
    process_group: u32,
    children: Vec<Child>,
    watchdog: Option<(Child, ChildStdin)>,
}

/// `(uid, gid)` of account `name` in `/etc/passwd`.
fn account(name: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() >= 4 && fields[0] == name)
            .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
            .flatten()
    })
}

/// Who the compositor runs as: the caller unless the caller is root.
fn compositor_account(options: &WaylandOptions) -> Result<Option<(u32, u32)>, SandboxError> {
    if !rustix::process::getuid().is_root() {
        return Ok(None);
    }
    let named = |name: &str| {
        account(name).filter(|(uid, _)| *uid != 0).ok_or_else(|| SandboxError::NotReady {
            what: "sway",
            detail: format!("sway will not run as root, and there is no unprivileged account {name:?} to run it as (useradd --system {name})"),
        })
    };
    match &options.user {
        Some(name) => named(name).map(Some),
        None => named("glovebox-wayland").or_else(|_| named("nobody")).map(Some),
    }
}

impl WaylandSandbox {
    /// Starts the session bus and sway, and waits until both answer.
    pub fn start(options: WaylandOptions) -> Result<WaylandSandbox, SandboxError> {
        let sway = require("sway", "sway")?;
        require("dbus-daemon", "dbus-daemon")?;
        let account = compositor_account(&options)?;
        let runtime_dir = unique_runtime_dir()?;
        // The compositor's own runtime directory: owned by its account,
        // outside the caller's private one (which that account cannot enter).
        let compositor_dir = PathBuf::from(format!("{}-compositor", runtime_dir.display()));
        std::fs::DirBuilder::new().mode(0o700).create(&compositor_dir)?;
        let config = compositor_dir.join("config");
        std::fs::write(
            &config,
            format!(
                "output HEADLESS-1 resolution {}x{} position 0 0\nxwayland disable\ndefault_border none\ndefault_floating_border none\nfor_window [shell=\"xdg_shell\"] floating enable\n",
                options.width, options.height
            ),
        )?;
        if let Some((uid, gid)) = account {
            std::os::unix::fs::chown(&compositor_dir, Some(uid), Some(gid))?;
            std::os::unix::fs::chown(&config, Some(uid), Some(gid))?;
        }
        let mut command = Command::new(&sway);
        command
            .arg("-c")
            .arg(&config)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &compositor_dir)
            .env("XDG_RUNTIME_DIR", &compositor_dir)
            .env("WLR_BACKENDS", "headless")
            .env("WLR_RENDERER", "pixman")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(runtime_dir.join("sway.log"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .process_group(0);
        if let Some((uid, gid)) = account {
            command.uid(uid).gid(gid);
        }
        let compositor =
            command.spawn().map_err(|source| SandboxError::Spawn { program: "sway", source })?;
        let process_group = compositor.id();
        let mut sandbox = WaylandSandbox {
            socket: PathBuf::new(),
            ipc: PathBuf::new(),
            bus_address: String::new(),
            runtime_dir,
            compositor_dir,
            process_group,
            children: vec![compositor],
            watchdog: None,
        };
        sandbox.watchdog =
            Some(watchdog(process_group, &[&sandbox.runtime_dir, &sandbox.compositor_dir])?);
        sandbox.wait_for_compositor()?;
        let (bus, address) = start_bus(&sandbox.runtime_dir, process_group, sandbox.env())?;
        sandbox.children.push(bus);
        sandbox.bus_address = address;
        announce_assistive_technology(sandbox.command("dbus-send"));
        Ok(sandbox)
    }

    fn wait_for_compositor(&mut self) -> Result<(), SandboxError> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            let names: Vec<PathBuf> = std::fs::read_dir(&self.compositor_dir)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect();
            let named = |test: &dyn Fn(&str) -> bool| {
                names
                    .iter()
                    .find(|p| {
                        p.file_name().and_then(|n| n.to_str()).is_some_and(test)
                            && UnixStream::connect(p).is_ok()
                    })
                    .cloned()
            };
            let socket = named(&|n| n.starts_with("wayland-") && !n.ends_with(".lock"));
            let ipc = named(&|n| n.starts_with("sway-ipc.") && n.ends_with(".sock"));
            if let (Some(socket), Some(ipc)) = (socket, ipc) {
                self.socket = socket;
                self.ipc = ipc;
                return Ok(());
            }
            if let Ok(Some(status)) = self.children[0].try_wait() {
                let log =
                    std::fs::read_to_string(self.runtime_dir.join("sway.log")).unwrap_or_default();
                let last: Vec<&str> = log.lines().rev().take(3).collect();
                return Err(SandboxError::NotReady {
                    what: "sway",
                    detail: format!("it exited ({status}): {}", last.join(" | ")),
                });
            }
            if Instant::now() > deadline {
                return Err(SandboxError::NotReady {
                    what: "sway",
                    detail: "no Wayland and IPC sockets".into(),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[cfg(feature = "fixtures")]
    /// One Wayland desktop per process, started on first use, and this
    /// test's turn on it (tests that watch focus and stacking must not
    /// overlap). Torn down by the watchdog when the process exits.
    pub fn shared_turn() -> (&'static WaylandSandbox, std::sync::MutexGuard<'static, ()>) {
        static SHARED: std::sync::OnceLock<WaylandSandbox> = std::sync::OnceLock::new();
        static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
        let sandbox = SHARED.get_or_init(|| {
            WaylandSandbox::start(WaylandOptions::default())
                .unwrap_or_else(|e| panic!("Wayland sandbox desktop: {e}"))
        });
        (sandbox, turn)
    }

    /// The compositor's Wayland socket, an absolute `WAYLAND_DISPLAY`.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// sway's IPC socket (`SWAYSOCK`).
    pub fn ipc(&self) -> &Path {
        &self.ipc
    }

    pub fn bus_address(&self) -> &str {
        &self.bus_address
    }

    /// The compositor's process id.
    pub fn compositor_pid(&self) -> u32 {
        self.children[0].id()
    }

    /// The environment a program needs to run inside this desktop as a
    /// native Wayland client, with renderers that work without a GPU.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("WAYLAND_DISPLAY", self.socket.to_str().unwrap_or_default()),
            ("SWAYSOCK", self.ipc.to_str().unwrap_or_default()),
            ("DBUS_SESSION_BUS_ADDRESS", self.bus_address.as_str()),
            ("XDG_RUNTIME_DIR", self.runtime_dir.to_str().unwrap_or("/tmp")),
            ("XDG_SESSION_TYPE", "wayland"),
            ("GDK_BACKEND", "wayland"),
            ("QT_QPA_PLATFORM", "wayland"),
        ]
        .into_iter()
        .chain(HEADLESS_TOOLKITS.iter().copied())
        .chain(PREPARED_TOOLKITS.iter().copied())
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    /// A command that runs inside this desktop and is ended with it.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_remove("DISPLAY").envs(self.env()).process_group(self.process_group as i32);
        command
    }

    /// A command inside this desktop that stays in the caller's process
    /// group, so the terminal's Ctrl-C reaches it.
    pub fn foreground_command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_remove("DISPLAY").envs(self.env());
        command
    }

    /// Runs one sway command through its IPC (`swaymsg`), e.g. to place a window.
    pub fn swaymsg(&self, args: &[&str]) -> Result<String, SandboxError> {
        let output =
            self.command(require("swaymsg", "sway")?).args(args).stdin(Stdio::null()).output()?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            return Err(SandboxError::NotReady {
                what: "swaymsg",
                detail: format!("{text}{}", String::from_utf8_lossy(&output.stderr)),
            });
        }
        Ok(text)
    }

    pub fn shutdown(mut self) {
        self.teardown();
    }

    fn teardown(&mut self) {
        end_group(self.process_group, &mut self.children, self.watchdog.take());
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
        let _ = std::fs::remove_dir_all(&self.compositor_dir);
    }
}

impl Desktop for WaylandSandbox {
    fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }
    fn command(&self, program: &std::ffi::OsStr) -> Command {
        WaylandSandbox::command(self, program)
    }
}

impl Drop for WaylandSandbox {
    fn drop(&mut self) {
        self.teardown();
    }
}
