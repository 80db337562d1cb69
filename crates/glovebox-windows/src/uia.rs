//! UI Automation's elements as the walk's nodes: what an element says
//! (control type, name, states, the patterns it supports) turned into
//! glovebox's role, states and actions, over any source of elements — the
//! real `IUIAutomationElement` (Windows only, `win32/uia.rs`) or a tree
//! written down in JSON in the tests.
//!
//! Not yet run on Windows: under Wine 10 UI Automation finds no children
//! and supports no pattern, so the Wine suite never reaches this code;
//! it is tested here against written trees in the shape Windows' own
//! inspection tools show (docs/windows.md).

use crate::roles::uia_role;
use crate::walk::{Described, Node, NodeKey};
use glovebox_model::{ElementAction, ElementState, ElementStates, Rect};
use serde::Deserialize;

/// A toggle's state (`ToggleState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Toggle {
    /// Off.
    Off,
    /// On.
    On,
    /// Neither (a three-state check box).
    Indeterminate,
}

/// An expandable element's state (`ExpandCollapseState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expansion {
    /// Its children are hidden.
    Collapsed,
    /// Its children show.
    Expanded,
    /// Some show.
    PartiallyExpanded,
    /// It has nothing to show (a leaf of a tree).
    LeafNode,
}

/// The control patterns an element supports, with the state each reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Patterns {
    /// `InvokePattern`: it does something when clicked.
    pub invoke: bool,
    /// `ValuePattern`, and whether its value is read-only.
    pub value: Option<ValueState>,
    /// `RangeValuePattern` (a slider, a spinner).
    pub range_value: bool,
    /// `TogglePattern`, with its state.
    pub toggle: Option<Toggle>,
    /// `SelectionItemPattern`, and whether it is selected.
    pub selection_item: Option<bool>,
    /// `ExpandCollapsePattern`, with its state.
    pub expand_collapse: Option<Expansion>,
}

/// What a `ValuePattern` says of itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct ValueState {
    /// `IsReadOnly`.
    #[serde(default)]
    pub read_only: bool,
}

/// What the walk asks of a UI Automation element.
pub trait UiaElement: Sized {
    /// Its runtime id, which identifies it while it lives.
    fn runtime_id(&self) -> Option<Vec<i32>>;
    /// `UIA_*ControlTypeId`.
    fn control_type(&self) -> i32;
    /// `Name`.
    fn name(&self) -> String;
    /// `HelpText`.
    fn help_text(&self) -> String;
    /// `IsPassword`.
    fn is_password(&self) -> bool;
    /// `IsEnabled`.
    fn is_enabled(&self) -> bool;
    /// `IsOffscreen`.
    fn is_offscreen(&self) -> bool;
    /// `HasKeyboardFocus`.
    fn has_keyboard_focus(&self) -> bool;
    /// `IsKeyboardFocusable`.
    fn is_keyboard_focusable(&self) -> bool;
    /// `BoundingRectangle`, in screen coordinates; `None` when empty.
    fn bounds(&self) -> Option<Rect>;
    /// The patterns it supports.
    fn patterns(&self) -> Patterns;
    /// Its children in the control view.
    fn children(&self) -> Vec<Self>;
}

/// What an element with `patterns`, `enabled`, `focused` … is in glovebox's
/// words: its states and its actions, in the order they are preferred.
pub fn states_and_actions(
    element: &impl UiaElement,
    patterns: &Patterns,
) -> (ElementStates, Vec<ElementAction>) {
    let mut states = ElementStates::default();
    let mut on = |yes: bool, state| {
        if yes {
            states.insert(state);
        }
    };
    on(element.is_enabled(), ElementState::Enabled);
    on(!element.is_offscreen(), ElementState::Visible);
    on(!element.is_offscreen(), ElementState::Showing);
    on(element.has_keyboard_focus(), ElementState::Focused);
    on(element.is_keyboard_focusable(), ElementState::Focusable);
    on(patterns.toggle == Some(Toggle::On), ElementState::Checked);
    on(patterns.toggle == Some(Toggle::Indeterminate), ElementState::Indeterminate);
    on(patterns.selection_item == Some(true), ElementState::Selected);
    let expandable = matches!(
        patterns.expand_collapse,
        Some(Expansion::Collapsed | Expansion::Expanded | Expansion::PartiallyExpanded)
    );
    on(expandable, ElementState::Expandable);
    on(
        matches!(
            patterns.expand_collapse,
            Some(Expansion::Expanded | Expansion::PartiallyExpanded)
        ),
        ElementState::Expanded,
    );
    match patterns.value {
        Some(ValueState { read_only: true }) => on(true, ElementState::ReadOnly),
        Some(ValueState { read_only: false })
            if element.control_type() == crate::roles::uia_control::EDIT =>
        {
            on(true, ElementState::Editable)
        }
        _ => {}
    }
    let mut actions = vec![];
    if patterns.invoke {
        actions.push(ElementAction::new("click"));
    }
    if patterns.toggle.is_some() {
        actions.push(ElementAction::new("toggle"));
    }
    if patterns.selection_item.is_some() {
        actions.push(ElementAction::new("select"));
    }
    if expandable {
        actions.push(ElementAction::new("expand or collapse"));
    }
    (states, actions)
}

