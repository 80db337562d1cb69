//! The rules of approvals (disabled, observation denials, always-ask, no
//! lock held while a person is asked, consequential targets) and of images
//! (fitted screenshots, a window's pixels alone, denied windows blacked
//! out, reads outside a grant, the agent's cursor) against the fake desktop.

use super::*;

#[test]
fn fitted_observation_scales_down_to_the_callers_limits_and_points_map_back_per_axis() {
    let world = World::new("fitted");
    let host = world.host();
    // The editor is 640×480; a client that declared a 320×320 display sees it at 320×240.
    let limits = glovebox_model::CaptureLimits::new(320, 320).unwrap();
    let seen = host.observe_with(None, fitted(limits)).unwrap();
    assert_eq!(seen.frame.image, glovebox_model::Size::new(320, 240));
    let png = glovebox_platform::RgbImage::decode_png(seen.screenshot.as_ref().unwrap()).unwrap();
    assert_eq!(png.size(), seen.frame.image, "the PNG is the frame's image");
    // Never up: larger limits keep the native size; the plain observe keeps its configured limits.
    assert_eq!(
        host.observe_with(None, fitted(glovebox_model::CaptureLimits::new(4000, 4000).unwrap()))
            .unwrap()
            .frame
            .image,
        glovebox_model::Size::new(640, 480)
    );
    assert_eq!(host.observe(None, true).unwrap().frame.image, glovebox_model::Size::new(640, 480));
    assert_eq!(
        code(host.observe_with(
            None,
            fitted(glovebox_model::CaptureLimits { max_width: 0, max_height: 10 })
        )),
        ErrorCode::InvalidArgument
    );
    let seen = host.observe_with(None, fitted(limits)).unwrap();
    assert_eq!(
        code(host.act(seen.frame.id, click(Target::Point(Point { x: 320, y: 10 })))),
        ErrorCode::CoordinateOutOfBounds
    );
    // Image pixel (319, 239) is native pixels 638..640 × 478..480: its centre lands on (639, 479).
    host.act(seen.frame.id, click(Target::Point(Point { x: 319, y: 239 }))).unwrap();
    let seen = host.observe_with(None, fitted(limits)).unwrap();
    host.act(seen.frame.id, click(Target::Point(Point { x: 0, y: 0 }))).unwrap();
    let delivered = world.desktop.delivered.lock().unwrap();
    let at = |i: usize| match &delivered[i].2[0] {
        glovebox_platform::ResolvedTarget::Global { at, .. } => *at,
        other => panic!("{other:?}"),
    };
    assert_eq!(at(0), Point { x: 100 + 639, y: 100 + 479 });
    assert_eq!(at(1), Point { x: 100 + 1, y: 100 + 1 });
}

fn pixels(png: &[u8]) -> glovebox_platform::RgbImage {
    glovebox_platform::RgbImage::decode_png(png).unwrap()
}

fn colours(image: &glovebox_platform::RgbImage) -> std::collections::HashSet<[u8; 3]> {
    (0..image.height)
        .flat_map(|y| (0..image.width).map(move |x| (x, y)))
        .map(|(x, y)| image.pixel(x, y))
        .collect()
}

#[test]
fn disabled_refuses_before_anything_opens() {
    let mut world = World::new("disabled");
    world.config.enabled = false;
    assert_eq!(
        fake_host(world.desktop.clone(), World::processes(), world.config.clone())
            .err()
            .map(|e| e.code),
        Some(ErrorCode::Disabled)
    );
    assert_eq!(code(world.config.check_enabled()), ErrorCode::Disabled);
}

#[test]
fn observe_deny_refuses_every_observation_tool() {
    let mut world = World::new("observe-deny");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::Custom,
        [
            glovebox_model::Policy::Deny,
            glovebox_model::Policy::Allow,
            glovebox_model::Policy::Allow,
        ],
        &[],
    );
    let host = world.host();
    assert_eq!(code(host.list_windows(None, 1)), ErrorCode::ApprovalDenied);
    assert_eq!(code(host.observe(None, false)), ErrorCode::ApprovalDenied);
    assert_eq!(code(host.observe(None, true)), ErrorCode::ApprovalDenied);
    assert_eq!(
        code(host.switch_window(&WindowRef::Id(id(TERMINAL, 0x30)), false)),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(host.wait(glovebox_model::WaitFor::Seconds(0.5), false)),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(
            host.read_tree(&WindowRef::Id(id(EDITOR, 0x20)), glovebox_model::TreeBudget::default())
        ),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(host.read_window_pixels(
            &WindowRef::Id(id(EDITOR, 0x20)),
            glovebox_model::CaptureLimits::default()
        )),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(host.read_desktop_pixels(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits::default()
        )),
        ErrorCode::ApprovalDenied
    );
    assert!(!world.audit_text().contains("\"event\":\"observe\""), "nothing was observed");
}

