//! `Host::ask_user` on the fake desktop: with no channel and no indicator
//! page it is refused at once; on the page it waits for the person's answer
//! (or their decline, or the bounded wait), and the audit keeps the
//! question and that it was answered, never a private answer.

use glovebox_host::{Answer, Answered};
use glovebox_model::{ErrorCode, Question};
use glovebox_testkit::fake::fake_world;
use std::time::{Duration, Instant};

/// The question the page shows, once it shows one.
fn shown_on_page(host: &glovebox_host::Host) -> glovebox_host::presence::PageQuestion {
    loop {
        if let Some(q) = host.presence_view().question {
            return q;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn question(text: &str) -> Question {
    Question { text: text.into(), choices: vec![] }
}

#[test]
fn with_no_channel_at_all_the_question_is_refused_at_once() {
    let world = fake_world("ask-nowhere").open();
    let started = Instant::now();
    let refused = world.host.ask_user(&question("Which file?")).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ApprovalRequired, "{refused}");
    assert!(refused.message.contains("no indicator page"), "{refused}");
    assert!(started.elapsed() < Duration::from_secs(1), "no wait without a channel");
}

#[test]
fn the_indicator_page_asks_when_nothing_else_can_and_keeps_a_private_answer_private() {
    let world =
        fake_world("ask-page").configure(|c| c.answer_wait = Duration::from_secs(10)).open();
    let host = world.host.clone();
    host.set_indicator_url("http://127.0.0.1:1/?token=test".into());
    let asking = {
        let host = host.clone();
        std::thread::spawn(move || host.ask_user(&question("The code from your phone?")))
    };
    let shown = shown_on_page(&host);
    assert_eq!(shown.text, "The code from your phone?");
    // An answer to another question is refused and changes nothing.
    assert!(host.answer_on_page(shown.id + 1, Answer::Declined).is_err());
    host.answer_on_page(shown.id, Answer::Given { text: "731 002".into(), private: true }).unwrap();
    let answered = asking.join().unwrap().unwrap();
    assert_eq!(answered, Answered { text: "731 002".into(), private: true });
    assert_eq!(host.presence_view().question, None, "the page no longer shows it");
    let audit = std::fs::read_to_string(&world.audit_path).unwrap();
    assert!(
        audit.contains("The code from your phone?") && audit.contains("kept the answer private")
    );
    assert!(!audit.contains("731 002"), "a private answer reached the audit");

    // Declined on the page, and no answer within the wait: each refused with its code.
    let declining = {
        let host = host.clone();
        std::thread::spawn(move || host.ask_user(&question("Pay now?")))
    };
    let shown = shown_on_page(&host);
    host.answer_on_page(shown.id, Answer::Declined).unwrap();
    assert_eq!(declining.join().unwrap().unwrap_err().code, ErrorCode::ApprovalDenied);
}

#[test]
fn no_answer_on_the_page_within_the_wait_is_refused() {
    let world =
        fake_world("ask-wait").configure(|c| c.answer_wait = Duration::from_millis(300)).open();
    world.host.set_indicator_url("http://127.0.0.1:1/?token=test".into());
    let refused = world.host.ask_user(&question("Still there?")).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ApprovalRequired);
    assert!(refused.message.contains("no answer on the indicator page"), "{refused}");
    assert_eq!(world.host.presence_view().question, None);
}

#[test]
fn the_handles_channel_answers_and_one_that_reaches_no_one_leaves_the_page() {
    let world =
        fake_world("ask-channel").configure(|c| c.answer_wait = Duration::from_secs(10)).open();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
    let channel = {
        let asked = asked.clone();
        move |request: glovebox_host::Request<'_>| {
            asked.lock().unwrap().push(request.shown());
            match request {
                glovebox_host::Request::Ask(_) => {
                    Answer::Given { text: "blue".into(), private: false }
                }
                _ => Answer::Declined,
            }
        }
    };
    let host = world.host.with_channel(std::sync::Arc::new(channel));
    let question = Question { text: "Which colour?".into(), choices: vec!["Blue".into()] };
    let answered = host.ask_user(&question).unwrap();
    assert_eq!(answered.text, "Blue", "a choice is spelt as offered");
    assert_eq!(asked.lock().unwrap().len(), 1);
    assert!(asked.lock().unwrap()[0].contains("Which colour?"));
    // A yes or no where a text is wanted answers nothing.
    let yes = world
        .host
        .with_channel(std::sync::Arc::new(|_: glovebox_host::Request<'_>| Answer::Approved));
    assert_eq!(yes.ask_user(&question).unwrap_err().code, ErrorCode::ApprovalRequired);

    // A channel that reaches no one: the page asks instead.
    let nobody = world.host.with_channel(std::sync::Arc::new(glovebox_host::NoPrompt));
    nobody.set_indicator_url("http://127.0.0.1:1/?token=test".into());
    let asking = {
        let nobody = nobody.clone();
        std::thread::spawn(move || nobody.ask_user(&question))
    };
    let shown = shown_on_page(&nobody);
    nobody.answer_on_page(shown.id, Answer::Given { text: "blue".into(), private: false }).unwrap();
    assert_eq!(asking.join().unwrap().unwrap().text, "Blue");
}

#[test]
fn across_calls_the_question_waits_in_the_hosts_store_and_its_retry_brings_the_answer() {
    let world = fake_world("ask-across").open();
    let key = glovebox_host::CallKey::new(&["client", "ask_user", "{\"question\":\"Code?\"}"]);
    let (host, call) = world.host.for_deferred_call(key.clone(), None).unwrap();
    let waiting = host.ask_user(&question("Code?")).unwrap_err();
    assert_eq!(waiting.code, ErrorCode::ApprovalRequired, "{waiting}");
    let pending = call.pending().expect("the question waits");
    assert_eq!(pending.questions.len(), 1);
    assert_eq!(pending.questions[0].wants, glovebox_host::Wants::Text);
    assert!(pending.questions[0].question.contains("Code?"));
    let token = pending.questions[0].token.clone();

    // Another call's retry with this token is refused and burns it.
    let other = glovebox_host::CallKey::new(&["client", "ask_user", "{\"question\":\"Pin?\"}"]);
    let stolen = glovebox_host::Retry {
        tokens: pending.request_state.clone(),
        answers: vec![(token.clone(), Answer::Given { text: "1".into(), private: false })],
    };
    assert!(world.host.for_deferred_call(other, Some(stolen)).is_err());

    // Asked again, the right retry brings the answer once.
    let (host, call) = world.host.for_deferred_call(key.clone(), None).unwrap();
    host.ask_user(&question("Code?")).unwrap_err();
    let pending = call.pending().unwrap();
    let retry = glovebox_host::Retry {
        tokens: pending.request_state.clone(),
        answers: vec![(
            pending.questions[0].token.clone(),
            Answer::Given { text: "731 002".into(), private: true },
        )],
    };
    let (host, call) = world.host.for_deferred_call(key.clone(), Some(retry.clone())).unwrap();
    let answered = host.ask_user(&question("Code?")).unwrap();
    assert_eq!(answered, Answered { text: "731 002".into(), private: true });
    assert!(call.pending().is_none());
    // The same state sent again is asked again, never answered twice.
    let (host, call) = world.host.for_deferred_call(key, Some(retry)).unwrap();
    assert!(host.ask_user(&question("Code?")).is_err());
    assert!(call.pending().is_some());
}