/// A UI Automation element as a node of the walk.
#[derive(Debug, Clone)]
pub struct Uia<E>(pub E);

impl<E: UiaElement> Node for Uia<E> {
    fn describe(&self) -> Option<Described> {
        let element = &self.0;
        // An element without a runtime id cannot be found again: it is not listed.
        let key = NodeKey::Uia(element.runtime_id()?.into_boxed_slice());
        let patterns = element.patterns();
        let (states, actions) = states_and_actions(element, &patterns);
        Some(Described {
            key,
            role: uia_role(element.control_type(), element.is_password()),
            name: element.name(),
            description: element.help_text(),
            states,
            screen_bounds: element.bounds(),
            has_value: patterns.value.is_some() || patterns.range_value,
            actions,
        })
    }

    fn children(&self) -> Vec<Uia<E>> {
        self.0.children().into_iter().map(Uia).collect()
    }
}

/// A UI Automation tree written down (in the tests: the shape Windows'
/// inspection tools show), as an element source.
#[derive(Debug, Clone, Deserialize)]
pub struct WrittenElement {
    /// The runtime id.
    pub runtime_id: Vec<i32>,
    /// The control type id.
    pub control_type: i32,
    /// The name.
    #[serde(default)]
    pub name: String,
    /// The help text.
    #[serde(default)]
    pub help_text: String,
    /// `IsPassword`.
    #[serde(default)]
    pub password: bool,
    /// `IsEnabled` (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// `IsOffscreen`.
    #[serde(default)]
    pub offscreen: bool,
    /// `HasKeyboardFocus`.
    #[serde(default)]
    pub focused: bool,
    /// `IsKeyboardFocusable`.
    #[serde(default)]
    pub focusable: bool,
    /// `[x, y, width, height]` on the screen.
    #[serde(default)]
    pub rect: Option<[i32; 4]>,
    /// The supported patterns.
    #[serde(default)]
    pub patterns: Patterns,
    /// The children.
    #[serde(default)]
    pub children: Vec<WrittenElement>,
}

fn yes() -> bool {
    true
}

impl UiaElement for WrittenElement {
    fn runtime_id(&self) -> Option<Vec<i32>> {
        Some(self.runtime_id.clone())
    }
    fn control_type(&self) -> i32 {
        self.control_type
    }
    fn name(&self) -> String {
        self.name.clone()
    }
    fn help_text(&self) -> String {
        self.help_text.clone()
    }
    fn is_password(&self) -> bool {
        self.password
    }
    fn is_enabled(&self) -> bool {
        self.enabled
    }
    fn is_offscreen(&self) -> bool {
        self.offscreen
    }
    fn has_keyboard_focus(&self) -> bool {
        self.focused
    }
    fn is_keyboard_focusable(&self) -> bool {
        self.focusable
    }
    fn bounds(&self) -> Option<Rect> {
        let [x, y, w, h] = self.rect?;
        (w > 0 && h > 0).then(|| Rect::new(x, y, w as u32, h as u32))
    }
    fn patterns(&self) -> Patterns {
        self.patterns.clone()
    }
    fn children(&self) -> Vec<WrittenElement> {
        self.children.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::{walk, IdRegistry};
    use glovebox_model::{PidSource, Role, TreeBudget, WindowId, WindowInfo};

    fn window() -> WindowInfo {
        WindowInfo {
            id: WindowId { pid: 4120, handle: 0x3_02a4 },
            app: "SignIn.exe".into(),
            instance: "#32770".into(),
            title: "Sign in".into(),
            pid_source: PidSource::Server,
            geometry: Rect::new(300, 200, 420, 260),
            focused: true,
            minimized: false,
            desktop: Default::default(),
        }
    }

    /// A sign-in dialog written as Windows' inspection tools show one: a
    /// window holding a user edit, a focused password edit, a "Remember
    /// me" check box that is on, a collapsed combo box of domains, a
    /// disabled OK button and Cancel.
    const DIALOG: &str = r#"{
        "runtime_id": [42, 197284], "control_type": 50032, "name": "Sign in", "rect": [300, 200, 420, 260],
        "children": [
            {"runtime_id": [42, 197285], "control_type": 50004, "name": "User name", "focusable": true,
             "rect": [400, 220, 200, 24], "patterns": {"value": {"read_only": false}}},
            {"runtime_id": [42, 197286], "control_type": 50004, "name": "Password", "password": true,
             "focused": true, "focusable": true, "rect": [400, 254, 200, 24],
             "patterns": {"value": {"read_only": false}}},
            {"runtime_id": [42, 197287], "control_type": 50002, "name": "Remember me", "focusable": true,
             "rect": [400, 288, 160, 20], "patterns": {"toggle": "on"}},
            {"runtime_id": [42, 197288], "control_type": 50003, "name": "Domain", "focusable": true,
             "rect": [400, 316, 200, 24], "patterns": {"expand_collapse": "collapsed", "value": {"read_only": true}},
             "children": [
                {"runtime_id": [42, 197289], "control_type": 50007, "name": "CORP", "offscreen": true,
                 "patterns": {"selection_item": true}}
             ]},
            {"runtime_id": [42, 197290], "control_type": 50000, "name": "OK", "enabled": false,
             "rect": [500, 420, 80, 28], "patterns": {"invoke": true}},
            {"runtime_id": [42, 197291], "control_type": 50000, "name": "Cancel", "focusable": true,
             "rect": [600, 420, 80, 28], "patterns": {"invoke": true}}
        ]
    }"#;

