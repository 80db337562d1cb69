//! A system glovebox has no backend for: every operation is an exact,
//! attributable refusal (`COMPUTER_PLATFORM_UNSUPPORTED`), never an empty
//! success.

use glovebox_platform::unsupported::UnsupportedPlatform;
use glovebox_platform::{doctor::DoctorReport, BackendError, Backends, Capabilities};

/// No display server glovebox knows of.
pub(crate) fn display_name(_backend: glovebox_model::DisplayBackend) -> String {
    "none".into()
}

pub(crate) fn open(_options: &glovebox_platform::DesktopOptions) -> Result<Backends, BackendError> {
    Err(UnsupportedPlatform::current().error())
}

pub(crate) fn doctor() -> DoctorReport {
    UnsupportedPlatform::current().doctor()
}

pub(crate) fn capabilities() -> Option<Capabilities> {
    Some(UnsupportedPlatform::current().capabilities())
}

/// Nothing of such a system is reached, so there is nothing to list yet.
#[cfg(not(any(target_os = "windows", target_os = "macos")))]
pub(crate) const PROTECTED: glovebox_platform::ProtectedPrograms =
    glovebox_platform::ProtectedPrograms { credentials: &[], consent: &[] };
