//! A private headless GNOME desktop: GNOME Shell 43 (Mutter) as a
//! headless Wayland compositor with a virtual monitor at 10 Hz (a quarter
//! of a core, where 60 Hz took more than one), XWayland, a private
//! session bus, and a stand-in system bus (GNOME Shell will not start
//! without one when the machine has systemd's seat directory).
//!
//! GNOME Shell reads its settings (dconf), extensions and caches from the
//! desktop's own home, never the person's. The caller names extensions
//! to install and enable (glovebox's own, with the programs it answers);
//! a sandbox-only extension leaves the overview a session starts in (no
//! keyboard here to press Escape) and reports XWayland's display.

use crate::{
    announce_assistive_technology, end_group, require, start_bus, start_bus_at, unique_runtime_dir,
    watchdog, Desktop, SandboxError, HEADLESS_TOOLKITS, PREPARED_TOOLKITS,
};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// GNOME Shell with software rendering takes a while to come up.
const SHELL_READY: Duration = Duration::from_secs(60);

/// A GNOME Shell extension to install and enable: its UUID and files.
#[derive(Debug, Clone)]
pub struct ShellExtension {
    pub uuid: String,
    pub files: Vec<(String, String)>,
}

/// The sandbox's own extension (see the module's doc).
fn sandbox_extension() -> ShellExtension {
    ShellExtension {
        uuid: "glovebox-sandbox@glovebox.dev".into(),
        files: vec![
            (
                "metadata.json".into(),
                include_str!("../gnome-sandbox-extension/metadata.json").into(),
            ),
            ("extension.js".into(), include_str!("../gnome-sandbox-extension/extension.js").into()),
        ],
    }
}

/// How to build the GNOME sandbox.
#[derive(Debug, Clone)]
pub struct GnomeOptions {
    pub width: u32,
    pub height: u32,
    pub extensions: Vec<ShellExtension>,
}

impl Default for GnomeOptions {
    fn default() -> Self {
        GnomeOptions { width: 1280, height: 800, extensions: vec![] }
    }
}

/// A running private GNOME desktop. Dropping it tears everything down.
#[derive(Debug)]
pub struct GnomeSandbox {
    socket: PathBuf,
    x_display: String,
    /// XWayland's cookie file (Mutter makes one per session).
    x_authority: String,
    bus_address: String,
    runtime_dir: PathBuf,
    home: PathBuf,
    process_group: u32,
    shell_pid: u32,
    children: Vec<Child>,
    watchdog: Option<(Child, ChildStdin)>,
}

