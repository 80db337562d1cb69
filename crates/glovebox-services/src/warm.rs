//! The warm host's socket. One glovebox process per display (an MCP
//! server, `glovebox serve`, or the resident `glovebox host`) keeps its
//! desktop connections open (the accessibility bus with its memo, the
//! capture segment) and carries out the one-shot CLI calls of the same user
//! sent over a Unix socket beside the control socket.
//!
//! Whoever holds `display-X.warm.lock` serves `display-X.warm.sock`; other
//! hosts of the display wait on the lock in a thread and take over when
//! the holder ends (the kernel drops an `flock` with its holder, so a
//! killed holder blocks no one). Both ends check the other's credentials
//! as the kernel reports them (`SO_PEERCRED`): only the same user is
//! served, and only the same user's host is ridden.
//!
//! A connection starts with the host's [`Greeting`]; then the caller's
//! request and whatever the call exchanges, as JSON lines and raw byte
//! blobs of announced lengths ([`Link`]). This module frames and checks;
//! what a call is, is the CLI's (`glovebox`'s `cli/ride.rs`).
//!
//! What a connection may hold is bounded before its request is read: at
//! most [`MAX_CALLS`] calls are carried out at once, each on a thread of its
//! own, and a caller past them is declined at once (it does the work
//! itself); and the request must arrive whole within [`FIRST_LINE`] of the
//! connection, however its bytes are paced.

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest JSON line either end reads: a request carries a whole
/// configuration, a reply header a few numbers.
const MAX_LINE: u64 = 1 << 20;

/// The largest blob either end takes: a desktop's PNG is a few megabytes.
const MAX_BLOB: usize = 1 << 30;

/// How many calls a warm host carries out at once. A call may wait on the
/// person (a prompt), so a few at once are ordinary; each holds a thread
/// and its memory, so past this many a caller is declined at once.
pub const MAX_CALLS: usize = 16;

/// How long a caller has, from its connection, to send its whole request.
pub const FIRST_LINE: Duration = Duration::from_secs(10);

/// What a serving host holds its callers to.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    /// Calls carried out at once.
    calls: usize,
    /// Time from the connection to the request's whole line.
    first_line: Duration,
}

/// The files of one display's warm host.
#[derive(Debug, Clone)]
pub struct WarmDir {
    pub(crate) lock: PathBuf,
    pub(crate) socket: PathBuf,
}

/// The first line a warm host sends on each connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Greeting {
    /// The host will hear a request.
    Hello {
        /// The host's process.
        pid: u32,
        /// The host's glovebox version; a caller of another version does
        /// the work itself.
        version: String,
    },
    /// The host will not serve this caller (another user), or not now
    /// (it carries out as many calls as it takes at once).
    Refused {
        /// Why, in words.
        why: String,
    },
}

/// One end of a warm host connection: JSON lines and raw blobs.
#[derive(Debug)]
pub struct Link {
    writer: UnixStream,
    reader: BufReader<Timed>,
    /// When the next line must be in whole, if it has a deadline of its own
    /// (the first line each end reads: the greeting, the request).
    next_line_by: Option<Instant>,
    /// The other end's process, as the kernel reports it.
    pub peer_pid: u32,
}

/// The reading half of a link. A socket's timeout bounds each read alone,
/// so a peer sending a byte at a time outlives it; while a line has a
/// deadline, each read waits only for the time left before it.
#[derive(Debug)]
struct Timed {
    stream: UnixStream,
    /// The deadline, and the bound of each read the link's owner set.
    deadline: Option<(Instant, Option<Duration>)>,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some((deadline, per_read)) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let why = "the line did not arrive whole in time";
                return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, why));
            }
            self.stream.set_read_timeout(Some(per_read.map_or(left, |p| p.min(left))))?;
        }
        self.stream.read(buf)
    }
}

fn line_error(e: serde_json::Error) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e)
}

impl Link {
    fn new(stream: UnixStream, peer_pid: u32) -> std::io::Result<Link> {
        let reader = Timed { stream: stream.try_clone()?, deadline: None };
        Ok(Link { reader: BufReader::new(reader), writer: stream, next_line_by: None, peer_pid })
    }

