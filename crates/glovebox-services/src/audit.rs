//! The audit trail: append-only JSON lines. Typed text is recorded as its
//! length; pixels and field values never appear.
//!
//! Each record is one `write` on a file opened for appending, under an
//! exclusive `flock` so writers of several processes take turns; a line torn
//! by a crash is closed off before the next record, so it can never corrupt
//! earlier or later ones.

use glovebox_model::{ErrorCode, Origin, Scope, WindowId};
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One line of the audit trail. The grant fields are set when a grant was
/// active; the others only where the event has them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When it happened, in Unix milliseconds.
    pub ts_ms: u64,
    /// The glovebox process that wrote it.
    pub pid: u32,
    /// What happened (`grant-created`, `observe`, `action`, `refusal`, …).
    pub event: String,
    /// The active grant's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant_id: Option<String>,
    /// The active grant's scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Who created the active grant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// The grant's bound window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<WindowId>,
    /// The bound window's application.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The action's kind (`click`, `type`), for actions and their refusals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The role of the element acted on or read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_role: Option<glovebox_model::Role>,
    /// The id of the element acted on or read, in its frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_id: Option<String>,
    /// How many characters were typed; the text itself is never kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_length: Option<usize>,
    /// A refusal's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<ErrorCode>,
    /// What else the event says, in words (the route, a refusal's message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl AuditRecord {
    /// A record of `event`, stamped now by this process, with nothing else set.
    pub fn new(event: &str) -> AuditRecord {
        AuditRecord {
            ts_ms: glovebox_platform::now_ms(),
            pid: std::process::id(),
            event: event.into(),
            grant_id: None,
            scope: None,
            origin: None,
            target: None,
            app: None,
            action: None,
            element_role: None,
            element_id: None,
            text_length: None,
            code: None,
            detail: None,
        }
    }
}

/// The audit trail's file.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
}

impl AuditLog {
    /// `audit/audit.jsonl` in glovebox's state directory ([`crate::os::state_dir`]:
    /// `$XDG_STATE_HOME/glovebox` on Linux, default `~/.local/state/glovebox`).
    pub fn default_path() -> PathBuf {
        crate::os::state_dir().join("audit").join("audit.jsonl")
    }

    /// The trail kept in `path`; nothing is opened until a record is appended.
    pub fn new(path: PathBuf) -> AuditLog {
        AuditLog { path }
    }

    /// Where the trail is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record. Audit failures are reported, never silently lost.
    /// The trail names apps, windows and approvals: a 0600 file in a 0700
    /// directory ([`glovebox_platform::files`]).
    pub fn append(&self, record: &AuditRecord) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            glovebox_platform::files::private_dir(dir)?;
        }
        let mut file = glovebox_platform::files::open_private(
            &self.path,
            std::fs::OpenOptions::new().create(true).append(true).read(true),
        )?;
        // Released when `file` closes, also if this process dies mid-write.
        #[cfg(unix)]
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
        let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
        line.push('\n');
        // Close off a line a crash left unterminated.
        let length = file.metadata()?.len();
        if length > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(length - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                line.insert(0, '\n');
            }
        }
        file.write_all(line.as_bytes())
    }

    /// Every readable record at or after `since_ms`; torn lines are skipped.
    pub fn read(&self, since_ms: u64) -> std::io::Result<Vec<AuditRecord>> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(e),
        };
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str::<AuditRecord>(l).ok())
            .filter(|r| r.ts_ms >= since_ms)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_line_spoils_nothing_around_it() {
        let path = std::env::temp_dir()
            .join(format!("glovebox-audit-test-{}/audit.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let log = AuditLog::new(path.clone());
        log.append(&AuditRecord::new("first")).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(br#"{"ts_ms": 12, "pid""#)
            .unwrap();
        log.append(&AuditRecord::new("second")).unwrap();
        let events: Vec<String> = log.read(0).unwrap().into_iter().map(|r| r.event).collect();
        assert_eq!(events, ["first", "second"]);
    }

    #[test]
    fn concurrent_writers_never_interleave() {
        let path = std::env::temp_dir()
            .join(format!("glovebox-audit-concurrent-{}/audit.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let log = AuditLog::new(path.clone());
                std::thread::spawn(move || {
                    for i in 0..100 {
                        let mut r = AuditRecord::new("action");
                        r.detail = Some(format!("{t}-{i}-{}", "x".repeat(500)));
                        log.append(&r).unwrap();
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 400);
        assert_eq!(AuditLog::new(path).read(0).unwrap().len(), 400);
    }
}
