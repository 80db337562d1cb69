//! The rules of elements seen in the pixels, without I/O.

use super::tests::frame;
use super::*;
use crate::frames::FrameElement;
use glovebox_model::{
    Action, Button, ElementId, ErrorCode, FrameId, Rect, SeenElement, SeenKind, Target,
};
use glovebox_platform::RgbImage;

const FRAME: FrameId = FrameId(7);
const FIELD: ElementId = ElementId::seen(0);

/// A window with no tree whose pixels show one field, seen at (120, 110)
/// on screen and (20, 10) in the frame's pixels.
fn seen_frame() -> FrameRecord {
    let mut frame = frame(true);
    let element = SeenElement {
        id: FIELD,
        kind: SeenKind::Field,
        text: "Name".into(),
        bounds: Rect::new(20, 10, 100, 20),
        screen_bounds: Rect::new(120, 110, 100, 20),
    };
    let mut pixels = RgbImage::black(glovebox_model::Size::new(400, 300));
    pixels.fill(Rect::new(20, 10, 100, 20), [255, 255, 255]);
    frame.pixels = Some(std::sync::Arc::new(pixels));
    frame.elements.insert(FIELD, FrameElement::of_seen(&element, frame.shown, element.bounds));
    frame.hit_order.push(FIELD);
    let mut tree = (*frame.tree).clone();
    tree.fidelity = glovebox_model::Fidelity::None { reason: "Tk".into() };
    tree.seen = vec![element];
    frame.tree = std::sync::Arc::new(tree);
    frame
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

#[test]
fn a_seen_element_is_a_point_at_its_centre_and_no_element_of_the_application() {
    let frame = seen_frame();
    let plan =
        plan_input(Reach::Background, FRAME, &frame, &click(Target::Element(FIELD))).unwrap();
    assert_eq!(
        plan.targets,
        vec![ResolvedTarget::Global { at: glovebox_model::Point { x: 170, y: 120 }, under: None }]
    );
    assert_eq!(plan.described, vec![(glovebox_model::Role::Entry, "Name".to_owned())]);
    let set = Action::SetValue { target: Target::Element(FIELD), text: "x".into() };
    let refused = plan_input(Reach::Background, FRAME, &frame, &set).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ElementNotActionable);
    assert!(refused.message.contains("seen in the pixels"), "{refused}");
    // An id no frame of this window showed is stale, not "no tree".
    let gone =
        plan_input(Reach::Background, FRAME, &frame, &click(Target::Element(ElementId::seen(9))));
    assert_eq!(gone.unwrap_err().code, ErrorCode::StaleRef);
}

#[test]
fn a_seen_element_whose_pixels_changed_is_stale() {
    let frame = seen_frame();
    let action = click(Target::Element(FIELD));
    let same = frame.pixels.as_deref().unwrap().clone();
    seen::check_seen_unmoved(FRAME, &frame, &action, Some(&same)).unwrap();
    let mut moved = same.clone();
    moved.fill(Rect::new(60, 20, 4, 4), [0, 0, 0]);
    let refused = seen::check_seen_unmoved(FRAME, &frame, &action, Some(&moved)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::StaleRef);
    // Outside the element, a change does not matter; no picture at all is stale.
    let mut elsewhere = same.clone();
    elsewhere.fill(Rect::new(300, 200, 4, 4), [9, 9, 9]);
    seen::check_seen_unmoved(FRAME, &frame, &action, Some(&elsewhere)).unwrap();
    assert_eq!(
        seen::check_seen_unmoved(FRAME, &frame, &action, None).unwrap_err().code,
        ErrorCode::StaleRef
    );
    let resized = RgbImage::black(glovebox_model::Size::new(401, 300));
    assert!(seen::check_seen_unmoved(FRAME, &frame, &action, Some(&resized)).is_err());
}

#[test]
fn typing_where_no_field_can_be_known_asks_and_names_the_window() {
    let typed = Action::Type { text: "hunter2".into() };
    let plan = plan_input(Reach::Background, FRAME, &seen_frame(), &typed).unwrap();
    let why = plan.approval.escalation.clone().expect("typing into a window without a tree asks");
    assert!(why.contains("10/0x20") && why.contains("password"), "{why}");
    assert!(plan.approval.question().contains("hunter2"), "the person sees the text");
    assert!(!plan.approval.must_have_shown().is_empty(), "no standing approval that did not");
    // Typed one key at a time, the same.
    let key = Action::Key { combo: glovebox_model::KeyCombo::parse("4").unwrap(), repeat: 1 };
    assert!(plan_input(Reach::Background, FRAME, &seen_frame(), &key)
        .unwrap()
        .approval
        .escalation
        .is_some());
    // A browser's bare frame with its page seen in the pixels cannot say either.
    let mut bare = seen_frame();
    let mut tree = (*bare.tree).clone();
    tree.root = Some(glovebox_model::Element::new(
        ElementId::tree(1).unwrap(),
        glovebox_model::Role::Frame,
        "Page",
    ));
    bare.tree = std::sync::Arc::new(tree);
    bare.no_tree = false;
    let plan = plan_input(Reach::Background, FRAME, &bare, &typed).unwrap();
    assert!(plan.approval.escalation.is_some() && !plan.approval.must_have_shown().is_empty());
    // A click there is no typing; a window with a tree says where its password fields are.
    assert!(plan_input(Reach::Background, FRAME, &seen_frame(), &click(Target::Element(FIELD)))
        .unwrap()
        .approval
        .escalation
        .is_none());
    let mut with_tree = frame(false);
    let mut tree = (*with_tree.tree).clone();
    tree.root = Some(glovebox_model::Element::new(
        ElementId::tree(1).unwrap(),
        glovebox_model::Role::Frame,
        "App",
    ));
    with_tree.tree = std::sync::Arc::new(tree);
    with_tree.no_tree = false;
    assert!(plan_input(Reach::Background, FRAME, &with_tree, &typed)
        .unwrap()
        .approval
        .escalation
        .is_none());
}

#[test]
fn every_mode_but_yolo_asks_before_typing_where_no_field_can_be_known() {
    use crate::approval::Approvals;
    use glovebox_model::{ApprovalMode, Policy};
    for (mode, asks) in [
        (ApprovalMode::Write, Policy::Prompt),
        (ApprovalMode::AlwaysAsk, Policy::Prompt),
        // Input allowed outright still asks here: the text may be a secret.
        (ApprovalMode::Custom, Policy::Prompt),
        (ApprovalMode::Yolo, Policy::Allow),
    ] {
        assert_eq!(
            Approvals::new(mode, [Policy::Allow; 3], &[]).unknown_field_typing,
            asks,
            "{mode:?}"
        );
    }
}

#[test]
fn a_recording_keeps_a_seen_element_as_the_point_at_its_centre() {
    let frame = seen_frame();
    // The field's centre, (170, 120) on screen, is (70, 20) in the frame's image (shown from (100, 100)).
    assert_eq!(
        seen::seen_as_points(&frame, &click(Target::Element(FIELD))),
        click(Target::Point(glovebox_model::Point { x: 70, y: 20 }))
    );
    let typed = Action::Type { text: "x".into() };
    assert_eq!(seen::seen_as_points(&frame, &typed), typed);
}
