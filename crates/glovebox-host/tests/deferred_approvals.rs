//! Approvals asked across calls (DESIGN.md §7, MCP 2026-07-28): the host
//! issues a single-use token per question, bound to the call and the exact
//! question (frame included), and a retry acts only when its answer is for
//! that call. Against the fake desktop: what was delivered is its record.

use glovebox_host::{Answer, CallKey, Host, Retry};
use glovebox_model::{Action, ApprovalMode, Button, ElementId, ErrorCode, Policy, Rect, Refusal, Target, WindowId};
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
    let editor = FakeWindow { colour: [1, 2, 3], ..fake_window(WindowId { pid: EDITOR, xid: 0x20 }, "Editor", "Editor window", Rect::new(100, 100, 640, 480)) };
    let FakeWorld { desktop, host, audit_path } = fake_world(&format!("deferred-{name}"))
        .window(editor)
        .configure(|config| {
            config.approvals = glovebox_host::Approvals::new(ApprovalMode::Write, [Policy::Allow; 3], &[]);
            config.answer_wait = answer_wait;
        })
        .open();
    World { desktop, host, audit_path }
}

/// A question's token and the request state its retry echoes.
type Asked = (String, Vec<String>);

const OK: Target = Target::Element(ElementId(2));

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
    fn round(&self, call: CallKey, retry: Option<Retry>, frame: glovebox_model::FrameId) -> (Result<(), Refusal>, Option<Asked>) {
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
    assert!(code(other.clone()) == ErrorCode::ApprovalRequired && other.unwrap_err().message.contains("another call"));
    // The question it named is gone for its own call too.
    let (own, _) = w.round(key("ok"), answered(&state, &token, Answer::Approved), frame);
    assert_eq!(code(own), ErrorCode::ApprovalRequired);
    // A token the host never issued.
    let forged = "0123456789abcdef0123456789abcdef".to_owned();
    let (never, _) = w.round(key("ok"), answered(std::slice::from_ref(&forged), &forged, Answer::Approved), frame);
    assert_eq!(code(never), ErrorCode::ApprovalRequired);
    // An answer naming a question the state does not carry.
    let (_, asked) = w.round(key("ok"), None, frame);
    let (token, state) = asked.unwrap();
    let (stray, _) = w.round(key("ok"), Some(Retry { tokens: state, answers: vec![(token, Answer::Approved), (forged.clone(), Answer::Approved)] }), frame);
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
    let (_, again) = w.round(key("ok"), Some(Retry { tokens: state.clone(), answers: vec![(token.clone(), Answer::Approved)] }), new);
    assert!(again.is_none());
    assert_eq!(w.delivered(), 1, "delivered once, on the frame the user saw");
}

#[test]
fn declined_cancelled_and_expired_answers_deliver_nothing() {
    let w = world("declined", Duration::from_millis(300));
    let frame = w.host.observe(None, false).unwrap().frame.id;
    for (answer, wanted) in [(Answer::Declined, ErrorCode::ApprovalDenied), (Answer::Cancelled, ErrorCode::ApprovalDenied)] {
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
