//! Budgeted rendering and diffs of accessibility trees (pure).

use glovebox_model::{
    AccessibilityTree, Element, ElementId, ElementState, Fidelity, OmittedChildren, Rect, Role,
    TokenBudget, TreeDiff, WindowId,
};
use ElementState::*;

fn element(
    id: u32,
    role: Role,
    name: &str,
    states: &[ElementState],
    children: Vec<Element>,
) -> Element {
    Element {
        states: states.into(),
        bounds: Some(Rect::new(0, id as i32 * 20, 100, 20)),
        children,
        ..Element::new(ElementId::tree(id).unwrap(), role, name)
    }
}

const SHOWN: &[ElementState] = &[Enabled, Showing, Visible];
const BUTTON: &[ElementState] = &[Enabled, Focusable, Showing, Visible];

fn tree(root: Element) -> AccessibilityTree {
    let node_count = root.walk().count();
    AccessibilityTree {
        window: WindowId { pid: 7, handle: 0x500001 },
        fidelity: Fidelity::Full,
        root: Some(root),
        node_count,
        truncated: None,
        focused_password: false,
        elapsed_ms: 1,
        seen: vec![],
        seen_omitted: 0,
        guidance: None,
    }
}

fn form() -> Element {
    let mut name = element(2, Role::Text, "Name", BUTTON, vec![]);
    name.states.insert(Editable);
    let subscribe = element(3, Role::CheckBox, "Subscribe", BUTTON, vec![]);
    let submit = element(4, Role::PushButton, "Submit", BUTTON, vec![]);
    element(
        1,
        Role::Frame,
        "Form",
        SHOWN,
        vec![element(10, Role::Panel, "", SHOWN, vec![name, subscribe, submit])],
    )
}

fn long_list(rows: u32) -> Element {
    let items = (0..rows)
        .map(|i| element(100 + i, Role::ListItem, &format!("Row {i}"), BUTTON, vec![]))
        .collect();
    let mut list = element(5, Role::List, "Files", BUTTON, items);
    list.omitted_children =
        Some(OmittedChildren { count: 240, hint: "off-screen rows; scroll the list".into() });
    element(
        1,
        Role::Frame,
        "Files",
        SHOWN,
        vec![element(2, Role::PushButton, "Open", BUTTON, vec![]), list],
    )
}

#[test]
fn a_tree_that_fits_is_rendered_whole() {
    let t = tree(form());
    let budgeted = t.render_budgeted(TokenBudget::new(1_000).unwrap());
    assert_eq!(budgeted.text, t.render_text());
    assert_eq!(budgeted.folded_lines, 0);
    assert!(budgeted.tokens <= 1_000 && budgeted.tokens > 0);
}

#[test]
fn a_long_list_is_folded_to_the_budget_and_says_how_to_expand_it() {
    let t = tree(long_list(300));
    let whole = t.render_text();
    assert!(glovebox_model::estimate_tokens(&whole) > 2_000, "the fixture must not fit");
    let budgeted = t.render_budgeted(TokenBudget::new(400).unwrap());
    assert!(budgeted.tokens <= 400, "{} tokens:\n{}", budgeted.tokens, budgeted.text);
    assert_eq!(budgeted.tokens, glovebox_model::estimate_tokens(&budgeted.text));
    // The shallow lines stay; the list's rows are folded under it, counted, with the way back.
    assert!(budgeted.text.contains("@e2 push button \"Open\""), "{}", budgeted.text);
    assert!(budgeted.text.contains("@e5 list \"Files\""), "{}", budgeted.text);
    let fold =
        budgeted.text.lines().find(|l| l.contains("more lines folded")).expect("a fold line");
    assert!(fold.contains("observe {\"within\": \"e5\"}"), "{fold}");
    let kept_rows = budgeted.text.lines().filter(|l| l.contains("list item")).count();
    let folded: usize =
        fold.trim_start().trim_start_matches("… ").split(' ').next().unwrap().parse().unwrap();
    // Every row and the list's own summary are either shown or counted.
    assert_eq!(kept_rows + folded, 300 + 1, "{}", budgeted.text);
    assert_eq!(budgeted.folded_lines, folded);
    // The folded part reads whole under its element.
    let within = t.render_within(ElementId::tree(5).unwrap()).unwrap();
    assert_eq!(within.lines().filter(|l| l.contains("list item")).count(), 300);
    assert!(within.contains("… 240 more not shown"));
    assert!(t.render_within(ElementId::tree(99_999).unwrap()).is_none());
}

#[test]
fn budgets_outside_their_range_are_refused() {
    assert!(TokenBudget::new(0).is_err());
    assert!(TokenBudget::new(199).is_err());
    assert!(TokenBudget::new(200_001).is_err());
    assert!(TokenBudget::new(200).is_ok());
}

