//! The one host builder of the end-to-end tests: a host over a sandbox
//! desktop's real backends, every approval class allowed (approval prompts
//! have tests of their own), its runtime directory and audit file named
//! after the test.

use glovebox_host::{Host, HostConfig};
use glovebox_sandbox::Sandbox;
use std::path::PathBuf;
use std::sync::Arc;

/// A host being set up for one test; [`host`] starts one.
pub struct TestHost<'a> {
    sandbox: &'a Sandbox,
    config: HostConfig,
    options: glovebox_linux::Options,
}

/// A host on `sandbox` for the test called `name`: every class allowed, its
/// files under the sandbox's runtime directory (`glovebox-NAME`,
/// `audit-NAME.jsonl`).
pub fn host<'a>(sandbox: &'a Sandbox, name: &str) -> TestHost<'a> {
    TestHost {
        sandbox,
        config: config_for(sandbox.display(), sandbox.runtime_dir(), name),
        options: Default::default(),
    }
}

/// Where the host of the test called `name` writes its audit.
pub fn audit_path(sandbox: &Sandbox, name: &str) -> PathBuf {
    sandbox.runtime_dir().join(format!("audit-{name}.jsonl"))
}

fn config_for(display: &str, runtime_dir: &std::path::Path, name: &str) -> HostConfig {
    let mut config = HostConfig::new(display);
    config.approvals = glovebox_host::Approvals::allow_all();
    config.runtime_root = runtime_dir.join(format!("glovebox-{name}"));
    config.audit_path = runtime_dir.join(format!("audit-{name}.jsonl"));
    config
}

impl<'a> TestHost<'a> {
    /// Guidance per application, as the binary loads it from the shipped and user files.
    pub fn guidance(mut self, entries: Vec<glovebox_model::GuidanceEntry>) -> Self {
        self.config.guidance = entries;
        self
    }

    /// Applications the host refuses, as `deny.apps` would list them.
    pub fn deny(mut self, apps: &[&str]) -> Self {
        self.config.deny = apps.iter().map(|app| app.to_string()).collect();
        self
    }

    /// Keep the host's display directory (its lock and control socket) in
    /// the runtime directory every host of the suite shares (`glovebox`),
    /// instead of one of its own.
    pub fn shared_runtime(mut self) -> Self {
        self.config.runtime_root = self.sandbox.runtime_dir().join("glovebox");
        self
    }

    /// Draw the agent's cursor, as `overlay = true` does.
    pub fn overlay(mut self) -> Self {
        self.options.overlay = true;
        self
    }

    /// Any other setting of the host's configuration.
    pub fn configure(mut self, change: impl FnOnce(&mut HostConfig)) -> Self {
        change(&mut self.config);
        self
    }

    /// The host over the sandbox's X11 and AT-SPI backends.
    pub fn open(self) -> Host {
        let backends = glovebox_linux::backends_with(
            Some(self.sandbox.display()),
            Some(self.sandbox.bus_address()),
            &self.options,
        )
        .unwrap();
        Host::open(backends, self.config).unwrap()
    }

    /// The host over the sandbox's desktop and the agent display beside it
    /// (started on first use), with the desktops to reach that display.
    pub fn open_with_agent_display(mut self) -> (Host, Arc<glovebox_linux::agent::Desktops>) {
        // The agent's browser keeps the host's rule for web addresses.
        self.options.agent_browser = match self.config.allow_local_urls {
            true => glovebox_platform::BrowserPages::Any,
            false => glovebox_platform::BrowserPages::Web,
        };
        let desktops = glovebox_linux::desktops_with(
            Some(self.sandbox.display()),
            Some(self.sandbox.bus_address()),
            &self.options,
        )
        .unwrap();
        (Host::open(desktops.backends(), self.config).unwrap(), desktops)
    }
}

/// A host being set up on a headless Wayland desktop; [`wayland_host`]
/// starts one.
pub struct WaylandTestHost<'a> {
    sandbox: &'a glovebox_sandbox::wayland::WaylandSandbox,
    config: HostConfig,
    /// Why the compositor's IPC is left unused, when it is.
    without_ipc: Option<&'static str>,
}

