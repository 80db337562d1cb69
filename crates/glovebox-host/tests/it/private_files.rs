//! What the host keeps on disk is readable by this user alone: the audit
//! trail and the recordings (with their key) are 0600 files in 0700
//! directories, made fresh under the common permissive umask (022), as on a
//! user's first run.
#![cfg(unix)]

use glovebox_model::TextRecording;
use glovebox_services::audit::{AuditLog, AuditRecord};
use glovebox_services::recording::Recorder;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// A fresh `XDG_STATE_HOME` with the umask most users have: 022 makes plain
/// `create` calls 0644 and directories 0755.
fn fresh_state(name: &str) -> PathBuf {
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    let state =
        std::env::temp_dir().join(format!("glovebox-private-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    state
}

#[test]
fn the_audit_trail_is_private() {
    let state = fresh_state("audit");
    let log = AuditLog::new(state.join("glovebox/audit/audit.jsonl"));
    log.append(&AuditRecord::new("grant")).unwrap();
    assert_eq!(mode(log.path()), 0o600);
    assert_eq!(mode(&state.join("glovebox/audit")), 0o700);
    assert_eq!(mode(&state.join("glovebox")), 0o700);
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn an_older_audit_trail_is_tightened() {
    let state = fresh_state("audit-older");
    let dir = state.join("glovebox/audit");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("audit.jsonl"), "").unwrap();
    assert_eq!((mode(&dir), mode(&dir.join("audit.jsonl"))), (0o755, 0o644));
    AuditLog::new(dir.join("audit.jsonl")).append(&AuditRecord::new("grant")).unwrap();
    assert_eq!((mode(&dir), mode(&dir.join("audit.jsonl"))), (0o700, 0o600));
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn recordings_and_their_key_are_private() {
    let state = fresh_state("recordings");
    let dir = state.join("glovebox/recordings");
    let recorder = Recorder::start(&dir, "g1", TextRecording::Kept).unwrap();
    let path = recorder.path().to_owned();
    drop(recorder);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.join("recording.key")), 0o600);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&state.join("glovebox")), 0o700);
    let _ = std::fs::remove_dir_all(&state);
}

/// The key is made on first use wherever it is first needed (reading a
/// recording, signing a waiting batch): its directory is private too.
#[test]
fn a_key_made_on_first_read_is_private() {
    let state = fresh_state("key");
    let dir = state.join("glovebox/recordings");
    glovebox_services::signing::Key::load(&dir).unwrap();
    assert_eq!((mode(&dir), mode(&dir.join("recording.key"))), (0o700, 0o600));
    let _ = std::fs::remove_dir_all(&state);
}
