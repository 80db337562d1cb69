//! Which window messages carry an action to a control without the user's
//! pointer, keyboard or foreground window: a plan, made from what the
//! control is (its class and style) and where it is, and carried out by
//! the Windows executor. Pure, so every row is tested on any system.
//!
//! Messages reach one window alone. A chord held with Ctrl, Alt or the
//! Windows key does not: applications read those keys' state from the
//! keyboard, which a message cannot hold down, so such a key is refused
//! here rather than delivered half (`NoBackgroundRoute`).

use crate::roles::StandardControl;
use glovebox_model::{Action, Button, Key, KeyCombo, ModifierKey, NamedKey, Point};
use glovebox_platform::{BackendError, BackendErrorKind};

/// Message numbers (winuser.h).
#[allow(missing_docs)]
pub mod wm {
    pub const SETTEXT: u32 = 0x000C;
    pub const KEYDOWN: u32 = 0x0100;
    pub const KEYUP: u32 = 0x0101;
    pub const CHAR: u32 = 0x0102;
    pub const COMMAND: u32 = 0x0111;
    pub const MOUSEMOVE: u32 = 0x0200;
    pub const LBUTTONDOWN: u32 = 0x0201;
    pub const LBUTTONUP: u32 = 0x0202;
    pub const LBUTTONDBLCLK: u32 = 0x0203;
    pub const RBUTTONDOWN: u32 = 0x0204;
    pub const RBUTTONUP: u32 = 0x0205;
    pub const MBUTTONDOWN: u32 = 0x0207;
    pub const MBUTTONUP: u32 = 0x0208;
    pub const MOUSEWHEEL: u32 = 0x020A;
    pub const MOUSEHWHEEL: u32 = 0x020E;
    pub const BM_CLICK: u32 = 0x00F5;
    pub const LB_SETCURSEL: u32 = 0x0186;
    pub const CB_SETCURSEL: u32 = 0x014E;
    /// `LBN_SELCHANGE` and `CBN_SELCHANGE`: the parent's notice that the choice changed.
    pub const SELCHANGE: u16 = 1;
    pub const MK_LBUTTON: usize = 0x1;
    pub const MK_RBUTTON: usize = 0x2;
    pub const MK_SHIFT: usize = 0x4;
    pub const MK_CONTROL: usize = 0x8;
    pub const MK_MBUTTON: usize = 0x10;
    /// One wheel notch.
    pub const WHEEL_DELTA: i32 = 120;
}

/// A control as the executor found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// Its window handle.
    pub hwnd: u32,
    /// What its class and style declare; `None` for a class of the application's own.
    pub kind: Option<StandardControl>,
    /// Where its client area's top-left corner is on the screen.
    pub origin: Point,
    /// The window its notices go to.
    pub parent: u32,
    /// Its id among its parent's controls (`GetDlgCtrlID`).
    pub dialog_id: u16,
    /// A list's or combo box's items, in order.
    pub items: Vec<String>,
}

/// How a message goes: sent (the call returns once the control handled it)
/// or posted (queued; the application reads it in order with its input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// `SendMessageTimeout`.
    Send,
    /// `PostMessage`.
    Post,
}

/// A message's `lParam`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LParam {
    /// A number.
    Value(isize),
    /// A pointer to this text, as UTF-16 with a terminating zero (`WM_SETTEXT`).
    Text(String),
    /// A key message's repeat count, scan code and transition bits for
    /// this virtual key, filled in by the executor from the keyboard layout.
    Key {
        /// The virtual key.
        vk: u16,
        /// Whether the key goes up.
        up: bool,
    },
}

/// One message to one window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The window it goes to.
    pub to: u32,
    /// Sent or posted.
    pub dispatch: Dispatch,
    /// `WM_*`.
    pub msg: u32,
    /// `wParam`.
    pub wparam: usize,
    /// `lParam`.
    pub lparam: LParam,
}

/// What carries an action: messages, and how the result names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The messages, in order.
    pub messages: Vec<Message>,
    /// The mechanism in the backend's words (`win32:BM_CLICK`).
    pub mechanism: &'static str,
    /// Whether the control's own operation carried it (a button's click, a
    /// field's text set) rather than pointer or key events to it.
    pub semantic: Option<Performed>,
}

