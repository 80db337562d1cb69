//! Translation: AT-SPI's numeric roles, state bit sets and interface lists
//! into the model's role names, [`ElementState`]s and `has_value`.

use glovebox_model::ElementState;

/// AT-SPI role names by role number (`AtspiRole`), as `atspi_role_get_name` spells them.
const ROLE_NAMES: [&str; 130] = [
    "invalid",
    "accelerator label",
    "alert",
    "animation",
    "arrow",
    "calendar",
    "canvas",
    "check box",
    "check menu item",
    "color chooser",
    "column header",
    "combo box",
    "date editor",
    "desktop icon",
    "desktop frame",
    "dial",
    "dialog",
    "directory pane",
    "drawing area",
    "file chooser",
    "filler",
    "focus traversable",
    "font chooser",
    "frame",
    "glass pane",
    "html container",
    "icon",
    "image",
    "internal frame",
    "label",
    "layered pane",
    "list",
    "list item",
    "menu",
    "menu bar",
    "menu item",
    "option pane",
    "page tab",
    "page tab list",
    "panel",
    "password text",
    "popup menu",
    "progress bar",
    "push button",
    "radio button",
    "radio menu item",
    "root pane",
    "row header",
    "scroll bar",
    "scroll pane",
    "separator",
    "slider",
    "spin button",
    "split pane",
    "status bar",
    "table",
    "table cell",
    "table column header",
    "table row header",
    "tearoff menu item",
    "terminal",
    "text",
    "toggle button",
    "tool bar",
    "tool tip",
    "tree",
    "tree table",
    "unknown",
    "viewport",
    "window",
    "extended",
    "header",
    "footer",
    "paragraph",
    "ruler",
    "application",
    "autocomplete",
    "editbar",
    "embedded",
    "entry",
    "chart",
    "caption",
    "document frame",
    "heading",
    "page",
    "section",
    "redundant object",
    "form",
    "link",
    "input method window",
    "table row",
    "tree item",
    "document spreadsheet",
    "document presentation",
    "document text",
    "document web",
    "document email",
    "comment",
    "list box",
    "grouping",
    "image map",
    "notification",
    "info bar",
    "level bar",
    "title bar",
    "block quote",
    "audio",
    "video",
    "definition",
    "article",
    "landmark",
    "log",
    "marquee",
    "math",
    "rating",
    "timer",
    "static",
    "math fraction",
    "math root",
    "subscript",
    "superscript",
    "description list",
    "description term",
    "description value",
    "footnote",
    "content deletion",
    "content insertion",
    "mark",
    "suggestion",
    "push button menu",
];

pub const ROLE_PASSWORD_TEXT: u32 = 40;

/// Roles whose hidden children still matter: a closed menu's items can be
/// activated without opening it.
pub fn is_menu_like(role: u32) -> bool {
    // combo box, menu, menu bar, menu item, popup menu, check/radio menu item
    matches!(role, 11 | 33 | 34 | 35 | 41 | 8 | 45)
}

pub fn role_name(role: u32) -> String {
    ROLE_NAMES.get(role as usize).map(|s| (*s).to_owned()).unwrap_or_else(|| format!("role {role}"))
}

// AtspiStateType bit numbers.
pub const ACTIVE: u32 = 1;
const CHECKED: u32 = 4;
pub const EDITABLE: u32 = 7;
const ENABLED: u32 = 8;
const EXPANDABLE: u32 = 9;
const EXPANDED: u32 = 10;
pub const FOCUSABLE: u32 = 11;
pub const FOCUSED: u32 = 12;
const MODAL: u32 = 16;
const MULTI_LINE: u32 = 17;
const PRESSED: u32 = 20;
pub const SELECTABLE: u32 = 22;
pub const SELECTED: u32 = 23;
const SENSITIVE: u32 = 24;
pub const SHOWING: u32 = 25;
pub const VISIBLE: u32 = 30;
pub const MANAGES_DESCENDANTS: u32 = 31;
const INDETERMINATE: u32 = 32;
const REQUIRED: u32 = 33;
const READ_ONLY: u32 = 43;
pub const DEFUNCT: u32 = 6;

/// AT-SPI sends states as two 32-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StateBits(pub u64);

impl StateBits {
    pub fn from_words(words: &[u32]) -> StateBits {
        let low = words.first().copied().unwrap_or(0) as u64;
        let high = words.get(1).copied().unwrap_or(0) as u64;
        StateBits(low | high << 32)
    }

