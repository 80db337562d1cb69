//! What Windows says an element is, turned into glovebox's roles and
//! states: MSAA's `ROLE_SYSTEM_*` and `STATE_SYSTEM_*`, UI Automation's
//! control types, and — for the standard Win32 controls, whose MSAA roles
//! Wine partly gets wrong — the window class and style, which are the
//! control's own declaration of what it is. Pure numbers in, model out, so
//! it is tested on any system.

use glovebox_model::{ElementState, ElementStates, Role};

/// `STATE_SYSTEM_*` bits of MSAA's `accState` (oleacc.h).
pub mod msaa_state {
    /// Greyed out.
    pub const UNAVAILABLE: u32 = 0x1;
    /// Chosen in its container.
    pub const SELECTED: u32 = 0x2;
    /// Holds the keyboard focus.
    pub const FOCUSED: u32 = 0x4;
    /// Held down.
    pub const PRESSED: u32 = 0x8;
    /// Ticked.
    pub const CHECKED: u32 = 0x10;
    /// Neither ticked nor not (three-state).
    pub const MIXED: u32 = 0x20;
    /// Cannot be changed.
    pub const READONLY: u32 = 0x40;
    /// Shows its children.
    pub const EXPANDED: u32 = 0x200;
    /// Hides its children.
    pub const COLLAPSED: u32 = 0x400;
    /// Not shown.
    pub const INVISIBLE: u32 = 0x8000;
    /// Scrolled or clipped out of view.
    pub const OFFSCREEN: u32 = 0x1_0000;
    /// Can take the keyboard focus.
    pub const FOCUSABLE: u32 = 0x10_0000;
    /// A password: its text is never read.
    pub const PROTECTED: u32 = 0x2000_0000;
}

/// UI Automation's control type ids (`UIA_*ControlTypeId`).
pub mod uia_control {
    #![allow(missing_docs)]
    pub const BUTTON: i32 = 50000;
    pub const CALENDAR: i32 = 50001;
    pub const CHECK_BOX: i32 = 50002;
    pub const COMBO_BOX: i32 = 50003;
    pub const EDIT: i32 = 50004;
    pub const HYPERLINK: i32 = 50005;
    pub const IMAGE: i32 = 50006;
    pub const LIST_ITEM: i32 = 50007;
    pub const LIST: i32 = 50008;
    pub const MENU: i32 = 50009;
    pub const MENU_BAR: i32 = 50010;
    pub const MENU_ITEM: i32 = 50011;
    pub const PROGRESS_BAR: i32 = 50012;
    pub const RADIO_BUTTON: i32 = 50013;
    pub const SCROLL_BAR: i32 = 50014;
    pub const SLIDER: i32 = 50015;
    pub const SPINNER: i32 = 50016;
    pub const STATUS_BAR: i32 = 50017;
    pub const TAB: i32 = 50018;
    pub const TAB_ITEM: i32 = 50019;
    pub const TEXT: i32 = 50020;
    pub const TOOL_BAR: i32 = 50021;
    pub const TOOL_TIP: i32 = 50022;
    pub const TREE: i32 = 50023;
    pub const TREE_ITEM: i32 = 50024;
    pub const CUSTOM: i32 = 50025;
    pub const GROUP: i32 = 50026;
    pub const THUMB: i32 = 50027;
    pub const DATA_GRID: i32 = 50028;
    pub const DATA_ITEM: i32 = 50029;
    pub const DOCUMENT: i32 = 50030;
    pub const SPLIT_BUTTON: i32 = 50031;
    pub const WINDOW: i32 = 50032;
    pub const PANE: i32 = 50033;
    pub const HEADER: i32 = 50034;
    pub const HEADER_ITEM: i32 = 50035;
    pub const TABLE: i32 = 50036;
    pub const TITLE_BAR: i32 = 50037;
    pub const SEPARATOR: i32 = 50038;
}

/// The role of an MSAA `accRole` (`ROLE_SYSTEM_*`).
pub fn msaa_role(role: u32) -> Role {
    match role {
        0x02 => Role::MenuBar,
        0x03 => Role::ScrollBar,
        0x08 => Role::Alert,
        0x09 => Role::Window,
        0x0A => Role::Panel, // a client area
        0x0B => Role::PopupMenu,
        0x0C => Role::MenuItem,
        0x0D => Role::ToolTip,
        0x0E => Role::Application,
        0x0F => Role::DocumentFrame,
        0x10 => Role::Panel,
        0x11 => Role::CHART,
        0x12 => Role::Dialog,
        0x14 => Role::Panel, // a grouping
        0x15 => Role::Separator,
        0x16 => Role::ToolBar,
        0x17 => Role::StatusBar,
        0x18 => Role::Table,
        0x19 => Role::ColumnHeader,
        0x1A => Role::RowHeader,
        0x1C => Role::TableRow,
        0x1D => Role::TableCell,
        0x1E => Role::Link,
        0x21 => Role::List,
        0x22 => Role::ListItem,
        0x23 => Role::Tree,
        0x24 => Role::ListItem, // an outline item: a tree row
        0x25 => Role::PageTab,
        0x27 | 0x28 => Role::Image,
        0x29 => Role::Label,
        0x2A => Role::Entry,
        0x2B | 0x38 | 0x39 | 0x3E => Role::PushButton,
        0x2C => Role::CheckBox,
        0x2D => Role::RadioButton,
        0x2E | 0x2F => Role::ComboBox,
        0x30 => Role::ProgressBar,
        0x31 => Role::Dial,
        0x33 => Role::Slider,
        0x34 => Role::SpinButton,
        0x36 => Role::Animation,
        0x3C => Role::PageTabList,
        _ => Role::Unknown,
    }
}

