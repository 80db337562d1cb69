//! sway's IPC (the i3 protocol over a Unix socket): a request is the magic
//! `i3-ipc`, the payload's length and the message type (both native-endian
//! u32), then the payload; the reply has the same header and JSON.

use glovebox_platform::{BackendError, BackendErrorKind};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MAGIC: &[u8; 6] = b"i3-ipc";
/// Longer than any tree a desktop holds; a larger length is a broken peer.
const MAX_REPLY: u32 = 64 << 20;
const TIMEOUT: Duration = Duration::from_secs(2);

/// The requests glovebox makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    RunCommand,
    GetOutputs,
    GetTree,
    GetVersion,
}

impl Kind {
    fn code(self) -> u32 {
        match self {
            Kind::RunCommand => 0,
            Kind::GetOutputs => 3,
            Kind::GetTree => 4,
            Kind::GetVersion => 7,
        }
    }
}

/// One connection to the compositor's IPC socket.
pub struct Ipc {
    stream: UnixStream,
    path: PathBuf,
}

fn unavailable(path: &Path, what: impl std::fmt::Display) -> BackendError {
    BackendError::new(
        BackendErrorKind::Unavailable,
        format!("the compositor's IPC socket {}: {what}", path.display()),
    )
}

impl Ipc {
    pub fn connect(path: &Path) -> Result<Ipc, BackendError> {
        let stream = UnixStream::connect(path).map_err(|e| unavailable(path, e))?;
        stream
            .set_read_timeout(Some(TIMEOUT))
            .and_then(|_| stream.set_write_timeout(Some(TIMEOUT)))
            .map_err(|e| unavailable(path, e))?;
        Ok(Ipc { stream, path: path.to_owned() })
    }

    /// Sends one request and parses its reply.
    pub fn request(
        &mut self,
        kind: Kind,
        payload: &str,
    ) -> Result<serde_json::Value, BackendError> {
        let mut message = Vec::with_capacity(14 + payload.len());
        message.extend_from_slice(MAGIC);
        message.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
        message.extend_from_slice(&kind.code().to_ne_bytes());
        message.extend_from_slice(payload.as_bytes());
        self.stream.write_all(&message).map_err(|e| unavailable(&self.path, e))?;
        let mut header = [0u8; 14];
        self.stream.read_exact(&mut header).map_err(|e| unavailable(&self.path, e))?;
        if &header[..6] != MAGIC {
            return Err(unavailable(&self.path, "the reply is not the i3 IPC protocol"));
        }
        let length = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]);
        if length > MAX_REPLY {
            return Err(unavailable(&self.path, format!("a reply of {length} bytes")));
        }
        let mut body = vec![0u8; length as usize];
        self.stream.read_exact(&mut body).map_err(|e| unavailable(&self.path, e))?;
        serde_json::from_slice(&body)
            .map_err(|e| unavailable(&self.path, format!("a reply that is not JSON ({e})")))
    }
}

/// A `run_command` reply's verdict: every command succeeded, or the first error.
pub fn check_command(reply: &serde_json::Value) -> Result<(), BackendError> {
    let results = reply.as_array().map(Vec::as_slice).unwrap_or_default();
    match results.iter().find(|r| r.get("success").and_then(|s| s.as_bool()) != Some(true)) {
        None => Ok(()),
        Some(failed) => Err(BackendError::new(
            BackendErrorKind::NotActionable,
            format!(
                "the compositor refused: {}",
                failed.get("error").and_then(|e| e.as_str()).unwrap_or("no reason given")
            ),
        )),
    }
}

/// sway's IPC socket in the directory of the Wayland socket
/// (`sway-ipc.<uid>.<pid>.sock`), the one that answers.
pub fn find_socket_near(wayland_display: &Path) -> Result<PathBuf, BackendError> {
    let dir = wayland_display.parent().unwrap_or(Path::new("/"));
    let entries = std::fs::read_dir(dir).map_err(|e| unavailable(dir, e))?;
    let mut candidates: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("sway-ipc.") && n.ends_with(".sock"))
        })
        .collect();
    candidates.sort();
    candidates.into_iter().find(|p| UnixStream::connect(p).is_ok()).ok_or_else(|| {
        BackendError::new(
            BackendErrorKind::Unavailable,
            format!(
                "no compositor IPC socket (sway-ipc.*.sock) answers in {}; glovebox lists Wayland windows through a wlroots compositor's sway IPC (set SWAYSOCK)",
                dir.display()
            ),
        )
    })
}
