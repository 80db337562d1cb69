//! The loop of DESIGN.md §6: observe → decide → validate → act, through the
//! host's public API only, with the model injected. It stops on done, ask,
//! the step limit (clamped by the grant's budget), a host refusal that ends
//! the grant (Stop, expiry, budget, revocation), or the same failing step
//! coming back three times.

use crate::decision::{self, Decision};
use crate::model::{DecideRequest, Model, Png, ToolSpec, DECISION_TOOL};
use crate::prompt;
use crate::trajectory::{DecisionRecord, FinalWindow, Step, StopReason, Summary, Verdict};
use glovebox_host::{ActRequest, Host, LookAfter, Observation};
use glovebox_model::{
    Action, CaptureMode, DeliveryMode, ErrorCode, Point, Refusal, Role, Target, TreeDiff, WindowRef,
};
use std::collections::HashMap;
use std::time::Instant;

pub const DEFAULT_MAX_STEPS: u32 = 10;
/// The most steps one task may ask for.
pub const MAX_STEPS_LIMIT: u32 = 50;
/// The same failing step this many times ends the run.
pub const REPEAT_LIMIT: u32 = 3;
/// Pause after a delivered action before the next observation.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(150);
/// Lines of the tree kept per step in the trajectory.
const TREE_EXCERPT_LINES: usize = 40;
/// Lines of a step's diff kept in its record (the verdict first).
pub(crate) const CHANGE_LINES: usize = 12;

/// What the caller asked for.
#[derive(Debug, Clone)]
pub struct Task {
    pub instruction: String,
    pub max_steps: u32,
    /// Only done, ask and switch are accepted; no input at all.
    pub observe_only: bool,
    /// Bind to this window first; `None`: the grant's window.
    pub window: Option<WindowRef>,
    pub delivery: DeliveryMode,
}

impl Task {
    pub fn new(instruction: impl Into<String>) -> Task {
        Task {
            instruction: instruction.into(),
            max_steps: DEFAULT_MAX_STEPS,
            observe_only: false,
            window: None,
            delivery: DeliveryMode::Background,
        }
    }

    /// Checks the caller's arguments; nothing is clamped silently.
    pub fn validate(&self) -> Result<(), Refusal> {
        if self.instruction.trim().is_empty() {
            return Err(Refusal::invalid_argument("the instruction is empty"));
        }
        if self.instruction.chars().count() > 4000 {
            return Err(Refusal::invalid_argument("the instruction exceeds 4000 characters"));
        }
        if !(1..=MAX_STEPS_LIMIT).contains(&self.max_steps) {
            return Err(Refusal::invalid_argument(format!(
                "max_steps {} is outside 1..={MAX_STEPS_LIMIT}",
                self.max_steps
            )));
        }
        Ok(())
    }
}

/// What a finished run hands back.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub summary: Summary,
    pub steps: Vec<Step>,
}

/// Refusals after which the loop cannot go on: the grant is gone or the
/// platform cannot serve it, or (native path) the provider flagged a step the
/// user did not acknowledge, so the model must not try around it. Every other
/// refusal is the model's to fix.
pub(crate) fn ends_the_run(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::StoppedByUser
            | ErrorCode::SafetyCheckUnacknowledged
            | ErrorCode::GrantExpired
            | ErrorCode::NoGrant
            | ErrorCode::BudgetExhausted
            | ErrorCode::Disabled
            | ErrorCode::ApprovalRequired
            | ErrorCode::OsPermissionMissing
            | ErrorCode::PlatformUnsupported
            | ErrorCode::BackendUnavailable
    )
}

/// The steps of a run as they complete, and its failed steps by what was
/// tried (to spot the same step failing again). Shared by both loops.
#[derive(Default)]
pub(crate) struct Record {
    pub(crate) steps: Vec<Step>,
    failures: HashMap<String, u32>,
}

impl Record {
    pub(crate) fn finish(&mut self, step: Step, progress: &mut dyn FnMut(&Step)) {
        progress(&step);
        self.steps.push(step);
    }

