//! Observations that say what changed, on a real desktop: ids that hold
//! from frame to frame, input results as diffs, explicit value reads, marks
//! on screenshots and token budgets — each checked against the fixture's
//! own report, or a real application's file, not the host's word.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation, ObserveRequest};
use glovebox_model::Role;
use glovebox_model::{
    Action, Button, ElementId, ErrorCode, Target, TokenBudget, WindowId, WindowRef,
};
use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use std::collections::HashMap;

fn window_of(host: &Host, fixture: &Fixture) -> WindowId {
    wait_until("fixture listed", || {
        host.list_windows(Some(&fixture.title), 1)
            .ok()?
            .windows
            .into_iter()
            .next()
            .map(|w| w.window.id)
    })
}

fn observe(host: &Host, window: WindowId) -> Observation {
    wait_until("tree", || {
        host.observe(Some(&WindowRef::Id(window)), false).ok().filter(|o| o.tree.node_count > 10)
    })
}

fn id(seen: &Observation, role: Role, name: &str) -> ElementId {
    seen.tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", seen.tree.render_text()))
        .id
}

/// (role, name) → id of every element whose role and name are unique in the tree.
fn named_ids(seen: &Observation) -> HashMap<(Role, String), ElementId> {
    let mut count: HashMap<(Role, String), usize> = HashMap::new();
    let all: Vec<_> = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .filter(|e| !e.name.is_empty())
        .map(|e| ((e.role, e.name.clone()), e.id))
        .collect();
    for (key, _) in &all {
        *count.entry(key.clone()).or_default() += 1;
    }
    all.into_iter().filter(|(key, _)| count[key] == 1).collect()
}

fn click(target: ElementId) -> Action {
    Action::Click {
        target: Target::Element(target),
        button: Button::Left,
        count: 1,
        modifiers: vec![],
    }
}

#[test]
fn ids_hold_across_frames_and_input_results_say_what_changed() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "diffs").open();
    let fixture =
        Fixture::launch(sandbox, &unique_title("Diffs"), &["--no-password", "--rows", "60"]);
    let window = window_of(&host, &fixture);
    let first = observe(&host, window);
    let second = observe(&host, window);
    let (a, b) = (named_ids(&first), named_ids(&second));
    assert!(a.len() > 20, "{a:?}");
    assert_eq!(a, b, "the same objects keep their ids from frame to frame");

    // set_value on the empty Name field: it now has a value, said with its id.
    let name = id(&second, Role::Text, "Name");
    assert!(!second.tree.find(name).unwrap().has_value, "an empty field shows no value");
    let done = host
        .act(
            second.frame.id,
            Action::SetValue { target: Target::Element(name), text: "Ada".into() },
        )
        .unwrap();
    fixture.wait_state("name set", |s| s["values"]["name"] == "Ada");
    let diff = done.changes.expect("a diff with the new frame").render_text();
    assert!(
        diff.contains(&format!("~ @{name} text \"Name\"")) && diff.contains("now has a value"),
        "{diff}"
    );
    let after = done.next.unwrap();
    assert_eq!(
        named_ids(&after).get(&(Role::Text, "Name".into())),
        Some(&name),
        "ids survive the input"
    );

    // A click that reveals a panel inside the window: an added subtree.
    let details = id(&after, Role::PushButton, "Details");
    println!(
        "before clicking Details:\n{}",
        glovebox_mcp::render::observation(&after, host.text_budget())
    );
    let done = host.act(after.frame.id, click(details)).unwrap();
    fixture.wait_state("details shown", |s| s["details_shown"] == true);
    let diff = done.changes.clone().unwrap();
    let text = diff.render_text();
    println!("after clicking Details:\n{}", glovebox_mcp::render::acted(&done, host.text_budget()));
    let hide = id(done.next.as_ref().unwrap(), Role::PushButton, "Hide details");
    assert!(diff.added.iter().any(|a| a.id == hide), "{text}");
    assert!(text.contains("label \"Ships in 3 days\""), "{text}");
    let after = done.next.unwrap();

    // Submit: the status label's name changes (the click counted by the fixture).
    let submit = id(&after, Role::PushButton, "Submit");
    let done = host.act(after.frame.id, click(submit)).unwrap();
    fixture.wait_state("submitted", |s| s["clicks"]["submit"] == 1);
    let text = done.changes.unwrap().render_text();
    assert!(text.contains("name \"Ready\" → \"Submit clicked\""), "{text}");
    let after = done.next.unwrap();

    // A click on the status label does nothing, and the result says so.
    let status = id(&after, Role::Label, "Submit clicked");
    let point = after.tree.find(status).unwrap().bounds.unwrap();
    let target = Target::Point(glovebox_model::Point {
        x: point.x + 2,
        y: point.y + point.height as i32 / 2,
    });
    let before_state = fixture.state().unwrap();
    let done = host
        .act(
            after.frame.id,
            Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] },
        )
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(fixture.state().unwrap()["clicks"], before_state["clicks"]);
    let diff = done.changes.unwrap();
    assert!(
        diff.is_empty() && diff.render_text().starts_with("no change"),
        "{}",
        diff.render_text()
    );
    let after = done.next.unwrap();

    // Scrolling the list: rows come into view and others leave it.
    let list = after
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::TreeTable || e.role == Role::Table)
        .expect("the list")
        .clone();
    let row0 = id(&after, Role::TableCell, "Row 0");
    let done = host
        .act(
            after.frame.id,
            Action::Scroll { target: Target::Element(list.id), dx: 0, dy: 10, modifiers: vec![] },
        )
        .unwrap();
    let diff = done.changes.unwrap();
    let text = diff.render_text();
    assert!(diff.removed.iter().any(|(r, _)| r.id == row0), "Row 0 scrolled out:\n{text}");
    assert!(
        diff.added.iter().any(|a| a.line.contains("table cell \"Row")),
        "rows scrolled in:\n{text}"
    );
}

