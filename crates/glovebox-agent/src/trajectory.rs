//! What a run did, as the loop recorded it: each step (the frame decided
//! on, the model's decision, the host's verdict, timings) and the summary
//! handed back to the caller. The summary is assembled from these records
//! only; the model's own words appear solely as a quoted, bounded question
//! (for `ask`) and never as a claim of work.

use crate::model::Png;
use glovebox_model::{ErrorCode, FrameId, Point, Refusal, Size, WindowId};
use serde::Serialize;

/// How the host answered one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Delivered {
        route: String,
    },
    Refused {
        code: ErrorCode,
        message: String,
    },
    Switched {
        window: WindowId,
    },
    Finished,
    Asked,
    /// The person answered the model's question ([`glovebox_host::Host::ask_user`]).
    Answered {
        /// The answer, or `None` where the person kept it private (the record and report).
        answer: Option<String>,
        /// What the model reads in the next turn: the answer, private or not.
        #[serde(skip)]
        for_model: String,
    },
}

/// What the model answered, as far as it could be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "as", rename_all = "snake_case")]
pub enum DecisionRecord {
    /// A decision under the schema, re-serialised by glovebox.
    Parsed { decision: serde_json::Value },
    /// An answer outside the schema: its first characters, for the report.
    Unparsed { excerpt: String },
}

/// One step of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub index: u32,
    pub window: Option<WindowId>,
    pub window_title: String,
    pub frame: Option<FrameId>,
    pub image: Option<Size>,
    /// The first lines of the tree the model saw.
    pub tree_excerpt: String,
    #[serde(skip)]
    pub screenshot: Option<Png>,
    pub decision: DecisionRecord,
    /// A short description of the action (kind and target), when it was one.
    pub action: Option<String>,
    /// Where the action pointed, in the frame's image pixels.
    pub target_drawn: Option<Point>,
    pub verdict: Verdict,
    /// What the delivered action changed in the bound window's tree (the
    /// diff's verdict line and its first lines), when it was looked at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<String>,
    pub model_ms: u64,
    pub act_ms: u64,
    pub tokens: Option<(u64, u64)>,
}

impl Step {
    /// One line for the next prompt and the progress display.
    pub fn line(&self) -> String {
        let what = match (&self.action, &self.decision) {
            (Some(action), _) => action.clone(),
            (None, DecisionRecord::Parsed { decision }) => {
                decision["kind"].as_str().unwrap_or("decision").to_owned()
            }
            (None, DecisionRecord::Unparsed { .. }) => "an answer outside the schema".to_owned(),
        };
        let verdict = match &self.verdict {
            Verdict::Delivered { route } => format!("delivered ({route})"),
            Verdict::Refused { code, message } => format!("refused {code}: {message}"),
            Verdict::Switched { window } => format!("bound to window {window}"),
            Verdict::Finished => "finished".to_owned(),
            Verdict::Asked => "asked the user".to_owned(),
            Verdict::Answered { for_model, .. } => format!("the person answered: {for_model:?}"),
        };
        let changed = self
            .changes
            .as_ref()
            .and_then(|c| c.lines().next())
            .map(|v| format!("; {v}"))
            .unwrap_or_default();
        format!("{}. {what} → {verdict}{changed}", self.index)
    }
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered `done`.
    Done,
    /// The model asked the caller something; the question is the result.
    Asked { question: String },
    /// Every step allowed was used.
    StepLimit { limit: u32 },
    /// The same failing step came back three times.
    RepeatedFailure { code: ErrorCode },
    /// The host ended the run: Stop, expiry, budget, revocation, no window.
    Host { code: ErrorCode, message: String },
    /// The model could not be asked (unbound, unreachable, refused credentials).
    Model { code: ErrorCode, message: String },
}

impl StopReason {
    /// The registry code of a stop that is a failure, if it is one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            StopReason::Done | StopReason::Asked { .. } | StopReason::StepLimit { .. } => None,
            StopReason::RepeatedFailure { code }
            | StopReason::Host { code, .. }
            | StopReason::Model { code, .. } => Some(*code),
        }
    }

    pub fn host(refusal: &Refusal) -> StopReason {
        StopReason::Host { code: refusal.code, message: refusal.message.clone() }
    }
}

