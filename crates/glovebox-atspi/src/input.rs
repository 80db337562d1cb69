//! Semantic background input over AT-SPI: actions (click, press, toggle),
//! text replacement and insertion, values, and selection — delivered to the
//! element itself, never through the user's pointer or keyboard focus.
//!
//! Every write that can be read back is read back: a call that answers
//! `true` and changes nothing is reported as not delivered. Actions with no
//! semantic route (keys, wheel, hover, drags, other buttons) are refused
//! `COMPUTER_BACKGROUND_UNAVAILABLE` here; the caller may try another route.

use crate::backend::AtspiBackend;
use crate::calls::AtspiCall;
use crate::transport::{Bus, BusError, ObjectRef, TextUnit, ToolkitFamily, ToolkitName};
use atspi_common::{Interface, InterfaceSet, State, StateSet};
use futures_util::future::join_all;
use glovebox_model::{
    Action, ActionKind, Button, ElementAction, ElementState, Point, Role, WindowInfo,
};
use glovebox_platform::{BackendError, BackendErrorKind};
use glovebox_platform::{Delivery, Relative, ResolvedTarget, Route};
use std::time::Duration;

const INPUT_TIMEOUT: Duration = Duration::from_secs(3);

/// Roles of elements one chooses an option in.
const CHOOSER_ROLES: &[Role] = &[
    Role::ComboBox,
    Role::List,
    Role::ListBox,
    Role::Menu,
    Role::Table,
    Role::Tree,
    Role::TreeTable,
    Role::PageTabList,
];
/// Roles of the options themselves.
const OPTION_ROLES: &[Role] = &[
    Role::ListItem,
    Role::MenuItem,
    Role::CheckMenuItem,
    Role::RadioMenuItem,
    Role::TableCell,
    Role::PageTab,
    Role::TreeItem,
];

/// What `object` offers now, each action sorted as it is read.
async fn offered(bus: &Bus, object: &ObjectRef) -> Vec<ElementAction> {
    bus.actions(object)
        .await
        .unwrap_or_default()
        .into_iter()
        .map(|(name, _)| ElementAction::new(name))
        .collect()
}

fn not_actionable(message: impl Into<String>) -> BackendError {
    BackendError::new(BackendErrorKind::NotActionable, message)
}

fn no_route(what: &str) -> BackendError {
    BackendError::new(
        BackendErrorKind::NoBackgroundRoute,
        format!("no background route delivers {what} yet"),
    )
}

fn bus_failure(e: BusError) -> BackendError {
    match e {
        BusError::Gone(what) => BackendError::gone(format!("{what} went away")),
        other => BackendError::unavailable(other.to_string()),
    }
}

async fn interfaces(bus: &Bus, object: &ObjectRef) -> Result<InterfaceSet, BackendError> {
    bus.interfaces(object).await.map_err(bus_failure)
}

/// A click on `object`: its own click-like action, or that of the nearest
/// of its two closest ancestors below `frame` that has one — as a real
/// click on a button's label presses the button.
async fn click(
    bus: &Bus,
    object: &ObjectRef,
    frame: Option<&ObjectRef>,
) -> Result<Delivery, BackendError> {
    let first = activate(bus, object).await;
    let Err(refusal) = &first else { return first };
    if !refusal.is(&BackendErrorKind::NotActionable) {
        return first;
    }
    // A spreadsheet's cell offers no action: clicking it puts the cursor there.
    if bus.role(object).await.map_err(bus_failure)? == Role::TableCell {
        if let Ok(delivery) = select_in_parent(bus, object).await {
            return Ok(delivery);
        }
    }
    let mut current = object.clone();
    for _ in 0..2 {
        current = match bus.parent(&current).await {
            Ok(parent) if !parent.is_null() && Some(&parent) != frame => parent,
            _ => break,
        };
        if let Ok(delivery) = activate(bus, &current).await {
            return Ok(Delivery::by(Route::On(Box::new(delivery.route), Relative::Parent)));
        }
    }
    first
}

