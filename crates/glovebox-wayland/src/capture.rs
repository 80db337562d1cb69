//! Pixels of a wlroots desktop: `grim` reads a region of the outputs
//! through the `wlr-screencopy` protocol and writes it as a binary PPM,
//! which is parsed here. The compositor composes what `grim` reads, so
//! other windows' pixels are in it wherever they lie on top; the caller
//! blacks those parts out.

use glovebox_model::Rect;
use glovebox_platform::{BackendError, BackendErrorKind, RgbImage};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `grim` program, from PATH.
pub fn grim() -> Result<PathBuf, BackendError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|dir| dir.join("grim")).find(|p| p.is_file()).ok_or_else(|| {
        BackendError::new(
            BackendErrorKind::Unavailable,
            "grim is not installed (Debian package grim): no wlr-screencopy capture, so grants on Wayland are accessibility-only",
        )
    })
}

/// The pixels of `rect` (global coordinates) on the compositor at `wayland_display`.
pub fn read(wayland_display: &Path, rect: Rect) -> Result<RgbImage, BackendError> {
    let output = Command::new(grim()?)
        .args(["-t", "ppm", "-g"])
        .arg(format!("{},{} {}x{}", rect.x, rect.y, rect.width, rect.height))
        .arg("-")
        .env("WAYLAND_DISPLAY", wayland_display)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            BackendError::new(BackendErrorKind::Unavailable, format!("could not run grim: {e}"))
        })?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        return Err(BackendError::new(
            BackendErrorKind::Unavailable,
            format!(
                "grim could not read the screen ({}): the compositor may not offer wlr-screencopy",
                why.trim()
            ),
        ));
    }
    let image = parse_ppm(&output.stdout)?;
    if image.width != rect.width || image.height != rect.height {
        // A scaled output gives more pixels than logical units: keep the
        // frame's one-pixel-per-unit promise.
        return Ok(image.downscale(rect.size()));
    }
    Ok(image)
}

fn bad(why: &str) -> BackendError {
    BackendError::new(
        BackendErrorKind::Unavailable,
        format!("grim's image is not a binary PPM: {why}"),
    )
}

/// A binary (P6), 8-bit PPM.
pub fn parse_ppm(bytes: &[u8]) -> Result<RgbImage, BackendError> {
    let mut fields = Vec::with_capacity(4);
    let mut at = 0;
    while fields.len() < 4 {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'#') {
            if bytes[at] == b'#' {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
            } else {
                at += 1;
            }
        }
        let start = at;
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if start == at {
            return Err(bad("the header ends early"));
        }
        fields.push(
            std::str::from_utf8(&bytes[start..at]).map_err(|_| bad("the header is not text"))?,
        );
    }
    // One whitespace byte separates the header from the pixels.
    at += 1;
    if fields[0] != "P6" {
        return Err(bad("not P6"));
    }
    let number = |s: &str| s.parse::<u32>().map_err(|_| bad("a size is not a number"));
    let (width, height, max) = (number(fields[1])?, number(fields[2])?, number(fields[3])?);
    if max != 255 {
        return Err(bad("not 8 bits per channel"));
    }
    let length = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(3))
        .ok_or_else(|| bad("absurd size"))?;
    let data = bytes
        .get(at..at + length)
        .ok_or_else(|| bad("fewer pixels than the header says"))?
        .to_vec();
    Ok(RgbImage { width, height, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ppm_header_with_a_comment_is_read_and_a_short_one_refused() {
        let mut bytes = b"P6\n# grim\n2 1\n255\n".to_vec();
        bytes.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
        let image = parse_ppm(&bytes).unwrap();
        assert_eq!((image.width, image.height, image.pixel(1, 0)), (2, 1, [4, 5, 6]));
        assert!(parse_ppm(&bytes[..bytes.len() - 1]).is_err());
        assert!(parse_ppm(b"P3\n1 1\n255\n0 0 0").is_err());
    }
}
