//! What changed between two observations of one window, in the terms of
//! the text the model reads: lines that appeared, lines that went, and
//! elements whose name, states, value presence or place changed. Element
//! ids are stable for the same object, so they are the key.

use crate::a11y::{AccessibilityTree, Element, ElementId, ElementState};
use crate::geometry::Rect;
use crate::tree_text::{element_line, LineKind};
use std::collections::HashMap;

/// Movement or resizing below this many pixels is layout noise.
pub const MOVE_THRESHOLD: i32 = 4;
/// Lines of a rendered diff before the rest is counted.
pub const MAX_DIFF_LINES: usize = 60;

/// The states whose change a diff reports.
const TRACKED: [ElementState; 9] = [
    ElementState::Focused,
    ElementState::Checked,
    ElementState::Indeterminate,
    ElementState::Selected,
    ElementState::Expanded,
    ElementState::Enabled,
    ElementState::Pressed,
    ElementState::ReadOnly,
    ElementState::Required,
];

/// One change of an element present in both observations.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Its name changed.
    Name {
        /// The name in the older tree.
        before: String,
        /// The name in the newer tree.
        after: String,
    },
    /// It is now in a state it was not in (one of the states a diff tracks).
    Gained(ElementState),
    /// It is no longer in a state it was in.
    Lost(ElementState),
    /// It holds a value now and did not before.
    ValueAppeared,
    /// It held a value before and holds none now.
    ValueGone,
    /// Children counted but not shown (rows off-screen) changed in number.
    Omitted {
        /// Children counted but not shown in the older tree.
        before: usize,
        /// Children counted but not shown in the newer tree.
        after: usize,
    },
    /// It moved or resized by more than [`MOVE_THRESHOLD`] pixels on its own,
    /// not carried along with its parent.
    Moved {
        /// Its bounds in the older tree, relative to the window's client area.
        before: Rect,
        /// Its bounds in the newer tree, relative to the window's client area.
        after: Rect,
    },
}

/// An element line that appeared or went.
#[derive(Debug, Clone, PartialEq)]
pub struct Appeared {
    /// The element.
    pub id: ElementId,
    /// Its line (as the newer tree shows it for added ones, the older for removed).
    pub line: String,
    /// Levels below the nearest line that did not appear (or go) with it.
    pub depth: usize,
}

/// An element present in both trees that changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Changed {
    /// The element.
    pub id: ElementId,
    /// Its line as the newer tree shows it.
    pub line: String,
    /// What changed: name, states, value, hidden children, then place.
    pub changes: Vec<Change>,
}

/// The difference between two trees of one window.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TreeDiff {
    /// Elements with a line in the newer tree only, in its reading order.
    pub added: Vec<Appeared>,
    /// Only the topmost of each removed subtree; `inside` counts the rest.
    pub removed: Vec<(Appeared, usize)>,
    /// Elements in both trees that changed, in the newer tree's reading order.
    pub changed: Vec<Changed>,
    /// Lines the newer tree has, for comparing a diff's size with the tree's.
    pub tree_lines: usize,
    /// The header changed (fidelity, a focused password field, truncation).
    pub header: Option<String>,
    /// What changed among the elements seen in the pixels, where a window
    /// has no tree (or a thin one) to compare.
    pub picture: Option<PictureChange>,
}

/// A change in a window's pixels, as its seen elements show it.
#[derive(Debug, Clone, PartialEq)]
pub struct PictureChange {
    /// The region that holds every seen element that appeared or went,
    /// relative to the window's client area.
    pub region: Rect,
    /// The lines of the seen elements that appeared (their text read there).
    pub appeared: Vec<String>,
    /// Seen elements that went.
    pub gone: usize,
}

