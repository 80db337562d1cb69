//! The fake desktop the executor tests run on.
#![allow(dead_code)]

use glovebox_host::process::{current_uid, DeclaredProcesses};
use glovebox_host::{Backends, Host, HostConfig};
use glovebox_model::{Monitor, PidSource, Rect, WindowId, WindowInfo};
use glovebox_platform::fake::{FakeDesktop, FakeWindow};
use glovebox_platform::ResolvedTarget;
use serde_json::{json, Value};
use std::sync::Arc;

pub const EDITOR: WindowId = WindowId { pid: 1001, xid: 0x20 };

/// One 640×480 window at (100, 100) on a 1920×1080 screen; its tree has an
/// `OK` button at (10, 10, 50, 20) and a password field at (10, 40, 100, 20).
pub struct World {
    pub desktop: Arc<FakeDesktop>,
    pub host: Host,
}

impl World {
    pub fn new(name: &str, budget: u32) -> World {
        World::sized(name, budget, Rect::new(100, 100, 640, 480))
    }

    /// One window with `geometry` (a small one keeps screenshots cheap).
    pub fn sized(name: &str, budget: u32, geometry: Rect) -> World {
        let info = WindowInfo {
            id: EDITOR,
            app: "Editor".into(),
            instance: "editor".into(),
            title: "Editor window".into(),
            pid_source: PidSource::Server,
            geometry,
            focused: false,
            minimized: false,
            desktop: glovebox_model::Desktop::User,
        };
        let screen = Rect::new(0, 0, 1920, 1080);
        let desktop = Arc::new(FakeDesktop::new(
            screen,
            vec![Monitor { name: "screen".into(), logical: screen, primary: true }],
            vec![FakeWindow { info, colour: [200, 10, 10] }],
        ));
        let root = std::env::temp_dir().join(format!("glovebox-wire-golden-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let mut config = HostConfig::new(&format!(":wire-{name}"));
        // Approval prompts have tests of their own; here every class is allowed.
        config.approvals = glovebox_host::Approvals::allow_all();
        config.runtime_root = root.join("run");
        config.audit_path = root.join("audit.jsonl");
        config.budget = budget;
        let processes = DeclaredProcesses::new([(EDITOR.pid, 1, current_uid(), "/usr/bin/editor")]);
        let backends = Backends::of_fake_desktop(desktop.clone(), Arc::new(processes));
        World { host: Host::open(backends, config).unwrap(), desktop }
    }

    /// Every delivered action with its targets as global points.
    pub fn delivered(&self) -> Value {
        let delivered = self.desktop.delivered.lock().unwrap();
        Value::Array(
            delivered
                .iter()
                .map(|(_, action, targets, _)| {
                    let at: Vec<Value> = targets
                        .iter()
                        .map(|t| match t {
                            ResolvedTarget::Global { at, .. } => json!([at.x, at.y]),
                            ResolvedTarget::Element { id, .. } => json!(id.to_string()),
                        })
                        .collect();
                    json!({"action": action, "at": at})
                })
                .collect(),
        )
    }
}