#[test]
fn no_change_is_said_as_such() {
    let diff = TreeDiff::between(&tree(form()), &tree(form()));
    assert!(diff.is_empty());
    assert!(diff.render_text().starts_with("no change"), "{}", diff.render_text());
}

#[test]
fn a_value_and_a_check_are_changes_with_their_ids() {
    let before = tree(form());
    let mut after_root = form();
    let panel = &mut after_root.children[0];
    panel.children[0].has_value = true;
    panel.children[1].states.insert(Checked);
    panel.children[0].states.insert(Focused);
    let diff = TreeDiff::between(&before, &tree(after_root));
    let text = diff.render_text();
    assert_eq!(diff.changed.len(), 2, "{text}");
    assert!(text.starts_with("changes: 2 changed"), "{text}");
    assert!(
        text.contains("~ @e2 text \"Name\" [focused, has value]: now focused; now has a value"),
        "{text}"
    );
    assert!(text.contains("~ @e3 check box \"Subscribe\" [checked]: now checked"), "{text}");
}

#[test]
fn a_dialog_that_opens_is_an_added_subtree_and_closing_it_one_removal() {
    let before = tree(form());
    let mut with_dialog = form();
    let ok = element(21, Role::PushButton, "OK", BUTTON, vec![]);
    let label = element(22, Role::Label, "Saved.", SHOWN, vec![]);
    with_dialog.children.push(element(
        20,
        Role::Dialog,
        "Done",
        SHOWN,
        vec![element(23, Role::Filler, "", SHOWN, vec![label, ok])],
    ));
    let opened = TreeDiff::between(&before, &tree(with_dialog.clone()));
    let text = opened.render_text();
    assert!(text.starts_with("changes: 3 added"), "{text}");
    assert!(
        text.contains("+ dialog \"Done\"\n+   label \"Saved.\"\n+   @e21 push button \"OK\"\n"),
        "{text}"
    );
    let closed = TreeDiff::between(&tree(with_dialog), &before);
    let text = closed.render_text();
    assert!(text.starts_with("changes: 3 removed"), "{text}");
    assert!(text.contains("- dialog \"Done\" (and 2 inside it)"), "{text}");
    assert_eq!(closed.removed.len(), 1);
}

#[test]
fn a_scrolled_list_adds_and_removes_rows_and_moves_are_summarised() {
    let window = |first: u32| {
        let items = (first..first + 20)
            .map(|i| {
                let mut row = element(100 + i, Role::ListItem, &format!("Row {i}"), BUTTON, vec![]);
                row.bounds = Some(Rect::new(0, (i - first) as i32 * 20, 100, 20));
                row
            })
            .collect();
        tree(element(
            1,
            Role::Frame,
            "Files",
            SHOWN,
            vec![element(5, Role::List, "Files", BUTTON, items)],
        ))
    };
    let diff = TreeDiff::between(&window(0), &window(5));
    let text = diff.render_text();
    assert_eq!(diff.added.len(), 5, "{text}");
    assert_eq!(diff.removed.len(), 5, "{text}");
    assert!(
        text.contains("+ @e120 list item \"Row 20\"")
            && text.contains("- @e100 list item \"Row 0\""),
        "{text}"
    );
    assert!(text.contains("~ 15 elements moved"), "{text}");
    assert!(text.starts_with("changes: 5 added, 5 removed, 15 moved"), "{text}");
}

#[test]
fn a_renamed_element_and_a_long_diff_are_bounded() {
    let before = tree(long_list(100));
    let mut root = long_list(100);
    for row in &mut root.children[1].children {
        row.name.push_str(" (edited)");
    }
    let diff = TreeDiff::between(&before, &tree(root));
    let text = diff.render_text();
    assert!(text.contains("name \"Row 0\" → \"Row 0 (edited)\""), "{text}");
    assert!(text.contains("… 40 more lines of changes"), "{text}");
    assert_eq!(text.lines().count(), 1 + 60 + 1, "{text}");
}

#[test]
fn a_tree_without_elements_or_with_a_huge_header_never_panics() {
    let mut none = tree(form());
    none.root = None;
    none.fidelity = Fidelity::None { reason: "x".repeat(2_000) };
    let budgeted = none.render_budgeted(TokenBudget::new(200).unwrap());
    assert_eq!(budgeted.folded_lines, 0);
    assert!(budgeted.text.contains("fidelity none"));
    // The root line stays even when nothing else fits.
    let mut wide = tree(long_list(50));
    wide.root.as_mut().unwrap().name = "n".repeat(5_000);
    let budgeted = wide.render_budgeted(TokenBudget::new(200).unwrap());
    assert!(budgeted.text.contains("frame \""), "{}", budgeted.text);
}
