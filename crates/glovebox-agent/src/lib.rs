//! The instruction-level `computer` tool (DESIGN.md §6): a bounded
//! observe → decide → validate → act loop over the host's public API, with
//! the model injected. No platform code lives here.
#![forbid(unsafe_code)]

pub mod model;
pub mod providers;

pub use model::{DecideRequest, Model, ModelBinding, ModelError, Png, Provider, Reply, ToolSpec, DECISION_TOOL};