    /// Records a refused step. The run ends when the refusal ends the grant
    /// ([`ends_the_run`]) or the same step (`fingerprint`) failed
    /// [`REPEAT_LIMIT`] times.
    pub(crate) fn refused(
        &mut self,
        mut step: Step,
        refusal: Refusal,
        fingerprint: &str,
        progress: &mut dyn FnMut(&Step),
    ) -> Option<StopReason> {
        let code = refusal.code;
        if code == ErrorCode::PausedByUser {
            // The person had the desktop: not the model's failure, and the next look waits.
            step.verdict = Verdict::Refused { code, message: refusal.message };
            self.finish(step, progress);
            return None;
        }
        if ends_the_run(code) {
            let stop = StopReason::host(&refusal);
            step.verdict = Verdict::Refused { code, message: refusal.message };
            self.finish(step, progress);
            return Some(stop);
        }
        step.verdict = Verdict::Refused { code, message: refusal.message };
        let count = self.failures.entry(fingerprint.to_owned()).or_default();
        *count += 1;
        let repeated = *count >= REPEAT_LIMIT;
        self.finish(step, progress);
        repeated.then_some(StopReason::RepeatedFailure { code })
    }
}

/// Runs `task` to its end. `progress` sees each step as it completes.
/// The host's approvals apply to every step: hand it the handle the run
/// was approved with ([`Host::approve_span`]).
pub fn run(
    host: &Host,
    model: &mut dyn Model,
    task: &Task,
    progress: &mut dyn FnMut(&Step),
) -> Result<Outcome, Refusal> {
    run_asking(host, model, task, Questions::EndTheRun, progress)
}

/// What a run does with the model's question (`ask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Questions {
    /// Puts it to the person through the host handle's channel ([`Host::ask_user`]); an
    /// answered question is a step and the run goes on, an unanswered one ends it.
    PutToPerson,
    /// Ends the run with the question.
    EndTheRun,
}

