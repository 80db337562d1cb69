//! What an element says it can do: an AT-SPI action name (`click`,
//! `Press`, `menu.popup`, …) sorted once, where it is read, into the kinds
//! glovebox acts on. On the wire it is the name as the toolkit said it.

/// The kinds of element action glovebox tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// Does what a click does (`click`, `press`, `activate`, `jump`, `open`).
    Activate,
    /// Flips a switch or a check box (`toggle`).
    Toggle,
    /// Opens the element's context menu (`menu.popup`, `showmenu`).
    ContextMenu,
    /// Opens a menu some other way (a menu button's `open menu`): its key
    /// binding is a mnemonic that works only while that menu is open.
    OpensMenu,
    /// Chooses the element among its siblings (an option's `select`).
    Select,
    /// Any other name (`expand or contract`, `SetFocus`, …).
    Other,
}

/// One action an element offers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementAction {
    /// The name as the toolkit said it.
    pub name: String,
    /// What glovebox makes of the name.
    pub kind: ActionKind,
}

/// The click-like names in the order they are preferred when an element
/// offers several (a check box's `click` before its `toggle`).
const CLICK_LIKE: &[(&str, ActionKind)] = &[
    ("click", ActionKind::Activate),
    ("press", ActionKind::Activate),
    ("activate", ActionKind::Activate),
    ("toggle", ActionKind::Toggle),
    ("jump", ActionKind::Activate),
    ("open", ActionKind::Activate),
];

impl ElementAction {
    /// Sorts `name` (case does not matter: GTK says `click`, Qt `Press`).
    pub fn new(name: impl Into<String>) -> ElementAction {
        let name = name.into();
        let lower = name.trim().to_ascii_lowercase();
        let kind = match lower.as_str() {
            "menu.popup" | "showmenu" => ActionKind::ContextMenu,
            "select" => ActionKind::Select,
            other => match CLICK_LIKE.iter().find(|(n, _)| *n == other) {
                Some((_, kind)) => *kind,
                None if other.contains("menu") => ActionKind::OpensMenu,
                None => ActionKind::Other,
            },
        };
        ElementAction { name, kind }
    }

    /// Where this action stands among click-like ones (lower is preferred),
    /// or `None` when a click would not do it.
    pub fn click_rank(&self) -> Option<usize> {
        CLICK_LIKE.iter().position(|(n, _)| self.name.trim().eq_ignore_ascii_case(n))
    }

    /// Whether the action opens a menu (its key binding is then a mnemonic).
    pub fn opens_menu(&self) -> bool {
        matches!(self.kind, ActionKind::ContextMenu | ActionKind::OpensMenu)
    }
}

impl std::fmt::Display for ElementAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl serde::Serialize for ElementAction {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name)
    }
}

impl<'de> serde::Deserialize<'de> for ElementAction {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(ElementAction::new)
    }
}

/// In a schema it is the string it is on the wire, inline.
impl schemars::JsonSchema for ElementAction {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ElementAction".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_into_kinds_whatever_their_case() {
        assert_eq!(ElementAction::new("click").kind, ActionKind::Activate);
        assert_eq!(ElementAction::new("Press").kind, ActionKind::Activate);
        assert_eq!(ElementAction::new("toggle").kind, ActionKind::Toggle);
        assert_eq!(ElementAction::new("menu.popup").kind, ActionKind::ContextMenu);
        assert_eq!(ElementAction::new("ShowMenu").kind, ActionKind::ContextMenu);
        assert_eq!(ElementAction::new("open menu").kind, ActionKind::OpensMenu);
        assert!(ElementAction::new("open menu").opens_menu());
        assert_eq!(ElementAction::new("select").kind, ActionKind::Select);
        assert_eq!(ElementAction::new("expand or contract").kind, ActionKind::Other);
        assert_eq!(ElementAction::new("Toggle").click_rank(), Some(3));
        assert!(
            ElementAction::new("click").click_rank() < ElementAction::new("toggle").click_rank()
        );
        assert_eq!(ElementAction::new("SetFocus").click_rank(), None);
    }

    #[test]
    fn on_the_wire_an_action_is_its_name() {
        let action = ElementAction::new("Press");
        let json = serde_json::to_value(&action).unwrap();
        assert_eq!(json, serde_json::json!("Press"));
        assert_eq!(serde_json::from_value::<ElementAction>(json).unwrap(), action);
    }
}
