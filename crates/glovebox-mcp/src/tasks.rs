//! The MCP tasks extension (`io.modelcontextprotocol/tasks`) for the
//! `computer` tool on 2026-07-28 connections whose client declares it.
//!
//! A run answers at once with a task handle; the loop goes on on a thread
//! of its own. The client polls `tasks/get`: each step shows as the task's
//! status message, a question the host puts to the user mid-run as the
//! task's input request (answered with `tasks/update`, waited for as long as
//! `approval.answer_wait_secs`), and the loop's summary as its result.
//! `tasks/cancel` is Stop: the host revokes the grant and nothing after the
//! action in flight is delivered. A task belongs to the client that started
//! it (the same identity as the newest frame's); another client is told no
//! such task exists. Finished tasks are kept for an hour.

use crate::current;
use glovebox_host::{Answer, Host, PersonChannel, Request, Wants};
use glovebox_platform::sync::LockRecovered as _;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, InputResponses, Task, TaskPayload, TaskStatus,
};
use rmcp::ErrorData as McpError;
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often a client is asked to poll.
const POLL_INTERVAL_MS: u64 = 500;
/// How long a task is kept after it started.
const TTL: Duration = Duration::from_secs(60 * 60);
/// Tasks kept at most per server; the oldest finished ones go first.
const MAX_TASKS: usize = 64;

fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Where a run is.
enum Phase {
    Working,
    /// A question waits for the user; `answer` is filled by `tasks/update`.
    Asking {
        key: String,
        question: String,
        wants: Wants,
        answer: Option<Answer>,
    },
    Completed(CallToolResult),
    Cancelled,
}

struct State {
    phase: Phase,
    /// The newest step's line, e.g. `2. click push button "Submit" → delivered (…)`.
    last_step: Option<String>,
    /// How the run ended, in one line (the summary's first).
    ended: Option<String>,
    updated_at: String,
    cancel_requested: bool,
}

impl State {
    /// The task's status message: where the run is and its newest step.
    fn message(&self) -> String {
        let step = self.last_step.as_deref().map(|s| format!("step {s}"));
        let after = step.as_deref().map(|s| format!(" (after {s})")).unwrap_or_default();
        match &self.phase {
            Phase::Asking { answer: None, .. } => format!("waiting for the user's answer{after}"),
            Phase::Completed(_) => self.ended.clone().unwrap_or_else(|| "finished".into()),
            Phase::Cancelled => {
                format!("cancelled (Stop): {}", self.ended.as_deref().unwrap_or("the run ended"))
            }
            _ if self.cancel_requested => format!("stopping{after}"),
            _ => step.unwrap_or_else(|| "started".into()),
        }
    }
}

/// One `computer` run as a task.
pub(crate) struct RunTask {
    id: String,
    owner: String,
    created_at: String,
    started: Instant,
    state: Mutex<State>,
    changed: Condvar,
    /// The host the run acts through; cancelling stops it.
    host: Host,
}

impl RunTask {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock_recovered()
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.state();
        change(&mut state);
        state.updated_at = now_iso();
        self.changed.notify_all();
    }

    fn finished(&self) -> bool {
        matches!(self.state().phase, Phase::Completed(_) | Phase::Cancelled)
    }

    /// A step of the loop, as the status message.
    pub(crate) fn progress(&self, line: String) {
        self.update(|s| s.last_step = Some(line));
    }

    /// The run ended: its result, or, when the client cancelled it first,
    /// the cancellation with the result's first line as the reason.
    pub(crate) fn finish(&self, result: CallToolResult) {
        self.update(|s| {
            s.ended = result
                .content
                .first()
                .and_then(|c| c.as_text())
                .and_then(|t| t.text.lines().next().map(str::to_owned));
            s.phase = if s.cancel_requested { Phase::Cancelled } else { Phase::Completed(result) };
        });
    }

    fn seed(&self, status: TaskStatus, state: &State) -> Task {
        let ttl_left = TTL.saturating_sub(self.started.elapsed());
        Task::new(self.id.clone(), status, self.created_at.clone(), state.updated_at.clone())
            .with_status_message(state.message())
            .with_ttl_ms(ttl_left.as_millis() as u64)
            .with_poll_interval_ms(POLL_INTERVAL_MS)
    }

    pub(crate) fn created(&self) -> CreateTaskResult {
        CreateTaskResult::new(self.seed(TaskStatus::Working, &self.state()))
    }

    fn detailed(&self) -> DetailedTask {
        let state = self.state();
        let payload = match &state.phase {
            Phase::Working | Phase::Asking { answer: Some(_), .. } => TaskPayload::Working,
            Phase::Asking { key, question, wants, answer: None } => {
                match current::form_of(question.clone(), *wants) {
                    Some(request) => TaskPayload::InputRequired {
                        input_requests: [(key.clone(), request)].into_iter().collect(),
                    },
                    None => TaskPayload::Working,
                }
            }
            Phase::Completed(result) => match serde_json::to_value(result) {
                Ok(serde_json::Value::Object(result)) => TaskPayload::Completed { result },
                _ => TaskPayload::Failed {
                    error: serde_json::Map::from_iter([(
                        "message".to_owned(),
                        "the result did not serialize".into(),
                    )]),
                },
            },
            Phase::Cancelled => TaskPayload::Cancelled,
        };
        DetailedTask::new(self.seed(payload.status(), &state), payload)
    }
}

