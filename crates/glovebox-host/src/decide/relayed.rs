//! The refusals a surface answers with where the surface holds the fact:
//! its newest frame or screenshot, a point in its model's coordinate
//! space, a provider's safety check, a task's observe-only switch, a
//! parked call's fate, the model binding. The surface passes the fact; the
//! sentence and the code are decided here like every other of the gate's,
//! and reach surfaces as [`crate::refusals`].

use glovebox_model::{ElementId, ErrorCode, FrameId, Rect, Refusal, Size, WindowId};

/// A call that needs the client's newest observation before it made one.
pub fn no_observation_yet() -> Refusal {
    Refusal::new(ErrorCode::StaleRef, "there is no observation yet; call observe first")
}

/// A coordinate before any screenshot it could be mapped through.
pub fn no_screenshot_yet() -> Refusal {
    Refusal::new(
        ErrorCode::StaleRef,
        "there is no screenshot to map coordinates through yet; take a screenshot first",
    )
}

/// An element id the loop's newest observation does not hold.
pub fn not_in_newest_observation(id: ElementId, frame: FrameId) -> Refusal {
    Refusal::new(
        ErrorCode::StaleRef,
        format!("{id} is not in the newest observation (frame {frame}); use an id from it"),
    )
}

/// Whether `(x, y)` lies inside an image of `image`'s size, which the
/// sentence calls `image_is` ("screenshot", "image of frame 3"); the
/// refusal when it does not, never clamped.
pub fn check_point_in_image(x: i64, y: i64, image: Size, image_is: &str) -> Result<(), Refusal> {
    if x >= 0 && y >= 0 && x < i64::from(image.width) && y < i64::from(image.height) {
        return Ok(());
    }
    Err(point_off(x, y, &format!("is outside the {}×{} {image_is}", image.width, image.height)))
}

/// A point of the model's space that maps to no pixel: `why` says where it lies.
pub fn point_off(x: i64, y: i64, why: &str) -> Refusal {
    Refusal::new(ErrorCode::CoordinateOutOfBounds, format!("point ({x}, {y}) {why}"))
}

/// A coordinate off a provider's grid of `0..=last`.
pub fn off_the_grid(what: &str, value: i64, provider: &str, last: i64) -> Refusal {
    Refusal::new(
        ErrorCode::CoordinateOutOfBounds,
        format!("{what} = {value} is off {provider}'s 0–{last} grid"),
    )
}

/// Where a model's screenshot showed a window: what its coordinates meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The window.
    pub window: WindowId,
    /// Its client area (root coordinates).
    pub geometry: Rect,
    /// The screenshot's size.
    pub image: Size,
}

/// The model aims by a screenshot of `basis`; `now` is the window looked
/// at again before delivery. A moved, resized or rescaled window is stale.
pub fn check_unchanged_since_screenshot(basis: Layout, now: Layout) -> Result<(), Refusal> {
    if basis.geometry == now.geometry && basis.image == now.image {
        return Ok(());
    }
    Err(Refusal::new(
        ErrorCode::LayoutChanged,
        format!(
            "the window changed since the screenshot ({:?} shown as {}×{}, now {:?} as {}×{}); take a new screenshot",
            basis.geometry, basis.image.width, basis.image.height, now.geometry, now.image.width, now.image.height
        ),
    ))
}

/// A call saved while it waited for a person resumes only on the same
/// window at the same place and size, shown at the same size.
pub fn check_resumable(saved: Layout, now: Layout) -> Result<(), Refusal> {
    if saved == now {
        return Ok(());
    }
    Err(Refusal::new(
        ErrorCode::LayoutChanged,
        format!(
            "the window changed while the call waited ({} at {:?} shown as {}×{}, now {} at {:?} as {}×{}); nothing of it was run",
            saved.window, saved.geometry, saved.image.width, saved.image.height,
            now.window, now.geometry, now.image.width, now.image.height
        ),
    ))
}

/// The gate's stale basis as a provider's contract names it
/// (`COMPUTER_LAYOUT_CHANGED`), the gate's sentence kept; any other
/// refusal unchanged.
pub fn as_layout_change(refusal: Refusal) -> Refusal {
    match refusal.code {
        ErrorCode::StaleBasis => Refusal::new(
            ErrorCode::LayoutChanged,
            format!("{}; take a new screenshot", refusal.message),
        ),
        _ => refusal,
    }
}

/// What needs screenshots under a grant that gives the tree only: `needs`
/// says what it was.
pub fn screenshots_not_granted(needs: &str) -> Refusal {
    Refusal::new(
        ErrorCode::ScopeViolation,
        format!("the grant allows the accessibility tree only; {needs}"),
    )
}

/// A task that would deliver input on a read-only host.
pub fn task_could_deliver_nothing() -> Refusal {
    Refusal::new(
        ErrorCode::ReadOnly,
        "glovebox runs read-only, so this task could deliver nothing; ask again with observe_only",
    )
}

/// An action chosen in an observe-only task.
pub fn observe_only_task() -> Refusal {
    Refusal::new(ErrorCode::ReadOnly, "this task is observe-only: answer done, ask or switch")
}

