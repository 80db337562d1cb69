//! The gate's decisions about one input, as pure functions of what the host
//! knows and what was asked: no bus, no display, no clock, no lock. Which
//! checks come first, what a prompt asks, what is refused and why are read
//! here; `act.rs` carries them out in this order:
//!
//! 1. the switches and the action's own shape (`enabled`, read-only,
//!    [`glovebox_model::Action::validate`]) and a grant;
//! 2. [`admit`]: the reach and the budget; [`plan_input`]: the frame's targets, secrets
//!    a target gives away, and the one approval question;
//! 3. the approval, then the live window measured against the frame
//!    ([`check_basis`]), the absolute denials and secure input again,
//!    Stop;
//! 4. delivery, the audit, the look after it.

use crate::approval::ApprovalRequest;
use crate::frames::FrameRecord;
use crate::refuse;
use glovebox_model::{Action, ApprovalClass, DeliveryMode, ErrorCode, FrameId, Refusal, Role, Target, WindowInfo};
use glovebox_platform::{Reach, ResolvedTarget};

/// What the host knows when an input arrives, besides the frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputFacts {
    /// The bound window is on the agent display.
    pub on_agent_display: bool,
    pub allow_foreground: bool,
    pub budget_left: u32,
}

/// Role and name of each target element a frame shows, in order.
pub(crate) type Described = Vec<(Role, String)>;

/// What the gate decided an input needs before it may be delivered.
#[derive(Debug, Clone)]
pub(crate) struct InputPlan {
    /// The action's targets in global terms, in order.
    pub targets: Vec<ResolvedTarget>,
    pub described: Described,
    /// The question an approval asks (its window is added by the caller).
    pub approval: ApprovalRequest,
}

/// How far an input may reach: the agent display's own devices there,
/// else the background, or the user's devices only where allowed.
pub(crate) fn reach(facts: InputFacts, mode: DeliveryMode) -> Result<Reach, Refusal> {
    match (facts.on_agent_display, mode) {
        (true, _) => Ok(Reach::AgentDisplay),
        (false, DeliveryMode::Background) => Ok(Reach::Background),
        (false, DeliveryMode::Foreground) if facts.allow_foreground => Ok(Reach::Foreground),
        (false, DeliveryMode::Foreground) => Err(refuse(
            ErrorCode::ApprovalDenied,
            "foreground delivery (the user's real pointer and keyboard) is off in the configuration; `glovebox config set input.foreground true` allows calls to ask for it",
        )),
    }
}

/// Whether an input may be considered at all, before its frame is looked
/// up: the reach it asks for, and a budget left to pay for it.
pub(crate) fn admit(facts: InputFacts, mode: DeliveryMode) -> Result<Reach, Refusal> {
    let reach = reach(facts, mode)?;
    if facts.budget_left == 0 {
        return Err(refuse(ErrorCode::BudgetExhausted, "the grant has no input actions left"));
    }
    Ok(reach)
}

/// Everything decided about `action` on frame `frame_id`, admitted with
/// `reach`, before anyone is asked: refused here, nothing was shown to the
/// user and nothing sent.
pub(crate) fn plan_input(reach: Reach, frame_id: FrameId, frame: &FrameRecord, action: &Action) -> Result<InputPlan, Refusal> {
    let (targets, described) = resolve_targets(frame_id, frame, action)?;
    if matches!(action, Action::SetValue { .. }) && described.first().is_some_and(|(role, _)| role.is_password()) {
        return Err(refuse(ErrorCode::SecureInput, "glovebox never writes into password fields"));
    }
    let class = match reach {
        Reach::Background | Reach::AgentDisplay => ApprovalClass::Input,
        Reach::Foreground => ApprovalClass::Foreground,
    };
    let mut approval = ApprovalRequest::call(class, vec![crate::approval::describe_action(action)]);
    approval.frame = Some(frame_id);
    approval.targets = described.clone();
    approval.text_characters = action.text_length().unwrap_or(0);
    Ok(InputPlan { targets, described, approval })
}

/// The action's targets as the frame recorded them: an element id of this
/// frame, or a point inside its image (and the element under it).
fn resolve_targets(frame_id: FrameId, frame: &FrameRecord, action: &Action) -> Result<(Vec<ResolvedTarget>, Described), Refusal> {
    let mut targets = vec![];
    let mut described = vec![];
    for target in action.targets() {
        targets.push(match target {
            Target::Element(id) => match frame.elements.get(&id) {
                Some(element) => {
                    described.push((element.role, element.name.clone()));
                    ResolvedTarget::Element { id, center: element.center }
                }
                None if frame.no_tree => {
                    return Err(refuse(
                        ErrorCode::ElementNotFound,
                        format!("window {} exposes no accessibility tree, so it has no element {id}; point at image pixels instead", frame.window),
                    ))
                }
                None => return Err(refuse(ErrorCode::StaleRef, format!("{id} is not in frame {frame_id}; observe again and use the new ids"))),
            },
            Target::Point(p) => {
                let at = frame.to_global(p)?;
                let under = frame.element_at(at);
                if let Some(element) = under.and_then(|id| frame.elements.get(&id)) {
                    described.push((element.role, element.name.clone()));
                }
                ResolvedTarget::Global { at, under }
            }
        });
    }
    Ok((targets, described))
}

