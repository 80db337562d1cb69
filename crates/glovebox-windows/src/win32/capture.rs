//! Pixels: a window's own first (`PrintWindow` with
//! `PW_RENDERFULLCONTENT`, which on Windows draws even the parts other
//! windows cover), else what shows of it (its client DC, with whatever
//! lies above it painted black and listed); the monitors from
//! `EnumDisplayMonitors` and the desktop from the screen's DC.
//!
//! An all-black read is no picture of a window: under Wine, and for some
//! windows on Windows, `PrintWindow` answers black, and that is never
//! reported as a capture (`refuse_black`).

use super::system::client_rect;
use glovebox_model::{Monitor, Rect};
use glovebox_platform::{BackendError, RgbImage};
use windows::core::BOOL;
use windows::Win32::Foundation::{HWND, LPARAM, RECT};
use windows::Win32::Graphics::Gdi::{
    BitBlt, CreateCompatibleBitmap, CreateCompatibleDC, DeleteDC, DeleteObject,
    EnumDisplayMonitors, GetDC, GetDIBits, GetMonitorInfoW, ReleaseDC, SelectObject, BITMAPINFO,
    BITMAPINFOHEADER, BI_RGB, CAPTUREBLT, DIB_RGB_COLORS, HDC, HMONITOR, MONITORINFO, SRCCOPY,
};
use windows::Win32::Storage::Xps::{PrintWindow, PRINT_WINDOW_FLAGS, PW_CLIENTONLY};

/// `PW_RENDERFULLCONTENT` (Windows 8.1 and later): draws what the
/// compositor holds of the window, covered parts included.
const PW_RENDERFULLCONTENT: u32 = 0x2;

/// How the pixels of one source are copied into a memory bitmap.
enum Source {
    /// The window draws itself into it (`PrintWindow`).
    Print(HWND),
    /// A copy of a device context's pixels from `(x, y)`.
    Copy(HDC, i32, i32),
}

