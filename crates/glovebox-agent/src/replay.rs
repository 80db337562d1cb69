//! Replaying a recording (`glovebox_services::recording`) with no model: each
//! step finds its elements in a fresh look at the window by role, name and
//! named ancestors, goes through the same gate as live input (approvals,
//! denials, budget, Stop), and must change the tree as it did when it was
//! recorded. The replay stops at the first step that does not, with what was
//! expected and what the window shows. The CLI (`glovebox replay`), the MCP
//! `replay` tool and episodes with a recorded agent all run this.

use glovebox_host::{ActRequest, Host, LookAfter, Span, Typed};
use glovebox_model::{ApprovalClass, ErrorCode, Refusal, Target, WindowId, WindowRef};
use glovebox_services::recording::{self, Found, RecordedTarget, Recording};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where a replay stopped short, and why.
#[derive(Serialize, Debug)]
pub struct Divergence {
    pub step: u32,
    pub code: ErrorCode,
    /// What the recording expected.
    pub expected: String,
    /// What the live window shows instead.
    pub saw: String,
}

#[derive(Serialize, Debug)]
pub struct Account {
    pub recording: PathBuf,
    pub replayed: u32,
    pub of: usize,
    /// One per replayed step: what was delivered and whether the expected change showed.
    pub lines: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// The window the replay was in when it stopped.
    #[serde(skip)]
    pub window: Option<WindowRef>,
}

/// Where a replay gets typed text the recording did not keep.
#[derive(Clone, Copy)]
pub enum WithheldText<'a> {
    /// No one to ask: such a step is where the replay stops
    /// (`COMPUTER_APPROVAL_REQUIRED`), with nothing typed.
    Refuse,
    /// The person replaying is asked: the question in, their text out
    /// (`None`: they gave none, and the replay stops there).
    Ask(&'a dyn Fn(&str) -> Option<String>),
}

/// A recording run again as a surface offers it: read and verified with
/// this user's key, in `window` or the one the recording names, approved
/// once as a whole (a prompt listing its steps and elements, or the person
/// who typed the command: `started_by_user`), then replayed.
pub fn replay(
    host: &Host,
    path: &Path,
    window: Option<WindowRef>,
    started_by_user: bool,
    withheld: WithheldText,
) -> Result<Account, Refusal> {
    let recording = recording::read(path, &recording::default_dir()).map_err(|e| e.to_refusal())?;
    let first = recording
        .steps
        .first()
        .ok_or_else(|| Refusal::invalid_argument(format!("{} holds no step", path.display())))?;
    let window = match window {
        Some(window) => window,
        None => WindowRef::Id(find_window(host, &first.window)?),
    };
    let targets = recording
        .steps
        .iter()
        .flat_map(|s| &s.targets)
        .filter_map(|t| match t {
            RecordedTarget::Element(a) => Some((a.role, a.name.clone())),
            RecordedTarget::Point { .. } => None,
        })
        .collect();
    let span = Span {
        class: ApprovalClass::Input,
        actions: recording
            .steps
            .iter()
            .map(|s| {
                format!(
                    "step {}: {} in {} {:?}",
                    s.index,
                    s.action.kind(),
                    s.window.app,
                    s.window.title
                )
            })
            .collect(),
        targets,
        typed: recording.steps.iter().filter_map(typed_by).collect(),
        // Steps look at their windows afresh: each asks where its own frame says typing asks.
        frame: None,
        detail: Some(format!("a replay of {}", path.display())),
        started_by_user,
    };
    let host = host.approve_span(span)?;
    Ok(run(&host, &recording, &window, withheld))
}

/// The text `step` enters, as its question shows it: the recorded text,
/// or, where the recording did not keep it, its length and why.
fn typed_by(step: &recording::Step) -> Option<Typed> {
    match step.withheld_text {
        Some(characters) => Some(Typed::Withheld {
            characters,
            why: "the recording did not keep it: you are asked for it when its step runs".into(),
        }),
        None => step.action.typed_text().map(Typed::Text),
    }
}

