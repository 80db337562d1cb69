//! The box around the agent display (DESIGN.md §5): what an application
//! started there can reach. An agent that may type into a terminal on the
//! agent display must not get from there to the user's desktop, so every
//! application on it runs in bubblewrap with:
//!
//! - its own file system view: `/` read-only, a private `/tmp` holding only
//!   the agent display's X socket, an empty `/run` (no user session bus, no
//!   accessibility bus, no Wayland socket of the user's), and an empty home
//!   in place of every home directory; writable only its own home, the
//!   browser profile and a runtime directory of the box's own. The agent
//!   display's runtime directory (its bus socket, the accessibility bus)
//!   is read-only there: the agent display's own bus and window manager,
//!   which run outside bubblewrap, read service files and settings from
//!   it, and a terminal in the box must not plant one;
//! - its own process ids (`/proc` shows only the box, so no
//!   `/proc/PID/root` of a user's process leads into the user's files) and
//!   its own session (no `TIOCSTI` into the terminal glovebox runs in);
//! - an environment built from nothing: the agent display's `DISPLAY`,
//!   session bus and runtime directory, never the user's;
//! - abstract sockets (an X server's `@/tmp/.X11-unix/X0`, a bus started by
//!   `dbus-launch`) out of reach: with Landlock ABI 6 (Linux 6.12) the
//!   agent display itself and every application on it are started from one
//!   thread restricted to a Landlock domain that scopes abstract sockets and
//!   signals, so they reach each other and nothing outside (the network
//!   stays, so the agent's browser browses). Where the kernel has no such
//!   scope, the applications get a network namespace of their own instead,
//!   which has no abstract sockets of the user's — and no network.
//!
//! The agent's browser is held to the host's web-address rule by the
//! browser itself, for every navigation (address bar, link, redirect):
//! Chromium reads its managed policy from `/etc/chromium/policies`, which
//! the box replaces with one that blocks every scheme but `http` and
//! `https` unless local addresses are allowed.
//!
//! Without bubblewrap, or where it cannot make namespaces, nothing starts
//! on the agent display: an unboxed application there would be a way out.

use glovebox_platform::{BackendError, BackendErrorKind, BrowserPages};
use glovebox_sandbox::Sandbox;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc;

/// How abstract sockets outside the box are kept out of reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// A Landlock domain scopes abstract sockets and signals to the agent
    /// display's processes; the network is shared.
    ScopedSockets,
    /// The kernel cannot scope them: each application has a network
    /// namespace of its own, and so no network.
    PrivateNetwork,
}

impl Isolation {
    /// The words `doctor` and errors use.
    pub fn describe(self) -> &'static str {
        match self {
            Isolation::ScopedSockets => "abstract sockets and signals scoped to the agent display by Landlock; network shared",
            Isolation::PrivateNetwork => {
                "a network namespace per application (this kernel has no Landlock socket scope, Linux 6.12+): the agent's applications have no network"
            }
        }
    }
}

/// A job run on the box's thread.
type Job = Box<dyn FnOnce() + Send>;

/// The thread everything on the agent display is started from, inside the
/// box's Landlock domain where the kernel has one. It lives as long as the
/// process: bubblewrap's `--die-with-parent` follows the thread that
/// started it.
struct Starter {
    jobs: mpsc::Sender<Job>,
}

impl Starter {
    fn start() -> Result<(Starter, Isolation), BackendError> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (told, isolation) = mpsc::channel();
        std::thread::Builder::new()
            .name("glovebox-agent-box".into())
            .spawn(move || {
                let _ = told.send(enter_scope());
                for job in queue {
                    job();
                }
            })
            .map_err(|e| {
                BackendError::unavailable(format!("the agent display's starter thread: {e}"))
            })?;
        let isolation = isolation
            .recv()
            .map_err(|_| BackendError::unavailable("the agent display's starter thread ended"))?;
        Ok((Starter { jobs }, isolation))
    }

    /// Runs `job` on the box's thread and waits for its answer.
    fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, BackendError> {
        let (answer, answered) = mpsc::channel();
        self.jobs
            .send(Box::new(move || {
                let _ = answer.send(job());
            }))
            .map_err(|_| BackendError::unavailable("the agent display's starter thread ended"))?;
        answered
            .recv()
            .map_err(|_| BackendError::unavailable("the agent display's starter thread ended"))
    }
}