    /// Sends `value` as one JSON line.
    pub fn send<T: Serialize>(&mut self, value: &T) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(value).map_err(line_error)?;
        line.push(b'\n');
        self.writer.write_all(&line)
    }

    /// Sends `bytes` as they are; the other end knows how many to read.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Reads one JSON line; the end of the stream is `UnexpectedEof`.
    pub fn receive<T: DeserializeOwned>(&mut self) -> std::io::Result<T> {
        let deadline = match self.next_line_by.take() {
            Some(by) => Some((by, self.writer.read_timeout()?)),
            None => None,
        };
        self.reader.get_mut().deadline = deadline;
        let mut line = String::new();
        let read = (&mut self.reader).take(MAX_LINE).read_line(&mut line);
        if let Some((_, per_read)) = deadline {
            // Later lines wait as long as the owner says, not the time left then.
            self.reader.get_mut().deadline = None;
            self.writer.set_read_timeout(per_read)?;
        }
        let read = read?;
        if read == 0 || !line.ends_with('\n') {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        serde_json::from_str(line.trim_end()).map_err(line_error)
    }

    /// Reads exactly `len` bytes (at most a gigabyte).
    pub fn receive_bytes(&mut self, len: usize) -> std::io::Result<Vec<u8>> {
        if len > MAX_BLOB {
            let why = format!("{len} bytes announced, more than any answer holds");
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
        }
        let mut bytes = vec![0; len];
        self.reader.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    /// Bounds each later read; `None` waits for ever.
    pub fn set_timeout(&self, timeout: Option<Duration>) -> std::io::Result<()> {
        self.writer.set_read_timeout(timeout)
    }
}

/// What a caller found at the display's warm socket.
#[derive(Debug)]
pub enum Reached {
    /// A warm host of this user greeted: the link is ready for the request.
    Ready {
        /// The connection.
        link: Link,
        /// The host's pid.
        pid: u32,
        /// The host's version.
        version: String,
    },
    /// No warm host serves this display.
    Nobody,
    /// A socket file no one listens on. `removed` when it was this user's
    /// and no host holds the display's warm lock, so it was taken away.
    Stale {
        /// Whether the file was removed.
        removed: bool,
    },
    /// The socket's listener is another user's process: not used.
    Foreign {
        /// Its user.
        uid: u32,
    },
    /// A host that did not greet in time, or refused this caller.
    Silent {
        /// What happened, in words.
        why: String,
    },
}

/// How a call a warm host had taken failed on the way back; nothing of it
/// is retried. Its words follow "the warm glovebox host (pid N)"; what the
/// caller answers is the gate's mapping of it.
#[derive(Debug, thiserror::Error)]
pub enum LostCall {
    /// The host ended while the person was being asked.
    #[error("ended while asking; nothing more was done")]
    WhileAsking,
    /// The host ended while sending its answer.
    #[error("ended while sending its answer ({0}); run the command again")]
    WhileAnswering(std::io::Error),
    /// The host ended (or broke the protocol) while carrying the call out.
    #[error("ended during the call ({0}); it was not retried here, run the command again")]
    DuringTheCall(std::io::Error),
    /// The host took longer than the call's bound.
    #[error("did not finish the call within {} s; it was not retried here", .0.as_secs())]
    Overran(Duration),
    /// The answer carried a file the call does not write.
    #[error("answered with a file this call does not write; nothing was written")]
    StrayFile,
}

/// Why a process could not become (or wait to become) a display's warm host.
#[derive(Debug, thiserror::Error)]
pub enum WarmError {
    /// Its lock, socket or thread failed.
    #[error("warm host {what}: {source}")]
    Io {
        /// Which one.
        what: &'static str,
        /// How.
        #[source]
        source: std::io::Error,
    },
    /// Another process serves the display and this one was not to wait.
    #[error(
        "a warm glovebox host (pid {}) already serves this display",
        .holder.map_or_else(|| "?".to_owned(), |pid| pid.to_string())
    )]
    AlreadyServed {
        /// The serving process, as its lock file says.
        holder: Option<u32>,
    },
}

impl LostCall {
    /// The failure of a read of the host's answer: its bound ran out, or the host is gone.
    pub fn of_read(e: std::io::Error, bound: Duration) -> LostCall {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                LostCall::Overran(bound)
            }
            _ => LostCall::DuringTheCall(e),
        }
    }
}

/// Whether a host that finds the display's warm lock held waits to take
/// over, or gives up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenHeld {
    /// Waits in a thread and serves once the holder ends (MCP servers).
    Wait,
    /// Refuses, naming the holder (the resident host: one is enough).
    Refuse,
}