/// The run's way to reach the person: a request becomes the task's input request.
pub(crate) struct TaskQuestions {
    pub task: Arc<RunTask>,
}

impl PersonChannel for TaskQuestions {
    fn put(&self, request: Request<'_>) -> Answer {
        let key = match glovebox_services::access::new_token() {
            Ok(key) => key,
            Err(e) => return Answer::Unavailable(format!("no key for the question: {e}")),
        };
        let wait = self.task.host.answer_wait();
        let deadline = Instant::now() + wait;
        self.task.update(|s| {
            s.phase = Phase::Asking {
                key: key.clone(),
                question: request.shown(),
                wants: request.wants(),
                answer: None,
            }
        });
        let mut state = self.task.state();
        loop {
            if state.cancel_requested {
                state.phase = Phase::Working;
                return Answer::Cancelled;
            }
            if let Phase::Asking { answer: answer @ Some(_), .. } = &mut state.phase {
                let answer = answer.take().unwrap_or(Answer::Cancelled);
                state.phase = Phase::Working;
                return answer;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                state.phase = Phase::Working;
                return Answer::Unavailable(format!(
                    "no answer within {} s (approval.answer_wait_secs); the step was not taken",
                    wait.as_secs()
                ));
            }
            state =
                self.task.changed.wait_timeout(state, left).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

/// Every task of one server, across its connections and sessions.
#[derive(Default)]
pub(crate) struct TaskBoard {
    tasks: Mutex<HashMap<String, Arc<RunTask>>>,
}

fn unknown(id: &str) -> McpError {
    McpError::invalid_params(
        format!("no task {id:.40} for this client (finished tasks are kept for an hour)"),
        None,
    )
}

impl TaskBoard {
    fn tasks(&self) -> MutexGuard<'_, HashMap<String, Arc<RunTask>>> {
        self.tasks.lock_recovered()
    }

    /// A new working task of `owner`'s, acting through `host`.
    pub(crate) fn create(
        &self,
        owner: &str,
        host: Host,
    ) -> Result<Arc<RunTask>, glovebox_model::Refusal> {
        let id = glovebox_services::access::new_token().map_err(|e| {
            glovebox_model::Refusal::backend_unavailable(format!("no task id: {e}"))
        })?;
        let now = now_iso();
        let task = Arc::new(RunTask {
            id: id.clone(),
            owner: owner.to_owned(),
            created_at: now.clone(),
            started: Instant::now(),
            state: Mutex::new(State {
                phase: Phase::Working,
                last_step: None,
                ended: None,
                updated_at: now,
                cancel_requested: false,
            }),
            changed: Condvar::new(),
            host,
        });
        let mut tasks = self.tasks();
        tasks.retain(|_, t| t.started.elapsed() < TTL || !t.finished());
        while tasks.len() >= MAX_TASKS {
            let Some(oldest) = tasks
                .values()
                .filter(|t| t.finished())
                .min_by_key(|t| t.started)
                .map(|t| t.id.clone())
            else {
                break;
            };
            tasks.remove(&oldest);
        }
        tasks.insert(id, task.clone());
        Ok(task)
    }

    fn find(&self, id: &str, client: &str) -> Result<Arc<RunTask>, McpError> {
        self.tasks().get(id).filter(|t| t.owner == client).cloned().ok_or_else(|| unknown(id))
    }

    pub(crate) fn get(&self, id: &str, client: &str) -> Result<DetailedTask, McpError> {
        Ok(self.find(id, client)?.detailed())
    }

    /// Answers the task's outstanding question; responses to anything else
    /// (answered, superseded, never asked) are ignored, as the extension says.
    pub(crate) fn update(
        &self,
        id: &str,
        client: &str,
        responses: &InputResponses,
    ) -> Result<(), McpError> {
        let task = self.find(id, client)?;
        let mut state = task.state();
        if let Phase::Asking { key, answer: answer @ None, .. } = &mut state.phase {
            if let Some(response) = responses.get(key.as_str()) {
                let parsed = current::answer_of(response).map_err(|why| {
                    McpError::invalid_params(format!("the answer is malformed: {why}"), None)
                })?;
                *answer = Some(parsed);
                state.updated_at = now_iso();
                task.changed.notify_all();
            }
        }
        Ok(())
    }

    /// Stop for the task's run: the grant ends, a waiting question is cancelled.
    pub(crate) fn cancel(&self, id: &str, client: &str) -> Result<(), McpError> {
        let task = self.find(id, client)?;
        if task.finished() {
            return Ok(());
        }
        task.update(|s| s.cancel_requested = true);
        // No grant (the run already ended) is not a failure of the cancel.
        let _ = task.host.stop();
        Ok(())
    }
}
