//! Desktop episodes: one task for an agent in a clean desktop, judged by an
//! oracle outside glovebox. This crate holds what an episode *is* — the spec
//! a person writes (`spec.rs`), checked before anything starts, with its
//! JSON schema — and what a run of one *produced* (`record.rs`). Running
//! episodes (sandboxes, apps, the host, the agent) is the binary's job.

pub mod record;
pub mod spec;

pub use record::{EpisodeRecord, Verdict};
pub use spec::{Episode, SpecError};
