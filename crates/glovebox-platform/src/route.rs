//! How an input reached an application, as data: the kind of channel that
//! carried it — the element's own semantic operation, synthetic events sent
//! to the window alone, or the real input — with the mechanism the backend
//! names in its own words, what it was done on when that was not the target
//! itself, and what followed. Callers match on the kinds; people and models
//! read the text form (`at-spi:DoAction(click)`, `x11:SendEvent`, `x11:XTest
//! on the agent display`, or on another OS its own words), which [`Route`]'s
//! `Display` writes from the backend's [`Mechanism`] and nothing parses.

use glovebox_model::{KeyCombo, Role};
use std::borrow::Cow;
use std::fmt;

/// How a backend carried a route out, in its own words (`at-spi:DoAction(click)`,
/// `x11:XTest`, `wayland:the seat's keyboard`; a Windows backend would say
/// `uia:InvokePattern.Invoke`): shown to people and models, never matched on
/// above the platform layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mechanism(Cow<'static, str>);

impl Mechanism {
    /// A mechanism named by a fixed text.
    pub const fn named(name: &'static str) -> Mechanism {
        Mechanism(Cow::Borrowed(name))
    }

    /// A mechanism whose name carries what the application told (an action's name).
    pub fn described(name: String) -> Mechanism {
        Mechanism(Cow::Owned(name))
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The route one delivered input took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The element's own operation through the application's accessibility
    /// interface (AT-SPI, UI Automation, the macOS accessibility API).
    Semantic(Semantic, Mechanism),
    /// Synthetic events sent to the window alone (X11 `SendEvent`, posted
    /// window messages): the user's pointer and keyboard are not involved.
    WindowEvents(Mechanism),
    /// The real input: a device's pointer and keyboard (X11's XTest,
    /// `SendInput`) or the seat's through the compositor (GNOME's Mutter
    /// remote desktop, KDE's desktop portal, GNOME Shell's virtual pointer)
    /// after the window was given the focus. It moves the user's own pointer
    /// or goes where the focus is, so it is foreground or the agent display's.
    RealInput(Mechanism),
    /// The fake desktop of the policy tests.
    #[cfg(feature = "fake")]
    Fake,
    /// `first` put the focus or the cursor on the target, then keys sent to
    /// the window (by `keys`) typed into it.
    ThenKeys(Box<Route>, Mechanism),
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
    /// application is working on it); `call` names it.
    Unanswered(Mechanism),
}

/// The element's own operation a semantic route carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Semantic {
    /// One of the element's actions (click, toggle, expand), by its name.
    Invoke(String),
    /// The whole text replaced.
    SetText,
    /// Text inserted at the caret.
    InsertText,
    /// A number set.
    SetValue,
    /// A child chosen through a container's selection.
    Select,
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

    /// Whether the application answered the input itself: a semantic
    /// route's call returns once the application has run it, so a request
    /// sent after it is served after the input.
    pub fn answered(&self) -> bool {
        matches!(self.base(), Route::Semantic(..))
    }

    /// Whether the application's own accessibility carried it (any part).
    pub fn is_accessible(&self) -> bool {
        matches!(self.base(), Route::Semantic(..) | Route::Unanswered(_))
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Route::Semantic(_, mechanism)
            | Route::WindowEvents(mechanism)
            | Route::RealInput(mechanism) => mechanism.fmt(f),
            #[cfg(feature = "fake")]
            Route::Fake => f.write_str("fake"),
            Route::ThenKeys(first, keys) => write!(f, "{first}+{keys}"),
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
            Route::Unanswered(call) => write!(f, "{call} (sent; no reply yet)"),
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
    fn a_route_reads_as_the_backend_named_its_mechanism_with_what_was_said_of_where() {
        let click = Route::Semantic(
            Semantic::Invoke("click".into()),
            Mechanism::described("at-spi:DoAction(click)".into()),
        );
        assert_eq!(click.to_string(), "at-spi:DoAction(click)");
        assert_eq!(
            Route::On(Box::new(click.clone()), Relative::Parent).to_string(),
            "at-spi:DoAction(click) on the parent"
        );
        let keys = Mechanism::named("x11:SendEvent(keys)");
        assert_eq!(
            Route::ThenKeys(Box::new(click.clone()), keys).to_string(),
            "at-spi:DoAction(click)+x11:SendEvent(keys)"
        );
        let invoke = Route::Semantic(
            Semantic::Invoke("invoke".into()),
            Mechanism::named("uia:InvokePattern.Invoke"),
        );
        assert_eq!(
            Route::OnAgentDisplay(Box::new(invoke)).to_string(),
            "uia:InvokePattern.Invoke on the agent display"
        );
        let shortcut = Route::Shortcut {
            route: Box::new(click.clone()),
            role: Role::MenuItem,
            name: "Save".into(),
            combo: "ctrl+s".parse().unwrap(),
        };
        assert_eq!(shortcut.to_string(), "at-spi:DoAction(click) on the menu item \"Save\" bound to ctrl+s (the application's own shortcut)");
        assert_eq!(shortcut.base(), &click);
        let events = Route::WindowEvents(Mechanism::named("x11:SendEvent"));
        assert!(shortcut.is_accessible() && !events.is_accessible());
        assert_eq!(
            Route::Unanswered(Mechanism::named("at-spi:DoAction")).to_string(),
            "at-spi:DoAction (sent; no reply yet)"
        );
        assert_eq!(serde_json::to_value(events).unwrap(), serde_json::json!("x11:SendEvent"));
    }
}