/// Restricts the calling thread (and all it starts) to a Landlock domain
/// scoping abstract Unix sockets and signals; says which isolation holds.
fn enter_scope() -> Isolation {
    use landlock::{
        Access as _, CompatLevel, Compatible as _, Ruleset, RulesetAttr as _, RulesetStatus, Scope,
        ABI,
    };
    let restricted = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .scope(Scope::from_all(ABI::V6))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self());
    match restricted {
        Ok(status) if status.ruleset == RulesetStatus::FullyEnforced => Isolation::ScopedSockets,
        _ => Isolation::PrivateNetwork,
    }
}

/// The box of one agent display.
pub struct AgentBox {
    starter: Starter,
    isolation: Isolation,
    bwrap: PathBuf,
    pages: BrowserPages,
}

impl AgentBox {
    /// The box's thread, ready to start the agent display; refused without
    /// bubblewrap.
    pub fn new(pages: BrowserPages) -> Result<AgentBox, BackendError> {
        let bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].into_iter().map(PathBuf::from).find(|p| p.is_file()).ok_or_else(|| {
            BackendError::new(
                BackendErrorKind::Unsupported,
                "the agent display runs its applications in bubblewrap, which is not installed (Debian package bubblewrap)",
            )
        })?;
        let (starter, isolation) = Starter::start()?;
        Ok(AgentBox { starter, isolation, bwrap, pages })
    }

    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// Runs `start` (the agent display's own processes) inside the box's domain.
    pub fn start_display<T: Send + 'static>(
        &self,
        start: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, BackendError> {
        self.starter.run(start)
    }

    /// Prepares the box's directories on `sandbox` and checks that
    /// bubblewrap can make its namespaces here.
    pub fn prepare(&self, sandbox: &Sandbox) -> Result<(), BackendError> {
        let failed = |what: &str, e: std::io::Error| {
            BackendError::unavailable(format!("preparing the agent display's box ({what}): {e}"))
        };
        // The home holds what the agent's applications keep (cookies, form data): the user's only.
        for (dir, what) in [
            (home_of(sandbox), "its home"),
            (browser_profile(sandbox), "the browser profile"),
            (box_runtime_of(sandbox), "its runtime directory"),
        ] {
            glovebox_platform::files::private_dir(&dir).map_err(|e| failed(what, e))?;
        }
        for dir in policy_dirs(sandbox) {
            dir.prepare(self.pages).map_err(|e| failed("the browser policy", e))?;
        }
        let mut probe = self.command(sandbox, Path::new("/bin/true"), &[]);
        let status = self.starter.run(move || probe.status())?;
        match status {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(BackendError::unavailable(format!(
                "bubblewrap cannot make the agent display's box here ({s}): user namespaces may be disabled; nothing is started unboxed"
            ))),
            Err(e) => Err(BackendError::unavailable(format!("running bubblewrap: {e}"))),
        }
    }

    /// Starts `program` with `args` in the box on `sandbox`.
    pub fn spawn(
        &self,
        sandbox: &Sandbox,
        program: &Path,
        args: &[String],
    ) -> Result<Child, BackendError> {
        let mut command = self.command(sandbox, program, args);
        command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let shown = program.display().to_string();
        self.starter.run(move || command.spawn())?.map_err(|e| {
            BackendError::unavailable(format!("starting {shown} on the agent display: {e}"))
        })
    }

    /// The bubblewrap command line that runs `program` boxed.
    fn command(&self, sandbox: &Sandbox, program: &Path, args: &[String]) -> Command {
        let runtime = sandbox.runtime_dir();
        let home = home_of(sandbox);
        let x_socket = format!("/tmp/.X11-unix/X{}", sandbox.display().trim_start_matches(':'));
        // In the agent display's process group, so it ends with the display.
        let mut command = sandbox.command(&self.bwrap);
        command.args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--tmpfs",
            "/dev/shm",
            "--proc",
            "/proc",
            "--unshare-pid",
            "--new-session",
        ]);
        command.args([
            "--die-with-parent",
            "--tmpfs",
            "/tmp",
            "--tmpfs",
            "/run",
            "--tmpfs",
            "/var/tmp",
        ]);
        // Every home: the user's, whatever $HOME says, and the usual places
        // (the runtime directory is bound again below, wherever it is).
        let mut homes: Vec<PathBuf> = vec!["/home".into(), "/root".into()];
        if let Some(user_home) = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute() && h.is_dir() && h != Path::new("/"))
        {
            if !homes.iter().any(|h| user_home.starts_with(h)) {
                homes.push(user_home);
            }
        }
        for dir in homes.iter().filter(|h| h.is_dir()) {
            command.arg("--tmpfs").arg(dir);
        }
        // The agent display's runtime directory read-only (sockets connect on a read-only
        // mount), and in it only what the box's applications keep writable.
        command.arg("--ro-bind").arg(runtime).arg(runtime);
        for dir in [&home, &browser_profile(sandbox), &box_runtime_of(sandbox)] {
            command.arg("--bind").arg(dir).arg(dir);
        }
        command.arg("--ro-bind").arg(&x_socket).arg(&x_socket);
        for dir in policy_dirs(sandbox) {
            command.arg("--ro-bind").arg(&dir.prepared).arg(&dir.real);
        }
        if self.isolation == Isolation::PrivateNetwork {
            command.arg("--unshare-net");
        }
        if rustix::process::geteuid().is_root() {
            // Run as root, the box keeps two capabilities: a terminal gives
            // its pty to the tty group and sets its shell's groups, and gives
            // up without them.
            command.args([
                "--cap-drop",
                "ALL",
                "--cap-add",
                "CAP_CHOWN",
                "--cap-add",
                "CAP_SETGID",
            ]);
        }
        command.arg("--clearenv");
        for (key, value) in box_env(sandbox, &home) {
            command.arg("--setenv").arg(key).arg(value);
        }
        command.arg("--chdir").arg(&home).arg("--").arg(program).args(args);
        command
    }
}

