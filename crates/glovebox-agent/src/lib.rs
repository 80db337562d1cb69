//! The instruction-level `computer` tool (DESIGN.md §6): a bounded
//! observe → decide → validate → act loop over the host's public API, with
//! the model injected. No platform code lives here.
#![forbid(unsafe_code)]

pub mod decision;
pub mod model;
pub mod native;
pub mod prompt;
pub mod providers;
pub mod replay;
pub mod report;
pub mod run;
pub mod trajectory;

pub use decision::Decision;
pub use model::{
    DecideRequest, Model, ModelBinding, ModelError, Png, Provider, Reply, ToolSpec, DECISION_TOOL,
};
pub use native::run_native;
pub use run::{run, run_asking, Outcome, Questions, Task};
pub use trajectory::{Step, StopReason, Summary, Verdict};
