//! Names as people read them. Toolkits leave a field's name empty when a
//! separate label names it, print their widget classes where a name
//! belongs (`GtkMenuButton`, `AdwGizmo`), and repeat a button's name in its
//! only label child. These rules apply to every toolkit alike, after the
//! walk and before the tree is assembled; nothing here is tuned to one app.
//!
//! Key bindings are translated here too: menu items publish their
//! accelerators in the toolkit's own spelling (`<Control>s`, `Ctrl+S`).

use crate::transport::{Bus, ObjectRef};
use crate::walk::{RawNode, Walk};
use atspi_common::State;
use futures_util::future::join_all;
use glovebox_model::Role;
use std::collections::HashMap;
use tokio::time::Instant;

/// Roles whose meaning depends on a name a separate label can give them.
const LABELLED_ROLES: &[Role] = &[
    Role::Entry,
    Role::Text,
    Role::PasswordText,
    Role::SpinButton,
    Role::Slider,
    Role::ComboBox,
    Role::CheckBox,
    Role::RadioButton,
    Role::ToggleButton,
    Role::PushButton,
    Role::List,
    Role::ListBox,
    Role::Table,
    Role::Tree,
    Role::TreeTable,
    Role::ScrollPane,
    Role::ProgressBar,
    Role::LevelBar,
    Role::DocumentText,
];

/// Fields a label laid out beside them names. Not sliders and bars: the
/// label beside those is often their value, which is never a name.
const NAMED_BY_LAYOUT: &[Role] = &[
    Role::Entry,
    Role::Text,
    Role::PasswordText,
    Role::SpinButton,
    Role::ComboBox,
    Role::DocumentText,
];

/// Roles whose description toolkits fill with the value they show (GTK3's
/// scale describes itself as its drawn value): never a name.
const DESCRIBED_BY_VALUE: &[Role] = &[
    Role::Slider,
    Role::SpinButton,
    Role::ProgressBar,
    Role::LevelBar,
    Role::ScrollBar,
    Role::Dial,
];

/// Roles that only show text: a child of this kind repeating its parent's
/// name adds nothing, and an unnamed parent takes its only such child's.
const TEXT_LEAF_ROLES: &[Role] = &[Role::Label, Role::Static, Role::Text, Role::Paragraph];

/// Widget class prefixes toolkits put where a name belongs.
const CLASS_PREFIXES: &[&str] = &["Gtk", "Adw", "Gdk", "Qt", "Q"];

/// The last word of an application's own widget class (`EditorSourceView`,
/// `EditorInfoBar`, `EditorPage` in GNOME Text Editor 43 on GTK 4.8).
const WIDGET_WORDS: &[&str] = &[
    "Area",
    "Bar",
    "Bin",
    "Box",
    "Button",
    "Canvas",
    "Container",
    "Dialog",
    "Entry",
    "Frame",
    "Grid",
    "Header",
    "Icon",
    "Image",
    "Label",
    "Menu",
    "Page",
    "Pane",
    "Paned",
    "Panel",
    "Popover",
    "Revealer",
    "Row",
    "Sidebar",
    "Stack",
    "Switcher",
    "Tab",
    "Toolbar",
    "View",
    "Viewport",
    "Widget",
    "Window",
];

/// Roles whose names toolkits write with a mnemonic marker (`_Retry`).
const MNEMONIC_ROLES: &[Role] = &[
    Role::PushButton,
    Role::ToggleButton,
    Role::CheckBox,
    Role::RadioButton,
    Role::MenuItem,
    Role::CheckMenuItem,
    Role::RadioMenuItem,
    Role::Menu,
    Role::PageTab,
];

/// Whether `name` is only a toolkit's type name (`GtkImage`, `AdwGizmo`,
/// `QLineEdit`), a Qt object name (`qt_scrollarea_viewport`) or an
/// application's own widget class (`EditorSourceView`: one CamelCase word
/// of two parts or more ending in a widget's kind).
pub fn is_type_name(name: &str) -> bool {
    if name.starts_with("qt_")
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return true;
    }
    if is_widget_class(name) {
        return true;
    }
    CLASS_PREFIXES.iter().any(|prefix| {
        let Some(rest) = name.strip_prefix(prefix) else { return false };
        let mut chars = rest.chars();
        chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && rest.chars().all(|c| c.is_ascii_alphanumeric())
            && rest.chars().any(|c| c.is_ascii_lowercase())
    })
}

