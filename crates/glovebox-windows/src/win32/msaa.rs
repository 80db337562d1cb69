//! A window's tree from its controls and MSAA: each child window is a node,
//! described by its class and style where it is a standard control (what
//! it declares itself to be; Wine's MSAA roles are partly wrong) and by
//! MSAA (`AccessibleObjectFromWindow`) otherwise; a list's and a combo
//! box's items are nodes read by the control's own messages.
//!
//! Texts of another process's controls are read by `WM_GETTEXT`, which the
//! system copies across (`GetWindowText` gives only captions there). A
//! password edit's text is never read.

use super::system::{self, send};
use crate::roles::{msaa_role, msaa_states, StandardControl};
use crate::walk::{Described, Node, NodeKey};
use glovebox_model::{ElementAction, ElementState, ElementStates, Role};
use windows::core::Interface;
use windows::Win32::Foundation::HWND;
use windows::Win32::System::Variant::{VariantClear, VARIANT, VT_I4};
use windows::Win32::UI::Accessibility::{AccessibleObjectFromWindow, IAccessible};
use windows::Win32::UI::Input::KeyboardAndMouse::IsWindowEnabled;
use windows::Win32::UI::WindowsAndMessaging::{
    GetWindow, IsWindowVisible, GW_CHILD, GW_HWNDNEXT, GW_HWNDPREV, OBJID_CLIENT,
};

/// Messages a node is read by (winuser.h).
mod msg {
    pub(super) const GETTEXT: u32 = 0x000D;
    pub(super) const GETTEXTLENGTH: u32 = 0x000E;
    pub(super) const BM_GETCHECK: u32 = 0x00F0;
    pub(super) const LB_GETSEL: u32 = 0x0187;
    pub(super) const LB_GETTEXT: u32 = 0x0189;
    pub(super) const LB_GETTEXTLEN: u32 = 0x018A;
    pub(super) const LB_GETCOUNT: u32 = 0x018B;
    pub(super) const LB_GETTOPINDEX: u32 = 0x018E;
    pub(super) const LB_GETITEMHEIGHT: u32 = 0x01A1;
    pub(super) const CB_GETCOUNT: u32 = 0x0146;
    pub(super) const CB_GETCURSEL: u32 = 0x0147;
    pub(super) const CB_GETLBTEXT: u32 = 0x0148;
    pub(super) const CB_GETLBTEXTLEN: u32 = 0x0149;
}

/// `WS_TABSTOP`: the control takes the focus by Tab.
const WS_TABSTOP: u32 = 0x1_0000;
/// `WS_CHILD`: a control inside a window, not a window of its own.
const WS_CHILD: u32 = 0x4000_0000;
/// The most items of one list read as nodes.
const MAX_ITEMS: usize = 500;

/// A node of a window's tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Win32Node {
    /// A window or control.
    Window(HWND),
    /// Item `index` of a list box or combo box.
    Item {
        /// The list box or combo box.
        list: HWND,
        /// The item's position.
        index: u32,
    },
}

/// A control's text as `WM_GETTEXT` gives it, at most `max` UTF-16 units.
pub(crate) fn control_text(hwnd: HWND, max: usize) -> Option<String> {
    let length = send(hwnd, msg::GETTEXTLENGTH, 0, 0).filter(|n| *n >= 0)? as usize;
    let capacity = length.min(max) + 1;
    let mut buffer = vec![0u16; capacity];
    let mut copied = 0usize;
    // SAFETY: the buffer holds `capacity` units, which the message is told,
    // and lives until the call returns; the system copies into it.
    let ok = unsafe {
        windows::Win32::UI::WindowsAndMessaging::SendMessageTimeoutW(
            hwnd,
            msg::GETTEXT,
            windows::Win32::Foundation::WPARAM(capacity),
            windows::Win32::Foundation::LPARAM(buffer.as_mut_ptr() as isize),
            windows::Win32::UI::WindowsAndMessaging::SMTO_ABORTIFHUNG,
            system::SEND_TIMEOUT_MS,
            Some(&mut copied),
        )
    };
    (ok.0 != 0).then(|| String::from_utf16_lossy(&buffer[..copied.min(capacity - 1)]))
}

/// Whether `hwnd` holds controls of its own (child windows).
pub(crate) fn has_child_windows(hwnd: HWND) -> bool {
    // SAFETY: only looks the handle up.
    unsafe { GetWindow(hwnd, GW_CHILD) }.is_ok_and(|c| !c.is_invalid())
}

/// The standard control `hwnd` is, if any.
pub(crate) fn standard(hwnd: HWND) -> Option<StandardControl> {
    StandardControl::of(&system::class(hwnd), system::style(hwnd))
}

/// The items of a list box or combo box, at most [`MAX_ITEMS`].
pub(crate) fn items(hwnd: HWND, kind: StandardControl) -> Vec<String> {
    let (count, length, text) = match kind {
        StandardControl::ListBox => (msg::LB_GETCOUNT, msg::LB_GETTEXTLEN, msg::LB_GETTEXT),
        StandardControl::ComboBox => (msg::CB_GETCOUNT, msg::CB_GETLBTEXTLEN, msg::CB_GETLBTEXT),
        _ => return vec![],
    };
    let n = send(hwnd, count, 0, 0).unwrap_or(0).clamp(0, MAX_ITEMS as isize) as usize;
    (0..n).map(|i| system::read_text_by(hwnd, length, text, i).unwrap_or_default()).collect()
}

