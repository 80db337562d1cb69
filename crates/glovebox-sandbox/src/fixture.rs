//! The fixture apps of `testapps/` launched into a sandbox desktop, with
//! their own state report read back: the external oracle of the tests.

use crate::Desktop;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// How long tests wait for a fixture to reach a state.
pub const FIXTURE_TIMEOUT: Duration = Duration::from_secs(20);

/// Polls `probe` until it yields, panicking after [`FIXTURE_TIMEOUT`].
pub fn wait_until<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + FIXTURE_TIMEOUT;
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A title unique within this test process.
pub fn unique_title(prefix: &str) -> String {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    format!(
        "{prefix} {}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// Which fixture app to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixtureKind {
    /// `testapps/fixture_gtk3.py`.
    Gtk3,
    /// `testapps/fixture_gtk4.py`.
    Gtk4,
    /// `testapps/fixture_term.py` inside xterm (no accessibility; no control FIFO).
    XTerm,
    /// `testapps/fixture_qt5.py` (PyQt5).
    Qt5,
    /// `testapps/fixture_web.py`: the fixture page in Chromium.
    Chromium,
    /// `testapps/fixture_web.py`: the fixture page in Firefox ESR.
    Firefox,
    /// `testapps/fixture_tk_matrix.py`: the same widgets drawn by Tk (no accessibility at all).
    Tk,
}

impl FixtureKind {
    pub fn script(self) -> PathBuf {
        let name = match self {
            FixtureKind::Gtk3 => "fixture_gtk3.py",
            FixtureKind::Gtk4 => "fixture_gtk4.py",
            FixtureKind::XTerm => "fixture_term.py",
            FixtureKind::Qt5 => "fixture_qt5.py",
            FixtureKind::Chromium | FixtureKind::Firefox => "fixture_web.py",
            FixtureKind::Tk => "fixture_tk_matrix.py",
        };
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps").join(name)
    }
}

/// A fixture app (GTK3 by default), killed on drop.
pub struct Fixture {
    pub child: Child,
    pub title: String,
    state_path: PathBuf,
    control_path: PathBuf,
}

impl Fixture {
    pub fn script() -> PathBuf {
        FixtureKind::Gtk3.script()
    }

    /// Starts the GTK3 fixture titled `title` and waits until it reports ready.
    pub fn launch(sandbox: &(impl Desktop + ?Sized), title: &str, args: &[&str]) -> Fixture {
        Self::launch_kind(sandbox, FixtureKind::Gtk3, title, args)
    }

    /// Starts a fixture of `kind` titled `title` and waits until it reports ready.
    pub fn launch_kind(
        sandbox: &(impl Desktop + ?Sized),
        kind: FixtureKind,
        title: &str,
        args: &[&str],
    ) -> Fixture {
        let dir = sandbox.runtime_dir().join(format!("fixture-{}", title.replace([' ', '/'], "_")));
        std::fs::create_dir_all(&dir).expect("fixture directory");
        let (state_path, control_path) = (dir.join("state.json"), dir.join("control"));
        let mut command = match kind {
            FixtureKind::XTerm => {
                let mut c = sandbox.command("xterm".as_ref());
                c.args(["-T", title, "-geometry", "80x24+0+0"])
                    .args(args)
                    .arg("-e")
                    .arg("/usr/bin/python3")
                    .arg(kind.script());
                c
            }
            FixtureKind::Chromium | FixtureKind::Firefox => {
                let mut c = sandbox.command("/usr/bin/python3".as_ref());
                let browser = if kind == FixtureKind::Chromium { "chromium" } else { "firefox" };
                c.arg(kind.script()).args(["--title", title, "--browser", browser]).args(args);
                c
            }
            _ => {
                let mut c = sandbox.command("/usr/bin/python3".as_ref());
                c.arg(kind.script()).args(["--title", title]).args(args);
                c
            }
        };
        if matches!(kind, FixtureKind::Gtk4 | FixtureKind::Chromium | FixtureKind::Firefox) {
            // GTK 4.8 warns on every screen-coordinate query over AT-SPI; keep that out of test output.
            if let Ok(log) = std::fs::File::create(dir.join("stderr.log")) {
                command.stderr(log);
            }
        }
        let child = command
            .env("GLOVEBOX_FIXTURE_STATE", &state_path)
            .env("GLOVEBOX_FIXTURE_CONTROL", &control_path)
            .stdin(Stdio::null())
            .spawn()
            .expect("python3 with GTK3 (python3-gi, gir1.2-gtk-3.0)");
        let fixture = Fixture { child, title: title.to_owned(), state_path, control_path };
        // A browser with a fresh profile takes far longer to start than a toolkit app.
        let patience =
            if matches!(kind, FixtureKind::Chromium | FixtureKind::Firefox) { 4 } else { 1 };
        let deadline = Instant::now() + FIXTURE_TIMEOUT * patience;
        while !fixture.state().is_some_and(|s| s["ready"] == true) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for fixture {title:?} ready: {:?}",
                fixture.state()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        fixture
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills, freezes or thaws the fixture's process.
    pub fn inflict(&self, fault: crate::Fault) {
        crate::inflict(self.pid(), fault).expect("signalling the fixture");
    }

    /// The fixture's latest report of its state.
    pub fn state(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.state_path).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn wait_state(&self, what: &str, mut predicate: impl FnMut(&Value) -> bool) -> Value {
        let deadline = Instant::now() + FIXTURE_TIMEOUT;
        loop {
            let state = self.state();
            if let Some(state) = state.as_ref().filter(|s| predicate(s)) {
                return state.clone();
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} in fixture {:?}; it last said {state:?}",
                self.title
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Sends one control command (see the fixture's docstring).
    pub fn send(&self, command: Value) {
        let mut fifo = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.control_path)
            .expect("fixture control FIFO");
        writeln!(fifo, "{command}").expect("writing to the fixture");
    }

    /// Asks the fixture to activate itself and waits until it says it is active.
    /// The request is repeated every few seconds: a window mapped just after
    /// it (an application finishing its start) may take the focus back.
    pub fn activate(&self) -> Value {
        let mut asked = Instant::now() - Duration::from_secs(10);
        self.wait_state("fixture active", |s| {
            if s["window_active"] == true {
                return true;
            }
            if asked.elapsed() >= Duration::from_secs(3) {
                self.send(serde_json::json!({"cmd": "present"}));
                asked = Instant::now();
            }
            false
        })
    }

    /// Activates the fixture and keeps it active until it has stayed so for
    /// half a second (ten seconds at most): a window mapped just before may
    /// still be given the focus by the window manager, and applications ask
    /// to be activated as they finish starting (zenity and LibreOffice do, late).
    pub fn keep_active(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        self.activate();
        let mut steady = Instant::now();
        while steady.elapsed() < Duration::from_millis(500) && Instant::now() < deadline {
            if self.state().is_some_and(|s| s["window_active"] != true) {
                self.activate();
                steady = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
