//! A scripted agent: each step looks at the window afresh, finds its element
//! by role and name, and goes through the host like a model's action would.
//! It stops at the first step the host refuses or whose element is not there;
//! the oracle then says whether the task got done. Its steps are recorded as
//! the loop records a model's, so its report reads like one.

use glovebox_agent::run::{changes, describe, drawn_target, step_on};
use glovebox_agent::trajectory::{DecisionRecord, Step as Recorded, StopReason, Summary, Verdict};
use glovebox_episode::spec::Step;
use glovebox_host::{Host, Observation};
use glovebox_model::{Action, Button, ElementId, ErrorCode, Refusal, Target, WindowId, WindowRef};
use std::time::{Duration, Instant};

pub struct Ran {
    pub steps: u32,
    pub refusals: Vec<String>,
    /// The trajectory report (HTML).
    pub report: String,
}

/// Pause after a delivered step before the look that shows what it changed.
const SETTLE: Duration = Duration::from_millis(150);

/// The steps in `window` (titled `title` when the episode found it).
pub fn run(host: &Host, window: &WindowId, title: &str, instruction: &str, steps: &[Step]) -> Ran {
    let mut ran = Ran { steps: 0, refusals: vec![], report: String::new() };
    let mut recorded: Vec<Recorded> = vec![];
    // The look a delivered step acted on: the next look shows what it changed.
    let mut acted_on: Option<Observation> = None;
    let mut stop = StopReason::Done;
    for (index, step) in steps.iter().enumerate() {
        ran.steps += 1;
        if let Step::Wait { seconds } = step {
            std::thread::sleep(Duration::from_secs_f64(*seconds));
            continue;
        }
        let seen = match look_for(host, window, step) {
            Ok(seen) => seen,
            Err(refusal) => {
                ran.refusals.push(format!(
                    "agent.steps[{index}]: {}: {}",
                    refusal.code.as_str(),
                    refusal.message
                ));
                stop = StopReason::host(&refusal);
                break;
            }
        };
        if let (Some(before), Some(last)) = (acted_on.take(), recorded.last_mut()) {
            last.changes = Some(changes(&before, &seen));
        }
        let decision =
            DecisionRecord::Parsed { decision: serde_json::to_value(step).unwrap_or_default() };
        let tree = seen.tree.render_budgeted(host.text_budget()).text;
        let mut entry =
            step_on(recorded.len() as u32 + 1, &seen, title.to_owned(), &tree, decision);
        let started = Instant::now();
        let delivered = action(&seen, step).and_then(|action| {
            entry.action = Some(describe(host, &seen, &action));
            entry.target_drawn = drawn_target(&seen, &action);
            host.act(seen.frame.id, action).map(|done| done.delivery.route.to_string())
        });
        entry.act_ms = started.elapsed().as_millis() as u64;
        match delivered {
            Ok(route) => {
                entry.verdict = Verdict::Delivered { route };
                acted_on = Some(seen);
                std::thread::sleep(SETTLE);
            }
            Err(refusal) => {
                ran.refusals.push(format!(
                    "agent.steps[{index}]: {}: {}",
                    refusal.code.as_str(),
                    refusal.message
                ));
                entry.verdict =
                    Verdict::Refused { code: refusal.code, message: refusal.message.clone() };
                stop = StopReason::host(&refusal);
                recorded.push(entry);
                break;
            }
        }
        recorded.push(entry);
    }
    if let (Some(before), Some(last)) = (acted_on, recorded.last_mut()) {
        if let Ok(after) = look(host, window) {
            last.changes = Some(changes(&before, &after));
        }
    }
    let summary =
        Summary::of(&recorded, stop, steps.len() as u32, None, "scripted (no model)".into());
    ran.report = glovebox_agent::report::html(instruction, &summary, &recorded);
    ran
}

/// How long a step looks again for an element that is not there yet (an
/// app still loading its document), as an agent would before giving up.
const ELEMENT_WAIT: Duration = Duration::from_secs(5);

/// A look in which the step's element is there, or the last look once
/// [`ELEMENT_WAIT`] has passed (the step then reports it missing).
fn look_for(host: &Host, window: &WindowId, step: &Step) -> Result<Observation, Refusal> {
    let deadline = Instant::now() + ELEMENT_WAIT;
    loop {
        let seen = look(host, window)?;
        if action(&seen, step).is_ok() || Instant::now() >= deadline {
            return Ok(seen);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The window's tree, with its pixels where the grant allows them (none
/// while a password field has focus: the tree alone serves then).
fn look(host: &Host, window: &WindowId) -> Result<Observation, Refusal> {
    let window = WindowRef::Id(*window);
    match host.observe(Some(&window), true) {
        Err(r) if matches!(r.code, ErrorCode::SecureInput | ErrorCode::ScopeViolation) => {
            host.observe(Some(&window), false)
        }
        other => other,
    }
}

/// The step as an action on an element found in `seen` by role and name.
fn action(seen: &Observation, step: &Step) -> Result<Action, Refusal> {
    let element = |on: &glovebox_episode::spec::ElementAddress| -> Result<Target, Refusal> {
        let query = on.query();
        let found: Option<ElementId> =
            seen.tree.root.iter().flat_map(|r| r.walk()).find(|e| query.matches(e)).map(|e| e.id);
        found.map(Target::Element).ok_or_else(|| {
            glovebox_host::refusals::addressed_element(0, &format!("{on:?} in the window"))
        })
    };
    Ok(match step {
        Step::Click { on } => Action::Click {
            target: element(on)?,
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
        Step::SetValue { on, text } => {
            Action::SetValue { target: element(on)?, text: text.clone() }
        }
        Step::Select { on, option } => {
            Action::Select { target: element(on)?, option: option.clone() }
        }
        Step::Type { text } => Action::Type { text: text.clone() },
        Step::Key { combo } => Action::Key { combo: *combo, repeat: 1 },
        Step::Wait { .. } => {
            return Err(Refusal::new(
                ErrorCode::InvalidArgument,
                "a wait is not an action on the window",
            ))
        }
    })
}
