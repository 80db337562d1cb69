//! What a backend can do, stated before it is asked to do it.

use serde::{Deserialize, Serialize};

/// Whether one capability is there, and why not when it is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Support {
    /// The capability works.
    Available {
        /// How it is provided (`EWMH client list`, `wlr-screencopy through …`).
        detail: String,
    },
    /// The capability is absent.
    Missing {
        /// Why, in words the user can act on.
        reason: String,
    },
}

impl Support {
    /// Whether the capability works.
    pub fn is_available(&self) -> bool {
        matches!(self, Support::Available { .. })
    }
}

/// A backend's capabilities. Partial fidelity is declared here and in
/// results, never shown as an empty success.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Capabilities {
    /// Which backend this is (`x11`, `wayland (sway)`, `none (macos)`).
    pub backend: String,
    /// Whether the desktop's top-level windows can be listed.
    pub window_listing: Support,
    /// Whether one window's pixels can be read.
    pub window_capture: Support,
    /// Whether the displays' pixels can be read as one composite.
    pub desktop_capture: Support,
    /// Whether applications' accessibility trees can be read.
    pub accessibility: Support,
}
