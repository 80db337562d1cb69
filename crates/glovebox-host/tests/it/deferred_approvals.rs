//! Approvals asked across calls (DESIGN.md §7, MCP 2026-07-28): the host
//! issues a single-use token per question, bound to the call and the exact
//! question (frame included), and a retry acts only when its answer is for
//! that call. Against the fake desktop: what was delivered is its record.

use glovebox_host::{Answer, CallKey, Host, Retry};
use glovebox_model::{
    Action, ApprovalMode, Button, ElementId, ErrorCode, Policy, Rect, Refusal, Target, WindowId,
};
use glovebox_platform::fake::{FakeDesktop, FakeWindow};
use glovebox_testkit::fake::{fake_window, fake_world, FakeWorld};
use std::sync::Arc;
use std::time::Duration;

const EDITOR: u32 = 1001;

struct World {
    desktop: Arc<FakeDesktop>,
    host: Host,
    audit_path: std::path::PathBuf,
}

/// One editor window; observing allowed, input asks (the default mode).
fn world(name: &str, answer_wait: Duration) -> World {
    let editor = FakeWindow {
        colour: [1, 2, 3],
        ..fake_window(
            WindowId { pid: EDITOR, handle: 0x20 },
            "Editor",
            "Editor window",
            Rect::new(100, 100, 640, 480),
        )
    };
    let FakeWorld { desktop, host, audit_path } = fake_world(&format!("deferred-{name}"))
        .window(editor)
        .configure(|config| {
            config.approvals =
                glovebox_host::Approvals::new(ApprovalMode::Write, [Policy::Allow; 3], &[]);
            config.answer_wait = answer_wait;
        })
        .open();
    World { desktop, host, audit_path }
}

/// A question's token and the request state its retry echoes.
type Asked = (String, Vec<String>);

const OK: Target = Target::Element(ElementId::tree(2).unwrap());

fn click() -> Action {
    Action::Click { target: OK, button: Button::Left, count: 1, modifiers: vec![] }
}

fn key(arguments: &str) -> CallKey {
    CallKey::new(&["client-a", "click", arguments])
}

impl World {
    fn delivered(&self) -> usize {
        self.desktop.delivered.lock().unwrap().len()
    }

    /// One round of a call: its refusal or delivery, and the question it asked, if any.
    fn round(
        &self,
        call: CallKey,
        retry: Option<Retry>,
        frame: glovebox_model::FrameId,
    ) -> (Result<(), Refusal>, Option<Asked>) {
        let (host, deferred) = match self.host.for_deferred_call(call, retry) {
            Ok(pair) => pair,
            Err(refused) => return (Err(refused), None),
        };
        let result = host.act(frame, click()).map(|_| ());
        let asked = deferred.pending().map(|pending| {
            assert_eq!(pending.questions.len(), 1);
            (pending.questions[0].token.clone(), pending.request_state)
        });
        (result, asked)
    }
}

fn answered(state: &[String], token: &str, answer: Answer) -> Option<Retry> {
    Some(Retry { tokens: state.to_vec(), answers: vec![(token.to_owned(), answer)] })
}

fn code(result: Result<(), Refusal>) -> ErrorCode {
    result.expect_err("expected a refusal").code
}

#[test]
fn a_question_ends_the_call_and_its_answer_delivers_once() {
    let w = world("once", Duration::from_secs(60));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    let (first, asked) = w.round(key("ok"), None, frame);
    assert_eq!(code(first), ErrorCode::ApprovalRequired);
    let (token, state) = asked.expect("the call asked");
    assert_eq!(w.delivered(), 0, "nothing before the answer");
    let (second, again) = w.round(key("ok"), answered(&state, &token, Answer::Approved), frame);
    second.unwrap();
    assert!(again.is_none());
    assert_eq!(w.delivered(), 1);
    // The same answer replayed, even on the same call: the question is used up.
    let frame = w.host.observe(None, false).unwrap().frame.id;
    let (replayed, _) = w.round(key("ok"), answered(&state, &token, Answer::Approved), frame);
    assert_eq!(code(replayed), ErrorCode::ApprovalRequired);
    assert_eq!(w.delivered(), 1, "a replayed answer delivers nothing");
}

