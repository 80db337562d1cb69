//! What an element is, independent of the platform that reported it.
//!
//! One closed set, like AccessKit's: backends translate their own role
//! numbers or strings into it once (AT-SPI in glovebox-atspi), and the host,
//! the surfaces and the model's text read only this type. Each role is
//! written as the words a person would use ("push button", "password
//! text"), which is also how trees show it to a model and how JSON spells it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! roles {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// The kind of an accessible element.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role {
            $( $(#[$doc])* $variant, )*
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
    /// A label showing a keyboard shortcut, beside a menu item.
    AcceleratorLabel => "accelerator label",
    /// A message that needs the user's attention, often in a dialog.
    Alert => "alert",
    /// An animated image.
    Animation => "animation",
    /// An arrow pointing one way (a scroll arrow).
    Arrow => "arrow",
    /// A date chooser laid out as a month.
    Calendar => "calendar",
    /// An area the application paints itself.
    Canvas => "canvas",
    /// A box ticked on or off.
    CheckBox => "check box",
    /// A menu item ticked on or off.
    CheckMenuItem => "check menu item",
    /// A control for picking a color.
    ColorChooser => "color chooser",
    /// The header of a column.
    ColumnHeader => "column header",
    /// A drop-down list of options, perhaps with a text field.
    ComboBox => "combo box",
    /// A control for editing a date.
    DateEditor => "date editor",
    /// An icon on the desktop.
    DesktopIcon => "desktop icon",
    /// The desktop itself, holding its windows and icons.
    DesktopFrame => "desktop frame",
    /// A round range control, turned like a knob.
    Dial => "dial",
    /// A window that asks the user something or reports something.
    Dialog => "dialog",
    /// A pane listing a folder's contents.
    DirectoryPane => "directory pane",
    /// An area the application draws in (a chart, a custom widget).
    DrawingArea => "drawing area",
    /// A control for picking a file.
    FileChooser => "file chooser",
    /// A layout container with no meaning of its own.
    Filler => "filler",
    /// A role AT-SPI deprecated; toolkits no longer report it.
    FocusTraversable => "focus traversable",
    /// A control for picking a font.
    FontChooser => "font chooser",
    /// A top-level window with a title bar.
    Frame => "frame",
    /// A pane drawn over everything else in its window (Java).
    GlassPane => "glass pane",
    /// A container of HTML content.
    HTMLContainer => "html container",
    /// A small picture standing for something, often with a label.
    Icon => "icon",
    /// A picture.
    Image => "image",
    /// A window inside another window, with a title bar of its own.
    InternalFrame => "internal frame",
    /// Text that names or describes another element.
    Label => "label",
    /// A pane whose children overlap in layers (Java).
    LayeredPane => "layered pane",
    /// A list of items to choose from.
    List => "list",
    /// An item of a list.
    ListItem => "list item",
    /// A menu, which opens a list of menu items.
    Menu => "menu",
    /// The bar holding a window's menus.
    MenuBar => "menu bar",
    /// An entry of a menu.
    MenuItem => "menu item",
    /// A dialog pane with a message and buttons to answer it (Java).
    OptionPane => "option pane",
    /// A tab of a tab list; selecting it shows its page.
    PageTab => "page tab",
    /// A row of tabs, of which one page shows at a time.
    PageTabList => "page tab list",
    /// A container grouping other elements.
    Panel => "panel",
    /// A text field holding a secret: never read, captured or typed into without the user.
    PasswordText => "password text",
    /// A menu that pops up, such as a context menu.
    PopupMenu => "popup menu",
    /// A bar showing how far a task has got.
    ProgressBar => "progress bar",
    /// A button that does something when pressed.
    PushButton => "push button",
    /// One option of a group of which exactly one is chosen.
    RadioButton => "radio button",
    /// A menu item that is one of a group of which exactly one is chosen.
    RadioMenuItem => "radio menu item",
    /// The top container of a window (Java).
    RootPane => "root pane",
    /// The header of a row.
    RowHeader => "row header",
    /// A bar that scrolls a view.
    ScrollBar => "scroll bar",
    /// A view that scrolls its content.
    ScrollPane => "scroll pane",
    /// A line dividing groups of elements.
    Separator => "separator",
    /// A control that picks a number in a range by dragging a handle.
    Slider => "slider",
    /// A number field with buttons that step it up and down.
    SpinButton => "spin button",
    /// Two panes with a movable divider between them.
    SplitPane => "split pane",
    /// A bar showing the application's status, usually at the bottom.
    StatusBar => "status bar",
    /// Cells in rows and columns.
    Table => "table",
    /// A cell of a table.
    TableCell => "table cell",
    /// The header of a table's column.
    TableColumnHeader => "table column header",
    /// The header of a table's row.
    TableRowHeader => "table row header",
    /// A menu item that detaches its menu into a window of its own.
    TearoffMenuItem => "tearoff menu item",
    /// The text area of a terminal emulator.
    Terminal => "terminal",
    /// A field or area of text, often editable.
    Text => "text",
    /// A button that stays pressed in or out.
    ToggleButton => "toggle button",
    /// A bar of buttons and other controls.
    ToolBar => "tool bar",
    /// A short note shown while the pointer rests over something.
    ToolTip => "tool tip",
    /// Items arranged as a tree whose branches unfold.
    Tree => "tree",
    /// A table whose rows form a tree.
    TreeTable => "tree table",
    /// The toolkit gave no role, or one AT-SPI does not define.
    Unknown => "unknown",
    /// The visible part of a larger, scrolled content.
    Viewport => "viewport",
    /// A top-level window without a title bar (a popup, a menu's window).
    Window => "window",
    /// A toolkit-specific role that AT-SPI has no name for.
    Extended => "extended",
    /// The header of a document or a section.
    Header => "header",
    /// The footer of a document or a section.
    Footer => "footer",
    /// A paragraph of text.
    Paragraph => "paragraph",
    /// A ruler, as word processors show along a page.
    Ruler => "ruler",
    /// An application, the parent of its windows.
    Application => "application",
    /// A text field that offers completions as the user types.
    Autocomplete => "autocomplete",
    /// A text field in a tool bar.
    Editbar => "editbar",
    /// Content of another application or process shown inside this one.
    Embedded => "embedded",
    /// A one-line text field.
    Entry => "entry",
    /// A chart of data.
    CHART => "chart",
    /// The caption of a table or a figure.
    Caption => "caption",
    /// The frame holding a document's content.
    DocumentFrame => "document frame",
    /// A heading of a section of a document.
    Heading => "heading",
    /// A page of a document.
    Page => "page",
    /// A section of a document.
    Section => "section",
    /// An object that duplicates another and can be ignored.
    RedundantObject => "redundant object",
    /// A form of fields to fill in.
    Form => "form",
    /// A hyperlink.
    Link => "link",
    /// The window of an input method, for composing characters.
    InputMethodWindow => "input method window",
    /// A row of a table.
    TableRow => "table row",
    /// An item of a tree.
    TreeItem => "tree item",
    /// A spreadsheet document.
    DocumentSpreadsheet => "document spreadsheet",
    /// A presentation document (slides).
    DocumentPresentation => "document presentation",
    /// A text document.
    DocumentText => "document text",
    /// A web page.
    DocumentWeb => "document web",
    /// An email message.
    DocumentEmail => "document email",
    /// A comment attached to a document's content.
    Comment => "comment",
    /// A list whose items are options to choose from (a select list).
    ListBox => "list box",
    /// A group of related elements.
    Grouping => "grouping",
    /// An image with regions that can be clicked.
    ImageMap => "image map",
    /// A notification that does not take the focus.
    Notification => "notification",
    /// A bar with a message inside the window, not in a dialog.
    InfoBar => "info bar",
    /// A bar showing a level, such as a battery's charge.
    LevelBar => "level bar",
    /// A window's title bar.
    TitleBar => "title bar",
    /// A quoted block of text.
    BlockQuote => "block quote",
    /// An audio player.
    Audio => "audio",
    /// A video player.
    Video => "video",
    /// The definition of a term.
    Definition => "definition",
    /// An article: a self-contained part of a document.
    Article => "article",
    /// A region of a page to navigate by (main content, navigation, search).
    Landmark => "landmark",
    /// A log to which new entries are added in order.
    Log => "log",
    /// Text that scrolls by itself.
    Marquee => "marquee",
    /// A mathematical expression.
    Math => "math",
    /// A rating, such as a row of stars.
    Rating => "rating",
    /// A timer or clock counting time.
    Timer => "timer",
    /// Brief information with no more specific meaning (generic text).
    Static => "static",
    /// A fraction in a mathematical expression.
    MathFraction => "math fraction",
    /// A root in a mathematical expression.
    MathRoot => "math root",
    /// Text set below the line.
    Subscript => "subscript",
    /// Text set above the line.
    Superscript => "superscript",
    /// A list of terms, each with its description.
    DescriptionList => "description list",
    /// A term of a description list.
    DescriptionTerm => "description term",
    /// The description of a term in a description list.
    DescriptionValue => "description value",
    /// A note referred to from the text, printed apart from it.
    Footnote => "footnote",
    /// Content marked as deleted (a tracked change).
    ContentDeletion => "content deletion",
    /// Content marked as inserted (a tracked change).
    ContentInsertion => "content insertion",
    /// Content marked or highlighted.
    Mark => "mark",
    /// A proposed change to content, not yet accepted.
    Suggestion => "suggestion",
    /// A push button that opens a menu.
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
        matches!(
            self,
            Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem | Role::TearoffMenuItem
        )
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
        Role::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown role {name:?}")))
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
            assert_eq!(
                serde_json::from_value::<Role>(serde_json::json!(role.name())).unwrap(),
                role
            );
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