/// A host on a headless Wayland desktop for the test called `name`, every
/// class allowed, over the compositor's IPC and the desktop's AT-SPI bus.
pub fn wayland_host<'a>(
    sandbox: &'a glovebox_sandbox::wayland::WaylandSandbox,
    name: &str,
) -> WaylandTestHost<'a> {
    let runtime_dir = glovebox_sandbox::Desktop::runtime_dir(sandbox);
    let config =
        config_for(&format!("wayland:{}:{name}", sandbox.socket().display()), runtime_dir, name);
    WaylandTestHost { sandbox, config, without_ipc: None }
}

impl WaylandTestHost<'_> {
    /// Applications the host refuses, as `deny.apps` would list them.
    pub fn deny(mut self, apps: &[&str]) -> Self {
        self.config.deny = apps.iter().map(|app| app.to_string()).collect();
        self
    }

    /// Windows from accessibility alone, as on a compositor that lists
    /// none to other clients; `reason` is what the host reports.
    pub fn without_compositor_ipc(mut self, reason: &'static str) -> Self {
        self.without_ipc = Some(reason);
        self
    }

    pub fn open(self) -> Host {
        let bus = Some(self.sandbox.bus_address());
        let backends = match self.without_ipc {
            Some(reason) => glovebox_linux::wayland::backends_without_compositor(bus, reason)
                .expect("Wayland backends"),
            None => {
                let session = glovebox_wayland::Session::at(self.sandbox.socket())
                    .expect("the sandbox's IPC socket");
                glovebox_linux::wayland::backends(session, bus).expect("Wayland backends")
            }
        };
        Host::open(backends, self.config).unwrap()
    }
}

/// A host on the headless KDE desktop for the test called `name`, every
/// class allowed, over KWin's services and the desktop's AT-SPI bus.
pub fn kde_host(sandbox: &glovebox_sandbox::kde::KdeSandbox, name: &str) -> Host {
    kde_host_with(sandbox, name, |_| {})
}

/// [`kde_host`] with any other setting of the host's configuration.
pub fn kde_host_with(
    sandbox: &glovebox_sandbox::kde::KdeSandbox,
    name: &str,
    change: impl FnOnce(&mut HostConfig),
) -> Host {
    let bus = sandbox.bus_address();
    let kwin =
        glovebox_wayland::kwin::KWinBackend::connect(Some(bus)).expect("KWin on the sandbox's bus");
    let kwin = glovebox_linux::wayland::kwin_with_xwayland(kwin, Some(sandbox.x_display()));
    served_host(kwin, sandbox.socket(), sandbox.runtime_dir(), bus, name, change)
}

/// A host over a served desktop's compositor `served`, as the binary composes one.
fn served_host<S>(
    served: S,
    socket: &std::path::Path,
    runtime_dir: &std::path::Path,
    bus: &str,
    name: &str,
    change: impl FnOnce(&mut HostConfig),
) -> Host
where
    S: glovebox_platform::WindowSource
        + glovebox_platform::ScreenCapture
        + glovebox_linux::wayland::SeatKeys
        + 'static,
{
    let mut config = config_for(&format!("wayland:{}:{name}", socket.display()), runtime_dir, name);
    change(&mut config);
    let backends =
        glovebox_linux::wayland::backends_served(served, Some(bus), Some(socket.to_owned()))
            .expect("the served desktop's backends");
    Host::open(backends, config).unwrap()
}

/// A host on the headless GNOME desktop for the test called `name`, every
/// class allowed, over GNOME Shell (glovebox's extension) and AT-SPI.
pub fn gnome_host(sandbox: &glovebox_sandbox::gnome::GnomeSandbox, name: &str) -> Host {
    gnome_host_with(sandbox, name, |_| {})
}

/// [`gnome_host`] with any other setting of the host's configuration.
pub fn gnome_host_with(
    sandbox: &glovebox_sandbox::gnome::GnomeSandbox,
    name: &str,
    change: impl FnOnce(&mut HostConfig),
) -> Host {
    let bus = sandbox.bus_address();
    let gnome = glovebox_wayland::gnome::GnomeShellBackend::connect(Some(bus))
        .expect("GNOME Shell on the sandbox's bus");
    served_host(gnome, sandbox.socket(), sandbox.runtime_dir(), bus, name, change)
}

/// glovebox's GNOME Shell extension for a sandbox, answering `programs`.
pub fn gnome_extension(programs: &[&std::path::Path]) -> glovebox_sandbox::gnome::ShellExtension {
    glovebox_linux::wayland::gnome_sandbox_extension(programs)
}