#[test]
fn an_answer_for_another_call_or_never_issued_is_refused_and_burns_the_question() {
    let w = world("other", Duration::from_secs(60));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    // Other arguments (or another client): the key differs.
    let (other, _) = w.round(key("cancel"), answered(&state, &token, Answer::Approved), frame);
    assert!(
        code(other.clone()) == ErrorCode::ApprovalRequired
            && other.unwrap_err().message.contains("another call")
    );
    // The question it named is gone for its own call too.
    let (own, _) = w.round(key("ok"), answered(&state, &token, Answer::Approved), frame);
    assert_eq!(code(own), ErrorCode::ApprovalRequired);
    // A token the host never issued.
    let forged = "0123456789abcdef0123456789abcdef".to_owned();
    let (never, _) = w.round(
        key("ok"),
        answered(std::slice::from_ref(&forged), &forged, Answer::Approved),
        frame,
    );
    assert_eq!(code(never), ErrorCode::ApprovalRequired);
    // An answer naming a question the state does not carry.
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    let (stray, _) = w.round(
        key("ok"),
        Some(Retry {
            tokens: state,
            answers: vec![(token, Answer::Approved), (forged.clone(), Answer::Approved)],
        }),
        frame,
    );
    assert_eq!(code(stray), ErrorCode::InvalidArgument);
    assert_eq!(w.delivered(), 0);
}

#[test]
fn an_answer_approves_only_the_frame_it_was_asked_on() {
    let w = world("frame", Duration::from_secs(60));
    let old = w.host.observe(None, false).unwrap().frame.id;
    let (_, asked) = w.round(key("ok"), None, old);
    let (token, state) = asked.unwrap();
    // Another look makes a newer frame: the old one is no longer actionable.
    let new = w.host.observe(None, false).unwrap().frame.id;
    let (stale, _) = w.round(key("ok"), answered(&state, &token, Answer::Approved), old);
    assert_eq!(code(stale), ErrorCode::StaleRef);
    // The same call on the new frame is a new question: the old answer does not carry over.
    let (_, asked) = w.round(key("ok"), None, new);
    let (token, state) = asked.unwrap();
    let (_, again) = w.round(
        key("ok"),
        Some(Retry { tokens: state.clone(), answers: vec![(token.clone(), Answer::Approved)] }),
        new,
    );
    assert!(again.is_none());
    assert_eq!(w.delivered(), 1, "delivered once, on the frame the user saw");
}

#[test]
fn declined_cancelled_and_expired_answers_deliver_nothing() {
    let w = world("declined", Duration::from_millis(300));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    for (answer, wanted) in [
        (Answer::Declined, ErrorCode::ApprovalDenied),
        (Answer::Cancelled, ErrorCode::ApprovalDenied),
    ] {
        let (_, asked) = w.round(key("ok"), None, frame);
        let (token, state) = asked.unwrap();
        let (refused, _) = w.round(key("ok"), answered(&state, &token, answer), frame);
        assert_eq!(code(refused), wanted);
    }
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let (late, _) = w.round(key("ok"), answered(&state, &token, Answer::Approved), frame);
    assert_eq!(code(late), ErrorCode::Timeout);
    assert_eq!(w.delivered(), 0);
    let audit = std::fs::read_to_string(&w.audit_path).unwrap();
    assert!(!audit.contains(&token), "tokens never reach the audit");
}

/// The answered state, and the same state echoed without its answer.
fn both(state: &[String], token: &str) -> [Option<Retry>; 2] {
    [
        answered(state, token, Answer::Approved),
        Some(Retry { tokens: state.to_vec(), answers: vec![] }),
    ]
}

#[test]
fn a_copy_of_an_answered_state_while_its_call_runs_is_asked_again_in_either_order() {
    // Both calls begin before either acts: the copy arrives while the
    // answered retry is still running. Whichever begins first, the
    // answer delivers once and the other call is asked again.
    for (first, name) in [(0, "answered-first"), (1, "copy-first")] {
        let w = world(name, Duration::from_secs(60));
        let frame = w.host.observe(None, false).unwrap().frame.id;
        let (_, asked) = w.round(key("ok"), None, frame);
        let (token, state) = asked.unwrap();
        let mut retries = both(&state, &token);
        retries.rotate_left(first);
        let mut begun: Vec<_> = retries
            .into_iter()
            .map(|retry| {
                Some(w.host.for_deferred_call(key("ok"), retry).expect("this call's own tokens"))
            })
            .collect();
        // The copy acts first, while the frame both were asked on is still
        // the newest (the answered click ends it).
        let (copy_host, copy) = begun[1 - first].take().unwrap();
        let (answered_host, _) = begun[first].take().unwrap();
        let refused = copy_host.act(frame, click()).map(|_| ());
        answered_host.act(frame, click()).unwrap();
        assert_eq!(w.delivered(), 1, "{name}: one answer, one delivery");
        assert_eq!(code(refused), ErrorCode::ApprovalRequired, "{name}");
        let pending = copy.pending().expect("the copy is asked again");
        assert!(
            pending.request_state.iter().all(|t| !state.contains(t)),
            "{name}: asked under new tokens only"
        );
    }
}