/// Reads `width`×`height` pixels from `source` into an image.
fn read(source: Source, reference: HDC, width: u32, height: u32) -> Result<RgbImage, BackendError> {
    let fail = |what: &str| {
        BackendError::unavailable(format!("the pixels could not be read: {what} failed"))
    };
    if width == 0 || height == 0 || width > 16_384 || height > 16_384 {
        return Err(BackendError::invalid_argument(format!(
            "no pixels to read in {width}×{height}"
        )));
    }
    // SAFETY: every GDI object made here is selected out and deleted before
    // return; the buffer GetDIBits writes holds width×height 32-bit pixels.
    unsafe {
        let memory = CreateCompatibleDC(Some(reference));
        if memory.is_invalid() {
            return Err(fail("CreateCompatibleDC"));
        }
        let bitmap = CreateCompatibleBitmap(reference, width as i32, height as i32);
        if bitmap.is_invalid() {
            let _ = DeleteDC(memory);
            return Err(fail("CreateCompatibleBitmap"));
        }
        let previous = SelectObject(memory, bitmap.into());
        let drawn = match source {
            Source::Print(window) => PrintWindow(
                window,
                memory,
                PRINT_WINDOW_FLAGS(PW_CLIENTONLY.0 | PW_RENDERFULLCONTENT),
            )
            .as_bool(),
            Source::Copy(dc, x, y) => BitBlt(
                memory,
                0,
                0,
                width as i32,
                height as i32,
                Some(dc),
                x,
                y,
                SRCCOPY | CAPTUREBLT,
            )
            .is_ok(),
        };
        SelectObject(memory, previous);
        let mut info = BITMAPINFO {
            bmiHeader: BITMAPINFOHEADER {
                biSize: std::mem::size_of::<BITMAPINFOHEADER>() as u32,
                biWidth: width as i32,
                // Negative: rows top-down, as glovebox's images are.
                biHeight: -(height as i32),
                biPlanes: 1,
                biBitCount: 32,
                biCompression: BI_RGB.0,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut bgra = vec![0u8; width as usize * height as usize * 4];
        let rows = if drawn {
            GetDIBits(
                memory,
                bitmap,
                0,
                height,
                Some(bgra.as_mut_ptr().cast()),
                &mut info,
                DIB_RGB_COLORS,
            )
        } else {
            0
        };
        let _ = DeleteObject(bitmap.into());
        let _ = DeleteDC(memory);
        if !drawn {
            return Err(fail("drawing the window"));
        }
        if rows != height as i32 {
            return Err(fail("GetDIBits"));
        }
        let data = bgra.chunks_exact(4).flat_map(|p| [p[2], p[1], p[0]]).collect();
        Ok(RgbImage { width, height, data })
    }
}

/// The window's own pixels, covered parts included, where the system
/// draws them (`PrintWindow`); `None` where it answers black or fails.
pub(crate) fn own_pixels(window: HWND) -> Option<(Rect, RgbImage)> {
    let rect = client_rect(window)?;
    // SAFETY: the window's DC is released before return.
    unsafe {
        let dc = GetDC(Some(window));
        let image = read(Source::Print(window), dc, rect.width, rect.height);
        ReleaseDC(Some(window), dc);
        image.ok().filter(|i| !i.is_black()).map(|i| (rect, i))
    }
}

/// What shows of the window's client area (its DC).
pub(crate) fn visible_pixels(window: HWND) -> Result<(Rect, RgbImage), BackendError> {
    let rect = client_rect(window)
        .ok_or_else(|| BackendError::gone("the window has no client area to read".to_string()))?;
    // SAFETY: the window's DC is released before return.
    unsafe {
        let dc = GetDC(Some(window));
        if dc.is_invalid() {
            return Err(BackendError::unavailable("the window's device context could not be had"));
        }
        let image = read(Source::Copy(dc, 0, 0), dc, rect.width, rect.height);
        ReleaseDC(Some(window), dc);
        Ok((rect, image?))
    }
}

/// `rect` of the screen (virtual-desktop coordinates).
pub(crate) fn screen_pixels(rect: Rect) -> Result<RgbImage, BackendError> {
    // SAFETY: the screen DC is released before return.
    unsafe {
        let dc = GetDC(None);
        if dc.is_invalid() {
            return Err(BackendError::unavailable("the screen's device context could not be had"));
        }
        let image = read(Source::Copy(dc, rect.x, rect.y), dc, rect.width, rect.height);
        ReleaseDC(None, dc);
        image
    }
}

unsafe extern "system" fn each_monitor(
    monitor: HMONITOR,
    _: HDC,
    _: *mut RECT,
    into: LPARAM,
) -> BOOL {
    // SAFETY: `into` is the Vec `monitors` lends for the duration of
    // EnumDisplayMonitors, which calls this on the same thread.
    let found = unsafe { &mut *(into.0 as *mut Vec<Monitor>) };
    let mut info =
        MONITORINFO { cbSize: std::mem::size_of::<MONITORINFO>() as u32, ..Default::default() };
    // SAFETY: `info` says its own size and outlives the call.
    if unsafe { GetMonitorInfoW(monitor, &mut info) }.as_bool() {
        let r = info.rcMonitor;
        if r.right > r.left && r.bottom > r.top {
            found.push(Monitor {
                name: format!("monitor {}", found.len() + 1),
                logical: Rect::new(
                    r.left,
                    r.top,
                    (r.right - r.left) as u32,
                    (r.bottom - r.top) as u32,
                ),
                // MONITORINFOF_PRIMARY
                primary: info.dwFlags & 1 != 0,
            });
        }
    }
    BOOL(1)
}

/// The monitors, as the system lays them out.
pub(crate) fn monitors() -> Result<Vec<Monitor>, BackendError> {
    let mut found: Vec<Monitor> = vec![];
    // SAFETY: the callback only pushes into `found`, which outlives the call.
    let ok = unsafe {
        EnumDisplayMonitors(
            None,
            None,
            Some(each_monitor),
            LPARAM(&mut found as *mut Vec<Monitor> as isize),
        )
    };
    if !ok.as_bool() || found.is_empty() {
        return Err(BackendError::unavailable("the system reported no monitor"));
    }
    Ok(found)
}

/// The bounds of every monitor together.
pub(crate) fn screen_bounds() -> Result<Rect, BackendError> {
    let all = monitors()?;
    let mut bounds = all[0].logical;
    for m in &all[1..] {
        bounds = bounds.union(m.logical);
    }
    Ok(bounds)
}
