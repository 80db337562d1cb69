//! Translation: AT-SPI's role numbers and state bit sets, read through
//! `atspi-common`'s types, into the model's [`Role`] and [`ElementStates`],
//! and what a role says about holding a value. The only place an AT-SPI
//! role or state is named outside the wire.

use atspi_common::{Interface, InterfaceSet, Role as AtspiRole, State, StateSet};
use glovebox_model::{ElementState, ElementStates, Role};

/// The model's role for AT-SPI role number `number`; a number this version
/// of AT-SPI does not define is [`Role::Unknown`].
pub fn role(number: u32) -> Role {
    AtspiRole::try_from(number).map(from_atspi).unwrap_or(Role::Unknown)
}

fn from_atspi(role: AtspiRole) -> Role {
    match role {
        AtspiRole::Invalid => Role::Unknown,
        AtspiRole::AcceleratorLabel => Role::AcceleratorLabel,
        AtspiRole::Alert => Role::Alert,
        AtspiRole::Animation => Role::Animation,
        AtspiRole::Arrow => Role::Arrow,
        AtspiRole::Calendar => Role::Calendar,
        AtspiRole::Canvas => Role::Canvas,
        AtspiRole::CheckBox => Role::CheckBox,
        AtspiRole::CheckMenuItem => Role::CheckMenuItem,
        AtspiRole::ColorChooser => Role::ColorChooser,
        AtspiRole::ColumnHeader => Role::ColumnHeader,
        AtspiRole::ComboBox => Role::ComboBox,
        AtspiRole::DateEditor => Role::DateEditor,
        AtspiRole::DesktopIcon => Role::DesktopIcon,
        AtspiRole::DesktopFrame => Role::DesktopFrame,
        AtspiRole::Dial => Role::Dial,
        AtspiRole::Dialog => Role::Dialog,
        AtspiRole::DirectoryPane => Role::DirectoryPane,
        AtspiRole::DrawingArea => Role::DrawingArea,
        AtspiRole::FileChooser => Role::FileChooser,
        AtspiRole::Filler => Role::Filler,
        AtspiRole::FocusTraversable => Role::FocusTraversable,
        AtspiRole::FontChooser => Role::FontChooser,
        AtspiRole::Frame => Role::Frame,
        AtspiRole::GlassPane => Role::GlassPane,
        AtspiRole::HTMLContainer => Role::HTMLContainer,
        AtspiRole::Icon => Role::Icon,
        AtspiRole::Image => Role::Image,
        AtspiRole::InternalFrame => Role::InternalFrame,
        AtspiRole::Label => Role::Label,
        AtspiRole::LayeredPane => Role::LayeredPane,
        AtspiRole::List => Role::List,
        AtspiRole::ListItem => Role::ListItem,
        AtspiRole::Menu => Role::Menu,
        AtspiRole::MenuBar => Role::MenuBar,
        AtspiRole::MenuItem => Role::MenuItem,
        AtspiRole::OptionPane => Role::OptionPane,
        AtspiRole::PageTab => Role::PageTab,
        AtspiRole::PageTabList => Role::PageTabList,
        AtspiRole::Panel => Role::Panel,
        AtspiRole::PasswordText => Role::PasswordText,
        AtspiRole::PopupMenu => Role::PopupMenu,
        AtspiRole::ProgressBar => Role::ProgressBar,
        AtspiRole::Button => Role::PushButton,
        AtspiRole::RadioButton => Role::RadioButton,
        AtspiRole::RadioMenuItem => Role::RadioMenuItem,
        AtspiRole::RootPane => Role::RootPane,
        AtspiRole::RowHeader => Role::RowHeader,
        AtspiRole::ScrollBar => Role::ScrollBar,
        AtspiRole::ScrollPane => Role::ScrollPane,
        AtspiRole::Separator => Role::Separator,
        AtspiRole::Slider => Role::Slider,
        AtspiRole::SpinButton => Role::SpinButton,
        AtspiRole::SplitPane => Role::SplitPane,
        AtspiRole::StatusBar => Role::StatusBar,
        AtspiRole::Table => Role::Table,
        AtspiRole::TableCell => Role::TableCell,
        AtspiRole::TableColumnHeader => Role::TableColumnHeader,
        AtspiRole::TableRowHeader => Role::TableRowHeader,
        AtspiRole::TearoffMenuItem => Role::TearoffMenuItem,
        AtspiRole::Terminal => Role::Terminal,
        AtspiRole::Text => Role::Text,
        AtspiRole::ToggleButton => Role::ToggleButton,
        AtspiRole::ToolBar => Role::ToolBar,
        AtspiRole::ToolTip => Role::ToolTip,
        AtspiRole::Tree => Role::Tree,
        AtspiRole::TreeTable => Role::TreeTable,
        AtspiRole::Unknown => Role::Unknown,
        AtspiRole::Viewport => Role::Viewport,
        AtspiRole::Window => Role::Window,
        AtspiRole::Extended => Role::Extended,
        AtspiRole::Header => Role::Header,
        AtspiRole::Footer => Role::Footer,
        AtspiRole::Paragraph => Role::Paragraph,
        AtspiRole::Ruler => Role::Ruler,
        AtspiRole::Application => Role::Application,
        AtspiRole::Autocomplete => Role::Autocomplete,
        AtspiRole::Editbar => Role::Editbar,
        AtspiRole::Embedded => Role::Embedded,
        AtspiRole::Entry => Role::Entry,
        AtspiRole::CHART => Role::CHART,
        AtspiRole::Caption => Role::Caption,
        AtspiRole::DocumentFrame => Role::DocumentFrame,
        AtspiRole::Heading => Role::Heading,
        AtspiRole::Page => Role::Page,
        AtspiRole::Section => Role::Section,
        AtspiRole::RedundantObject => Role::RedundantObject,
        AtspiRole::Form => Role::Form,
        AtspiRole::Link => Role::Link,
        AtspiRole::InputMethodWindow => Role::InputMethodWindow,
        AtspiRole::TableRow => Role::TableRow,
        AtspiRole::TreeItem => Role::TreeItem,
        AtspiRole::DocumentSpreadsheet => Role::DocumentSpreadsheet,
        AtspiRole::DocumentPresentation => Role::DocumentPresentation,
        AtspiRole::DocumentText => Role::DocumentText,
        AtspiRole::DocumentWeb => Role::DocumentWeb,
        AtspiRole::DocumentEmail => Role::DocumentEmail,
        AtspiRole::Comment => Role::Comment,
        AtspiRole::ListBox => Role::ListBox,
        AtspiRole::Grouping => Role::Grouping,
        AtspiRole::ImageMap => Role::ImageMap,
        AtspiRole::Notification => Role::Notification,
        AtspiRole::InfoBar => Role::InfoBar,
        AtspiRole::LevelBar => Role::LevelBar,
        AtspiRole::TitleBar => Role::TitleBar,
        AtspiRole::BlockQuote => Role::BlockQuote,
        AtspiRole::Audio => Role::Audio,
        AtspiRole::Video => Role::Video,
        AtspiRole::Definition => Role::Definition,
        AtspiRole::Article => Role::Article,
        AtspiRole::Landmark => Role::Landmark,
        AtspiRole::Log => Role::Log,
        AtspiRole::Marquee => Role::Marquee,
        AtspiRole::Math => Role::Math,
        AtspiRole::Rating => Role::Rating,
        AtspiRole::Timer => Role::Timer,
        AtspiRole::Static => Role::Static,
        AtspiRole::MathFraction => Role::MathFraction,
        AtspiRole::MathRoot => Role::MathRoot,
        AtspiRole::Subscript => Role::Subscript,
        AtspiRole::Superscript => Role::Superscript,
        AtspiRole::DescriptionList => Role::DescriptionList,
        AtspiRole::DescriptionTerm => Role::DescriptionTerm,
        AtspiRole::DescriptionValue => Role::DescriptionValue,
        AtspiRole::Footnote => Role::Footnote,
        AtspiRole::ContentDeletion => Role::ContentDeletion,
        AtspiRole::ContentInsertion => Role::ContentInsertion,
        AtspiRole::Mark => Role::Mark,
        AtspiRole::Suggestion => Role::Suggestion,
        AtspiRole::PushButtonMenu => Role::PushButtonMenu,
    }
}