/// Serves the warm socket until dropped.
#[derive(Debug)]
pub struct WarmService {
    socket: PathBuf,
    stop: Arc<AtomicBool>,
    serving: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WarmService {
    /// Whether this process serves the socket now (it may still wait on the lock).
    pub fn serving(&self) -> bool {
        self.serving.load(Ordering::SeqCst)
    }
}

impl Drop for WarmService {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if self.serving.load(Ordering::SeqCst) {
            // Wake the accept loop so it sees the flag, and wait while it takes
            // its socket away: only then does it let the lock go to a waiting host.
            let _ = UnixStream::connect(&self.socket);
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
        // A host still waiting on the lock sees the flag once it gets it.
    }
}

/// Connects without waiting: a listener that stopped accepting with its
/// queue full answers `EAGAIN` instead of holding the caller.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn connect_at_once(path: &std::path::Path) -> rustix::io::Result<UnixStream> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType};
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
        None,
    )?;
    rustix::net::connect(&fd, &rustix::net::SocketAddrUnix::new(path)?)?;
    let stream = UnixStream::from(fd);
    stream
        .set_nonblocking(false)
        .map_err(|e| rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::INVAL))?;
    Ok(stream)
}

/// Connects; BSD-derived kernels (macOS) refuse a connection to a full
/// queue at once instead of holding the caller. Not yet run on them.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn connect_at_once(path: &std::path::Path) -> rustix::io::Result<UnixStream> {
    UnixStream::connect(path)
        .map_err(|e| rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::INVAL))
}

fn io_error(what: &'static str, source: std::io::Error) -> WarmError {
    WarmError::Io { what, source }
}

impl WarmDir {
    /// The socket's path.
    pub fn socket(&self) -> &std::path::Path {
        &self.socket
    }

    fn open_lock(&self) -> std::io::Result<std::fs::File> {
        glovebox_platform::files::open_private(
            &self.lock,
            OpenOptions::new().create(true).truncate(false).read(true).write(true),
        )
    }

    /// The pid written in the lock file by its holder, if any.
    pub fn holder(&self) -> Option<u32> {
        std::fs::read_to_string(&self.lock).ok()?.trim().parse().ok()
    }

    /// Connects to the display's warm host and waits `greeting` for its
    /// hello. Never blocks longer than that on a host that does not answer.
    pub fn reach(&self, greeting: Duration) -> Reached {
        let stream = match connect_at_once(&self.socket) {
            Ok(stream) => stream,
            Err(e) if e == rustix::io::Errno::CONNREFUSED => {
                return Reached::Stale { removed: self.remove_if_stale() }
            }
            Err(e) if e == rustix::io::Errno::AGAIN => {
                return Reached::Silent { why: "its queue of callers is full".into() }
            }
            Err(_) => return Reached::Nobody,
        };
        let Ok(crate::os::Peer { uid, pid }) = crate::os::peer(&stream) else {
            return Reached::Silent { why: "the kernel gave no credentials for it".into() };
        };
        if uid != glovebox_platform::files::euid() {
            return Reached::Foreign { uid };
        }
        let mut link = match Link::new(stream, pid).and_then(|link| {
            link.set_timeout(Some(greeting))?;
            Ok(link)
        }) {
            Ok(link) => link,
            Err(e) => return Reached::Silent { why: e.to_string() },
        };
        // A host sending its hello a byte at a time holds no one longer.
        link.next_line_by = Some(Instant::now() + greeting);
        match link.receive::<Greeting>() {
            Ok(Greeting::Hello { pid, version }) => Reached::Ready { link, pid, version },
            Ok(Greeting::Refused { why }) => Reached::Silent { why },
            Err(e) => Reached::Silent {
                why: format!("no greeting within {} ms ({e})", greeting.as_millis()),
            },
        }
    }