/// The states of an MSAA `accState`.
pub fn msaa_states(state: u32) -> ElementStates {
    use msaa_state::*;
    let mut out = ElementStates::default();
    let on = |bit: u32| state & bit != 0;
    if !on(UNAVAILABLE) {
        out.insert(ElementState::Enabled);
    }
    if !on(INVISIBLE) {
        out.insert(ElementState::Visible);
        if !on(OFFSCREEN) {
            out.insert(ElementState::Showing);
        }
    }
    for (bit, model) in [
        (SELECTED, ElementState::Selected),
        (FOCUSED, ElementState::Focused),
        (FOCUSABLE, ElementState::Focusable),
        (PRESSED, ElementState::Pressed),
        (CHECKED, ElementState::Checked),
        (MIXED, ElementState::Indeterminate),
        (READONLY, ElementState::ReadOnly),
        (EXPANDED, ElementState::Expanded),
    ] {
        if on(bit) {
            out.insert(model);
        }
    }
    if on(EXPANDED) || on(COLLAPSED) {
        out.insert(ElementState::Expandable);
    }
    out
}

/// The role of a UI Automation control type; an edit is a password field
/// when the element says `IsPassword`.
pub fn uia_role(control_type: i32, is_password: bool) -> Role {
    use uia_control::*;
    match control_type {
        BUTTON | SPLIT_BUTTON => Role::PushButton,
        CALENDAR => Role::Calendar,
        CHECK_BOX => Role::CheckBox,
        COMBO_BOX => Role::ComboBox,
        EDIT if is_password => Role::PasswordText,
        EDIT => Role::Entry,
        HYPERLINK => Role::Link,
        IMAGE => Role::Image,
        LIST_ITEM | TREE_ITEM | DATA_ITEM => Role::ListItem,
        LIST => Role::List,
        MENU => Role::PopupMenu,
        MENU_BAR => Role::MenuBar,
        MENU_ITEM => Role::MenuItem,
        PROGRESS_BAR => Role::ProgressBar,
        RADIO_BUTTON => Role::RadioButton,
        SCROLL_BAR => Role::ScrollBar,
        SLIDER => Role::Slider,
        SPINNER => Role::SpinButton,
        STATUS_BAR => Role::StatusBar,
        TAB => Role::PageTabList,
        TAB_ITEM => Role::PageTab,
        TEXT => Role::Label,
        TOOL_BAR => Role::ToolBar,
        TOOL_TIP => Role::ToolTip,
        TREE => Role::Tree,
        GROUP | PANE | CUSTOM | THUMB | TITLE_BAR => Role::Panel,
        DATA_GRID | TABLE => Role::Table,
        DOCUMENT => Role::DocumentFrame,
        WINDOW => Role::Frame,
        HEADER => Role::TableRow,
        HEADER_ITEM => Role::ColumnHeader,
        SEPARATOR => Role::Separator,
        _ => Role::Unknown,
    }
}

/// A standard Win32 control, as its window class and style declare it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandardControl {
    /// `Button` with a push style.
    PushButton,
    /// `Button` with a check-box style (two or three states).
    CheckBox,
    /// `Button` with a radio style.
    RadioButton,
    /// `Button` with the group-box style: a frame with a caption, not a control.
    GroupBox,
    /// `Edit`: text typed in; `password` for `ES_PASSWORD`.
    Edit {
        /// `ES_PASSWORD`: the text is never read.
        password: bool,
        /// `ES_MULTILINE`.
        multiline: bool,
        /// `ES_READONLY`.
        read_only: bool,
    },
    /// `ListBox`: a list of strings.
    ListBox,
    /// `ComboBox`: a list that drops down.
    ComboBox,
    /// `Static`: a label.
    Static,
}

/// `ES_*` and `BS_*` style bits (winuser.h).
mod style {
    pub(super) const ES_MULTILINE: u32 = 0x4;
    pub(super) const ES_PASSWORD: u32 = 0x20;
    pub(super) const ES_READONLY: u32 = 0x800;
    pub(super) const BS_TYPEMASK: u32 = 0xF;
}