/// The AT-SPI number of a role, for match rules sent over the bus.
pub fn atspi_number(role: Role) -> Option<u32> {
    (0..=AtspiRole::PushButtonMenu as u32).find(|&n| {
        AtspiRole::try_from(n).is_ok_and(|r| r != AtspiRole::Invalid && from_atspi(r) == role)
    })
}

/// The state set AT-SPI sends as two 32-bit words; bits this version of
/// AT-SPI does not define are dropped.
pub fn state_set(words: &[u32]) -> StateSet {
    let low = words.first().copied().unwrap_or(0) as u64;
    let high = words.get(1).copied().unwrap_or(0) as u64;
    StateSet::from_bits(low | high << 32)
        .unwrap_or_else(|unknown| StateSet::new(unknown.truncate()))
}

/// The bit number of `state` in AT-SPI's state words.
pub fn state_bit(state: State) -> u32 {
    (state as u64).trailing_zeros()
}

/// The states the model reports, from AT-SPI's.
pub fn element_states(states: StateSet) -> ElementStates {
    let table = [
        (State::Enabled, ElementState::Enabled),
        (State::Focused, ElementState::Focused),
        (State::Focusable, ElementState::Focusable),
        (State::Checked, ElementState::Checked),
        (State::Indeterminate, ElementState::Indeterminate),
        (State::Selected, ElementState::Selected),
        (State::Expanded, ElementState::Expanded),
        (State::Expandable, ElementState::Expandable),
        (State::Editable, ElementState::Editable),
        (State::Showing, ElementState::Showing),
        (State::Visible, ElementState::Visible),
        (State::Active, ElementState::Active),
        (State::Pressed, ElementState::Pressed),
        (State::Modal, ElementState::Modal),
        (State::ReadOnly, ElementState::ReadOnly),
        (State::Required, ElementState::Required),
        (State::MultiLine, ElementState::Multiline),
    ];
    let mut model: ElementStates = table
        .iter()
        .filter(|(atspi, _)| states.contains(*atspi))
        .map(|(_, state)| *state)
        .collect();
    // GTK marks insensitive widgets by dropping both ENABLED and SENSITIVE.
    if states.contains(State::Sensitive) {
        model.insert(ElementState::Enabled);
    }
    model
}