/// `EditorSourceView`: ASCII letters and digits, each part a capital and
/// lower-case letters, at least two parts, the last a widget's kind.
fn is_widget_class(name: &str) -> bool {
    if !name.starts_with(|c: char| c.is_ascii_uppercase())
        || !name.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return false;
    }
    let mut parts: Vec<&str> = vec![];
    let mut start = 0;
    for (i, c) in name.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            parts.push(&name[start..i]);
            start = i;
        }
    }
    parts.push(&name[start..]);
    let word = |p: &&str| p.len() >= 2 && p[1..].chars().all(|c| c.is_ascii_lowercase());
    parts.len() >= 2
        && parts.iter().all(word)
        && parts.last().is_some_and(|last| WIDGET_WORDS.contains(last))
}

/// `"_Retry Retry"` → `"Retry"`: a label said in its mnemonic form, then
/// again as shown (GTK 4.8's buttons).
fn mnemonic_repeated(name: &str) -> Option<&str> {
    let name = name.trim();
    name.match_indices(' ').map(|(i, _)| (&name[..i], name[i + 1..].trim())).find_map(
        |(marked, shown)| {
            (marked.contains('_') && !shown.is_empty() && without_mnemonic(marked) == shown)
                .then_some(shown)
        },
    )
}

/// `"7 7"` → `"7"`: a name that is one half said twice.
fn undoubled(name: &str) -> Option<&str> {
    let trimmed = name.trim();
    let mid = trimmed.len() / 2;
    if trimmed.len() < 3 || !trimmed.is_char_boundary(mid) {
        return None;
    }
    let (first, second) = (trimmed[..mid].trim_end(), trimmed[mid..].trim_start());
    (trimmed.as_bytes().get(mid - 1) == Some(&b' ') || trimmed.as_bytes().get(mid) == Some(&b' '))
        .then_some(())
        .filter(|_| !first.is_empty() && first == second)
        .map(|_| first)
}

/// A child that only shows text (its actions, where a toolkit gives a
/// label some, do what clicking the parent does).
fn is_text_leaf(node: &RawNode) -> bool {
    // A field (GTK's entries have role `text`) is never folded away, nor anything the keyboard can reach.
    let inert = !node.states.contains(State::Editable)
        && !node.states.contains(State::Focusable)
        && !node.has_value();
    inert && node.children.is_empty() && TEXT_LEAF_ROLES.contains(&node.role)
}

