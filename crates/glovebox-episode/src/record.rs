//! What one run of an episode produced: the verdict, kept apart for a task
//! the agent failed and an episode that could not be run at all, with each
//! oracle check's reading, the steps, refusals and time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How an episode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The agent finished and every oracle check held.
    Passed,
    /// The agent finished, or hit a limit, and some check did not hold: the task was not done.
    Failed,
    /// The episode could not be judged: the spec, the desktop, an app that never
    /// showed its window, an oracle that could not be read. Not the agent's fault.
    Errored,
    /// The episode was not run here, and says why: an OSWorld-format task whose
    /// step, getter or metric this machine cannot carry out. Neither passed nor failed.
    NotRun,
}

impl Verdict {
    /// The process exit status of `glovebox episode run`: 0 passed, 7 failed,
    /// 8 errored, 9 not run — apart from glovebox's other statuses (1–6), so a crash or
    /// an I/O failure never reads as the agent failing.
    pub fn exit_status(self) -> u8 {
        match self {
            Verdict::Passed => 0,
            Verdict::Failed => 7,
            Verdict::Errored => 8,
            Verdict::NotRun => 9,
        }
    }

    /// The verdict an exit status of `glovebox episode run` says; anything but
    /// 0 and 7 (a crash, a signal, a usage error) is errored.
    pub fn of_exit_status(status: Option<i32>) -> Verdict {
        match status {
            Some(0) => Verdict::Passed,
            Some(7) => Verdict::Failed,
            Some(9) => Verdict::NotRun,
            _ => Verdict::Errored,
        }
    }
}

/// Most bytes a record file may hold: a record is a few kilobytes of JSON (its
/// checks' readings are shortened), so anything past this is not one glovebox
/// wrote, and is refused unread rather than read whole.
pub const MAX_RECORD_BYTES: u64 = 4 << 20;

/// One oracle check as it was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckReading {
    /// The check, in words (`file state.json contains "Ada"`).
    pub check: String,
    pub held: bool,
    /// What was there (shortened), or why it could not be read.
    pub saw: String,
}

/// The record of one episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeRecord {
    /// The spec file's name without its extension.
    pub episode: String,
    pub verdict: Verdict,
    /// Why, in one sentence, when it did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Agent steps taken (scripted steps or model turns).
    pub steps: u32,
    /// Every refusal the agent met, code first.
    pub refusals: Vec<String>,
    pub checks: Vec<CheckReading>,
    /// Wall-clock seconds, setup and oracle included.
    pub seconds: f64,
    /// Tokens the model used, where the provider says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_tokens: Option<u64>,
    /// An OSWorld-format task's score from OSWorld's own metric (1 is done).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The domain an OSWorld-format task belongs to (its snapshot), which summaries group by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The HTML trajectory report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_verdicts_exit_apart() {
        let all = [Verdict::Passed, Verdict::Failed, Verdict::Errored, Verdict::NotRun];
        assert_eq!(all.map(Verdict::exit_status), [0, 7, 8, 9]);
        for verdict in all {
            assert_eq!(Verdict::of_exit_status(Some(verdict.exit_status() as i32)), verdict);
        }
        assert_eq!(Verdict::of_exit_status(Some(1)), Verdict::Errored);
        assert_eq!(Verdict::of_exit_status(None), Verdict::Errored);
        assert_eq!(serde_json::to_value(Verdict::Errored).unwrap(), "errored");
        assert_eq!(serde_json::to_value(Verdict::NotRun).unwrap(), "not_run");
    }
}