    #[test]
    fn a_written_uia_dialog_becomes_the_tree_the_host_reads() {
        let root: WrittenElement = serde_json::from_str(DIALOG).unwrap();
        let mut ids = IdRegistry::default();
        let tree = walk(Uia(root.clone()), &window(), TreeBudget::default(), &mut ids);
        assert_eq!(tree.node_count, 8);
        assert!(tree.focused_password, "the password edit holds the focus");
        let top = tree.root.as_ref().unwrap();
        assert_eq!((top.role, top.name.as_str()), (Role::Frame, "Sign in"));
        let [user, password, remember, domain, ok, cancel] = &top.children[..] else {
            panic!("{top:?}")
        };
        assert_eq!(user.role, Role::Entry);
        assert!(user.has(ElementState::Editable) && user.has_value);
        assert_eq!(user.bounds, Some(Rect::new(100, 20, 200, 24)), "window-relative");
        assert_eq!(password.role, Role::PasswordText);
        assert!(!password.has_value, "a password's value is never offered");
        assert!(remember.has(ElementState::Checked));
        assert_eq!(remember.actions[0].name, "toggle");
        assert!(domain.has(ElementState::Expandable) && !domain.has(ElementState::Expanded));
        assert!(domain.has(ElementState::ReadOnly));
        let corp = &domain.children[0];
        assert_eq!(corp.role, Role::ListItem);
        assert!(corp.has(ElementState::Selected) && !corp.has(ElementState::Showing));
        assert!(!ok.has(ElementState::Enabled) && ok.actions[0].name == "click");
        assert!(cancel.has(ElementState::Enabled));
        // The same elements keep their ids on the next read.
        let again = walk(Uia(root), &window(), TreeBudget::default(), &mut ids);
        assert_eq!(again.root, tree.root);
    }

    #[test]
    fn an_element_without_a_runtime_id_is_not_listed() {
        struct NoId;
        impl UiaElement for NoId {
            fn runtime_id(&self) -> Option<Vec<i32>> {
                None
            }
            fn control_type(&self) -> i32 {
                50000
            }
            fn name(&self) -> String {
                "ghost".into()
            }
            fn help_text(&self) -> String {
                String::new()
            }
            fn is_password(&self) -> bool {
                false
            }
            fn is_enabled(&self) -> bool {
                true
            }
            fn is_offscreen(&self) -> bool {
                false
            }
            fn has_keyboard_focus(&self) -> bool {
                false
            }
            fn is_keyboard_focusable(&self) -> bool {
                false
            }
            fn bounds(&self) -> Option<Rect> {
                None
            }
            fn patterns(&self) -> Patterns {
                Patterns::default()
            }
            fn children(&self) -> Vec<NoId> {
                vec![]
            }
        }
        let tree = walk(Uia(NoId), &window(), TreeBudget::default(), &mut IdRegistry::default());
        assert!(tree.root.is_none(), "no tree rather than an element that cannot be found again");
    }
}
