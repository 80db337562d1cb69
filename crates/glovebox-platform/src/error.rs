//! What a backend reports when it cannot do something: a typed kind and
//! what happened, in words. Only the host turns it into a `Refusal` (a
//! `COMPUTER_*` code and the sentence the user reads); backends and the
//! platform composition never pick a refusal code, and nothing above a
//! backend branches on anything but the kind.

use glovebox_model::{Refusal, ResolveError};

/// Why a backend could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendErrorKind {
    /// The platform service (display, bus, application) cannot be reached,
    /// or lacks what this needs.
    Unavailable,
    /// This platform has no backend for it at all.
    Unsupported,
    /// The window (or the object an element stood for) no longer exists.
    Gone,
    /// The element exists but cannot take this action.
    NotActionable,
    /// No element matches.
    NotFound,
    /// An element id from an earlier reading that this one no longer has.
    StaleElement,
    /// No route delivers this without touching the user's pointer, focus
    /// or stacking order (or the window has no pixels to read).
    NoBackgroundRoute,
    /// A password field has focus, or another client holds the keyboard.
    SecureInput,
    /// The window moved, resized or was minimised while it was read.
    Moved,
    /// A point outside what can be addressed.
    OutOfBounds,
    /// The application did not answer in time.
    Timeout,
    /// The input was sent but the application does not read as asked
    /// afterwards (it took part of it, or rewrote it): no other route is
    /// tried after this, as it would apply the input a second time.
    Unconfirmed,
    /// An argument the backend cannot use.
    InvalidArgument,
    /// A check of glovebox-model's (an argument, a geometry, a layout)
    /// refused: that refusal, passed through as it is.
    Model(Refusal),
}

/// A backend's failure: its kind and what happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BackendError {
    /// Why, as the host branches on it.
    pub kind: BackendErrorKind,
    /// What happened, in words; the host passes it on in the refusal.
    pub message: String,
}

impl BackendError {
    /// A failure of `kind`, saying `message`.
    pub fn new(kind: BackendErrorKind, message: impl Into<String>) -> BackendError {
        BackendError { kind, message: message.into() }
    }

    /// The platform service cannot be reached ([`BackendErrorKind::Unavailable`]).
    pub fn unavailable(message: impl Into<String>) -> BackendError {
        BackendError::new(BackendErrorKind::Unavailable, message)
    }

    /// The window or object no longer exists ([`BackendErrorKind::Gone`]).
    pub fn gone(message: impl Into<String>) -> BackendError {
        BackendError::new(BackendErrorKind::Gone, message)
    }

    /// An argument the backend cannot use ([`BackendErrorKind::InvalidArgument`]).
    pub fn invalid_argument(message: impl Into<String>) -> BackendError {
        BackendError::new(BackendErrorKind::InvalidArgument, message)
    }

    /// Nothing delivers this without touching the user's pointer, focus
    /// or stacking order ([`BackendErrorKind::NoBackgroundRoute`]).
    pub fn no_background_route(message: impl Into<String>) -> BackendError {
        BackendError::new(BackendErrorKind::NoBackgroundRoute, message)
    }

    /// The element cannot take this action ([`BackendErrorKind::NotActionable`]).
    pub fn not_actionable(message: impl Into<String>) -> BackendError {
        BackendError::new(BackendErrorKind::NotActionable, message)
    }

    /// Whether this failure is of `kind`, whatever a [`BackendErrorKind::Model`]
    /// refusal inside it says.
    pub fn is(&self, kind: &BackendErrorKind) -> bool {
        std::mem::discriminant(&self.kind) == std::mem::discriminant(kind)
    }
}

impl From<Refusal> for BackendError {
    fn from(refusal: Refusal) -> BackendError {
        let message = refusal.message.clone();
        BackendError { kind: BackendErrorKind::Model(refusal), message }
    }
}

impl From<ResolveError> for BackendError {
    fn from(e: ResolveError) -> BackendError {
        match e {
            ResolveError::Gone(why) => BackendError::gone(why),
            ResolveError::Ambiguous(why) => BackendError::invalid_argument(why),
        }
    }
}
