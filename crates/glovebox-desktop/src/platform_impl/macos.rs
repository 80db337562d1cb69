//! macOS: no backend yet (the Accessibility API, a window's own pixels by
//! ScreenCaptureKit are its design, docs/DESIGN.md); every operation
//! refuses. The protected programs below are the ones its backend will
//! supply. Type-checked for `aarch64-apple-darwin` in CI; not yet run on
//! macOS.

pub(crate) use super::unsupported::{capabilities, display_name, doctor, open};

/// Matched lower-case against a window's application name, its bundle and
/// its executable, `*` any run of characters.
pub(crate) const PROTECTED: glovebox_platform::ProtectedPrograms =
    glovebox_platform::ProtectedPrograms {
        credentials: &[
            "keychain access",
            "keepassxc*",
            "bitwarden*",
            "1password*",
            // The system's authentication dialogs and Touch ID prompts.
            "securityagent*",
            "coreautha*",
        ],
        consent: &[
            // Where the person grants accessibility and screen recording.
            "system settings",
            "system preferences",
            "com.apple.systempreferences*",
            "universalaccessauthwarn*",
            // The login and lock screens.
            "loginwindow*",
        ],
    };