impl PictureChange {
    /// The seen elements of `after` that `before` did not show (ids are
    /// kept for an unchanged element), and those that went.
    pub fn between(before: &AccessibilityTree, after: &AccessibilityTree) -> Option<PictureChange> {
        let was: std::collections::HashSet<ElementId> = before.seen.iter().map(|e| e.id).collect();
        let is: std::collections::HashSet<ElementId> = after.seen.iter().map(|e| e.id).collect();
        let appeared: Vec<&crate::SeenElement> =
            after.seen.iter().filter(|e| !was.contains(&e.id)).collect();
        let gone: Vec<&crate::SeenElement> =
            before.seen.iter().filter(|e| !is.contains(&e.id)).collect();
        let region = appeared.iter().chain(gone.iter()).map(|e| e.bounds).reduce(|a, b| {
            let (x0, y0) = (a.x.min(b.x), a.y.min(b.y));
            let x1 = (a.x + a.width as i32).max(b.x + b.width as i32);
            let y1 = (a.y + a.height as i32).max(b.y + b.height as i32);
            Rect::new(x0, y0, (x1 - x0) as u32, (y1 - y0) as u32)
        })?;
        Some(PictureChange {
            region,
            appeared: appeared.iter().map(|e| e.line()).collect(),
            gone: gone.len(),
        })
    }
}

fn moved(before: Option<Rect>, after: Option<Rect>) -> bool {
    match (before, after) {
        (Some(b), Some(a)) => {
            (b.x - a.x).abs() > MOVE_THRESHOLD
                || (b.y - a.y).abs() > MOVE_THRESHOLD
                || (b.width as i32 - a.width as i32).abs() > MOVE_THRESHOLD
                || (b.height as i32 - a.height as i32).abs() > MOVE_THRESHOLD
        }
        _ => false,
    }
}

/// How far an element's top-left corner moved.
fn delta(before: Option<Rect>, after: Option<Rect>) -> Option<(i32, i32)> {
    Some((after?.x - before?.x, after?.y - before?.y))
}

fn changes_of(before: &Element, after: &Element) -> Vec<Change> {
    let mut out = vec![];
    if before.name.trim() != after.name.trim() {
        out.push(Change::Name { before: before.name.clone(), after: after.name.clone() });
    }
    for state in TRACKED {
        match (before.has(state), after.has(state)) {
            (false, true) => out.push(Change::Gained(state)),
            (true, false) => out.push(Change::Lost(state)),
            _ => {}
        }
    }
    match (before.has_value, after.has_value) {
        (false, true) => out.push(Change::ValueAppeared),
        (true, false) => out.push(Change::ValueGone),
        _ => {}
    }
    let omitted = |e: &Element| e.omitted_children.as_ref().map_or(0, |o| o.count);
    if omitted(before) != omitted(after) {
        out.push(Change::Omitted { before: omitted(before), after: omitted(after) });
    }
    if moved(before.bounds, after.bounds) {
        out.push(Change::Moved {
            before: before.bounds.expect("moved"),
            after: after.bounds.expect("moved"),
        });
    }
    out
}

/// An element with a line of its own: its id, its line's parent, itself, its line.
type Shown<'a> = (ElementId, Option<ElementId>, &'a Element, String);

/// The elements with a line of their own, and the tree's line count.
fn shown(tree: &AccessibilityTree) -> (Vec<Shown<'_>>, usize) {
    let lines = tree.lines();
    let count = lines.len();
    let ids: Vec<ElementId> = lines.iter().map(|l| l.element.id).collect();
    let out = lines
        .iter()
        .filter(|l| l.kind == LineKind::Element)
        .map(|l| (l.element.id, l.parent.map(|p| ids[p]), l.element, l.text.clone()))
        .collect();
    (out, count)
}

