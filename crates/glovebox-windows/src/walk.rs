//! One walk of a window's tree within a budget, over any source of nodes
//! (UI Automation elements, MSAA objects and the window's child controls,
//! or a recorded tree in tests), with element ids that stay the same for
//! the same node across reads. The sources say what a node is; this module
//! alone decides ids, budgets, bounds and the password flag.

use glovebox_model::{
    AccessibilityTree, Element, ElementAction, ElementId, ElementState, ElementStates, Fidelity,
    Rect, Role, TreeBudget, TruncatedBy, Truncation, WindowInfo,
};
use glovebox_platform::{BackendError, BackendErrorKind};
use std::collections::HashMap;
use std::time::Instant;

/// What identifies a node across reads: a window handle (a control), an
/// item of a control (a list's row, an MSAA simple child), or a UI
/// Automation runtime id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NodeKey {
    /// A window or control by its handle.
    Window(u32),
    /// Item `index` (0-based) of the control `hwnd`.
    Item {
        /// The control holding the item.
        hwnd: u32,
        /// Its position among the control's items.
        index: u32,
    },
    /// A UI Automation element by its runtime id.
    Uia(Box<[i32]>),
}

/// What a source says of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    /// Its identity across reads.
    pub key: NodeKey,
    /// What it is.
    pub role: Role,
    /// Its accessible name.
    pub name: String,
    /// Its longer description (a tooltip).
    pub description: String,
    /// Its states.
    pub states: ElementStates,
    /// Where it is on the screen.
    pub screen_bounds: Option<Rect>,
    /// It holds text or a number.
    pub has_value: bool,
    /// What it says it can do.
    pub actions: Vec<ElementAction>,
}

/// A source's node: what it is and which nodes it holds.
pub trait Node: Sized {
    /// What the node says of itself; `None` when it is gone.
    fn describe(&self) -> Option<Described>;
    /// Its children, in the source's order.
    fn children(&self) -> Vec<Self>;
}

/// Element ids: minted on first sight of a node of a window, the same for
/// it afterwards, never handed to another node.
#[derive(Debug, Default)]
pub struct IdRegistry {
    next: u32,
    by_key: HashMap<(u32, NodeKey), (ElementId, Role)>,
    by_id: HashMap<ElementId, (u32, NodeKey)>,
}

impl IdRegistry {
    /// The id of `key` (of `role`) in window `window`; a node seen again
    /// with another role is another node and gets a new id.
    pub fn id_for(&mut self, window: u32, key: &NodeKey, role: Role) -> Option<ElementId> {
        let at = (window, key.clone());
        match self.by_key.get(&at) {
            Some(&(id, seen)) if seen == role => return Some(id),
            Some(&(old, _)) => {
                self.by_id.remove(&old);
            }
            None => {}
        }
        let id = ElementId::tree(self.next + 1)?;
        self.next += 1;
        self.by_key.insert(at, (id, role));
        self.by_id.insert(id, (window, key.clone()));
        Some(id)
    }

    /// The node `id` stands for, which must belong to `window`.
    pub fn resolve(&self, window: u32, id: ElementId) -> Result<NodeKey, BackendError> {
        match self.by_id.get(&id) {
            Some((owner, key)) if *owner == window => Ok(key.clone()),
            Some((owner, _)) => Err(BackendError::new(
                BackendErrorKind::StaleElement,
                format!("{id} belongs to window {owner:#x}, not {window:#x}; observe this window and use its ids"),
            )),
            None if ElementId::tree(self.next).is_some_and(|newest| id <= newest) => Err(
                BackendError::new(BackendErrorKind::StaleElement, format!("{id} is gone from the window; observe again and use the new ids")),
            ),
            None => Err(BackendError::new(
                BackendErrorKind::NotFound,
                format!("{id} was never issued; observe again and use the new ids"),
            )),
        }
    }
}

/// Reads `root`'s tree for `window` within `budget`. A root that is gone
/// is a window without a tree, never an empty one.
pub fn walk<N: Node>(
    root: N,
    window: &WindowInfo,
    budget: TreeBudget,
    ids: &mut IdRegistry,
) -> AccessibilityTree {
    let started = Instant::now();
    let mut state =
        Walk { window, budget, ids, started, count: 0, cut: None, focused_password: false };
    let Some(element) = state.element(&root, 0) else {
        return AccessibilityTree::without_tree(
            window.id,
            "the window's accessible object could not be read".into(),
        );
    };
    let truncated = state.cut.take();
    AccessibilityTree {
        window: window.id,
        fidelity: Fidelity::Full,
        root: Some(element),
        node_count: state.count,
        truncated,
        focused_password: state.focused_password,
        elapsed_ms: started.elapsed().as_millis() as u64,
        seen: vec![],
        seen_omitted: 0,
        guidance: None,
    }
}

