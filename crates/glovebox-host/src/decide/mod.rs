//! Every decision of the gate, as pure functions of what the host knows and
//! what was asked: no bus, no display, no clock, no lock. Each refusal of
//! a denial, of secure input, of a stale frame, of the budget and of the
//! approval is built here and nowhere else; the host asks the probes and
//! the stores, then carries out what these functions say. For one input,
//! which
//! checks come first, what a prompt asks, what is refused and why are read
//! here; `act.rs` carries them out in this order:
//!
//! 1. the switches and the action's own shape (`enabled`, read-only,
//!    [`glovebox_model::Action::validate`]) and a grant;
//! 2. [`admit`]: the reach and the budget; [`plan_input`]: the frame's targets, secrets
//!    a target gives away, and the one approval question;
//! 3. the approval, then the live window measured against the frame
//!    ([`check_basis`]), the absolute denials and secure input again,
//!    Stop;
//! 4. delivery, the audit, the look after it.
//!
//! The rules every call shares live here too: the absolute denials
//! ([`check_not_denied`]), secure input ([`check_secure_input`], asked
//! right before what it guards: a zoom crops pixels taken earlier, so it
//! asks again first), a password field's value never read
//! ([`check_readable`]), and what a window listing shows where secure
//! input holds ([`listed_denial`]), as an observation of that window would
//! refuse it; the grant's budget ([`check_budget`]), scope
//! ([`check_may_move`]) and pixels ([`check_pixels`]); the approval class
//! of a call ([`approval_class`]); the addresses `open_url` reaches
//! ([`web_address`]). [`freshness`] decides which frame a call may use (one
//! rule for inputs, reads and crops); [`approval`] what an answer, a class
//! the configuration denies and an echoed question token make of a call.

pub(crate) mod approval;
pub(crate) mod freshness;
pub(crate) mod lifecycle;
pub(crate) mod relayed;
pub(crate) mod seen;
pub(crate) mod session;

use crate::approval::ApprovalRequest;
use crate::frames::FrameRecord;
use glovebox_model::{
    AccessibilityTree, Action, ApprovalClass, Button, CaptureMode, DeliveryMode, Denial, Element,
    ElementId, ElementState, ErrorCode, FrameId, Key, KeyCombo, NamedKey, Refusal, Role, Scope,
    Target, WindowInfo,
};
use glovebox_platform::{Reach, ResolvedTarget};

/// What the host knows when an input arrives, besides the frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputFacts {
    /// The bound window is on the agent display.
    pub on_agent_display: bool,
    pub allow_foreground: bool,
    pub budget_left: u32,
}

/// Role and name of each target element a frame shows, in order.
pub(crate) type Described = Vec<(Role, String)>;

/// What the gate decided an input needs before it may be delivered.
#[derive(Debug, Clone)]
pub(crate) struct InputPlan {
    /// The action's targets in global terms, in order.
    pub targets: Vec<ResolvedTarget>,
    pub described: Described,
    /// The question an approval asks (its window is added by the caller).
    pub approval: ApprovalRequest,
}

/// How far an input may reach: the agent display's own devices there,
/// else the background, or the user's devices only where allowed.
pub(crate) fn reach(facts: InputFacts, mode: DeliveryMode) -> Result<Reach, Refusal> {
    match (facts.on_agent_display, mode) {
        (true, _) => Ok(Reach::AgentDisplay),
        (false, DeliveryMode::Background) => Ok(Reach::Background),
        (false, DeliveryMode::Foreground) if facts.allow_foreground => Ok(Reach::Foreground),
        (false, DeliveryMode::Foreground) => Err(Refusal::new(
            ErrorCode::ApprovalDenied,
            "foreground delivery (the user's real pointer and keyboard) is off in the configuration; `glovebox config set input.foreground true` allows calls to ask for it",
        )),
    }
}

/// The approval class of a call: an observation when it sends no input,
/// else an input, through the user's own pointer and keyboard
/// (`foreground`) or not (the background, the agent display's devices).
pub fn approval_class(input: bool, foreground: bool) -> ApprovalClass {
    match (input, foreground) {
        (false, _) => ApprovalClass::Observe,
        (true, false) => ApprovalClass::Input,
        (true, true) => ApprovalClass::Foreground,
    }
}

/// Whether an input may be considered at all, before its frame is looked
/// up: the reach it asks for, and a budget left to pay for it.
pub(crate) fn admit(facts: InputFacts, mode: DeliveryMode) -> Result<Reach, Refusal> {
    let reach = reach(facts, mode)?;
    check_budget(facts.budget_left)?;
    Ok(reach)
}

