//! What a backend can do, stated before it is asked to do it.

use serde::{Deserialize, Serialize};

/// Whether one capability is there, and why not when it is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Support {
    Available { detail: String },
    Missing { reason: String },
}

impl Support {
    pub fn is_available(&self) -> bool {
        matches!(self, Support::Available { .. })
    }
}

/// A backend's capabilities. Partial fidelity is declared here and in
/// results, never shown as an empty success.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Capabilities {
    pub backend: String,
    pub window_listing: Support,
    pub window_capture: Support,
    pub desktop_capture: Support,
    pub accessibility: Support,
}
