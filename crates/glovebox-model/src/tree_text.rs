//! The compact text a model reads of an accessibility tree: one line per
//! element that matters, `@id` on actionable ones. The same lines rendered
//! whole, under one element, or folded to fit a token budget; diffs
//! ([`crate::diff`]) compare trees line by line in the same terms.

use crate::a11y::{AccessibilityTree, Element, ElementId, ElementState, Fidelity, TruncatedBy};

/// What a rendered line stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// The element itself.
    Element,
    /// The element's children that were counted but not read.
    Omitted,
}

/// One line of the rendered tree.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    /// Levels of indentation (two spaces each) below the root's line.
    pub depth: usize,
    /// The element the line stands for; on an omitted-children line, the
    /// element whose children were left out.
    pub element: &'a Element,
    /// Whether the line shows the element or its omitted children.
    pub kind: LineKind,
    /// The line of the nearest ancestor that has one.
    pub parent: Option<usize>,
    /// The line without its indentation.
    pub text: String,
}

/// A token estimate: about four characters of this text per token, the
/// rule of thumb of the providers' tokenizers for English and code.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The fewest tokens a budgeted observation may be asked for.
pub const MIN_TOKENS: usize = 200;
/// The most tokens a budgeted observation may be asked for.
pub const MAX_TOKENS: usize = 200_000;

/// A bound on the tokens of one observation's text tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenBudget(usize);

impl TokenBudget {
    /// A budget of `max_tokens`, refused outside [`MIN_TOKENS`]..=[`MAX_TOKENS`].
    pub fn new(max_tokens: usize) -> Result<TokenBudget, crate::Refusal> {
        match (MIN_TOKENS..=MAX_TOKENS).contains(&max_tokens) {
            true => Ok(TokenBudget(max_tokens)),
            false => Err(crate::Refusal::invalid_argument(format!(
                "max_tokens {max_tokens} is outside {MIN_TOKENS}..={MAX_TOKENS}"
            ))),
        }
    }

    /// The most tokens the text may take.
    pub fn tokens(self) -> usize {
        self.0
    }
}

/// A tree's text within a token budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetedText {
    /// The header and the lines that fit, each fold marked; the whole
    /// rendering when all of it fits.
    pub text: String,
    /// Estimated tokens of `text` ([`estimate_tokens`]).
    pub tokens: usize,
    /// The budget the text was fitted to.
    pub max_tokens: usize,
    /// Lines of the whole rendering left out (each fold says how many and
    /// how to see them).
    pub folded_lines: usize,
}

pub(crate) fn quote(text: &str) -> String {
    let single_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let trimmed: String = single_line.trim().chars().take(120).collect();
    let ellipsis = if single_line.trim().chars().count() > 120 { "…" } else { "" };
    // Bidirectional and invisible characters shown escaped: a name cannot reorder or hide the line.
    format!("\"{}{ellipsis}\"", crate::visible(&trimmed).replace('"', "\\\""))
}

/// The state flags a line shows.
pub(crate) fn flags(e: &Element) -> Vec<&'static str> {
    use ElementState::*;
    let mut flags = vec![];
    let actionable = e.is_actionable();
    if e.has(Focused) {
        flags.push("focused");
    }
    if e.has(Checked) {
        flags.push("checked");
    } else if e.has(Indeterminate) {
        flags.push("mixed");
    }
    if e.has(Selected) {
        flags.push("selected");
    }
    if e.has(Expanded) {
        flags.push("expanded");
    } else if e.has(Expandable) {
        flags.push("collapsed");
    }
    if actionable && !e.has(Enabled) {
        flags.push("disabled");
    }
    if e.has(ReadOnly) {
        flags.push("read-only");
    }
    if e.has(Required) {
        flags.push("required");
    }
    if e.has_value {
        flags.push("has value");
    }
    flags
}

/// Whether an element gets a line of its own.
fn matters(e: &Element) -> bool {
    e.is_actionable() || !e.name.trim().is_empty() || e.omitted_children.is_some()
}

/// Whether a child is on screen. Some toolkits (GTK 4.8) never set
/// `showing` below the window and only say `visible`; trust `visible` there.
fn is_shown(e: &Element, toolkit_sets_showing: bool) -> bool {
    e.has(ElementState::Showing) || (!toolkit_sets_showing && e.has(ElementState::Visible))
}