/// A right click as the element's own context-menu action, on the element
/// or one of its two nearest ancestors.
async fn context_menu(
    bus: &Bus,
    object: &ObjectRef,
    frame: Option<&ObjectRef>,
) -> Result<Delivery, BackendError> {
    let mut current = object.clone();
    for depth in 0..3 {
        // GTK4's installed widget action (`menu.popup`), Qt's (`ShowMenu`).
        let actions = offered(bus, &current).await;
        if let Some(index) = actions.iter().position(|a| a.kind == ActionKind::ContextMenu) {
            if !bus.do_action(&current, index as i32).await.map_err(bus_failure)? {
                return Err(not_actionable(format!(
                    "the application refused the {:?} action",
                    actions[index].name
                )));
            }
            let route = AtspiCall::Action(actions[index].name.clone()).route();
            return Ok(Delivery::by(if depth == 0 {
                route
            } else {
                Route::On(Box::new(route), Relative::Ancestor)
            }));
        }
        current = match bus.parent(&current).await {
            Ok(parent) if !parent.is_null() && Some(&parent) != frame => parent,
            _ => break,
        };
    }
    Err(no_route("a right click here (the element offers no context-menu action)"))
}

/// Selects `object`, a selectable cell that offers no action of its own,
/// as a click would: its own focus where it takes one (a spreadsheet moves
/// its cell cursor there; its table's Selection only marks the cell),
/// then its parent's Selection. The item must then read as selected or
/// focused.
async fn select_in_parent(bus: &Bus, object: &ObjectRef) -> Result<Delivery, BackendError> {
    let now = bus.states(object).await.map_err(bus_failure)?;
    if !now.contains(State::Selectable) {
        return Err(not_actionable("the element is not selectable"));
    }
    // Calc's cells take the focus without ever reading as focused: the selection read-back judges.
    let focus = now.contains(State::Focusable) && bus.grab_focus(object).await.unwrap_or(false);
    let parent = bus.parent(object).await.map_err(bus_failure)?;
    if parent.is_null() || !interfaces(bus, &parent).await?.contains(Interface::Selection) {
        return Err(not_actionable("the element's parent offers no selection"));
    }
    let index = bus.index_in_parent(object).await.map_err(bus_failure)?;
    if index < 0 || !bus.select_child(&parent, index).await.map_err(bus_failure)? {
        return Err(not_actionable("the application refused to select the element"));
    }
    let chosen =
        |states: &StateSet| states.contains(State::Selected) || states.contains(State::Focused);
    if !chosen(&read_back(|| bus.states(object), chosen).await?) {
        return Err(not_actionable(
            "the element does not read as selected after its parent selected it",
        ));
    }
    let call = if focus { AtspiCall::GrabFocusThenSelect } else { AtspiCall::SelectChild };
    Ok(Delivery::by(Route::On(Box::new(call.route()), Relative::Parent)))
}

async fn activate(bus: &Bus, object: &ObjectRef) -> Result<Delivery, BackendError> {
    let actions = offered(bus, object).await;
    // The most click-like of them (`click` before `toggle`), the first of its name.
    let chosen = actions
        .iter()
        .enumerate()
        .filter_map(|(index, a)| Some((a.click_rank()?, index)))
        .min()
        .map(|(_, index)| index);
    let Some(index) = chosen else {
        let names: Vec<&str> = actions.iter().map(|a| a.name.as_str()).collect();
        return Err(not_actionable(format!(
            "the element offers no click-like action (it offers {names:?})"
        )));
    };
    if !bus.do_action(object, index as i32).await.map_err(bus_failure)? {
        return Err(not_actionable(format!(
            "the application refused the {:?} action",
            actions[index].name
        )));
    }
    Ok(Delivery::by(AtspiCall::Action(actions[index].name.clone()).route()))
}

/// Reads a value back until it satisfies `done` or a short while passes:
/// some toolkits (GTK4) apply a write on their next main-loop turn.
async fn read_back<T, F, Fut>(read: F, done: impl Fn(&T) -> bool) -> Result<T, BackendError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, BusError>>,
{
    read_back_within(READ_BACK_TRIES, read, done).await
}

