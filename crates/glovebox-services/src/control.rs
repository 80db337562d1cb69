//! Coordination between glovebox processes on one display: the grant lock
//! (at most one active grant per display), the Stop cooldown file, and the
//! control socket through which `glovebox stop` and `glovebox grant status`
//! reach the process holding the grant.
//!
//! The lock is the system's file lock on a file in the runtime directory
//! (`flock` on Unix, `LockFileEx` on Windows, through std): the system
//! drops it when its holder dies, so a crashed holder never blocks anyone.
//! The cooldown is a file beside it. Both work on every system.
//!
//! The socket speaks JSON lines: one [`ControlRequest`] per connection, one
//! [`ControlReply`] back. Both sides use the types here. It is a Unix
//! socket; Windows has no control pipe yet, so there `glovebox stop` from
//! another process starts the cooldown but cannot reach the holder
//! (`ControlError::Unsupported`), and the holder's own Stop (the indicator,
//! Ctrl-C) is how a grant ends.

use std::fs::{File, OpenOptions};
#[cfg(unix)]
use std::io::{BufRead, BufReader};
use std::io::{Read, Write};
#[cfg(unix)]
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
#[cfg(unix)]
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use crate::control_messages::{ControlError, ControlReply, ControlRequest};

/// The directory of one display's coordination files.
#[derive(Debug, Clone)]
pub struct DisplayDir {
    dir: PathBuf,
    display: String,
}

fn io_error(what: &'static str, source: std::io::Error) -> ControlError {
    ControlError::Io { what, source }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

impl DisplayDir {
    /// This user's runtime directory ([`crate::os::runtime_dir`]:
    /// `$XDG_RUNTIME_DIR/glovebox`, or a private directory under /tmp).
    pub fn default_root() -> PathBuf {
        crate::os::runtime_dir()
    }

    /// The files of `display` under `root`, which is made (or checked to be
    /// this user's and tightened) first.
    pub fn new(root: &Path, display: &str) -> Result<DisplayDir, ControlError> {
        // Under /tmp (no XDG_RUNTIME_DIR) another user could have made it first: theirs is refused.
        glovebox_platform::files::private_dir(root)
            .map_err(|e| io_error("runtime directory", e))?;
        let safe: String = display
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' })
            .collect();
        Ok(DisplayDir { dir: root.to_owned(), display: safe })
    }

    fn file(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("display-{}.{suffix}", self.display))
    }

    /// The files of this display's warm host ([`crate::warm`]).
    #[cfg(unix)]
    pub fn warm(&self) -> crate::warm::WarmDir {
        crate::warm::WarmDir { lock: self.file("warm.lock"), socket: self.file("warm.sock") }
    }

    /// Takes the display's grant lock, or says which process holds it.
    pub fn lock(&self) -> Result<DisplayLock, ControlError> {
        let path = self.file("lock");
        let mut file = glovebox_platform::files::open_private(
            &path,
            OpenOptions::new().create(true).truncate(false).read(true).write(true),
        )
        .map_err(|e| io_error("grant lock", e))?;
        match file.try_lock() {
            Ok(()) => {
                file.set_len(0).map_err(|e| io_error("grant lock", e))?;
                write!(file, "{}", std::process::id()).map_err(|e| io_error("grant lock", e))?;
                Ok(DisplayLock { _file: file })
            }
            Err(_) => {
                // The holder wrote its pid; Windows' lock covers the bytes,
                // so there a reader may see nothing.
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                Err(ControlError::Held { holder: holder.trim().to_owned() })
            }
        }
    }

    /// Starts the Stop cooldown, visible to every process on this display.
    pub fn start_cooldown(&self, length: Duration) -> Result<(), ControlError> {
        let until = now_ms() + length.as_millis() as u64;
        let path = self.file("stopped-until");
        let tmp = self.file("stopped-until.tmp");
        std::fs::write(&tmp, until.to_string())
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| io_error("stop cooldown", e))
    }

    /// Ends the Stop cooldown (the user created a grant).
    pub fn clear_cooldown(&self) {
        let _ = std::fs::remove_file(self.file("stopped-until"));
    }

    /// Time left of the Stop cooldown, if one runs.
    pub fn cooldown_left(&self) -> Option<Duration> {
        let until: u64 =
            std::fs::read_to_string(self.file("stopped-until")).ok()?.trim().parse().ok()?;
        let now = now_ms();
        (until > now).then(|| Duration::from_millis(until - now))
    }

    /// Serves the control socket: each connection sends one request line
    /// and gets one reply line from `handle`.
    #[cfg(unix)]
    pub fn serve(
        &self,
        handle: impl Fn(ControlRequest) -> ControlReply + Send + 'static,
    ) -> Result<ControlServer, ControlError> {
        let path = self.file("sock");
        // Only the lock holder serves, so a socket file left here is stale.
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).map_err(|e| io_error("control socket", e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        std::thread::Builder::new()
            .name("glovebox-control".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                    let mut line = String::new();
                    if BufReader::new(&stream).read_line(&mut line).is_ok() {
                        let reply = match serde_json::from_str::<ControlRequest>(line.trim()) {
                            Ok(request) => handle(request),
                            Err(_) => ControlReply::Unknown {
                                request: line.trim().chars().take(200).collect(),
                            },
                        };
                        let text = serde_json::to_string(&reply).unwrap_or_default();
                        let _ = (&stream).write_all(format!("{text}\n").as_bytes());
                    }
                }
            })
            .map_err(|e| io_error("control thread", e))?;
        Ok(ControlServer { path, stop })
    }

    /// No control socket is served where there are no Unix sockets yet.
    #[cfg(not(unix))]
    pub fn serve(
        &self,
        _handle: impl Fn(ControlRequest) -> ControlReply + Send + 'static,
    ) -> Result<ControlServer, ControlError> {
        Err(ControlError::Unsupported { os: std::env::consts::OS })
    }

    /// No holder can be reached where there are no Unix sockets yet.
    #[cfg(not(unix))]
    pub fn send(&self, _request: ControlRequest) -> Result<ControlReply, ControlError> {
        Err(ControlError::Unsupported { os: std::env::consts::OS })
    }

    /// Sends a request to the process holding this display's grant.
    #[cfg(unix)]
    pub fn send(&self, request: ControlRequest) -> Result<ControlReply, ControlError> {
        let path = self.file("sock");
        let mut stream = UnixStream::connect(&path).map_err(|_| ControlError::NoHolder)?;
        stream
            .set_read_timeout(Some(Duration::from_secs(3)))
            .map_err(|e| io_error("control socket", e))?;
        let line = serde_json::to_string(&request)
            .map_err(|e| io_error("control request", std::io::Error::other(e)))?;
        stream
            .write_all(format!("{line}\n").as_bytes())
            .map_err(|e| io_error("control socket", e))?;
        let mut reply = String::new();
        BufReader::new(stream).read_line(&mut reply).map_err(|e| io_error("control socket", e))?;
        serde_json::from_str(reply.trim()).map_err(|e| ControlError::BadReply {
            reply: reply.trim().to_owned(),
            why: e.to_string(),
        })
    }
}

