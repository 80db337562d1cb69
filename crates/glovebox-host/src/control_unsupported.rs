//! Coordination between glovebox processes where Unix sockets and `flock`
//! are missing: nothing can be coordinated, so no grant is ever created.

use glovebox_model::{ErrorCode, Refusal};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn unsupported() -> Refusal {
    Refusal::new(ErrorCode::PlatformUnsupported, format!("glovebox cannot coordinate grants on {} yet", std::env::consts::OS))
}

#[derive(Debug, Clone)]
pub struct DisplayDir;

#[derive(Debug)]
pub struct DisplayLock;

#[derive(Debug)]
pub struct ControlServer;

impl DisplayDir {
    pub fn default_root() -> PathBuf {
        std::env::temp_dir().join("glovebox")
    }

    pub fn new(_root: &Path, _display: &str) -> Result<DisplayDir, Refusal> {
        Ok(DisplayDir)
    }

    pub fn lock(&self) -> Result<DisplayLock, Refusal> {
        Err(unsupported())
    }

    pub fn start_cooldown(&self, _length: Duration) -> Result<(), Refusal> {
        Err(unsupported())
    }

    pub fn clear_cooldown(&self) {}

    pub fn cooldown_left(&self) -> Option<Duration> {
        None
    }

    pub fn serve(&self, _handle: impl Fn(&str) -> String + Send + 'static) -> Result<ControlServer, Refusal> {
        Err(unsupported())
    }

    pub fn send(&self, _command: &str) -> Result<String, Refusal> {
        Err(unsupported())
    }
}
