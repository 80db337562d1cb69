//! Shared by the end-to-end test modules: the GTK3 fixture app, launched
//! into a sandbox desktop, with its own state report as the oracle.
#![allow(dead_code, unused_imports)]

use glovebox_model::{WindowInfo, WindowRef};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::WindowSource;
use glovebox_sandbox::Sandbox;
use std::process::{Child, Stdio};
use std::sync::{Mutex, MutexGuard};

pub use glovebox_sandbox::fixture::{unique_title as unique, wait_until, Fixture};

/// Tests that change focus, stacking or the layout take turns on a desktop.
pub fn desktop_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock_recovered()
}

/// The fixture's window as the backend lists it, once it is there.
pub fn window_of(fixture: &Fixture, backend: &impl WindowSource) -> WindowInfo {
    let reference = WindowRef::PidTitle { pid: fixture.pid(), title: fixture.title.clone() };
    wait_until("fixture window listed", || {
        backend.list_windows().ok().and_then(|w| reference.resolve(&w).ok().cloned())
    })
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

/// The code the host gives a backend's failure (or a model refusal's own).
pub trait Code {
    fn code(&self) -> glovebox_model::ErrorCode;
}

impl Code for glovebox_platform::BackendError {
    fn code(&self) -> glovebox_model::ErrorCode {
        glovebox_host::refusal_of(self.clone()).code
    }
}

impl Code for glovebox_model::Refusal {
    fn code(&self) -> glovebox_model::ErrorCode {
        self.code
    }
}
