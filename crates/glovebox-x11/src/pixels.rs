//! Turning X ZPixmap bytes into RGB: the server's pixel layout is read from
//! the root visual once, and rows are converted with it.

use glovebox_platform::BackendError;
use glovebox_platform::RgbImage;
use x11rb::protocol::xproto::{ImageOrder, Setup};

/// A 32-bit-per-pixel true-colour layout with 8-bit channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PixelFormat {
    red_shift: u32,
    green_shift: u32,
    blue_shift: u32,
    little_endian: bool,
}

impl PixelFormat {
    /// The layout of the root window's visual on `screen`, or why it is not supported.
    pub(crate) fn of_root(setup: &Setup, screen: usize) -> Result<PixelFormat, String> {
        let root = &setup.roots[screen];
        Self::of_visual(setup, screen, root.root_visual, root.root_depth)
    }

    /// The layout of `visual` at `depth` (a window's own, read from its
    /// pixmap), or why it is not supported.
    pub(crate) fn of_visual(
        setup: &Setup,
        screen: usize,
        visual: u32,
        depth: u8,
    ) -> Result<PixelFormat, String> {
        let visual = setup.roots[screen]
            .allowed_depths
            .iter()
            .filter(|d| d.depth == depth)
            .flat_map(|d| d.visuals.iter())
            .find(|v| v.visual_id == visual)
            .ok_or_else(|| {
                format!("visual {visual:#x} at depth {depth} is not described by the server")
            })?;
        let format = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == depth)
            .ok_or_else(|| format!("no pixmap format for depth {depth}"))?;
        if format.bits_per_pixel != 32 {
            return Err(format!(
                "depth {depth} uses {} bits per pixel; only 32 is supported",
                format.bits_per_pixel
            ));
        }
        let shift = |mask: u32| -> Result<u32, String> {
            let shift = mask.trailing_zeros();
            if mask >> shift == 0xff {
                Ok(shift)
            } else {
                Err(format!("colour mask {mask:#x} is not an 8-bit channel"))
            }
        };
        Ok(PixelFormat {
            red_shift: shift(visual.red_mask)?,
            green_shift: shift(visual.green_mask)?,
            blue_shift: shift(visual.blue_mask)?,
            little_endian: setup.image_byte_order == ImageOrder::LSB_FIRST,
        })
    }

    /// Converts `height` rows of `width` pixels, `stride` bytes apart.
    pub(crate) fn to_rgb(
        self,
        bytes: &[u8],
        width: u32,
        height: u32,
        stride: usize,
    ) -> Result<RgbImage, BackendError> {
        let row_bytes = width as usize * 4;
        if stride < row_bytes
            || bytes.len() < stride * (height as usize).saturating_sub(1) + row_bytes
        {
            return Err(BackendError::unavailable(format!(
                "the X server returned {} bytes for a {width}×{height} image",
                bytes.len()
            )));
        }
        let mut data = Vec::with_capacity(width as usize * height as usize * 3);
        let standard =
            self.little_endian && (self.red_shift, self.green_shift, self.blue_shift) == (16, 8, 0);
        for row in bytes.chunks(stride).take(height as usize) {
            let row = &row[..row_bytes];
            if standard {
                // B, G, R, X in memory: the common case, kept branch-free.
                for px in row.chunks_exact(4) {
                    data.extend_from_slice(&[px[2], px[1], px[0]]);
                }
            } else {
                for px in row.chunks_exact(4) {
                    let bytes = [px[0], px[1], px[2], px[3]];
                    let v = if self.little_endian {
                        u32::from_le_bytes(bytes)
                    } else {
                        u32::from_be_bytes(bytes)
                    };
                    data.extend_from_slice(&[
                        (v >> self.red_shift) as u8,
                        (v >> self.green_shift) as u8,
                        (v >> self.blue_shift) as u8,
                    ]);
                }
            }
        }
        Ok(RgbImage { width, height, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_bgrx_and_other_layouts_and_rejects_short_buffers() {
        let bgrx =
            PixelFormat { red_shift: 16, green_shift: 8, blue_shift: 0, little_endian: true };
        let bytes = [
            3, 2, 1, 0, 30, 20, 10, 0, 0xff, 0xff, 0xff, 0xff, 6, 5, 4, 0, 60, 50, 40, 0, 0, 0, 0,
            0,
        ];
        let image = bgrx.to_rgb(&bytes, 2, 2, 12).unwrap();
        assert_eq!(image.data, [1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60]);
        let rgbx_big =
            PixelFormat { red_shift: 24, green_shift: 16, blue_shift: 8, little_endian: false };
        assert_eq!(rgbx_big.to_rgb(&[1, 2, 3, 0], 1, 1, 4).unwrap().data, [1, 2, 3]);
        assert!(bgrx.to_rgb(&bytes[..19], 2, 2, 12).is_err());
    }
}