/// The budget rule: everything a grant pays for (an input, a launch) needs
/// an action left.
/// While the person has taken the agent display over, every agent call waits: it is answered
/// at once, the grant kept, and nothing done.
pub(crate) fn check_not_paused(taken_over: bool) -> Result<(), Refusal> {
    if taken_over {
        return Err(Refusal::new(
            ErrorCode::PausedByUser,
            "the person has taken over the agent display from the indicator page and has the \
             desktop now; nothing was done. Wait, then observe again once they hand it back \
             (the frames from before are stale)",
        ));
    }
    Ok(())
}

pub(crate) fn check_budget(budget_left: u32) -> Result<(), Refusal> {
    match budget_left {
        0 => Err(Refusal::new(ErrorCode::BudgetExhausted, "the grant has no input actions left")),
        _ => Ok(()),
    }
}

/// The budget's end: a grant whose last action was just delivered closes,
/// with the code every later call of it is answered with and the reason.
pub(crate) fn budget_spent(budget_left: u32) -> Option<Refusal> {
    (budget_left == 0)
        .then(|| Refusal::new(ErrorCode::BudgetExhausted, "the grant used its whole action budget"))
}

/// Where a grant may go: a window-scoped grant stays on its window; `to`
/// says where the call would take it ("another window", "a new application").
pub(crate) fn check_may_move(scope: Scope, to: &str) -> Result<(), Refusal> {
    match scope {
        Scope::Window => Err(Refusal::new(
            ErrorCode::ScopeViolation,
            format!("this grant is pinned to one window; it cannot move to {to}"),
        )),
        Scope::Desktop => Ok(()),
    }
}

/// What a grant lets a look take: pixels only under `a11y+pixels`. Where
/// the desktop has no screenshots at all (`pixels_missing` says why), every
/// grant there is accessibility-only and the refusal says so.
pub(crate) fn check_pixels(
    capture: CaptureMode,
    pixels_missing: Option<&str>,
) -> Result<(), Refusal> {
    match (capture, pixels_missing) {
        (CaptureMode::A11yAndPixels, _) => Ok(()),
        (_, Some(why)) => Err(Refusal::new(
            ErrorCode::BackendUnavailable,
            format!(
                "this desktop offers no screenshots ({why}); grants here are accessibility-only"
            ),
        )),
        (_, None) => Err(Refusal::new(
            ErrorCode::ScopeViolation,
            "this grant allows the accessibility tree only, not pixels",
        )),
    }
}

/// Everything decided about `action` on frame `frame_id`, admitted with
/// `reach`, before anyone is asked: refused here, nothing was shown to the
/// user and nothing sent.
pub(crate) fn plan_input(
    reach: Reach,
    frame_id: FrameId,
    frame: &FrameRecord,
    action: &Action,
) -> Result<InputPlan, Refusal> {
    seen::check_seen_action(frame, action)?;
    let (targets, described) = resolve_targets(frame_id, frame, action)?;
    if matches!(action, Action::SetValue { .. })
        && described.first().is_some_and(|(role, _)| role.is_password())
    {
        return Err(password_field(""));
    }
    check_paste(frame, action, &targets)?;
    let class = approval_class(true, reach == Reach::Foreground);
    let mut approval = ApprovalRequest::call(class, vec![crate::approval::describe_action(action)]);
    approval.frame = Some(frame_id);
    approval.targets = described.clone();
    if let Some(text) = action.typed_text() {
        approval.text_characters = text.chars().count();
        approval.typed = vec![crate::approval::Typed::Text(text)];
    }
    approval.typed_into = typed_into(frame, action);
    approval.escalation = seen::unknown_field_typing(frame, action);
    Ok(InputPlan { targets, described, approval })
}

/// The text `action` types at the focused element: `type`'s, or the
/// characters a key types ([`Action::typed_text`]); a key pressed one
/// character at a time types what `type` would, and is judged the same.
pub(crate) fn typed_at_focus(action: &Action) -> Option<String> {
    match action {
        Action::Type { .. } | Action::Key { .. } => action.typed_text(),
        _ => None,
    }
}