    pub fn has(self, bit: u32) -> bool {
        self.0 & (1 << bit) != 0
    }

    pub fn to_states(self) -> Vec<ElementState> {
        use ElementState::*;
        // GTK marks insensitive widgets by dropping both ENABLED and SENSITIVE.
        let table = [
            (ENABLED, Enabled),
            (FOCUSED, Focused),
            (FOCUSABLE, Focusable),
            (CHECKED, Checked),
            (INDETERMINATE, Indeterminate),
            (SELECTED, Selected),
            (EXPANDED, Expanded),
            (EXPANDABLE, Expandable),
            (EDITABLE, Editable),
            (SHOWING, Showing),
            (VISIBLE, Visible),
            (ACTIVE, Active),
            (PRESSED, Pressed),
            (MODAL, Modal),
            (READ_ONLY, ReadOnly),
            (REQUIRED, Required),
            (MULTI_LINE, Multiline),
        ];
        let mut states: Vec<ElementState> = table.iter().filter(|(bit, _)| self.has(*bit)).map(|(_, s)| *s).collect();
        if self.has(SENSITIVE) && !states.contains(&Enabled) {
            states.insert(0, Enabled);
        }
        states
    }
}

/// Roles whose value a user would call one: what is typed in a field, a
/// slider's position, a bar's level.
const VALUE_ROLES: &[&str] =
    &["entry", "text", "password text", "spin button", "slider", "scroll bar", "progress bar", "level bar", "dial", "terminal", "combo box", "autocomplete"];

/// Roles that hold a value only while the user can edit them (a
/// spreadsheet cell, an editable document or section).
const EDITABLE_VALUE_ROLES: &[&str] =
    &["table cell", "document text", "document web", "document spreadsheet", "document presentation", "document email", "paragraph", "section", "editbar"];

/// Whether the element holds a value a user would call one (never read
/// here). Toolkits put Value, Text or EditableText on far more (Gecko gives
/// frames, buttons and labels EditableText), so the role decides first.
pub fn has_value(role: u32, interfaces: &[String], states: StateBits) -> bool {
    let has = |name: &str| interfaces.iter().any(|i| i == name);
    let name = role_name(role);
    let role_holds_value = VALUE_ROLES.contains(&name.as_str()) || (states.has(EDITABLE) && EDITABLE_VALUE_ROLES.contains(&name.as_str()));
    role == ROLE_PASSWORD_TEXT
        || (role_holds_value && (has("org.a11y.atspi.Value") || has("org.a11y.atspi.EditableText") || (has("org.a11y.atspi.Text") && states.has(EDITABLE))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_states_decode() {
        assert_eq!(role_name(43), "push button");
        assert_eq!(role_name(40), "password text");
        assert_eq!(role_name(129), "push button menu");
        assert_eq!(role_name(500), "role 500");
        // A GTK3 push button: enabled, focusable, sensitive, showing, visible.
        let bits = StateBits::from_words(&[1124075776, 0]);
        assert_eq!(bits.to_states(), vec![ElementState::Enabled, ElementState::Focusable, ElementState::Showing, ElementState::Visible]);
        assert!(StateBits::from_words(&[0, 1 << (READ_ONLY - 32)]).to_states().contains(&ElementState::ReadOnly));
    }

    #[test]
    fn value_holders() {
        let ifaces = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(has_value(51, &ifaces(&["org.a11y.atspi.Value"]), StateBits(0)));
        assert!(has_value(40, &[], StateBits(0)));
        assert!(!has_value(29, &ifaces(&["org.a11y.atspi.Text"]), StateBits(0)));
        assert!(has_value(61, &ifaces(&["org.a11y.atspi.Text"]), StateBits(1 << EDITABLE)));
        // Gecko's frames, buttons and tool bars carry EditableText; they hold no value.
        for role in [23, 43, 63, 29, 85] {
            assert!(!has_value(role, &ifaces(&["org.a11y.atspi.EditableText", "org.a11y.atspi.Text"]), StateBits(0)), "{}", role_name(role));
        }
        // A spreadsheet cell holds one while it can be edited.
        assert!(has_value(56, &ifaces(&["org.a11y.atspi.Text"]), StateBits(1 << EDITABLE)));
        assert!(!has_value(56, &ifaces(&["org.a11y.atspi.Text"]), StateBits(0)));
    }
}