impl TreeDiff {
    /// What changed from `before` to `after` (the same window, later).
    pub fn between(before: &AccessibilityTree, after: &AccessibilityTree) -> TreeDiff {
        let (old, _) = shown(before);
        let (new, tree_lines) = shown(after);
        let old_by_id: HashMap<ElementId, (Option<ElementId>, &Element)> =
            old.iter().map(|(id, p, e, _)| (*id, (*p, *e))).collect();
        let new_by_id: HashMap<ElementId, (Option<ElementId>, &Element)> =
            new.iter().map(|(id, p, e, _)| (*id, (*p, *e))).collect();
        let mut diff = TreeDiff {
            tree_lines,
            picture: PictureChange::between(before, after),
            ..TreeDiff::default()
        };
        let (old_head, new_head) = (before.header(), after.header());
        let strip = |h: &str| h.lines().skip(1).collect::<Vec<_>>().join("\n");
        if strip(&old_head) != strip(&new_head) || before.fidelity != after.fidelity {
            diff.header = Some(new_head.trim_end().to_owned());
        }
        // Depth below the nearest ancestor line that is not itself new (or gone).
        fn depth(
            id: ElementId,
            index: &HashMap<ElementId, (Option<ElementId>, &Element)>,
            other: &HashMap<ElementId, (Option<ElementId>, &Element)>,
        ) -> usize {
            let mut depth = 0;
            let mut up = index.get(&id).and_then(|(p, _)| *p);
            while let Some(p) = up.filter(|p| !other.contains_key(p)) {
                depth += 1;
                up = index.get(&p).and_then(|(p, _)| *p);
            }
            depth
        }
        for (id, _, element, line) in &new {
            match old_by_id.get(id) {
                None => diff.added.push(Appeared {
                    id: *id,
                    line: line.clone(),
                    depth: depth(*id, &new_by_id, &old_by_id),
                }),
                Some((_, was)) => {
                    let mut changes = changes_of(was, element);
                    // An element carried along by its parent (a scroll, a panel
                    // that grew above it) did not move on its own: said once, at the parent.
                    let parent_delta = new_by_id
                        .get(id)
                        .and_then(|(p, _)| *p)
                        .and_then(|p| Some((old_by_id.get(&p)?.1, new_by_id.get(&p)?.1)))
                        .and_then(|(b, a)| delta(b.bounds, a.bounds));
                    if parent_delta.is_some() && parent_delta == delta(was.bounds, element.bounds) {
                        changes.retain(|c| !matches!(c, Change::Moved { .. }));
                    }
                    if !changes.is_empty() {
                        diff.changed.push(Changed {
                            id: *id,
                            line: element_line(element, 0),
                            changes,
                        });
                    }
                }
            }
        }
        let mut inside: HashMap<ElementId, usize> = HashMap::new();
        for (id, _, _, _) in old.iter().filter(|(id, ..)| !new_by_id.contains_key(id)) {
            // Counted at the topmost gone ancestor.
            let mut top = *id;
            while let Some(p) =
                old_by_id.get(&top).and_then(|(p, _)| *p).filter(|p| !new_by_id.contains_key(p))
            {
                top = p;
            }
            if top != *id {
                *inside.entry(top).or_default() += 1;
            }
        }
        for (id, _, _, line) in &old {
            if new_by_id.contains_key(id)
                || old_by_id
                    .get(id)
                    .and_then(|(p, _)| *p)
                    .is_some_and(|p| !new_by_id.contains_key(&p))
            {
                continue;
            }
            diff.removed.push((
                Appeared { id: *id, line: line.clone(), depth: 0 },
                inside.get(id).copied().unwrap_or(0),
            ));
        }
        diff
    }

