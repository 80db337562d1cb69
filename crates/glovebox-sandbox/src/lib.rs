//! A private headless desktop: Xvfb on a display it picks itself
//! (`-displayfd`), a private D-Bus session bus on which the accessibility bus
//! can be activated, and the openbox window manager; or, in [`wayland`], a
//! headless sway compositor with the same kind of bus. Only this user
//! reaches the X server ([`xauth`]).
//!
//! Every process the sandbox starts, and every command started through
//! [`Sandbox::command`], joins one process group that teardown ends; nothing
//! else is ever signalled. A watchdog outside that group ends it too when the
//! owning process dies without tearing down (a test binary's statics are
//! never dropped).
#![forbid(unsafe_code)]

#[cfg(feature = "fixtures")]
pub mod fixture;
pub mod gnome;
pub mod kde;
mod monitors;
pub mod wayland;
mod xauth;

pub use monitors::MonitorSpec;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// What the fault tests do to a process the sandbox started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// SIGKILL: gone at once, nothing cleaned up.
    Kill,
    /// SIGSTOP: frozen, every request to it unanswered.
    Freeze,
    /// SIGCONT: running again.
    Thaw,
}

/// Sends `fault` to process `pid`, which must be one the sandbox (or a
/// command started through it) started.
pub fn inflict(pid: u32, fault: Fault) -> std::io::Result<()> {
    use rustix::process::{kill_process, Pid, Signal};
    let pid = Pid::from_raw(pid as i32).ok_or_else(|| std::io::Error::other("pid 0"))?;
    let signal = match fault {
        Fault::Kill => Signal::KILL,
        Fault::Freeze => Signal::STOP,
        Fault::Thaw => Signal::CONT,
    };
    kill_process(pid, signal).map_err(std::io::Error::from)
}

/// Why a sandbox could not start or be changed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{program} is not installed (Debian package {package})")]
    MissingProgram { program: &'static str, package: &'static str },
    #[error("could not start {program}: {source}")]
    Spawn { program: &'static str, source: std::io::Error },
    #[error("{what} did not become ready: {detail}")]
    NotReady { what: &'static str, detail: String },
    #[error("sandbox runtime directory: {0}")]
    Io(#[from] std::io::Error),
    #[error("X request failed: {0}")]
    X11(String),
    #[error("the X server of display {display} lost its socket {path} (another server that was ending removed it)")]
    SocketLost { display: String, path: PathBuf },
}

/// How to build the sandbox desktop.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    pub width: u32,
    pub height: u32,
    pub window_manager: bool,
    pub accessibility: AccessibilityAtStart,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        SandboxOptions {
            width: 1920,
            height: 1080,
            window_manager: true,
            accessibility: AccessibilityAtStart::Prepared,
        }
    }
}

/// Whether the desktop is made ready for assistive technology before its
/// programs start, or left as a person's desktop is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AccessibilityAtStart {
    /// `org.a11y.Status.IsEnabled` set as the bus starts, and Qt told to
    /// export its tree: every toolkit exposes one from its first frame.
    #[default]
    Prepared,
    /// As a person's desktop is: `IsEnabled` left as the bus starts it and
    /// no accessibility variable given to programs, so a browser started
    /// now exposes nothing until it is restarted with accessibility on.
    Cold,
}

/// A running private desktop. Dropping it tears everything down.
#[derive(Debug)]
pub struct Sandbox {
    display: String,
    bus_address: String,
    runtime_dir: PathBuf,
    process_group: u32,
    accessibility: AccessibilityAtStart,
    children: Vec<Child>,
    watchdog: Option<(Child, ChildStdin)>,
}

pub(crate) const READY_TIMEOUT: Duration = Duration::from_secs(15);

pub(crate) fn require(
    program: &'static str,
    package: &'static str,
) -> Result<PathBuf, SandboxError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or(SandboxError::MissingProgram { program, package })
}

/// Reads one line from a child's stdout, giving up after `timeout`.
fn read_line_within(
    stdout: impl Read + Send + 'static,
    timeout: Duration,
    what: &'static str,
) -> Result<String, SandboxError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let result = reader.read_line(&mut line).map(|_| line);
        let _ = tx.send(result);
        // Keep draining so the child never blocks on a full pipe.
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(line)) if !line.trim().is_empty() => Ok(line.trim().to_owned()),
        Ok(Ok(_)) => {
            Err(SandboxError::NotReady { what, detail: "it exited before reporting".into() })
        }
        Ok(Err(e)) => Err(SandboxError::NotReady { what, detail: e.to_string() }),
        Err(_) => {
            Err(SandboxError::NotReady { what, detail: format!("no answer within {timeout:?}") })
        }
    }
}

