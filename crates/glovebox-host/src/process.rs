//! The process table the host's denials read ([`glovebox_platform::process`]),
//! and the uid glovebox itself runs as.

pub use glovebox_platform::process::*;

/// The uid this process runs as.
#[cfg(unix)]
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Platforms without uids have one user as far as the host is concerned.
#[cfg(not(unix))]
pub fn current_uid() -> u32 {
    0
}
