//! A private headless KDE Plasma compositor: KWin on Wayland with its
//! virtual backend (no GPU, no input devices; Mesa's software OpenGL),
//! XWayland for X11 programs, and a private session bus that KWin's
//! services (scripting, ScreenShot2) and the accessibility bus live on.
//!
//! KWin reads its settings, desktop files and caches from the desktop's
//! own directories, never the person's. A program the sandbox is told to
//! trust for screenshots gets a desktop file listing
//! `org.kde.KWin.ScreenShot2` in `X-KDE-DBUS-Restricted-Interfaces`, as
//! installing glovebox's package gives it on a real Plasma desktop.
//!
//! Debian's `kwin_wayland` carries a file capability (`cap_sys_resource`);
//! where the process's bounding set lacks it (a container), exec fails
//! with `EPERM`, and a copy of the binary, which carries none, is run.

use crate::{
    announce_assistive_technology, end_group, require, start_bus, unique_runtime_dir, watchdog,
    Desktop, SandboxError, HEADLESS_TOOLKITS, PREPARED_TOOLKITS,
};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// KWin with software OpenGL takes longer than sway to come up.
const KWIN_READY: Duration = Duration::from_secs(40);

/// How to build the KDE sandbox.
#[derive(Debug, Clone)]
pub struct KdeOptions {
    pub width: u32,
    pub height: u32,
    /// Programs KWin lets take screenshots (ScreenShot2), by path.
    pub screenshot_programs: Vec<PathBuf>,
}

impl Default for KdeOptions {
    fn default() -> Self {
        KdeOptions { width: 1280, height: 800, screenshot_programs: vec![] }
    }
}

/// A running private KDE desktop. Dropping it tears everything down.
#[derive(Debug)]
pub struct KdeSandbox {
    socket: PathBuf,
    x_display: String,
    bus_address: String,
    runtime_dir: PathBuf,
    process_group: u32,
    kwin_pid: u32,
    children: Vec<Child>,
    watchdog: Option<(Child, ChildStdin)>,
}

/// The desktop file that lets `program` use ScreenShot2.
pub fn screenshot_desktop_file(program: &Path) -> String {
    format!(
        "[Desktop Entry]\nType=Application\nName=glovebox screenshots ({})\nExec={}\nNoDisplay=true\nX-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n",
        program.display(),
        program.display()
    )
}