/// [`run`], doing `questions` with the model's questions.
pub fn run_asking(
    host: &Host,
    model: &mut dyn Model,
    task: &Task,
    questions: Questions,
    progress: &mut dyn FnMut(&Step),
) -> Result<Outcome, Refusal> {
    task.validate()?;
    let host = &if task.observe_only { host.observe_only() } else { host.clone() };
    if host.capabilities().read_only && !task.observe_only {
        return Err(glovebox_host::refusals::task_could_deliver_nothing());
    }
    let mut run = Run { host, record: Record::default(), titles: HashMap::new() };
    let mut seen = run.observe(task.window.as_ref(), model.accepts_images())?;
    // Switches and refused steps cost steps but not budget; input costs both.
    let max_steps = if task.observe_only {
        task.max_steps
    } else {
        task.max_steps.min(seen.grant.budget_left.max(1))
    };
    let tool = ToolSpec {
        name: DECISION_TOOL,
        description:
            "Your next step on the user's computer: exactly one action, switch, done or ask.".into(),
        schema: decision::schema(),
    };
    let system = prompt::system(task.observe_only);
    let stop = loop {
        let index = run.record.steps.len() as u32 + 1;
        if index > max_steps {
            break StopReason::StepLimit { limit: max_steps };
        }
        let windows = run.windows();
        // Each request stands alone (DESIGN §6), so it carries the tree,
        // folded to the configured budget; the steps' lines say what each
        // delivered action changed.
        let tree = seen.tree.render_budgeted(host.text_budget()).text;
        let frame_line = format!(
            "Bound window: {} {:?} · frame {} · image {}×{} pixels (points are in these pixels)",
            seen.frame.window,
            run.titles.get(&seen.frame.window).map(|t| t.1.as_str()).unwrap_or(""),
            seen.frame.id,
            seen.frame.image.width,
            seen.frame.image.height
        );
        let screenshot = seen.screenshot.clone().map(|bytes| Png {
            bytes,
            width: seen.frame.image.width,
            height: seen.frame.image.height,
        });
        let turn = prompt::Turn {
            instruction: &task.instruction,
            history: &run.record.steps,
            steps_left: max_steps - index + 1,
            budget_left: seen.grant.budget_left,
            windows: &windows,
            frame_line: &frame_line,
            tree: &tree,
            screenshot_attached: screenshot.is_some(),
        };
        let request = DecideRequest {
            system: system.clone(),
            user: prompt::user(&turn),
            screenshot: screenshot.clone(),
            tool: tool.clone(),
        };
        let asked = Instant::now();
        let reply = model.decide(&request);
        let model_ms = asked.elapsed().as_millis() as u64;
        let title = run.titles.get(&seen.frame.window).map(|t| t.1.clone()).unwrap_or_default();
        let mut step = step_on(
            index,
            &seen,
            title,
            &tree,
            DecisionRecord::Unparsed { excerpt: String::new() },
        );
        step.model_ms = model_ms;
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) if e.code() == ErrorCode::ModelSchemaViolation => {
                // An unreadable answer is a failed step like any other.
                if let Some(stop) = run.record.refused(step, e.to_refusal(), "unreadable", progress)
                {
                    break stop;
                }
                continue;
            }
            Err(e) => break StopReason::Model { code: e.code(), message: e.to_string() },
        };
        step.tokens = reply.usage;
        let decision = match decision::parse(&reply.decision) {
            Ok(d) => d,
            Err(refusal) => {
                step.decision = DecisionRecord::Unparsed {
                    excerpt: reply.decision.chars().take(300).collect(),
                };
                if let Some(stop) = run.record.refused(step, refusal, "schema", progress) {
                    break stop;
                }
                continue;
            }
        };
        step.decision = DecisionRecord::Parsed {
            decision: serde_json::from_str(&reply.decision).unwrap_or_default(),
        };
        let fingerprint = normalised(&reply.decision);
        let started = Instant::now();
        match decision {
            Decision::Done { .. } => {
                run.record.finish(step, progress);
                break StopReason::Done;
            }
            Decision::Ask { question } => {
                // Through the host's channel when the surface asks; without an answer the run
                // ends with the question.
                let asked = (questions == Questions::PutToPerson).then(|| {
                    let question =
                        glovebox_model::Question { text: question.clone(), choices: vec![] };
                    host.ask_user(&question)
                });
                match asked {
                    Some(Ok(answered)) => {
                        step.verdict = Verdict::Answered {
                            answer: (!answered.private).then(|| answered.text.clone()),
                            for_model: answered.text,
                        };
                        run.record.finish(step, progress);
                        continue;
                    }
                    _ => {
                        step.verdict = Verdict::Asked;
                        run.record.finish(step, progress);
                        break StopReason::Asked { question };
                    }
                }
            }
            Decision::Switch { window } => {
                let result = window
                    .parse::<WindowRef>()
                    .and_then(|w| run.observe(Some(&w), model.accepts_images()));
                step.act_ms = started.elapsed().as_millis() as u64;
                match result {
                    Ok(next) => {
                        step.verdict = Verdict::Switched { window: next.frame.window };
                        seen = next;
                        run.record.finish(step, progress);
                    }
                    Err(refusal) => {
                        if let Some(stop) =
                            run.record.refused(step, refusal, &fingerprint, progress)
                        {
                            break stop;
                        }
                    }
                }
            }
            Decision::Act { action, delivery } => {
                step.action = Some(describe(host, &seen, &action));
                step.target_drawn = drawn_target(&seen, &action);
                let result = check(&seen, &action, task).and_then(|()| {
                    host.perform(
                        ActRequest::new(seen.frame.id, action.clone())
                            .mode(delivery.unwrap_or(task.delivery))
                            .look(LookAfter::Nothing),
                    )
                    .map(|done| done.delivery)
                });
                step.act_ms = started.elapsed().as_millis() as u64;
                let delivered = match result {
                    Ok(delivery) => {
                        step.verdict = Verdict::Delivered { route: delivery.route.to_string() };
                        // Let the application draw what the input changed before looking again.
                        std::thread::sleep(SETTLE);
                        Some(step)
                    }
                    Err(refusal) => {
                        if let Some(stop) =
                            run.record.refused(step, refusal, &fingerprint, progress)
                        {
                            break stop;
                        }
                        None
                    }
                };
                // A delivered action ended the frame; a refused one may have
                // found the window changed. Either way: look again.
                let next = run.observe(None, model.accepts_images());
                if let Some(mut step) = delivered {
                    if let Some(next) =
                        next.as_ref().ok().filter(|n| n.frame.window == seen.frame.window)
                    {
                        step.changes = Some(changes(&seen, next));
                    }
                    run.record.finish(step, progress);
                }
                match next {
                    Ok(next) => seen = next,
                    Err(refusal) => break StopReason::host(&refusal),
                }
            }
        }
    };
    let final_window = run.titles.get(&seen.frame.window).map(|(app, title)| FinalWindow {
        id: seen.frame.window,
        app: app.clone(),
        title: title.clone(),
    });
    let summary = Summary::of(&run.record.steps, stop, max_steps, final_window, model.name());
    Ok(Outcome { summary, steps: run.record.steps })
}

