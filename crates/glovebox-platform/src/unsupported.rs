//! The backend of platforms glovebox has none for yet: every operation is an
//! exact, attributable refusal.

use crate::doctor::{Check, DoctorReport, SessionType};
use crate::error::{BackendError, BackendErrorKind};
use crate::{AccessibilitySource, Capabilities, Capture, ScreenCapture, Support, WindowSource};
use glovebox_model::{
    AccessibilityTree, CaptureLimits, DisplaySelection, Monitor, TreeBudget, WindowInfo, WindowRef,
};

/// Answers `COMPUTER_PLATFORM_UNSUPPORTED` from every operation.
#[derive(Debug, Clone)]
pub struct UnsupportedPlatform {
    /// The operating system's name, as `std::env::consts::OS` spells it.
    pub os: &'static str,
}

impl UnsupportedPlatform {
    /// The platform this binary was built for.
    pub fn current() -> Self {
        UnsupportedPlatform { os: std::env::consts::OS }
    }

    /// The refusal every operation answers, naming the platform.
    pub fn error(&self) -> BackendError {
        BackendError::new(
            BackendErrorKind::Unsupported,
            format!("glovebox has no backend for {} yet; only Linux/X11 is supported", self.os),
        )
    }

    /// Every capability missing, each with the refusal's message as its reason.
    pub fn capabilities(&self) -> Capabilities {
        let missing = || Support::Missing { reason: self.error().message };
        Capabilities {
            backend: format!("none ({})", self.os),
            window_listing: missing(),
            window_capture: missing(),
            desktop_capture: missing(),
            accessibility: missing(),
        }
    }

    /// The environment report: one missing check, the backend.
    pub fn doctor(&self) -> DoctorReport {
        DoctorReport {
            platform: self.os.to_owned(),
            session: SessionType::Unsupported,
            checks: vec![Check::missing(
                "backend",
                self.error().to_string(),
                &["every capture, listing and input operation"],
            )],
        }
    }
}

impl WindowSource for UnsupportedPlatform {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        Err(self.error())
    }
}

impl ScreenCapture for UnsupportedPlatform {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        Err(self.error())
    }

    fn capture_window(&self, _: &WindowRef, _: CaptureLimits) -> Result<Capture, BackendError> {
        Err(self.error())
    }

    fn capture_desktop(
        &self,
        _: &DisplaySelection,
        _: CaptureLimits,
        _: &[glovebox_model::WindowId],
    ) -> Result<Capture, BackendError> {
        Err(self.error())
    }
}

impl AccessibilitySource for UnsupportedPlatform {
    fn inspect(&self, _: &WindowInfo, _: TreeBudget) -> Result<AccessibilityTree, BackendError> {
        Err(self.error())
    }

    fn read_value(
        &self,
        _: &WindowInfo,
        _: glovebox_model::ElementId,
        _: usize,
    ) -> Result<glovebox_model::ElementValue, BackendError> {
        Err(self.error())
    }

    fn watch_events(&self, _: &WindowInfo) {}

    fn settle(&self, _: crate::SettleLimits) -> crate::Settled {
        crate::Settled::Unwatched
    }

    fn working(&self, _: &WindowInfo) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_names_the_platform() {
        let p = UnsupportedPlatform { os: "macos" };
        let errors = [
            p.list_windows().unwrap_err(),
            p.monitors().unwrap_err(),
            p.capture_desktop(&DisplaySelection::All, CaptureLimits::default(), &[]).unwrap_err(),
        ];
        for e in errors {
            assert_eq!(e.kind, crate::BackendErrorKind::Unsupported);
            assert!(e.message.contains("macos"));
        }
        assert!(!p.doctor().healthy());
    }
}
