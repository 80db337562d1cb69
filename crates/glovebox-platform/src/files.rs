//! Files only this user can read. Everything glovebox keeps that can hold
//! typed text, keys, tokens or approvals (the audit trail, recordings and
//! their key, trajectory reports, waiting batches, the runtime directory,
//! the configuration) is a 0600 file in a 0700 directory, whatever the
//! umask: kept text must not be readable by the machine's other users.
//!
//! One place decides how: [`private_dir`] makes (or checks and tightens)
//! one of glovebox's own directories, [`make_dirs`] only makes the missing
//! parts of a directory the user named, [`open_private`] opens a file in one, never through a
//! symbolic link, [`write_private`] replaces a whole file through a
//! temporary one. [`replace_keeping_mode`] is for files that are not
//! glovebox's own (an MCP client's configuration): it keeps their mode
//! and owner instead of imposing ours.
//!
//! Reading has its one place too: [`read_regular`] reads a file glovebox
//! was given or finds in a directory (configuration, guidance, an episode's
//! spec or record) only when it is a regular file under a bound, so a FIFO
//! planted under such a name cannot hang a command, nor a huge file exhaust
//! its memory.

use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::path::Path;

/// A private file's mode.
pub const FILE_MODE: u32 = 0o600;
/// A private directory's mode.
pub const DIR_MODE: u32 = 0o700;

/// Makes `dir` and its missing parents (each 0700). An existing `dir` must
/// be a directory owned by this user — one left in a shared place (`/tmp`)
/// by another user is refused, since its owner could read or swap what is
/// written there — and one of ours that is looser than 0700 (made by an
/// older glovebox or under a permissive umask) is tightened to 0700.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
        std::fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)?;
        let meta = std::fs::metadata(dir)?;
        if !meta.is_dir() {
            return Err(io::Error::other(format!("{} is not a directory", dir.display())));
        }
        if meta.uid() != euid() {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} belongs to uid {}, not to this user (uid {}): glovebox keeps nothing there",
                    dir.display(),
                    meta.uid(),
                    euid()
                ),
            ));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(DIR_MODE))?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Makes `dir`'s missing parts, each 0700, leaving existing ones as they
/// are: for a place the user named or another program owns (`--report
/// FILE`, a project's `.glovebox.toml`, an MCP client's directory), whose
/// mode is theirs to choose.
pub fn make_dirs(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)
    }
    #[cfg(not(unix))]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Opens `path` with `options` (which say read, write, append, truncate,
/// create or create_new), creating it 0600 and never following a symbolic
/// link in its last component (`O_NOFOLLOW`): a link planted where a private
/// file goes would otherwise redirect the write. An existing file of ours
/// looser than 0600 is tightened. The directory is the caller's: see
/// [`private_dir`].
pub fn open_private(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
        options.mode(FILE_MODE).custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
        let file = options.open(path)?;
        let meta = file.metadata()?;
        if meta.uid() == euid() && meta.mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        options.open(path)
    }
}

/// Replaces `path` with `bytes` as a private file (0600): written to a
/// temporary file beside it and renamed over it, so a reader never sees
/// half a file and a link at `path` is replaced, not followed.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, None)
}

