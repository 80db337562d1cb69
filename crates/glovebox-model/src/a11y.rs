//! Accessibility trees as the model sees them: elements with roles, names,
//! states, bounds and actions (never values), the fidelity an observation
//! could reach, what a budget cut off, and the compact text rendering a
//! model reads.

use crate::geometry::Rect;
use crate::role::Role;
use crate::window::WindowId;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// An element id, unique within one window's observations in this process
/// and stable for the same accessible object: `e12`. Ids below
/// [`crate::FIRST_SEEN_ID`] name what an application's tree reported,
/// the rest what glovebox read in a window's pixels ([`ElementId::origin`]);
/// each registry mints through [`ElementId::tree`] or [`ElementId::seen`],
/// so neither reaches into the other's (the number is private: nothing
/// else mints one, and a model's `e12` is parsed, not built).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementId(u32);

/// Where an element came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementOrigin {
    /// The application's accessibility tree reported it.
    Tree,
    /// glovebox read it in the window's pixels.
    Seen,
}

impl ElementId {
    /// The `n`-th id of the trees' registry (from 1); `None` once `n`
    /// would reach the seen ids.
    pub const fn tree(n: u32) -> Option<ElementId> {
        match n {
            0 => None,
            n if n < crate::FIRST_SEEN_ID => Some(ElementId(n)),
            _ => None,
        }
    }

    /// The `n`-th id of the seen elements' registry (from 0), starting
    /// over within the seen ids past their end.
    pub const fn seen(n: u32) -> ElementId {
        ElementId(crate::FIRST_SEEN_ID + n % (u32::MAX - crate::FIRST_SEEN_ID))
    }

    /// Whether a tree reported it or the pixels showed it.
    pub const fn origin(self) -> ElementOrigin {
        match self.0 < crate::FIRST_SEEN_ID {
            true => ElementOrigin::Tree,
            false => ElementOrigin::Seen,
        }
    }
}

impl fmt::Display for ElementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl std::str::FromStr for ElementId {
    type Err = crate::Refusal;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digits = text.trim().trim_start_matches('@');
        digits
            .strip_prefix('e')
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse().ok())
            .map(ElementId)
            .ok_or_else(|| {
                crate::Refusal::invalid_argument(format!(
                    "element id {text:?} is malformed: ids look like e12"
                ))
            })
    }
}

impl Serialize for ElementId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ElementId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(|e: crate::Refusal| serde::de::Error::custom(e.message))
    }
}

impl schemars::JsonSchema for ElementId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElementId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": "^e[0-9]+$" })
    }
}

/// The states glovebox reports. Absent means false.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ElementState {
    /// Accepts input; an actionable element without it shows as `disabled`.
    Enabled,
    /// Has the keyboard focus.
    Focused,
    /// Can take the keyboard focus.
    Focusable,
    /// Is on: a ticked check box, a chosen radio button, a toggle held in.
    Checked,
    /// Neither on nor off (a tri-state check box); the tree shows it as `mixed`.
    Indeterminate,
    /// Chosen in its list, table, tree or tab list.
    Selected,
    /// Shows its children (an open menu, an unfolded tree row).
    Expanded,
    /// Can show and hide its children; the tree shows `collapsed` while it is not expanded.
    Expandable,
    /// Takes typed text.
    Editable,
    /// On screen now: visible and not scrolled or clipped out of view.
    Showing,
    /// Meant to be seen, though perhaps scrolled out of view; some toolkits set only
    /// this one below the window, and the tree text trusts it there.
    Visible,
    /// The active window, or the active item of its container.
    Active,
    /// Held down (a toggle button that is on, a button being pressed).
    Pressed,
    /// A dialog that blocks input to the rest of its application.
    Modal,
    /// Its value can be read but not changed.
    ReadOnly,
    /// A form field that must be filled in.
    Required,
    /// A text field that takes more than one line.
    Multiline,
}

impl ElementState {
    /// Every state, in the order a set lists them.
    pub const ALL: [ElementState; 17] = [
        ElementState::Enabled,
        ElementState::Focused,
        ElementState::Focusable,
        ElementState::Checked,
        ElementState::Indeterminate,
        ElementState::Selected,
        ElementState::Expanded,
        ElementState::Expandable,
        ElementState::Editable,
        ElementState::Showing,
        ElementState::Visible,
        ElementState::Active,
        ElementState::Pressed,
        ElementState::Modal,
        ElementState::ReadOnly,
        ElementState::Required,
        ElementState::Multiline,
    ];

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// The states an element is in: a set, listed (and serialized) in
/// [`ElementState::ALL`]'s order whatever order they were added in.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ElementStates(u32);

impl ElementStates {
    /// Whether `state` is in the set.
    pub fn contains(self, state: ElementState) -> bool {
        self.0 & state.bit() != 0
    }

