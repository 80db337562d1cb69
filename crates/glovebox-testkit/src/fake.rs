//! The fake world of the pure policy, loop and surface tests: a host over
//! glovebox-platform's fake desktop, with the windows and processes a test
//! declares. No display, no bus: only decisions are tested here.

use glovebox_host::process::{current_uid, DeclaredProcesses};
use glovebox_host::{Backends, Host, HostConfig};
use glovebox_model::{Monitor, PidSource, Rect, WindowId, WindowInfo};
use glovebox_platform::fake::{FakeDesktop, FakeWindow};
use std::sync::Arc;

/// The protected programs of the fake desktop's hosts: Linux's, so the
/// policy tests deny what a Linux desktop denies.
pub const PROTECTED: glovebox_platform::ProtectedPrograms = glovebox_linux::PROTECTED;

/// A host and the fake desktop it acts on.
pub struct FakeWorld {
    pub desktop: Arc<FakeDesktop>,
    pub host: Host,
    /// Where the host writes its audit.
    pub audit_path: std::path::PathBuf,
}

/// A fake world being set up; [`fake_world`] starts one.
pub struct FakeWorldBuilder {
    screen: Rect,
    windows: Vec<FakeWindow>,
    processes: Option<DeclaredProcesses>,
    config: HostConfig,
}

/// A world for the test called `name`: a 1920×1080 screen, no windows yet,
/// every approval class allowed, its display directory and audit in a fresh
/// temporary directory of its own.
pub fn fake_world(name: &str) -> FakeWorldBuilder {
    let root = std::env::temp_dir().join(format!("glovebox-fake-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut config = HostConfig::new(&format!(":fake-{name}"));
    config.approvals = glovebox_host::Approvals::allow_all();
    config.runtime_root = root.join("run");
    config.audit_path = root.join("audit.jsonl");
    FakeWorldBuilder {
        screen: Rect::new(0, 0, 1920, 1080),
        windows: vec![],
        processes: None,
        config,
    }
}

/// A window of a user's application on the fake desktop; its pixels are one
/// colour taken from its X id.
pub fn fake_window(id: WindowId, app: &str, title: &str, geometry: Rect) -> FakeWindow {
    FakeWindow {
        info: WindowInfo {
            id,
            app: app.into(),
            instance: app.to_lowercase(),
            title: title.into(),
            pid_source: PidSource::Server,
            geometry,
            focused: false,
            minimized: false,
            desktop: glovebox_model::Desktop::User,
        },
        colour: [id.handle as u8, 0, 0],
    }
}

impl FakeWorldBuilder {
    /// The whole screen (one monitor).
    pub fn screen(mut self, screen: Rect) -> Self {
        self.screen = screen;
        self
    }

    /// A window, frontmost first in the order given.
    pub fn window(mut self, window: FakeWindow) -> Self {
        self.windows.push(window);
        self
    }

    /// The process table; by default glovebox itself and one process per
    /// window (`/usr/bin/<instance>`, the user's, a child of init).
    pub fn processes(mut self, processes: DeclaredProcesses) -> Self {
        self.processes = Some(processes);
        self
    }

    /// Any other setting of the host's configuration.
    pub fn configure(mut self, change: impl FnOnce(&mut HostConfig)) -> Self {
        change(&mut self.config);
        self
    }

    /// The configuration the host would open with.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    pub fn open(self) -> FakeWorld {
        let monitors = vec![Monitor { name: "screen".into(), logical: self.screen, primary: true }];
        let uid = current_uid();
        let processes = self.processes.unwrap_or_else(|| {
            let mut rows = vec![(std::process::id(), 1, uid, "/usr/bin/glovebox".to_owned())];
            rows.extend(
                self.windows
                    .iter()
                    .map(|w| (w.info.id.pid, 1, uid, format!("/usr/bin/{}", w.info.instance))),
            );
            DeclaredProcesses::new(
                rows.iter().map(|(pid, parent, uid, exe)| (*pid, *parent, *uid, exe.as_str())),
            )
        });
        let desktop = Arc::new(FakeDesktop::new(self.screen, monitors, self.windows));
        let audit_path = self.config.audit_path.clone();
        FakeWorld {
            host: fake_host(desktop.clone(), processes, self.config).unwrap(),
            desktop,
            audit_path,
        }
    }
}

/// A host over `desktop` with `processes`, for tests that keep one desktop
/// across several hosts (another process table, another configuration, a
/// host that must refuse to open).
pub fn fake_host(
    desktop: Arc<FakeDesktop>,
    processes: DeclaredProcesses,
    config: HostConfig,
) -> Result<Host, glovebox_model::Refusal> {
    Host::open(Backends::of_fake_desktop(desktop, Arc::new(processes), PROTECTED), config)
}
