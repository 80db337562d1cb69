//! What glovebox's tests share, so no suite rebuilds it: the host builders
//! over a sandbox desktop ([`host`], [`wayland_host`]), the snapshot of the
//! user's desktop a background action must leave as it was
//! ([`desktop::Desktop`]), the fake world the pure policy, loop and surface
//! tests run on ([`fake`]), the scripted MCP client ([`mcp`]) and `glovebox serve` over plain HTTP ([`serve`]). Fixture apps are launched through
//! `glovebox_sandbox::fixture`.
#![forbid(unsafe_code)]

pub mod architecture;
pub mod contract;
pub mod desktop;
pub mod fake;
mod host;
pub mod mcp;
pub mod model;
pub mod sdk;
pub mod serve;

pub use host::{
    audit_path, gnome_extension, gnome_host, gnome_host_with, host, kde_host, kde_host_with,
    wayland_host, TestHost, WaylandTestHost,
};

/// One test at a time, across every suite of a test binary, among those
/// that start a large application (LibreOffice, a browser, GTK4's widget
/// factory) or time the window manager: each suite runs on its own desktop,
/// but they share the machine's two cores, and such a test run beside
/// another misses deadlines (a tree walk's 3 s, an activation's 2 s) that
/// it meets alone. Taken before a suite's own turn.
pub fn heavy_turn() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    HEAVY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What `script` prints, a Python program using pyatspi (Debian's
/// `/usr/bin/python3`) run on `desktop`'s accessibility bus with `pid` as
/// its one argument: the second AT-SPI client the end-to-end suites check
/// what glovebox read against.
pub fn pyatspi(
    desktop: &glovebox_sandbox::Sandbox,
    script: &str,
    pid: u32,
) -> std::process::Output {
    desktop
        .command("/usr/bin/python3")
        .args(["-c", script, &pid.to_string()])
        .output()
        .expect("python3-pyatspi")
}

/// A private desktop as a person has it: accessibility left as the bus
/// starts it (`IsEnabled` off), no variables or switches for it.
pub fn cold_desktop() -> glovebox_sandbox::Sandbox {
    glovebox_sandbox::Sandbox::start(glovebox_sandbox::SandboxOptions {
        accessibility: glovebox_sandbox::AccessibilityAtStart::Cold,
        ..Default::default()
    })
    .expect("a cold sandbox desktop")
}

/// A child process a test started, killed and reaped when the test ends —
/// also when it fails half-way, so no fixture outlives its test.
pub struct Reaped(pub std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
