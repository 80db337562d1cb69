//! How an input reached an application, as data: the channel that carried
//! it, what it was done on when that was not the target itself, and what
//! followed. Callers match on it; people and models read its text form
//! (`at-spi:DoAction(click)`, `x11:SendEvent`, `x11:XTest on the agent
//! display`), which [`Route`]'s `Display` writes and nothing parses.

use glovebox_model::{KeyCombo, Role};
use std::fmt;

/// The route one delivered input took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// A call of the application's own accessibility interface.
    Accessible(AccessibleCall),
    /// Synthetic events sent to the window alone (X11 `SendEvent`): the
    /// user's pointer and keyboard are not involved.
    WindowEvents,
    /// Input as from a device (X11's XTest extension): it moves the real
    /// pointer and goes where the focus is.
    DeviceEvents,
    /// Keys on the seat's keyboard through the compositor (GNOME's Mutter
    /// remote desktop, KDE's desktop portal), after the compositor gave the
    /// window the focus: the user's own keyboard, so foreground only.
    SeatKeys,
    /// A click with the seat's pointer through the compositor (GNOME
    /// Shell's virtual pointer), after the compositor gave the window the
    /// focus: the user's own pointer, so foreground only.
    SeatPointer,
    /// The fake desktop of the policy tests.
    #[cfg(feature = "fake")]
    Fake,
    /// `first` put the focus or the cursor on the target, then keys sent to
    /// the window typed into it.
    ThenKeys(Box<Route>),
    /// Done on another element than the one aimed at.
    On(Box<Route>, Relative),
    /// A key chord delivered as the action of the element the application
    /// binds it to (a menu item's accelerator).
    Shortcut {
        /// How the bound element's action was carried out.
        route: Box<Route>,
        /// The bound element's role (a menu item).
        role: Role,
        /// The bound element's accessible name.
        name: String,
        /// The chord the agent asked for.
        combo: KeyCombo,
    },
    /// Delivered with the agent display's own pointer and keyboard.
    OnAgentDisplay(Box<Route>),
    /// Delivered, and a menu it opened now holds the keyboard.
    MenuHoldsKeyboard(Box<Route>),
    /// An accessibility call sent whose reply has not come yet (the
    /// application is working on it); `method` is the call's name.
    Unanswered {
        /// The accessibility method called (`DoAction`).
        method: &'static str,
    },
}

/// One call of the application's accessibility interface (AT-SPI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessibleCall {
    /// The element's action of this name (`click`, `toggle`, `menu.popup`).
    Action(String),
    /// An option's own activation, whatever its action is called.
    OptionAction,
    /// The whole text replaced (`EditableText.SetTextContents`).
    SetText,
    /// Text inserted at the caret (`EditableText.InsertText`).
    InsertText,
    /// A number set (`Value.CurrentValue`).
    SetValue,
    /// A child chosen through the container's selection.
    SelectChild,
    /// A child chosen through its parent's selection.
    SelectChildOfParent,
    /// The element's own focus taken, then its parent's selection.
    GrabFocusThenSelect,
}

/// Where a route acted instead of the target itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relative {
    /// The target's parent.
    Parent,
    /// One of the target's nearest ancestors.
    Ancestor,
    /// The option chosen inside the target.
    Option,
}

impl Route {
    /// The route that carried the input, without what was said of where.
    pub fn base(&self) -> &Route {
        match self {
            Route::On(route, _)
            | Route::OnAgentDisplay(route)
            | Route::MenuHoldsKeyboard(route) => route.base(),
            Route::Shortcut { route, .. } => route.base(),
            other => other,
        }
    }

    /// Whether the application's own accessibility carried it (any part).
    pub fn is_accessible(&self) -> bool {
        matches!(self.base(), Route::Accessible(_) | Route::Unanswered { .. })
    }
}

impl fmt::Display for AccessibleCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessibleCall::Action(name) => write!(f, "DoAction({name})"),
            AccessibleCall::OptionAction => f.write_str("DoAction(option)"),
            AccessibleCall::SetText => f.write_str("EditableText.SetTextContents"),
            AccessibleCall::InsertText => f.write_str("EditableText.InsertText"),
            AccessibleCall::SetValue => f.write_str("Value.CurrentValue"),
            AccessibleCall::SelectChild => f.write_str("Selection.SelectChild"),
            AccessibleCall::SelectChildOfParent => f.write_str("Selection.SelectChild(parent)"),
            AccessibleCall::GrabFocusThenSelect => {
                f.write_str("Component.GrabFocus+Selection.SelectChild")
            }
        }
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Route::Accessible(call) => write!(f, "at-spi:{call}"),
            Route::WindowEvents => f.write_str("x11:SendEvent"),
            Route::DeviceEvents => f.write_str("x11:XTest"),
            Route::SeatKeys => f.write_str("wayland:the seat's keyboard"),
            Route::SeatPointer => f.write_str("wayland:the seat's pointer"),
            #[cfg(feature = "fake")]
            Route::Fake => f.write_str("fake"),
            Route::ThenKeys(first) => write!(f, "{first}+x11:SendEvent(keys)"),
            Route::On(route, Relative::Parent) => write!(f, "{route} on the parent"),
            Route::On(route, Relative::Ancestor) => write!(f, "{route} on an ancestor"),
            Route::On(route, Relative::Option) => write!(f, "{route} on the option"),
            Route::Shortcut { route, role, name, combo } => {
                write!(f, "{route} on the {role} \"{name}\" bound to {combo} (the application's own shortcut)")
            }
            Route::OnAgentDisplay(route) => write!(f, "{route} on the agent display"),
            Route::MenuHoldsKeyboard(route) => {
                write!(f, "{route}; the menu it opened holds the keyboard until it closes")
            }
            Route::Unanswered { method } => write!(f, "at-spi:{method} (sent; no reply yet)"),
        }
    }
}

impl serde::Serialize for Route {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_read_as_before_they_were_typed() {
        let click = Route::Accessible(AccessibleCall::Action("click".into()));
        assert_eq!(click.to_string(), "at-spi:DoAction(click)");
        assert_eq!(
            Route::On(
                Box::new(Route::Accessible(AccessibleCall::GrabFocusThenSelect)),
                Relative::Parent
            )
            .to_string(),
            "at-spi:Component.GrabFocus+Selection.SelectChild on the parent"
        );
        assert_eq!(
            Route::ThenKeys(Box::new(click.clone())).to_string(),
            "at-spi:DoAction(click)+x11:SendEvent(keys)"
        );
        assert_eq!(
            Route::OnAgentDisplay(Box::new(Route::DeviceEvents)).to_string(),
            "x11:XTest on the agent display"
        );
        let shortcut = Route::Shortcut {
            route: Box::new(click.clone()),
            role: Role::MenuItem,
            name: "Save".into(),
            combo: "ctrl+s".parse().unwrap(),
        };
        assert_eq!(shortcut.to_string(), "at-spi:DoAction(click) on the menu item \"Save\" bound to ctrl+s (the application's own shortcut)");
        assert_eq!(shortcut.base(), &click);
        assert!(shortcut.is_accessible() && !Route::WindowEvents.is_accessible());
        assert_eq!(
            Route::Unanswered { method: "DoAction" }.to_string(),
            "at-spi:DoAction (sent; no reply yet)"
        );
        assert_eq!(
            serde_json::to_value(Route::WindowEvents).unwrap(),
            serde_json::json!("x11:SendEvent")
        );
    }
}
