//! Native calls that wait for a person (`glovebox serve`'s `/v1/` endpoints
//! with `"park": true`), kept on disk so that they survive a restart of the
//! server: the provider's calls as the model sent them, in order, with
//! their ids, the results of those already delivered, the screenshot frame
//! the rest aim through, and the questions the person is asked.
//!
//! The person answers out of band, at their own terminal (`glovebox
//! pending approve ID`); the agent's bearer token never approves anything.
//! An answer holds for exactly the questions that were shown: when the
//! call is run again, [`Parking`] approves a question only if the host asks
//! it again word for word (the same action, on the same element, in the
//! same window), so a call whose target changed while it waited is refused,
//! never run on an answer given for something else.
//!
//! One file per batch in `$XDG_STATE_HOME/glovebox/pending/` (mode 0600:
//! the calls carry the text the model wants typed), written whole through a
//! rename, removed once the batch is answered.

use glovebox_host::{Answer, ApprovalRequest, Approver, FrameView, Subject};
use glovebox_platform::sync::LockRecovered as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Which executor runs the batch's calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provider {
    /// OpenAI GA `computer_call` items.
    OpenAi,
    /// Member `tool_use` blocks of Anthropic's computer toolset (its definition kept).
    AnthropicToolset { tool: Value },
    /// Gemini computer-use `functionCall`s.
    Gemini,
}

impl Provider {
    pub fn name(&self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::AnthropicToolset { .. } => "anthropic",
            Provider::Gemini => "gemini",
        }
    }
}

/// Where a parked batch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting for the person's answer.
    Waiting,
    /// The person approved what they were shown; the next poll runs it.
    Approved,
    /// The person said no: nothing more of the batch runs.
    Declined,
}

/// One question the person is shown, as the host worded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// A call of an approval class (its actions, targets, window).
    Call { text: String },
    /// A provider's safety check, answered by its id.
    SafetyCheck { id: String, text: String },
}

impl Question {
    pub fn text(&self) -> &str {
        match self {
            Question::Call { text } | Question::SafetyCheck { text, .. } => text,
        }
    }

    fn of(request: &ApprovalRequest) -> Question {
        match &request.subject {
            Subject::SafetyCheck { id, .. } => Question::SafetyCheck { id: id.clone(), text: request.question() },
            Subject::Call { .. } => Question::Call { text: request.question() },
        }
    }

    /// Whether this (approved) question answers `request`: a call's word
    /// for word, a safety check by its id.
    fn answers(&self, request: &ApprovalRequest) -> bool {
        match (self, &request.subject) {
            (Question::SafetyCheck { id, .. }, Subject::SafetyCheck { id: asked, .. }) => id == asked,
            (Question::Call { text }, Subject::Call { .. }) => *text == request.question(),
            _ => false,
        }
    }
}

/// A batch of one model turn's calls, parked at `next`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parked {
    pub id: String,
    pub provider: Provider,
    /// The window the calls act in, as the request named it.
    #[serde(default)]
    pub window: Option<String>,
    /// The calls as the model sent them, in order.
    pub calls: Vec<Value>,
    /// Whether the request sent one call (answered with one result) or a list.
    pub single: bool,
    /// Safety checks the request stated its user acknowledged.
    #[serde(default)]
    pub acknowledged: Vec<String>,
    /// The first call not yet answered; `delivered` holds the results before it.
    pub next: usize,
    pub delivered: Vec<Value>,
    /// The screenshot frame `calls[next]` aims through.
    #[serde(default)]
    pub basis: Option<FrameView>,
    /// What the person is asked about `calls[next]`; grows by one round each
    /// time the call asks something new.
    pub questions: Vec<Question>,
    pub status: Status,
    /// Bumped each time the batch parks again: an answer is for one round.
    pub round: u32,
    /// Unix seconds when the batch first parked.
    pub parked_at: u64,
}

/// How long a batch waits for the person: past this it is answered as
/// expired, nothing more of it runs, and it can no longer be approved.
pub const MAX_WAIT_SECS: u64 = 24 * 60 * 60;

