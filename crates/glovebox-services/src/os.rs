//! What differs per operating system below the services, in one place:
//! where glovebox keeps state and runtime files, the random source, the
//! user this process runs as, and who is at the other end of a local
//! socket. Everything above asks here instead of reading `XDG_*`, a device
//! file or a socket option itself.
//!
//! Linux is the system these run on and are tested on; the macOS and
//! Windows arms are type-checked in CI (`.ci/foreign-check`) and have not
//! yet run on those systems.

use std::path::PathBuf;

/// glovebox's own directory for what it keeps across runs (the audit
/// trail, recordings, waiting batches, reports): `$XDG_STATE_HOME/glovebox`
/// (default `~/.local/state/glovebox`); on macOS without `XDG_STATE_HOME`,
/// `~/Library/Application Support/glovebox`; on Windows
/// `%LOCALAPPDATA%\glovebox\state`.
pub fn state_dir() -> PathBuf {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        let base = set("LOCALAPPDATA").unwrap_or_else(std::env::temp_dir);
        return base.join("glovebox").join("state");
    }
    if let Some(state) = set("XDG_STATE_HOME") {
        return state.join("glovebox");
    }
    let home_relative =
        if cfg!(target_os = "macos") { "Library/Application Support" } else { ".local/state" };
    set("HOME").map(|h| h.join(home_relative)).unwrap_or_else(std::env::temp_dir).join("glovebox")
}

/// This user's home directory: `HOME`; on Windows `USERPROFILE` (where
/// `HOME` is rarely set), else `HOMEDRIVE` and `HOMEPATH`.
pub fn home_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        return set("USERPROFILE").or_else(|| {
            let (drive, path) = (set("HOMEDRIVE")?, set("HOMEPATH")?);
            Some(drive.join(path))
        });
    }
    set("HOME")
}

/// Where applications keep this user's settings: `%APPDATA%` on Windows,
/// `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` (default
/// `~/.config`) elsewhere.
pub fn app_config_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        return set("APPDATA");
    }
    if cfg!(target_os = "macos") {
        return home_dir().map(|h| h.join("Library/Application Support"));
    }
    set("XDG_CONFIG_HOME").or_else(|| home_dir().map(|h| h.join(".config")))
}

/// The directory for this user's sockets and locks of this login:
/// `$XDG_RUNTIME_DIR/glovebox`, else `glovebox-UID` in the temporary
/// directory (the caller makes it private and refuses another user's).
pub fn runtime_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("glovebox"),
        None => std::env::temp_dir().join(format!("glovebox-{}", current_uid())),
    }
}

/// `N` bytes from the operating system's random source (`getrandom`): every
/// key, token and id glovebox makes comes from here.
pub fn random_bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| {
        std::io::Error::new(
            std::io::Error::from(e).kind(),
            format!("the operating system gave no random bytes: {e}"),
        )
    })?;
    Ok(bytes)
}

/// The uid this process runs as.
#[cfg(unix)]
pub fn current_uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// Systems without uids have one user as far as glovebox is concerned.
#[cfg(not(unix))]
pub fn current_uid() -> u32 {
    0
}

/// The process at the other end of a local socket, as the kernel reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// Its user.
    pub uid: u32,
    /// Its process.
    pub pid: u32,
}

/// Who connected on `stream`, by the kernel's record (`SO_PEERCRED`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn peer(stream: &std::os::unix::net::UnixStream) -> std::io::Result<Peer> {
    let cred = rustix::net::sockopt::socket_peercred(stream)?;
    Ok(Peer { uid: cred.uid.as_raw(), pid: cred.pid.as_raw_nonzero().get() as u32 })
}

/// Elsewhere the peer is not read yet (macOS's `getpeereid` and
/// `LOCAL_PEERPID` need code of their own): the caller refuses the
/// connection rather than serve it unchecked.
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
pub fn peer(_stream: &std::os::unix::net::UnixStream) -> std::io::Result<Peer> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!(
            "glovebox cannot read a connecting process's credentials on {} yet",
            std::env::consts::OS
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_runtime_live_under_glovebox_and_random_bytes_differ() {
        assert!(state_dir().ends_with("glovebox"));
        assert!(runtime_dir().file_name().unwrap().to_string_lossy().starts_with("glovebox"));
        let (a, b) = (random_bytes::<16>().unwrap(), random_bytes::<16>().unwrap());
        assert_ne!(a, b);
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn a_socket_pair_names_this_process_and_user() {
        let (one, _other) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(peer(&one).unwrap(), Peer { uid: current_uid(), pid: std::process::id() });
    }
}