/// A shell outside process group `group` that ends the group when its
/// stdin closes without the word `done` (the owner died: a test binary's
/// shared desktop is never dropped), then removes the desktop's `dirs`.
pub(crate) fn watchdog(group: u32, dirs: &[&Path]) -> Result<(Child, ChildStdin), SandboxError> {
    let script = format!(
        "trap '' INT HUP; read line; [ \"$line\" = done ] && exit 0; kill -TERM -{group} 2>/dev/null; sleep 1; kill -KILL -{group} 2>/dev/null; sleep 0.2; rm -rf -- \"$@\""
    );
    let mut child = Command::new("/bin/sh")
        .args(["-c", &script, "glovebox-watchdog"])
        .args(dirs)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|source| SandboxError::Spawn { program: "sh", source })?;
    let stdin = child.stdin.take().expect("piped");
    Ok((child, stdin))
}

/// Ends process group `group` (TERM, then KILL after two seconds), reaps
/// `children` and tells the watchdog it is done.
pub(crate) fn end_group(
    group: u32,
    children: &mut Vec<Child>,
    watchdog: Option<(Child, ChildStdin)>,
) {
    if let Some(group) = rustix::process::Pid::from_raw(group as i32) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(2);
        for child in children.iter_mut() {
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    for child in children.iter_mut() {
        let _ = child.wait();
    }
    children.clear();
    if let Some((mut child, mut stdin)) = watchdog {
        let _ = stdin.write_all(b"done\n");
        drop(stdin);
        let _ = child.wait();
    }
}

/// A private session bus in `runtime_dir`, in process group `group`, with
/// `env`; returns the daemon and its address.
pub(crate) fn start_bus(
    runtime_dir: &Path,
    group: u32,
    env: Vec<(String, String)>,
) -> Result<(Child, String), SandboxError> {
    start_bus_at(&runtime_dir.join("bus"), group, env)
}

/// A bus with the session bus's rules at socket `path`.
pub(crate) fn start_bus_at(
    path: &Path,
    group: u32,
    env: Vec<(String, String)>,
) -> Result<(Child, String), SandboxError> {
    let dbus = require("dbus-daemon", "dbus-daemon")?;
    let mut bus_child = Command::new(&dbus)
        .args(["--session", "--nofork", "--nosyslog", "--print-address=1"])
        .arg(format!("--address=unix:path={}", path.display()))
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(group as i32)
        .spawn()
        .map_err(|source| SandboxError::Spawn { program: "dbus-daemon", source })?;
    let stdout = bus_child.stdout.take().expect("piped");
    match read_line_within(stdout, READY_TIMEOUT, "dbus-daemon") {
        Ok(address) => Ok((bus_child, address)),
        Err(e) => {
            let _ = bus_child.kill();
            let _ = bus_child.wait();
            Err(e)
        }
    }
}

/// Says on the bus that an assistive technology runs, as a screen
/// reader does: Chromium (and Electron) export their accessibility tree
/// only when `org.a11y.Status.IsEnabled` is true as they start, and
/// Firefox turns its own on when it becomes true. The bus activates
/// `org.a11y.Bus` for the call. Best effort: without it only those
/// browsers stay dark, which their tests report.
pub(crate) fn announce_assistive_technology(mut dbus_send: Command) {
    let set = dbus_send
        .args([
            "--session",
            "--print-reply",
            "--dest=org.a11y.Bus",
            "/org/a11y/bus",
            "org.freedesktop.DBus.Properties.Set",
        ])
        .args(["string:org.a11y.Status", "string:IsEnabled", "variant:boolean:true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !set.is_ok_and(|s| s.success()) {
        eprintln!("glovebox sandbox: could not set org.a11y.Status.IsEnabled; Chromium and Firefox will expose no accessibility tree");
    }
}

/// What toolkits need on a desktop without a GPU or a screen reader, on
/// either kind of sandbox.
pub(crate) const HEADLESS_TOOLKITS: &[(&str, &str)] = &[
    // GTK4's GL renderer spins without a GPU and never registers on AT-SPI.
    ("GSK_RENDERER", "cairo"),
    ("LIBGL_ALWAYS_SOFTWARE", "1"),
    ("NO_AT_BRIDGE", "0"),
];

/// What a prepared desktop gives its programs: Qt 5 exports AT-SPI
/// without a screen reader running only when told to.
pub(crate) const PREPARED_TOOLKITS: &[(&str, &str)] = &[("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")];

/// A desktop programs can be started in: the fixtures run in either kind.
pub trait Desktop {
    /// The private `XDG_RUNTIME_DIR` of this desktop.
    fn runtime_dir(&self) -> &Path;
    /// A command that runs inside this desktop and is ended with it.
    fn command(&self, program: &std::ffi::OsStr) -> Command;
}

impl Desktop for Sandbox {
    fn runtime_dir(&self) -> &Path {
        Sandbox::runtime_dir(self)
    }
    fn command(&self, program: &std::ffi::OsStr) -> Command {
        Sandbox::command(self, program)
    }
}

pub(crate) fn unique_runtime_dir() -> Result<PathBuf, SandboxError> {
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("glovebox-sandbox-{}-{n}-{nanos:x}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

impl Sandbox {
    /// Starts Xvfb, the private session bus and (optionally) openbox, and
    /// waits until each is ready.
    ///
    /// An X server that is ending unlinks its socket file by path, after
    /// it has freed its display number: a new server that took the number in
    /// that moment keeps only its abstract socket, which libxcb clients
    /// reach and x11rb clients (glovebox among them) do not. Such a desktop
    /// is thrown away and started again.
    pub fn start(options: SandboxOptions) -> Result<Sandbox, SandboxError> {
        const ATTEMPTS: usize = 3;
        let mut attempt = 1;
        loop {
            match Sandbox::start_once(&options) {
                Err(SandboxError::SocketLost { .. }) if attempt < ATTEMPTS => attempt += 1,
                other => return other,
            }
        }
    }

    fn start_once(options: &SandboxOptions) -> Result<Sandbox, SandboxError> {
        let xvfb = require("Xvfb", "xvfb")?;
        require("dbus-daemon", "dbus-daemon")?;
        let openbox =
            if options.window_manager { Some(require("openbox", "openbox")?) } else { None };
        let runtime_dir = unique_runtime_dir()?;
        // Only this user reaches the server (`xauth`): its cookie before it starts.
        let cookie = xauth::Cookie::new()?;
        let authority = xauth::authority_file(&runtime_dir);
        cookie.write(&authority, None)?;

        let mut xvfb_child = Command::new(&xvfb)
            .args(["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-auth"])
            .arg(&authority)
            .args(["-screen", "0"])
            .arg(format!("{}x{}x24", options.width, options.height))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|source| SandboxError::Spawn { program: "Xvfb", source })?;
        let process_group = xvfb_child.id();
        let mut sandbox = Sandbox {
            display: String::new(),
            bus_address: String::new(),
            runtime_dir,
            process_group,
            accessibility: options.accessibility,
            children: vec![],
            watchdog: None,
        };
        let stdout = xvfb_child.stdout.take().expect("piped");
        sandbox.children.push(xvfb_child);
        sandbox.start_watchdog()?;
        let number = read_line_within(stdout, READY_TIMEOUT, "Xvfb")?;
        sandbox.display = format!(":{number}");
        sandbox.check_socket()?;
        // The cookie for this display's clients, and this user's own programs let in without it.
        cookie.write(&authority, Some(&sandbox.display))?;
        monitors::admit(&sandbox.display, cookie.bytes(), &xauth::this_user())?;

        let (bus_child, bus_address) =
            start_bus(&sandbox.runtime_dir, process_group, sandbox.env())?;
        sandbox.children.push(bus_child);
        sandbox.bus_address = bus_address;
        if options.accessibility == AccessibilityAtStart::Prepared {
            announce_assistive_technology(sandbox.command("dbus-send"));
        }

        if let Some(openbox) = openbox {
            let wm = sandbox
                .command(openbox)
                .arg("--sm-disable")
                // Openbox reads its system rc.xml: the desktop's own config
                // home (see `env`) keeps the user's openbox settings out;
                // its log goes to the desktop's cache, not the person's.
                .env("XDG_CACHE_HOME", sandbox.runtime_dir.join("cache"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|source| SandboxError::Spawn { program: "openbox", source })?;
            sandbox.children.push(wm);
            sandbox.wait_for_window_manager()?;
        }
        // Checked again: the ending server may unlink it a moment later.
        sandbox.check_socket()?;
        Ok(sandbox)
    }

    fn check_socket(&self) -> Result<(), SandboxError> {
        let path =
            PathBuf::from(format!("/tmp/.X11-unix/X{}", self.display.trim_start_matches(':')));
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Ok(()),
            Err(_) => Err(SandboxError::SocketLost { display: self.display.clone(), path }),
        }
    }

    fn start_watchdog(&mut self) -> Result<(), SandboxError> {
        self.watchdog = Some(watchdog(self.process_group, &[&self.runtime_dir])?);
        Ok(())
    }

    fn wait_for_window_manager(&self) -> Result<(), SandboxError> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            match monitors::window_manager_name(&self.display) {
                Ok(Some(_)) => return Ok(()),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Ok(None) => {
                    return Err(SandboxError::NotReady {
                        what: "openbox",
                        detail: "no _NET_SUPPORTING_WM_CHECK".into(),
                    })
                }
                Err(e) => return Err(self.check_socket().err().unwrap_or(e)),
            }
        }
    }

    /// The X display, e.g. `:3`.
    /// The X server's process id, for the fault tests that end it on purpose.
    pub fn x_server_pid(&self) -> u32 {
        self.children[0].id()
    }

    pub fn display(&self) -> &str {
        &self.display
    }

    /// The private session bus address.
    pub fn bus_address(&self) -> &str {
        &self.bus_address
    }

    /// The private `XDG_RUNTIME_DIR` of this desktop.
    pub fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }

    /// The environment a program needs to run inside this desktop (its
    /// display and the cookie that lets a program in, its buses). It also
    /// pins toolkits to X11 and to renderers that work without a GPU, and
    /// gives the desktop a configuration directory of its own: what its
    /// programs and services save (the accessibility bus launcher writes
    /// GNOME's `toolkit-accessibility` when `IsEnabled` is set, browsers
    /// their profiles) stays out of the person's, and a cold desktop starts
    /// with none of it.
    pub fn env(&self) -> Vec<(String, String)> {
        let config = self.runtime_dir.join("config");
        let authority = xauth::authority_file(&self.runtime_dir);
        [
            ("DISPLAY", self.display.as_str()),
            ("XAUTHORITY", authority.to_str().unwrap_or("/nonexistent")),
            ("DBUS_SESSION_BUS_ADDRESS", self.bus_address.as_str()),
            ("XDG_RUNTIME_DIR", self.runtime_dir.to_str().unwrap_or("/tmp")),
            ("XDG_CONFIG_HOME", config.to_str().unwrap_or("/tmp")),
            ("XDG_SESSION_TYPE", "x11"),
            ("GDK_BACKEND", "x11"),
            ("QT_QPA_PLATFORM", "xcb"),
        ]
        .into_iter()
        .chain(HEADLESS_TOOLKITS.iter().copied())
        .chain(
            match self.accessibility {
                AccessibilityAtStart::Prepared => PREPARED_TOOLKITS,
                AccessibilityAtStart::Cold => &[],
            }
            .iter()
            .copied(),
        )
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    /// How this desktop was made ready for assistive technology.
    pub fn accessibility(&self) -> AccessibilityAtStart {
        self.accessibility
    }

    /// A command that runs inside this desktop and is ended with it.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env_remove("WAYLAND_DISPLAY")
            .envs(self.env())
            .process_group(self.process_group as i32);
        command
    }

    /// [`Sandbox::command`] with a home of its own: `HOME`, the XDG state
    /// and runtime directories under it (so its configuration, grant lock
    /// and audit log are private to it), run from there.
    pub fn command_in_home(&self, program: impl AsRef<std::ffi::OsStr>, home: &Path) -> Command {
        let mut command = self.command(program);
        command
            .env("HOME", home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("GLOVEBOX_CONFIG_HOME")
            .env("XDG_STATE_HOME", home.join("state"))
            .env("XDG_RUNTIME_DIR", home.join("run"))
            .current_dir(home);
        command
    }

    /// A command that runs inside this desktop but stays in the caller's
    /// process group, so the terminal's Ctrl-C and job control reach it.
    pub fn foreground_command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env_remove("WAYLAND_DISPLAY").envs(self.env());
        command
    }

    /// Replaces the RandR monitors with `monitors` (to simulate several displays).
    pub fn set_monitors(&self, monitors: &[MonitorSpec]) -> Result<(), SandboxError> {
        monitors::set_monitors(&self.display, monitors)
    }

    /// Where the real pointer is, in root coordinates.
    pub fn pointer(&self) -> Result<(i16, i16), SandboxError> {
        monitors::pointer(&self.display)
    }

    /// Puts the real pointer at `(x, y)`, as a user would have left it.
    pub fn warp_pointer(&self, x: i16, y: i16) -> Result<(), SandboxError> {
        monitors::warp_pointer(&self.display, x, y)
    }

    /// Ends every process of the desktop and removes its runtime directory.
    pub fn shutdown(mut self) {
        self.teardown();
    }

    fn teardown(&mut self) {
        end_group(self.process_group, &mut self.children, self.watchdog.take());
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.teardown();
    }
}