/// Reads of a field's value after it was typed into by keys: a loaded
/// renderer (Chromium's) may take most of a second to take them all, and
/// only a read that never matches waits this long.
const TYPED_READ_BACK_TRIES: usize = 50;
/// Reads of a state or value after an accessible call (20 ms apart).
const READ_BACK_TRIES: usize = 10;

/// [`read_back`] with `tries` more reads, 20 ms apart, after the first.
async fn read_back_within<T, F, Fut>(
    tries: usize,
    read: F,
    done: impl Fn(&T) -> bool,
) -> Result<T, BackendError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, BusError>>,
{
    let mut value = read().await.map_err(bus_failure)?;
    for _ in 0..tries {
        if done(&value) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        value = read().await.map_err(bus_failure)?;
    }
    Ok(value)
}

async fn set_value(bus: &Bus, object: &ObjectRef, text: &str) -> Result<Delivery, BackendError> {
    if bus.role(object).await.map_err(bus_failure)?.is_password() {
        return Err(BackendError::new(
            BackendErrorKind::SecureInput,
            "glovebox never writes into password fields",
        ));
    }
    let ifaces = interfaces(bus, object).await?;
    // A spin button is both: its text set alone is not committed to its
    // value (GTK4 parses it back only on activation), so a number goes to Value.
    let number = text.trim().parse::<f64>().ok();
    if ifaces.contains(Interface::EditableText)
        && !(ifaces.contains(Interface::Value) && number.is_some())
    {
        bus.set_text_contents(object, text).await.map_err(bus_failure)?;
        let now = read_back(|| bus.text(object), |now| now == text).await?;
        if now != text {
            return Err(not_actionable(
                "the application did not take the new text (read back differs)",
            ));
        }
        return Ok(Delivery::by(AtspiCall::SetText.route()));
    }
    if bus.role(object).await.map_err(bus_failure)? == Role::TableCell {
        // A protected sheet's cells keep a settable Value but are no longer editable.
        if !bus.states(object).await.map_err(bus_failure)?.contains(State::Editable) {
            return Err(not_actionable(
                "the cell is read-only (a protected sheet or cell); nothing was changed",
            ));
        }
        if ifaces.contains(Interface::Value)
            && number.is_none()
            && !ifaces.contains(Interface::EditableText)
        {
            return Err(not_actionable(
                "the cell takes a number through its value; text goes in only as keys",
            ));
        }
    }
    if ifaces.contains(Interface::Value) {
        let value: f64 = text.trim().parse().map_err(|_| {
            BackendError::invalid_argument(format!(
                "{text:?} is not a number for this slider or spin button"
            ))
        })?;
        bus.set_current_value(object, value).await.map_err(bus_failure)?;
        let close = |now: f64| (now - value).abs() <= 1e-6 * value.abs().max(1.0);
        let now = bus.current_value(object).await.map_err(bus_failure)?;
        if !close(now) {
            return Err(not_actionable(format!(
                "the application kept the value at {now}, not {value} (outside its range or step?)"
            )));
        }
        return Ok(Delivery::by(AtspiCall::SetValue.route()));
    }
    Err(not_actionable("the element holds no settable text or value"))
}

