//! Native calls that wait for a person (`glovebox serve`'s `/v1/` endpoints
//! with `"park": true`), kept on disk so that they survive a restart of the
//! server: the provider's calls as the model sent them, in order, with
//! their ids, the results of those already delivered, the screenshot frame
//! the rest aim through, and the questions the person is asked.
//!
//! The person answers out of band, at their own terminal (`glovebox
//! pending approve ID`); the agent's bearer token never approves anything.
//! An answer holds for exactly the questions that were shown: when the
//! call is run again, [`glovebox_host::AnsweredOutOfBand`] approves a question only if the host asks
//! it again word for word (the same action, on the same element, in the
//! same window), so a call whose target changed while it waited is refused,
//! never run on an answer given for something else.
//!
//! One file per batch in `$XDG_STATE_HOME/glovebox/pending/`, removed once
//! the batch is answered. Anyone who can write that directory must not be
//! able to make a call run, so:
//! - each record is signed (HMAC-SHA256 under this user's key,
//!   [`glovebox_services::signing`]) over everything that decides what runs:
//!   the calls, the questions shown, the status, the basis frame, the
//!   results delivered, the round and the times. A record that is unsigned,
//!   edited, or another user's is refused with nothing of it run
//!   ([`PendingError::Forged`]), and only `glovebox pending decline` removes it;
//! - the person's approval holds for the exact record they were shown:
//!   `glovebox pending` prints each record's [`Parked::digest`], and
//!   approving takes it back, so a record that changed in between is not
//!   approved ([`PendingError::Changed`]);
//! - the directory is made 0700; an existing one of this user's that is
//!   looser is tightened to 0700, and one that is a link or another user's
//!   is refused ([`glovebox_platform::files::private_dir`]). Records are
//!   0600 (the calls carry the text the model wants typed), written whole to
//!   a new temporary file of a random name (created exclusively, never
//!   through a link) and renamed into place; records are read without
//!   following links.
//!
//! What signing cannot stop: a copy of an earlier signed state of a record
//! put back by someone who can write the directory (a rollback). The person
//! approved that state once, and it expires with the batch ([`MAX_WAIT_SECS`]).

use glovebox_host::{FrameView, Shown};
use glovebox_platform::files;
use glovebox_services::signing::{self, Key};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

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
    pub questions: Vec<Shown>,
    pub status: Status,
    /// Bumped each time the batch parks again: an answer is for one round.
    pub round: u32,
    /// Unix seconds when the batch first parked.
    pub parked_at: u64,
}

/// The record format's version, in each record (signed with it).
pub const FORMAT: u32 = 1;
/// How many hex digits of a record's digest the person sees and gives back.
pub const DIGEST_HEX: usize = 12;
/// The largest record read (the results delivered hold screenshots).
const MAX_BYTES: u64 = 64 << 20;
/// What a record's mac covers before the record itself: a record is never
/// taken for another signed thing of this user's (a recording's line).
const DOMAIN: &[u8] = b"glovebox pending record\n";

/// How long a batch waits for the person: past this it is answered as
/// expired, nothing more of it runs, and it can no longer be approved.
pub const MAX_WAIT_SECS: u64 = 24 * 60 * 60;