/// Where `.ci/install-deps` builds a Debian 13 (trixie) root with GTK 4.18
/// (`mmdebstrap`), so apps of the toolkit current desktops ship run in the
/// sandbox beside Debian 12's GTK 4.8.
pub const CURRENT_GTK4_ROOT: &str = "/var/cache/glovebox/trixie-gtk4";

/// Programs of another Debian root, run in a desktop through bubblewrap:
/// the root is their `/`, while `/tmp` (the desktop's X socket, its
/// session and accessibility buses, its runtime directory) and the
/// directories in `binds` are the host's, so they talk to the same X
/// server and buses as everything else on that desktop.
pub struct InRoot<'a, D: Desktop> {
    pub desktop: &'a D,
    pub root: PathBuf,
    pub binds: Vec<PathBuf>,
}

impl<D: Desktop> InRoot<'_, D> {
    /// `root` if it is there with bubblewrap to enter it.
    pub fn available(root: &Path) -> bool {
        root.join("usr/bin").is_dir() && require("bwrap", "bubblewrap").is_ok()
    }
}

impl<D: Desktop> Desktop for InRoot<'_, D> {
    fn runtime_dir(&self) -> &Path {
        self.desktop.runtime_dir()
    }

    fn command(&self, program: &std::ffi::OsStr) -> Command {
        let mut command = self.desktop.command("bwrap".as_ref());
        command.arg("--bind").arg(&self.root).arg("/");
        command.args([
            "--bind",
            "/tmp",
            "/tmp",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--ro-bind",
            "/sys",
            "/sys",
            "--die-with-parent",
        ]);
        for dir in &self.binds {
            command.arg("--ro-bind").arg(dir).arg(dir);
        }
        command.arg("--").arg(program);
        command
    }
}