    /// Adds `state`; adding it again changes nothing.
    pub fn insert(&mut self, state: ElementState) {
        self.0 |= state.bit();
    }

    /// The states in the set, in [`ElementState::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = ElementState> {
        ElementState::ALL.into_iter().filter(move |s| self.contains(*s))
    }
}

impl FromIterator<ElementState> for ElementStates {
    fn from_iter<I: IntoIterator<Item = ElementState>>(states: I) -> Self {
        let mut set = ElementStates::default();
        states.into_iter().for_each(|s| set.insert(s));
        set
    }
}

impl<const N: usize> From<[ElementState; N]> for ElementStates {
    fn from(states: [ElementState; N]) -> Self {
        states.into_iter().collect()
    }
}

impl From<&[ElementState]> for ElementStates {
    fn from(states: &[ElementState]) -> Self {
        states.iter().copied().collect()
    }
}

impl std::fmt::Debug for ElementStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for ElementStates {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for ElementStates {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<ElementState>::deserialize(deserializer)?.into_iter().collect())
    }
}

impl schemars::JsonSchema for ElementStates {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElementStates".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<ElementState>>::json_schema(generator)
    }
}

/// How much of a window an observation could describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "level", rename_all = "kebab-case")]
pub enum Fidelity {
    /// The whole accessibility tree within the budgets.
    Full,
    /// A tree, but something is known to be missing; the reason says what.
    Partial {
        /// What is missing, in a sentence the tree's header shows.
        reason: String,
    },
    /// No accessibility tree: pixels are all there is. Never an empty tree.
    None {
        /// Why there is no tree (`XTerm exposes no accessibility`), shown in
        /// the header.
        reason: String,
    },
}

/// Which budget stopped a tree read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "budget", rename_all = "kebab-case")]
pub enum TruncatedBy {
    /// The window holds more elements than the node budget.
    Nodes {
        /// The budget: most elements one read takes.
        max: usize,
    },
    /// The tree goes deeper than the depth budget.
    Depth {
        /// The budget: most levels below the window's element.
        max: usize,
    },
    /// Reading took longer than the time budget.
    Deadline {
        /// The budget, in milliseconds.
        millis: u64,
    },
}

/// What a budget cut off, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Truncation {
    /// Which budget stopped the read.
    pub by: TruncatedBy,
    /// Elements whose children were not (all) read.
    pub at: Vec<ElementId>,
}

/// Limits of one tree read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeBudget {
    /// Most elements one read takes (1..=100000; 5000 by default).
    pub max_nodes: usize,
    /// Most levels below the window's element one read descends into
    /// (1..=1000; 64 by default).
    pub max_depth: usize,
    /// Longest one read may take, at most 60 s (3 s by default): a slow
    /// application is cut off, not waited for.
    pub deadline: Duration,
}

impl Default for TreeBudget {
    fn default() -> Self {
        TreeBudget { max_nodes: 5_000, max_depth: 64, deadline: Duration::from_secs(3) }
    }
}

impl TreeBudget {
    /// A budget whose limits lie in range: nodes in 1..=100000, depth in
    /// 1..=1000, deadline in (0, 60] s. Nothing is clamped.
    pub fn new(
        max_nodes: usize,
        max_depth: usize,
        deadline: Duration,
    ) -> Result<Self, crate::Refusal> {
        if !(1..=100_000).contains(&max_nodes) {
            return Err(crate::Refusal::invalid_argument(format!(
                "max nodes {max_nodes} is outside 1..=100000"
            )));
        }
        if !(1..=1_000).contains(&max_depth) {
            return Err(crate::Refusal::invalid_argument(format!(
                "max depth {max_depth} is outside 1..=1000"
            )));
        }
        if deadline.is_zero() || deadline > Duration::from_secs(60) {
            return Err(crate::Refusal::invalid_argument(
                "the deadline must lie in (0, 60] seconds",
            ));
        }
        Ok(TreeBudget { max_nodes, max_depth, deadline })
    }
}

/// Children that were counted but not walked (rows of a long list that are
/// off-screen), so the tree never drops them silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OmittedChildren {
    /// How many children were left out.
    pub count: usize,
    /// How to bring them into view, as the tree text shows it
    /// (`off-screen rows; scroll the table`).
    pub hint: String,
}