/// The window the recording's first step acted in: the same application
/// with the same title, else the only window of that application.
pub fn find_window(host: &Host, address: &recording::WindowAddress) -> Result<WindowId, Refusal> {
    let listed = host.list_windows(None, 1)?.windows;
    let same_app: Vec<_> = listed.iter().filter(|w| w.window.app == address.app).collect();
    if let Some(w) = same_app.iter().find(|w| w.window.title == address.title) {
        return Ok(w.window.id);
    }
    match same_app.as_slice() {
        [only] => Ok(only.window.id),
        [] => Err(glovebox_host::refusals::recorded_window_gone(&address.app, &address.title)),
        _ => Err(Refusal::invalid_argument(format!(
            "{} windows of {} are open and none is titled {:?}; name one with --window",
            same_app.len(),
            address.app,
            address.title
        ))),
    }
}

pub fn run(
    host: &Host,
    recording: &Recording,
    window: &WindowRef,
    withheld: WithheldText,
) -> Account {
    run_steps(host, &recording.path, &recording.steps, window, withheld)
}

/// [`run`] over steps already read and verified (`path` names them in the account).
/// `window` is where the first step's window is; a later step recorded in
/// another window goes to the open window that matches its address.
pub fn run_steps(
    host: &Host,
    path: &Path,
    steps: &[recording::Step],
    window: &WindowRef,
    withheld: WithheldText,
) -> Account {
    let mut account = Account {
        recording: path.to_owned(),
        replayed: 0,
        of: steps.len(),
        lines: vec![],
        divergence: None,
        window: Some(window.clone()),
    };
    let mut current = (steps.first().map(|s| s.window.clone()), window.clone());
    for step in steps {
        if current.0.as_ref() != Some(&step.window) {
            match find_window(host, &step.window) {
                Ok(id) => current = (Some(step.window.clone()), WindowRef::Id(id)),
                Err(r) => {
                    let wanted =
                        format!("a window of {} titled {:?}", step.window.app, step.window.title);
                    account.divergence = Some(Divergence {
                        step: step.index,
                        code: r.code,
                        expected: wanted,
                        saw: r.message,
                    });
                    break;
                }
            }
        }
        account.window = Some(current.1.clone());
        match one(host, step, &current.1, withheld) {
            Ok(line) => {
                account.replayed += 1;
                account.lines.push(format!("step {}: {line}", step.index));
            }
            Err(divergence) => {
                account.divergence = Some(divergence);
                break;
            }
        }
    }
    account
}

fn one(
    host: &Host,
    step: &recording::Step,
    window: &WindowRef,
    withheld: WithheldText,
) -> Result<String, Divergence> {
    let diverged = |expected: String, refusal: Refusal| Divergence {
        step: step.index,
        code: refusal.code,
        expected,
        saw: refusal.message,
    };
    let mut typed = None;
    if let Some(length) = step.withheld_text {
        let wanted =
            format!("{} of {length} character(s) the recording did not keep", step.action.kind());
        let into = step.targets.iter().find_map(|t| match t {
            RecordedTarget::Element(address) => Some(format!(" into {}", describe(address))),
            RecordedTarget::Point { .. } => None,
        });
        let question = format!(
            "Step {}: when recorded, it typed {length} character(s){} that the recording did not keep. What should it type now?",
            step.index,
            into.unwrap_or_default()
        );
        typed = match withheld {
            WithheldText::Ask(ask) => ask(&question).filter(|t| !t.is_empty()),
            WithheldText::Refuse => None,
        };
        if typed.is_none() {
            return Err(diverged(wanted, glovebox_host::refusals::recorded_text_not_given()));
        }
    }
    let seen = host
        .observe(Some(window), false)
        .map_err(|r| diverged("the window to look at".into(), r))?;
    let mut targets = vec![];
    for target in &step.targets {
        targets.push(match target {
            RecordedTarget::Point { point } => Target::Point(*point),
            RecordedTarget::Element(address) => {
                let wanted = describe(address);
                match recording::find(&seen.tree, address) {
                    Found::One(id) => Target::Element(id),
                    Found::None => {
                        let refusal = glovebox_host::refusals::addressed_element(0, "the address");
                        return Err(diverged(wanted, refusal));
                    }
                    Found::Many(n) => {
                        let refusal = glovebox_host::refusals::addressed_element(n, "the address");
                        return Err(diverged(wanted, refusal));
                    }
                }
            }
        });
    }
    let mut action =
        step.action.retargeted(&targets).map_err(|r| diverged("a replayable action".into(), r))?;
    if let Some(text) = &typed {
        action = action.with_text(text);
    }
    let done = host
        .perform(ActRequest::new(seen.frame.id, action).look(LookAfter::Tree { screenshot: false }))
        .map_err(|r| diverged(format!("{} to be delivered", step.action.kind()), r))?;
    let delivered = format!("{} → delivered ({})", step.action.kind(), done.delivery.route);
    let Some(expected) = step.expect.as_ref().filter(|e| !e.is_empty()) else {
        return Ok(delivered);
    };
    let unmet = match &done.changes {
        Some(diff) => recording::unmet(expected, diff),
        None => expected.clone(),
    };
    if !unmet.is_empty() {
        let saw = done
            .changes
            .as_ref()
            .map(recording::expectation)
            .filter(|l| !l.is_empty())
            .map(|l| l.join("; "))
            .unwrap_or_else(|| "no change".into());
        let refusal = glovebox_host::refusals::recorded_changes_unseen(saw);
        return Err(diverged(unmet.join("; "), refusal));
    }
    Ok(format!("{delivered}; {} expected change(s) seen", expected.len()))
}