/// The window's MSAA object, where it has one.
fn accessible(hwnd: HWND) -> Option<IAccessible> {
    system::com();
    let mut raw = std::ptr::null_mut();
    // SAFETY: `raw` receives one reference to an IAccessible, which
    // `from_raw` takes over (and releases when dropped).
    unsafe {
        AccessibleObjectFromWindow(hwnd, OBJID_CLIENT.0 as u32, &IAccessible::IID, &mut raw)
            .ok()?;
        (!raw.is_null()).then(|| IAccessible::from_raw(raw))
    }
}

/// The VARIANT naming the object itself (`CHILDID_SELF`).
fn itself() -> VARIANT {
    let mut v = VARIANT::default();
    // SAFETY: writes the tag and the matching field of a zeroed VARIANT.
    unsafe {
        (*v.Anonymous.Anonymous).vt = VT_I4;
        (*v.Anonymous.Anonymous).Anonymous.lVal = 0;
    }
    v
}

/// The number a VARIANT holds when it holds a 32-bit one; anything else
/// (a custom role's text) is cleared and `None`. Read by hand: Wine's
/// `VariantToInt32` is not implemented.
fn number(mut v: VARIANT) -> Option<u32> {
    // SAFETY: the tag is read before the field it names; VariantClear
    // frees whatever else the VARIANT owns.
    unsafe {
        if (*v.Anonymous.Anonymous).vt == VT_I4 {
            return Some((*v.Anonymous.Anonymous).Anonymous.lVal as u32);
        }
        let _ = VariantClear(&mut v);
    }
    None
}

/// What MSAA says of an object itself.
struct MsaaFacts {
    name: String,
    description: String,
    role: Option<u32>,
    state: Option<u32>,
    default_action: String,
}

fn msaa_facts(object: &IAccessible) -> MsaaFacts {
    let me = itself();
    // SAFETY: COM calls on a live object; each BSTR is owned and freed on drop.
    unsafe {
        MsaaFacts {
            name: object.get_accName(&me).map(|b| b.to_string()).unwrap_or_default(),
            description: object.get_accDescription(&me).map(|b| b.to_string()).unwrap_or_default(),
            role: object.get_accRole(&me).ok().and_then(number),
            state: object.get_accState(&me).ok().and_then(number),
            default_action: object
                .get_accDefaultAction(&me)
                .map(|b| b.to_string())
                .unwrap_or_default(),
        }
    }
}

/// The label a dialog puts before a field: the static text just ahead of
/// it in the tab order, as oleacc itself names edits.
fn label_before(hwnd: HWND) -> Option<String> {
    // SAFETY: only looks the handle up.
    let previous = unsafe { GetWindow(hwnd, GW_HWNDPREV) }.ok()?;
    (standard(previous) == Some(StandardControl::Static))
        .then(|| control_text(previous, 256))
        .flatten()
        .filter(|t| !t.trim().is_empty())
}

/// A field's name from its label: without the mnemonic's `&` and the
/// colon that ends a label (`&Name:` names the field "Name").
fn field_name(label: &str) -> String {
    label.replace('&', "").trim().trim_end_matches(':').trim_end().to_owned()
}