/// One accessible element. Values are never read; `has_value` says one exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Element {
    /// Its id in this window's observations (`@e12` in the tree text).
    pub id: ElementId,
    /// What kind of widget it is.
    pub role: Role,
    /// Its accessible name (a button's label, a field's label, a window's
    /// title); empty when the toolkit gives none.
    pub name: String,
    /// The toolkit's longer description, often a tooltip's text; empty when
    /// there is none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The states it is in.
    pub states: ElementStates,
    /// Relative to the window's client area; absent without a Component interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// In root (screen) coordinates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_bounds: Option<Rect>,
    /// It holds text or a number. The value itself is read only when a caller
    /// asks for this element ([`ElementValue`]).
    pub has_value: bool,
    /// What it says it can do, in the toolkit's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<crate::ElementAction>,
    /// The key chord the application binds to this element (a menu item's
    /// accelerator), e.g. `ctrl+s`, spelled as the `key` action takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortcut: Option<crate::KeyCombo>,
    /// The children that were read, in the toolkit's order. Hidden ones are
    /// here too; the tree text counts them instead of listing them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Element>,
    /// Children counted but not read, when a container (a long list or
    /// table) holds more than are on screen; filled by the backend's walk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted_children: Option<OmittedChildren>,
}

impl Element {
    /// An element with no states, bounds, value, actions or children: the
    /// base a backend (or a test) fills in.
    pub fn new(id: ElementId, role: Role, name: impl Into<String>) -> Element {
        Element {
            id,
            role,
            name: name.into(),
            description: String::new(),
            states: ElementStates::default(),
            bounds: None,
            screen_bounds: None,
            has_value: false,
            actions: vec![],
            shortcut: None,
            children: vec![],
            omitted_children: None,
        }
    }

    /// Whether it is in `state`.
    pub fn has(&self, state: ElementState) -> bool {
        self.states.contains(state)
    }

    /// Whether it is a password field, whose text is never read or captured.
    pub fn is_password(&self) -> bool {
        self.role.is_password()
    }

    /// Something an agent can act on: it has actions, takes text or a
    /// value, or can be focused or selected.
    pub fn is_actionable(&self) -> bool {
        !self.actions.is_empty()
            || self.has_value
            || self.has(ElementState::Editable)
            || self.has(ElementState::Focusable)
            || self.role.is_control()
    }

    /// Every element of the subtree, depth first.
    pub fn walk(&self) -> Box<dyn Iterator<Item = &Element> + '_> {
        Box::new(std::iter::once(self).chain(self.children.iter().flat_map(|c| c.walk())))
    }
}

/// The most characters one explicit read returns of one element.
pub const READ_MAX_CHARS: usize = 2_000;
/// The most elements one read may name.
pub const READ_MAX_ELEMENTS: usize = 20;

/// An element's value, read because the caller asked for exactly this
/// element (never as a side effect of listing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElementValue {
    /// The element that was read.
    pub id: ElementId,
    /// Its role, as the tree showed it.
    pub role: Role,
    /// The text (at most [`READ_MAX_CHARS`] characters of it), or the
    /// number a slider or spin button holds.
    pub text: String,
    /// Characters the element holds in all.
    pub total_chars: usize,
}

impl ElementValue {
    /// Whether `text` holds less than the whole value.
    pub fn truncated(&self) -> bool {
        self.text.chars().count() < self.total_chars
    }
}