struct Run<'h> {
    host: &'h Host,
    record: Record,
    /// (app, title) of each listed window, from the newest listing.
    titles: HashMap<glovebox_model::WindowId, (String, String)>,
}

impl Run<'_> {
    fn observe(
        &mut self,
        window: Option<&WindowRef>,
        images: bool,
    ) -> Result<Observation, Refusal> {
        let want = images
            && self.host.grant_status().is_none_or(|g| g.capture == CaptureMode::A11yAndPixels);
        // The person took the agent display over: the run waits until they hand it back (or
        // press Stop, which ends the take-over), then looks again.
        let mut looked = self.host.observe(window, want);
        while looked.as_ref().is_err_and(|r| r.code == ErrorCode::PausedByUser) {
            while self.host.taken_over() {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            looked = self.host.observe(window, want);
        }
        match looked {
            // The grant may allow the tree only, or a password field has
            // focus (no pixels then): the tree alone still serves.
            // (A pinned grant's scope refusal comes back the same way.)
            Err(r)
                if want && matches!(r.code, ErrorCode::SecureInput | ErrorCode::ScopeViolation) =>
            {
                self.host.observe(window, false)
            }
            other => other,
        }
    }

    /// The window list as the model sees it, refreshing the titles.
    fn windows(&mut self) -> String {
        let Ok(page) = self.host.list_windows(None, 1) else {
            return "(the window list is unavailable)".into();
        };
        let mut out = String::new();
        for w in &page.windows {
            let i = &w.window;
            self.titles.insert(i.id, (i.app.clone(), i.title.clone()));
            let denied =
                w.denial.as_ref().map(|d| format!(" [denied: {}]", d.code())).unwrap_or_default();
            out.push_str(&format!(
                "{} {} {:?}{}{}\n",
                i.id,
                i.app,
                i.title,
                if i.focused { " [focused by the user]" } else { "" },
                denied
            ));
        }
        if page.pages > 1 {
            out.push_str(&format!(
                "… {} windows in all; only the first page is shown\n",
                page.total
            ));
        }
        out
    }
}

/// Checks the loop can make before asking the host (which checks again):
/// observe-only, id in the current tree, point inside the frame's image.
fn check(seen: &Observation, action: &Action, task: &Task) -> Result<(), Refusal> {
    if task.observe_only {
        return Err(glovebox_host::refusals::observe_only_task());
    }
    action.validate()?;
    for target in action.targets() {
        match target {
            Target::Element(id) => {
                let known = seen.tree.root.as_ref().is_some_and(|r| r.walk().any(|e| e.id == id));
                if !known {
                    return Err(glovebox_host::refusals::not_in_newest_observation(
                        id,
                        seen.frame.id,
                    ));
                }
            }
            Target::Point(p) => {
                let image_is = format!("image of frame {}", seen.frame.id);
                let (x, y) = (p.x.into(), p.y.into());
                glovebox_host::refusals::check_point_in_image(x, y, seen.frame.image, &image_is)?;
            }
        }
    }
    Ok(())
}

