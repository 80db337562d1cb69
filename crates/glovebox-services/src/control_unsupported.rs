//! Coordination between glovebox processes where Unix sockets and `flock`
//! are missing: nothing can be coordinated, so no grant is ever created.

pub use crate::control_messages::{ControlError, ControlReply, ControlRequest};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn unsupported() -> ControlError {
    ControlError::Unsupported { os: std::env::consts::OS }
}

/// A display's coordination files, which cannot exist here.
#[derive(Debug, Clone)]
pub struct DisplayDir;

/// A display's grant lock, never taken here.
#[derive(Debug)]
pub struct DisplayLock;

/// A control socket, never served here.
#[derive(Debug)]
pub struct ControlServer;

impl DisplayDir {
    /// `glovebox` in the temporary directory; nothing is kept there.
    pub fn default_root() -> PathBuf {
        std::env::temp_dir().join("glovebox")
    }

    /// Succeeds, so a host opens and refuses each grant instead.
    pub fn new(_root: &Path, _display: &str) -> Result<DisplayDir, ControlError> {
        Ok(DisplayDir)
    }

    /// Refuses: no grant can be created.
    pub fn lock(&self) -> Result<DisplayLock, ControlError> {
        Err(unsupported())
    }

    /// Refuses: no cooldown can be shared.
    pub fn start_cooldown(&self, _length: Duration) -> Result<(), ControlError> {
        Err(unsupported())
    }

    /// Does nothing: no cooldown runs.
    pub fn clear_cooldown(&self) {}

    /// Always `None`: no cooldown runs.
    pub fn cooldown_left(&self) -> Option<Duration> {
        None
    }

    /// Refuses: no socket can be served.
    pub fn serve(
        &self,
        _handle: impl Fn(ControlRequest) -> ControlReply + Send + 'static,
    ) -> Result<ControlServer, ControlError> {
        Err(unsupported())
    }

    /// Refuses: no holder can be reached.
    pub fn send(&self, _request: ControlRequest) -> Result<ControlReply, ControlError> {
        Err(unsupported())
    }
}
