//! Starting applications for `open_app` on Linux: by desktop entry (its
//! file name or `Name`, from the XDG data directories) or by executable
//! (an absolute path, or a name on `PATH`). The child runs detached in its
//! own process group, with the desktop's display and session bus.

use glovebox_model::Desktop;
use glovebox_platform::{AppLauncher, LaunchPlan};
use glovebox_platform::{BackendError, BackendErrorKind};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct DesktopLauncher {
    /// The display for the child; the caller's own when `None`.
    pub display: Option<ChildDisplay>,
    /// `DBUS_SESSION_BUS_ADDRESS` for the child; the caller's own when `None`.
    pub session_bus: Option<String>,
    /// Who puts the user's window back after a launch.
    pub window_manager: WindowManager,
}

/// Where a launched application shows its windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildDisplay {
    /// An X display such as `:3`.
    X11(String),
    /// A Wayland compositor's socket; the child is told to use Wayland.
    Wayland(PathBuf),
}

/// What can give the user's window back its focus after a launch.
#[derive(Clone)]
pub enum WindowManager {
    /// Nothing can: the launch's focus stays as the desktop left it.
    Unreachable,
    X11(std::sync::Arc<glovebox_x11::X11Backend>),
    Wayland(std::sync::Arc<glovebox_wayland::WaylandBackend>),
}

/// Directories holding `.desktop` files, most specific first.
fn application_dirs() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".local/share")));
    let data_dirs = std::env::var("XDG_DATA_DIRS")
        .ok()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
    data_home
        .into_iter()
        .chain(data_dirs.split(':').map(PathBuf::from))
        .map(|d| d.join("applications"))
        .collect()
}

/// `Name` and `Exec` of a launchable `[Desktop Entry]`.
fn read_entry(path: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    let (mut in_entry, mut name, mut exec, mut hidden, mut application) =
        (false, None, None, false, false);
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
            continue;
        }
        let Some((key, value)) = line.split_once('=').filter(|_| in_entry) else { continue };
        match key.trim() {
            "Name" => name = Some(value.trim().to_owned()),
            "Exec" => exec = Some(value.trim().to_owned()),
            "Hidden" => hidden = value.trim() == "true",
            "Type" => application = value.trim() == "Application",
            _ => {}
        }
    }
    (application && !hidden).then_some(())?;
    Some((name?, exec?))
}

