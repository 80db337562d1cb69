//! The fixture apps of `testapps/` launched into a sandbox desktop, with
//! their own state report read back: the external oracle of the tests.

use crate::Sandbox;
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
    format!("{prefix} {}-{}", std::process::id(), N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// The GTK3 fixture app (`testapps/fixture_gtk3.py`), killed on drop.
pub struct Fixture {
    pub child: Child,
    pub title: String,
    state_path: PathBuf,
    control_path: PathBuf,
}

impl Fixture {
    pub fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/fixture_gtk3.py")
    }

    /// Starts the fixture titled `title` and waits until it reports ready.
    pub fn launch(sandbox: &Sandbox, title: &str, args: &[&str]) -> Fixture {
        let dir = sandbox.runtime_dir().join(format!("fixture-{}", title.replace([' ', '/'], "_")));
        std::fs::create_dir_all(&dir).expect("fixture directory");
        let (state_path, control_path) = (dir.join("state.json"), dir.join("control"));
        let child = sandbox
            .command("/usr/bin/python3")
            .arg(Self::script())
            .args(["--title", title])
            .args(args)
            .env("GLOVEBOX_FIXTURE_STATE", &state_path)
            .env("GLOVEBOX_FIXTURE_CONTROL", &control_path)
            .stdin(Stdio::null())
            .spawn()
            .expect("python3 with GTK3 (python3-gi, gir1.2-gtk-3.0)");
        let fixture = Fixture { child, title: title.to_owned(), state_path, control_path };
        fixture.wait_state("fixture ready", |s| s["ready"] == true);
        fixture
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The fixture's latest report of its state.
    pub fn state(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.state_path).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn wait_state(&self, what: &str, mut predicate: impl FnMut(&Value) -> bool) -> Value {
        wait_until(what, || self.state().filter(|s| predicate(s)))
    }

    /// Sends one control command (see the fixture's docstring).
    pub fn send(&self, command: Value) {
        let mut fifo = std::fs::OpenOptions::new().write(true).open(&self.control_path).expect("fixture control FIFO");
        writeln!(fifo, "{command}").expect("writing to the fixture");
    }

    /// Asks the fixture to activate itself and waits until it says it is active.
    pub fn activate(&self) -> Value {
        self.send(serde_json::json!({"cmd": "present"}));
        self.wait_state("fixture active", |s| s["window_active"] == true)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