    /// Whether nothing changed, the header included.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.header.is_none()
            && self.picture.is_none()
    }

    fn moves(&self) -> usize {
        self.changed
            .iter()
            .filter(|c| c.changes.iter().all(|x| matches!(x, Change::Moved { .. })))
            .count()
    }

    /// One line: what kind of change, or that there was none.
    pub fn verdict(&self) -> String {
        if self.is_empty() {
            return "no change: the accessibility tree reads the same as before the action".into();
        }
        let removed: usize = self.removed.iter().map(|(_, inside)| 1 + inside).sum();
        let moved = self.moves();
        let mut parts = vec![];
        for (n, what) in [
            (self.added.len(), "added"),
            (removed, "removed"),
            (self.changed.len() - moved, "changed"),
            (moved, "moved"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        if self.header.is_some() {
            parts.push("the window's summary changed".into());
        }
        if let Some(p) = &self.picture {
            let r = p.region;
            parts.push(format!(
                "the picture changed in {}×{} at ({}, {}): {} seen element(s) appeared, {} went",
                r.width,
                r.height,
                r.x,
                r.y,
                p.appeared.len(),
                p.gone
            ));
        }
        format!("changes: {}", parts.join(", "))
    }

    /// The diff as lines: `+` appeared, `-` gone, `~` changed, then the
    /// verdict first. Long diffs are cut at [`MAX_DIFF_LINES`] and say how
    /// many lines were left out.
    pub fn render_text(&self) -> String {
        let mut lines = vec![];
        if let Some(header) = &self.header {
            lines.extend(header.lines().map(|l| format!("~ {l}")));
        }
        for a in &self.added {
            lines.push(format!("+ {}{}", "  ".repeat(a.depth), a.line));
        }
        for (r, inside) in &self.removed {
            let with =
                if *inside > 0 { format!(" (and {inside} inside it)") } else { String::new() };
            lines.push(format!("- {}{with}", r.line));
        }
        if let Some(p) = &self.picture {
            lines.extend(p.appeared.iter().map(|l| format!("+ {l}")));
        }
        let moved = self.moves();
        let list_moves = moved <= 4;
        for c in &self.changed {
            let only_moved = c.changes.iter().all(|x| matches!(x, Change::Moved { .. }));
            if only_moved && !list_moves {
                continue;
            }
            let what: Vec<String> = c.changes.iter().map(describe).collect();
            lines.push(format!("~ {}: {}", c.line, what.join("; ")));
        }
        if !list_moves {
            lines.push(format!(
                "~ {moved} elements moved (a scroll or a new layout); observe for their places"
            ));
        }
        let mut out = format!("{}\n", self.verdict());
        let total = lines.len();
        for line in lines.iter().take(MAX_DIFF_LINES) {
            out.push_str(line);
            out.push('\n');
        }
        if total > MAX_DIFF_LINES {
            out.push_str(&format!(
                "… {} more lines of changes: observe for the whole tree\n",
                total - MAX_DIFF_LINES
            ));
        }
        out
    }
}

fn state_word(state: ElementState) -> &'static str {
    use ElementState::*;
    match state {
        Focused => "focused",
        Checked => "checked",
        Indeterminate => "mixed",
        Selected => "selected",
        Expanded => "expanded",
        Enabled => "enabled",
        Pressed => "pressed",
        ReadOnly => "read-only",
        Required => "required",
        _ => "other state",
    }
}

impl Change {
    /// `now checked`, `name "a" → "b"`, …: as the diff's lines say it.
    pub fn describe(&self) -> String {
        describe(self)
    }
}

fn describe(change: &Change) -> String {
    match change {
        Change::Name { before, after } => {
            format!("name {} → {}", crate::tree_text::quote(before), crate::tree_text::quote(after))
        }
        Change::Gained(ElementState::Enabled) => "now enabled".into(),
        Change::Lost(ElementState::Enabled) => "now disabled".into(),
        Change::Gained(s) => format!("now {}", state_word(*s)),
        Change::Lost(s) => format!("no longer {}", state_word(*s)),
        Change::ValueAppeared => "now has a value".into(),
        Change::ValueGone => "no longer has a value".into(),
        Change::Omitted { before, after } => format!("{before} → {after} not shown"),
        Change::Moved { before, after } => {
            format!(
                "moved {}x{}+{}+{} → {}x{}+{}+{}",
                before.width,
                before.height,
                before.x,
                before.y,
                after.width,
                after.height,
                after.x,
                after.y
            )
        }
    }
}