/// Where typed text goes when the person must read it to judge the call:
/// into a terminal (the focused element's role), which runs it, or into a
/// window with no tree, which cannot say whether it is one (or whether
/// the field is a password field). `None` anywhere else.
pub(crate) fn typed_into(
    frame: &FrameRecord,
    action: &Action,
) -> Option<crate::approval::ShownBecause> {
    use crate::approval::ShownBecause;
    typed_at_focus(action).filter(|text| !text.is_empty())?;
    if seen::fields_unknown(frame) {
        Some(ShownBecause::NoTree)
    } else if focused(&frame.tree)
        .and_then(|id| frame.elements.get(&id))
        .is_some_and(|e| e.role == Role::Terminal)
    {
        Some(ShownBecause::Terminal)
    } else {
        None
    }
}

/// The action's targets as the frame recorded them: an element id of this
/// frame, or a point inside its image (and the element under it).
fn resolve_targets(
    frame_id: FrameId,
    frame: &FrameRecord,
    action: &Action,
) -> Result<(Vec<ResolvedTarget>, Described), Refusal> {
    let mut targets = vec![];
    let mut described = vec![];
    for target in action.targets() {
        targets.push(match target {
            Target::Element(id) => match frame.elements.get(&id) {
                // Seen in the pixels: the application knows no such element, so it is a point.
                Some(element) if element.seen.is_some() => {
                    let Some(at) = element.center else {
                        return Err(Refusal::new(
                            ErrorCode::ElementNotActionable,
                            format!("{id} lies outside the window's visible part"),
                        ));
                    };
                    described.push((element.role, element.name.clone()));
                    // No `under`: the backends look an element up by it, and the application has none.
                    ResolvedTarget::Global { at, under: None }
                }
                Some(element) => {
                    described.push((element.role, element.name.clone()));
                    ResolvedTarget::Element { id, center: element.center }
                }
                // A tree's id where there is no tree never existed; a seen one may have, in an older frame.
                None if frame.no_tree && id.origin() == glovebox_model::ElementOrigin::Tree => {
                    return Err(Refusal::new(
                        ErrorCode::ElementNotFound,
                        format!("window {} exposes no accessibility tree, so it has no element {id}; use the ids of what was seen in its pixels, or point at image pixels", frame.window),
                    ))
                }
                None => return Err(freshness::not_in_frame(frame_id, id)),
            },
            Target::Point(p) => {
                let at = frame.to_global(p)?;
                if let Some(element) = frame.element_at(at).and_then(|id| frame.elements.get(&id)) {
                    described.push((element.role, element.name.clone()));
                }
                // What a backend may look up: the application's own element, never a seen one.
                ResolvedTarget::Global { at, under: frame.reported_element_at(at) }
            }
        });
    }
    Ok((targets, described))
}

/// The one refusal of text put into a password field, whatever the route
/// (`set_value`, a paste, a drop); `how` names the route, after the rule.
pub(crate) fn password_field(how: &str) -> Refusal {
    const RULE: &str = "glovebox never writes into password fields";
    Refusal::new(
        ErrorCode::SecureInput,
        if how.is_empty() { RULE.to_owned() } else { format!("{RULE}: {how}") },
    )
}

/// Whether a chord pastes in the toolkits glovebox drives: ctrl+v (GTK,
/// Qt, browsers; with shift in terminals and as "paste as plain text")
/// and shift+Insert (GTK, Qt, xterm: the clipboard or PRIMARY).
pub(crate) fn pastes(combo: &KeyCombo) -> bool {
    match combo.key.lowercase() {
        Key::Char('v') => combo.modifiers.ctrl,
        Key::Named(NamedKey::Insert) => combo.modifiers.shift,
        _ => false,
    }
}