fn describe(address: &recording::ElementAddress) -> String {
    let inside: Vec<String> =
        address.ancestors.iter().map(|a| format!("{} {:?}", a.role, a.name)).collect();
    match inside.is_empty() {
        true => format!("{} {:?}", address.role, address.name),
        false => format!("{} {:?} in {}", address.role, address.name, inside.join(" › ")),
    }
}

/// How long the handover's list of steps may grow before the rest are counted.
const HANDOVER_STEPS_CHARS: usize = 3000;

/// The instruction that hands the rest of a diverged replay to a model:
/// where and why it stopped, and what the steps from there on did when they
/// were recorded (their elements by role and name, the text they typed when
/// it was kept, the changes they made). `None` when nothing diverged.
pub fn handover(steps: &[recording::Step], account: &Account) -> Option<String> {
    let divergence = account.divergence.as_ref()?;
    let mut text = format!(
        "Finish a task that was recorded earlier and replayed here with no model. The replay did {} of its {} steps; at step {} it stopped ({}): it expected {}, and the window shows {}. The application may have changed since the recording (a renamed control, a moved field). The recorded steps from there on were:",
        account.replayed,
        account.of,
        divergence.step,
        divergence.code,
        clip(&divergence.expected, 400),
        clip(&divergence.saw, 400)
    );
    let rest: Vec<&recording::Step> = steps.iter().filter(|s| s.index >= divergence.step).collect();
    for (shown, step) in rest.iter().enumerate() {
        // The loop takes at most 4000 characters of instruction.
        if text.chars().count() > HANDOVER_STEPS_CHARS {
            text.push_str(&format!("\n- and {} more step(s)", rest.len() - shown));
            break;
        }
        let on: Vec<String> = step
            .targets
            .iter()
            .map(|t| match t {
                RecordedTarget::Element(address) => describe(address),
                RecordedTarget::Point { point } => format!("the point ({}, {})", point.x, point.y),
            })
            .collect();
        text.push_str(&format!("\n- step {}: {}", step.index, step.action.kind()));
        if !on.is_empty() {
            text.push_str(&format!(" on {}", on.join(" and ")));
        }
        match (step.withheld_text, &step.action) {
            (Some(length), _) => text.push_str(&format!(
                ", typing {length} character(s) the recording did not keep (ask the user for them)"
            )),
            (
                None,
                glovebox_model::Action::Type { text: typed }
                | glovebox_model::Action::SetValue { text: typed, .. },
            ) => text.push_str(&format!(", typing {:?}", clip(typed, 200))),
            _ => {}
        }
        text.push_str(&format!(" in {} {:?}", step.window.app, step.window.title));
        if let Some(expect) = step.expect.as_ref().filter(|e| !e.is_empty()) {
            text.push_str(&format!(" (it changed: {})", clip(&expect.join("; "), 300)));
        }
    }
    text.push_str("\nDo what these steps did, in this window, and say done when the window shows their changes.");
    Some(clip(&text, 4000))
}

/// `text` cut to at most `max` characters, the cut marked.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((at, _)) if text.chars().count() > max => format!("{}…", &text[..at]),
        _ => text.to_owned(),
    }
}

impl Account {
    /// The account as lines for a person: each step, then how it ended.
    pub fn render(&self) -> String {
        let mut text: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        match &self.divergence {
            None => text.push_str(&format!("replayed {} of {} step(s)\n", self.replayed, self.of)),
            Some(d) => text.push_str(&format!(
                "diverged at step {} ({}): expected {}; the window shows {}\n",
                d.step, d.code, d.expected, d.saw
            )),
        }
        text
    }
}
