//! The gate's rules for elements seen in the pixels (pure): such an
//! element is acted on at its centre, as a point is; the application never
//! reported it, so actions that need the application's own element are
//! refused; an action on it runs only while its pixels are as the frame
//! saw them; and typing into a window that cannot say which of its fields
//! is a password asks the person, naming the window, whatever the input
//! class allows.

use crate::frames::FrameRecord;
use glovebox_model::{Action, ElementId, ErrorCode, FrameId, Rect, Refusal, Target};
use glovebox_platform::RgbImage;

/// The seen elements `action` names, with their boxes in the frame's pixels.
pub(crate) fn seen_targets(frame: &FrameRecord, action: &Action) -> Vec<(ElementId, Rect)> {
    action
        .targets()
        .into_iter()
        .filter_map(|t| match t {
            Target::Element(id) => frame.elements.get(&id).and_then(|e| e.seen).map(|b| (id, b)),
            Target::Point(_) => None,
        })
        .collect()
}

/// `set_value` and `select` work on the application's element; a seen
/// one has none behind it.
pub(crate) fn check_seen_action(frame: &FrameRecord, action: &Action) -> Result<(), Refusal> {
    let needs_element = matches!(action, Action::SetValue { .. } | Action::Select { .. });
    match seen_targets(frame, action).first() {
        Some((id, _)) if needs_element => Err(Refusal::new(
            ErrorCode::ElementNotActionable,
            format!(
                "{id} was seen in the pixels, not reported by the application, so it cannot take {}: click it, then type or press keys",
                action.kind()
            ),
        )),
        _ => Ok(()),
    }
}

/// Whether the pixels under each seen target of `action` are as frame
/// `frame_id` saw them in `now` (the window's pixels just before input).
/// Anything else (moved, redrawn, scrolled) is a stale id.
pub(crate) fn check_seen_unmoved(
    frame_id: FrameId,
    frame: &FrameRecord,
    action: &Action,
    now: Option<&RgbImage>,
) -> Result<(), Refusal> {
    let targets = seen_targets(frame, action);
    let Some((first, _)) = targets.first() else { return Ok(()) };
    let stale = |id: ElementId| {
        Refusal::new(
            ErrorCode::StaleRef,
            format!("the pixels of {id} changed since frame {frame_id} saw them; observe again and use the new ids"),
        )
    };
    let (Some(then), Some(now)) = (frame.pixels.as_deref(), now) else {
        return Err(stale(*first));
    };
    if then.size() != now.size() {
        return Err(stale(*first));
    }
    for (id, b) in targets {
        let within = b.intersection(Rect::new(0, 0, now.width, now.height));
        let Some(b) = within else { return Err(stale(id)) };
        for y in b.y as u32..b.y as u32 + b.height {
            let row = (y * now.width + b.x as u32) as usize * 3;
            let len = b.width as usize * 3;
            if then.data[row..row + len] != now.data[row..row + len] {
                return Err(stale(id));
            }
        }
    }
    Ok(())
}

/// The frame's window cannot say which of its fields is which: it has no
/// tree, or one so thin that what it shows was seen in its pixels.
pub(crate) fn fields_unknown(frame: &FrameRecord) -> bool {
    frame.no_tree || frame.tree.root.is_none() || !frame.tree.seen.is_empty()
}

/// Why typing asks the person although the input class may allow it: the
/// window has no tree (or only a thin one), so it cannot say whether the
/// focused field is a password field. A key that types a character is
/// typing too. `None` where the tree can say.
pub(crate) fn unknown_field_typing(frame: &FrameRecord, action: &Action) -> Option<String> {
    let types = super::typed_at_focus(action).is_some_and(|text| !text.is_empty());
    types.then(|| typing_asks(frame)).flatten()
}

/// Why any typing into `frame`'s window asks, if it does: the window
/// cannot say which of its fields is a password field.
pub(crate) fn typing_asks(frame: &FrameRecord) -> Option<String> {
    fields_unknown(frame).then(|| {
        format!(
            "window {} does not say which of its fields is a password field, so text typed into it is shown to you first",
            frame.window
        )
    })
}

/// `action` with each seen element it names as the point at that
/// element's centre in the frame's image: what a recording keeps, since a
/// replay looks at a fresh frame whose seen ids are new.
pub(crate) fn seen_as_points(frame: &FrameRecord, action: &Action) -> Action {
    let (sx, sy) = (
        frame.image.width as f64 / frame.shown.width.max(1) as f64,
        frame.image.height as f64 / frame.shown.height.max(1) as f64,
    );
    let targets: Vec<Target> = action
        .targets()
        .into_iter()
        .map(|target| {
            let Target::Element(id) = target else { return target };
            match frame.elements.get(&id).filter(|e| e.seen.is_some()).and_then(|e| e.center) {
                Some(c) => Target::Point(glovebox_model::Point {
                    x: ((c.x - frame.shown.x) as f64 * sx).round() as i32,
                    y: ((c.y - frame.shown.y) as f64 * sy).round() as i32,
                }),
                None => target,
            }
        })
        .collect();
    action.retargeted(&targets).unwrap_or_else(|_| action.clone())
}