/// The live window still measures as the frame saw it: an input aimed
/// at a window that moved, resized or was minimised would land elsewhere.
pub(crate) fn check_basis(frame_id: FrameId, frame: &FrameRecord, window: &WindowInfo) -> Result<(), Refusal> {
    if window.geometry != frame.geometry || window.minimized {
        return Err(refuse(
            ErrorCode::StaleBasis,
            format!(
                "window {} moved, resized or was minimised since frame {frame_id} ({:?} then, {:?} now); observe again",
                window.id, frame.geometry, window.geometry
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::FrameElement;
    use glovebox_model::{Button, ElementId, Point, Rect, Size, WindowId};
    use std::collections::HashMap;

    const FRAME: FrameId = FrameId(7);

    fn frame(no_tree: bool) -> FrameRecord {
        let element =
            |role, name: &str, x| FrameElement { role, name: name.into(), visible: Some(Rect::new(x, 100, 50, 20)), center: Some(Point { x: x + 25, y: 110 }) };
        let elements: HashMap<ElementId, FrameElement> = match no_tree {
            true => HashMap::new(),
            false => [(ElementId(2), element(Role::PushButton, "OK", 100)), (ElementId(3), element(Role::PasswordText, "Password", 200))].into(),
        };
        FrameRecord {
            id: FRAME,
            window: WindowId { pid: 10, xid: 0x20 },
            revision: 1,
            geometry: Rect::new(100, 100, 400, 300),
            shown: Rect::new(100, 100, 400, 300),
            image: Size::new(400, 300),
            hit_order: elements.keys().copied().collect(),
            elements,
            no_tree,
            pixels: None,
            tree: std::sync::Arc::new(glovebox_model::AccessibilityTree {
                window: WindowId { pid: 10, xid: 0x20 },
                fidelity: glovebox_model::Fidelity::Full,
                root: None,
                node_count: 0,
                truncated: None,
                focused_password: false,
                elapsed_ms: 0,
            }),
            created: std::time::Instant::now(),
        }
    }

    fn facts() -> InputFacts {
        InputFacts { on_agent_display: false, allow_foreground: false, budget_left: 5 }
    }

    fn click(target: Target) -> Action {
        Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
    }

    fn code<T: std::fmt::Debug>(result: Result<T, Refusal>) -> ErrorCode {
        result.expect_err("a refusal").code
    }

    #[test]
    fn the_reach_follows_the_display_and_the_configuration() {
        assert_eq!(reach(facts(), DeliveryMode::Background).unwrap(), Reach::Background);
        assert_eq!(code(reach(facts(), DeliveryMode::Foreground)), ErrorCode::ApprovalDenied);
        assert_eq!(reach(InputFacts { allow_foreground: true, ..facts() }, DeliveryMode::Foreground).unwrap(), Reach::Foreground);
        // The agent display's own devices touch nothing of the user's: no switch needed.
        assert_eq!(reach(InputFacts { on_agent_display: true, ..facts() }, DeliveryMode::Foreground).unwrap(), Reach::AgentDisplay);
    }

    #[test]
    fn an_input_is_refused_before_anyone_is_asked() {
        let frame = frame(false);
        let plan = |facts, action: &Action| admit(facts, DeliveryMode::Background).and_then(|reach| plan_input(reach, FRAME, &frame, action));
        assert_eq!(code(plan(InputFacts { budget_left: 0, ..facts() }, &click(Target::Element(ElementId(2))))), ErrorCode::BudgetExhausted);
        assert_eq!(code(plan(facts(), &click(Target::Element(ElementId(9))))), ErrorCode::StaleRef);
        assert_eq!(code(plan(facts(), &click(Target::Point(Point { x: 400, y: 10 })))), ErrorCode::CoordinateOutOfBounds);
        let secret = Action::SetValue { target: Target::Element(ElementId(3)), text: "hunter2".into() };
        assert_eq!(code(plan(facts(), &secret)), ErrorCode::SecureInput);
        let no_tree = self::frame(true);
        assert_eq!(code(plan_input(Reach::Background, FRAME, &no_tree, &click(Target::Element(ElementId(2))))), ErrorCode::ElementNotFound);
    }

    #[test]
    fn the_question_names_what_the_input_touches() {
        let frame = frame(false);
        let plan = plan_input(Reach::Background, FRAME, &frame, &click(Target::Point(Point { x: 25, y: 10 }))).unwrap();
        assert_eq!(plan.described, vec![(Role::PushButton, "OK".to_owned())]);
        assert_eq!(plan.targets, vec![ResolvedTarget::Global { at: Point { x: 125, y: 110 }, under: Some(ElementId(2)) }]);
        assert_eq!(plan.approval.class(), Some(ApprovalClass::Input));
        assert_eq!(plan.approval.frame, Some(FRAME));
    }

    #[test]
    fn a_window_that_moved_is_a_stale_basis() {
        let frame = frame(false);
        let mut window = WindowInfo {
            id: frame.window,
            app: "App".into(),
            instance: "app".into(),
            title: "App".into(),
            pid_source: glovebox_model::PidSource::Server,
            geometry: frame.geometry,
            focused: false,
            minimized: false,
            desktop: glovebox_model::Desktop::User,
        };
        assert!(check_basis(FRAME, &frame, &window).is_ok());
        window.geometry.x += 1;
        assert_eq!(code(check_basis(FRAME, &frame, &window)), ErrorCode::StaleBasis);
        window.geometry = frame.geometry;
        window.minimized = true;
        assert_eq!(code(check_basis(FRAME, &frame, &window)), ErrorCode::StaleBasis);
    }
}