#[test]
fn two_threads_racing_one_answered_state_deliver_once() {
    let w = world("threads", Duration::from_secs(60));
    for round in 0..20 {
        let frame = w.host.observe(None, false).unwrap().frame.id;
        let (_, asked) = w.round(key("ok"), None, frame);
        let (token, state) = asked.unwrap();
        let before = w.delivered();
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|scope| {
            for retry in both(&state, &token) {
                let (w, barrier) = (&w, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    let _ = w.round(key("ok"), retry, frame);
                });
            }
        });
        assert_eq!(w.delivered() - before, 1, "round {round}: the approval delivered once");
    }
}

#[test]
fn a_finished_retry_sent_again_is_asked_again_and_a_new_answer_delivers_once_more() {
    let w = world("again", Duration::from_secs(60));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    w.round(key("ok"), answered(&state, &token, Answer::Approved), frame).0.unwrap();
    let frame = w.host.observe(None, false).unwrap().frame.id;
    for retry in both(&state, &token) {
        let (replayed, again) = w.round(key("ok"), retry, frame);
        assert_eq!(code(replayed), ErrorCode::ApprovalRequired);
        assert!(again.is_some(), "the call is asked again");
    }
    assert_eq!(w.delivered(), 1, "a spent answer delivers nothing");
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    w.round(key("ok"), answered(&state, &token, Answer::Approved), frame).0.unwrap();
    assert_eq!(w.delivered(), 2, "a new answer delivers once more");
}

#[test]
fn a_call_that_asks_again_carries_its_answers_under_fresh_tokens() {
    let w = world("rounds", Duration::from_secs(60));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    let span = glovebox_host::Span {
        class: glovebox_model::ApprovalClass::Input,
        actions: vec!["a run of two questions".into()],
        targets: vec![],
        typed: vec![],
        frame: None,
        detail: None,
        started_by_user: false,
    };
    // One call that asks twice: its span, then (from a handle with no
    // standing) the click itself.
    let round = |retry: Option<Retry>| {
        let (host, deferred) = match w.host.for_deferred_call(key("rounds"), retry) {
            Ok(pair) => pair,
            Err(refused) => return (Err(refused), None),
        };
        let result =
            host.approve_span(span.clone()).and_then(|_| host.act(frame, click())).map(|_| ());
        (result, deferred.pending())
    };
    let (_, first) = round(None);
    let first = first.unwrap();
    let (_, second) =
        round(answered(&first.request_state, &first.questions[0].token, Answer::Approved));
    let second = second.expect("the click asks next");
    assert_eq!((second.questions.len(), second.request_state.len()), (1, 2), "{second:?}");
    assert!(
        second.request_state.iter().all(|t| !first.request_state.contains(t)),
        "the carried answer has a fresh token"
    );
    assert_eq!(w.delivered(), 0);
    // The first round's state again: spent, so asked again from the start.
    let (copy, again) =
        round(answered(&first.request_state, &first.questions[0].token, Answer::Approved));
    assert_eq!(
        (code(copy), again.map(|p| p.questions[0].question.contains("a run of two questions"))),
        (ErrorCode::ApprovalRequired, Some(true))
    );
    let last = answered(&second.request_state, &second.questions[0].token, Answer::Approved);
    let (done, asked) = round(last.clone());
    done.unwrap();
    assert!(asked.is_none());
    assert_eq!(w.delivered(), 1);
    let (copy, again) = round(last);
    assert!(
        code(copy) == ErrorCode::ApprovalRequired && again.is_some(),
        "the last round's state is spent too"
    );
    assert_eq!(w.delivered(), 1);
}

#[test]
fn a_spent_token_is_still_refused_to_another_call_and_a_forged_one_to_any() {
    let w = world("spent-other", Duration::from_secs(60));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    w.round(key("ok"), answered(&state, &token, Answer::Approved), frame).0.unwrap();
    let (other, again) = w.round(key("cancel"), answered(&state, &token, Answer::Approved), frame);
    let other = other.unwrap_err();
    assert!(
        other.code == ErrorCode::ApprovalRequired
            && other.message.contains("another call")
            && again.is_none(),
        "{other:?}"
    );
    let forged = "0123456789abcdef0123456789abcdef".to_owned();
    for retry in both(std::slice::from_ref(&forged), &forged) {
        let (never, again) = w.round(key("ok"), retry, frame);
        let never = never.unwrap_err();
        assert!(never.message.contains("not open") && again.is_none(), "{never:?}");
    }
    assert_eq!(w.delivered(), 1);
}