/// Finds the option named `option` among the element's descendants (combo
/// boxes keep theirs in a menu child) and selects it: through the element's
/// own Selection first (a GTK3 combo box sets its active item that way),
/// then the option's parent's, then by activating the option. Success is
/// read back: a combo box must show the option, a list item must be
/// selected; highlighting an item of a closed menu is not choosing it.
async fn select(bus: &Bus, object: &ObjectRef, option: &str) -> Result<Delivery, BackendError> {
    // A point may land on a part of the chooser (its label or arrow): the chooser is then an ancestor.
    let mut object = object.clone();
    for _ in 0..3 {
        if CHOOSER_ROLES.contains(&bus.role(&object).await.map_err(bus_failure)?) {
            break;
        }
        match bus.parent(&object).await {
            Ok(parent) if !parent.is_null() => object = parent,
            _ => break,
        }
    }
    // The list or menu inside a combo box only highlights; the combo box chooses.
    if let Ok(parent) = bus.parent(&object).await {
        if !parent.is_null() && bus.role(&parent).await.is_ok_and(|r| r == Role::ComboBox) {
            object = parent;
        }
    }
    let object = &object;
    let (parent, child, index) = match find_option(bus, object, option).await? {
        Found::Option(parent, child, index) => (parent, child, index),
        Found::Others(names) if names.is_empty() => return Err(BackendError::new(
            BackendErrorKind::NoBackgroundRoute,
            "the element exposes no options until it is opened, and no background route opens it",
        )),
        Found::Others(names) => {
            return Err(BackendError::new(
                BackendErrorKind::NotFound,
                format!("the element has no option named {option:?} (it has {names:?})"),
            ))
        }
    };
    let is_combo = bus.role(object).await.map_err(bus_failure)? == Role::ComboBox;
    let confirmed = || async {
        if is_combo {
            bus.name(object).await.map(|name| same_option(&name, option)).unwrap_or(false)
        } else {
            bus.states(&child).await.map(|s| s.contains(State::Selected)).unwrap_or(false)
        }
    };
    for (owner, call) in
        [(object, AtspiCall::SelectChild), (&parent, AtspiCall::SelectChildOfParent)]
    {
        if interfaces(bus, owner).await?.contains(Interface::Selection)
            && bus.select_child(owner, index).await.unwrap_or(false)
            && confirmed().await
        {
            return Ok(Delivery::by(call.route()));
        }
    }
    // An option's own action chooses it (a web page's `select`): the option
    // then says it is selected, and none of its siblings does any more (a
    // browser applies it on its own schedule, so this is waited for).
    let selected = |o: ObjectRef| async move {
        bus.states(&o).await.is_ok_and(|s| s.contains(State::Selected))
    };
    let chosen_alone = || async {
        if confirmed().await {
            return true;
        }
        let siblings = bus.children(&parent).await.unwrap_or_default();
        let states = join_all(siblings.iter().cloned().map(selected)).await;
        siblings.iter().zip(states).all(|(sibling, on)| on == (*sibling == child))
    };
    if let Some(index) =
        offered(bus, &child).await.iter().position(|a| a.kind == ActionKind::Select)
    {
        // Chromium's first `select` on a drop-down never opened can build its
        // option list and choose nothing; choosing the same option again is harmless.
        for _ in 0..2 {
            if !bus.do_action(&child, index as i32).await.unwrap_or(false) {
                break;
            }
            for _ in 0..20 {
                if chosen_alone().await {
                    return Ok(Delivery::by(Route::On(
                        Box::new(AtspiCall::Action("select".into()).route()),
                        Relative::Option,
                    )));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    if activate(bus, &child).await.is_ok() && confirmed().await {
        return Ok(Delivery::by(AtspiCall::OptionAction.route()));
    }
    Err(BackendError::new(
        BackendErrorKind::NoBackgroundRoute,
        format!("the application did not choose {option:?} through AT-SPI (read back shows no change); no background route selects it"),
    ))
}

enum Found {
    /// The option's parent, the option, and its index among its siblings.
    Option(ObjectRef, ObjectRef, i32),
    /// The names of the options there are instead.
    Others(Vec<String>),
}

/// Whether an option's accessible name is the one asked for: the same text, whatever spaces
/// pad it (a page's `<option> Large </option>` is named " Large "; a model writes "Large").
fn same_option(name: &str, option: &str) -> bool {
    name.trim() == option.trim()
}

/// Looks for the option among the element's descendants, three levels deep.
async fn find_option(bus: &Bus, object: &ObjectRef, option: &str) -> Result<Found, BackendError> {
    let mut level = vec![object.clone()];
    let mut others = vec![];
    for _ in 0..3 {
        let mut next = vec![];
        for parent in &level {
            let children = bus.children(parent).await.map_err(bus_failure)?;
            for (index, child) in children.iter().enumerate() {
                let name = bus.name(child).await.map_err(bus_failure)?;
                let is_option = OPTION_ROLES.contains(&bus.role(child).await.map_err(bus_failure)?);
                if is_option && same_option(&name, option) {
                    return Ok(Found::Option(parent.clone(), child.clone(), index as i32));
                }
                if is_option && !name.trim().is_empty() {
                    others.push(name.trim().to_owned());
                }
            }
            next.extend(children);
        }
        level = next;
    }
    Ok(Found::Others(others))
}

/// The deepest element under a global point, starting from the window's frame.
async fn element_at(bus: &Bus, frame: &ObjectRef, point: Point) -> Result<ObjectRef, BackendError> {
    let mut current = frame.clone();
    for _ in 0..32 {
        match bus.hit_test(&current, point.x, point.y).await {
            Ok(hit) if !hit.is_null() && hit != current => current = hit,
            _ => break,
        }
    }
    Ok(current)
}

impl AtspiBackend {
    async fn deliver_async(
        &self,
        bus: &Bus,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        focused: Option<ObjectRef>,
        unit: TextUnit,
    ) -> Result<Delivery, BackendError> {
        let object = match targets.first() {
            Some(ResolvedTarget::Element { id, .. }) => Some(self.resolve(window, *id)?),
            Some(ResolvedTarget::Global { at, under }) => {
                let frame = self.frame_of(window).ok_or_else(|| {
                    BackendError::new(
                        BackendErrorKind::NoBackgroundRoute,
                        format!("window {} exposes no accessible elements, so nothing semantic lies under the point", window.id),
                    )
                })?;
                // The frame's own element under the point first: it is what the
                // caller saw, and live hit-testing is wrong on toolkits that
                // cannot take screen coordinates (GTK 4.8 answers with another
                // element). Without one, the application hit-tests.
                match under {
                    Some(id) => Some(self.resolve(window, *id)?),
                    None => Some(element_at(bus, &frame, *at).await?),
                }
            }
            None => None,
        };
        match (action, object) {
            (Action::Click { button: Button::Left, count: 1, .. }, Some(object)) => {
                click(bus, &object, self.frame_of(window).as_ref()).await
            }
            (Action::Click { button: Button::Right, count: 1, .. }, Some(object)) => {
                context_menu(bus, &object, self.frame_of(window).as_ref()).await
            }
            (Action::Click { .. }, _) => Err(no_route("double, triple, right or middle clicks")),
            (Action::SetValue { text, .. }, Some(object)) => set_value(bus, &object, text).await,
            (Action::Select { option, .. }, Some(object)) => select(bus, &object, option).await,
            (Action::Type { text }, _) => {
                let focused = focused.ok_or_else(|| {
                    not_actionable("no editable element of this window has keyboard focus")
                })?;
                // Chromium's web fields have keyboard focus but no EditableText.
                if !interfaces(bus, &focused).await?.contains(Interface::EditableText) {
                    return Err(not_actionable("the focused field takes no text over AT-SPI"));
                }
                let caret = bus.caret_offset(&focused).await.map_err(bus_failure)?;
                let before = bus.text(&focused).await.map_err(bus_failure)?;
                bus.insert_text(&focused, caret, text, unit).await.map_err(bus_failure)?;
                let expected = before.chars().count() + text.chars().count();
                let after = read_back(
                    || bus.text(&focused),
                    |after| after.chars().count() == expected && after.contains(text.as_str()),
                )
                .await?;
                if after == before {
                    // Taken and dropped (Gecko answers true): nothing changed, keys may follow.
                    return Err(not_actionable(
                        "the application dropped the text inserted over AT-SPI",
                    ));
                }
                if after.chars().count() != expected || !after.contains(text.as_str()) {
                    // Partly taken or rewritten: keys now would type it a second time.
                    return Err(BackendError::new(
                        BackendErrorKind::Unconfirmed,
                        "the application did not take the typed text as sent (it reads back otherwise); observe before typing again",
                    ));
                }
                // Typing leaves the caret after the text; GTK4 leaves it where the insertion began.
                if bus.caret_offset(&focused).await.ok() == Some(caret) {
                    let length = if unit == TextUnit::Utf16 {
                        text.encode_utf16().count()
                    } else {
                        text.chars().count()
                    };
                    let _ = bus.set_caret_offset(&focused, caret + length as i32).await;
                }
                Ok(Delivery::by(AtspiCall::InsertText.route()))
            }
            (Action::Move { .. }, _) => Err(no_route("pointer moves")),
            (Action::Drag { .. }, _) => Err(no_route("drags")),
            (Action::Scroll { .. }, _) => Err(no_route("scrolling")),
            (Action::Key { .. }, _) => Err(no_route("key presses")),
            (_, None) => Err(BackendError::invalid_argument("this action needs a target")),
        }
    }

    /// The text of the window's focused editable element, read now; `None`
    /// when no such element is known or it does not answer.
    pub fn focused_text(&self, window: &WindowInfo) -> Option<String> {
        let bus = self.bus().ok()?;
        let focused = self.focused_editable(window, &bus).ok()?;
        self.runtime
            .block_on(async { tokio::time::timeout(INPUT_TIMEOUT, bus.text(&focused)).await })
            .ok()?
            .ok()
    }

    /// The focused editable element of the window, for typing at the caret:
    /// one Collection query where this application's answers were checked
    /// against a tree read (see `focused_password`), else a tree read.
    fn focused_editable(&self, window: &WindowInfo, bus: &Bus) -> Result<ObjectRef, BackendError> {
        let none = || {
            not_actionable("no editable element of this window has keyboard focus; set_value or click a field first")
        };
        if self.password_check_uses_collection(window) {
            if let Some(frame) = self.frame_of(window) {
                let states = [State::Focused, State::Editable];
                let found = self.runtime.block_on(async {
                    tokio::time::timeout(INPUT_TIMEOUT, bus.find_matching(&frame, &states, &[], 1))
                        .await
                });
                if let Ok(Ok(found)) = found {
                    let focused = found.into_iter().find(|o| !o.is_null()).ok_or_else(none)?;
                    let role = self.runtime.block_on(async {
                        tokio::time::timeout(INPUT_TIMEOUT, bus.role(&focused)).await
                    });
                    return match role {
                        Ok(Ok(role)) if role.is_password() => Err(BackendError::new(
                            BackendErrorKind::SecureInput,
                            "the focused field is a password field",
                        )),
                        Ok(Ok(_)) => Ok(focused),
                        Ok(Err(e)) => Err(bus_failure(e)),
                        Err(_) => Err(BackendError::new(
                            BackendErrorKind::Timeout,
                            format!("the application of window {} did not answer", window.id),
                        )),
                    };
                }
            }
        }
        let tree = self.inspect(window, glovebox_model::TreeBudget::default())?;
        let focused = tree
            .root
            .as_ref()
            .and_then(|root| {
                root.walk().find(|e| e.has(ElementState::Focused) && e.has(ElementState::Editable))
            })
            .ok_or_else(none)?;
        // The host refuses this first; a second lock on the same door.
        if focused.is_password() {
            return Err(BackendError::new(
                BackendErrorKind::SecureInput,
                "the focused field is a password field",
            ));
        }
        self.resolve(window, focused.id)
    }
}

impl AtspiBackend {
    fn target_object(
        &self,
        bus: &Bus,
        window: &WindowInfo,
        target: &ResolvedTarget,
    ) -> Result<ObjectRef, BackendError> {
        match target {
            ResolvedTarget::Element { id, .. } | ResolvedTarget::Global { under: Some(id), .. } => {
                self.resolve(window, *id)
            }
            ResolvedTarget::Global { at, under: None } => {
                let frame = self
                    .frame_of(window)
                    .ok_or_else(|| no_route("a point in a window without accessible elements"))?;
                self.blocking(element_at(bus, &frame, *at))
            }
        }
    }

    fn blocking<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, BackendError>>,
    ) -> Result<T, BackendError> {
        self.runtime.block_on(async {
            tokio::time::timeout(INPUT_TIMEOUT, call).await.unwrap_or_else(|_| {
                Err(BackendError::new(
                    BackendErrorKind::Timeout,
                    format!("the application did not answer within {INPUT_TIMEOUT:?}"),
                ))
            })
        })
    }

    /// Gives the editable field at `target` the application's keyboard
    /// focus through the first of its own accessible actions named in
    /// `candidates` (a browser's `activate` on a text field focuses it),
    /// without activating the window. Password fields are refused. Returns
    /// the route taken.
    pub fn focus_field(
        &self,
        window: &WindowInfo,
        target: &ResolvedTarget,
        candidates: &[&str],
    ) -> Result<Route, BackendError> {
        let bus = self.bus().map_err(BackendError::unavailable)?;
        let object = self.target_object(&bus, window, target)?;
        self.blocking(async {
            let (role, states, actions) = tokio::try_join!(bus.role(&object), bus.states(&object), bus.actions(&object)).map_err(bus_failure)?;
            if role.is_password() {
                return Err(BackendError::new(BackendErrorKind::SecureInput, "glovebox never writes into password fields"));
            }
            if !states.contains(State::Editable) {
                return Err(not_actionable("the element is not an editable field (read-only, or not a text field)"));
            }
            let index = candidates.iter().find_map(|wanted| actions.iter().position(|(name, _)| name.eq_ignore_ascii_case(wanted))).ok_or_else(|| {
                let offered: Vec<&str> = actions.iter().map(|(name, _)| name.as_str()).collect();
                BackendError::new(BackendErrorKind::NoBackgroundRoute, format!("the field offers no action that focuses it (it offers {offered:?})"))
            })?;
            if !bus.do_action(&object, index as i32).await.map_err(bus_failure)? {
                return Err(not_actionable(format!("the application refused the {:?} action that focuses the field", actions[index].0)));
            }
            // Where the toolkit reports focus (Chromium), the keys must go to this field
            // and nowhere else; Gecko reports none in an inactive window, and the read-back judges.
            let focused = |states: StateSet| states.contains(State::Focused);
            let now_focused = read_back(|| bus.states(&object), |s| focused(*s)).await?;
            if !focused(now_focused) {
                if let Some(frame) = self.frame_of(window) {
                    // Keys would land in whichever field holds the focus instead (a document or a button holding it takes no text).
                    let states = [State::Focused, State::Editable];
                    let elsewhere = bus.find_matching(&frame, &states, &[], 1).await.unwrap_or_default();
                    if let Some(other) = elsewhere.into_iter().find(|o| !o.is_null() && *o != object) {
                        let role = bus.role(&other).await.unwrap_or(Role::Unknown);
                        return Err(if role.is_password() {
                            BackendError::new(
                                BackendErrorKind::SecureInput,
                                "the field did not take the focus and a password field holds it; nothing was typed",
                            )
                        } else {
                            not_actionable("the field did not take the focus (another field holds it); nothing was typed")
                        });
                    }
                }
            }
            Ok(AtspiCall::Action(actions[index].0.clone()).route())
        })
    }

    /// Whether `target` is a cell that takes text only as keys: editable,
    /// with no EditableText (a spreadsheet's).
    pub fn is_keyed_cell(
        &self,
        window: &WindowInfo,
        target: &ResolvedTarget,
    ) -> Result<bool, BackendError> {
        let bus = self.bus().map_err(BackendError::unavailable)?;
        let object = self.target_object(&bus, window, target)?;
        self.blocking(async {
            let (role, states, ifaces) =
                tokio::try_join!(bus.role(&object), bus.states(&object), bus.interfaces(&object))
                    .map_err(bus_failure)?;
            Ok(role == Role::TableCell
                && states.contains(State::Editable)
                && !ifaces.contains(Interface::EditableText))
        })
    }

    /// Selects the cell at `target` as a click would (see
    /// `select_in_parent`), which puts a spreadsheet's cursor there; returns
    /// the route.
    pub fn select_in_table(
        &self,
        window: &WindowInfo,
        target: &ResolvedTarget,
    ) -> Result<Route, BackendError> {
        let bus = self.bus().map_err(BackendError::unavailable)?;
        let object = self.target_object(&bus, window, target)?;
        self.blocking(async { Ok(select_in_parent(&bus, &object).await?.route) })
    }

    /// Waits briefly for the field at `target` to read `text`; a refusal
    /// when it does not (keys that went elsewhere, a field that rewrote them).
    pub fn expect_text(
        &self,
        window: &WindowInfo,
        target: &ResolvedTarget,
        text: &str,
    ) -> Result<(), BackendError> {
        let bus = self.bus().map_err(BackendError::unavailable)?;
        let object = self.target_object(&bus, window, target)?;
        self.blocking(async {
            let now = read_back_within(TYPED_READ_BACK_TRIES, || bus.text(&object), |now| now == text).await?;
            if now != text {
                return Err(not_actionable("the field does not read what was typed into it (the application rewrote or refused part of it)"));
            }
            Ok(())
        })
    }

    /// Delivers `action` through AT-SPI alone (see the module doc).
    pub fn deliver_semantic(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
    ) -> Result<Delivery, BackendError> {
        let bus = self.bus().map_err(BackendError::unavailable)?;
        // Typing goes to the focused editable element, found by reading the tree first.
        let focused = match action {
            Action::Type { .. } => Some(self.focused_editable(window, &bus)?),
            _ => None,
        };
        // InsertText's length is counted differently per bridge (see `TextUnit`).
        let unit = match self.toolkit(window) {
            Some(ToolkitName { family: ToolkitFamily::Qt, .. }) => TextUnit::Utf16,
            Some(ToolkitName { family: ToolkitFamily::Gtk, major: Some(3), .. }) => {
                TextUnit::Utf8Byte
            }
            _ => TextUnit::Char,
        };
        let (sent_before, _) = bus.changes_sent();
        let answer = self.runtime.block_on(async {
            tokio::time::timeout(
                INPUT_TIMEOUT,
                self.deliver_async(&bus, window, action, targets, focused, unit),
            )
            .await
        });
        match answer {
            Ok(result) => result,
            Err(_) => self.unanswered(&bus, window, sent_before),
        }
    }

    /// An input whose reply did not come in time: pending when its
    /// change was sent and the application is working on it (busy on the
    /// CPU, or answering other requests while a dialog the action opened
    /// waits); otherwise `COMPUTER_TIMEOUT`, saying what the process is doing.
    fn unanswered(
        &self,
        bus: &Bus,
        window: &WindowInfo,
        sent_before: u64,
    ) -> Result<Delivery, BackendError> {
        let (sent_now, method) = bus.changes_sent();
        let process = crate::busy::ProcessState::watch(window.id.pid);
        let answers = || {
            let app = self.frame_of(window).map(|f| f.bus);
            app.is_some_and(|app| {
                self.runtime.block_on(bus.answers(&app, Duration::from_millis(300)))
            })
        };
        if sent_now > sent_before && (process == crate::busy::ProcessState::Working || answers()) {
            return Ok(Delivery {
                route: crate::calls::unanswered(method),
                receipt: glovebox_platform::Receipt::Pending,
            });
        }
        let sent = if sent_now > sent_before {
            "after the input was sent"
        } else {
            "before anything was sent"
        };
        Err(BackendError::new(
            BackendErrorKind::Timeout,
            format!(
                "the application of window {} did not answer within {INPUT_TIMEOUT:?} ({sent}): {}",
                window.id,
                process.why()
            ),
        ))
    }
}