fn describe_window(hwnd: HWND) -> Option<Described> {
    if !system::exists(hwnd) {
        return None;
    }
    let style = system::style(hwnd);
    let control = standard(hwnd);
    let facts = accessible(hwnd).map(|o| msaa_facts(&o));
    let top_level = style & WS_CHILD == 0;
    let role = match (control, &facts) {
        (Some(control), _) => control.role(),
        (None, _) if top_level && system::class(hwnd) == "#32770" => Role::Dialog,
        (None, _) if top_level => Role::Frame,
        (None, Some(MsaaFacts { role: Some(role), .. })) => msaa_role(*role),
        (None, _) => Role::Panel,
    };
    let name = match control {
        Some(
            StandardControl::Edit { .. } | StandardControl::ListBox | StandardControl::ComboBox,
        ) => {
            // A field is named by the label before it, as oleacc names it on
            // Windows (Wine's MSAA names a combo box by the option it shows).
            label_before(hwnd)
                .or_else(|| facts.as_ref().map(|f| f.name.clone()).filter(|n| !n.is_empty()))
                .map(|n| field_name(&n))
                .unwrap_or_default()
        }
        Some(_) => control_text(hwnd, 256).unwrap_or_default().replace('&', ""),
        None if top_level => system::text(hwnd),
        None => facts.as_ref().map(|f| f.name.clone()).unwrap_or_default(),
    };
    let mut states = match &facts {
        Some(MsaaFacts { state: Some(state), .. }) if control.is_none() => msaa_states(*state),
        _ => ElementStates::default(),
    };
    // SAFETY: both only look the handle up.
    let (enabled, visible) =
        unsafe { (IsWindowEnabled(hwnd).as_bool(), IsWindowVisible(hwnd).as_bool()) };
    if control.is_some() || facts.as_ref().is_none_or(|f| f.state.is_none()) {
        if enabled {
            states.insert(ElementState::Enabled);
        }
        if visible {
            states.insert(ElementState::Visible);
            states.insert(ElementState::Showing);
        }
    }
    if let Some(control) = control {
        control.states().for_each(|s| states.insert(s));
        if style & WS_TABSTOP != 0 || matches!(control, StandardControl::Edit { .. }) {
            states.insert(ElementState::Focusable);
        }
        if matches!(control, StandardControl::CheckBox | StandardControl::RadioButton) {
            match send(hwnd, msg::BM_GETCHECK, 0, 0) {
                Some(1) => states.insert(ElementState::Checked),
                Some(2) => states.insert(ElementState::Indeterminate),
                _ => {}
            }
        }
    }
    if let Some((_, thread)) = system::owner(hwnd) {
        if system::focus_of_thread(thread) == Some(hwnd) {
            states.insert(ElementState::Focused);
        }
    }
    let actions = match control {
        Some(
            StandardControl::PushButton | StandardControl::CheckBox | StandardControl::RadioButton,
        ) => {
            vec![ElementAction::new("click")]
        }
        Some(_) => vec![],
        None => facts
            .as_ref()
            .map(|f| f.default_action.trim().to_owned())
            .filter(|a| !a.is_empty())
            .map(ElementAction::new)
            .into_iter()
            .collect(),
    };
    Some(Described {
        key: NodeKey::Window(system::handle(hwnd)),
        role,
        name,
        description: facts.map(|f| f.description).unwrap_or_default(),
        states,
        screen_bounds: if top_level {
            system::client_rect(hwnd)
        } else {
            system::window_rect(hwnd)
        },
        has_value: control.is_some_and(|c| c.text_is_value() || c == StandardControl::ComboBox),
        actions,
    })
}

/// Whether item `index` is in the list's view: from the first item shown,
/// as many as the list's height holds (a combo box's closed list shows none).
fn item_showing(list: HWND, kind: StandardControl, index: u32) -> bool {
    // SAFETY: only looks the handle up.
    if kind != StandardControl::ListBox || !unsafe { IsWindowVisible(list).as_bool() } {
        return false;
    }
    let top = send(list, msg::LB_GETTOPINDEX, 0, 0).unwrap_or(0).max(0) as u32;
    let height = send(list, msg::LB_GETITEMHEIGHT, 0, 0).unwrap_or(0).max(1) as u32;
    let shown = system::client_rect(list).map(|r| r.height.div_ceil(height)).unwrap_or(0);
    (top..top + shown).contains(&index)
}

fn describe_item(list: HWND, index: u32) -> Option<Described> {
    let kind = standard(list)?;
    let (length, text) = match kind {
        StandardControl::ListBox => (msg::LB_GETTEXTLEN, msg::LB_GETTEXT),
        _ => (msg::CB_GETLBTEXTLEN, msg::CB_GETLBTEXT),
    };
    let name = system::read_text_by(list, length, text, index as usize)?;
    let selected = match kind {
        StandardControl::ListBox => {
            send(list, msg::LB_GETSEL, index as usize, 0).is_some_and(|s| s > 0)
        }
        _ => send(list, msg::CB_GETCURSEL, 0, 0) == Some(index as isize),
    };
    let mut states: ElementStates = [ElementState::Enabled, ElementState::Visible].into();
    if item_showing(list, kind, index) {
        states.insert(ElementState::Showing);
    }
    if selected {
        states.insert(ElementState::Selected);
    }
    Some(Described {
        key: NodeKey::Item { hwnd: system::handle(list), index },
        role: Role::ListItem,
        name,
        description: String::new(),
        states,
        screen_bounds: None,
        has_value: false,
        actions: vec![ElementAction::new("select")],
    })
}

impl Node for Win32Node {
    fn describe(&self) -> Option<Described> {
        match *self {
            Win32Node::Window(hwnd) => describe_window(hwnd),
            Win32Node::Item { list, index } => describe_item(list, index),
        }
    }

    fn children(&self) -> Vec<Win32Node> {
        let Win32Node::Window(hwnd) = *self else { return vec![] };
        if let Some(kind @ (StandardControl::ListBox | StandardControl::ComboBox)) = standard(hwnd)
        {
            let count = items(hwnd, kind).len() as u32;
            return (0..count).map(|index| Win32Node::Item { list: hwnd, index }).collect();
        }
        let mut out = vec![];
        // SAFETY: only looks handles up; the walk stops at the last sibling.
        let mut next = unsafe { GetWindow(hwnd, GW_CHILD) }.ok();
        while let Some(child) = next.filter(|c| !c.is_invalid()) {
            out.push(Win32Node::Window(child));
            if out.len() > 10_000 {
                break;
            }
            // SAFETY: as above.
            next = unsafe { GetWindow(child, GW_HWNDNEXT) }.ok();
        }
        out
    }
}