impl GnomeSandbox {
    /// Starts the buses, settles the settings, starts GNOME Shell and
    /// waits until its Wayland socket answers and the sandbox extension
    /// has reported XWayland's display.
    pub fn start(options: GnomeOptions) -> Result<GnomeSandbox, SandboxError> {
        let shell = require("gnome-shell", "gnome-shell")?;
        require("Xwayland", "xwayland")?;
        let gsettings = require("gsettings", "libglib2.0-bin")?;
        let runtime_dir = unique_runtime_dir()?;
        let home = runtime_dir.join("home");
        let extensions_dir = home.join(".local/share/gnome-shell/extensions");
        let mut extensions = options.extensions.clone();
        extensions.push(sandbox_extension());
        for extension in &extensions {
            let dir = extensions_dir.join(&extension.uuid);
            std::fs::create_dir_all(&dir)?;
            for (name, text) in &extension.files {
                std::fs::write(dir.join(name), text)?;
            }
        }
        let desktop_env: Vec<(String, String)> = [
            ("HOME", home.display().to_string()),
            ("XDG_RUNTIME_DIR", runtime_dir.display().to_string()),
            ("XDG_CONFIG_HOME", home.join(".config").display().to_string()),
            ("XDG_DATA_HOME", home.join(".local/share").display().to_string()),
            ("XDG_CACHE_HOME", home.join(".cache").display().to_string()),
            ("WAYLAND_DISPLAY", runtime_dir.join("wayland-glovebox").display().to_string()),
            ("DISPLAY", String::new()),
            ("XDG_SESSION_TYPE", "wayland".into()),
            ("XDG_CURRENT_DESKTOP", "GNOME".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let (bus, bus_address) = start_bus(&runtime_dir, 0, desktop_env.clone())?;
        let process_group = bus.id();
        let mut sandbox = GnomeSandbox {
            socket: runtime_dir.join("wayland-glovebox"),
            x_display: String::new(),
            x_authority: String::new(),
            bus_address,
            runtime_dir,
            home,
            process_group,
            shell_pid: 0,
            children: vec![bus],
            watchdog: None,
        };
        sandbox.watchdog = Some(watchdog(process_group, &[&sandbox.runtime_dir])?);
        let (system_bus, system_address) = start_bus_at(
            &sandbox.runtime_dir.join("system_bus"),
            process_group,
            desktop_env.clone(),
        )?;
        sandbox.children.push(system_bus);
        // Settings through the desktop's own dconf (activated on its bus).
        let uuids: Vec<String> = extensions.iter().map(|e| format!("'{}'", e.uuid)).collect();
        for (schema, key, value) in [
            ("org.gnome.shell", "enabled-extensions", format!("[{}]", uuids.join(", "))),
            ("org.gnome.shell", "welcome-dialog-last-shown-version", "'999'".into()),
            ("org.gnome.desktop.interface", "enable-animations", "false".into()),
            ("org.gnome.desktop.session", "idle-delay", "uint32 0".into()),
            ("org.gnome.desktop.screensaver", "lock-enabled", "false".into()),
            ("org.gnome.desktop.notifications", "show-banners", "false".into()),
        ] {
            let status = Command::new(&gsettings)
                .args(["set", schema, key, &value])
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .envs(desktop_env.iter().map(|(k, v)| (k, v)))
                .env("DBUS_SESSION_BUS_ADDRESS", &sandbox.bus_address)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(process_group as i32)
                .status()?;
            if !status.success() {
                return Err(SandboxError::NotReady {
                    what: "gsettings",
                    detail: format!("could not set {schema} {key}"),
                });
            }
        }
        let child = Command::new(&shell)
            .args(["--headless", "--wayland", "--wayland-display", "wayland-glovebox"])
            .arg("--virtual-monitor")
            .arg(format!("{}x{}@10", options.width, options.height))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(
                desktop_env
                    .iter()
                    .filter(|(k, _)| k != "WAYLAND_DISPLAY" && k != "DISPLAY")
                    .map(|(k, v)| (k, v)),
            )
            .env("DBUS_SESSION_BUS_ADDRESS", &sandbox.bus_address)
            .env("DBUS_SYSTEM_BUS_ADDRESS", &system_address)
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("NO_AT_BRIDGE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(sandbox.runtime_dir.join("gnome-shell.log"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .process_group(process_group as i32)
            .spawn()
            .map_err(|source| SandboxError::Spawn { program: "gnome-shell", source })?;
        sandbox.shell_pid = child.id();
        sandbox.children.push(child);
        sandbox.wait_for_shell()?;
        // Programs the bus starts from now on get XWayland's display.
        let _ = sandbox
            .command("dbus-send")
            .args([
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.UpdateActivationEnvironment",
            ])
            .arg(format!(
                "dict:string:string:DISPLAY,{},XAUTHORITY,{}",
                sandbox.x_display, sandbox.x_authority
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        announce_assistive_technology(sandbox.command("dbus-send"));
        Ok(sandbox)
    }

    fn wait_for_shell(&mut self) -> Result<(), SandboxError> {
        let deadline = Instant::now() + SHELL_READY;
        let display_file = self.runtime_dir.join("x-display");
        loop {
            if let Ok(report) = std::fs::read_to_string(&display_file) {
                if UnixStream::connect(&self.socket).is_ok() {
                    let mut lines = report.lines();
                    self.x_display = lines.next().unwrap_or_default().trim().to_owned();
                    self.x_authority = lines.next().unwrap_or_default().trim().to_owned();
                    return Ok(());
                }
            }
            if let Ok(Some(status)) = self.children[2].try_wait() {
                let log = std::fs::read_to_string(self.runtime_dir.join("gnome-shell.log"))
                    .unwrap_or_default();
                let last: Vec<&str> = log.lines().rev().take(3).collect();
                return Err(SandboxError::NotReady {
                    what: "gnome-shell",
                    detail: format!("it exited ({status}): {}", last.join(" | ")),
                });
            }
            if Instant::now() > deadline {
                return Err(SandboxError::NotReady {
                    what: "gnome-shell",
                    detail: format!(
                        "no Wayland socket and sandbox extension report within {SHELL_READY:?}"
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[cfg(feature = "fixtures")]
    /// One GNOME desktop per process, started on first use with
    /// `extensions`, and this test's turn on it.
    pub fn shared_turn(
        extensions: impl FnOnce() -> Vec<ShellExtension>,
    ) -> (&'static GnomeSandbox, std::sync::MutexGuard<'static, ()>) {
        static SHARED: std::sync::OnceLock<GnomeSandbox> = std::sync::OnceLock::new();
        static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
        let sandbox = SHARED.get_or_init(|| {
            GnomeSandbox::start(GnomeOptions { extensions: extensions(), ..Default::default() })
                .unwrap_or_else(|e| panic!("GNOME sandbox desktop: {e}"))
        });
        (sandbox, turn)
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    pub fn x_display(&self) -> &str {
        &self.x_display
    }

    pub fn bus_address(&self) -> &str {
        &self.bus_address
    }

    pub fn compositor_pid(&self) -> u32 {
        self.shell_pid
    }

    pub fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }

    /// The desktop's home, where its extensions and settings live.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The environment of a program inside this desktop.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("WAYLAND_DISPLAY", self.socket.to_str().unwrap_or_default()),
            ("DISPLAY", self.x_display.as_str()),
            ("XAUTHORITY", self.x_authority.as_str()),
            ("DBUS_SESSION_BUS_ADDRESS", self.bus_address.as_str()),
            ("XDG_RUNTIME_DIR", self.runtime_dir.to_str().unwrap_or("/tmp")),
            ("XDG_SESSION_TYPE", "wayland"),
            ("XDG_CURRENT_DESKTOP", "GNOME"),
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
        command.envs(self.env()).process_group(self.process_group as i32);
        command
    }

    /// A command inside this desktop that stays in the caller's process group.
    pub fn foreground_command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.envs(self.env());
        command
    }

    pub fn shutdown(mut self) {
        self.teardown();
    }

    fn teardown(&mut self) {
        end_group(self.process_group, &mut self.children, self.watchdog.take());
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
    }
}

impl Desktop for GnomeSandbox {
    fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }
    fn command(&self, program: &std::ffi::OsStr) -> Command {
        GnomeSandbox::command(self, program)
    }
}

impl Drop for GnomeSandbox {
    fn drop(&mut self) {
        self.teardown();
    }
}
