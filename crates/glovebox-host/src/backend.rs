//! The one place a lower layer's failure becomes a refusal: a backend's
//! kind, or what failed between glovebox processes (`glovebox-services`),
//! picks the `COMPUTER_*` code; its words become the sentence.

use glovebox_model::{ErrorCode, Refusal};
use glovebox_platform::{BackendError, BackendErrorKind};
use glovebox_services::control::ControlError;

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

/// The refusal a failure to coordinate with the display's other glovebox
/// processes amounts to: a grant another holds (or none holds) is no grant
/// for this call.
pub fn refusal_of_control(e: ControlError) -> Refusal {
    let code = match &e {
        ControlError::Held { .. } => {
            return Refusal::new(ErrorCode::NoGrant, format!("{e}; `glovebox stop` revokes it"))
        }
        ControlError::NoHolder => ErrorCode::NoGrant,
        ControlError::BadReply { .. } | ControlError::Io { .. } => ErrorCode::BackendUnavailable,
        ControlError::Unsupported { .. } => ErrorCode::PlatformUnsupported,
    };
    Refusal::new(code, e.to_string())
}

/// The refusal of a process that could not serve as the display's warm host.
#[cfg(unix)]
pub fn refusal_of_warm(e: glovebox_services::warm::WarmError) -> Refusal {
    use glovebox_services::warm::WarmError;
    let code = match &e {
        WarmError::AlreadyServed { .. } => ErrorCode::InvalidArgument,
        WarmError::Io { .. } => ErrorCode::BackendUnavailable,
    };
    Refusal::new(code, e.to_string())
}

/// The refusal of a call that the warm host `pid` had taken and lost.
#[cfg(unix)]
pub fn refusal_of_lost_call(lost: glovebox_services::warm::LostCall, pid: u32) -> Refusal {
    let code = match lost {
        glovebox_services::warm::LostCall::Overran(_) => ErrorCode::Timeout,
        _ => ErrorCode::BackendUnavailable,
    };
    Refusal::new(code, format!("the warm glovebox host (pid {pid}) {lost}"))
}

/// `.gated()` on a lower layer's result: its failure as the host's refusal.
pub(crate) trait Gated<T> {
    fn gated(self) -> Result<T, Refusal>;
}

impl<T> Gated<T> for Result<T, ControlError> {
    fn gated(self) -> Result<T, Refusal> {
        self.map_err(refusal_of_control)
    }
}

impl<T> Gated<T> for Result<T, BackendError> {
    fn gated(self) -> Result<T, Refusal> {
        self.map_err(refusal_of)
    }
}
