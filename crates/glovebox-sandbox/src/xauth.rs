//! Who may connect to an X server a sandbox starts: this user, and no one
//! else. An X server started without an authorization lets every local
//! account in: another user could list the agent display's windows, read
//! its pixels and type into the page a person is logging in to. So each
//! server gets an MIT-MAGIC-COOKIE-1 in a 0600 file of the desktop's
//! private (0700) runtime directory, passed with `-auth` and given to the
//! desktop's programs as `XAUTHORITY`; and, once it runs, this user's uid
//! is let in by the server's own check of a socket's peer credentials
//! (`si:localuser:#uid`), so this user's programs that name the display
//! alone (glovebox's backends, a test) connect as before. Nothing else
//! does: another uid has neither the uid nor the cookie.

use crate::SandboxError;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// Where a desktop's cookie is kept, in its runtime directory.
pub(crate) fn authority_file(runtime_dir: &Path) -> PathBuf {
    runtime_dir.join("xauthority")
}

/// An MIT-MAGIC-COOKIE-1: 16 bytes from the system's random source.
pub(crate) struct Cookie([u8; 16]);

impl Cookie {
    pub(crate) fn new() -> Result<Cookie, SandboxError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            SandboxError::Io(std::io::Error::other(format!("no random cookie for X: {e}")))
        })?;
        Ok(Cookie(bytes))
    }

    /// Writes the cookie to `path` (0600, never through a link): one entry
    /// for any address and `display`'s number (any number while the server
    /// has not said which it took), replacing what was there.
    pub(crate) fn write(&self, path: &Path, display: Option<&str>) -> std::io::Result<()> {
        let number = display.map(|d| d.trim_start_matches(':')).unwrap_or_default();
        let mut entry = vec![];
        // FamilyWild: the server and every client library match it for any address.
        entry.extend_from_slice(&0xffffu16.to_be_bytes());
        for field in [&b""[..], number.as_bytes(), b"MIT-MAGIC-COOKIE-1", &self.0] {
            entry.extend_from_slice(&(field.len() as u16).to_be_bytes());
            entry.extend_from_slice(field);
        }
        let new = path.with_extension("new");
        let _ = std::fs::remove_file(&new);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&new)?;
        file.write_all(&entry)?;
        file.sync_all()?;
        std::fs::rename(&new, path)
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The server's address list entry for this process's user.
pub(crate) fn this_user() -> Vec<u8> {
    format!("localuser\0#{}", rustix::process::getuid().as_raw()).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_file_is_one_private_entry_for_any_address() {
        let dir = std::env::temp_dir().join(format!("glovebox-xauth-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let path = authority_file(&dir);
        let cookie = Cookie::new().unwrap();
        cookie.write(&path, None).unwrap();
        cookie.write(&path, Some(":42")).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let mut expected = vec![0xff, 0xff, 0, 0, 0, 2, b'4', b'2', 0, 18];
        expected.extend_from_slice(b"MIT-MAGIC-COOKIE-1");
        expected.extend_from_slice(&[0, 16]);
        expected.extend_from_slice(cookie.bytes());
        assert_eq!(bytes, expected);
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_ne!(Cookie::new().unwrap().bytes(), cookie.bytes());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