/// Splits an `Exec` value into words (double quotes group; backslash
/// escapes inside them) and drops field codes (`%f`, `%U`, …).
fn exec_words(exec: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut escaped, mut started) =
        (vec![], String::new(), false, false, false);
    for c in exec.chars() {
        match c {
            _ if escaped => {
                word.push(c);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
        .into_iter()
        .filter(|w| !(w.len() == 2 && w.starts_with('%')))
        .map(|w| w.replace("%%", "%"))
        .collect()
}

/// A plan for `program`, with what it runs found now ([`crate::resolve`]).
trait Resolved {
    fn resolved(name: String, program: PathBuf, args: Vec<String>) -> LaunchPlan;
}

impl Resolved for LaunchPlan {
    fn resolved(name: String, program: PathBuf, args: Vec<String>) -> LaunchPlan {
        let dirs: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        let runs = crate::resolve::programs_run_by(&program, &dirs);
        LaunchPlan { name, program, args, runs }
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl AppLauncher for DesktopLauncher {
    fn plan(&self, name: &str) -> Result<LaunchPlan, BackendError> {
        if name.contains('/') {
            let path = PathBuf::from(name);
            if !path.is_absolute() || !is_executable(&path) {
                return Err(BackendError::invalid_argument(format!(
                    "{name:?} is not an absolute path to an executable file"
                )));
            }
            let base =
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            return Ok(LaunchPlan::resolved(base, path, vec![]));
        }
        let wanted = name.to_lowercase();
        for dir in application_dirs() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut files: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "desktop"))
                .collect();
            files.sort();
            for file in files {
                let stem = file
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_lowercase())
                    .unwrap_or_default();
                let Some((entry_name, exec)) = read_entry(&file) else { continue };
                if stem != wanted && entry_name.to_lowercase() != wanted {
                    continue;
                }
                let mut words = exec_words(&exec).into_iter();
                let Some(program) = words.next() else { continue };
                let program = if program.contains('/') {
                    PathBuf::from(&program)
                } else {
                    on_path(&program).unwrap_or_else(|| PathBuf::from(&program))
                };
                if !is_executable(&program) {
                    return Err(BackendError::invalid_argument(format!(
                        "desktop entry {} runs {}, which is not installed",
                        file.display(),
                        program.display()
                    )));
                }
                return Ok(LaunchPlan::resolved(entry_name, program, words.collect()));
            }
        }
        match on_path(name) {
            Some(program) => Ok(LaunchPlan::resolved(name.to_owned(), program, vec![])),
            None => Err(BackendError::invalid_argument(format!(
                "there is no desktop entry or executable named {name:?}"
            ))),
        }
    }

    fn launch(&self, plan: &LaunchPlan, desktop: Desktop) -> Result<u32, BackendError> {
        if desktop == Desktop::Agent {
            return Err(BackendError::new(
                BackendErrorKind::Unsupported,
                "this desktop has no agent display to start applications on",
            ));
        }
        let mut command = accessible_command(plan);
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).process_group(0);
        match &self.display {
            Some(ChildDisplay::X11(display)) => {
                command.env("DISPLAY", display);
            }
            Some(ChildDisplay::Wayland(socket)) => {
                command
                    .env("WAYLAND_DISPLAY", socket)
                    .env("XDG_SESSION_TYPE", "wayland")
                    .env("GDK_BACKEND", "wayland")
                    .env("QT_QPA_PLATFORM", "wayland");
                command.env_remove("DISPLAY");
                // GTK opens no Wayland display without a runtime directory; the socket's is the one it names.
                if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
                    if let Some(dir) = socket.parent() {
                        command.env("XDG_RUNTIME_DIR", dir);
                    }
                }
            }
            None => {}
        }
        if let Some(bus) = &self.session_bus {
            command.env("DBUS_SESSION_BUS_ADDRESS", bus);
        }
        // A startup id stamped at time 0 tells toolkits (GTK, Qt) to mark the
        // first window as not asked for by the user, so window managers with
        // focus-stealing prevention map it without focusing it.
        command.env("DESKTOP_STARTUP_ID", format!("glovebox-{}_TIME0", std::process::id()));
        let mut child = command.spawn().map_err(|e| {
            BackendError::unavailable(format!("starting {}: {e}", plan.program.display()))
        })?;
        let pid = child.id();
        // Reaped in the background so it never lingers as a zombie.
        std::thread::spawn(move || child.wait());
        Ok(pid)
    }

    fn browser(&self, _url: &str) -> Result<LaunchPlan, BackendError> {
        Err(BackendError::new(
            BackendErrorKind::Unsupported,
            "web addresses are opened on the agent display, which this desktop does not have",
        ))
    }

    fn hand_back(
        &self,
        user: glovebox_model::WindowId,
        started: glovebox_model::WindowId,
    ) -> Result<bool, BackendError> {
        match &self.window_manager {
            WindowManager::X11(x11) => x11.hand_back(user.handle, started.handle),
            WindowManager::Wayland(wayland) => wayland.hand_back(user, started),
            WindowManager::Unreachable => Ok(false),
        }
    }
}