/// A name without its mnemonic underscores (`Page _1` → `Page 1`; `__` is one `_`).
fn without_mnemonic(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.trim().chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            match chars.peek() {
                Some('_') => {
                    out.push('_');
                    chars.next();
                }
                Some(next) if next.is_alphanumeric() => {}
                _ => out.push('_'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The label a person would read as a field's name when no relation says
/// it: the nearest label on the field's row to its left, else the nearest
/// one just above it, left-aligned with it (forms and grids lay them out so).
fn label_beside(nodes: &[RawNode], field: usize, labels: &[usize]) -> Option<usize> {
    let (fx, fy, fw, fh) = nodes[field].extents?;
    let _ = fw;
    let field_middle = fy + fh / 2;
    let mut left: Option<(i32, usize)> = None;
    let mut above: Option<(i32, usize)> = None;
    for &label in labels {
        let Some((lx, ly, lw, lh)) = nodes[label].extents else { continue };
        let (right, bottom) = (lx + lw, ly + lh);
        let same_row =
            (ly..=bottom).contains(&field_middle) && (fy..=fy + fh).contains(&(ly + lh / 2));
        if same_row
            && right <= fx + 4
            && fx - right <= 160
            && left.is_none_or(|(gap, _)| fx - right < gap)
        {
            left = Some((fx - right, label));
        }
        if bottom <= fy + 4
            && fy - bottom <= 24
            && (lx - fx).abs() <= 24
            && above.is_none_or(|(gap, _)| fy - bottom < gap)
        {
            above = Some((fy - bottom, label));
        }
    }
    left.or(above).map(|(_, label)| label)
}

/// Settles every node's name: labelled-by relation, then description, for
/// a labelable control left unnamed; type names dropped; doubled names
/// halved; a name said again by the only text child said once. The
/// relation requests run at once and stop at `deadline`.
pub async fn settle(bus: &Bus, walk: &mut Walk, deadline: Instant) {
    for node in &mut walk.nodes {
        if is_type_name(node.name.trim()) {
            node.name.clear();
        }
        if is_type_name(node.description.trim()) {
            node.description.clear();
        }
    }
    let unnamed: Vec<usize> = (0..walk.nodes.len())
        .filter(|&i| {
            walk.nodes[i].name.trim().is_empty() && LABELLED_ROLES.contains(&walk.nodes[i].role)
        })
        .collect();
    let relations = join_all(unnamed.iter().map(|&i| bus.labelled_by(&walk.nodes[i].object)));
    let labels: Vec<Vec<ObjectRef>> = match tokio::time::timeout_at(deadline, relations).await {
        Ok(found) => found.into_iter().map(Result::unwrap_or_default).collect(),
        Err(_) => vec![vec![]; unnamed.len()],
    };
    let by_object: HashMap<&ObjectRef, usize> =
        walk.nodes.iter().enumerate().map(|(i, n)| (&n.object, i)).collect();
    let mut label_names = vec![];
    let mut unknown: Vec<(usize, ObjectRef)> = vec![];
    for (slot, targets) in labels.iter().enumerate() {
        let known: Vec<String> = targets
            .iter()
            .filter_map(|t| by_object.get(t))
            .map(|&i| walk.nodes[i].name.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        if known.is_empty() {
            unknown.extend(targets.iter().map(|t| (slot, t.clone())));
        }
        label_names.push(known);
    }
    if !unknown.is_empty() {
        if let Ok(names) =
            tokio::time::timeout_at(deadline, join_all(unknown.iter().map(|(_, t)| bus.name(t))))
                .await
        {
            for ((slot, _), name) in unknown.iter().zip(names) {
                if let Some(name) = name
                    .ok()
                    .map(|n| n.trim().to_owned())
                    .filter(|n| !n.is_empty() && !is_type_name(n))
                {
                    label_names[*slot].push(name);
                }
            }
        }
    }
    // Labels laid out beside a field, for fields no relation names; not a
    // button's own label (a header bar's "Open" names no editor below it).
    let inside_controls = descendants_of(walk, MNEMONIC_ROLES);
    let shown_labels: Vec<usize> = (1..walk.nodes.len())
        .filter(|&i| {
            let n = &walk.nodes[i];
            !inside_controls[i]
                && matches!(n.role, Role::Label | Role::Static)
                && !n.name.trim().is_empty()
                && walk.is_shown(n)
        })
        .collect();
    for (slot, &i) in unnamed.iter().enumerate() {
        let by_layout = NAMED_BY_LAYOUT.contains(&walk.nodes[i].role);
        let beside = || {
            by_layout
                .then(|| label_beside(&walk.nodes, i, &shown_labels))
                .flatten()
                .map(|l| walk.nodes[l].name.trim().to_owned())
        };
        let described = !DESCRIBED_BY_VALUE.contains(&walk.nodes[i].role);
        let name = match (label_names[slot].join(" "), walk.nodes[i].description.trim()) {
            (label, _) if !label.is_empty() => label,
            (_, description) if described && !description.is_empty() => description.to_owned(),
            _ => beside().unwrap_or_default(),
        };
        walk.nodes[i].name = name;
    }
    let nodes = &mut walk.nodes;
    for node in nodes.iter_mut() {
        if !MNEMONIC_ROLES.contains(&node.role) {
            continue;
        }
        // A lone `_` stays: `my_docs` on a path bar's button is a folder's name.
        if let Some(shown) = mnemonic_repeated(&node.name).map(str::to_owned) {
            node.name = shown;
        }
    }
    for i in 0..nodes.len() {
        let children = nodes[i].children.clone();
        if let Some(half) = undoubled(&nodes[i].name).map(str::to_owned) {
            if children.iter().any(|&c| nodes[c].name.trim() == half) {
                nodes[i].name = half;
            }
        }
        let [child] = children.as_slice() else { continue };
        let child = *child;
        if i == 0 || !is_text_leaf(&nodes[child]) {
            continue;
        }
        let child_name = nodes[child].name.trim().to_owned();
        let own = without_mnemonic(&nodes[i].name);
        // An unnamed parent takes its text child's name; a parent the child repeats keeps it, read without mnemonics.
        if child_name.is_empty() || !(own.is_empty() || own == child_name) {
            continue;
        }
        nodes[i].name = child_name;
        // The child said nothing its parent does not: one line, the parent's.
        nodes[i].children.clear();
    }
    menus_once(walk);
}

/// Which nodes lie inside a node of one of `roles`.
fn descendants_of(walk: &Walk, roles: &[Role]) -> Vec<bool> {
    let mut inside = vec![false; walk.nodes.len()];
    let mut pending: Vec<usize> = (0..walk.nodes.len())
        .filter(|&i| roles.contains(&walk.nodes[i].role))
        .flat_map(|i| walk.nodes[i].children.iter().copied())
        .collect();
    while let Some(i) = pending.pop() {
        if i < inside.len() && !inside[i] {
            inside[i] = true;
            pending.extend(walk.nodes[i].children.iter().copied());
        }
    }
    inside
}

/// Menus said once: an application that exports its menu bar twice
/// (LibreOffice's GTK3 build: the native menus under the frame, and its own
/// menu bar under the root pane) has two parents with the same menus in the
/// same order. The copy under a `menu bar` stays; the other parent loses them.
pub fn menus_once(walk: &mut Walk) {
    let menus_of = |walk: &Walk, i: usize| -> Vec<String> {
        walk.nodes[i]
            .children
            .iter()
            .filter(|&&c| walk.nodes[c].role == Role::Menu)
            .map(|&c| walk.nodes[c].name.trim().to_owned())
            .collect()
    };
    let parents: Vec<(usize, Vec<String>)> = (0..walk.nodes.len())
        .map(|i| (i, menus_of(walk, i)))
        .filter(|(_, menus)| menus.len() >= 2)
        .collect();
    let mut drop_from = vec![];
    for (a, (first, menus)) in parents.iter().enumerate() {
        for (second, other) in &parents[a + 1..] {
            if menus != other {
                continue;
            }
            let is_bar = |i: usize| walk.nodes[i].role == Role::MenuBar;
            drop_from.push(if is_bar(*first) && !is_bar(*second) {
                *second
            } else if is_bar(*second) {
                *first
            } else {
                *second
            });
        }
    }
    for parent in drop_from {
        let kept: Vec<usize> = walk.nodes[parent]
            .children
            .iter()
            .copied()
            .filter(|&c| walk.nodes[c].role != Role::Menu)
            .collect();
        walk.nodes[parent].children = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_not_names() {
        for name in [
            "GtkMenuButton",
            "AdwGizmo",
            "GtkImage",
            "QLineEdit",
            "qt_scrollarea_viewport",
            "GdkSurface",
            "EditorSourceView",
            "EditorInfoBar",
            "EditorPage",
        ] {
            assert!(is_type_name(name), "{name}");
        }
        for name in [
            "Gtk",
            "QR",
            "QEMU",
            "Quit",
            "Save",
            "Gtk Inspector",
            "Q4 report",
            "Adwaita theme",
            "qt",
            "PowerPoint",
            "YouTube",
            "LibreOffice",
            "View",
            "Page",
            "OK",
            "HTMLView",
            "Source View",
        ] {
            assert!(!is_type_name(name), "{name}");
        }
    }

    #[test]
    fn a_label_said_in_its_mnemonic_form_then_as_shown_is_said_once() {
        assert_eq!(mnemonic_repeated("_Retry Retry"), Some("Retry"));
        assert_eq!(mnemonic_repeated("_Discard… Discard…"), Some("Discard…"));
        assert_eq!(mnemonic_repeated("Save _As Save As"), Some("Save As"));
        assert_eq!(mnemonic_repeated("Retry Retry"), None);
        assert_eq!(mnemonic_repeated("_Retry"), None);
        assert_eq!(mnemonic_repeated("_Retry Later"), None);
    }

    #[test]
    fn doubled_names_are_halved() {
        assert_eq!(undoubled("7 7"), Some("7"));
        assert_eq!(undoubled("Save Save"), Some("Save"));
        assert_eq!(undoubled("Save As"), None);
        assert_eq!(undoubled("aa"), None);
        assert_eq!(undoubled("ab ab c"), None);
        assert_eq!(undoubled("日本 日本"), Some("日本"));
    }

    #[test]
    fn mnemonics_are_not_read() {
        assert_eq!(without_mnemonic("Page _1"), "Page 1");
        assert_eq!(without_mnemonic("_Save"), "Save");
        assert_eq!(without_mnemonic("snake__case"), "snake_case");
        assert_eq!(without_mnemonic("a _ b"), "a _ b");
    }
}