/// A provider's safety check the person did not acknowledge: `what` says
/// which, as the provider named it.
pub fn safety_check_unacknowledged(what: &str) -> Refusal {
    Refusal::new(ErrorCode::SafetyCheckUnacknowledged, format!("{what}; nothing was executed"))
}

/// A key held down across actions, which only the person's real keyboard can do.
pub fn key_held_across_actions() -> Refusal {
    Refusal::new(
        ErrorCode::BackgroundUnavailable,
        "hold_key needs the user's real keyboard: glovebox holds no key in the background across actions; press combos with key, or give a pointer action the modifiers in its text",
    )
}

/// How a parked call (a batch that waited for a person) ended without running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParkedEnd {
    /// The client cancelled it.
    Cancelled,
    /// It waited longer than `hours`.
    Expired {
        /// The longest a parked call waits.
        hours: u64,
    },
    /// The person declined it.
    Declined,
}

/// The refusal of a parked call that ended without running.
pub fn parked_call_ended(end: ParkedEnd) -> Refusal {
    match end {
        ParkedEnd::Cancelled => Refusal::new(
            ErrorCode::ApprovalDenied,
            "cancelled while it waited for the user's answer; nothing of it was delivered",
        ),
        ParkedEnd::Expired { hours } => Refusal::new(
            ErrorCode::Timeout,
            format!("it waited more than {hours} hours for the user's answer; nothing of it was delivered"),
        ),
        ParkedEnd::Declined => Refusal::new(
            ErrorCode::ApprovalDenied,
            "the user declined it while it waited; nothing of it was delivered",
        ),
    }
}

/// An element id asked `within` that the new observation does not hold.
pub fn not_in_observation_within(within: ElementId, frame: FrameId) -> Refusal {
    Refusal::new(
        ErrorCode::StaleRef,
        format!("{within} is not in the new observation (frame {frame}); observe without `within`"),
    )
}

/// A step's element, addressed by role and name, that `matches` elements
/// of the live window answer to: none, or more than one (a guess).
pub fn addressed_element(matches: usize, what: &str) -> Refusal {
    let message = match matches {
        0 => format!("no element matches {what}"),
        n => format!("{n} elements match {what}, so acting on one would be a guess"),
    };
    Refusal::new(ErrorCode::ElementNotFound, message)
}

/// No window of the recorded application `app` is open (the recording
/// worked in one titled `title`).
pub fn recorded_window_gone(app: &str, title: &str) -> Refusal {
    Refusal::new(
        ErrorCode::TargetGone,
        format!("no window of {app} is open (the recording worked in {title:?}); start it, or name one with --window"),
    )
}

/// A replayed step's text that the recording did not keep and no one gave.
pub fn recorded_text_not_given() -> Refusal {
    Refusal::new(
        ErrorCode::ApprovalRequired,
        "nothing was typed: replaying it needs the text from you, at a terminal (or record with `glovebox config set recording.text kept` to keep it)",
    )
}

/// A replayed step whose expected changes did not show: `saw` is what did.
pub fn recorded_changes_unseen(saw: String) -> Refusal {
    Refusal::new(ErrorCode::StaleBasis, saw)
}

/// A person at the terminal could not be asked to approve a waiting call.
pub fn approval_unanswered(why: &str) -> Refusal {
    Refusal::new(ErrorCode::ApprovalRequired, why)
}

/// A person at the terminal did not approve a waiting call.
pub fn approval_not_given(what_follows: &str) -> Refusal {
    Refusal::new(ErrorCode::ApprovalDenied, format!("not approved; {what_follows}"))
}

/// No model may drive this call: `why` says what the binding lacks.
pub fn model_unbound(why: &str) -> Refusal {
    Refusal::new(ErrorCode::ModelUnbound, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_a_surface_holds_decide_the_same_codes_as_the_gate() {
        let image = Size { width: 10, height: 5 };
        assert!(check_point_in_image(9, 4, image, "screenshot").is_ok());
        for (x, y) in [(10, 0), (0, 5), (-1, 0), (0, i64::MIN)] {
            let r = check_point_in_image(x, y, image, "image of frame 3").unwrap_err();
            assert_eq!(r.code, ErrorCode::CoordinateOutOfBounds);
            assert!(r.message.ends_with("image of frame 3"), "{}", r.message);
        }
        let window = WindowId { pid: 1, handle: 2 };
        let basis = Layout { window, geometry: Rect::new(0, 0, 10, 10), image };
        assert!(check_unchanged_since_screenshot(basis, basis).is_ok());
        let moved = Layout { geometry: Rect::new(1, 0, 10, 10), ..basis };
        assert_eq!(
            check_unchanged_since_screenshot(basis, moved).unwrap_err().code,
            ErrorCode::LayoutChanged
        );
        let other = Layout { window: WindowId { pid: 1, handle: 3 }, ..basis };
        assert!(check_unchanged_since_screenshot(basis, other).is_ok());
        assert_eq!(check_resumable(basis, other).unwrap_err().code, ErrorCode::LayoutChanged);
        let stale = Refusal::new(ErrorCode::StaleBasis, "moved");
        assert_eq!(as_layout_change(stale).code, ErrorCode::LayoutChanged);
        assert_eq!(parked_call_ended(ParkedEnd::Expired { hours: 24 }).code, ErrorCode::Timeout);
    }
}
