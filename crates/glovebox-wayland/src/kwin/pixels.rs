//! The pixels `org.kde.KWin.ScreenShot2` writes into glovebox's pipe: raw
//! rows in a `QImage` format its reply names, read here as RGB. Only the
//! 32-bit formats KWin writes are taken; anything else is refused rather
//! than guessed.

use glovebox_platform::{BackendError, BackendErrorKind, RgbImage};

/// Never more than this is read from the pipe (a 16K × 8K picture).
pub const MAX_BYTES: usize = 16384 * 8192 * 4;

/// What ScreenShot2's reply says about the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub width: u32,
    pub height: u32,
    pub stride: u32,
    /// `QImage::Format`.
    pub format: u32,
}

/// Byte order of one pixel in memory, and whether its colour is already
/// multiplied by its alpha.
#[derive(Debug, Clone, Copy)]
enum Order {
    /// `QImage::Format_RGB32`, `ARGB32`, `ARGB32_Premultiplied` on a
    /// little-endian machine: B, G, R, A.
    Bgra { premultiplied: bool },
    /// `RGBX8888`, `RGBA8888`, `RGBA8888_Premultiplied`: R, G, B, A.
    Rgba { premultiplied: bool },
}

fn order(format: u32) -> Option<Order> {
    Some(match format {
        4 | 6 => Order::Bgra { premultiplied: true },
        5 => Order::Bgra { premultiplied: false },
        16 | 18 => Order::Rgba { premultiplied: true },
        17 => Order::Rgba { premultiplied: false },
        _ => return None,
    })
}

fn refused(why: String) -> BackendError {
    BackendError::new(BackendErrorKind::Unavailable, format!("KWin's screenshot: {why}"))
}

/// The picture in `bytes`, laid out as `layout` says, composed on black
/// (translucent shadows come out dark, as on a black desktop).
pub fn decode(layout: Layout, bytes: &[u8]) -> Result<RgbImage, BackendError> {
    let Layout { width, height, stride, format } = layout;
    let order = order(format)
        .ok_or_else(|| refused(format!("pixel format {format} is not one glovebox reads")))?;
    if width == 0 || height == 0 {
        return Err(refused(format!("an empty picture ({width}×{height})")));
    }
    let row = width as usize * 4;
    let needed = (stride as usize)
        .checked_mul(height as usize - 1)
        .and_then(|n| n.checked_add(row))
        .filter(|&n| (stride as usize) >= row && n <= MAX_BYTES)
        .ok_or_else(|| refused(format!("a {width}×{height} picture with {stride}-byte rows")))?;
    if bytes.len() < needed {
        return Err(refused(format!(
            "{} bytes arrived where a {width}×{height} picture needs {needed}",
            bytes.len()
        )));
    }
    let mut data = Vec::with_capacity(width as usize * height as usize * 3);
    for y in 0..height as usize {
        let line = &bytes[y * stride as usize..y * stride as usize + row];
        for px in line.chunks_exact(4) {
            let (rgb, alpha, premultiplied) = match order {
                Order::Bgra { premultiplied } => ([px[2], px[1], px[0]], px[3], premultiplied),
                Order::Rgba { premultiplied } => ([px[0], px[1], px[2]], px[3], premultiplied),
            };
            let opaque = format == 4 || format == 16 || premultiplied || alpha == 255;
            if opaque {
                data.extend_from_slice(&rgb);
            } else {
                data.extend(rgb.iter().map(|&c| ((c as u16 * alpha as u16 + 127) / 255) as u8));
            }
        }
    }
    Ok(RgbImage { width, height, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argb32_rows_with_padding_read_as_rgb_and_odd_layouts_are_refused() {
        // Two pixels a row, 12-byte stride: opaque red, half-transparent white.
        let mut bytes = vec![0, 0, 255, 255, 255, 255, 255, 128, 9, 9, 9, 9];
        bytes.extend_from_slice(&[255, 0, 0, 255, 0, 255, 0, 255, 9, 9, 9, 9]);
        let layout = Layout { width: 2, height: 2, stride: 12, format: 5 };
        let image = decode(layout, &bytes).unwrap();
        assert_eq!(image.pixel(0, 0), [255, 0, 0]);
        assert_eq!(image.pixel(1, 0), [128, 128, 128]);
        assert_eq!(image.pixel(0, 1), [0, 0, 255]);
        assert_eq!(image.pixel(1, 1), [0, 255, 0]);
        // Premultiplied: taken as it is.
        let pre = decode(Layout { format: 6, ..layout }, &bytes).unwrap();
        assert_eq!(pre.pixel(1, 0), [255, 255, 255]);
        assert!(decode(Layout { format: 13, ..layout }, &bytes).is_err());
        assert!(decode(Layout { stride: 4, ..layout }, &bytes).is_err());
        assert!(decode(layout, &bytes[..19]).is_err());
        assert!(decode(Layout { width: 0, ..layout }, &bytes).is_err());
        assert!(decode(Layout { height: u32::MAX, ..layout }, &bytes).is_err());
    }
}