/// `click push button "Submit"`, `type 12 characters`, …; typed text is
/// described by its length, never quoted.
pub fn describe(host: &Host, seen: &Observation, action: &Action) -> String {
    let targets: Vec<(Role, String)> = host.describe_targets(seen.frame.id, action);
    let on = match targets.first() {
        Some((role, name)) if !name.is_empty() => format!(" {role} {name:?}"),
        Some((role, _)) => format!(" {role}"),
        None => match action.targets().first() {
            Some(Target::Point(p)) => format!(" at ({}, {})", p.x, p.y),
            Some(Target::Element(id)) => format!(" {id}"),
            None => String::new(),
        },
    };
    match action {
        Action::Type { text } => format!("type {} characters", text.chars().count()),
        Action::SetValue { text, .. } => {
            format!("set_value{on} to {} characters", text.chars().count())
        }
        Action::Key { combo, repeat } if *repeat > 1 => format!("key {combo} ×{repeat}"),
        Action::Key { combo, .. } => format!("key {combo}"),
        Action::Select { option, .. } => format!("select {option:?} in{on}"),
        other => format!("{}{on}", other.kind()),
    }
}

/// A step about to act on `seen`, as the loop records its own: the window,
/// frame, image, screenshot and the first lines of `tree` (the rendering
/// the agent decided on). Public for agents that do not decide through a
/// model, such as an episode's scripted agent, so their reports read alike.
pub fn step_on(
    index: u32,
    seen: &Observation,
    window_title: String,
    tree: &str,
    decision: DecisionRecord,
) -> Step {
    Step {
        index,
        window: Some(seen.frame.window),
        window_title,
        frame: Some(seen.frame.id),
        image: Some(seen.frame.image),
        tree_excerpt: tree.lines().take(TREE_EXCERPT_LINES).collect::<Vec<_>>().join("\n"),
        screenshot: seen.screenshot.clone().map(|bytes| Png {
            bytes,
            width: seen.frame.image.width,
            height: seen.frame.image.height,
        }),
        decision,
        action: None,
        target_drawn: None,
        verdict: Verdict::Finished,
        changes: None,
        model_ms: 0,
        act_ms: 0,
        tokens: None,
    }
}

/// What a delivered action changed between the look before it and the one
/// after: the diff's verdict line and its first lines.
pub fn changes(before: &Observation, after: &Observation) -> String {
    let diff = TreeDiff::between(&before.tree, &after.tree).render_text();
    diff.lines().take(CHANGE_LINES).collect::<Vec<_>>().join("\n")
}

/// Where the action points in the frame's image: the point itself, or the
/// centre of the element's bounds mapped into image pixels.
pub fn drawn_target(seen: &Observation, action: &Action) -> Option<Point> {
    let g = seen.frame.geometry;
    let image = seen.frame.image;
    match action.targets().first()? {
        Target::Point(p) => Some(*p),
        Target::Element(id) => {
            let element = seen.tree.root.as_ref()?.walk().find(|e| e.id == *id)?;
            let b = element.screen_bounds?.intersection(g)?;
            let cx = (b.x - g.x) as i64 + b.width as i64 / 2;
            let cy = (b.y - g.y) as i64 + b.height as i64 / 2;
            Some(Point {
                x: (cx * image.width as i64 / g.width.max(1) as i64) as i32,
                y: (cy * image.height as i64 / g.height.max(1) as i64) as i32,
            })
        }
    }
}

/// The decision with insignificant whitespace removed, to recognise a step
/// the model repeats.
fn normalised(raw: &str) -> String {
    serde_json::from_str::<serde_json::Value>(raw)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| raw.trim().to_owned())
}
