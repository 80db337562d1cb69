//! Desktop episodes: one task for an agent in a clean desktop, judged by an
//! oracle outside glovebox. This crate holds what an episode *is* — the spec
//! a person writes (`spec.rs`), checked before anything starts, with its
//! JSON schema, and an OSWorld-format task read as one (`osworld.rs`, `task.rs`) — what a run of one *produced* (`record.rs`), and many runs
//! at a glance (`summary.rs`: an HTML page and JUnit XML). Running
//! episodes (sandboxes, apps, the host, the agent) is the binary's job.

pub mod osworld;
pub mod record;
pub mod spec;
pub mod summary;
pub mod task;

pub use record::{EpisodeRecord, Verdict};
pub use spec::{Episode, SpecError};
pub use task::Task;