/// A control's own operation a plan performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Performed {
    /// The button's click.
    Click,
    /// The whole text replaced.
    SetText,
    /// The list's choice.
    Select,
}

fn refuse(kind: BackendErrorKind, words: String) -> BackendError {
    BackendError::new(kind, words)
}

fn post(to: u32, msg: u32, wparam: usize, lparam: isize) -> Message {
    Message { to, dispatch: Dispatch::Post, msg, wparam, lparam: LParam::Value(lparam) }
}

/// `MAKELPARAM(x, y)` of a client point.
fn point_lparam(x: i32, y: i32) -> isize {
    (((y as u16 as u32) << 16) | (x as u16 as u32)) as i32 as isize
}

/// The `MK_*` bits for `modifiers`, or why they cannot go in a message.
fn mouse_keys(modifiers: &[ModifierKey]) -> Result<usize, BackendError> {
    let mut keys = 0;
    for m in modifiers {
        keys |= match m {
            ModifierKey::Ctrl => wm::MK_CONTROL,
            ModifierKey::Shift => wm::MK_SHIFT,
            ModifierKey::Alt | ModifierKey::Super => {
                return Err(refuse(
                    BackendErrorKind::NoBackgroundRoute,
                    format!("{m:?} held during a pointer action cannot be carried by a window message; it needs the real keyboard (foreground input)"),
                ))
            }
        };
    }
    Ok(keys)
}

