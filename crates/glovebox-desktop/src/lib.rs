//! The desktop of the system glovebox runs on, for the command and the
//! servers: the one crate they open it through, in the manner of winit's
//! and AccessKit's platform layers. `platform_impl/` holds one module per
//! system, chosen by `cfg`; each puts that system's backends together
//! behind glovebox-platform's traits, names its display, reports what it
//! offers, and supplies its protected programs. Nothing above this crate
//! names a system.
//!
//! - **Linux** (`platform_impl/linux.rs`): glovebox-linux — X11 or Wayland
//!   with AT-SPI. Run and tested here.
//! - **Windows** and **macOS** (`windows.rs`, `macos.rs`): no backend yet;
//!   every operation answers `COMPUTER_PLATFORM_UNSUPPORTED`, and their
//!   protected programs are listed for the backends to come. Type-checked
//!   for `x86_64-pc-windows-gnu` and `aarch64-apple-darwin` in CI; never
//!   run on those systems.
//! - **Any other system** (`unsupported.rs`): the same refusal.
//!
//! A new system's backend implements the traits of `glovebox-platform`,
//! passes its contract tests (`glovebox-testkit`'s `contract`), and is
//! chosen here — docs/adding-a-desktop.md walks through it.
#![forbid(unsafe_code)]
#![deny(missing_docs, unreachable_pub)]

mod platform_impl;

use glovebox_platform::{doctor::DoctorReport, BackendError, Capabilities};
pub use glovebox_platform::{Backends, DesktopOptions, ProtectedPrograms};

/// The display this process's grant lock is per, for `backend` (on Linux
/// the X display or the Wayland socket; `none` where there is none).
pub fn display_name(backend: glovebox_model::DisplayBackend) -> String {
    platform_impl::display_name(backend)
}

/// This system's desktop as `options` say: the person's, with an agent
/// display beside it where the system has one.
pub fn open(options: &DesktopOptions) -> Result<Backends, BackendError> {
    platform_impl::open(options)
}

/// What this environment offers and lacks (`glovebox doctor`).
pub fn doctor() -> DoctorReport {
    platform_impl::doctor()
}

/// What the desktop offers now, when it can be reached at all.
pub fn capabilities() -> Option<Capabilities> {
    platform_impl::capabilities()
}

/// This system's credential software and consent surfaces.
pub const PROTECTED: ProtectedPrograms = platform_impl::PROTECTED;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_system_names_a_display_reports_itself_and_protects_its_consent_surfaces() {
        assert!(!display_name(glovebox_model::DisplayBackend::Auto).is_empty());
        assert!(!doctor().platform.is_empty());
        #[cfg(any(target_os = "linux", target_os = "windows", target_os = "macos"))]
        assert!(!PROTECTED.consent.is_empty() && !PROTECTED.credentials.is_empty());
    }
}