/// One delivered action, as the summary lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Work {
    pub step: u32,
    /// Kind and target, e.g. `click push button "Submit"`.
    pub action: String,
    pub route: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRefusal {
    pub step: u32,
    pub code: ErrorCode,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalWindow {
    pub id: WindowId,
    pub app: String,
    pub title: String,
}

/// The bounded result of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub stop: StopReason,
    pub steps: u32,
    pub max_steps: u32,
    /// Input actions the host delivered, in order. Switches are not work.
    pub delivered: Vec<Work>,
    pub refusals: Vec<StepRefusal>,
    pub switches: u32,
    pub final_window: Option<FinalWindow>,
    pub model: String,
}

/// The most delivered actions a summary lists one by one.
const LISTED_WORK: usize = 10;

impl Summary {
    /// Built from the steps alone.
    pub fn of(
        steps: &[Step],
        stop: StopReason,
        max_steps: u32,
        final_window: Option<FinalWindow>,
        model: String,
    ) -> Summary {
        let delivered = steps
            .iter()
            .filter_map(|s| match &s.verdict {
                Verdict::Delivered { route } => Some(Work {
                    step: s.index,
                    action: s.action.clone().unwrap_or_default(),
                    route: route.clone(),
                }),
                _ => None,
            })
            .collect();
        let refusals = steps
            .iter()
            .filter_map(|s| match &s.verdict {
                Verdict::Refused { code, .. } => Some(StepRefusal { step: s.index, code: *code }),
                _ => None,
            })
            .collect();
        let switches =
            steps.iter().filter(|s| matches!(s.verdict, Verdict::Switched { .. })).count() as u32;
        Summary {
            stop,
            steps: steps.len() as u32,
            max_steps,
            delivered,
            refusals,
            switches,
            final_window,
            model,
        }
    }

    /// A few lines of plain text for a caller (an outer agent or a person).
    pub fn render(&self) -> String {
        let mut s = match &self.stop {
            StopReason::Done => format!(
                "Stopped after {} of {} steps: the model reported the task done.",
                self.steps, self.max_steps
            ),
            StopReason::Asked { question } => format!(
                "Stopped after {} of {} steps: the model asks the user: {question:?}",
                self.steps, self.max_steps
            ),
            StopReason::StepLimit { limit } => format!(
                "Stopped: the step limit ({limit}) was reached before the model reported done."
            ),
            StopReason::RepeatedFailure { code } => format!(
                "Stopped after {} steps: the same step failed 3 times ({code}).",
                self.steps
            ),
            StopReason::Host { code, message } => {
                format!("Stopped after {} steps: {code}: {message}", self.steps)
            }
            StopReason::Model { code, message } => format!(
                "Stopped after {} steps: the model could not be asked ({code}: {message})",
                self.steps
            ),
        };
        match self.delivered.len() {
            0 => s.push_str("\nNo input was delivered."),
            n => {
                s.push_str(&format!("\nDelivered {n} action{}:", if n == 1 { "" } else { "s" }));
                for w in self.delivered.iter().take(LISTED_WORK) {
                    s.push_str(&format!("\n  step {}: {} ({})", w.step, w.action, w.route));
                }
                if n > LISTED_WORK {
                    s.push_str(&format!("\n  … and {} more", n - LISTED_WORK));
                }
            }
        }
        if !self.refusals.is_empty() {
            let codes: Vec<String> =
                self.refusals.iter().map(|r| format!("step {}: {}", r.step, r.code)).collect();
            s.push_str(&format!("\nRefused {}: {}", self.refusals.len(), codes.join(", ")));
        }
        if self.switches > 0 {
            s.push_str(&format!(
                "\nSwitched windows {} time{} (not counted as work).",
                self.switches,
                if self.switches == 1 { "" } else { "s" }
            ));
        }
        if let Some(w) = &self.final_window {
            s.push_str(&format!("\nFinal window: {} {} {:?}", w.id, w.app, w.title));
        }
        s
    }
}