struct Walk<'a> {
    window: &'a WindowInfo,
    budget: TreeBudget,
    ids: &'a mut IdRegistry,
    started: Instant,
    count: usize,
    cut: Option<Truncation>,
    focused_password: bool,
}

impl Walk<'_> {
    fn element<N: Node>(&mut self, node: &N, depth: usize) -> Option<Element> {
        let described = node.describe()?;
        let id = self.ids.id_for(self.window.id.handle, &described.key, described.role)?;
        self.count += 1;
        let mut element = Element::new(id, described.role, described.name);
        element.description = described.description;
        element.states = described.states;
        element.screen_bounds = described.screen_bounds;
        element.bounds = described.screen_bounds.map(|b| {
            Rect::new(b.x - self.window.geometry.x, b.y - self.window.geometry.y, b.width, b.height)
        });
        element.has_value = described.has_value && !element.is_password();
        element.actions = described.actions;
        if element.is_password() && element.has(ElementState::Focused) {
            self.focused_password = true;
        }
        // Children are listed before a budget is asked, so that a leaf is
        // never reported as cut.
        for child in node.children() {
            if let Some(by) = self.stop(depth) {
                self.cut(by, id);
                break;
            }
            if let Some(child) = self.element(&child, depth + 1) {
                element.children.push(child);
            }
        }
        Some(element)
    }

    /// The budget that forbids reading below a node at `depth`, if any.
    fn stop(&self, depth: usize) -> Option<TruncatedBy> {
        if self.count >= self.budget.max_nodes {
            Some(TruncatedBy::Nodes { max: self.budget.max_nodes })
        } else if depth >= self.budget.max_depth {
            Some(TruncatedBy::Depth { max: self.budget.max_depth })
        } else if self.started.elapsed() >= self.budget.deadline {
            Some(TruncatedBy::Deadline { millis: self.budget.deadline.as_millis() as u64 })
        } else {
            None
        }
    }

    fn cut(&mut self, by: TruncatedBy, at: ElementId) {
        let cut = self.cut.get_or_insert(Truncation { by, at: vec![] });
        if !cut.at.contains(&at) {
            cut.at.push(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::{PidSource, WindowId};

    #[derive(Clone)]
    struct Toy(u32, Role, Vec<Toy>);

    impl Node for Toy {
        fn describe(&self) -> Option<Described> {
            Some(Described {
                key: NodeKey::Window(self.0),
                role: self.1,
                name: format!("n{}", self.0),
                description: String::new(),
                states: [ElementState::Focused].into(),
                screen_bounds: Some(Rect::new(110, 220, 10, 10)),
                has_value: true,
                actions: vec![],
            })
        }
        fn children(&self) -> Vec<Toy> {
            self.2.clone()
        }
    }

    pub(crate) fn window() -> WindowInfo {
        WindowInfo {
            id: WindowId { pid: 7, handle: 0x10 },
            app: "fixture.exe".into(),
            instance: "fixture.exe".into(),
            title: "Fixture".into(),
            pid_source: PidSource::Server,
            geometry: Rect::new(100, 200, 400, 300),
            focused: false,
            minimized: false,
            desktop: Default::default(),
        }
    }

    #[test]
    fn ids_stay_with_their_nodes_bounds_are_window_relative_and_a_password_is_flagged() {
        let tree = Toy(
            1,
            Role::Frame,
            vec![Toy(2, Role::Entry, vec![]), Toy(3, Role::PasswordText, vec![])],
        );
        let mut ids = IdRegistry::default();
        let first = walk(tree.clone(), &window(), TreeBudget::default(), &mut ids);
        let second = walk(tree, &window(), TreeBudget::default(), &mut ids);
        assert_eq!(first.root, second.root);
        assert_eq!(first.node_count, 3);
        let root = first.root.unwrap();
        assert_eq!(root.bounds, Some(Rect::new(10, 20, 10, 10)));
        assert!(first.focused_password);
        let password = &root.children[1];
        assert!(!password.has_value, "a password's value is never offered");
        assert_eq!(ids.resolve(0x10, password.id).unwrap(), NodeKey::Window(3));
        assert_eq!(
            ids.resolve(0x11, password.id).unwrap_err().kind,
            BackendErrorKind::StaleElement
        );
    }

    #[test]
    fn a_budget_cuts_the_walk_and_says_where() {
        let tree = Toy(1, Role::Frame, (2..10).map(|n| Toy(n, Role::PushButton, vec![])).collect());
        let budget = TreeBudget::new(3, 64, std::time::Duration::from_secs(3)).unwrap();
        let read = walk(tree, &window(), budget, &mut IdRegistry::default());
        assert_eq!(read.node_count, 3);
        let cut = read.truncated.unwrap();
        assert_eq!(cut.by, TruncatedBy::Nodes { max: 3 });
        assert_eq!(cut.at, vec![read.root.unwrap().id]);
    }
}
