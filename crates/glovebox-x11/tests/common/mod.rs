//! Shared by the end-to-end test binaries: the GTK3 fixture app, launched
//! into a sandbox desktop, with its own state report as the oracle.
#![allow(dead_code)]

use glovebox_model::{WindowInfo, WindowRef};
use glovebox_platform::WindowSource;
use glovebox_sandbox::Sandbox;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(20);

/// Tests that change focus, stacking or the layout take turns on a desktop.
pub fn desktop_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

pub fn fixture_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps/fixture_gtk3.py")
}

pub fn unique(prefix: &str) -> String {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    format!("{prefix} {}-{}", std::process::id(), N.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

pub fn wait_until<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

pub struct Fixture {
    pub child: Child,
    pub title: String,
    state_path: PathBuf,
    control_path: PathBuf,
}

impl Fixture {
    pub fn launch(sandbox: &Sandbox, title: &str, args: &[&str]) -> Fixture {
        let dir = sandbox.runtime_dir().join(format!("fixture-{}", title.replace([' ', '/'], "_")));
        std::fs::create_dir_all(&dir).unwrap();
        let (state_path, control_path) = (dir.join("state.json"), dir.join("control"));
        let child = sandbox
            .command("/usr/bin/python3")
            .arg(fixture_script())
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

    pub fn state(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.state_path).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn wait_state(&self, what: &str, mut predicate: impl FnMut(&Value) -> bool) -> Value {
        wait_until(what, || self.state().filter(|s| predicate(s)))
    }

    pub fn send(&self, command: Value) {
        let mut fifo = std::fs::OpenOptions::new().write(true).open(&self.control_path).expect("fixture control FIFO");
        writeln!(fifo, "{command}").unwrap();
    }

    /// The fixture's window as the backend lists it, once it is there.
    pub fn window(&self, backend: &impl WindowSource) -> WindowInfo {
        let reference = WindowRef::PidTitle { pid: self.pid(), title: self.title.clone() };
        wait_until("fixture window listed", || backend.list_windows().ok().and_then(|w| reference.resolve(&w).ok().cloned()))
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

/// An xterm in the sandbox (no accessibility, a different toolkit).
pub fn xterm(sandbox: &Sandbox, title: &str, geometry: &str) -> Child {
    sandbox
        .command("xterm")
        .args(["-title", title, "-geometry", geometry, "-e", "sleep", "600"])
        .stdin(Stdio::null())
        .spawn()
        .expect("xterm is installed")
}

pub fn sandbox_tool(sandbox: &Sandbox, program: &str) -> Command {
    sandbox.command(program)
}