/// The home directory of every application on the agent display.
fn home_of(sandbox: &Sandbox) -> PathBuf {
    sandbox.runtime_dir().join("home")
}

/// The profile of the agent's browser on `sandbox` (writable in the box).
pub fn browser_profile(sandbox: &Sandbox) -> PathBuf {
    sandbox.runtime_dir().join("browser-profile")
}

/// The `XDG_RUNTIME_DIR` of the box's applications: theirs alone, since
/// the agent display's own is read by processes outside the box.
fn box_runtime_of(sandbox: &Sandbox) -> PathBuf {
    sandbox.runtime_dir().join("box-run")
}

/// The environment of an application in the box: the agent display's, and
/// of the caller's only what says how to run (path, language, user name).
fn box_env(sandbox: &Sandbox, home: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> =
        sandbox.env().into_iter().filter(|(k, _)| k != "XDG_RUNTIME_DIR").collect();
    env.push(("XDG_RUNTIME_DIR".into(), box_runtime_of(sandbox).to_string_lossy().into_owned()));
    env.push(("HOME".into(), home.to_string_lossy().into_owned()));
    for key in [
        "PATH",
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_MESSAGES",
        "USER",
        "LOGNAME",
        "SHELL",
        "TZ",
    ] {
        if let Ok(value) = std::env::var(key) {
            env.push((key.into(), value));
        }
    }
    if !env.iter().any(|(k, _)| k == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    env
}

/// The browsers whose policy the box sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Browser {
    Chromium,
    Firefox,
}

/// Where each browser reads a policy an administrator set, and the file
/// the box adds there.
const POLICY_PLACES: &[(Browser, &str, &str)] = &[
    (Browser::Chromium, "/etc/chromium", "policies/managed/glovebox.json"),
    (Browser::Firefox, "/usr/lib/firefox-esr/distribution", "policies.json"),
    (Browser::Firefox, "/usr/lib/firefox/distribution", "policies.json"),
];

