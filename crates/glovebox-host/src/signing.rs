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

use sha2::{Digest, Sha256};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// The key file's name, in its directory.
pub const KEY_FILE: &str = "recording.key";

/// This user's key.
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

/// The directory the user's key is in (the recordings directory).
pub fn default_dir() -> PathBuf {
    crate::recording::default_dir()
}

impl Key {
    /// The key in `dir`, made there on first use.
    pub fn load(dir: &Path) -> std::io::Result<Key> {
        let path = dir.join(KEY_FILE);
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(
            &mut options,
            rustix::fs::OFlags::NOFOLLOW.bits() as i32,
        );
        match options.open(&path) {
            Ok(mut file) => {
                let mut key = vec![];
                std::io::Read::by_ref(&mut file).take(33).read_to_end(&mut key)?;
                <[u8; 32]>::try_from(key.as_slice()).map(Key).map_err(|_| {
                    std::io::Error::other(format!("{} is not a 32-byte key", path.display()))
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Beside the recordings or the waiting batches: a 0700 directory.
                glovebox_platform::files::private_dir(dir)?;
                let mut key = [0u8; 32];
                std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
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
            Err(e) => Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        }
    }

    /// HMAC-SHA256 (RFC 2104) of the concatenated `parts`, in hex.
    pub fn mac(&self, parts: &[&[u8]]) -> String {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&self.0);
        let inner_pad: Vec<u8> = block.iter().map(|b| b ^ 0x36).collect();
        let outer_pad: Vec<u8> = block.iter().map(|b| b ^ 0x5c).collect();
        let mut inner = Sha256::new().chain_update(&inner_pad);
        for part in parts {
            inner.update(part);
        }
        let outer =
            Sha256::new().chain_update(&outer_pad).chain_update(inner.finalize()).finalize();
        hex(&outer)
    }

    /// Whether `mac` is this key's mac of `parts` (compared in constant time).
    pub fn verify(&self, parts: &[&[u8]], mac: &str) -> bool {
        let expected = self.mac(parts);
        expected.len() == mac.len()
            && expected.bytes().zip(mac.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

/// SHA-256 of `bytes`, in hex: what a person compares, not a secret.
pub fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
