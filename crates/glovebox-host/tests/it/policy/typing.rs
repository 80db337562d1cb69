//! One rule for text an agent types, whatever the path (`type`, a key at a
//! time, a batch, a span's steps): every question shows the text; typing
//! into a window that cannot say which field is a password field asks in
//! every mode but yolo; and a span's approval covers such typing only when
//! its question showed that very text. Against the fake desktop, with the
//! editor exposing no tree (as a Tk form or xterm does).

use super::*;
use glovebox_host::{Answer, ApprovalRequest, Approvals};
use glovebox_model::{ApprovalMode, KeyCombo, Policy};
use std::sync::Mutex;

const EDITOR_WINDOW: WindowId = WindowId { pid: EDITOR, handle: 0x20 };

/// A world whose editor has no tree, in approval `mode` (`custom` with
/// every class allowed), and a host whose person answers `answer` to
/// every question about input (and yes to looking), recording each.
fn treeless(
    name: &str,
    mode: ApprovalMode,
    answer: Answer,
) -> (World, Host, Arc<Mutex<Vec<String>>>) {
    let mut world = World::new(name);
    world.config.approvals = Approvals::new(mode, [Policy::Allow; 3], &[]);
    world.desktop.treeless.lock().unwrap().insert(EDITOR_WINDOW);
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let questions = asked.clone();
    let host = world.host().with_channel(Arc::new(glovebox_host::approving(
        move |r: &ApprovalRequest| {
            if r.class() == Some(glovebox_model::ApprovalClass::Observe) {
                return Answer::Approved;
            }
            questions.lock().unwrap().push(r.question());
            answer.clone()
        },
    )));
    (world, host, asked)
}

fn key(combo: &str) -> Action {
    Action::Key { combo: KeyCombo::parse(combo).unwrap(), repeat: 1 }
}

fn delivered(world: &World) -> usize {
    world.desktop.delivered.lock().unwrap().len()
}

#[test]
fn a_batch_into_a_window_without_a_tree_shows_its_text_and_asks_once_in_every_mode() {
    for mode in [ApprovalMode::Write, ApprovalMode::Custom, ApprovalMode::AlwaysAsk] {
        let (world, host, asked) = treeless("typing-batch", mode, Answer::Declined);
        let seen = host.observe(None, false).unwrap();
        assert_eq!(seen.frame.window, EDITOR_WINDOW);
        let steps = vec![Action::Type { text: "echo pwned > /tmp/x".into() }, key("Return")];
        let refused = host.batch(seen.frame.id, steps.clone(), DeliveryMode::Background);
        assert_eq!(code(refused), ErrorCode::ApprovalDenied, "{mode:?}");
        assert_eq!(delivered(&world), 0, "{mode:?}: declined, nothing typed");
        let questions = asked.lock().unwrap().clone();
        assert_eq!(questions.len(), 1, "{mode:?}: {questions:?}");
        assert!(
            questions[0].contains(": \"echo pwned > /tmp/x\"")
                && questions[0].contains("does not say which of its fields is a password field"),
            "{mode:?}: {}",
            questions[0]
        );

        // Approved, the batch's one question covers its steps: asked once, both delivered.
        let (world, host, asked) = treeless("typing-batch-yes", mode, Answer::Approved);
        let seen = host.observe(None, false).unwrap();
        let done = host.batch(seen.frame.id, steps, DeliveryMode::Background).unwrap();
        assert!(done.failed.is_none(), "{mode:?}: {:?}", done.failed);
        assert_eq!(delivered(&world), 2, "{mode:?}");
        assert_eq!(asked.lock().unwrap().len(), 1, "{mode:?}: {:?}", asked.lock().unwrap());
    }
}

#[test]
fn a_click_then_a_pin_typed_into_a_window_without_a_tree_shows_the_pin_and_the_warning() {
    let (world, host, asked) = treeless("typing-pin", ApprovalMode::Write, Answer::Declined);
    let seen = host.observe(None, false).unwrap();
    let steps =
        vec![click(Target::Point(Point { x: 20, y: 20 })), Action::Type { text: "4321".into() }];
    assert_eq!(
        code(host.batch(seen.frame.id, steps, DeliveryMode::Background)),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(delivered(&world), 0);
    let questions = asked.lock().unwrap();
    assert!(
        questions[0].contains("\"4321\"") && questions[0].contains("password field"),
        "{}",
        questions[0]
    );
}

#[test]
fn keys_that_type_characters_ask_as_typing_does() {
    let (world, host, asked) = treeless("typing-keys", ApprovalMode::Custom, Answer::Declined);
    let seen = host.observe(None, false).unwrap();
    assert_eq!(
        code(host.act(seen.frame.id, Action::Type { text: "4321".into() })),
        ErrorCode::ApprovalDenied
    );
    for digit in ["4", "3", "2", "1", "shift+a", "space"] {
        let seen = host.observe(None, false).unwrap();
        assert_eq!(code(host.act(seen.frame.id, key(digit))), ErrorCode::ApprovalDenied, "{digit}");
    }
    assert_eq!(delivered(&world), 0, "not one character typed");
    let questions = asked.lock().unwrap().clone();
    assert_eq!(questions.len(), 7, "{questions:?}");
    assert!(
        questions[1].contains("press 4") && questions[1].contains(": \"4\""),
        "{}",
        questions[1]
    );
    assert!(questions[5].contains(": \"A\""), "{}", questions[5]);
    // A key that types nothing is not typing: the class allows it.
    let seen = host.observe(None, false).unwrap();
    host.act(seen.frame.id, key("Return")).unwrap();
    let seen = host.observe(None, false).unwrap();
    host.act(seen.frame.id, key("ctrl+z")).unwrap();
    assert_eq!(delivered(&world), 2);
    assert_eq!(asked.lock().unwrap().len(), 7);
}

#[test]
fn a_standing_approval_covers_no_text_its_question_did_not_show() {
    let (world, host, asked) = treeless("typing-span", ApprovalMode::Write, Answer::Approved);
    let span = glovebox_host::Span {
        class: glovebox_model::ApprovalClass::Input,
        actions: vec!["run the instruction \"tidy up\"".into()],
        targets: vec![],
        typed: vec![],
        frame: None,
        detail: None,
        started_by_user: false,
    };
    let run = host.approve_span(span).unwrap();
    let seen = run.observe(None, false).unwrap();
    let next =
        run.act(seen.frame.id, Action::Type { text: "rm -rf ~".into() }).unwrap().next.unwrap();
    run.act(next.frame.id, key("Return")).unwrap();
    let questions = asked.lock().unwrap().clone();
    assert_eq!(questions.len(), 2, "the run's question, then the typing's: {questions:?}");
    assert!(questions[1].contains("\"rm -rf ~\""), "{}", questions[1]);
    assert_eq!(delivered(&world), 2);
    // Where the tree says which field is which, the run's approval covers typing.
    world.desktop.treeless.lock().unwrap().clear();
    let seen = run.observe(None, false).unwrap();
    run.act(seen.frame.id, Action::Type { text: "notes".into() }).unwrap();
    assert_eq!(asked.lock().unwrap().len(), 2);
}
