use super::*;
use glovebox_model::{AccessibilityTree, Button, Element, ElementStates, Fidelity, WindowId};

fn element(id: u32, role: Role, name: &str, children: Vec<Element>) -> Element {
    let mut states = ElementStates::default();
    for state in [
        ElementState::Enabled,
        ElementState::Showing,
        ElementState::Visible,
        ElementState::Focusable,
    ] {
        states.insert(state);
    }
    Element { states, children, ..Element::new(ElementId::tree(id).unwrap(), role, name) }
}

/// A form with two panels, each holding an OK button, and a password field.
fn tree() -> AccessibilityTree {
    let panel = |id, name: &str| {
        element(id, Role::Panel, name, vec![element(id + 1, Role::PushButton, "OK", vec![])])
    };
    let root = element(
        1,
        Role::Frame,
        "Form",
        vec![
            panel(2, "Billing"),
            panel(4, "Shipping"),
            element(6, Role::PasswordText, "Password", vec![]),
        ],
    );
    AccessibilityTree {
        window: WindowId { pid: 1, handle: 2 },
        fidelity: Fidelity::Full,
        root: Some(root),
        node_count: 6,
        truncated: None,
        focused_password: false,
        elapsed_ms: 0,
        seen: vec![],
        seen_omitted: 0,
        guidance: None,
    }
}

fn window() -> WindowAddress {
    WindowAddress { app: "Form".into(), title: "Form".into() }
}

fn recorded(text: TextRecording, actions: &[Action]) -> (tempdir::Dir, PathBuf) {
    let dir = tempdir::Dir::new();
    let mut recorder = Recorder::start(dir.path(), "g1-1", text).unwrap();
    for action in actions {
        recorder.record(window(), action, &tree(), None).unwrap();
    }
    let path = recorder.path().to_owned();
    (dir, path)
}

