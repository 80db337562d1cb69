//! `Host::ask_user` on the fake desktop: with no channel and no indicator
//! page it is refused at once; on the page it waits for the person's answer
//! (or their decline, or the bounded wait), and the audit keeps the
//! question and that it was answered, never a private answer.

use glovebox_host::{Answered, Said};
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
    let refused = world.host.ask_user(&question("Which file?"), None).unwrap_err();
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
        std::thread::spawn(move || host.ask_user(&question("The code from your phone?"), None))
    };
    let shown = shown_on_page(&host);
    assert_eq!(shown.text, "The code from your phone?");
    // An answer to another question is refused and changes nothing.
    assert!(host.answer_on_page(shown.id + 1, Said::Declined).is_err());
    host.answer_on_page(shown.id, Said::Answer { text: "731 002".into(), private: true }).unwrap();
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
        std::thread::spawn(move || host.ask_user(&question("Pay now?"), None))
    };
    let shown = shown_on_page(&host);
    host.answer_on_page(shown.id, Said::Declined).unwrap();
    assert_eq!(declining.join().unwrap().unwrap_err().code, ErrorCode::ApprovalDenied);
}

#[test]
fn no_answer_on_the_page_within_the_wait_is_refused() {
    let world =
        fake_world("ask-wait").configure(|c| c.answer_wait = Duration::from_millis(300)).open();
    world.host.set_indicator_url("http://127.0.0.1:1/?token=test".into());
    let refused = world.host.ask_user(&question("Still there?"), None).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ApprovalRequired);
    assert!(refused.message.contains("no answer on the indicator page"), "{refused}");
    assert_eq!(world.host.presence_view().question, None);
}
