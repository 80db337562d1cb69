//! This user's signing key and the HMAC-SHA256 made with it: what lets
//! glovebox tell what it wrote itself from what someone else wrote into its
//! state directory. Recordings sign each line with it
//! ([`crate::recording`]); the waiting batches of `glovebox serve` sign each
//! record with it (`glovebox_mcp::pending`), so an edited or hand-written
//! record is refused before anything of it runs.
//!
//! One key per user, in one place: `recording.key` in the recordings
//! directory (`$XDG_STATE_HOME/glovebox/recordings`, where the first
//! recordings put it, so the recordings made before this module still
//! verify), 32 random bytes, mode 0600, made on first use.

use glovebox_platform::files::{read_regular, Links, ReadError};
use hmac::{KeyInit as _, Mac as _};
use sha2::{Digest, Sha256};
use std::io::Write as _;
use std::path::Path;

/// The key file's name, in its directory.
pub const KEY_FILE: &str = "recording.key";

/// This user's key.
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// The key in `dir`, made there on first use.
    pub fn load(dir: &Path) -> std::io::Result<Key> {
        let path = dir.join(KEY_FILE);
        match read_regular(&path, 32, Links::Refuse) {
            Ok(key) => <[u8; 32]>::try_from(key.as_slice()).map(Key).map_err(|_| {
                std::io::Error::other(format!("{} is not a 32-byte key", path.display()))
            }),
            Err(e) if e.is_not_found() => {
                // Beside the recordings or the waiting batches: a 0700 directory.
                glovebox_platform::files::private_dir(dir)?;
                let key = crate::os::random_bytes::<32>()?;
                match glovebox_platform::files::open_private(
                    &path,
                    std::fs::OpenOptions::new().write(true).create_new(true),
                ) {
                    Ok(mut file) => {
                        file.write_all(&key)?;
                        Ok(Key(key))
                    }
                    // Made at the same moment by another glovebox of this user's: theirs is the key.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Key::load(dir),
                    Err(e) => Err(e),
                }
            }
            Err(ReadError::TooLarge { .. }) => {
                Err(std::io::Error::other(format!("{} is not a 32-byte key", path.display())))
            }
            Err(ReadError::Io(e)) => {
                Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
            }
            Err(e) => Err(std::io::Error::other(format!("{}: {e}", path.display()))),
        }
    }

    /// HMAC-SHA256 (RFC 2104) of the concatenated `parts`, in hex.
    pub fn mac(&self, parts: &[&[u8]]) -> String {
        hex(&self.hmac(parts).finalize().into_bytes())
    }

    /// Whether `mac` (hex, as [`Key::mac`] writes it) is this key's mac of
    /// `parts`, compared in constant time; a mac that is not 64 hex digits is not.
    pub fn verify(&self, parts: &[&[u8]], mac: &str) -> bool {
        unhex(mac).is_some_and(|mac| self.hmac(parts).verify_slice(&mac).is_ok())
    }

    fn hmac(&self, parts: &[&[u8]]) -> hmac::Hmac<Sha256> {
        let mut hmac =
            hmac::Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        for part in parts {
            hmac.update(part);
        }
        hmac
    }
}

/// SHA-256 of `bytes`, in hex: what a person compares, not a secret.
pub fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes `text` writes in lower-case hex, as [`hex`] writes them; `None`
/// for anything else (an odd length, another character, a sign).
fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes.chunks(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mac_is_hmac_sha256_and_the_key_is_made_once_privately() {
        // As `openssl dgst -sha256 -mac HMAC -macopt hexkey:0b0b…` (32 bytes) computes it.
        let key = Key([0x0b; 32]);
        assert_eq!(
            key.mac(&[b"Hi ", b"There"]),
            "198a607eb44bfbc69903a0f1cf2bbdc5ba0aa3f3d9ae3c1c7a3b1696a0b68cf7"
        );
        assert!(key.verify(&[b"Hi There"], &key.mac(&[b"Hi", b" There"])));
        assert!(!key.verify(&[b"Hi there"], &key.mac(&[b"Hi There"])));
        // A mac that is not this key's, or not one `mac` could write, is not valid.
        let good = key.mac(&[b"Hi There"]);
        let mut other_key = good.clone().into_bytes();
        other_key[63] = if other_key[63] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(other_key).unwrap();
        for bad in [
            flipped.as_str(),
            &good[..62],
            &good[..63],
            "",
            &format!("{good}00"),
            &good.to_uppercase(),
            &format!("+{}", &good[1..]),
            &format!("{}zz", &good[..62]),
            &format!("{}é", &good[..62]),
            &Key([0x0c; 32]).mac(&[b"Hi There"]),
        ] {
            assert!(!key.verify(&[b"Hi There"], bad), "{bad:?} was taken");
        }
        assert!(key.verify(&[b"Hi There"], &good));
        let dir =
            std::env::temp_dir().join(format!("glovebox-signing-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let made = Key::load(&dir).unwrap();
        assert_eq!(Key::load(&dir).unwrap().0, made.0);
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(dir.join(KEY_FILE)).unwrap().permissions().mode() & 0o777,
            0o600
        );
        std::fs::write(dir.join(KEY_FILE), b"short").unwrap();
        assert!(Key::load(&dir).is_err());
        std::fs::write(dir.join(KEY_FILE), [7; 33]).unwrap();
        assert!(Key::load(&dir).is_err());
        // A FIFO where the key goes is refused at once, not waited on for a writer.
        std::fs::remove_file(dir.join(KEY_FILE)).unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, dir.join(KEY_FILE), rustix::fs::Mode::RUSR).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let fifo_dir = dir.clone();
        std::thread::spawn(move || tx.send(Key::load(&fifo_dir).map(|_| ())));
        let loaded = rx.recv_timeout(std::time::Duration::from_secs(5)).expect("a FIFO hung");
        assert!(loaded.unwrap_err().to_string().contains("not a regular file"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
