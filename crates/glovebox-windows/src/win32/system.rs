//! Small safe wrappers over the window calls every other module makes: a
//! window handle from and to glovebox's id, its text, class, style, rects,
//! process and thread, the focus of its thread, and messages with a
//! timeout. Each `unsafe` block calls one system function with arguments
//! that are valid for the call's duration.

use glovebox_model::{Point, Rect};
use windows::Win32::Foundation::{HWND, LPARAM, POINT, RECT, WPARAM};
use windows::Win32::Graphics::Gdi::ClientToScreen;
use windows::Win32::System::Com::{CoInitializeEx, COINIT_MULTITHREADED};
use windows::Win32::UI::WindowsAndMessaging::{
    GetClassNameW, GetClientRect, GetGUIThreadInfo, GetWindowLongW, GetWindowRect, GetWindowTextW,
    GetWindowThreadProcessId, IsChild, IsWindow, SendMessageTimeoutW, GUITHREADINFO, GWL_EXSTYLE,
    GWL_STYLE, SMTO_ABORTIFHUNG, SMTO_BLOCK,
};

/// The handle glovebox's window id carries.
pub(crate) fn hwnd(handle: u32) -> HWND {
    // Window handles are 32-bit values on 64-bit Windows too (sign-extended
    // when passed between processes), so the id's 32 bits are the handle.
    HWND(handle as i32 as isize as *mut core::ffi::c_void)
}

/// The id glovebox gives `hwnd`.
pub(crate) fn handle(hwnd: HWND) -> u32 {
    hwnd.0 as isize as u32
}

/// Whether `hwnd` is a window now.
pub(crate) fn exists(hwnd: HWND) -> bool {
    // SAFETY: IsWindow takes any value and only looks it up.
    unsafe { IsWindow(Some(hwnd)).as_bool() }
}

/// The process and thread owning `hwnd`; `None` when it is gone.
pub(crate) fn owner(hwnd: HWND) -> Option<(u32, u32)> {
    let mut pid = 0u32;
    // SAFETY: `pid` outlives the call, which writes one u32 into it.
    let thread = unsafe { GetWindowThreadProcessId(hwnd, Some(&mut pid)) };
    (thread != 0).then_some((pid, thread))
}

/// The window's text (a title, a button's caption, an edit's contents).
pub(crate) fn text(hwnd: HWND) -> String {
    let mut buffer = [0u16; 512];
    // SAFETY: the buffer is writable for its whole length, which the call is given.
    let n = unsafe { GetWindowTextW(hwnd, &mut buffer) };
    String::from_utf16_lossy(&buffer[..n.max(0) as usize])
}

/// The window's class name.
pub(crate) fn class(hwnd: HWND) -> String {
    let mut buffer = [0u16; 256];
    // SAFETY: as for `text`.
    let n = unsafe { GetClassNameW(hwnd, &mut buffer) };
    String::from_utf16_lossy(&buffer[..n.max(0) as usize])
}

/// The window's style bits (`WS_*` with the class's own, such as `ES_PASSWORD`).
pub(crate) fn style(hwnd: HWND) -> u32 {
    // SAFETY: reads one long of the window; an invalid handle gives 0.
    unsafe { GetWindowLongW(hwnd, GWL_STYLE) as u32 }
}

/// The window's extended style bits (`WS_EX_*`).
pub(crate) fn ex_style(hwnd: HWND) -> u32 {
    // SAFETY: as for `style`.
    unsafe { GetWindowLongW(hwnd, GWL_EXSTYLE) as u32 }
}

fn rect(r: RECT) -> Option<Rect> {
    let (w, h) = (r.right - r.left, r.bottom - r.top);
    (w > 0 && h > 0).then(|| Rect::new(r.left, r.top, w as u32, h as u32))
}

/// The window's whole rectangle on the screen.
pub(crate) fn window_rect(hwnd: HWND) -> Option<Rect> {
    let mut r = RECT::default();
    // SAFETY: `r` outlives the call, which fills it.
    unsafe { GetWindowRect(hwnd, &mut r) }.ok()?;
    rect(r)
}

/// Where the window's client area's top-left corner is on the screen.
pub(crate) fn client_origin(hwnd: HWND) -> Point {
    let mut p = POINT::default();
    // SAFETY: `p` outlives the call, which converts it in place.
    let _ = unsafe { ClientToScreen(hwnd, &mut p) };
    Point { x: p.x, y: p.y }
}

/// The window's client area on the screen.
pub(crate) fn client_rect(hwnd: HWND) -> Option<Rect> {
    let mut r = RECT::default();
    // SAFETY: `r` outlives the call, which fills it.
    unsafe { GetClientRect(hwnd, &mut r) }.ok()?;
    let origin = client_origin(hwnd);
    rect(RECT {
        left: origin.x,
        top: origin.y,
        right: origin.x + r.right,
        bottom: origin.y + r.bottom,
    })
}