/// The plan for `action` on `control`, aimed at `at` (screen coordinates)
/// where it is a pointer action; `to` is a drag's end.
pub fn plan(
    action: &Action,
    control: &Control,
    at: Option<Point>,
    to: Option<Point>,
) -> Result<Plan, BackendError> {
    let hwnd = control.hwnd;
    let client = |p: Point| point_lparam(p.x - control.origin.x, p.y - control.origin.y);
    let need_point = || {
        at.ok_or_else(|| {
            refuse(
                BackendErrorKind::NotActionable,
                "the target has no place on the screen to aim at".into(),
            )
        })
    };
    match action {
        Action::Click { button: Button::Left, count: 1, modifiers, .. }
            if modifiers.is_empty()
                && matches!(
                    control.kind,
                    Some(StandardControl::PushButton | StandardControl::CheckBox | StandardControl::RadioButton)
                ) =>
        {
            Ok(Plan {
                messages: vec![Message {
                    to: hwnd,
                    dispatch: Dispatch::Send,
                    msg: wm::BM_CLICK,
                    wparam: 0,
                    lparam: LParam::Value(0),
                }],
                mechanism: "win32:BM_CLICK",
                semantic: Some(Performed::Click),
            })
        }
        Action::Click { button, count, modifiers, .. } => {
            let keys = mouse_keys(modifiers)?;
            let (down, up, double, held) = match button {
                Button::Left => (wm::LBUTTONDOWN, wm::LBUTTONUP, wm::LBUTTONDBLCLK, wm::MK_LBUTTON),
                Button::Right => (wm::RBUTTONDOWN, wm::RBUTTONUP, wm::RBUTTONDOWN + 2, wm::MK_RBUTTON),
                Button::Middle => (wm::MBUTTONDOWN, wm::MBUTTONUP, wm::MBUTTONDOWN + 2, wm::MK_MBUTTON),
                Button::Back | Button::Forward => {
                    return Err(refuse(
                        BackendErrorKind::NoBackgroundRoute,
                        "the side buttons have no window message this backend sends; use a key (alt+Left) instead".into(),
                    ))
                }
            };
            let at = client(need_point()?);
            let mut messages = vec![post(hwnd, wm::MOUSEMOVE, keys, at)];
            for n in 0..*count {
                // Windows itself turns the second press of a double click
                // into a DBLCLK message; posted input has to say so.
                let press = if n % 2 == 1 { double } else { down };
                messages.push(post(hwnd, press, keys | held, at));
                messages.push(post(hwnd, up, keys, at));
            }
            Ok(Plan { messages, mechanism: "win32:PostMessage(mouse)", semantic: None })
        }
        Action::Move { modifiers, .. } => {
            let keys = mouse_keys(modifiers)?;
            Ok(Plan {
                messages: vec![post(hwnd, wm::MOUSEMOVE, keys, client(need_point()?))],
                mechanism: "win32:PostMessage(WM_MOUSEMOVE)",
                semantic: None,
            })
        }
        Action::Drag { modifiers, .. } => {
            let keys = mouse_keys(modifiers)?;
            let from = client(need_point()?);
            let end = client(to.ok_or_else(|| {
                refuse(BackendErrorKind::NotActionable, "the drag's end has no place on the screen".into())
            })?);
            Ok(Plan {
                messages: vec![
                    post(hwnd, wm::MOUSEMOVE, keys, from),
                    post(hwnd, wm::LBUTTONDOWN, keys | wm::MK_LBUTTON, from),
                    post(hwnd, wm::MOUSEMOVE, keys | wm::MK_LBUTTON, end),
                    post(hwnd, wm::LBUTTONUP, keys, end),
                ],
                mechanism: "win32:PostMessage(mouse)",
                semantic: None,
            })
        }
        Action::Scroll { dx, dy, modifiers, .. } => {
            let keys = mouse_keys(modifiers)?;
            let at = need_point()?;
            // The wheel's lParam is in screen coordinates, unlike the buttons'.
            let screen = point_lparam(at.x, at.y);
            let mut messages = vec![];
            for (steps, msg, sign) in [(*dy, wm::MOUSEWHEEL, -1), (*dx, wm::MOUSEHWHEEL, 1)] {
                for _ in 0..steps.unsigned_abs() {
                    let delta = (sign * steps.signum() * wm::WHEEL_DELTA) as i16 as u16 as usize;
                    messages.push(post(hwnd, msg, (delta << 16) | keys, screen));
                }
            }
            Ok(Plan { messages, mechanism: "win32:PostMessage(WM_MOUSEWHEEL)", semantic: None })
        }
        Action::Type { text } => Ok(Plan {
            messages: text.encode_utf16().map(|unit| post(hwnd, wm::CHAR, unit as usize, 1)).collect(),
            mechanism: "win32:PostMessage(WM_CHAR)",
            semantic: None,
        }),
        Action::SetValue { text, .. } => match control.kind {
            Some(StandardControl::Edit { read_only: false, .. }) => Ok(Plan {
                messages: vec![Message {
                    to: hwnd,
                    dispatch: Dispatch::Send,
                    msg: wm::SETTEXT,
                    wparam: 0,
                    lparam: LParam::Text(text.clone()),
                }],
                mechanism: "win32:WM_SETTEXT",
                semantic: Some(Performed::SetText),
            }),
            _ => Err(refuse(
                BackendErrorKind::NotActionable,
                "only a writable edit control takes a whole new text by message; click it and type instead".into(),
            )),
        },
        Action::Key { combo, repeat } => key_plan(hwnd, combo, *repeat),
        Action::Select { option, .. } => {
            let (set, what) = match control.kind {
                Some(StandardControl::ListBox) => (wm::LB_SETCURSEL, "list"),
                Some(StandardControl::ComboBox) => (wm::CB_SETCURSEL, "combo box"),
                _ => {
                    return Err(refuse(
                        BackendErrorKind::NotActionable,
                        "only a list box or combo box chooses an option by message".into(),
                    ))
                }
            };
            let wanted = option.trim();
            let index = control.items.iter().position(|i| i.trim() == wanted).ok_or_else(|| {
                refuse(
                    BackendErrorKind::NotFound,
                    format!("the {what} has no option named {option:?}; its options: {:?}", control.items),
                )
            })?;
            let notice = ((wm::SELCHANGE as usize) << 16) | control.dialog_id as usize;
            Ok(Plan {
                messages: vec![
                    Message { to: hwnd, dispatch: Dispatch::Send, msg: set, wparam: index, lparam: LParam::Value(0) },
                    Message {
                        to: control.parent,
                        dispatch: Dispatch::Send,
                        msg: wm::COMMAND,
                        wparam: notice,
                        lparam: LParam::Value(hwnd as i32 as isize),
                    },
                ],
                mechanism: "win32:SETCURSEL+SELCHANGE",
                semantic: Some(Performed::Select),
            })
        }
    }
}