    /// Removes the socket file when it is this user's and no host holds
    /// the warm lock (so no host is about to listen on it).
    fn remove_if_stale(&self) -> bool {
        let Ok(meta) = std::fs::symlink_metadata(&self.socket) else { return false };
        if !meta.file_type().is_socket() || meta.uid() != glovebox_platform::files::euid() {
            return false;
        }
        let Ok(lock) = self.open_lock() else { return false };
        match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => std::fs::remove_file(&self.socket).is_ok(),
            Err(_) => false,
        }
    }

    /// Serves the warm socket: each connection of this user is greeted
    /// and handed to `handle` in a thread of its own, at most
    /// [`MAX_CALLS`] at once, its request's line due within [`FIRST_LINE`];
    /// others are refused.
    pub fn serve(
        &self,
        version: &str,
        when_held: WhenHeld,
        handle: Arc<dyn Fn(Link) + Send + Sync>,
    ) -> Result<WarmService, WarmError> {
        let bounds = Bounds { calls: MAX_CALLS, first_line: FIRST_LINE };
        self.serve_bounded(version, when_held, handle, bounds)
    }

    fn serve_bounded(
        &self,
        version: &str,
        when_held: WhenHeld,
        handle: Arc<dyn Fn(Link) + Send + Sync>,
        bounds: Bounds,
    ) -> Result<WarmService, WarmError> {
        let lock = self.open_lock().map_err(|e| io_error("lock", e))?;
        let free = rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive);
        if free.is_err() && when_held == WhenHeld::Refuse {
            return Err(WarmError::AlreadyServed { holder: self.holder() });
        }
        let mut service = WarmService {
            socket: self.socket.clone(),
            stop: Arc::new(AtomicBool::new(false)),
            serving: Arc::new(AtomicBool::new(false)),
            thread: None,
        };
        let listener = match free {
            Ok(()) => Some(self.bind(&lock).map_err(|e| io_error("socket", e))?),
            Err(_) => None,
        };
        if listener.is_some() {
            service.serving.store(true, Ordering::SeqCst);
        }
        let (dir, stop, serving) = (self.clone(), service.stop.clone(), service.serving.clone());
        let version = version.to_owned();
        let thread = std::thread::Builder::new()
            .name("glovebox-warm".into())
            .spawn(move || {
                let listener = match listener {
                    Some(listener) => listener,
                    None => {
                        // Blocks until the holder ends; the kernel hands the lock to one waiter.
                        if rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
                            .is_err()
                            || stop.load(Ordering::SeqCst)
                        {
                            return;
                        }
                        match dir.bind(&lock) {
                            Ok(listener) => listener,
                            Err(e) => {
                                eprintln!("glovebox: the warm socket could not be served: {e}");
                                return;
                            }
                        }
                    }
                };
                serving.store(true, Ordering::SeqCst);
                accept_loop(listener, &stop, &version, handle, bounds);
                // Before the lock goes: a host that takes it over binds a socket of its own here.
                let _ = std::fs::remove_file(&dir.socket);
                drop(lock);
            })
            .map_err(|e| io_error("thread", e))?;
        service.thread = Some(thread);
        Ok(service)
    }

    /// Binds the socket (a file left there is stale: the lock is ours) and
    /// writes this process's pid into the lock file.
    fn bind(&self, mut lock: &std::fs::File) -> std::io::Result<UnixListener> {
        let _ = std::fs::remove_file(&self.socket);
        let listener = UnixListener::bind(&self.socket)?;
        lock.set_len(0)?;
        write!(lock, "{}", std::process::id())?;
        Ok(listener)
    }
}

/// One of the calls a warm host carries out at once; given back when dropped.
struct CallSlot(Arc<AtomicUsize>);

impl CallSlot {
    fn take(taken: &Arc<AtomicUsize>, most: usize) -> Option<CallSlot> {
        taken
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < most).then_some(n + 1))
            .ok()?;
        Some(CallSlot(taken.clone()))
    }
}