/// A browser's policy directory as the box shows it: a copy of the
/// system's (so an administrator's other settings still hold) with the
/// box's policy in it, bound over the real one.
struct PolicyDir {
    browser: Browser,
    /// The directory the browser reads (links resolved: bubblewrap binds onto it).
    real: PathBuf,
    prepared: PathBuf,
    file: &'static str,
}

/// The policy directories of the browsers installed here.
fn policy_dirs(sandbox: &Sandbox) -> Vec<PolicyDir> {
    POLICY_PLACES
        .iter()
        .enumerate()
        .filter_map(|(n, (browser, dir, file))| {
            let real = std::fs::canonicalize(dir).ok().filter(|d| d.is_dir())?;
            Some(PolicyDir {
                browser: *browser,
                real,
                prepared: sandbox.runtime_dir().join(format!("box-policy-{n}")),
                file,
            })
        })
        .collect()
}

impl PolicyDir {
    fn prepare(&self, pages: BrowserPages) -> std::io::Result<()> {
        copy_files(&self.real, &self.prepared, 4)?;
        let policy = self.prepared.join(self.file);
        if let Some(parent) = policy.parent() {
            std::fs::DirBuilder::new().recursive(true).mode(0o755).create(parent)?;
        }
        match browser_policy(self.browser, pages) {
            Some(text) => std::fs::write(&policy, text),
            None => match std::fs::remove_file(&policy) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
    }
}

/// Copies the regular files and directories under `from` to `to` (policy
/// directories are small; links and anything deeper than `depth` are left out).
fn copy_files(from: &Path, to: &Path, depth: usize) -> std::io::Result<()> {
    std::fs::DirBuilder::new().recursive(true).mode(0o755).create(to)?;
    for entry in std::fs::read_dir(from)?.flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        } else if kind.is_dir() && depth > 0 {
            copy_files(&entry.path(), &to.join(entry.file_name()), depth - 1)?;
        }
    }
    Ok(())
}

/// A browser's policy for the agent display: `open_url`'s rule (the web,
/// nothing local) for every navigation, and developer tools off (they open
/// local files and run code in any page). Nothing when local pages are allowed.
fn browser_policy(browser: Browser, pages: BrowserPages) -> Option<&'static str> {
    match (pages, browser) {
        (BrowserPages::Any, _) => None,
        (BrowserPages::Web, Browser::Chromium) => Some(
            r#"{
  "URLBlocklist": ["*"],
  "URLAllowlist": ["http://*", "https://*", "about:blank"],
  "DeveloperToolsAvailability": 2
}
"#,
        ),
        (BrowserPages::Web, Browser::Firefox) => Some(
            r#"{
  "policies": {
    "WebsiteFilter": { "Block": ["<all_urls>"], "Exceptions": ["http://*/*", "https://*/*"] },
    "DisableDeveloperTools": true
  }
}
"#,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_policy_allows_the_web_only_unless_local_pages_are_allowed() {
        let chromium: serde_json::Value =
            serde_json::from_str(browser_policy(Browser::Chromium, BrowserPages::Web).unwrap())
                .unwrap();
        assert_eq!(chromium["URLBlocklist"], serde_json::json!(["*"]));
        assert_eq!(
            chromium["URLAllowlist"],
            serde_json::json!(["http://*", "https://*", "about:blank"])
        );
        let firefox: serde_json::Value =
            serde_json::from_str(browser_policy(Browser::Firefox, BrowserPages::Web).unwrap())
                .unwrap();
        assert_eq!(
            firefox["policies"]["WebsiteFilter"]["Block"],
            serde_json::json!(["<all_urls>"])
        );
        assert!(
            browser_policy(Browser::Chromium, BrowserPages::Any).is_none()
                && browser_policy(Browser::Firefox, BrowserPages::Any).is_none()
        );
    }
}