mod tempdir {
    pub(super) struct Dir(std::path::PathBuf);
    impl Dir {
        pub(super) fn new() -> Dir {
            static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let path = std::env::temp_dir()
                .join(format!("glovebox-recording-unit-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }
        pub(super) fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn click(id: u32) -> Action {
    Action::Click {
        target: Target::Element(ElementId::tree(id).unwrap()),
        button: Button::Left,
        count: 1,
        modifiers: vec![],
    }
}

#[test]
fn an_element_is_addressed_by_role_name_and_named_ancestors_and_found_again() {
    let address = address_of(&tree(), ElementId::tree(5).unwrap()).unwrap();
    assert_eq!(
        address.ancestors,
        vec![
            Named { role: Role::Frame, name: "Form".into() },
            Named { role: Role::Panel, name: "Shipping".into() }
        ]
    );
    assert_eq!(find(&tree(), &address), Found::One(ElementId::tree(5).unwrap()));
    // Without its panel, "OK" answers twice: a guess is refused.
    let bare = ElementAddress {
        ancestors: vec![Named { role: Role::Frame, name: "Form".into() }],
        ..address.clone()
    };
    assert_eq!(find(&tree(), &bare), Found::None);
    let anywhere = |tree: &AccessibilityTree| {
        tree.root.iter().flat_map(|r| r.walk()).filter(|e| e.name == "OK").count()
    };
    assert_eq!(anywhere(&tree()), 2);
    let mut renamed = address;
    renamed.ancestors[1].name = "Returns".into();
    assert_eq!(find(&tree(), &renamed), Found::None);
}

#[test]
fn a_recording_reads_back_and_any_edit_reorder_or_removal_is_refused() {
    let (dir, path) =
        recorded(TextRecording::Kept, &[click(3), click(5), Action::Type { text: "hello".into() }]);
    let read = read(&path, dir.path()).unwrap();
    assert_eq!(read.steps.len(), 3);
    assert_eq!(read.steps[2].action, Action::Type { text: "hello".into() });
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "a header, three steps and the closing line");
    let variants = [
        ("edited", text.replace("hello", "HELLO"), 4),
        ("reordered", [lines[0], lines[2], lines[1], lines[3], lines[4]].join("\n"), 2),
        ("a step removed", [lines[0], lines[1], lines[3], lines[4]].join("\n"), 3),
        ("the last step removed", [lines[0], lines[1], lines[2], lines[4]].join("\n"), 4),
        ("the header replaced", text.replacen("g1-1", "g9-9", 1), 1),
    ];
    for (what, changed, line) in variants {
        std::fs::write(&path, changed).unwrap();
        assert_eq!(
            super::read(&path, dir.path()),
            Err(RecordingError::Tampered { line }),
            "{what}"
        );
    }
    // Another user's key: refused too.
    std::fs::write(&path, &text).unwrap();
    let other = tempdir::Dir::new();
    assert_eq!(super::read(&path, other.path()), Err(RecordingError::Tampered { line: 1 }));
}

#[test]
fn a_recording_cut_short_at_its_end_is_refused_as_incomplete_and_one_being_written_is_complete_as_far_as_it_goes(
) {
    let (dir, path) = recorded(TextRecording::Kept, &[click(3), click(5)]);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[3].contains("\"glovebox_recording_end\":2") && lines[3].contains("\"finished\":true"),
        "{text}"
    );
    assert!(read(&path, dir.path()).unwrap().finished);
    for (what, cut, steps) in [
        ("the closing line", 3, 2),
        ("the last step and the closing line", 2, 1),
        ("every step", 1, 0),
    ] {
        std::fs::write(&path, lines[..cut].join("\n") + "\n").unwrap();
        let refused = super::read(&path, dir.path()).unwrap_err();
        assert_eq!(refused, RecordingError::Incomplete { steps }, "{what}");
        assert!(
            refused.to_refusal().to_string().starts_with("COMPUTER_INVALID_ARGUMENT")
                && refused.to_string().contains("incomplete"),
            "{refused}"
        );
    }
    // A line after the closing line: refused too.
    std::fs::write(&path, [lines[0], lines[1], lines[3], lines[2]].join("\n")).unwrap();
    assert!(super::read(&path, dir.path()).is_err());

    // A recording being written is complete as far as it goes, and says it is not finished.
    let live = tempdir::Dir::new();
    let mut recorder = Recorder::start(live.path(), "g2-1", TextRecording::Kept).unwrap();
    assert_eq!(read(recorder.path(), live.path()).unwrap().steps.len(), 0);
    recorder
        .record(window(), &click(3), &tree(), Some(&TreeDiff::between(&tree(), &tree())))
        .unwrap();
    recorder.record(window(), &click(5), &tree(), None).unwrap();
    let read_live = read(recorder.path(), live.path()).unwrap();
    assert_eq!(
        (read_live.steps.len(), read_live.finished),
        (1, false),
        "the held step is not written yet"
    );
    let path = recorder.path().to_owned();
    drop(recorder);
    let ended = read(&path, live.path()).unwrap();
    assert_eq!((ended.steps.len(), ended.finished), (2, true));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().lines().count(),
        4,
        "one closing line, rewritten"
    );
}

#[test]
fn typed_text_is_kept_only_when_allowed_and_never_for_a_password_field() {
    let typed = Action::Type { text: "secret words".into() };
    let into_password = Action::SetValue {
        target: Target::Element(ElementId::tree(6).unwrap()),
        text: "hunter2".into(),
    };
    let (dir, path) = recorded(TextRecording::Length, std::slice::from_ref(&typed));
    let step = &read(&path, dir.path()).unwrap().steps[0];
    assert_eq!(
        (&step.action, step.withheld_text),
        (&Action::Type { text: String::new() }, Some(12))
    );
    assert!(!std::fs::read_to_string(&path).unwrap().contains("secret"));
    // An app echoing the text in a label: the expectation leaves that line out.
    let dir2 = tempdir::Dir::new();
    let mut recorder = Recorder::start(dir2.path(), "g1-1", TextRecording::Length).unwrap();
    let mut echoed = tree();
    echoed.root.as_mut().unwrap().children[0].children[0].name = "secret words".into();
    recorder.record(window(), &typed, &tree(), Some(&TreeDiff::between(&tree(), &echoed))).unwrap();
    let path2 = recorder.path().to_owned();
    drop(recorder);
    assert_eq!(read(&path2, dir2.path()).unwrap().steps[0].expect, Some(vec![]));
    assert!(!std::fs::read_to_string(&path2).unwrap().contains("secret"));
    let (dir, path) = recorded(TextRecording::Kept, &[into_password]);
    let step = &read(&path, dir.path()).unwrap().steps[0];
    assert_eq!(step.withheld_text, Some(7));
    assert!(!std::fs::read_to_string(&path).unwrap().contains("hunter2"));
}

#[test]
fn an_expectation_names_elements_without_ids_and_leaves_out_focus_and_geometry() {
    let before = tree();
    let mut after = tree();
    let root = after.root.as_mut().unwrap();
    root.children[0].children[0].states.insert(ElementState::Focused);
    root.children[1].children[0].name = "Done".into();
    let diff = TreeDiff::between(&before, &after);
    let expected = expectation(&diff);
    assert_eq!(expected.len(), 1, "{diff:?}");
    assert!(
        expected[0].starts_with("~ push button")
            && expected[0].contains("\"Done\"")
            && !expected[0].contains("@e"),
        "{expected:?}"
    );
    assert!(unmet(&expected, &diff).is_empty());
    assert_eq!(unmet(&expected, &TreeDiff::between(&before, &before)), expected);
}

#[test]
fn a_step_delivered_without_a_look_takes_its_expectation_from_the_next_look_at_its_window() {
    let dir = tempdir::Dir::new();
    let mut recorder = Recorder::start(dir.path(), "g1-1", TextRecording::Length).unwrap();
    recorder.record(window(), &click(3), &tree(), None).unwrap();
    let mut after = tree();
    after.root.as_mut().unwrap().children[0].children[0].name = "Paid".into();
    let mut elsewhere = tree();
    elsewhere.window = WindowId { pid: 9, handle: 9 };
    recorder.observed(&elsewhere).unwrap();
    recorder.observed(&after).unwrap();
    // The next step has no look after it and none follows: written without an expectation.
    recorder.record(window(), &click(5), &tree(), None).unwrap();
    let path = recorder.path().to_owned();
    drop(recorder);
    let steps = read(&path, dir.path()).unwrap().steps;
    assert_eq!(steps.len(), 2);
    assert!(steps[0].expect.as_ref().unwrap()[0].contains("\"Paid\""), "{:?}", steps[0].expect);
    assert_eq!((steps[1].index, &steps[1].expect), (2, &None));
}

#[test]
fn the_oldest_recordings_go_once_more_than_are_kept_exist() {
    let dir = tempdir::Dir::new();
    for started in [30u64, 4, 200, 1000] {
        std::fs::write(dir.path().join(format!("{started}-g1-1.jsonl")), "").unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "not a recording").unwrap();
    prune(dir.path(), 2);
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["1000-g1-1.jsonl", "200-g1-1.jsonl", "notes.txt"]);
}
