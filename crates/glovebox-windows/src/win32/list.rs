//! The desktop's top-level windows, frontmost first: `EnumWindows` walks
//! them in stacking order. Hidden and tool windows are left out, as are
//! windows of other sessions (another user's remote desktop on the same
//! machine), which no grant of this session may reach.

use super::system::{self, hwnd};
use glovebox_model::{PidSource, WindowId, WindowInfo};
use glovebox_platform::process::ProcessTable;
use glovebox_platform::BackendError;
use windows::core::BOOL;
use windows::Win32::Foundation::{HWND, LPARAM};
use windows::Win32::System::RemoteDesktop::ProcessIdToSessionId;
use windows::Win32::System::Threading::GetCurrentProcessId;
use windows::Win32::UI::WindowsAndMessaging::{
    EnumWindows, GetForegroundWindow, IsIconic, IsWindowVisible,
};

/// `WS_EX_TOOLWINDOW`: a palette or floating bar, not a window of its own.
const WS_EX_TOOLWINDOW: u32 = 0x80;

unsafe extern "system" fn collect(hwnd: HWND, into: LPARAM) -> BOOL {
    // SAFETY: `into` is the address of the Vec `top_level` lends for the
    // duration of EnumWindows, which calls this on the same thread.
    let windows = unsafe { &mut *(into.0 as *mut Vec<HWND>) };
    windows.push(hwnd);
    BOOL(1)
}

/// Every top-level window handle, frontmost first.
pub(crate) fn top_level() -> Result<Vec<HWND>, BackendError> {
    let mut windows: Vec<HWND> = vec![];
    // SAFETY: the callback only pushes into `windows`, which outlives the call.
    unsafe { EnumWindows(Some(collect), LPARAM(&mut windows as *mut Vec<HWND> as isize)) }
        .map_err(|e| {
            BackendError::unavailable(format!("the window list could not be read: {e}"))
        })?;
    Ok(windows)
}

fn session_of(pid: u32) -> Option<u32> {
    let mut session = 0u32;
    // SAFETY: `session` outlives the call, which writes one u32.
    unsafe { ProcessIdToSessionId(pid, &mut session) }.ok().map(|_| session)
}

/// The listed windows, measured now.
pub(crate) fn windows(processes: &dyn ProcessTable) -> Result<Vec<WindowInfo>, BackendError> {
    // SAFETY: no arguments.
    let (foreground, own_pid) = unsafe { (GetForegroundWindow(), GetCurrentProcessId()) };
    let own_session = session_of(own_pid);
    let mut out = vec![];
    for window in top_level()? {
        // SAFETY: both only look the handle up.
        let (visible, minimized) =
            unsafe { (IsWindowVisible(window).as_bool(), IsIconic(window).as_bool()) };
        if !visible || system::ex_style(window) & WS_EX_TOOLWINDOW != 0 {
            continue;
        }
        let Some((pid, _thread)) = system::owner(window) else { continue };
        if own_session.is_some() && session_of(pid) != own_session {
            continue;
        }
        let Some(geometry) = system::client_rect(window).or_else(|| system::window_rect(window))
        else {
            continue;
        };
        let class = system::class(window);
        let app = processes
            .name(pid)
            .or_else(|| {
                processes.executable(pid)?.file_name().map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| class.clone());
        out.push(WindowInfo {
            id: WindowId { pid, handle: system::handle(window) },
            app,
            instance: class,
            title: system::text(window),
            // The system's own record of the window's thread, which the
            // application cannot write.
            pid_source: PidSource::Server,
            geometry,
            focused: window == foreground,
            minimized,
            desktop: Default::default(),
        });
    }
    Ok(out)
}

/// The live handle of a listed window, checked to be the same window (the
/// same process still owns it).
pub(crate) fn live(window: &WindowInfo) -> Result<HWND, BackendError> {
    let handle = hwnd(window.id.handle);
    match system::owner(handle) {
        Some((pid, _)) if pid == window.id.pid && system::exists(handle) => Ok(handle),
        _ => Err(BackendError::gone(format!("window {} is gone", window.id))),
    }
}