/// The desktops test suites share: test code, behind `fixtures`.
#[cfg(feature = "fixtures")]
impl Sandbox {
    /// One desktop per test suite (named by its module path) in this
    /// process, started on first use: the suites of one test binary keep
    /// the private desktops they had as binaries of their own. Torn down by
    /// the watchdog when the process exits.
    pub fn shared(suite: &'static str) -> &'static Sandbox {
        Self::suite_desktop(suite).sandbox.get_or_init(|| {
            Sandbox::start(SandboxOptions::default())
                .unwrap_or_else(|e| panic!("sandbox desktop of {suite}: {e}"))
        })
    }

    /// [`Sandbox::shared`] and this test's turn on it: tests that watch the
    /// pointer, focus or stacking order must not run at the same time.
    pub fn shared_turn(
        suite: &'static str,
    ) -> (&'static Sandbox, std::sync::MutexGuard<'static, ()>) {
        let turn = Self::suite_desktop(suite).turn.lock().unwrap_or_else(|p| p.into_inner());
        (Sandbox::shared(suite), turn)
    }

    fn suite_desktop(suite: &'static str) -> &'static SuiteDesktop {
        static SUITES: std::sync::Mutex<Vec<(&'static str, &'static SuiteDesktop)>> =
            std::sync::Mutex::new(Vec::new());
        let mut suites = SUITES.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, desktop)) = suites.iter().find(|(name, _)| *name == suite) {
            return desktop;
        }
        // Leaked on purpose: a suite's desktop lives as long as the process.
        let desktop: &'static SuiteDesktop = Box::leak(Box::default());
        suites.push((suite, desktop));
        desktop
    }
}

#[cfg(feature = "fixtures")]
/// A test suite's desktop (started by its first test) and its turn.
#[derive(Default)]
struct SuiteDesktop {
    sandbox: std::sync::OnceLock<Sandbox>,
    turn: std::sync::Mutex<()>,
}