/// The virtual key of a named key (winuser.h's `VK_*`).
pub fn virtual_key(key: NamedKey) -> u16 {
    match key {
        NamedKey::Enter => 0x0D,
        NamedKey::Escape => 0x1B,
        NamedKey::Tab => 0x09,
        NamedKey::Space => 0x20,
        NamedKey::Backspace => 0x08,
        NamedKey::Delete => 0x2E,
        NamedKey::Insert => 0x2D,
        NamedKey::Up => 0x26,
        NamedKey::Down => 0x28,
        NamedKey::Left => 0x25,
        NamedKey::Right => 0x27,
        NamedKey::Home => 0x24,
        NamedKey::End => 0x23,
        NamedKey::PageUp => 0x21,
        NamedKey::PageDown => 0x22,
        NamedKey::F(n) => 0x6F + n.clamp(1, 24) as u16,
        NamedKey::Menu => 0x5D,
    }
}

fn key_plan(hwnd: u32, combo: &KeyCombo, repeat: u8) -> Result<Plan, BackendError> {
    let held = combo.modifiers;
    if held.ctrl || held.alt || held.superkey || matches!(combo.key, Key::Modifier(_)) {
        return Err(refuse(
            BackendErrorKind::NoBackgroundRoute,
            format!("{combo} needs a modifier held on the keyboard, which a window message cannot hold; it needs the real keyboard (foreground input)"),
        ));
    }
    let mut messages = vec![];
    for _ in 0..repeat {
        match combo.key {
            // A character goes as the character it is; Shift is in its case.
            Key::Char(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    messages.push(post(hwnd, wm::CHAR, *unit as usize, 1));
                }
            }
            Key::Named(named) if held.shift => {
                return Err(refuse(
                    BackendErrorKind::NoBackgroundRoute,
                    format!("shift+{named:?} needs Shift held on the keyboard, which a window message cannot hold; it needs the real keyboard (foreground input)"),
                ))
            }
            Key::Named(named) => {
                let vk = virtual_key(named);
                for (msg, up) in [(wm::KEYDOWN, false), (wm::KEYUP, true)] {
                    messages.push(Message {
                        to: hwnd,
                        dispatch: Dispatch::Post,
                        msg,
                        wparam: vk as usize,
                        lparam: LParam::Key { vk, up },
                    });
                }
            }
            Key::Modifier(_) => unreachable!("refused above"),
        }
    }
    Ok(Plan { messages, mechanism: "win32:PostMessage(keys)", semantic: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::{ElementId, Target};

    fn control(kind: Option<StandardControl>) -> Control {
        Control {
            hwnd: 0x30,
            kind,
            origin: Point { x: 100, y: 50 },
            parent: 0x10,
            dialog_id: 7,
            items: vec!["Red".into(), "Green ".into()],
        }
    }

    fn target() -> Target {
        Target::Element(ElementId::tree(1).unwrap())
    }

    #[test]
    fn a_button_is_clicked_by_its_own_message_and_anything_else_by_posted_mouse_messages() {
        let click =
            Action::Click { target: target(), button: Button::Left, count: 1, modifiers: vec![] };
        let button = plan(&click, &control(Some(StandardControl::PushButton)), None, None).unwrap();
        assert_eq!(button.messages.len(), 1);
        assert_eq!(
            (button.messages[0].msg, button.messages[0].dispatch),
            (wm::BM_CLICK, Dispatch::Send)
        );
        let at = Some(Point { x: 110, y: 70 });
        let canvas = plan(&click, &control(None), at, None).unwrap();
        let msgs: Vec<u32> = canvas.messages.iter().map(|m| m.msg).collect();
        assert_eq!(msgs, [wm::MOUSEMOVE, wm::LBUTTONDOWN, wm::LBUTTONUP]);
        assert_eq!(canvas.messages[1].lparam, LParam::Value((20 << 16) | 10), "client coordinates");
        let double =
            Action::Click { target: target(), button: Button::Left, count: 2, modifiers: vec![] };
        let msgs: Vec<u32> = plan(&double, &control(None), at, None)
            .unwrap()
            .messages
            .iter()
            .map(|m| m.msg)
            .collect();
        assert_eq!(
            msgs,
            [wm::MOUSEMOVE, wm::LBUTTONDOWN, wm::LBUTTONUP, wm::LBUTTONDBLCLK, wm::LBUTTONUP]
        );
        assert_eq!(
            plan(&click, &control(None), None, None).unwrap_err().kind,
            BackendErrorKind::NotActionable
        );
    }

    #[test]
    fn text_goes_as_characters_and_a_whole_value_only_into_a_writable_edit() {
        let typed = plan(&Action::Type { text: "a😀".into() }, &control(None), None, None).unwrap();
        let units: Vec<usize> = typed.messages.iter().map(|m| m.wparam).collect();
        assert_eq!(units, [0x61, 0xD83D, 0xDE00]);
        let set = Action::SetValue { target: target(), text: "Ada".into() };
        let edit =
            Some(StandardControl::Edit { password: false, multiline: false, read_only: false });
        let done = plan(&set, &control(edit), None, None).unwrap();
        assert_eq!(done.messages[0].lparam, LParam::Text("Ada".into()));
        let read_only =
            Some(StandardControl::Edit { password: false, multiline: false, read_only: true });
        assert_eq!(
            plan(&set, &control(read_only), None, None).unwrap_err().kind,
            BackendErrorKind::NotActionable
        );
    }

    #[test]
    fn a_chord_is_refused_rather_than_sent_without_its_modifier() {
        let key = |text: &str| Action::Key { combo: text.parse().unwrap(), repeat: 2 };
        for chord in ["ctrl+a", "alt+F4", "shift+Tab", "super"] {
            let refused = plan(&key(chord), &control(None), None, None).unwrap_err();
            assert_eq!(refused.kind, BackendErrorKind::NoBackgroundRoute, "{chord}");
        }
        let enter = plan(&key("Enter"), &control(None), None, None).unwrap();
        let msgs: Vec<(u32, usize)> = enter.messages.iter().map(|m| (m.msg, m.wparam)).collect();
        assert_eq!(
            msgs,
            [(wm::KEYDOWN, 0x0D), (wm::KEYUP, 0x0D), (wm::KEYDOWN, 0x0D), (wm::KEYUP, 0x0D)]
        );
        let capital = plan(&key("shift+A"), &control(None), None, None).unwrap();
        assert!(capital.messages.iter().all(|m| m.msg == wm::CHAR && m.wparam == 'A' as usize));
    }

    #[test]
    fn a_choice_is_set_by_its_exact_name_and_told_to_the_parent() {
        let pick = |option: &str| Action::Select { target: target(), option: option.into() };
        let list = control(Some(StandardControl::ListBox));
        let done = plan(&pick("Green"), &list, None, None).unwrap();
        assert_eq!((done.messages[0].msg, done.messages[0].wparam), (wm::LB_SETCURSEL, 1));
        assert_eq!((done.messages[1].to, done.messages[1].wparam), (0x10, (1 << 16) | 7));
        assert_eq!(
            plan(&pick("Blue"), &list, None, None).unwrap_err().kind,
            BackendErrorKind::NotFound
        );
        assert_eq!(
            plan(&pick("Red"), &control(None), None, None).unwrap_err().kind,
            BackendErrorKind::NotActionable
        );
    }

    #[test]
    fn the_wheel_turns_once_per_step_with_its_sign() {
        let scroll = Action::Scroll { target: target(), dx: 0, dy: 2, modifiers: vec![] };
        let done = plan(&scroll, &control(None), Some(Point { x: 5, y: 6 }), None).unwrap();
        assert_eq!(done.messages.len(), 2);
        assert_eq!(done.messages[0].wparam >> 16, (-120i16) as u16 as usize, "down is negative");
    }
}