#[test]
fn values_are_read_only_when_asked_and_never_from_a_password_field() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "reads").open();
    let fixture = Fixture::launch(sandbox, &unique_title("Reads"), &["--rows", "5"]);
    fixture.send(serde_json::json!({"cmd": "set", "widget": "email", "value": "ada@example.org"}));
    fixture
        .send(serde_json::json!({"cmd": "set", "widget": "password", "value": "hunter2-secret"}));
    fixture.send(serde_json::json!({"cmd": "set", "widget": "slider", "value": 70}));
    fixture.wait_state("values set", |s| {
        s["values"]["email"] == "ada@example.org"
            && s["values"]["password_length"] == 14
            && s["values"]["slider"] == 70.0
    });
    let window = window_of(&host, &fixture);
    let seen = observe(&host, window);
    assert!(!seen.tree.render_text().contains("ada@example.org"), "listing never shows a value");
    let slider = seen
        .tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .find(|e| e.role == Role::Slider)
        .expect("the slider")
        .id;
    let (email, status, cell) = (
        id(&seen, Role::Text, "Email"),
        id(&seen, Role::Label, "Ready"),
        id(&seen, Role::TableCell, "Row 2"),
    );
    let values = host.read(seen.frame.id, &[email, status, slider, cell]).unwrap();
    let state = fixture.state().unwrap();
    let texts: Vec<&str> = values.iter().map(|v| v.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            state["values"]["email"].as_str().unwrap(),
            state["status"].as_str().unwrap(),
            "70",
            "Row 2"
        ],
        "{values:?}"
    );
    assert!(values.iter().all(|v| !v.truncated()));

    // The password field: refused, nothing of it in the audit.
    let password = id(&seen, Role::PasswordText, "Password");
    let refused = host.read(seen.frame.id, &[password]).unwrap_err();
    assert_eq!(refused.code, ErrorCode::SecureInput, "{refused:?}");
    // An id that is not in the frame, and no ids at all, are refused too.
    assert_eq!(
        host.read(seen.frame.id, &[ElementId::tree(999_999).unwrap()]).unwrap_err().code,
        ErrorCode::StaleRef
    );
    assert_eq!(host.read(seen.frame.id, &[]).unwrap_err().code, ErrorCode::InvalidArgument);
    let audit = std::fs::read_to_string(sandbox.runtime_dir().join("audit-reads.jsonl")).unwrap();
    let reads: Vec<&str> = audit.lines().filter(|l| l.contains("\"read\"")).collect();
    assert_eq!(reads.len(), 4, "{audit}");
    assert!(
        reads.iter().any(|l| l.contains("\"text_length\":15")),
        "the email's length is audited: {reads:?}"
    );
    for secret in ["ada@example.org", "hunter2", "Row 2\""] {
        assert!(!audit.contains(secret), "{secret} reached the audit");
    }
    // Reading changed nothing: the frame still takes input.
    host.act(
        seen.frame.id,
        Action::SetValue { target: Target::Element(email), text: "x@y.z".into() },
    )
    .unwrap();
    fixture.wait_state("email set", |s| s["values"]["email"] == "x@y.z");
}