impl KdeSandbox {
    /// Starts the session bus, then KWin (with XWayland), and waits until
    /// its Wayland socket answers and XWayland has a display.
    pub fn start(options: KdeOptions) -> Result<KdeSandbox, SandboxError> {
        let kwin = require("kwin_wayland", "kwin-wayland")?;
        require("Xwayland", "xwayland")?;
        let runtime_dir = unique_runtime_dir()?;
        let home = runtime_dir.join("home");
        let applications = home.join(".local/share/applications");
        std::fs::create_dir_all(&applications)?;
        for (i, program) in options.screenshot_programs.iter().enumerate() {
            std::fs::write(
                applications.join(format!("glovebox-screenshots-{i}.desktop")),
                screenshot_desktop_file(program),
            )?;
        }
        // The bus starts programs (the accessibility bus) with its own
        // environment: this desktop's, never the caller's display.
        let bus_env = [
            ("WAYLAND_DISPLAY", runtime_dir.join("wayland-glovebox").display().to_string()),
            ("DISPLAY", String::new()),
            ("XDG_RUNTIME_DIR", runtime_dir.display().to_string()),
            ("XDG_SESSION_TYPE", "wayland".into()),
            ("XDG_CURRENT_DESKTOP", "KDE".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let (bus, bus_address) = start_bus(&runtime_dir, 0, bus_env)?;
        let process_group = bus.id();
        let mut sandbox = KdeSandbox {
            socket: runtime_dir.join("wayland-glovebox"),
            x_display: String::new(),
            bus_address,
            runtime_dir,
            process_group,
            kwin_pid: 0,
            children: vec![bus],
            watchdog: None,
        };
        sandbox.watchdog = Some(watchdog(process_group, &[&sandbox.runtime_dir])?);
        let display_file = sandbox.runtime_dir.join("x-display");
        let spawn = |program: &Path| {
            let mut command = Command::new(program);
            command
                .args([
                    "--virtual",
                    "--xwayland",
                    "--no-lockscreen",
                    "--socket",
                    "wayland-glovebox",
                ])
                .arg("--width")
                .arg(options.width.to_string())
                .arg("--height")
                .arg(options.height.to_string())
                // Started once XWayland is up, with its DISPLAY: how the
                // sandbox learns it. KWin splits each such argument as a
                // shell would; the runtime directory's path has no quote.
                .arg("--")
                .arg(format!(
                    "/bin/sh -c 'printf %s \"$DISPLAY\" > {file}.part && mv {file}.part {file}'",
                    file = display_file.display()
                ))
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", &home)
                .env("XDG_RUNTIME_DIR", &sandbox.runtime_dir)
                .env("XDG_CONFIG_HOME", home.join(".config"))
                .env("XDG_DATA_HOME", home.join(".local/share"))
                .env("XDG_CACHE_HOME", home.join(".cache"))
                .env("DBUS_SESSION_BUS_ADDRESS", &sandbox.bus_address)
                // ScreenShot2 exists only with OpenGL compositing.
                .env("KWIN_COMPOSE", "O2")
                .env("LIBGL_ALWAYS_SOFTWARE", "1")
                .env("XDG_CURRENT_DESKTOP", "KDE")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(
                    std::fs::File::create(sandbox.runtime_dir.join("kwin.log"))
                        .map(Stdio::from)
                        .unwrap_or_else(|_| Stdio::null()),
                )
                .process_group(process_group as i32);
            command.spawn()
        };
        let child = match spawn(&kwin) {
            Err(e) if e.raw_os_error() == Some(libc_eperm()) => {
                let copy = sandbox.runtime_dir.join("kwin_wayland");
                std::fs::copy(&kwin, &copy)?;
                spawn(&copy)
            }
            other => other,
        }
        .map_err(|source| SandboxError::Spawn { program: "kwin_wayland", source })?;
        sandbox.kwin_pid = child.id();
        sandbox.children.push(child);
        sandbox.wait_for_kwin(&display_file)?;
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
            .arg(format!("dict:string:string:DISPLAY,{}", sandbox.x_display))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        announce_assistive_technology(sandbox.command("dbus-send"));
        Ok(sandbox)
    }

    fn wait_for_kwin(&mut self, display_file: &Path) -> Result<(), SandboxError> {
        let deadline = Instant::now() + KWIN_READY;
        loop {
            let display = std::fs::read_to_string(display_file).unwrap_or_default();
            if !display.is_empty() && UnixStream::connect(&self.socket).is_ok() {
                self.x_display = display.trim().to_owned();
                return Ok(());
            }
            if let Ok(Some(status)) = self.children[1].try_wait() {
                let log =
                    std::fs::read_to_string(self.runtime_dir.join("kwin.log")).unwrap_or_default();
                let last: Vec<&str> = log.lines().rev().take(3).collect();
                return Err(SandboxError::NotReady {
                    what: "kwin_wayland",
                    detail: format!("it exited ({status}): {}", last.join(" | ")),
                });
            }
            if Instant::now() > deadline {
                return Err(SandboxError::NotReady {
                    what: "kwin_wayland",
                    detail: format!("no Wayland socket and XWayland display within {KWIN_READY:?}"),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[cfg(feature = "fixtures")]
    /// One KDE desktop per process, started on first use (trusting this
    /// test binary's screenshots and those of `programs`), and this test's
    /// turn on it.
    pub fn shared_turn(
        programs: &[&Path],
    ) -> (&'static KdeSandbox, std::sync::MutexGuard<'static, ()>) {
        static SHARED: std::sync::OnceLock<KdeSandbox> = std::sync::OnceLock::new();
        static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let turn = TURN.lock().unwrap_or_else(|p| p.into_inner());
        let sandbox = SHARED.get_or_init(|| {
            let me = std::env::current_exe().expect("the test binary's path");
            let mut trusted = vec![me];
            trusted.extend(programs.iter().map(|p| p.to_path_buf()));
            KdeSandbox::start(KdeOptions { screenshot_programs: trusted, ..Default::default() })
                .unwrap_or_else(|e| panic!("KDE sandbox desktop: {e}"))
        });
        (sandbox, turn)
    }

    /// KWin's Wayland socket, an absolute `WAYLAND_DISPLAY`.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// XWayland's display (`:1`).
    pub fn x_display(&self) -> &str {
        &self.x_display
    }

    pub fn bus_address(&self) -> &str {
        &self.bus_address
    }

    pub fn compositor_pid(&self) -> u32 {
        self.kwin_pid
    }

    pub fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }

    /// The environment of a program inside this desktop: a native Wayland
    /// client, or an X11 one through XWayland.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("WAYLAND_DISPLAY", self.socket.to_str().unwrap_or_default()),
            ("DISPLAY", self.x_display.as_str()),
            ("DBUS_SESSION_BUS_ADDRESS", self.bus_address.as_str()),
            ("XDG_RUNTIME_DIR", self.runtime_dir.to_str().unwrap_or("/tmp")),
            ("XDG_SESSION_TYPE", "wayland"),
            ("XDG_CURRENT_DESKTOP", "KDE"),
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

/// `EPERM`: what exec gives for a file capability outside the bounding set.
fn libc_eperm() -> i32 {
    rustix::io::Errno::PERM.raw_os_error()
}

impl Desktop for KdeSandbox {
    fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }
    fn command(&self, program: &std::ffi::OsStr) -> Command {
        KdeSandbox::command(self, program)
    }
}

impl Drop for KdeSandbox {
    fn drop(&mut self) {
        self.teardown();
    }
}
