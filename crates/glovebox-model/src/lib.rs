//! The platform-free data model of glovebox.
//!
//! Everything a surface, the host or a backend exchanges is described here as
//! plain data: window identities, geometry, window descriptions, capture
//! frames with their display metadata, and the one registry of refusal codes.
//! This crate performs no I/O and knows no platform.
#![forbid(unsafe_code)]
#![deny(missing_docs, unreachable_pub)]

pub mod a11y;
pub mod action;
pub mod diff;
pub mod element_action;
pub mod error;
pub mod frame;
pub mod geometry;
pub mod grant;
pub mod guidance;
pub mod keys;
pub mod markup;
pub mod person;
pub mod question;
pub mod role;
pub mod schema;
pub mod seen;
pub mod tree_text;
pub mod visible;
pub mod wait;
pub mod window;

pub use a11y::{
    AccessibilityTree, Element, ElementId, ElementOrigin, ElementState, ElementStates,
    ElementValue, Fidelity, OmittedChildren, TreeBudget, TruncatedBy, Truncation, READ_MAX_CHARS,
    READ_MAX_ELEMENTS,
};
pub use action::{validate_batch, Action, Button, DeliveryMode, Target, BATCH_STEPS};
pub use diff::{Change, PictureChange, TreeDiff};
pub use element_action::{ActionKind, ElementAction};
pub use error::{ErrorCode, Refusal};
pub use frame::{
    CaptureLimits, DesktopLayout, DisplayInfo, DisplaySelection, Frame, FrameId, FrameSubject,
    Monitor,
};
pub use geometry::{Point, Rect, Size};
pub use grant::{
    AncestorRule, ApprovalClass, ApprovalMode, CaptureMode, Denial, GrantView, InputPolicy, Origin,
    Policy, Scope, TextRecording,
};
pub use guidance::{Guidance, GuidanceEntry};
pub use keys::{Key, KeyCombo, ModifierKey, Modifiers, NamedKey};
pub use person::{PersonInput, ScreenFraction};
pub use question::Question;
pub use role::Role;
pub use seen::{SeenElement, SeenKind, FIRST_SEEN_ID, PIXELS_UNREAD};
pub use tree_text::{estimate_tokens, BudgetedText, TokenBudget};
pub use visible::{quoted, visible};
pub use wait::{ElementQuery, WaitCondition, WaitFor, WAIT_SECONDS};
pub use window::{
    Desktop, DisplayBackend, PidSource, ResolveError, WindowId, WindowInfo, WindowPage, WindowRef,
    WINDOW_PAGE_SIZE,
};
