//! The refusals of the session tools and of what a call names: a zoom
//! outside its screenshot, an application that cannot start or shows no
//! window, a read of too many elements, marks without a screenshot, the
//! person declining or not reachable for a question, and input where this
//! platform has no background route.

use glovebox_model::{ErrorCode, FrameId, Rect, Refusal, Size};
use std::time::Duration;

/// Placeholder of a batch's next frame before any step ran.
pub(crate) fn no_step_ran() -> Refusal {
    Refusal::new(ErrorCode::NoGrant, "no step ran")
}

/// Input with no input backend at all.
pub(crate) fn no_input_route() -> Refusal {
    Refusal::new(
        ErrorCode::BackgroundUnavailable,
        "this platform has no background input route yet",
    )
}

/// A zoom into a frame taken without a screenshot.
pub(crate) fn zoom_without_screenshot(frame: FrameId) -> Refusal {
    Refusal::invalid_argument(format!(
        "frame {frame} has no screenshot; observe with a screenshot first"
    ))
}

/// Whether `region` is a non-empty part of an image of `image`'s size;
/// the refusal when it is not (never clamped).
pub(crate) fn check_zoom_region(region: Rect, image: Size) -> Result<(), Refusal> {
    let whole = Rect::new(0, 0, image.width, image.height);
    if region.width == 0 || region.height == 0 || region.intersection(whole) != Some(region) {
        return Err(Refusal::new(
            ErrorCode::CoordinateOutOfBounds,
            format!(
                "zoom region {region:?} is empty or reaches outside the {}x{} image",
                image.width, image.height
            ),
        ));
    }
    Ok(())
}

/// A zoom region inside the image that maps outside the kept pixels.
pub(crate) fn zoom_maps_outside() -> Refusal {
    Refusal::new(ErrorCode::CoordinateOutOfBounds, "the zoom region maps outside the screenshot")
}

/// Whether `name` may name an application to start.
pub(crate) fn check_app_name(name: &str) -> Result<(), Refusal> {
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(Refusal::invalid_argument(
            "an application name is a desktop entry's name or an executable, without control characters",
        ));
    }
    Ok(())
}

/// This platform has no launcher.
pub(crate) fn cannot_start_apps() -> Refusal {
    Refusal::new(ErrorCode::PlatformUnsupported, "this platform cannot start applications")
}

/// A started program showed no window within `waited`.
pub(crate) fn no_window_mapped(name: &str, pid: u32, waited: Duration) -> Refusal {
    Refusal::new(
        ErrorCode::Timeout,
        format!(
            "started {name:?} as pid {pid}, but no window of it mapped within {} s",
            waited.as_secs()
        ),
    )
}

/// Whether a read names between one and `most` elements.
pub(crate) fn check_read_count(count: usize, most: usize) -> Result<(), Refusal> {
    if count == 0 || count > most {
        return Err(Refusal::invalid_argument(format!(
            "a read names 1 to {most} elements, not {count}"
        )));
    }
    Ok(())
}

/// Marks asked for without a screenshot to draw them on.
pub(crate) fn marks_without_screenshot() -> Refusal {
    Refusal::invalid_argument("marks are drawn on the screenshot: ask for screenshot too")
}

/// An answer from the page to a question it no longer shows.
pub(crate) fn no_such_question_on_page(id: u64) -> Refusal {
    Refusal::invalid_argument(format!(
        "no question {id} waits on this page (answered, withdrawn or never asked)"
    ))
}

/// The person declined the agent's question.
pub(crate) fn person_declined() -> Refusal {
    Refusal::new(ErrorCode::ApprovalDenied, "the person declined to answer")
}

/// The refusal that ends a call until its retry brings the answer to `question`.
pub(crate) fn waiting_for_answer(question: &glovebox_model::Question) -> Refusal {
    Refusal::new(
        ErrorCode::ApprovalRequired,
        format!("waiting for the person's answer to: {}", question.shown()),
    )
}

/// The agent's question reached no one.
pub(crate) fn person_unreachable(why: &str) -> Refusal {
    Refusal::new(
        ErrorCode::ApprovalRequired,
        format!("the question could not reach the person: {why}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_names_and_counts_are_checked_never_clamped() {
        let image = Size { width: 100, height: 50 };
        assert!(check_zoom_region(Rect::new(0, 0, 100, 50), image).is_ok());
        for bad in [Rect::new(0, 0, 0, 5), Rect::new(90, 0, 11, 5), Rect::new(-1, 0, 5, 5)] {
            assert_eq!(
                check_zoom_region(bad, image).unwrap_err().code,
                ErrorCode::CoordinateOutOfBounds
            );
        }
        assert!(check_app_name("gedit").is_ok());
        assert!(check_app_name(" ").is_err() && check_app_name("a\nb").is_err());
        assert!(check_read_count(1, 8).is_ok() && check_read_count(8, 8).is_ok());
        assert!(check_read_count(0, 8).is_err() && check_read_count(9, 8).is_err());
    }
}