/// Now, in Unix seconds.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

impl Parked {
    /// Whether the batch has waited longer than [`MAX_WAIT_SECS`] at `now`.
    pub fn expired(&self, now: u64) -> bool {
        now.saturating_sub(self.parked_at) > MAX_WAIT_SECS
    }

    /// The call ids of the batch, in order (`call_id`, `id`, or `name`).
    pub fn call_ids(&self) -> Vec<String> {
        self.calls.iter().map(|c| ["call_id", "id", "name"].iter().find_map(|k| c.get(k).and_then(Value::as_str)).unwrap_or("?").to_owned()).collect()
    }

    /// What the agent is told while the batch waits.
    pub fn summary(&self) -> Value {
        serde_json::json!({
            "id": self.id,
            "provider": self.provider.name(),
            "status": self.status,
            "round": self.round,
            "call_ids": self.call_ids(),
            "waiting_at": self.next,
            "delivered": self.delivered.len(),
            "questions": self.questions.iter().map(Question::text).collect::<Vec<_>>(),
            "answer_with": format!("glovebox pending approve {} (or decline), at the user's terminal", self.id),
        })
    }
}

/// Why the store could not do something.
#[derive(Debug)]
pub enum PendingError {
    /// No batch by that id (answered already, or never parked).
    Unknown(String),
    /// The batch is not waiting for this round's answer any more.
    Moved {
        id: String,
        round: u32,
        status: Status,
    },
    /// The batch waited longer than [`MAX_WAIT_SECS`]: it can only be declined.
    Expired(String),
    /// Another request is running the batch, or a run of it was cut short.
    Running(String),
    /// An id that is not one the store made.
    BadId(String),
    Io(PathBuf, std::io::Error),
    Corrupt(PathBuf, serde_json::Error),
}

impl std::fmt::Display for PendingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PendingError::Unknown(id) => write!(f, "there is no pending call {id:?}: it was answered already, cancelled, or never parked"),
            PendingError::Moved { id, round, status } => {
                write!(f, "pending call {id} moved on while you read it (now round {round}, {status:?}); look at it again")
            }
            PendingError::Expired(id) => {
                write!(
                    f,
                    "pending call {id} waited more than {} hours for an answer: it can no longer be approved (decline it, or let the agent cancel it)",
                    MAX_WAIT_SECS / 3600
                )
            }
            PendingError::Running(id) => write!(
                f,
                "pending call {id} is being run by another request (or its run was cut short, and it is never run twice: part of it may have been delivered)"
            ),
            PendingError::BadId(id) => write!(f, "{id:?} is not a pending call id (pnd- and 32 hex digits)"),
            PendingError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            PendingError::Corrupt(path, e) => write!(f, "{} is not a pending call record: {e}", path.display()),
        }
    }
}

impl std::error::Error for PendingError {}