/// Replaces `path` with `bytes` keeping the file's mode and owner: for a
/// file that is someone else's to set (an MCP client's configuration, which
/// may hold API keys and be 0600). A new file is 0600. The owner is kept
/// where this process may give it (root writing another user's file;
/// otherwise the file stays ours, as any rewrite by its user leaves it).
pub fn replace_keeping_mode(path: &Path, bytes: &[u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        // The mode of what the path shows (a link's target), the owner of the entry replaced.
        let kept = match (std::fs::metadata(path), std::fs::symlink_metadata(path)) {
            (Ok(shown), Ok(entry)) => {
                Some(Kept { mode: shown.mode() & 0o7777, uid: entry.uid(), gid: entry.gid() })
            }
            (Err(e), _) | (_, Err(e)) if e.kind() == io::ErrorKind::NotFound => None,
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        replace(path, bytes, kept)
    }
    #[cfg(not(unix))]
    {
        replace(path, bytes, None)
    }
}

/// The mode and owner a replaced file keeps.
#[cfg_attr(not(unix), allow(dead_code))]
struct Kept {
    mode: u32,
    uid: u32,
    gid: u32,
}

fn replace(path: &Path, bytes: &[u8], kept: Option<Kept>) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other(format!("{} is not a file name", path.display())))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.glovebox-partial",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| {
        let create = || open_private(&tmp, OpenOptions::new().write(true).create_new(true));
        let mut file = match create() {
            // Left by a process of the same id that died mid-write, or planted: removed
            // (a link is unlinked, never followed) and made anew.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(&tmp)?;
                create()?
            }
            other => other?,
        };
        file.write_all(bytes)?;
        #[cfg(unix)]
        if let Some(kept) = &kept {
            use std::os::unix::fs::PermissionsExt as _;
            if kept.uid != euid() || kept.gid != egid() {
                match std::os::unix::fs::fchown(&file, Some(kept.uid), Some(kept.gid)) {
                    Ok(()) => {}
                    // Only root gives files away; anyone else's rewrite leaves the file theirs.
                    Err(e) if e.kind() == io::ErrorKind::PermissionDenied && euid() != 0 => {}
                    Err(e) => return Err(e),
                }
            }
            // After the chown, which clears set-id bits.
            file.set_permissions(std::fs::Permissions::from_mode(kept.mode))?;
        }
        // Elsewhere (Windows) a file's access is its ACL, which the new file
        // inherits from its directory: nothing of Unix's mode and owner to keep.
        #[cfg(not(unix))]
        let _ = &kept;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Whether [`read_regular`] opens a symbolic link at the path's last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A link there is refused (`O_NOFOLLOW`): for files found in a directory.
    Refuse,
    /// A link is followed to what it leads to, which must itself be a
    /// regular file under the bound: for a path the person named or a file a
    /// dotfiles manager may have linked (`config.toml`).
    Follow,
}

/// Why [`read_regular`] read nothing.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Opening or reading failed (not found, permission denied, …).
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A symbolic link where [`Links::Refuse`] said none is followed.
    #[error("a symbolic link, which is not followed here")]
    Link,
    /// A FIFO, a device, a socket or a directory.
    #[error("not a regular file")]
    NotRegular,
    /// More bytes than the bound.
    #[error("larger than {max_bytes} bytes")]
    TooLarge {
        /// The bound.
        max_bytes: u64,
    },
    /// [`read_regular_text`]: bytes that are not UTF-8.
    #[error("not UTF-8 text")]
    NotText,
}

impl ReadError {
    /// There is nothing at the path (a dangling link included, when followed).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// The bytes of the regular file at `path`, at most `max_bytes` of them.
/// It is opened without blocking (`O_NONBLOCK`: a FIFO opens at once and is
/// then refused, not waited on) and without becoming a controlling
/// terminal, checked by `fstat` on what was opened — not a regular file, or
/// larger than `max_bytes`, reads nothing — and read to at most one byte
/// past the bound, so a file that grows meanwhile is refused too.
pub fn read_regular(path: &Path, max_bytes: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt as _;
        let mut flags = OFlags::NONBLOCK | OFlags::NOCTTY;
        if links == Links::Refuse {
            flags |= OFlags::NOFOLLOW;
        }
        options.custom_flags(flags.bits() as i32);
    }
    // Without `O_NOFOLLOW` (Windows) a link is looked for before opening;
    // one made between the look and the open is followed (not yet run there).
    #[cfg(not(unix))]
    if links == Links::Refuse && std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(ReadError::Link);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if links == Links::Refuse
            && e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
        {
            return ReadError::Link;
        }
        ReadError::Io(e)
    })?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > max_bytes {
        return Err(ReadError::TooLarge { max_bytes });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(ReadError::TooLarge { max_bytes });
    }
    Ok(bytes)
}

/// [`read_regular`] of a text file: its bytes must be UTF-8.
pub fn read_regular_text(path: &Path, max_bytes: u64, links: Links) -> Result<String, ReadError> {
    String::from_utf8(read_regular(path, max_bytes, links)?).map_err(|_| ReadError::NotText)
}

/// This process's effective user: whose directories glovebox keeps.
#[cfg(unix)]
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