/// One read of one window's accessibility tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AccessibilityTree {
    /// The window the tree was read from.
    pub window: WindowId,
    /// How much of the window the read could describe.
    pub fidelity: Fidelity,
    /// The window's accessible; absent exactly when fidelity is `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<Element>,
    /// Elements read, the root included.
    pub node_count: usize,
    /// What a budget cut off; absent when the walk finished within every budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// A password field has keyboard focus: input and capture must be refused.
    pub focused_password: bool,
    /// Milliseconds the read took.
    pub elapsed_ms: u64,
    /// Elements seen in the window's pixels, where the tree is missing or
    /// thin and the grant lets glovebox look at pixels ([`crate::seen`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<crate::SeenElement>,
    /// Seen elements past [`crate::seen::MAX_SEEN`], counted, not listed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seen_omitted: usize,
    /// glovebox's guidance for this application, on the grant's first look
    /// at the window ([`crate::guidance`]); glovebox's words, not the app's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guidance: Option<crate::guidance::Guidance>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl AccessibilityTree {
    /// The read of a window that exposes no tree, and why.
    pub fn without_tree(window: WindowId, reason: String) -> AccessibilityTree {
        AccessibilityTree {
            window,
            fidelity: Fidelity::None { reason },
            root: None,
            node_count: 0,
            truncated: None,
            focused_password: false,
            elapsed_ms: 0,
            seen: vec![],
            seen_omitted: 0,
            guidance: None,
        }
    }

    /// The element with `id`, if this read holds it.
    pub fn find(&self, id: ElementId) -> Option<&Element> {
        self.root.as_ref()?.walk().find(|e| e.id == id)
    }

    /// The seen element with `id`, if this read holds it.
    pub fn find_seen(&self, id: ElementId) -> Option<&crate::SeenElement> {
        self.seen.iter().find(|e| e.id == id)
    }

    /// The tree with its elements numbered `e1`, `e2`, … in reading order
    /// (depth first), as a reader that saw nothing before numbers them;
    /// what a budget cut names follows. A reader that lives on (a warm
    /// host) keeps each element's id across reads, so its numbers depend
    /// on what it read before: a one-shot read prints these instead.
    pub fn numbered_afresh(mut self) -> AccessibilityTree {
        fn number(element: &mut Element, next: &mut u32, map: &mut Vec<(ElementId, ElementId)>) {
            *next += 1;
            map.push((element.id, ElementId(*next)));
            element.id = ElementId(*next);
            for child in &mut element.children {
                number(child, next, map);
            }
        }
        let (mut next, mut map) = (0, vec![]);
        if let Some(root) = &mut self.root {
            number(root, &mut next, &mut map);
        }
        if let Some(truncated) = &mut self.truncated {
            for id in &mut truncated.at {
                if let Some((_, new)) = map.iter().find(|(old, _)| old == id) {
                    *id = *new;
                }
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ElementState::*;

    #[test]
    fn numbering_afresh_follows_reading_order_and_the_cut() {
        let leaf = |id| element(id, Role::PushButton, "b", &[], vec![]);
        let tree = AccessibilityTree {
            window: WindowId { pid: 1, handle: 2 },
            fidelity: Fidelity::Full,
            root: Some(element(
                40,
                Role::Frame,
                "w",
                &[],
                vec![element(7, Role::Panel, "p", &[], vec![leaf(90), leaf(3)]), leaf(12)],
            )),
            node_count: 5,
            truncated: Some(Truncation {
                by: TruncatedBy::Nodes { max: 5 },
                at: vec![ElementId(7)],
            }),
            focused_password: false,
            elapsed_ms: 1,
            seen: vec![],
            seen_omitted: 0,
            guidance: None,
        }
        .numbered_afresh();
        let ids: Vec<u32> = tree.root.as_ref().unwrap().walk().map(|e| e.id.0).collect();
        assert_eq!(ids, [1, 2, 3, 4, 5]);
        assert_eq!(tree.root.as_ref().unwrap().children[0].children[0].id, ElementId(3));
        assert_eq!(tree.truncated.unwrap().at, [ElementId(2)]);
    }

    fn element(
        id: u32,
        role: Role,
        name: &str,
        states: &[ElementState],
        children: Vec<Element>,
    ) -> Element {
        Element {
            states: states.into(),
            bounds: Some(Rect::new(0, 0, 10, 10)),
            children,
            ..Element::new(ElementId(id), role, name)
        }
    }

    fn sample() -> AccessibilityTree {
        let mut name = element(
            5,
            Role::Text,
            "Name",
            &[Enabled, Focusable, Focused, Editable, Showing, Visible],
            vec![],
        );
        name.has_value = true;
        let mut password = element(
            6,
            Role::PasswordText,
            "Password",
            &[Enabled, Focusable, Editable, Showing, Visible],
            vec![],
        );
        password.has_value = true;
        let mut submit =
            element(7, Role::PushButton, "Submit", &[Enabled, Focusable, Showing, Visible], vec![]);
        submit.actions = vec![crate::ElementAction::new("click")];
        let mut disabled =
            element(8, Role::PushButton, "Delete", &[Focusable, Showing, Visible], vec![]);
        disabled.actions = vec![crate::ElementAction::new("click")];
        let mut new_item = element(10, Role::MenuItem, "New", &[Enabled], vec![]);
        new_item.actions = vec![crate::ElementAction::new("click")];
        let mut file = element(
            9,
            Role::Menu,
            "File",
            &[Enabled, Showing, Visible, Expandable],
            vec![new_item],
        );
        file.actions = vec![crate::ElementAction::new("click")];
        let mut table = element(
            11,
            Role::Table,
            "",
            &[Enabled, Showing, Visible, Focusable],
            vec![element(
                12,
                Role::TableCell,
                "Row 0",
                &[Enabled, Showing, Visible, Selected],
                vec![],
            )],
        );
        table.omitted_children =
            Some(OmittedChildren { count: 199, hint: "off-screen rows; scroll the table".into() });
        let unnamed_panel = element(
            2,
            Role::Panel,
            "",
            &[Enabled, Showing, Visible],
            vec![name, password, submit, disabled],
        );
        let root = element(
            1,
            Role::Frame,
            "Fixture \"A\"",
            &[Enabled, Showing, Visible, Active],
            vec![
                element(3, Role::MenuBar, "", &[Enabled, Showing, Visible], vec![file]),
                unnamed_panel,
                table,
                element(13, Role::Label, "Ready", &[Enabled, Showing, Visible], vec![]),
                element(14, Role::Filler, "", &[Enabled, Showing, Visible], vec![]),
            ],
        );
        AccessibilityTree {
            window: WindowId { pid: 42, handle: 0x400003 },
            fidelity: Fidelity::Full,
            root: Some(root),
            node_count: 14,
            truncated: None,
            focused_password: false,
            elapsed_ms: 3,
            seen: vec![],
            seen_omitted: 0,
            guidance: None,
        }
    }

    #[test]
    fn text_rendering_prunes_noise_and_marks_actionable_elements() {
        let text = sample().render_text();
        let expected = "\
window 42/0x400003 · fidelity full · 14 elements
frame \"Fixture \\\"A\\\"\"
  @e9 menu \"File\" [collapsed] (+1 hidden)
  @e5 text \"Name\" [focused, has value]
  @e6 password text \"Password\" [has value]
  @e7 push button \"Submit\"
  @e8 push button \"Delete\" [disabled]
  @e11 table
    table cell \"Row 0\" [selected]
    … 199 more not shown: off-screen rows; scroll the table
  label \"Ready\"
";
        assert_eq!(text, expected);
    }

    #[test]
    fn truncation_password_focus_and_no_fidelity_are_announced() {
        let mut tree = sample();
        tree.truncated =
            Some(Truncation { by: TruncatedBy::Nodes { max: 14 }, at: vec![ElementId(11)] });
        tree.focused_password = true;
        let text = tree.render_text();
        assert!(text.contains("! truncated by the node budget (14): children of e11 not read"));
        assert!(text.contains("! a password field has focus"));
        let none = AccessibilityTree::without_tree(
            WindowId { pid: 1, handle: 2 },
            "XTerm exposes no accessibility".into(),
        );
        assert_eq!(none.render_text(), "window 1/0x2 · fidelity none (XTerm exposes no accessibility); no accessibility tree, use a screenshot · 0 elements\n");
        // Its pixels unread too (covered with no Composite, minimised): no screenshot advised.
        let unread = AccessibilityTree::without_tree(
            WindowId { pid: 1, handle: 2 },
            "Tk has no AT-SPI support; nothing read from its pixels: window 1/0x2 is minimised"
                .into(),
        );
        assert_eq!(unread.render_text(), "window 1/0x2 · fidelity none (Tk has no AT-SPI support; nothing read from its pixels: window 1/0x2 is minimised); no accessibility tree and no pixels · 0 elements\n");
    }

    #[test]
    fn element_ids_parse_and_print() {
        assert_eq!("e12".parse::<ElementId>().unwrap(), ElementId(12));
        // The two registries' spaces meet and never overlap.
        let last_tree = ElementId::tree(crate::FIRST_SEEN_ID - 1).unwrap();
        assert_eq!(last_tree.origin(), ElementOrigin::Tree);
        assert_eq!((ElementId::tree(0), ElementId::tree(crate::FIRST_SEEN_ID)), (None, None));
        assert_eq!(ElementId::seen(0), ElementId(crate::FIRST_SEEN_ID));
        assert_eq!(ElementId::seen(u32::MAX).origin(), ElementOrigin::Seen);
        assert_eq!("e1000003".parse::<ElementId>().unwrap().origin(), ElementOrigin::Seen);
        assert_eq!("@e7".parse::<ElementId>().unwrap(), ElementId(7));
        for bad in ["", "e", "12", "x12", "e-1", "e1.5", "e99999999999"] {
            assert!(bad.parse::<ElementId>().is_err(), "{bad:?}");
        }
        assert_eq!(serde_json::to_string(&ElementId(3)).unwrap(), "\"e3\"");
    }

    #[test]
    fn budgets_reject_zero_and_absurd_limits() {
        assert!(TreeBudget::new(0, 10, Duration::from_secs(1)).is_err());
        assert!(TreeBudget::new(10, 0, Duration::from_secs(1)).is_err());
        assert!(TreeBudget::new(10, 10, Duration::ZERO).is_err());
        assert!(TreeBudget::new(10, 10, Duration::from_secs(3600)).is_err());
        assert!(TreeBudget::new(20_000, 64, Duration::from_secs(3)).is_ok());
    }
}