/// The directory of parked batches.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// `$XDG_STATE_HOME/glovebox/pending` (default `~/.local/state`).
    pub fn default_dir() -> PathBuf {
        let audit = glovebox_host::audit::AuditLog::default_path();
        audit.parent().and_then(Path::parent).map(|p| p.join("pending")).unwrap_or_else(|| PathBuf::from("pending"))
    }

    pub fn new(dir: PathBuf) -> Store {
        Store { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A fresh id.
    pub fn new_id() -> Result<String, PendingError> {
        glovebox_host::access::new_token().map(|t| format!("pnd-{t}")).map_err(|e| PendingError::Io("/dev/urandom".into(), e))
    }

    fn path(&self, id: &str) -> Result<PathBuf, PendingError> {
        let hex = id.strip_prefix("pnd-").unwrap_or_default();
        if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(PendingError::BadId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// Writes the record whole (a rename), readable by this user only.
    pub fn save(&self, parked: &Parked) -> Result<(), PendingError> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let path = self.path(&parked.id)?;
        let io = |e| PendingError::Io(path.clone(), e);
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let partial = self.dir.join(format!(".{}.partial", parked.id));
        let text = serde_json::to_vec_pretty(parked).expect("a record serialises");
        let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&partial).map_err(io)?;
        file.write_all(&text).and_then(|()| file.sync_all()).map_err(io)?;
        std::fs::rename(&partial, &path).map_err(io)?;
        let _ = std::fs::remove_file(self.claim_path(&parked.id));
        Ok(())
    }

    fn claim_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!(".{id}.running"))
    }

    /// Takes an approved batch to run it: of two requests resuming the same
    /// batch at once, only one gets it (a rename), so nothing is delivered
    /// twice. A batch whose run was cut short (the server stopped) stays
    /// claimed and is never run again: part of it may have been delivered.
    pub fn claim(&self, id: &str) -> Result<Parked, PendingError> {
        let path = self.path(id)?;
        let claim = self.claim_path(id);
        match std::fs::rename(&path, &claim) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && claim.exists() => return Err(PendingError::Running(id.to_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(PendingError::Unknown(id.to_owned())),
            Err(e) => return Err(PendingError::Io(path, e)),
        }
        let text = std::fs::read(&claim).map_err(|e| PendingError::Io(claim.clone(), e))?;
        serde_json::from_slice(&text).map_err(|e| PendingError::Corrupt(claim, e))
    }

    pub fn load(&self, id: &str) -> Result<Parked, PendingError> {
        let path = self.path(id)?;
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && self.claim_path(id).exists() => return Err(PendingError::Running(id.to_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(PendingError::Unknown(id.to_owned())),
            Err(e) => return Err(PendingError::Io(path, e)),
        };
        serde_json::from_slice(&text).map_err(|e| PendingError::Corrupt(path, e))
    }

    /// Forgets the batch (answered), claimed or not.
    pub fn remove(&self, id: &str) -> Result<(), PendingError> {
        for path in [self.path(id)?, self.claim_path(id)] {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(PendingError::Io(path, e)),
                _ => {}
            }
        }
        Ok(())
    }

    /// Every parked batch, oldest first; unreadable records are skipped.
    pub fn list(&self) -> Vec<Parked> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return vec![] };
        let mut all: Vec<Parked> = entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).map(str::to_owned))
            .filter_map(|id| self.load(&id).ok())
            .collect();
        all.sort_by(|a, b| (a.parked_at, &a.id).cmp(&(b.parked_at, &b.id)));
        all
    }

    /// The person's answer to `round` of batch `id`.
    pub fn answer(&self, id: &str, round: u32, approve: bool) -> Result<Parked, PendingError> {
        let mut parked = self.load(id)?;
        if approve && parked.expired(now_secs()) {
            return Err(PendingError::Expired(id.to_owned()));
        }
        if parked.round != round || parked.status != Status::Waiting {
            return Err(PendingError::Moved { id: id.to_owned(), round: parked.round, status: parked.status });
        }
        parked.status = if approve { Status::Approved } else { Status::Declined };
        self.save(&parked)?;
        Ok(parked)
    }
}

/// The prompt channel of a parkable call: it answers yes only to what the
/// person approved (and to safety checks the request stated acknowledged),
/// and remembers every other question, answering that no one is there yet.
#[derive(Debug, Default)]
pub struct Parking {
    approved: Vec<Question>,
    stated: Vec<String>,
    asked: Mutex<Vec<Question>>,
}

impl Parking {
    pub fn new(approved: Vec<Question>, stated: Vec<String>) -> Parking {
        Parking { approved, stated, asked: Mutex::new(vec![]) }
    }

    /// The questions asked that nobody has answered yet.
    pub fn unanswered(&self) -> Vec<Question> {
        self.asked.lock_recovered().clone()
    }
}