#[cfg(unix)]
fn egid() -> u32 {
    rustix::process::getegid().as_raw()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("glovebox-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_loose_directory_of_ours_is_tightened_and_files_are_0600() {
        let dir = scratch("loose");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir.join("a/b")).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(
            (mode(&dir), mode(&dir.join("a")), mode(&dir.join("a/b"))),
            (0o700, 0o700, 0o700)
        );
        let old = dir.join("old.jsonl");
        std::fs::write(&old, "kept\n").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
        open_private(&old, OpenOptions::new().append(true)).unwrap();
        assert_eq!(mode(&old), 0o600);
        write_private(&dir.join("new"), b"x").unwrap();
        assert_eq!(mode(&dir.join("new")), 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_planted_link_is_not_followed() {
        let dir = scratch("link");
        private_dir(&dir).unwrap();
        let elsewhere = dir.join("elsewhere");
        std::fs::write(&elsewhere, "untouched").unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("audit.jsonl")).unwrap();
        assert!(open_private(
            &dir.join("audit.jsonl"),
            OpenOptions::new().create(true).append(true)
        )
        .is_err());
        write_private(&dir.join("audit.jsonl"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "untouched");
        assert_eq!(std::fs::read_to_string(dir.join("audit.jsonl")).unwrap(), "new");
        // A link planted where the temporary file goes is removed, not written through.
        let partial = dir.join(format!(".config.toml.{}.glovebox-partial", std::process::id()));
        std::os::unix::fs::symlink(&elsewhere, &partial).unwrap();
        write_private(&dir.join("config.toml"), b"kept").unwrap();
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "untouched");
        assert_eq!(std::fs::read_to_string(dir.join("config.toml")).unwrap(), "kept");
        assert!(std::fs::symlink_metadata(&partial).is_err(), "the planted link is gone");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Makes a FIFO at `path`: what `read_regular` must refuse without waiting for a writer.
    fn fifo(path: &Path) {
        rustix::fs::mkfifoat(rustix::fs::CWD, path, rustix::fs::Mode::from_raw_mode(0o600))
            .unwrap();
    }

    #[test]
    fn only_a_regular_file_under_the_bound_is_read() {
        let dir = scratch("read");
        private_dir(&dir).unwrap();
        let good = dir.join("good.toml");
        std::fs::write(&good, "a = 1\n").unwrap();
        assert_eq!(read_regular(&good, 6, Links::Refuse).unwrap(), b"a = 1\n");
        assert_eq!(read_regular_text(&good, 6, Links::Follow).unwrap(), "a = 1\n");
        let too_large = read_regular(&good, 5, Links::Refuse).unwrap_err();
        assert!(matches!(too_large, ReadError::TooLarge { max_bytes: 5 }), "{too_large:?}");
        // A FIFO opens without a writer and is refused at once, whether named or linked to
        // (on a thread, so that a regression fails here rather than hangs).
        let fifo_path = dir.join("evil.toml");
        fifo(&fifo_path);
        let linked = dir.join("linked.toml");
        std::os::unix::fs::symlink(&fifo_path, &linked).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let (named, link) = (fifo_path.clone(), linked.clone());
        std::thread::spawn(move || {
            let _ = tx.send([
                read_regular(&named, 100, Links::Refuse),
                read_regular(&link, 100, Links::Follow),
                read_regular(&link, 100, Links::Refuse),
            ]);
        });
        let read =
            rx.recv_timeout(std::time::Duration::from_secs(5)).expect("a FIFO hung the read");
        assert!(
            matches!(
                read,
                [Err(ReadError::NotRegular), Err(ReadError::NotRegular), Err(ReadError::Link)]
            ),
            "{read:?}"
        );
        // A huge (sparse) file is refused by its size, not read; a directory is no file.
        let huge = dir.join("huge.json");
        File::create(&huge).unwrap().set_len(300 << 20).unwrap();
        let huge = read_regular(&huge, 4 << 20, Links::Refuse);
        assert!(matches!(huge, Err(ReadError::TooLarge { max_bytes: 0x40_0000 })), "{huge:?}");
        assert!(matches!(read_regular(&dir, 100, Links::Follow), Err(ReadError::NotRegular)));
        assert!(read_regular(&dir.join("absent"), 100, Links::Refuse).unwrap_err().is_not_found());
        std::fs::write(&good, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_regular_text(&good, 6, Links::Refuse), Err(ReadError::NotText)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = scratch("keep");
        private_dir(&dir).unwrap();
        for kept in [0o600, 0o640, 0o644] {
            let file = dir.join("mcp.json");
            std::fs::write(&file, "{}").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(kept)).unwrap();
            replace_keeping_mode(&file, b"{\"a\": 1}").unwrap();
            assert_eq!(mode(&file), kept);
        }
        replace_keeping_mode(&dir.join("fresh.json"), b"{}").unwrap();
        assert_eq!(mode(&dir.join("fresh.json")), 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