/// The control holding the keyboard focus in `thread`, if any.
pub(crate) fn focus_of_thread(thread: u32) -> Option<HWND> {
    let mut info =
        GUITHREADINFO { cbSize: std::mem::size_of::<GUITHREADINFO>() as u32, ..Default::default() };
    // SAFETY: `info` outlives the call and says its own size.
    unsafe { GetGUIThreadInfo(thread, &mut info) }.ok()?;
    (!info.hwndFocus.is_invalid()).then_some(info.hwndFocus)
}

/// Whether `child` is `parent` or one of its descendants.
pub(crate) fn within(parent: HWND, child: HWND) -> bool {
    // SAFETY: both calls only look the handles up.
    parent == child || unsafe { IsChild(parent, child).as_bool() }
}

/// The longest a sent message waits for the application.
pub(crate) const SEND_TIMEOUT_MS: u32 = 2_000;

/// Sends a message with no pointer in it and waits (at most
/// [`SEND_TIMEOUT_MS`]) for the answer; `None` when the application did
/// not answer in time or is hung.
pub(crate) fn send(hwnd: HWND, msg: u32, wparam: usize, lparam: isize) -> Option<isize> {
    let mut result = 0usize;
    // SAFETY: plain numbers; `result` outlives the call. Messages whose
    // parameters point at memory go through `send_text` instead.
    let ok = unsafe {
        SendMessageTimeoutW(
            hwnd,
            msg,
            WPARAM(wparam),
            LPARAM(lparam),
            SMTO_ABORTIFHUNG | SMTO_BLOCK,
            SEND_TIMEOUT_MS,
            Some(&mut result),
        )
    };
    (ok.0 != 0).then_some(result as isize)
}

/// Sends a message whose `lParam` is a zero-terminated UTF-16 text
/// (`WM_SETTEXT`): the system copies it into the receiving process.
pub(crate) fn send_text(hwnd: HWND, msg: u32, wparam: usize, text: &str) -> Option<isize> {
    let wide: Vec<u16> = text.encode_utf16().chain(std::iter::once(0)).collect();
    let mut result = 0usize;
    // SAFETY: `wide` is zero-terminated and lives until the call returns;
    // the system marshals it for the window's process.
    let ok = unsafe {
        SendMessageTimeoutW(
            hwnd,
            msg,
            WPARAM(wparam),
            LPARAM(wide.as_ptr() as isize),
            SMTO_ABORTIFHUNG | SMTO_BLOCK,
            SEND_TIMEOUT_MS,
            Some(&mut result),
        )
    };
    (ok.0 != 0).then_some(result as isize)
}

/// Reads a text a control gives by message into a buffer (`LB_GETTEXT`),
/// after asking its length (`LB_GETTEXTLEN`).
pub(crate) fn read_text_by(
    hwnd: HWND,
    length_msg: u32,
    text_msg: u32,
    index: usize,
) -> Option<String> {
    let length = send(hwnd, length_msg, index, 0).filter(|n| *n >= 0)? as usize;
    let mut buffer = vec![0u16; length.min(4_096) + 1];
    if length >= buffer.len() {
        return None;
    }
    let mut result = 0usize;
    // SAFETY: the buffer holds the length the control reported plus its
    // terminating zero, and lives until the call returns.
    let ok = unsafe {
        SendMessageTimeoutW(
            hwnd,
            text_msg,
            WPARAM(index),
            LPARAM(buffer.as_mut_ptr() as isize),
            SMTO_ABORTIFHUNG | SMTO_BLOCK,
            SEND_TIMEOUT_MS,
            Some(&mut result),
        )
    };
    if ok.0 == 0 || (result as isize) < 0 {
        return None;
    }
    Some(String::from_utf16_lossy(&buffer[..(result).min(length)]))
}

/// Makes COM usable on this thread (the multithreaded apartment), once.
pub(crate) fn com() {
    thread_local!(static READY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    READY.with(|ready| {
        if !ready.get() {
            // SAFETY: called once per thread, before any COM object is made on it.
            let _ = unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) };
            ready.set(true);
        }
    });
}

/// Whether UI Automation's client object can be made here.
pub(crate) fn has_ui_automation() -> bool {
    com();
    // SAFETY: COM is initialised on this thread; the object is released on drop.
    unsafe {
        windows::Win32::System::Com::CoCreateInstance::<
            _,
            windows::Win32::UI::Accessibility::IUIAutomation,
        >(
            &windows::Win32::UI::Accessibility::CUIAutomation,
            None,
            windows::Win32::System::Com::CLSCTX_INPROC_SERVER,
        )
        .is_ok()
    }
}