/// What turns accessibility on in a program as it starts, for toolkits
/// that decide only then (measured on Debian 12): Firefox reads
/// `GNOME_ACCESSIBILITY`, Qt 5 and 6 `QT_LINUX_ACCESSIBILITY_ALWAYS_ON`.
/// Given to every application `open_app` starts, and what `glovebox setup
/// accessibility` makes hold for the person's own. Never a screen
/// reader's flag: GNOME starts Orca when `ScreenReaderEnabled` turns on.
pub const ACCESSIBILITY_AT_START: &[(&str, &str)] =
    &[("GNOME_ACCESSIBILITY", "1"), ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")];

/// Chromium's switch for the same: Chromium 156 builds a page's tree only
/// when started with it (`ACCESSIBILITY_ENABLED=1` and `IsEnabled` at start
/// left the page bare when measured).
pub const CHROMIUM_ACCESSIBILITY_SWITCH: &str = "--force-renderer-accessibility";

/// Whether `program` is a Chromium build or an Electron app (VS Code,
/// Slack, Discord …), which take [`CHROMIUM_ACCESSIBILITY_SWITCH`]: by its
/// name, or by Chromium's V8 snapshot or Electron's `resources/app.asar`
/// beside the program it resolves to (or one directory up, where a
/// launcher script sits in `bin/`).
pub fn is_chromium(program: &Path) -> bool {
    let name = program.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if matches!(
        name,
        "chromium" | "chromium-browser" | "google-chrome" | "google-chrome-stable" | "chrome"
    ) {
        return true;
    }
    let Ok(real) = std::fs::canonicalize(program) else { return false };
    real.ancestors().skip(1).take(2).any(|dir| {
        dir.join("v8_context_snapshot.bin").is_file() || dir.join("resources/app.asar").is_file()
    })
}

/// The command that starts `plan` with its accessibility on: the
/// variables of [`ACCESSIBILITY_AT_START`], and Chromium's switch (with
/// `--no-sandbox` as root, where Chromium's own sandbox cannot run).
fn accessible_command(plan: &LaunchPlan) -> Command {
    let mut command = Command::new(&plan.program);
    if is_chromium(&plan.program) {
        for switch in [CHROMIUM_ACCESSIBILITY_SWITCH, "--no-sandbox"] {
            let wanted = switch != "--no-sandbox" || rustix::process::geteuid().is_root();
            if wanted && !plan.args.iter().any(|a| a == switch) {
                command.arg(switch);
            }
        }
    }
    command.args(&plan.args).envs(ACCESSIBILITY_AT_START.iter().copied());
    command
}

/// A browser from Debian's archive that opens `url` in a new window with
/// the private profile `profile` (accessibility on, no first-run pages).
pub fn browser_plan(url: &str, profile: &Path) -> Result<LaunchPlan, BackendError> {
    if let Some(program) = on_path("chromium") {
        let mut args = vec![
            format!("--user-data-dir={}", profile.display()),
            CHROMIUM_ACCESSIBILITY_SWITCH.into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-gpu".into(),
        ];
        // Chromium's own sandbox cannot run as root; as any other user it stays on.
        if rustix::process::geteuid().is_root() {
            args.push("--no-sandbox".into());
        }
        args.extend(["--new-window".into(), url.to_owned()]);
        return Ok(LaunchPlan::resolved("Chromium".into(), program, args));
    }
    if let Some(program) = on_path("firefox-esr").or_else(|| on_path("firefox")) {
        let args = vec![
            "--no-remote".into(),
            "--new-instance".into(),
            "--profile".into(),
            profile.display().to_string(),
            url.to_owned(),
        ];
        return Ok(LaunchPlan::resolved("Firefox".into(), program, args));
    }
    Err(BackendError::new(BackendErrorKind::Unsupported, "no browser is installed to open web addresses in (Debian packages chromium or firefox-esr)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_lines_lose_field_codes_and_keep_quoted_words() {
        assert_eq!(exec_words("gedit %U"), vec!["gedit"]);
        assert_eq!(exec_words(r#"sh -c "echo \"a b\"" %f"#), vec!["sh", "-c", "echo \"a b\""]);
        assert_eq!(exec_words("app --rate=50%% %i"), vec!["app", "--rate=50%"]);
    }

    #[test]
    fn applications_start_with_their_accessibility_on() {
        let chromium = LaunchPlan::resolved(
            "Chromium".into(),
            "/usr/bin/chromium".into(),
            vec!["--new-window".into()],
        );
        let command = accessible_command(&chromium);
        let args: Vec<_> = command.get_args().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(args[0], CHROMIUM_ACCESSIBILITY_SWITCH);
        assert_eq!(args.last(), Some(&"--new-window"));
        assert_eq!(args.contains(&"--no-sandbox"), rustix::process::geteuid().is_root());
        let envs: Vec<_> = command
            .get_envs()
            .map(|(k, v)| (k.to_str().unwrap(), v.and_then(|v| v.to_str())))
            .collect();
        for (name, value) in ACCESSIBILITY_AT_START {
            assert!(envs.contains(&(*name, Some(*value))), "{envs:?}");
        }
        // Another program gets the variables and no switch of Chromium's.
        let editor = LaunchPlan::resolved("Editor".into(), "/usr/bin/mousepad".into(), vec![]);
        assert_eq!(accessible_command(&editor).get_args().count(), 0);
    }

    #[test]
    fn electron_apps_are_known_by_what_lies_beside_them() {
        let root = std::env::temp_dir().join(format!("glovebox-electron-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("code/bin")).unwrap();
        std::fs::create_dir_all(root.join("slack/resources")).unwrap();
        std::fs::create_dir_all(root.join("editor")).unwrap();
        for file in [
            "code/bin/code",
            "code/v8_context_snapshot.bin",
            "slack/slack",
            "slack/resources/app.asar",
            "editor/editor",
        ] {
            std::fs::write(root.join(file), "").unwrap();
        }
        std::os::unix::fs::symlink(root.join("code/bin/code"), root.join("code-link")).unwrap();
        assert!(is_chromium(&root.join("code-link")));
        assert!(is_chromium(&root.join("slack/slack")));
        assert!(!is_chromium(&root.join("editor/editor")));
        assert!(!is_chromium(Path::new("/nonexistent/program")));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn unknown_names_are_refused() {
        let launcher = DesktopLauncher {
            display: None,
            session_bus: None,
            window_manager: WindowManager::Unreachable,
        };
        assert!(launcher.plan("no-such-program-glovebox").is_err());
        assert!(launcher.plan("relative/path").is_err());
        assert_eq!(launcher.plan("sh").unwrap().program.file_name().unwrap(), "sh");
    }
}