/// Where an input puts text it does not carry: the selection or the
/// clipboard, which may hold anything of the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inserts {
    Nowhere,
    /// At the element of target `index`, for the reason given.
    AtTarget(usize, &'static str),
    /// Into the focused element.
    AtFocus(&'static str),
}

fn inserts(action: &Action) -> Inserts {
    match action {
        // X11 toolkits paste PRIMARY on any middle press, single or repeated, modifiers or not.
        Action::Click { button: Button::Middle, .. } => {
            Inserts::AtTarget(0, "a middle click there pastes the selection")
        }
        // A drag that started on selected text drops it where it ends.
        Action::Drag { .. } => Inserts::AtTarget(1, "a drag that ends there drops what it carries"),
        Action::Key { combo, .. } if pastes(combo) => {
            Inserts::AtFocus("this chord pastes into the focused field")
        }
        _ => Inserts::Nowhere,
    }
}

/// The element of the frame an input lands on: an element target, or
/// the element under a point.
fn element_of(target: &ResolvedTarget) -> Option<ElementId> {
    match target {
        ResolvedTarget::Element { id, .. } => Some(*id),
        ResolvedTarget::Global { under, .. } => *under,
    }
}

/// `id` is a password field or lies inside one (a browser may expose
/// the field's text as a child of it).
fn within_password(frame: &FrameRecord, id: ElementId) -> bool {
    fn path(e: &Element, id: ElementId, inside: bool) -> Option<bool> {
        let inside = inside || e.is_password();
        if e.id == id {
            return Some(inside);
        }
        e.children.iter().find_map(|c| path(c, id, inside))
    }
    frame.elements.get(&id).is_some_and(|e| e.role.is_password())
        || frame.tree.root.as_ref().and_then(|r| path(r, id, false)).unwrap_or(false)
}

/// The deepest element the frame's tree shows with keyboard focus.
fn focused(tree: &AccessibilityTree) -> Option<ElementId> {
    tree.root.as_ref()?.walk().filter(|e| e.has(ElementState::Focused)).last().map(|e| e.id)
}

/// No paste, drop or middle click puts text into a password field, by
/// any route: the element it lands on is looked up in the frame's tree
/// (a middle click's, a drag's drop end, the focused element for a chord
/// that pastes), and a password field or anything inside one is refused
/// with the same code and words as `set_value` into it.
///
/// Where the element is not known:
/// - a window with no tree at all (xterm, a game), or one too thin to show
///   its fields (its elements seen in the pixels), has no fields glovebox
///   could know of, and typing there is not refused either (it asks): its
///   middle click pastes, as a terminal's user expects;
/// - a tree that has no element covering the point cannot rule out a
///   password field under it (one without bounds): refused, pointing at
///   elements instead;
/// - a chord with no focused element in the frame is left to the live
///   probe, which refuses every input while a password field has focus.
pub(crate) fn check_paste(
    frame: &FrameRecord,
    action: &Action,
    targets: &[ResolvedTarget],
) -> Result<(), Refusal> {
    let (element, how) = match inserts(action) {
        Inserts::Nowhere => return Ok(()),
        Inserts::AtTarget(index, how) => (targets.get(index).and_then(element_of), how),
        Inserts::AtFocus(how) => match focused(&frame.tree) {
            Some(id) => (Some(id), how),
            None => return Ok(()),
        },
    };
    match element {
        Some(id) if within_password(frame, id) => Err(password_field(how)),
        Some(_) => Ok(()),
        // A tree too thin to show its fields (its elements seen in the pixels) knows no more than none.
        None if frame.no_tree || !frame.tree.seen.is_empty() => Ok(()),
        None => Err(Refusal::new(
            ErrorCode::SecureInput,
            format!(
                "no element of window {}'s tree covers that point, so a password field there cannot be ruled out ({how}); aim at an element id",
                frame.window
            ),
        )),
    }
}

/// Secure input as the probes find it at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SecureInput {
    /// Another client holds the keyboard: every window is affected.
    KeyboardGrab,
    /// A password field of the window has keyboard focus.
    PasswordFocus,
}

/// What secure input holds back, for the sentence of its refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guarded {
    /// A read: a tree, pixels, a crop of them, an element's value.
    Read,
    /// An input to the window.
    Input,
    /// The agent display's live view on the indicator page.
    AgentDisplayView,
}

impl SecureInput {
    /// What the probes say, the grab first (it covers every window).
    pub(crate) fn of(grabbed: bool, password_focused: bool) -> Option<SecureInput> {
        match (grabbed, password_focused) {
            (true, _) => Some(SecureInput::KeyboardGrab),
            (false, true) => Some(SecureInput::PasswordFocus),
            (false, false) => None,
        }
    }

    /// The refusal while it holds, saying what it holds back.
    pub(crate) fn refusal(self, guarded: Guarded) -> Refusal {
        let sentence = match (self, guarded) {
            (SecureInput::KeyboardGrab, Guarded::Read) => {
                "another client holds the keyboard (a password or authentication prompt); nothing is read or captured until it lets go"
            }
            (SecureInput::PasswordFocus, Guarded::Read) => "a password field has focus: nothing of the window is read or captured until focus leaves it",
            (SecureInput::KeyboardGrab, Guarded::Input) => "another client holds the keyboard (a password or authentication prompt)",
            (SecureInput::PasswordFocus, Guarded::Input) => "a password field has focus: glovebox types nothing while it does",
            (_, Guarded::AgentDisplayView) => "a prompt holds the keyboard: the agent display is not shown meanwhile",
        };
        Refusal::new(ErrorCode::SecureInput, sentence)
    }