/// Roles whose hidden children still matter: a closed menu's items can be
/// activated without opening it.
pub fn is_menu_like(role: Role) -> bool {
    matches!(
        role,
        Role::ComboBox
            | Role::Menu
            | Role::MenuBar
            | Role::MenuItem
            | Role::PopupMenu
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    )
}

/// Roles whose value a user would call one: what is typed in a field, a
/// slider's position, a bar's level.
const VALUE_ROLES: &[Role] = &[
    Role::Entry,
    Role::Text,
    Role::PasswordText,
    Role::SpinButton,
    Role::Slider,
    Role::ScrollBar,
    Role::ProgressBar,
    Role::LevelBar,
    Role::Dial,
    Role::Terminal,
    Role::ComboBox,
    Role::Autocomplete,
];

/// Roles that hold a value only while the user can edit them (a
/// spreadsheet cell, an editable document or section).
const EDITABLE_VALUE_ROLES: &[Role] = &[
    Role::TableCell,
    Role::DocumentText,
    Role::DocumentWeb,
    Role::DocumentSpreadsheet,
    Role::DocumentPresentation,
    Role::DocumentEmail,
    Role::Paragraph,
    Role::Section,
    Role::Editbar,
];

/// Whether the element holds a value a user would call one (never read
/// here). Toolkits put Value, Text or EditableText on far more (Gecko gives
/// frames, buttons and labels EditableText), so the role decides first.
pub fn has_value(role: Role, interfaces: InterfaceSet, states: StateSet) -> bool {
    let editable = states.contains(State::Editable);
    let role_holds_value =
        VALUE_ROLES.contains(&role) || (editable && EDITABLE_VALUE_ROLES.contains(&role));
    role.is_password()
        || (role_holds_value
            && (interfaces.contains(Interface::Value)
                || interfaces.contains(Interface::EditableText)
                || (interfaces.contains(Interface::Text) && editable)))
}

/// The interfaces an object names (`GetInterfaces`, a cache item), read
/// once into a set; a name AT-SPI does not define is left out.
pub fn interface_set(names: &[String]) -> InterfaceSet {
    names.iter().filter_map(|name| interface(name)).collect()
}

