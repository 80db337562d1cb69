//! Input by window messages to the target control, with the foreground
//! window, the pointer and the keyboard untouched ([`crate::messages`]
//! makes the plan; this module finds the control and sends it), and the
//! secure-input probe: the secure desktop (UAC, Ctrl+Alt+Del) holding the
//! input, or a password edit holding the focus.
//!
//! A window of a process at a higher integrity level than glovebox's (an
//! elevated application) is refused before anything is sent: Windows
//! drops messages to it without a word (UIPI), and a delivery that was
//! dropped must not be reported.
//!
//! Real input (`SendInput`, the foreground route) is not built yet: a
//! chord that needs a held modifier is refused with that reason.

use super::list::live;
use super::msaa::{items, standard};
use super::process::{integrity, own_integrity};
use super::system::{self, send, send_text};
use super::uia;
use crate::messages::{self, Control, Dispatch, LParam, Performed};
use crate::roles::StandardControl;
use crate::walk::{IdRegistry, NodeKey};
use glovebox_model::{Action, Point, WindowInfo};
use glovebox_platform::{
    BackendError, BackendErrorKind, Delivery, Mechanism, Reach, Receipt, Relative, ResolvedTarget,
    Route, Semantic,
};
use std::sync::Mutex;
use windows::Win32::Foundation::{HANDLE, HWND, LPARAM, POINT, WPARAM};
use windows::Win32::System::StationsAndDesktops::{
    CloseDesktop, GetUserObjectInformationW, OpenInputDesktop, DESKTOP_CONTROL_FLAGS,
    DESKTOP_READOBJECTS, UOI_NAME,
};
use windows::Win32::UI::Input::KeyboardAndMouse::{MapVirtualKeyW, MAPVK_VK_TO_VSC};
use windows::Win32::UI::WindowsAndMessaging::{
    ChildWindowFromPointEx, GetDlgCtrlID, GetParent, PostMessageW, CWP_SKIPINVISIBLE,
    CWP_SKIPTRANSPARENT,
};

/// The deepest visible control of `window` under `at` (screen coordinates).
fn control_at(window: HWND, at: Point) -> HWND {
    let mut current = window;
    for _ in 0..64 {
        let origin = system::client_origin(current);
        let inside = POINT { x: at.x - origin.x, y: at.y - origin.y };
        // SAFETY: only looks windows up.
        let child = unsafe {
            ChildWindowFromPointEx(current, inside, CWP_SKIPINVISIBLE | CWP_SKIPTRANSPARENT)
        };
        if child.is_invalid() || child == current {
            break;
        }
        current = child;
    }
    current
}

/// The control a message plan is made for.
fn control(hwnd: HWND) -> Control {
    let kind = standard(hwnd);
    // SAFETY: both only look the handle up.
    let (parent, dialog_id) = unsafe { (GetParent(hwnd).unwrap_or_default(), GetDlgCtrlID(hwnd)) };
    Control {
        hwnd: system::handle(hwnd),
        kind,
        origin: system::client_origin(hwnd),
        parent: system::handle(parent),
        dialog_id: dialog_id as u16,
        items: kind.map(|k| items(hwnd, k)).unwrap_or_default(),
    }
}

/// The `lParam` of a key message: repeat 1, the key's scan code, and on
/// the way up the previous-state and transition bits.
fn key_lparam(vk: u16, up: bool) -> isize {
    // SAFETY: a lookup in the keyboard layout.
    let scan = unsafe { MapVirtualKeyW(vk as u32, MAPVK_VK_TO_VSC) } & 0xFF;
    let mut bits = 1u32 | (scan << 16);
    if up {
        bits |= (1 << 30) | (1 << 31);
    }
    bits as i32 as isize
}

/// What sending the plan's messages came to.
enum Sent {
    /// Every message went, every sent one was answered.
    Answered,
    /// A sent message got no answer in time (a button whose click opened
    /// a modal dialog is still in it): delivered, not yet finished.
    Pending,
}