    /// How a window listing shows it.
    pub(crate) fn denial(self) -> Denial {
        let detail = match self {
            SecureInput::KeyboardGrab => "another client holds the keyboard",
            SecureInput::PasswordFocus => "a password field has focus",
        };
        Denial::SecureInput { detail: detail.into() }
    }
}

/// The secure-input rule: nothing is read from, or typed into, a desktop
/// where a prompt holds the keyboard, nor a window whose password field
/// has focus. Each caller asks the probes right before what it guards: a
/// zoom crops pixels taken earlier, perhaps before secure input began, so
/// it asks again before the crop (an image taken before holds nothing
/// typed during it, so once secure input ends the old crop is fine again).
pub(crate) fn check_secure_input(
    now: Option<SecureInput>,
    guarded: Guarded,
) -> Result<(), Refusal> {
    now.map_or(Ok(()), |s| Err(s.refusal(guarded)))
}

/// The absolute denials: a window one covers is refused to every call,
/// whatever the grant, the configuration or an approval says.
pub(crate) fn check_not_denied(denial: Option<Denial>) -> Result<(), Refusal> {
    denial.map_or(Ok(()), |d| Err(Refusal::new(d.code(), d.sentence())))
}

/// A password field's value is never read, whatever else allows the read.
pub(crate) fn check_readable(id: ElementId, role: Role) -> Result<(), Refusal> {
    if role.is_password() {
        return Err(Refusal::new(
            ErrorCode::SecureInput,
            format!("{id} is a password field: glovebox never reads one"),
        ));
    }
    Ok(())
}

/// What a listing shows for a window: its fixed denial, else secure input
/// where the probes found it (`None`: not asked, or the probe failed —
/// the listing reports, and every read and input probes again anyway).
pub(crate) fn listed_denial(
    fixed: Option<Denial>,
    grabbed: Option<bool>,
    password_focused: Option<bool>,
) -> Option<Denial> {
    fixed.or_else(|| {
        SecureInput::of(grabbed == Some(true), password_focused == Some(true))
            .map(SecureInput::denial)
    })
}

/// The live window still measures as the frame saw it: an input aimed
/// at a window that moved, resized or was minimised would land elsewhere.
pub(crate) fn check_basis(
    frame_id: FrameId,
    frame: &FrameRecord,
    window: &WindowInfo,
) -> Result<(), Refusal> {
    if window.geometry != frame.geometry || window.minimized {
        return Err(Refusal::new(
            ErrorCode::StaleBasis,
            format!(
                "window {} moved, resized or was minimised since frame {frame_id} ({:?} then, {:?} now); observe again",
                window.id, frame.geometry, window.geometry
            ),
        ));
    }
    Ok(())
}

/// The reach of `open_url`: checks a web address: `http` or `https` with a host
/// (other schemes only when `local` is allowed), no whitespace or control
/// characters, at most 2,048 bytes. Returns its scheme and host for the audit.
pub(crate) fn web_address(url: &str, local: bool) -> Result<String, Refusal> {
    let url = url.trim();
    if url.is_empty()
        || url.len() > 2048
        || url.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(Refusal::invalid_argument(
            "a web address is at most 2,048 characters, without spaces or control characters",
        ));
    }
    let Some((scheme, rest)) = url.split_once(':') else {
        return Err(Refusal::invalid_argument(format!(
            "{url:?} is not an address: it names no scheme (https://…)"
        )));
    };
    let scheme = scheme.to_ascii_lowercase();
    if !scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Err(Refusal::invalid_argument(format!(
            "{url:?} is not an address: its scheme is malformed"
        )));
    }
    match scheme.as_str() {
        "http" | "https" => {
            let host = rest.strip_prefix("//").map(|r| r.split(['/', '?', '#']).next().unwrap_or_default()).unwrap_or_default();
            let host = host.rsplit('@').next().unwrap_or_default();
            if host.is_empty() {
                return Err(Refusal::invalid_argument(format!("{url:?} names no host")));
            }
            Ok(format!("{scheme}://{host}"))
        }
        _ if local => Ok(format!("{scheme}:")),
        _ => Err(Refusal::new(
            ErrorCode::ScopeViolation,
            format!("{scheme}: addresses reach local files and programs, not the web; only http and https are opened (`glovebox config set input.local_urls true` allows others)"),
        )),
    }
}

#[cfg(test)]
mod seen_tests;
#[cfg(test)]
mod tests;