#[test]
fn always_ask_with_a_declined_prompt_refuses_and_captures_nothing() {
    let mut world = World::new("always-ask");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::AlwaysAsk,
        [glovebox_model::Policy::Allow; 3],
        &[],
    );
    let asked: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let seen = asked.clone();
    let host = world.host().with_channel(Arc::new(glovebox_host::approving(
        move |r: &glovebox_host::ApprovalRequest| {
            seen.lock().unwrap().push(r.question());
            glovebox_host::Answer::Declined
        },
    )));
    assert_eq!(code(host.observe(None, true)), ErrorCode::ApprovalDenied);
    assert_eq!(code(host.list_windows(None, 1)), ErrorCode::ApprovalDenied);
    // No prompt channel at all: required, not denied.
    assert_eq!(
        code(host.with_channel(Arc::new(glovebox_host::NoPrompt)).observe(None, false)),
        ErrorCode::ApprovalRequired
    );
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 2);
    assert!(asked[0].contains("take a screenshot") && asked[0].contains("Editor"), "{}", asked[0]);
    assert!(!world.audit_text().contains("\"event\":\"observe\""), "nothing was observed");
}

/// No lock is held while a person is asked: another call of the same host
/// runs to its end meanwhile. Then the approved input is checked again and
/// delivers nothing to a window the prompt did not name.
#[test]
fn a_call_made_while_the_person_is_asked_runs_and_the_approved_input_then_checks_again() {
    let mut world = World::new("approve-act");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::Write,
        [glovebox_model::Policy::Allow; 3],
        &[],
    );
    let base = world.host();
    let seen = base.observe(None, true).unwrap();
    assert_eq!(seen.frame.window, id(EDITOR, 0x20));
    let other = base.clone();
    type Racing = Option<
        Result<Result<glovebox_host::Observation, Refusal>, std::sync::mpsc::RecvTimeoutError>,
    >;
    let racing: Arc<std::sync::Mutex<Racing>> = Arc::default();
    let slot = racing.clone();
    let questions: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let asked = questions.clone();
    let host = base.with_channel(Arc::new(glovebox_host::approving(
        move |r: &glovebox_host::ApprovalRequest| {
            asked.lock().unwrap().push(r.question());
            // While the user reads the prompt, another call rebinds the grant
            // to the terminal and observes it, and finishes before the answer.
            let other = other.clone();
            let (done, finished) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = done.send(other.switch_window(&WindowRef::Id(id(TERMINAL, 0x30)), false));
            });
            *slot.lock().unwrap() = Some(finished.recv_timeout(Duration::from_secs(10)));
            glovebox_host::Answer::Approved
        },
    )));
    let refused = host.act(seen.frame.id, click(OK_BUTTON)).unwrap_err();
    let switched = racing
        .lock()
        .unwrap()
        .take()
        .unwrap()
        .expect("the other call finished while the person was asked")
        .unwrap();
    assert_eq!(switched.frame.window, id(TERMINAL, 0x30));
    // Rebinding ended every frame of the editor.
    assert_eq!(refused.code, ErrorCode::StaleRef, "{refused}");
    assert!(
        world.desktop.delivered.lock().unwrap().is_empty(),
        "nothing delivered after the grant moved"
    );
    let questions = questions.lock().unwrap();
    assert!(
        questions[0].contains("push button \"OK\"")
            && questions[0].contains(&id(EDITOR, 0x20).to_string()),
        "{}",
        questions[0]
    );
}