fn send_plan(plan: &messages::Plan) -> Result<Sent, BackendError> {
    let mut outcome = Sent::Answered;
    for m in &plan.messages {
        let to = system::hwnd(m.to);
        let answered = match (&m.lparam, m.dispatch) {
            (LParam::Text(text), Dispatch::Send) => send_text(to, m.msg, m.wparam, text).is_some(),
            (LParam::Text(_), Dispatch::Post) => {
                return Err(BackendError::invalid_argument("a text cannot be posted, only sent"))
            }
            (other, dispatch) => {
                let lparam = match other {
                    LParam::Key { vk, up } => key_lparam(*vk, *up),
                    LParam::Value(v) => *v,
                    LParam::Text(_) => unreachable!("matched above"),
                };
                match dispatch {
                    Dispatch::Send => send(to, m.msg, m.wparam, lparam).is_some(),
                    Dispatch::Post => {
                        // SAFETY: plain numbers to a window; nothing points at memory.
                        unsafe { PostMessageW(Some(to), m.msg, WPARAM(m.wparam), LPARAM(lparam)) }
                            .map_err(|e| {
                                BackendError::new(
                                    BackendErrorKind::Gone,
                                    format!("the message could not be posted: {e}"),
                                )
                            })?;
                        true
                    }
                }
            }
        };
        if !answered {
            outcome = Sent::Pending;
        }
    }
    Ok(outcome)
}

/// Delivers input to the controls of listed windows.
pub(crate) struct Input<'a> {
    pub(crate) ids: &'a Mutex<IdRegistry>,
}

impl Input<'_> {
    pub(crate) fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        reach: Reach,
    ) -> Result<Delivery, BackendError> {
        let top = live(window)?;
        if let (Some(theirs), Some(ours)) = (integrity(window.id.pid), own_integrity()) {
            if theirs > ours {
                return Err(BackendError::unavailable(format!(
                    "window {} belongs to a process of a higher integrity level than glovebox's (an elevated application): Windows drops messages to it (UIPI), so nothing was sent",
                    window.id
                )));
            }
        }
        let points: Vec<Option<Point>> = targets.iter().map(|t| t.point()).collect();
        let mut item = None;
        let target_hwnd = match targets.first() {
            Some(ResolvedTarget::Element { id, .. })
            | Some(ResolvedTarget::Global { under: Some(id), .. }) => {
                let key = self
                    .ids
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .resolve(window.id.handle, *id)?;
                match key {
                    NodeKey::Window(h) => system::hwnd(h),
                    NodeKey::Item { hwnd, index } => {
                        item = Some(index);
                        system::hwnd(hwnd)
                    }
                    NodeKey::Uia(runtime) => {
                        if let Some(delivery) = by_patterns(top, &runtime, action)? {
                            return Ok(delivery);
                        }
                        // No pattern carries it: messages to the control under its point.
                        let at = targets.first().and_then(|t| t.point()).ok_or_else(|| {
                            BackendError::not_actionable(format!(
                                "{id} offers no UI Automation pattern for this and has no place on the screen"
                            ))
                        })?;
                        control_at(top, at)
                    }
                }
            }
            Some(ResolvedTarget::Global { at, under: None }) => control_at(top, *at),
            None => system::owner(top)
                .and_then(|(_, thread)| system::focus_of_thread(thread))
                .filter(|focus| system::within(top, *focus))
                .unwrap_or(top),
        };
        if !system::within(top, target_hwnd) {
            return Err(BackendError::new(
                BackendErrorKind::StaleElement,
                format!("the target is no longer inside window {}; observe again", window.id),
            ));
        }
        let target = control(target_hwnd);
        // A list's item is chosen through its list, by its own name.
        let (action, on_parent) = match (item, action) {
            (Some(index), Action::Click { target: t, .. }) => {
                let name = target.items.get(index as usize).cloned().ok_or_else(|| {
                    BackendError::new(
                        BackendErrorKind::StaleElement,
                        "the list no longer holds that item; observe again",
                    )
                })?;
                (Action::Select { target: *t, option: name }, true)
            }
            (Some(_), _) => {
                return Err(BackendError::not_actionable(
                    "a list's item takes a click (it is chosen) and nothing else",
                ))
            }
            (None, other) => (other.clone(), false),
        };
        let plan = match messages::plan(
            &action,
            &target,
            points.first().copied().flatten(),
            points.get(1).copied().flatten(),
        ) {
            Err(e)
                if e.kind == BackendErrorKind::NoBackgroundRoute && reach != Reach::Background =>
            {
                return Err(BackendError::no_background_route(format!(
                    "{}; glovebox's real input on Windows (SendInput) is not built yet",
                    e.message
                )))
            }
            other => other?,
        };
        if matches!(target.kind, Some(StandardControl::Edit { password: true, .. }))
            && matches!(action, Action::Type { .. } | Action::SetValue { .. } | Action::Key { .. })
        {
            return Err(BackendError::new(
                BackendErrorKind::SecureInput,
                "the target is a password field: glovebox never types into one",
            ));
        }
        let sent = send_plan(&plan)?;
        let mechanism = Mechanism::named(plan.mechanism);
        let mut route = match plan.semantic {
            Some(Performed::Click) => Route::Semantic(Semantic::Invoke("click".into()), mechanism),
            Some(Performed::SetText) => Route::Semantic(Semantic::SetText, mechanism),
            Some(Performed::Select) => Route::Semantic(Semantic::Select, mechanism),
            None => Route::WindowEvents(mechanism),
        };
        if on_parent {
            route = Route::On(Box::new(route), Relative::Parent);
        }
        let receipt = match sent {
            Sent::Answered => Receipt::Sent,
            Sent::Pending => Receipt::Pending,
        };
        Ok(Delivery { route, receipt })
    }
}