/// Now, in Unix seconds.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Parked {
    /// Whether the batch has waited longer than [`MAX_WAIT_SECS`] at `now`.
    pub fn expired(&self, now: u64) -> bool {
        now.saturating_sub(self.parked_at) > MAX_WAIT_SECS
    }

    /// The call ids of the batch, in order (`call_id`, `id`, or `name`).
    pub fn call_ids(&self) -> Vec<String> {
        self.calls
            .iter()
            .map(|c| {
                ["call_id", "id", "name"]
                    .iter()
                    .find_map(|k| c.get(k).and_then(Value::as_str))
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect()
    }

    /// The record as it is signed (without its mac).
    fn unsigned(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        value["glovebox_pending"] = FORMAT.into();
        value["mac"] = String::new().into();
        value
    }

    /// What the person compares before approving: the first [`DIGEST_HEX`]
    /// hex digits of the SHA-256 of the whole record (its calls, questions,
    /// status, basis, delivered results, round and times). Shown by
    /// `glovebox pending`, given back to `glovebox pending approve`; never
    /// told to the agent, so that it cannot hand the person a ready command.
    pub fn digest(&self) -> String {
        signing::digest(self.unsigned().to_string().as_bytes())[..DIGEST_HEX].to_owned()
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
            "questions": self.questions.iter().map(Shown::text).collect::<Vec<_>>(),
            "answer_with": format!(
                "the user reads it with `glovebox pending` and answers at their terminal: glovebox pending approve {} --digest DIGEST (or decline)",
                self.id
            ),
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
    /// The record is not one this user's glovebox wrote as it stands.
    Forged(PathBuf),
    /// The record is not the one the person read: its digest differs.
    Changed {
        id: String,
        read: String,
        now: String,
    },
    Io(PathBuf, std::io::Error),
    Corrupt(PathBuf, serde_json::Error),
    /// The operating system gave no random bytes for an id or a file name.
    NoRandom(std::io::Error),
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
            PendingError::Forged(path) => write!(
                f,
                "{} is not signed with this user's key as it stands: it was edited, written by hand, or made by another user, so nothing of it runs (`glovebox pending decline` removes it)",
                path.display()
            ),
            PendingError::Changed { id, read, now } => write!(
                f,
                "pending call {id} is not the one you read (digest {read}; it is now {now}): nothing was approved; read it again with `glovebox pending`"
            ),
            PendingError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            PendingError::Corrupt(path, e) => write!(f, "{} is not a pending call record: {e}", path.display()),
            PendingError::NoRandom(e) => write!(f, "no random name for a pending call: {e}"),
        }
    }
}

impl std::error::Error for PendingError {}

/// The directory of parked batches.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// Where this user's signing key is.
    key_dir: PathBuf,
}

impl Store {
    /// `pending` in glovebox's state directory (on Linux
    /// `$XDG_STATE_HOME/glovebox/pending`, default `~/.local/state`).
    pub fn default_dir() -> PathBuf {
        glovebox_services::os::state_dir().join("pending")
    }

    /// The store in `dir`, signed with this user's key.
    pub fn new(dir: PathBuf) -> Store {
        Store { dir, key_dir: glovebox_services::recording::default_dir() }
    }

