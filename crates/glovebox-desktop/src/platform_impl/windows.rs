//! Windows: no backend yet (UI Automation, window messages and a window's
//! own pixels are its design, docs/DESIGN.md); every operation refuses.
//! The protected programs below are the ones its backend will supply.
//! Type-checked for `x86_64-pc-windows-gnu` in CI; not yet run on Windows.

pub(crate) use super::unsupported::{capabilities, display_name, doctor, open};

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
        ],
        consent: &[
            // User Account Control's elevation prompt.
            "consent*", // The sign-in and lock screens.
            "logonui*", "lockapp*",
        ],
    };
