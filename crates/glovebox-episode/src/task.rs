//! What an episode file holds: glovebox's own spec, or an OSWorld-format
//! task (a `.json` with an `evaluator` and no `oracle`). Read once, here.

use crate::osworld::OsWorldTask;
use crate::spec::{DesktopSpec, Limits, MAX_SPEC_BYTES};
use crate::{Episode, SpecError};
use std::path::Path;

/// An episode's file, read and checked.
#[derive(Debug, Clone)]
pub enum Task {
    Spec(Episode),
    OsWorld(OsWorldTask),
}

impl Task {
    /// Reads `path` as [`Episode::load`] does, taking a JSON file with an
    /// `evaluator` and no `oracle` for an OSWorld-format task.
    pub fn load(path: &Path) -> Result<Task, SpecError> {
        use glovebox_platform::files::{read_regular_text, Links};
        let text = read_regular_text(path, MAX_SPEC_BYTES, Links::Follow)
            .map_err(|e| SpecError::Parse(format!("{}: {e}", path.display())))?;
        let json = path.extension().is_some_and(|e| e == "json");
        let named = |e: SpecError| match e {
            SpecError::Parse(message) => SpecError::Parse(format!("{}: {message}", path.display())),
            other => other,
        };
        if json && OsWorldTask::is_one(&text) {
            return OsWorldTask::parse(&text).map(Task::OsWorld).map_err(named);
        }
        Episode::parse(&text, json).map(Task::Spec).map_err(named)
    }

    pub fn instruction(&self) -> &str {
        match self {
            Task::Spec(episode) => &episode.instruction,
            Task::OsWorld(task) => &task.instruction,
        }
    }

    pub fn desktop(&self) -> DesktopSpec {
        match self {
            Task::Spec(episode) => episode.desktop.clone(),
            Task::OsWorld(task) => task.desktop(),
        }
    }

    pub fn limits(&self) -> Limits {
        match self {
            Task::Spec(episode) => episode.limits.clone(),
            Task::OsWorld(task) => task.limits(),
        }
    }

    /// The group a summary shows it in: an OSWorld task's domain.
    pub fn domain(&self) -> Option<String> {
        match self {
            Task::Spec(_) => None,
            Task::OsWorld(task) => Some(task.domain()).filter(|d| !d.is_empty()),
        }
    }
}