/// Carries `action` out by the patterns of the UI Automation element
/// `runtime` of window `top`; `None` when no pattern carries it.
fn by_patterns(
    top: HWND,
    runtime: &[i32],
    action: &Action,
) -> Result<Option<Delivery>, BackendError> {
    let element = uia::root(top).and_then(|root| root.find(runtime)).ok_or_else(|| {
        BackendError::new(
            BackendErrorKind::StaleElement,
            "the element is gone from the window; observe again",
        )
    })?;
    let (done, semantic) = match action {
        Action::Click { button: glovebox_model::Button::Left, count: 1, modifiers, .. }
            if modifiers.is_empty() =>
        {
            (element.click(), Semantic::Invoke("click".into()))
        }
        Action::SetValue { text, .. } => {
            if element.password() {
                return Err(BackendError::new(
                    BackendErrorKind::SecureInput,
                    "the target is a password field: glovebox never types into one",
                ));
            }
            (element.set_value(text), Semantic::SetText)
        }
        Action::Select { option, .. } => (element.select(option), Semantic::Select),
        _ => (None, Semantic::SetText),
    };
    Ok(done.map(|mechanism| Delivery::by(Route::Semantic(semantic, Mechanism::named(mechanism)))))
}

/// Whether the input desktop is another than this session's own
/// (`Default`): the secure desktop of a UAC prompt or Ctrl+Alt+Del.
pub(crate) fn secure_desktop() -> bool {
    // SAFETY: the desktop handle is closed before return; the name buffer
    // is as long as the call is told.
    unsafe {
        let Ok(desktop) = OpenInputDesktop(DESKTOP_CONTROL_FLAGS(0), false, DESKTOP_READOBJECTS)
        else {
            // Not even readable: the secure desktop holds the input.
            return true;
        };
        let mut name = [0u16; 64];
        let read = GetUserObjectInformationW(
            HANDLE(desktop.0),
            UOI_NAME,
            Some(name.as_mut_ptr().cast()),
            (name.len() * 2) as u32,
            None,
        );
        let _ = CloseDesktop(desktop);
        let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
        read.is_ok() && !String::from_utf16_lossy(&name[..end]).eq_ignore_ascii_case("default")
    }
}

/// Whether a password edit of `window` holds the keyboard focus.
pub(crate) fn focused_password(window: &WindowInfo) -> Result<bool, BackendError> {
    let top = live(window)?;
    let focus = system::owner(top).and_then(|(_, thread)| system::focus_of_thread(thread));
    Ok(focus.is_some_and(|f| {
        system::within(top, f)
            && matches!(standard(f), Some(StandardControl::Edit { password: true, .. }))
    }))
}
