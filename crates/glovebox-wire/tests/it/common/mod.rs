//! The fake desktop the executor tests run on.
#![allow(dead_code)]

use glovebox_host::Host;
use glovebox_model::{Rect, WindowId};
use glovebox_platform::fake::{FakeDesktop, FakeWindow};
use glovebox_platform::ResolvedTarget;
use glovebox_testkit::fake::{fake_window, fake_world, FakeWorld};
use serde_json::{json, Value};
use std::sync::Arc;

pub const EDITOR: WindowId = WindowId { pid: 1001, handle: 0x20 };

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
        let editor = FakeWindow {
            colour: [200, 10, 10],
            ..fake_window(EDITOR, "Editor", "Editor window", geometry)
        };
        let FakeWorld { desktop, host, .. } = fake_world(&format!("wire-{name}"))
            .window(editor)
            .configure(|config| config.budget = budget)
            .open();
        World { host, desktop }
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