/// An element's line without indentation: `@e7 push button "Submit" [focused]`.
pub fn element_line(e: &Element, hidden_children: usize) -> String {
    let mut out = String::new();
    if e.is_actionable() {
        out.push_str(&format!("@{} ", e.id));
    }
    out.push_str(e.role.name());
    if !e.name.trim().is_empty() {
        out.push(' ');
        out.push_str(&quote(&e.name));
    }
    let flags = flags(e);
    if !flags.is_empty() {
        out.push_str(&format!(" [{}]", flags.join(", ")));
    }
    if let Some(shortcut) = &e.shortcut {
        out.push_str(&format!(" <{shortcut}>"));
    }
    if hidden_children > 0 {
        out.push_str(&format!(" (+{hidden_children} hidden)"));
    }
    out
}

fn collect<'a>(
    e: &'a Element,
    depth: usize,
    parent: Option<usize>,
    showing: bool,
    is_root: bool,
    out: &mut Vec<Line<'a>>,
) {
    let (shown, hidden): (Vec<&Element>, Vec<&Element>) =
        e.children.iter().partition(|c| is_shown(c, showing));
    if !is_root && !matters(e) {
        // An unnamed container: its children take its place.
        for child in shown {
            collect(child, depth, parent, showing, false, out);
        }
        return;
    }
    let me = out.len();
    out.push(Line {
        depth,
        element: e,
        kind: LineKind::Element,
        parent,
        text: element_line(e, hidden.len()),
    });
    for child in shown {
        collect(child, depth + 1, Some(me), showing, false, out);
    }
    if let Some(omitted) = &e.omitted_children {
        out.push(Line {
            depth: depth + 1,
            element: e,
            kind: LineKind::Omitted,
            parent: Some(me),
            text: format!("… {} more not shown: {}", omitted.count, omitted.hint),
        });
    }
}

fn lines_to_text(head: String, lines: &[Line]) -> String {
    let mut out = head;
    for line in lines {
        out.push_str(&"  ".repeat(line.depth));
        out.push_str(&line.text);
        out.push('\n');
    }
    out
}

impl AccessibilityTree {
    fn sets_showing(&self) -> bool {
        self.root.as_ref().is_some_and(|root| {
            root.children.iter().flat_map(|c| c.walk()).any(|e| e.has(ElementState::Showing))
        })
    }