impl Drop for CallSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn accept_loop(
    listener: UnixListener,
    stop: &AtomicBool,
    version: &str,
    handle: Arc<dyn Fn(Link) + Send + Sync>,
    bounds: Bounds,
) {
    let taken = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let Ok(crate::os::Peer { uid, pid }) = crate::os::peer(&stream) else { continue };
        let Ok(mut link) = Link::new(stream, pid) else { continue };
        if uid != glovebox_platform::files::euid() {
            let why = format!("this warm host serves only its own user, not uid {uid}");
            let _ = link.send(&Greeting::Refused { why });
            continue;
        }
        // Said on this thread and closed: a caller past the bound costs no
        // thread, and does the work itself.
        let Some(slot) = CallSlot::take(&taken, bounds.calls) else {
            let why = format!("this warm host carries out {} calls already", bounds.calls);
            let _ = link.send(&Greeting::Refused { why });
            continue;
        };
        link.next_line_by = Some(Instant::now() + bounds.first_line);
        let hello = Greeting::Hello { pid: std::process::id(), version: version.to_owned() };
        if link.send(&hello).is_err() {
            continue;
        }
        let handle = handle.clone();
        let spawned =
            std::thread::Builder::new().name("glovebox-warm-call".into()).spawn(move || {
                handle(link);
                drop(slot);
            });
        if let Err(e) = spawned {
            eprintln!("glovebox: a warm call could not start: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::DisplayDir;

    fn warm_dir(name: &str) -> WarmDir {
        let root =
            std::env::temp_dir().join(format!("glovebox-warm-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        DisplayDir::new(&root, ":9").unwrap().warm()
    }

    fn echo() -> Arc<dyn Fn(Link) + Send + Sync> {
        Arc::new(|mut link: Link| {
            if let Ok(text) = link.receive::<String>() {
                let _ = link.send(&text.len());
                let _ = link.send_bytes(text.as_bytes());
            }
        })
    }

    #[test]
    fn a_served_socket_greets_and_carries_lines_and_bytes() {
        let dir = warm_dir("serve");
        assert!(matches!(dir.reach(Duration::from_millis(200)), Reached::Nobody));
        let service = dir.serve("1.0", WhenHeld::Refuse, echo()).unwrap();
        assert!(service.serving());
        assert_eq!(dir.holder(), Some(std::process::id()));
        let Reached::Ready { mut link, pid, version } = dir.reach(Duration::from_secs(2)) else {
            panic!("not ready")
        };
        assert_eq!((pid, version.as_str()), (std::process::id(), "1.0"));
        assert_eq!(link.peer_pid, std::process::id());
        link.send(&"héllo".to_string()).unwrap();
        let len: usize = link.receive().unwrap();
        assert_eq!(link.receive_bytes(len).unwrap(), "héllo".as_bytes());
        // One serves; a second host of the display refuses or waits.
        let refused = dir.serve("1.0", WhenHeld::Refuse, echo()).unwrap_err();
        let me = Some(std::process::id());
        assert!(
            matches!(refused, WarmError::AlreadyServed { holder } if holder == me),
            "{refused:?}"
        );
        drop(service);
        assert!(!dir.socket.exists());
        assert!(matches!(dir.reach(Duration::from_millis(200)), Reached::Nobody));
    }

    #[test]
    fn a_waiting_host_takes_over_when_the_holder_ends() {
        let dir = warm_dir("takeover");
        let first = dir.serve("1.0", WhenHeld::Wait, echo()).unwrap();
        let second = dir.serve("2.0", WhenHeld::Wait, echo()).unwrap();
        assert!(first.serving() && !second.serving());
        drop(first);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !second.serving() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let Reached::Ready { version, .. } = dir.reach(Duration::from_secs(2)) else {
            panic!("the waiting host did not take over")
        };
        assert_eq!(version, "2.0");
    }

    #[test]
    fn a_stale_socket_of_ours_is_removed_only_when_no_host_holds_the_lock() {
        let dir = warm_dir("stale");
        // A socket bound and let go: its file stays, no one listens.
        drop(UnixListener::bind(&dir.socket).unwrap());
        let held = dir.open_lock().unwrap();
        rustix::fs::flock(&held, rustix::fs::FlockOperation::NonBlockingLockExclusive).unwrap();
        assert!(matches!(dir.reach(Duration::from_millis(200)), Reached::Stale { removed: false }));
        assert!(dir.socket.exists());
        drop(held);
        assert!(matches!(dir.reach(Duration::from_millis(200)), Reached::Stale { removed: true }));
        assert!(!dir.socket.exists());
    }

    #[test]
    fn a_host_whose_queue_is_full_does_not_hold_the_caller() {
        use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
        let dir = warm_dir("full");
        let listener = rustix::net::socket_with(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC,
            None,
        )
        .unwrap();
        rustix::net::bind(&listener, &SocketAddrUnix::new(&dir.socket).unwrap()).unwrap();
        rustix::net::listen(&listener, 0).unwrap();
        let mut queued = vec![];
        while let Ok(stream) = connect_at_once(&dir.socket) {
            queued.push(stream);
            assert!(queued.len() < 100, "the queue never filled");
        }
        let start = std::time::Instant::now();
        let reached = dir.reach(Duration::from_secs(5));
        assert!(matches!(reached, Reached::Silent { .. }), "{reached:?}");
        assert!(start.elapsed() < Duration::from_secs(1));
    }

    fn threads() -> usize {
        std::fs::read_dir("/proc/self/task").unwrap().count()
    }

    #[test]
    fn connections_past_the_calls_at_once_are_declined_without_a_thread_each() {
        let dir = warm_dir("crowd");
        // The echo waits for its request, as a ridden call does.
        let _service = dir.serve("1.0", WhenHeld::Refuse, echo()).unwrap();
        let before = threads();
        let (mut held, mut declined) = (vec![], 0);
        for _ in 0..300 {
            match dir.reach(Duration::from_secs(2)) {
                Reached::Ready { link, .. } => held.push(link),
                Reached::Silent { why } if why.contains("calls already") => declined += 1,
                other => panic!("{other:?}"),
            }
        }
        let during = threads();
        assert_eq!((held.len(), declined), (MAX_CALLS, 300 - MAX_CALLS));
        // Other tests start a few threads meanwhile; one per connection would be 300.
        assert!(during < before + 100, "{before} threads before 300 callers, {during} with them");

        // Once the callers go, their slots are free again.
        drop(held);
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut link = loop {
            match dir.reach(Duration::from_secs(2)) {
                Reached::Ready { link, .. } => break link,
                other => assert!(Instant::now() < deadline, "no slot came free: {other:?}"),
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        link.send(&"again".to_string()).unwrap();
        let len: usize = link.receive().unwrap();
        assert_eq!(link.receive_bytes(len).unwrap(), b"again");
    }

    /// Answers its request's text, or how reading it failed; then, when
    /// asked to, waits as long as it takes for one more line and echoes it.
    fn patient() -> Arc<dyn Fn(Link) + Send + Sync> {
        Arc::new(|mut link: Link| {
            // As the CLI's serving side: a bound on each read.
            let _ = link.set_timeout(Some(Duration::from_secs(10)));
            let said = match link.receive::<String>() {
                Ok(text) => text,
                Err(e) => format!("unread: {:?}", e.kind()),
            };
            let _ = link.send(&said);
            if said == "ask" && link.set_timeout(None).is_ok() {
                if let Ok(answer) = link.receive::<String>() {
                    let _ = link.send(&answer);
                }
            }
        })
    }

    #[test]
    fn a_request_trickled_a_byte_at_a_time_is_ended_at_its_deadline() {
        let dir = warm_dir("trickle");
        let bounds = Bounds { calls: MAX_CALLS, first_line: Duration::from_secs(1) };
        let _service = dir.serve_bounded("1.0", WhenHeld::Refuse, patient(), bounds).unwrap();
        let Reached::Ready { mut link, .. } = dir.reach(Duration::from_secs(2)) else {
            panic!("not ready")
        };
        let started = Instant::now();
        // A JSON string that never ends, a byte every 100 ms: each read is quick.
        let mut writer = link.writer.try_clone().unwrap();
        let trickling = std::thread::spawn(move || {
            let _ = writer.write_all(b"\"");
            for _ in 0..40 {
                std::thread::sleep(Duration::from_millis(100));
                if writer.write_all(b"a").is_err() {
                    break;
                }
            }
        });
        link.set_timeout(Some(Duration::from_secs(3))).unwrap();
        let said: String = link.receive().expect("the host answers by its deadline");
        assert!(said.starts_with("unread"), "{said}");
        assert!(started.elapsed() < Duration::from_secs(2), "read for {:?}", started.elapsed());
        trickling.join().unwrap();
    }

    #[test]
    fn only_the_request_has_the_deadline_a_later_line_waits_as_long_as_asked() {
        let dir = warm_dir("later");
        let bounds = Bounds { calls: MAX_CALLS, first_line: Duration::from_millis(300) };
        let _service = dir.serve_bounded("1.0", WhenHeld::Refuse, patient(), bounds).unwrap();
        let Reached::Ready { mut link, .. } = dir.reach(Duration::from_secs(2)) else {
            panic!("not ready")
        };
        link.set_timeout(Some(Duration::from_secs(3))).unwrap();
        link.send(&"ask".to_string()).unwrap();
        assert_eq!(link.receive::<String>().unwrap(), "ask");
        // The person takes their time, past the request's deadline.
        std::thread::sleep(Duration::from_millis(600));
        link.send(&"approved".to_string()).unwrap();
        assert_eq!(link.receive::<String>().unwrap(), "approved");
    }

    #[test]
    fn a_host_that_does_not_greet_is_given_up_on_time() {
        let dir = warm_dir("silent");
        let _listener = UnixListener::bind(&dir.socket).unwrap();
        let start = std::time::Instant::now();
        assert!(matches!(dir.reach(Duration::from_millis(300)), Reached::Silent { .. }));
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