    /// The store in `dir`, signed with the key in `key_dir`.
    pub fn with_key_dir(dir: PathBuf, key_dir: PathBuf) -> Store {
        Store { dir, key_dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A fresh id.
    pub fn new_id() -> Result<String, PendingError> {
        glovebox_services::access::new_token()
            .map(|t| format!("pnd-{t}"))
            .map_err(PendingError::NoRandom)
    }

    fn path(&self, id: &str) -> Result<PathBuf, PendingError> {
        let hex = id.strip_prefix("pnd-").unwrap_or_default();
        if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(PendingError::BadId(id.to_owned()));
        }
        Ok(self.dir.join(format!("{id}.json")))
    }

    fn key(&self) -> Result<Key, PendingError> {
        Key::load(&self.key_dir)
            .map_err(|e| PendingError::Io(self.key_dir.join(signing::KEY_FILE), e))
    }

    /// Signs the record and writes it whole: to a new file of a random
    /// name, created exclusively and 0600 without following a link, then
    /// renamed over the record (a link there is replaced, not followed).
    pub fn save(&self, parked: &Parked) -> Result<(), PendingError> {
        use std::io::Write as _;
        let path = self.path(&parked.id)?;
        files::private_dir(&self.dir).map_err(|e| PendingError::Io(self.dir.clone(), e))?;
        let mut value = parked.unsigned();
        value["mac"] = self.key()?.mac(&[DOMAIN, value.to_string().as_bytes()]).into();
        let text = serde_json::to_vec_pretty(&value).expect("a record serialises");
        let random = glovebox_services::access::new_token().map_err(PendingError::NoRandom)?;
        let partial = self.dir.join(format!(".{}.{random}.partial", parked.id));
        let written = (|| {
            let mut file = files::open_private(
                &partial,
                std::fs::OpenOptions::new().write(true).create_new(true),
            )?;
            file.write_all(&text)?;
            file.sync_all()?;
            std::fs::rename(&partial, &path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(PendingError::Io(path, e));
        }
        let _ = std::fs::remove_file(self.claim_path(&parked.id));
        Ok(())
    }

    /// Reads the record at `path` (never through a link) and checks its
    /// signature and that it is the record of `id`.
    fn read(&self, path: &Path, id: &str) -> Result<Parked, PendingError> {
        use std::io::Read as _;
        let io = |e| PendingError::Io(path.to_owned(), e);
        let file = files::open_private(path, std::fs::OpenOptions::new().read(true)).map_err(io)?;
        if !file.metadata().map_err(io)?.is_file() {
            return Err(PendingError::Forged(path.to_owned()));
        }
        let mut text = vec![];
        file.take(MAX_BYTES + 1).read_to_end(&mut text).map_err(io)?;
        if text.len() as u64 > MAX_BYTES {
            return Err(PendingError::Forged(path.to_owned()));
        }
        let mut value: Value =
            serde_json::from_slice(&text).map_err(|e| PendingError::Corrupt(path.to_owned(), e))?;
        let mac = value.get("mac").and_then(Value::as_str).unwrap_or_default().to_owned();
        if !value.is_object() || mac.is_empty() {
            return Err(PendingError::Forged(path.to_owned()));
        }
        value["mac"] = String::new().into();
        if !self.key()?.verify(&[DOMAIN, value.to_string().as_bytes()], &mac)
            || value["glovebox_pending"] != FORMAT
        {
            return Err(PendingError::Forged(path.to_owned()));
        }
        let parked: Parked =
            serde_json::from_value(value).map_err(|e| PendingError::Corrupt(path.to_owned(), e))?;
        // A signed record of another batch, copied over this one: not this batch.
        if parked.id != id {
            return Err(PendingError::Forged(path.to_owned()));
        }
        Ok(parked)
    }

    fn claim_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!(".{id}.running"))
    }

    /// Takes an approved batch to run it: of two requests resuming the same
    /// batch at once, only one gets it (a rename), so nothing is delivered
    /// twice. A batch whose run was cut short (the server stopped) stays
    /// claimed and is never run again: part of it may have been delivered.
    /// What runs is what was read and verified here, after the rename.
    pub fn claim(&self, id: &str) -> Result<Parked, PendingError> {
        let path = self.path(id)?;
        let claim = self.claim_path(id);
        match std::fs::rename(&path, &claim) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && claim.exists() => {
                return Err(PendingError::Running(id.to_owned()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(PendingError::Unknown(id.to_owned()))
            }
            Err(e) => return Err(PendingError::Io(path, e)),
        }
        let read = self.read(&claim, id);
        if let Err(PendingError::Forged(_)) = &read {
            // Put back: the next poll is refused the same way, not told it is running.
            let _ = std::fs::rename(&claim, &path);
            return Err(PendingError::Forged(path));
        }
        read
    }

    pub fn load(&self, id: &str) -> Result<Parked, PendingError> {
        let path = self.path(id)?;
        match std::fs::symlink_metadata(&path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && self.claim_path(id).exists() => {
                return Err(PendingError::Running(id.to_owned()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(PendingError::Unknown(id.to_owned()))
            }
            Err(e) => return Err(PendingError::Io(path, e)),
        }
        self.read(&path, id)
    }

    /// Forgets the batch (answered), claimed or not.
    pub fn remove(&self, id: &str) -> Result<(), PendingError> {
        for path in [self.path(id)?, self.claim_path(id)] {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(PendingError::Io(path, e))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Every parked batch, oldest first, and the records refused (unsigned,
    /// edited, unreadable), by id.
    pub fn entries(&self) -> (Vec<Parked>, Vec<(String, PendingError)>) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return (vec![], vec![]) };
        let mut all = vec![];
        let mut refused = vec![];
        for id in entries.flatten().filter_map(|e| {
            e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).map(str::to_owned)
        }) {
            match self.load(&id) {
                Ok(parked) => all.push(parked),
                Err(
                    PendingError::BadId(_) | PendingError::Unknown(_) | PendingError::Running(_),
                ) => {}
                Err(e) => refused.push((id, e)),
            }
        }
        all.sort_by(|a: &Parked, b: &Parked| (a.parked_at, &a.id).cmp(&(b.parked_at, &b.id)));
        refused.sort_by(|a, b| a.0.cmp(&b.0));
        (all, refused)
    }

    /// Every parked batch that verifies, oldest first.
    pub fn list(&self) -> Vec<Parked> {
        self.entries().0
    }

    /// The person's yes to batch `id` as they read it: `digest` is the
    /// [`Parked::digest`] they were shown, and the batch must still be that
    /// record, waiting, and not expired.
    pub fn approve(&self, id: &str, digest: &str) -> Result<Parked, PendingError> {
        let mut parked = self.load(id)?;
        let now = parked.digest();
        if !digest.eq_ignore_ascii_case(&now) {
            return Err(PendingError::Changed { id: id.to_owned(), read: digest.to_owned(), now });
        }
        if parked.expired(now_secs()) {
            return Err(PendingError::Expired(id.to_owned()));
        }
        if parked.status != Status::Waiting {
            return Err(PendingError::Moved {
                id: id.to_owned(),
                round: parked.round,
                status: parked.status,
            });
        }
        parked.status = Status::Approved;
        self.save(&parked)?;
        Ok(parked)
    }

    /// The person's no to batch `id`: whatever it now asks, nothing more of
    /// it runs. A record refused as forged is removed instead.
    pub fn decline(&self, id: &str) -> Result<Option<Parked>, PendingError> {
        let mut parked = match self.load(id) {
            Ok(parked) => parked,
            Err(PendingError::Forged(_)) => return self.remove(id).map(|()| None),
            Err(e) => return Err(e),
        };
        if parked.status != Status::Waiting {
            return Err(PendingError::Moved {
                id: id.to_owned(),
                round: parked.round,
                status: parked.status,
            });
        }
        parked.status = Status::Declined;
        self.save(&parked)?;
        Ok(Some(parked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> Parked {
        Parked {
            id: id.into(),
            provider: Provider::OpenAi,
            window: Some("10/0x200003".into()),
            calls: vec![
                serde_json::json!({"type": "computer_call", "call_id": "call_1", "actions": [{"type": "click", "x": 1, "y": 2}]}),
            ],
            single: true,
            acknowledged: vec![],
            next: 0,
            delivered: vec![],
            basis: None,
            questions: vec![Shown::Call { text: "glovebox wants to click. Approve?".into() }],
            status: Status::Waiting,
            round: 1,
            parked_at: 5,
        }
    }

    /// A store in a fresh directory with a key of its own.
    fn scratch_store(name: &str) -> (Store, PathBuf) {
        let dir = std::env::temp_dir()
            .join(format!("glovebox-pending-unit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        (Store::with_key_dir(dir.join("pending"), dir.join("key")), dir)
    }

    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn records_round_trip_privately_and_an_answer_holds_for_the_record_read_only() {
        let (store, scratch) = scratch_store("round");
        let dir = store.dir().to_owned();
        let id = Store::new_id().unwrap();
        store.save(&record(&id)).unwrap();
        assert_eq!((mode(&dir.join(format!("{id}.json"))), mode(&dir)), (0o600, 0o700));
        assert_eq!(store.load(&id).unwrap(), record(&id));
        assert_eq!(store.list().len(), 1);
        let digest = record(&id).digest();
        assert!(digest.len() == DIGEST_HEX && digest.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(
            record(&id).expired(5 + MAX_WAIT_SECS + 1) && !record(&id).expired(5 + MAX_WAIT_SECS)
        );
        assert!(
            matches!(store.approve(&id, &digest), Err(PendingError::Expired(_))),
            "parked at 5 s after the epoch: long expired"
        );
        let mut fresh = record(&id);
        fresh.parked_at = now_secs();
        store.save(&fresh).unwrap();
        assert!(
            matches!(store.approve(&id, &digest), Err(PendingError::Changed { .. })),
            "read before it was saved again"
        );
        let read = fresh.digest();
        assert_eq!(store.approve(&id, &read.to_uppercase()).unwrap().status, Status::Approved);
        assert!(
            matches!(store.approve(&id, &read), Err(PendingError::Changed { .. })),
            "approved: not the record read"
        );
        assert!(matches!(store.decline(&id), Err(PendingError::Moved { .. })), "answered already");
        for bad in ["../../etc/passwd", "pnd-zz", "", "pnd-0123456789abcdef0123456789abcdeg"] {
            assert!(matches!(store.load(bad), Err(PendingError::BadId(_))), "{bad}");
        }
        assert_eq!(store.claim(&id).unwrap().status, Status::Approved);
        assert!(matches!(store.claim(&id), Err(PendingError::Running(_))), "one run only");
        assert!(store.list().is_empty(), "a claimed batch is not waiting");
        store.remove(&id).unwrap();
        assert!(matches!(store.load(&id), Err(PendingError::Unknown(_))));
        assert!(matches!(store.claim(&id), Err(PendingError::Unknown(_))));
        let _ = std::fs::remove_dir_all(&scratch);
    }

    #[test]
    fn an_edited_hand_written_or_foreign_record_is_refused_and_only_declining_removes_it() {
        let (store, scratch) = scratch_store("forged");
        let id = Store::new_id().unwrap();
        let path = store.dir().join(format!("{id}.json"));
        store.save(&record(&id)).unwrap();
        let signed = std::fs::read_to_string(&path).unwrap();
        let forged = |what: &str, text: String| {
            std::fs::write(&path, text).unwrap();
            assert!(matches!(store.load(&id), Err(PendingError::Forged(_))), "{what}");
            assert!(
                matches!(store.claim(&id), Err(PendingError::Forged(_))),
                "{what}: claimed, still refused"
            );
            assert!(
                path.exists() && !store.claim_path(&id).exists(),
                "{what}: put back, not left as running"
            );
            let (listed, refused) = store.entries();
            assert!(
                listed.iter().all(|p| p.id != id) && refused.iter().any(|(r, _)| *r == id),
                "{what}"
            );
        };
        forged("the status edited", signed.replace("\"waiting\"", "\"approved\""));
        forged(
            "the call and its question rewritten",
            signed.replace("\"x\": 1", "\"x\": 100").replace("to click", "to click at 100"),
        );
        let mut bare = serde_json::to_value(record(&id)).unwrap();
        bare["status"] = "approved".into();
        forged("written by hand", bare.to_string());
        bare["mac"] = "00".repeat(32).into();
        bare["glovebox_pending"] = FORMAT.into();
        forged("written by hand with a made-up mac", bare.to_string());
        let (other, other_scratch) = scratch_store("forged-other");
        other.save(&record(&id)).unwrap();
        forged(
            "another user's",
            std::fs::read_to_string(other.dir().join(format!("{id}.json"))).unwrap(),
        );
        let copied = Store::new_id().unwrap();
        store.save(&record(&copied)).unwrap();
        forged(
            "another batch's record copied over it",
            std::fs::read_to_string(store.dir().join(format!("{copied}.json"))).unwrap(),
        );
        assert!(matches!(store.approve(&id, &record(&id).digest()), Err(PendingError::Forged(_))));
        assert_eq!(store.decline(&id).unwrap(), None, "declined: removed");
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(&scratch);
        let _ = std::fs::remove_dir_all(&other_scratch);
    }

    #[test]
    fn a_planted_partial_file_or_link_neither_redirects_nor_loosens_a_record() {
        use std::os::unix::fs::PermissionsExt as _;
        let (store, scratch) = scratch_store("planted");
        let id = Store::new_id().unwrap();
        store.save(&record(&id)).unwrap();
        let victim = scratch.join("victim");
        std::fs::write(&victim, "the user's file").unwrap();
        std::os::unix::fs::symlink(&victim, store.dir().join(format!(".{id}.partial"))).unwrap();
        store.decline(&id).unwrap();
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "the user's file",
            "the link's target is untouched"
        );
        std::fs::remove_file(store.dir().join(format!(".{id}.partial"))).unwrap();
        let loose = store.dir().join(format!(".{id}.partial"));
        std::fs::write(&loose, "").unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut again = record(&id);
        again.round = 2;
        store.save(&again).unwrap();
        assert_eq!(mode(&store.dir().join(format!("{id}.json"))), 0o600);
        // A looser directory of ours is tightened.
        std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
        store.save(&again).unwrap();
        assert_eq!(mode(store.dir()), 0o700);
        // A record that is a link is not followed.
        std::fs::remove_file(store.dir().join(format!("{id}.json"))).unwrap();
        std::os::unix::fs::symlink(&victim, store.dir().join(format!("{id}.json"))).unwrap();
        assert!(store.load(&id).is_err());
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