/// The same for an observation: asked about one window, it reads no other.
#[test]
fn an_observation_approved_while_the_grant_moved_reads_nothing() {
    let mut world = World::new("approve-observe");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::AlwaysAsk,
        [glovebox_model::Policy::Allow; 3],
        &[],
    );
    let base = world.host();
    let approving = base.with_channel(Arc::new(glovebox_host::approving(
        |_: &glovebox_host::ApprovalRequest| glovebox_host::Answer::Approved,
    )));
    approving.observe(None, false).unwrap();
    let other = approving.clone();
    let host = base.with_channel(Arc::new(glovebox_host::approving(
        move |_: &glovebox_host::ApprovalRequest| {
            let other = other.clone();
            let (done, finished) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = done.send(other.switch_window(&WindowRef::Id(id(TERMINAL, 0x30)), false));
            });
            finished
                .recv_timeout(Duration::from_secs(10))
                .expect("the other call finished while the person was asked")
                .unwrap();
            glovebox_host::Answer::Approved
        },
    )));
    let refused = host.observe(None, true).unwrap_err();
    assert_eq!(refused.code, ErrorCode::StaleRevision, "{refused}");
}

#[test]
fn consequential_targets_ask_inside_an_approved_span_unless_shown() {
    let mut world = World::new("span");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::Write,
        [glovebox_model::Policy::Allow; 3],
        &["ok".to_owned()],
    );
    let asked: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let seen = asked.clone();
    let host = world.host().with_channel(Arc::new(glovebox_host::approving(
        move |r: &glovebox_host::ApprovalRequest| {
            seen.lock().unwrap().push(r.question());
            glovebox_host::Answer::Approved
        },
    )));
    let span = glovebox_host::Span {
        class: glovebox_model::ApprovalClass::Input,
        actions: vec!["run a task".into()],
        targets: vec![],
        typed: vec![],
        frame: None,
        detail: None,
        started_by_user: false,
    };
    let run = host.approve_span(span).unwrap();
    let first = run.observe(None, false).unwrap();
    let next = run.act(first.frame.id, Action::Type { text: "x".into() }).unwrap().next.unwrap();
    assert_eq!(
        asked.lock().unwrap().len(),
        1,
        "the span's one prompt; typing inside it asks nothing more"
    );
    run.act(next.frame.id, click(OK_BUTTON)).unwrap();
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 2, "the consequential \"OK\" asked again");
    assert!(asked[1].contains("Asking because \"OK\" reads like \"ok\""), "{}", asked[1]);
}

#[test]
fn a_window_screenshot_holds_that_window_alone_and_says_what_was_covered() {
    let world = World::new("occluded");
    // The agent host's window (frontmost) lies over the editor's top-left corner.
    world.desktop.move_window(id(AGENT_HOST, 0x10), Rect::new(0, 0, 300, 250));
    let host = world.host();
    let seen = host.observe(None, true).unwrap();
    assert_eq!(seen.frame.window, id(EDITOR, 0x20));
    assert_eq!(seen.frame.occluded, vec![Rect::new(100, 100, 200, 150)]);
    let image = pixels(seen.screenshot.as_ref().unwrap());
    let found = colours(&image);
    assert!(!found.contains(&[0x10, 0, 0]), "no pixel of the window lying over it");
    assert!(found.contains(&[0x20, 0, 0]), "the editor's own pixels");
    assert_eq!(image.pixel(10, 10), [0, 0, 0], "the covered corner is black");
    let outside = host
        .read_window_pixels(
            &WindowRef::Id(id(EDITOR, 0x20)),
            glovebox_model::CaptureLimits::default(),
        )
        .unwrap();
    assert_eq!(outside.frame.occluded, vec![Rect::new(100, 100, 200, 150)]);
    assert!(!colours(&outside.image).contains(&[0x10, 0, 0]));
}

#[test]
fn a_desktop_image_blacks_out_every_denied_window() {
    let world = World::new("desktop-redacted");
    let host = world.host();
    let capture = host
        .read_desktop_pixels(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits::new(1920, 1080).unwrap(),
        )
        .unwrap();
    let found = colours(&capture.image);
    for (denied, what) in [
        ([0x10, 0, 0], "glovebox's launcher"),
        ([0x40, 0, 0], "KeePassXC"),
        ([0x50, 0, 0], "a root tool"),
    ] {
        assert!(!found.contains(&denied), "{what} shows in the desktop image");
    }
    // The editor lies wholly under the launcher's window; the terminal reaches past it.
    assert!(found.contains(&[0x30, 0, 0]), "allowed windows show");
    assert_eq!(capture.image.pixel(10, 10), [0, 0, 0], "where the launcher's window was is black");
    assert!(!capture.frame.occluded.is_empty());
}