#[test]
fn marks_are_drawn_on_the_elements_and_budgets_fold_long_trees() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = glovebox_testkit::host(sandbox, "marks").open();
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("Marks"),
        &["--no-password", "--rows", "200", "--labels", "300"],
    );
    let window = window_of(&host, &fixture);
    observe(&host, window);
    let seen = host
        .observe_with(
            Some(&WindowRef::Id(window)),
            ObserveRequest { screenshot: true, marks: true, fit: None },
        )
        .unwrap();
    let png = RgbImage::decode_png(seen.screenshot.as_ref().unwrap()).unwrap();
    assert!(seen.marks.len() >= 8, "{:?}", seen.marks);
    let scale = seen.frame.scale;
    let state = fixture.state().unwrap();
    // The Submit button's mark is where the fixture says the button is.
    let submit = id(&seen, Role::PushButton, "Submit");
    let mark = seen.marks.iter().find(|m| m.id == submit).expect("Submit is marked");
    let a = &state["allocations"]["submit"];
    let (x, y, w) = (
        a[0].as_f64().unwrap() * scale,
        a[1].as_f64().unwrap() * scale,
        a[2].as_f64().unwrap() * scale,
    );
    assert!(
        (mark.rect.x as f64 - x).abs() <= 2.0
            && (mark.rect.y as f64 - y).abs() <= 2.0
            && (mark.rect.width as f64 - w).abs() <= 3.0,
        "{mark:?} vs {a}"
    );
    let left_edge =
        png.pixel(mark.rect.x as u32, (mark.rect.y + mark.rect.height as i32 / 2) as u32);
    assert_eq!(left_edge, glovebox_platform::marks::MARK_RGB);
    let overlapping = seen
        .marks
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            seen.marks[i + 1..].iter().filter(move |n| m.label.intersection(n.label).is_some())
        })
        .count();
    assert!(
        overlapping * 10 <= seen.marks.len(),
        "{overlapping} overlapping labels among {} marks",
        seen.marks.len()
    );
    // Marks need the screenshot.
    let refused = host
        .observe_with(
            Some(&WindowRef::Id(window)),
            ObserveRequest { screenshot: false, marks: true, fit: None },
        )
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArgument);

    // The window within 200 tokens: folded, counted, expandable.
    let seen = observe(&host, window);
    let budgeted = seen.tree.render_budgeted(TokenBudget::new(200).unwrap());
    assert!(budgeted.tokens <= 200 && budgeted.folded_lines > 0, "{}", budgeted.text);
    let fold = budgeted.text.lines().find(|l| l.contains("more lines folded")).expect("a fold");
    let within: ElementId = fold.rsplit('"').nth(1).unwrap().parse().unwrap();
    assert!(seen.tree.render_within(within).unwrap().lines().count() > 1);
    assert!(
        budgeted.text.contains("push button \"Submit\""),
        "shallow lines stay:\n{}",
        budgeted.text
    );
}
