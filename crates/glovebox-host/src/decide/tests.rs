use super::*;
use crate::frames::FrameElement;
use glovebox_model::{Point, Rect, Size};
use std::collections::HashMap;

const FRAME: FrameId = FrameId(7);

pub(super) fn frame(no_tree: bool) -> FrameRecord {
    let element = |role, name: &str, x| FrameElement {
        role,
        name: name.into(),
        visible: Some(Rect::new(x, 100, 50, 20)),
        center: Some(Point { x: x + 25, y: 110 }),
        seen: None,
    };
    let elements: HashMap<ElementId, FrameElement> = match no_tree {
        true => HashMap::new(),
        false => [
            (ElementId::tree(2).unwrap(), element(Role::PushButton, "OK", 100)),
            (ElementId::tree(3).unwrap(), element(Role::PasswordText, "Password", 200)),
        ]
        .into(),
    };
    FrameRecord {
        id: FRAME,
        window: glovebox_model::WindowId { pid: 10, handle: 0x20 },
        revision: 1,
        geometry: Rect::new(100, 100, 400, 300),
        shown: Rect::new(100, 100, 400, 300),
        image: Size::new(400, 300),
        hit_order: elements.keys().copied().collect(),
        elements,
        no_tree,
        pixels: None,
        tree: std::sync::Arc::new(glovebox_model::AccessibilityTree {
            window: glovebox_model::WindowId { pid: 10, handle: 0x20 },
            fidelity: glovebox_model::Fidelity::Full,
            root: None,
            node_count: 0,
            truncated: None,
            focused_password: false,
            elapsed_ms: 0,
            seen: vec![],
            seen_omitted: 0,
            guidance: None,
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
    assert_eq!(
        reach(InputFacts { allow_foreground: true, ..facts() }, DeliveryMode::Foreground).unwrap(),
        Reach::Foreground
    );
    // The agent display's own devices touch nothing of the user's: no switch needed.
    assert_eq!(
        reach(InputFacts { on_agent_display: true, ..facts() }, DeliveryMode::Foreground).unwrap(),
        Reach::AgentDisplay
    );
}

#[test]
fn an_input_is_refused_before_anyone_is_asked() {
    let frame = frame(false);
    let plan = |facts, action: &Action| {
        admit(facts, DeliveryMode::Background)
            .and_then(|reach| plan_input(reach, FRAME, &frame, action))
    };
    assert_eq!(
        code(plan(
            InputFacts { budget_left: 0, ..facts() },
            &click(Target::Element(ElementId::tree(2).unwrap()))
        )),
        ErrorCode::BudgetExhausted
    );
    assert_eq!(
        code(plan(facts(), &click(Target::Element(ElementId::tree(9).unwrap())))),
        ErrorCode::StaleRef
    );
    assert_eq!(
        code(plan(facts(), &click(Target::Point(Point { x: 400, y: 10 })))),
        ErrorCode::CoordinateOutOfBounds
    );
    let secret = Action::SetValue {
        target: Target::Element(ElementId::tree(3).unwrap()),
        text: "hunter2".into(),
    };
    assert_eq!(code(plan(facts(), &secret)), ErrorCode::SecureInput);
    let no_tree = self::frame(true);
    assert_eq!(
        code(plan_input(
            Reach::Background,
            FRAME,
            &no_tree,
            &click(Target::Element(ElementId::tree(2).unwrap()))
        )),
        ErrorCode::ElementNotFound
    );
}

#[test]
fn the_question_names_what_the_input_touches() {
    let frame = frame(false);
    let plan =
        plan_input(Reach::Background, FRAME, &frame, &click(Target::Point(Point { x: 25, y: 10 })))
            .unwrap();
    assert_eq!(plan.described, vec![(Role::PushButton, "OK".to_owned())]);
    assert_eq!(
        plan.targets,
        vec![ResolvedTarget::Global {
            at: Point { x: 125, y: 110 },
            under: Some(ElementId::tree(2).unwrap())
        }]
    );
    assert_eq!(plan.approval.class(), Some(ApprovalClass::Input));
    assert_eq!(plan.approval.frame, Some(FRAME));
}

fn middle(target: Target) -> Action {
    Action::Click { target, button: Button::Middle, count: 1, modifiers: vec![] }
}

fn key(combo: &str) -> Action {
    Action::Key { combo: combo.parse().unwrap(), repeat: 1 }
}

/// A frame whose tree focuses element `focus`, with a password field
/// (e3) holding a child (e4, as a browser exposes the field's text).
fn focused_frame(focus: ElementId) -> FrameRecord {
    let mut frame = frame(false);
    let mut field = Element::new(ElementId::tree(3).unwrap(), Role::PasswordText, "Password");
    field.children.push(Element::new(ElementId::tree(4).unwrap(), Role::Text, ""));
    let mut root = Element::new(ElementId::tree(1).unwrap(), Role::Frame, "App");
    root.children = vec![Element::new(ElementId::tree(2).unwrap(), Role::PushButton, "OK"), field];
    set_focus(&mut root, focus);
    let mut tree = (*frame.tree).clone();
    tree.root = Some(root);
    frame.tree = std::sync::Arc::new(tree);
    frame.elements.insert(
        ElementId::tree(4).unwrap(),
        FrameElement {
            role: Role::Text,
            name: String::new(),
            visible: Some(Rect::new(205, 102, 10, 10)),
            center: None,
            seen: None,
        },
    );
    frame
}

fn set_focus(e: &mut Element, focus: ElementId) {
    if e.id == focus {
        e.states.insert(ElementState::Focused);
    }
    for c in &mut e.children {
        set_focus(c, focus);
    }
}

#[test]
fn nothing_is_pasted_or_dropped_into_a_password_field() {
    let frame = frame(false);
    let plan = |action: &Action| plan_input(Reach::Background, FRAME, &frame, action);
    let over_password = Target::Point(Point { x: 125, y: 10 });
    let over_ok = Target::Point(Point { x: 25, y: 10 });
    // A middle click on the (unfocused) field, by point or by id, any count or modifiers.
    assert_eq!(code(plan(&middle(over_password))), ErrorCode::SecureInput);
    assert_eq!(
        code(plan(&middle(Target::Element(ElementId::tree(3).unwrap())))),
        ErrorCode::SecureInput
    );
    let double = Action::Click {
        target: over_password,
        button: Button::Middle,
        count: 2,
        modifiers: vec![glovebox_model::ModifierKey::Ctrl],
    };
    assert_eq!(code(plan(&double)), ErrorCode::SecureInput);
    // The refusal is set_value's: one rule, one code, the same words.
    let refused = plan(&middle(over_password)).unwrap_err();
    let set_value = plan(&Action::SetValue {
        target: Target::Element(ElementId::tree(3).unwrap()),
        text: "x".into(),
    })
    .unwrap_err();
    assert!(
        refused.message.starts_with(&set_value.message),
        "{} / {}",
        refused.message,
        set_value.message
    );
    // A drag whose drop end is the field; one that starts there drops elsewhere.
    let drag = |from, to| Action::Drag { from, to, modifiers: vec![] };
    assert_eq!(code(plan(&drag(over_ok, over_password))), ErrorCode::SecureInput);
    assert!(plan(&drag(over_password, over_ok)).is_ok());
    // Other buttons, and a middle click elsewhere, go ahead.
    assert!(plan(&click(over_password)).is_ok(), "a left click only focuses the field");
    assert!(plan(&middle(over_ok)).is_ok());
    // A tree that covers no element at the point cannot rule a field out.
    assert_eq!(
        code(plan(&middle(Target::Point(Point { x: 390, y: 290 })))),
        ErrorCode::SecureInput
    );
    assert!(plan(&click(Target::Point(Point { x: 390, y: 290 }))).is_ok());
    // A window without any tree: nothing to know, as typing there.
    assert!(plan_input(
        Reach::Background,
        FRAME,
        &self::frame(true),
        &middle(Target::Point(Point { x: 125, y: 10 }))
    )
    .is_ok());
}

#[test]
fn a_paste_into_a_focused_password_field_or_its_child_is_refused() {
    for combo in ["ctrl+v", "ctrl+V", "ctrl+shift+v", "shift+Insert", "ctrl+shift+Insert"] {
        assert!(pastes(&combo.parse().unwrap()), "{combo}");
        let frame = focused_frame(ElementId::tree(3).unwrap());
        assert_eq!(
            code(plan_input(Reach::Background, FRAME, &frame, &key(combo))),
            ErrorCode::SecureInput,
            "{combo}"
        );
    }
    for combo in ["v", "shift+v", "ctrl+c", "Insert", "ctrl+Insert", "alt+v"] {
        assert!(!pastes(&combo.parse().unwrap()), "{combo}");
    }
    // Focus elsewhere, or none known (the live probe decides then): the chord goes.
    assert!(plan_input(
        Reach::Background,
        FRAME,
        &focused_frame(ElementId::tree(2).unwrap()),
        &key("ctrl+v")
    )
    .is_ok());
    assert!(plan_input(Reach::Background, FRAME, &frame(false), &key("ctrl+v")).is_ok());
    // Inside the field counts as the field.
    let frame = focused_frame(ElementId::tree(4).unwrap());
    assert_eq!(
        code(plan_input(Reach::Background, FRAME, &frame, &key("shift+Insert"))),
        ErrorCode::SecureInput
    );
    assert_eq!(
        code(plan_input(
            Reach::Background,
            FRAME,
            &frame,
            &middle(Target::Element(ElementId::tree(4).unwrap()))
        )),
        ErrorCode::SecureInput
    );
}

#[test]
fn secure_input_refuses_what_it_guards_and_names_the_grab_first() {
    for guarded in [Guarded::Read, Guarded::Input, Guarded::AgentDisplayView] {
        assert!(check_secure_input(SecureInput::of(false, false), guarded).is_ok());
        for now in [SecureInput::KeyboardGrab, SecureInput::PasswordFocus] {
            assert_eq!(
                check_secure_input(Some(now), guarded).unwrap_err().code,
                ErrorCode::SecureInput
            );
        }
    }
    let password = check_secure_input(SecureInput::of(false, true), Guarded::Read).unwrap_err();
    assert!(password.message.contains("password field has focus"), "{}", password.message);
    // The grab is named first: it covers every window.
    assert_eq!(SecureInput::of(true, true), Some(SecureInput::KeyboardGrab));
    assert!(check_secure_input(SecureInput::of(true, false), Guarded::Read)
        .unwrap_err()
        .message
        .contains("holds the keyboard"));
    assert!(check_secure_input(SecureInput::of(false, true), Guarded::Input)
        .unwrap_err()
        .message
        .contains("types nothing"));
}

#[test]
fn a_denied_window_is_refused_with_its_denials_code_and_sentence() {
    assert!(check_not_denied(None).is_ok());
    let denial = Denial::Elevated { uid: 0 };
    let refusal = check_not_denied(Some(denial.clone())).unwrap_err();
    assert_eq!((refusal.code, refusal.message), (denial.code(), denial.sentence()));
}

#[test]
fn a_grant_pays_with_its_budget_stays_in_its_scope_and_shows_pixels_it_allows() {
    assert!(check_budget(1).is_ok());
    assert_eq!(check_budget(0).unwrap_err().code, ErrorCode::BudgetExhausted);
    // The last action delivered closes the grant; one left keeps it open.
    assert_eq!(budget_spent(1), None);
    assert_eq!(budget_spent(0).map(|r| r.code), Some(ErrorCode::BudgetExhausted));
    assert!(check_may_move(Scope::Desktop, "another").is_ok());
    let pinned = check_may_move(Scope::Window, "a new application").unwrap_err();
    assert_eq!(pinned.code, ErrorCode::ScopeViolation);
    assert!(pinned.message.ends_with("cannot move to a new application"), "{}", pinned.message);
    assert!(check_pixels(CaptureMode::A11yAndPixels, None).is_ok());
    assert_eq!(
        check_pixels(CaptureMode::A11yOnly, None).unwrap_err().code,
        ErrorCode::ScopeViolation
    );
    let missing =
        check_pixels(CaptureMode::A11yOnly, Some("no compositor to capture from")).unwrap_err();
    assert_eq!(missing.code, ErrorCode::BackendUnavailable);
    assert!(missing.message.contains("no compositor to capture from"), "{}", missing.message);
}

#[test]
fn a_calls_approval_class_follows_its_input_and_whose_devices_it_uses() {
    assert_eq!(approval_class(false, true), ApprovalClass::Observe);
    assert_eq!(approval_class(true, false), ApprovalClass::Input);
    assert_eq!(approval_class(true, true), ApprovalClass::Foreground);
    let on_agent_display = plan_input(
        Reach::AgentDisplay,
        FRAME,
        &frame(false),
        &click(Target::Element(ElementId::tree(2).unwrap())),
    )
    .unwrap();
    assert_eq!(
        on_agent_display.approval.class(),
        Some(ApprovalClass::Input),
        "the agent display's own devices are not the user's"
    );
}

#[test]
fn open_url_reaches_the_web_and_local_addresses_only_where_allowed() {
    assert_eq!(
        web_address("https://user@example.org:8080/a?b#c", false).unwrap(),
        "https://example.org:8080"
    );
    assert_eq!(code(web_address("file:///etc/passwd", false)), ErrorCode::ScopeViolation);
    assert_eq!(web_address("file:///tmp/page.html", true).unwrap(), "file:");
    for bad in ["", "https://exa mple.org", "example.org", "1http://x", "https://"] {
        assert_eq!(code(web_address(bad, false)), ErrorCode::InvalidArgument, "{bad:?}");
    }
}

#[test]
fn a_password_fields_value_is_never_read() {
    assert!(check_readable(ElementId::tree(3).unwrap(), Role::Entry).is_ok());
    let refusal = check_readable(ElementId::tree(3).unwrap(), Role::PasswordText).unwrap_err();
    assert_eq!(refusal.code, ErrorCode::SecureInput);
    assert!(refusal.message.contains("never reads one"), "{}", refusal.message);
}

#[test]
fn a_listing_shows_secure_input_where_it_holds() {
    let fixed = Denial::Elevated { uid: 0 };
    assert_eq!(
        listed_denial(Some(fixed.clone()), Some(true), Some(true)),
        Some(fixed),
        "a fixed denial stays first"
    );
    let shown = listed_denial(None, Some(false), Some(true)).expect("password focus shown");
    assert_eq!(shown.code(), ErrorCode::SecureInput);
    assert!(shown.sentence().contains("a password field has focus"), "{}", shown.sentence());
    assert_eq!(
        listed_denial(None, Some(true), None).map(|d| d.code()),
        Some(ErrorCode::SecureInput)
    );
    assert_eq!(listed_denial(None, Some(false), Some(false)), None);
    assert_eq!(
        listed_denial(None, None, None),
        None,
        "a failed probe shows nothing; reads probe again"
    );
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

#[test]
fn typed_text_is_shown_and_a_terminal_or_a_window_without_a_tree_must_have_shown_it() {
    use crate::approval::{ShownBecause, Typed};
    let typed = Action::Type { text: "DISPLAY=:0 xdotool mousemove 7 7\n".into() };
    let mut terminal = focused_frame(ElementId::tree(4).unwrap());
    terminal.elements.get_mut(&ElementId::tree(4).unwrap()).unwrap().role = Role::Terminal;
    assert_eq!(typed_into(&terminal, &typed), Some(ShownBecause::Terminal));
    let plan = plan_input(Reach::AgentDisplay, FRAME, &terminal, &typed).unwrap();
    let question = plan.approval.question();
    assert!(
        question.contains(r#"into a terminal: "DISPLAY=:0 xdotool mousemove 7 7\n""#),
        "{question}"
    );
    assert!(
        !plan.approval.question_without_text().contains("xdotool"),
        "what is kept or told the agent has the length only"
    );
    assert_eq!(typed_into(&frame(true), &typed), Some(ShownBecause::NoTree));
    // A text field: shown, but no standing approval needs to have shown it.
    let field = focused_frame(ElementId::tree(4).unwrap());
    assert!(typed_into(&field, &typed).is_none());
    let plan = plan_input(Reach::Background, FRAME, &field, &typed).unwrap();
    assert!(plan.approval.question().contains("xdotool mousemove"));
    assert!(plan.approval.must_have_shown().is_empty());
    let set =
        Action::SetValue { target: Target::Element(ElementId::tree(4).unwrap()), text: "x".into() };
    assert!(typed_into(&terminal, &set).is_none());
    assert_eq!(
        plan_input(Reach::Background, FRAME, &field, &set).unwrap().approval.typed,
        vec![Typed::Text("x".into())]
    );
    // A key that types a character types, one at a time; a chord does not.
    let four = Action::Key { combo: glovebox_model::KeyCombo::parse("4").unwrap(), repeat: 2 };
    assert_eq!(typed_into(&frame(true), &four), Some(ShownBecause::NoTree));
    let plan = plan_input(Reach::Background, FRAME, &frame(true), &four).unwrap();
    assert_eq!(plan.approval.must_have_shown(), &[Typed::Text("44".into())]);
    assert!(plan.approval.question().contains(": \"44\""), "{}", plan.approval.question());
    let enter = Action::Key { combo: glovebox_model::KeyCombo::parse("Enter").unwrap(), repeat: 1 };
    assert!(typed_into(&frame(true), &enter).is_none());
    let copy = Action::Key { combo: glovebox_model::KeyCombo::parse("ctrl+c").unwrap(), repeat: 1 };
    assert!(typed_into(&frame(true), &copy).is_none());
    let long = Action::Type { text: "a".repeat(400) };
    assert!(plan_input(Reach::AgentDisplay, FRAME, &terminal, &long)
        .unwrap()
        .approval
        .question()
        .contains("and 100 more character(s)"));
}

#[test]
fn while_the_person_has_the_agent_display_every_agent_call_is_paused() {
    assert!(check_not_paused(false).is_ok());
    let paused = check_not_paused(true).unwrap_err();
    assert_eq!(paused.code, ErrorCode::PausedByUser);
    assert!(
        paused.message.contains("nothing was done") && paused.message.contains("observe again")
    );
}