impl Approver for Parking {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        if let Subject::SafetyCheck { id, .. } = &request.subject {
            if self.stated.contains(id) {
                return Answer::Approved;
            }
        }
        if self.approved.iter().any(|q| q.answers(request)) {
            return Answer::Approved;
        }
        let question = Question::of(request);
        let mut asked = self.asked.lock_recovered();
        if !asked.contains(&question) {
            asked.push(question);
        }
        let why = if self.approved.is_empty() {
            "the call waits for the user's answer (glovebox pending)"
        } else {
            "the call now asks something the user was not shown: what it would do changed while it waited"
        };
        Answer::Unavailable(why.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::ApprovalClass;

    fn record(id: &str) -> Parked {
        Parked {
            id: id.into(),
            provider: Provider::OpenAi,
            window: Some("10/0x200003".into()),
            calls: vec![serde_json::json!({"type": "computer_call", "call_id": "call_1", "actions": [{"type": "click", "x": 1, "y": 2}]})],
            single: true,
            acknowledged: vec![],
            next: 0,
            delivered: vec![],
            basis: None,
            questions: vec![Question::Call { text: "glovebox wants to click. Approve?".into() }],
            status: Status::Waiting,
            round: 1,
            parked_at: 5,
        }
    }

    #[test]
    fn records_round_trip_privately_and_an_answer_holds_for_its_round_only() {
        let dir = std::env::temp_dir().join(format!("glovebox-pending-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::new(dir.clone());
        let id = Store::new_id().unwrap();
        store.save(&record(&id)).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.join(format!("{id}.json"))).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(store.load(&id).unwrap(), record(&id));
        assert_eq!(store.list().len(), 1);
        assert!(record(&id).expired(5 + MAX_WAIT_SECS + 1) && !record(&id).expired(5 + MAX_WAIT_SECS));
        assert!(matches!(store.answer(&id, 1, true), Err(PendingError::Expired(_))), "parked at 5 s after the epoch: long expired");
        let mut fresh = record(&id);
        fresh.parked_at = now_secs();
        store.save(&fresh).unwrap();
        assert!(matches!(store.answer(&id, 2, true), Err(PendingError::Moved { .. })));
        assert_eq!(store.answer(&id, 1, true).unwrap().status, Status::Approved);
        assert!(matches!(store.answer(&id, 1, false), Err(PendingError::Moved { .. })), "answered already");
        for bad in ["../../etc/passwd", "pnd-zz", "", "pnd-0123456789abcdef0123456789abcdeg"] {
            assert!(matches!(store.load(bad), Err(PendingError::BadId(_))), "{bad}");
        }
        assert_eq!(store.claim(&id).unwrap().status, Status::Approved);
        assert!(matches!(store.claim(&id), Err(PendingError::Running(_))), "one run only");
        assert!(store.list().is_empty(), "a claimed batch is not waiting");
        store.remove(&id).unwrap();
        assert!(matches!(store.load(&id), Err(PendingError::Unknown(_))));
        assert!(matches!(store.claim(&id), Err(PendingError::Unknown(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn parking_approves_only_what_was_shown_word_for_word() {
        let click = ApprovalRequest::call(ApprovalClass::Input, vec!["click at (3, 4)".into()]);
        let parking = Parking::new(vec![], vec!["cu_sc_1".into()]);
        assert!(matches!(parking.ask(&click), Answer::Unavailable(_)));
        let check = |id: &str| ApprovalRequest {
            subject: Subject::SafetyCheck { id: id.into(), code: None, message: None, step: vec![] },
            ..ApprovalRequest::call(ApprovalClass::Input, vec![])
        };
        assert_eq!(parking.ask(&check("cu_sc_1")), Answer::Approved, "stated by the request");
        assert!(matches!(parking.ask(&check("cu_sc_2")), Answer::Unavailable(_)));
        assert_eq!(parking.unanswered().len(), 2);

        let resumed = Parking::new(parking.unanswered(), vec![]);
        assert_eq!(resumed.ask(&click), Answer::Approved);
        assert_eq!(resumed.ask(&check("cu_sc_2")), Answer::Approved);
        let elsewhere = ApprovalRequest::call(ApprovalClass::Input, vec!["click at (30, 4)".into()]);
        assert!(matches!(resumed.ask(&elsewhere), Answer::Unavailable(why) if why.contains("changed")));
        assert!(resumed.unanswered().len() == 1);
    }
}