impl StandardControl {
    /// The control `class` and `style` declare, or `None` for a class that
    /// is no standard control (the application's own, a toolkit's).
    pub fn of(class: &str, style: u32) -> Option<StandardControl> {
        use style::*;
        // Comctl32 v6 and Wine spell some classes with their version
        // prefix; the name after the last `!`/`.` part is the class.
        let class = class.rsplit('.').next().unwrap_or(class).to_ascii_lowercase();
        Some(match class.as_str() {
            "button" => match style & BS_TYPEMASK {
                2 | 3 | 5 | 6 => StandardControl::CheckBox,
                4 | 9 => StandardControl::RadioButton,
                7 => StandardControl::GroupBox,
                _ => StandardControl::PushButton,
            },
            "edit" | "richedit20w" | "richedit50w" => StandardControl::Edit {
                password: style & ES_PASSWORD != 0,
                multiline: style & ES_MULTILINE != 0,
                read_only: style & ES_READONLY != 0,
            },
            "listbox" | "combolbox" => StandardControl::ListBox,
            "combobox" | "comboboxex32" => StandardControl::ComboBox,
            "static" => StandardControl::Static,
            _ => return None,
        })
    }

    /// Its role.
    pub fn role(self) -> Role {
        match self {
            StandardControl::PushButton => Role::PushButton,
            StandardControl::CheckBox => Role::CheckBox,
            StandardControl::RadioButton => Role::RadioButton,
            StandardControl::GroupBox => Role::Panel,
            StandardControl::Edit { password: true, .. } => Role::PasswordText,
            StandardControl::Edit { multiline: true, .. } => Role::Text,
            StandardControl::Edit { .. } => Role::Entry,
            StandardControl::ListBox => Role::List,
            StandardControl::ComboBox => Role::ComboBox,
            StandardControl::Static => Role::Label,
        }
    }

    /// The states its style alone says (`Editable`, `Multiline`, `ReadOnly`).
    pub fn states(self) -> impl Iterator<Item = ElementState> {
        let list: &[ElementState] = match self {
            StandardControl::Edit { read_only: true, multiline: true, .. } => {
                &[ElementState::ReadOnly, ElementState::Multiline]
            }
            StandardControl::Edit { read_only: true, .. } => &[ElementState::ReadOnly],
            StandardControl::Edit { multiline: true, .. } => {
                &[ElementState::Editable, ElementState::Multiline]
            }
            StandardControl::Edit { .. } => &[ElementState::Editable],
            _ => &[],
        };
        list.iter().copied()
    }

    /// Whether its text is a value (an edit's) rather than its name (a
    /// button's caption).
    pub fn text_is_value(self) -> bool {
        matches!(self, StandardControl::Edit { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msaa_roles_and_states_become_the_models() {
        assert_eq!(msaa_role(0x2B), Role::PushButton);
        assert_eq!(msaa_role(0x2A), Role::Entry);
        assert_eq!(msaa_role(0x2C), Role::CheckBox);
        assert_eq!(msaa_role(0x22), Role::ListItem);
        assert_eq!(msaa_role(0xFFFF), Role::Unknown);
        let states = msaa_states(msaa_state::CHECKED | msaa_state::FOCUSABLE);
        assert!(states.contains(ElementState::Checked));
        assert!(states.contains(ElementState::Enabled));
        assert!(states.contains(ElementState::Showing));
        let hidden = msaa_states(msaa_state::INVISIBLE | msaa_state::UNAVAILABLE);
        assert!(!hidden.contains(ElementState::Enabled));
        assert!(!hidden.contains(ElementState::Visible));
        assert!(!hidden.contains(ElementState::Showing));
        let collapsed = msaa_states(msaa_state::COLLAPSED);
        assert!(collapsed.contains(ElementState::Expandable));
        assert!(!collapsed.contains(ElementState::Expanded));
    }

    #[test]
    fn uia_control_types_become_roles_and_a_password_edit_is_one() {
        assert_eq!(uia_role(uia_control::BUTTON, false), Role::PushButton);
        assert_eq!(uia_role(uia_control::EDIT, false), Role::Entry);
        assert_eq!(uia_role(uia_control::EDIT, true), Role::PasswordText);
        assert_eq!(uia_role(uia_control::TAB_ITEM, false), Role::PageTab);
        assert_eq!(uia_role(1, false), Role::Unknown);
    }

    #[test]
    fn a_standard_controls_class_and_style_say_what_it_is() {
        assert_eq!(StandardControl::of("Button", 0x5001_0000), Some(StandardControl::PushButton));
        assert_eq!(StandardControl::of("BUTTON", 0x3), Some(StandardControl::CheckBox));
        assert_eq!(StandardControl::of("Button", 0x9), Some(StandardControl::RadioButton));
        let password = StandardControl::of("Edit", 0x20).unwrap();
        assert_eq!(password.role(), Role::PasswordText);
        assert!(password.text_is_value());
        assert_eq!(StandardControl::of("Edit", 0x4).unwrap().role(), Role::Text);
        assert_eq!(StandardControl::of("ListBox", 0).unwrap().role(), Role::List);
        assert_eq!(StandardControl::of("MyAppCanvas", 0), None);
        assert!(StandardControl::of("Edit", 0x800)
            .unwrap()
            .states()
            .any(|s| s == ElementState::ReadOnly));
    }
}
