//! What an element is, independent of the platform that reported it.
//!
//! One closed set, like AccessKit's: backends translate their own role
//! numbers or strings into it once (AT-SPI in glovebox-atspi), and the host,
//! the surfaces and the model's text read only this type. Each role is
//! written as the words a person would use ("push button", "password
//! text"), which is also how trees show it to a model and how JSON spells it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! roles {
    ($($variant:ident => $name:literal,)*) => {
        /// The kind of an accessible element.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role {
            $($variant,)*
        }

        impl Role {
            /// Every role, in declaration order.
            pub const ALL: &'static [Role] = &[$(Role::$variant,)*];

            /// The role in words, as trees and JSON spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Role::$variant => $name,)*
                }
            }
        }
    };
}

roles! {
    AcceleratorLabel => "accelerator label",
    Alert => "alert",
    Animation => "animation",
    Arrow => "arrow",
    Calendar => "calendar",
    Canvas => "canvas",
    CheckBox => "check box",
    CheckMenuItem => "check menu item",
    ColorChooser => "color chooser",
    ColumnHeader => "column header",
    ComboBox => "combo box",
    DateEditor => "date editor",
    DesktopIcon => "desktop icon",
    DesktopFrame => "desktop frame",
    Dial => "dial",
    Dialog => "dialog",
    DirectoryPane => "directory pane",
    DrawingArea => "drawing area",
    FileChooser => "file chooser",
    Filler => "filler",
    FocusTraversable => "focus traversable",
    FontChooser => "font chooser",
    Frame => "frame",
    GlassPane => "glass pane",
    HTMLContainer => "html container",
    Icon => "icon",
    Image => "image",
    InternalFrame => "internal frame",
    Label => "label",
    LayeredPane => "layered pane",
    List => "list",
    ListItem => "list item",
    Menu => "menu",
    MenuBar => "menu bar",
    MenuItem => "menu item",
    OptionPane => "option pane",
    PageTab => "page tab",
    PageTabList => "page tab list",
    Panel => "panel",
    PasswordText => "password text",
    PopupMenu => "popup menu",
    ProgressBar => "progress bar",
    PushButton => "push button",
    RadioButton => "radio button",
    RadioMenuItem => "radio menu item",
    RootPane => "root pane",
    RowHeader => "row header",
    ScrollBar => "scroll bar",
    ScrollPane => "scroll pane",
    Separator => "separator",
    Slider => "slider",
    SpinButton => "spin button",
    SplitPane => "split pane",
    StatusBar => "status bar",
    Table => "table",
    TableCell => "table cell",
    TableColumnHeader => "table column header",
    TableRowHeader => "table row header",
    TearoffMenuItem => "tearoff menu item",
    Terminal => "terminal",
    Text => "text",
    ToggleButton => "toggle button",
    ToolBar => "tool bar",
    ToolTip => "tool tip",
    Tree => "tree",
    TreeTable => "tree table",
    Unknown => "unknown",
    Viewport => "viewport",
    Window => "window",
    Extended => "extended",
    Header => "header",
    Footer => "footer",
    Paragraph => "paragraph",
    Ruler => "ruler",
    Application => "application",
    Autocomplete => "autocomplete",
    Editbar => "editbar",
    Embedded => "embedded",
    Entry => "entry",
    CHART => "chart",
    Caption => "caption",
    DocumentFrame => "document frame",
    Heading => "heading",
    Page => "page",
    Section => "section",
    RedundantObject => "redundant object",
    Form => "form",
    Link => "link",
    InputMethodWindow => "input method window",
    TableRow => "table row",
    TreeItem => "tree item",
    DocumentSpreadsheet => "document spreadsheet",
    DocumentPresentation => "document presentation",
    DocumentText => "document text",
    DocumentWeb => "document web",
    DocumentEmail => "document email",
    Comment => "comment",
    ListBox => "list box",
    Grouping => "grouping",
    ImageMap => "image map",
    Notification => "notification",
    InfoBar => "info bar",
    LevelBar => "level bar",
    TitleBar => "title bar",
    BlockQuote => "block quote",
    Audio => "audio",
    Video => "video",
    Definition => "definition",
    Article => "article",
    Landmark => "landmark",
    Log => "log",
    Marquee => "marquee",
    Math => "math",
    Rating => "rating",
    Timer => "timer",
    Static => "static",
    MathFraction => "math fraction",
    MathRoot => "math root",
    Subscript => "subscript",
    Superscript => "superscript",
    DescriptionList => "description list",
    DescriptionTerm => "description term",
    DescriptionValue => "description value",
    Footnote => "footnote",
    ContentDeletion => "content deletion",
    ContentInsertion => "content insertion",
    Mark => "mark",
    Suggestion => "suggestion",
    PushButtonMenu => "push button menu",
}

impl Role {
    /// The role spelled `name` (case-insensitive, surrounding blanks ignored).
    pub fn from_name(name: &str) -> Option<Role> {
        let name = name.trim();
        Role::ALL.iter().copied().find(|role| role.name().eq_ignore_ascii_case(name))
    }

    /// A field whose text is a secret: never read, captured or typed into
    /// without the user.
    pub fn is_password(self) -> bool {
        self == Role::PasswordText
    }

    /// An entry of a menu, whatever kind (plain, check, radio, tear-off).
    pub fn is_menu_item(self) -> bool {
        matches!(self, Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem | Role::TearoffMenuItem)
    }

    /// Roles a person acts on even when the toolkit reports no action,
    /// value or focusability for them.
    pub fn is_control(self) -> bool {
        matches!(
            self,
            Role::PushButton
                | Role::CheckBox
                | Role::RadioButton
                | Role::ToggleButton
                | Role::ComboBox
                | Role::MenuItem
                | Role::Link
                | Role::Slider
                | Role::SpinButton
                | Role::Entry
                | Role::PasswordText
                | Role::Text
                | Role::PageTab
        )
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Role::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown role {name:?}")))
    }
}

impl schemars::JsonSchema for Role {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Role".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Role::ALL.iter().map(|role| role.name()).collect();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_one_distinct_name_that_reads_back() {
        let mut seen = std::collections::HashSet::new();
        for &role in Role::ALL {
            assert!(seen.insert(role.name()), "{} is spelled twice", role.name());
            assert_eq!(Role::from_name(role.name()), Some(role));
            assert_eq!(serde_json::to_value(role).unwrap(), serde_json::json!(role.name()));
            assert_eq!(serde_json::from_value::<Role>(serde_json::json!(role.name())).unwrap(), role);
        }
        assert_eq!(Role::from_name(" Push Button "), Some(Role::PushButton));
        assert!(serde_json::from_value::<Role>(serde_json::json!("no such role")).is_err());
    }

    #[test]
    fn menu_items_of_every_kind_are_menu_items() {
        for &role in Role::ALL {
            assert_eq!(role.is_menu_item(), role.name().ends_with("menu item"), "{role}");
        }
    }
}