fn interface(name: &str) -> Option<Interface> {
    Some(match name.strip_prefix("org.a11y.atspi.")? {
        "Accessible" => Interface::Accessible,
        "Action" => Interface::Action,
        "Application" => Interface::Application,
        "Cache" => Interface::Cache,
        "Collection" => Interface::Collection,
        "Component" => Interface::Component,
        "Document" => Interface::Document,
        "EditableText" => Interface::EditableText,
        "Hyperlink" => Interface::Hyperlink,
        "Hypertext" => Interface::Hypertext,
        "Image" => Interface::Image,
        "Selection" => Interface::Selection,
        "Table" => Interface::Table,
        "TableCell" => Interface::TableCell,
        "Text" => Interface::Text,
        "Value" => Interface::Value,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_names_are_read_once_into_a_set() {
        let names: Vec<String> = [
            "org.a11y.atspi.Accessible",
            "org.a11y.atspi.EditableText",
            "org.a11y.atspi.Text",
            "org.example.Private",
            "Text",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let set = interface_set(&names);
        assert!(
            set.contains(Interface::EditableText)
                && set.contains(Interface::Text)
                && set.contains(Interface::Accessible)
        );
        assert!(!set.contains(Interface::Value) && !set.contains(Interface::Table));
        assert_eq!(set.iter().count(), 3, "unknown and bare names are left out");
    }

    #[test]
    fn roles_and_states_decode() {
        assert_eq!(role(43), Role::PushButton);
        assert_eq!(role(43).name(), "push button");
        assert_eq!(role(40), Role::PasswordText);
        assert_eq!(role(129).name(), "push button menu");
        assert_eq!(role(500), Role::Unknown);
        assert_eq!(atspi_number(Role::PasswordText), Some(40));
        assert_eq!(atspi_number(Role::PushButton), Some(43));
        // A GTK3 push button: enabled, focusable, sensitive, showing, visible.
        let states = element_states(state_set(&[1124075776, 0]));
        assert_eq!(
            states.iter().collect::<Vec<_>>(),
            vec![
                ElementState::Enabled,
                ElementState::Focusable,
                ElementState::Showing,
                ElementState::Visible
            ]
        );
        assert!(element_states(state_set(&[0, 1 << (state_bit(State::ReadOnly) - 32)]))
            .contains(ElementState::ReadOnly));
        assert_eq!(state_bit(State::Editable), 7);
        assert_eq!(state_bit(State::ManagesDescendants), 31);
        // A bit no version defines is dropped, the rest kept.
        assert!(state_set(&[1 << state_bit(State::Focused), 1 << 31]).contains(State::Focused));
    }

    #[test]
    fn every_atspi_role_but_invalid_has_its_own_model_role() {
        let mut seen = std::collections::HashSet::new();
        for number in 1..=AtspiRole::PushButtonMenu as u32 {
            let role = role(number);
            assert!(seen.insert(role), "{role} twice");
            assert_eq!(atspi_number(role), Some(number));
        }
    }

    #[test]
    fn value_holders() {
        let ifaces = |names: &[&str]| {
            interface_set(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let none = StateSet::empty();
        let editable = StateSet::new(State::Editable);
        assert!(has_value(Role::Slider, ifaces(&["org.a11y.atspi.Value"]), none));
        assert!(has_value(Role::PasswordText, InterfaceSet::empty(), none));
        assert!(!has_value(Role::Label, ifaces(&["org.a11y.atspi.Text"]), none));
        assert!(has_value(Role::Text, ifaces(&["org.a11y.atspi.Text"]), editable));
        // Gecko's frames, buttons and tool bars carry EditableText; they hold no value.
        for role in [Role::Frame, Role::PushButton, Role::ToolBar, Role::Label, Role::Section] {
            assert!(
                !has_value(
                    role,
                    ifaces(&["org.a11y.atspi.EditableText", "org.a11y.atspi.Text"]),
                    none
                ),
                "{role}"
            );
        }
        // A spreadsheet cell holds one while it can be edited.
        assert!(has_value(Role::TableCell, ifaces(&["org.a11y.atspi.Text"]), editable));
        assert!(!has_value(Role::TableCell, ifaces(&["org.a11y.atspi.Text"]), none));
    }
}
