//! Windows: glovebox-windows' desktop — windows by `EnumWindows`, a
//! window's own pixels, trees from the standard controls and MSAA, input by
//! window messages. Built for `x86_64-pc-windows-gnu` and run under Wine in
//! CI; not yet run on Windows itself (docs/windows.md).

use glovebox_platform::{doctor::DoctorReport, BackendError, Backends, Capabilities};

/// The session and its interactive desktop: one grant lock per session.
pub(crate) fn display_name(_backend: glovebox_model::DisplayBackend) -> String {
    "windows-session".into()
}

pub(crate) fn open(_options: &glovebox_platform::DesktopOptions) -> Result<Backends, BackendError> {
    glovebox_windows::backends(PROTECTED)
}

pub(crate) fn doctor() -> DoctorReport {
    glovebox_windows::doctor()
}

pub(crate) fn capabilities() -> Option<Capabilities> {
    Some(glovebox_windows::capabilities())
}

/// Matched lower-case against a window's application name, its class and
/// its executable (`consent.exe`), `*` any run of characters.
pub(crate) const PROTECTED: glovebox_platform::ProtectedPrograms =
    glovebox_platform::ProtectedPrograms {
        credentials: &[
            "keepass*",
            "keepassxc*",
            "bitwarden*",
            "1password*",
            // The system's own credential prompt (Windows Hello, saved passwords).
            "credentialuibroker*",
            // The classic credential dialog's window class.
            "credential dialog xaml host",
        ],
        consent: &[
            // User Account Control's elevation prompt.
            "consent*", // The sign-in and lock screens.
            "logonui*", "lockapp*",
        ],
    };