/// Held while this process has the display's grant.
#[derive(Debug)]
pub struct DisplayLock {
    _file: File,
}

/// The control socket's server; stops serving when dropped.
#[derive(Debug)]
#[cfg_attr(not(unix), allow(dead_code))]
pub struct ControlServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
}

#[cfg(unix)]
impl Drop for ControlServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = UnixStream::connect(&self.path);
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> DisplayDir {
        let root = std::env::temp_dir()
            .join(format!("glovebox-control-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        DisplayDir::new(&root, ":9").unwrap()
    }

    #[test]
    fn the_lock_is_exclusive_and_released_on_drop() {
        let d = dir("lock");
        let held = d.lock().unwrap();
        let held_by = d.lock().unwrap_err();
        assert!(
            matches!(&held_by, ControlError::Held { holder } if *holder == std::process::id().to_string()),
            "{held_by}"
        );
        drop(held);
        d.lock().unwrap();
    }

    /// A runtime directory left looser than 0700 (an older glovebox, a
    /// permissive umask) is tightened before the socket goes in it.
    #[test]
    fn a_loose_runtime_directory_is_tightened() {
        use std::os::unix::fs::PermissionsExt as _;
        let root = std::env::temp_dir()
            .join(format!("glovebox-control-test-{}-loose", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
        let d = DisplayDir::new(&root, ":9").unwrap();
        assert_eq!(std::fs::metadata(&root).unwrap().permissions().mode() & 0o777, 0o700);
        drop(d.lock().unwrap());
        assert_eq!(std::fs::metadata(d.file("lock")).unwrap().permissions().mode() & 0o777, 0o600);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn cooldown_counts_down_and_clears() {
        let d = dir("cooldown");
        assert!(d.cooldown_left().is_none());
        d.start_cooldown(Duration::from_secs(30)).unwrap();
        assert!(d.cooldown_left().unwrap() > Duration::from_secs(29));
        d.clear_cooldown();
        assert!(d.cooldown_left().is_none());
    }

    #[test]
    fn control_socket_round_trip() {
        let d = dir("socket");
        assert!(matches!(d.send(ControlRequest::Status), Err(ControlError::NoHolder)));
        let server = d
            .serve(|request| match request {
                ControlRequest::Stop => ControlReply::Stopped,
                other => ControlReply::Busy { why: format!("{other:?}") },
            })
            .unwrap();
        assert_eq!(d.send(ControlRequest::Stop).unwrap(), ControlReply::Stopped);
        assert_eq!(
            d.send(ControlRequest::Indicator).unwrap(),
            ControlReply::Busy { why: "Indicator".into() }
        );
        // A line that is no request gets an answer that says so.
        let mut raw = UnixStream::connect(d.file("sock")).unwrap();
        raw.write_all(b"stop\n").unwrap();
        let mut reply = String::new();
        BufReader::new(raw).read_line(&mut reply).unwrap();
        assert_eq!(
            serde_json::from_str::<ControlReply>(reply.trim()).unwrap(),
            ControlReply::Unknown { request: "stop".into() }
        );
        drop(server);
        assert!(d.send(ControlRequest::Stop).is_err());
    }
}