#[test]
fn reads_outside_a_grant_refuse_secure_input_and_denied_windows() {
    let world = World::new("reads");
    let host = world.host();
    let editor = WindowRef::Id(id(EDITOR, 0x20));
    assert!(host.read_tree(&editor, glovebox_model::TreeBudget::default()).is_ok());
    assert_eq!(
        code(
            host.read_tree(
                &WindowRef::Id(id(KEEPASS, 0x40)),
                glovebox_model::TreeBudget::default()
            )
        ),
        ErrorCode::TargetDenylisted
    );
    assert_eq!(
        code(host.read_window_pixels(
            &WindowRef::Id(id(AGENT_HOST, 0x10)),
            glovebox_model::CaptureLimits::default()
        )),
        ErrorCode::SelfTarget
    );
    *world.desktop.password_focus.lock().unwrap() = Some(id(EDITOR, 0x20));
    assert_eq!(
        code(host.read_tree(&editor, glovebox_model::TreeBudget::default())),
        ErrorCode::SecureInput
    );
    assert_eq!(
        code(host.read_window_pixels(&editor, glovebox_model::CaptureLimits::default())),
        ErrorCode::SecureInput
    );
    *world.desktop.password_focus.lock().unwrap() = None;
    assert!(
        host.read_window_pixels(&editor, glovebox_model::CaptureLimits::default()).is_ok(),
        "works again once focus leaves"
    );
}

#[test]
fn a_window_partly_off_screen_still_takes_actions() {
    let world = World::new("offscreen");
    world.desktop.move_window(id(EDITOR, 0x20), Rect::new(-100, 100, 640, 480));
    let host = world.host();
    let seen = host.observe(None, true).unwrap();
    assert_eq!(
        seen.frame.geometry,
        Rect::new(-100, 100, 640, 480),
        "the window as measured, not clipped"
    );
    assert_eq!(seen.frame.image.width, 540, "the image shows the part on screen");
    host.act(seen.frame.id, click(Target::Point(glovebox_model::Point { x: 50, y: 20 }))).unwrap();
    let delivered = world.desktop.delivered.lock().unwrap().clone();
    assert!(
        matches!(
            delivered[0].2[0],
            glovebox_platform::ResolvedTarget::Global {
                at: glovebox_model::Point { x: 50, y: 120 },
                ..
            }
        ),
        "{:?}",
        delivered[0].2
    );
}

#[derive(Default)]
struct DrawnCursor(std::sync::Mutex<Vec<String>>);

impl glovebox_platform::Presence for DrawnCursor {
    fn aim(&self, at: glovebox_model::Point) {
        self.0.lock().unwrap().push(format!("aim {} {}", at.x, at.y));
    }
    fn press(&self) {
        self.0.lock().unwrap().push("press".into());
    }
    fn hide(&self) {
        self.0.lock().unwrap().push("hide".into());
    }
}

#[test]
fn the_agents_cursor_appears_with_the_first_look_aims_before_delivery_and_goes_with_the_grant() {
    let world = World::new("cursor");
    let cursor = Arc::new(DrawnCursor::default());
    let mut backends =
        Backends::of_fake_desktop(world.desktop.clone(), Arc::new(World::processes()), PROTECTED);
    backends.presence = Some(cursor.clone());
    let host = Host::open(backends, world.config.clone()).unwrap();
    host.observe(None, false).unwrap();
    assert_eq!(*cursor.0.lock().unwrap(), ["aim 116 116"], "inside the editor's top-left corner");
    let seen = host.observe(None, false).unwrap();
    assert_eq!(cursor.0.lock().unwrap().len(), 1, "the same grant and window: the cursor stays");
    // A refused action draws nothing; a delivered one aims at the element's centre, then presses.
    assert_eq!(
        code(host.act(
            seen.frame.id,
            click(Target::Element(glovebox_model::ElementId::tree(99).unwrap()))
        )),
        ErrorCode::StaleRef
    );
    assert_eq!(cursor.0.lock().unwrap().len(), 1);
    host.act(seen.frame.id, click(OK_BUTTON)).unwrap();
    assert_eq!(cursor.0.lock().unwrap()[1..], ["aim 135 120", "press"]);
    let view = host.presence_view();
    assert_eq!(view.grant.as_ref().unwrap().budget_left, 49);
    assert!(view.recent.last().unwrap().result.starts_with("delivered by"), "{:?}", view.recent);
    host.stop().unwrap();
    assert_eq!(cursor.0.lock().unwrap().last().unwrap(), "hide");
    assert!(host.presence_view().grant.is_none() && host.presence_view().stopped);
}
