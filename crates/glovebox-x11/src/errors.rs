//! X errors as refusals: no display, a display that cannot be reached, a
//! connection that failed, a request the server refused (a window that is
//! gone is said so).

use glovebox_platform::BackendError;
use x11rb::errors::{ConnectError, ConnectionError, ReplyError};

/// Explains why no X display can be reached in this environment.
pub(crate) fn no_display_refusal() -> BackendError {
    if std::env::var_os("WAYLAND_DISPLAY").is_some() {
        BackendError::unavailable("this is a Wayland session without an X display (DISPLAY is unset): glovebox needs X11 or a rootful XWayland")
    } else {
        BackendError::unavailable(
            "no X display: DISPLAY is unset (run inside `glovebox sandbox -- …` or an X11 session)",
        )
    }
}

pub(crate) fn connect_error(display: Option<&str>, e: ConnectError) -> BackendError {
    let name =
        display.map(str::to_owned).or_else(|| std::env::var("DISPLAY").ok()).unwrap_or_default();
    match e {
        ConnectError::DisplayParsingError(_) if name.is_empty() => no_display_refusal(),
        other => {
            BackendError::unavailable(format!("cannot connect to X display {name:?}: {other}"))
        }
    }
}

pub(crate) fn connection_lost(e: ConnectionError) -> BackendError {
    BackendError::unavailable(format!("the X connection failed: {e}"))
}

/// Maps a failed X request; `window_gone` names the window when an X error
/// means the window it was about no longer exists.
pub(crate) fn reply_error(
    e: ReplyError,
    window_gone: Option<&dyn std::fmt::Display>,
) -> BackendError {
    match (e, window_gone) {
        (ReplyError::X11Error(x), Some(window))
            if matches!(
                x.error_kind,
                x11rb::protocol::ErrorKind::Window | x11rb::protocol::ErrorKind::Drawable
            ) =>
        {
            BackendError::gone(format!("window {window} closed"))
        }
        (ReplyError::X11Error(x), _) => BackendError::unavailable(format!(
            "X request {:?} failed: {:?}",
            x.request_name, x.error_kind
        )),
        (ReplyError::ConnectionError(c), _) => connection_lost(c),
    }
}
