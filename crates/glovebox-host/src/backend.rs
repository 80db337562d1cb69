//! The one place a backend's failure becomes a refusal: its kind picks the
//! `COMPUTER_*` code, its words become the sentence.

use glovebox_model::{ErrorCode, Refusal};
use glovebox_platform::{BackendError, BackendErrorKind};

/// The refusal a backend's failure amounts to.
pub fn refusal_of(e: BackendError) -> Refusal {
    let code = match e.kind {
        BackendErrorKind::Model(refusal) => return refusal,
        BackendErrorKind::Unavailable => ErrorCode::BackendUnavailable,
        BackendErrorKind::Unsupported => ErrorCode::PlatformUnsupported,
        BackendErrorKind::Gone => ErrorCode::TargetGone,
        BackendErrorKind::NotActionable | BackendErrorKind::Unconfirmed => {
            ErrorCode::ElementNotActionable
        }
        BackendErrorKind::NotFound => ErrorCode::ElementNotFound,
        BackendErrorKind::StaleElement => ErrorCode::StaleRef,
        BackendErrorKind::NoBackgroundRoute => ErrorCode::BackgroundUnavailable,
        BackendErrorKind::SecureInput => ErrorCode::SecureInput,
        BackendErrorKind::Moved => ErrorCode::StaleBasis,
        BackendErrorKind::OutOfBounds => ErrorCode::CoordinateOutOfBounds,
        BackendErrorKind::Timeout => ErrorCode::Timeout,
        BackendErrorKind::InvalidArgument => ErrorCode::InvalidArgument,
    };
    Refusal::new(code, e.message)
}

/// `.gated()` on a backend's result: its failure as the host's refusal.
pub(crate) trait Gated<T> {
    fn gated(self) -> Result<T, Refusal>;
}

impl<T> Gated<T> for Result<T, BackendError> {
    fn gated(self) -> Result<T, Refusal> {
        self.map_err(refusal_of)
    }
}