    /// The rendered lines, in reading order (depth first).
    pub fn lines(&self) -> Vec<Line<'_>> {
        let mut out = vec![];
        if let Some(root) = &self.root {
            collect(root, 0, None, self.sets_showing(), true, &mut out);
        }
        out
    }

    /// The header: window, fidelity, element count, and what a budget or a
    /// focused password field withheld.
    pub fn header(&self) -> String {
        let mut out = format!("window {} · fidelity ", self.window);
        match &self.fidelity {
            Fidelity::Full => out.push_str("full"),
            Fidelity::Partial { reason } => out.push_str(&format!("partial ({reason})")),
            Fidelity::None { reason } if reason.contains(crate::PIXELS_UNREAD) => {
                out.push_str(&format!("none ({reason}); no accessibility tree and no pixels"))
            }
            Fidelity::None { reason } if self.seen.is_empty() => {
                out.push_str(&format!("none ({reason}); no accessibility tree, use a screenshot"))
            }
            Fidelity::None { reason } => out.push_str(&format!(
                "none ({reason}); no accessibility tree, elements seen in the pixels below"
            )),
        }
        out.push_str(&format!(" · {} elements\n", self.node_count));
        if self.focused_password {
            out.push_str(
                "! a password field has focus: input and capture are refused while it does\n",
            );
        }
        if let Some(t) = &self.truncated {
            let by = match t.by {
                TruncatedBy::Nodes { max } => format!("the node budget ({max})"),
                TruncatedBy::Depth { max } => format!("the depth budget ({max})"),
                TruncatedBy::Deadline { millis } => format!("the deadline ({millis} ms)"),
            };
            let at: Vec<String> = t.at.iter().take(8).map(|id| id.to_string()).collect();
            let more = if t.at.len() > 8 {
                format!(" and {} more", t.at.len() - 8)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "! truncated by {by}: children of {}{more} not read\n",
                at.join(", ")
            ));
        }
        out
    }

    /// The compact text a model reads: one line per element that matters
    /// (actionable, or named), two spaces per level, `@id` on actionable
    /// elements, role, quoted name and state flags. Unnamed containers are
    /// dropped (their children move up), hidden children are counted, and
    /// omitted children are summarised; nothing disappears silently.
    pub fn render_text(&self) -> String {
        lines_to_text(self.header(), &self.lines()) + &self.seen_text()
    }

    /// The sections after the tree: the seen elements ([`crate::seen::seen_section`]), then
    /// glovebox's guidance for the application, each under its own header.
    pub fn seen_text(&self) -> String {
        crate::seen::seen_section(&self.seen, self.seen_omitted)
            + &self.guidance.as_ref().map(|g| g.section()).unwrap_or_default()
    }

    /// The text of the subtree under `id` alone (the way to expand what a
    /// budget folded), or `None` when the tree has no such element.
    pub fn render_within(&self, id: ElementId) -> Option<String> {
        let element = self.find(id)?;
        let mut lines = vec![];
        collect(element, 0, None, self.sets_showing(), true, &mut lines);
        Some(lines_to_text(format!("{}under {id} only:\n", self.header()), &lines))
    }

    /// The text within `budget`: the shallowest lines first, in reading
    /// order; every element whose lines below did not fit says how many
    /// were folded and how to read them. Never silently shorter.
    pub fn render_budgeted(&self, budget: TokenBudget) -> BudgetedText {
        let seen = self.seen_text();
        // The seen and guidance sections are kept whole (both are capped where they are made);
        // the tree folds around them.
        let budget_max = budget.tokens();
        let max = budget_max.saturating_sub(estimate_tokens(&seen)).max(1);
        let lines = self.lines();
        let whole = lines_to_text(self.header(), &lines) + &seen;
        let whole_tokens = estimate_tokens(&whole);
        if whole_tokens <= budget_max {
            return BudgetedText {
                text: whole,
                tokens: whole_tokens,
                max_tokens: budget_max,
                folded_lines: 0,
            };
        }
        let head = format!("{}! folded to fit {max} tokens: shallow lines first; a fold names the element to observe `within`\n", self.header());
        // Lines in the order they are kept: by depth, then reading order.
        // Any prefix of it keeps every kept line's parent.
        let mut order: Vec<usize> = (0..lines.len()).collect();
        order.sort_by_key(|&i| (lines[i].depth, i));
        let cost: Vec<usize> =
            lines.iter().map(|l| estimate_tokens(&l.text) + l.depth / 2 + 1).collect();
        let mut room = max.saturating_sub(estimate_tokens(&head));
        let mut kept = 0;
        for &i in &order {
            if cost[i] > room {
                break;
            }
            room -= cost[i];
            kept += 1;
        }
        // The root's line always stays (a tree with no lines has only its header).
        let floor = order.len().min(1);
        kept = kept.max(floor);
        loop {
            let text = fold(&head, &lines, &order[..kept]) + &seen;
            let tokens = estimate_tokens(&text);
            if tokens <= budget_max || kept <= floor {
                return BudgetedText {
                    text,
                    tokens,
                    max_tokens: budget_max,
                    folded_lines: lines.len() - kept,
                };
            }
            kept -= 1;
        }
    }
}

/// The kept lines in reading order, each element with lines left out
/// followed by one line saying how many and how to read them.
fn fold(head: &str, lines: &[Line], kept_order: &[usize]) -> String {
    let mut kept = vec![false; lines.len()];
    for &i in kept_order {
        kept[i] = true;
    }
    // Lines left out, counted at their nearest kept ancestor.
    let mut folded_under = vec![0usize; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        if kept[i] {
            continue;
        }
        let mut up = line.parent;
        while let Some(p) = up {
            if kept[p] {
                folded_under[p] += 1;
                break;
            }
            up = lines[p].parent;
        }
    }
    let mut out = head.to_owned();
    let mut pending: Vec<(usize, String)> = vec![];
    let flush = |out: &mut String, pending: &mut Vec<(usize, String)>, depth: Option<usize>| {
        while pending.last().is_some_and(|(d, _)| depth.is_none_or(|depth| *d >= depth)) {
            let (d, text) = pending.pop().expect("checked");
            out.push_str(&"  ".repeat(d + 1));
            out.push_str(&text);
            out.push('\n');
        }
    };
    for (i, line) in lines.iter().enumerate() {
        flush(&mut out, &mut pending, Some(line.depth));
        if !kept[i] {
            continue;
        }
        out.push_str(&"  ".repeat(line.depth));
        out.push_str(&line.text);
        out.push('\n');
        if folded_under[i] > 0 {
            pending.push((
                line.depth,
                format!(
                    "… {} more lines folded: observe {{\"within\": \"{}\"}}",
                    folded_under[i], line.element.id
                ),
            ));
        }
    }
    flush(&mut out, &mut pending, None);
    out
}
