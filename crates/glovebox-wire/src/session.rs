//! The execution core both executors share: the frame the model last saw
//! (every coordinate maps through it), the approval gate, and running a
//! planned batch through the host in order with the screenshot deferred to
//! the end. The host checks every step (grant, denials, freshness, bounds,
//! budget, secure input); nothing here skips or repeats those checks.

use crate::error::WireError;
use glovebox_host::{ActRequest, FrameView, Host, LookAfter, Observation, ObserveRequest, Span};
use glovebox_model::{Action, CaptureLimits, DeliveryMode, ErrorCode, Refusal, Target, WindowRef};
use std::time::Duration;

/// How an executor runs its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutorOptions {
    /// The window to look at and act in (binding the grant to it on the
    /// first call); `None`: the window the host's grant is bound to.
    pub window: Option<WindowRef>,
    /// Background by default; foreground is refused by the host unless its
    /// configuration allows it, and is its own approval class.
    pub delivery: DeliveryMode,
    /// How long a GA `wait` action sleeps (it carries no duration).
    pub ga_wait: Duration,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        ExecutorOptions {
            window: None,
            delivery: DeliveryMode::Background,
            ga_wait: Duration::from_secs(1),
        }
    }
}

/// One planned step: host input with its points already in the basis
/// frame's image pixels, a pause, or a deferred screenshot marker.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Input(Action),
    Wait(Duration),
    Screenshot,
}

impl Step {
    fn points(&self) -> bool {
        matches!(self, Step::Input(a) if !a.targets().is_empty())
    }
}

/// Which screenshot a model gets: the host's configured limits (OpenAI),
/// or fitted into a declared display (Anthropic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Configured,
    Fitted(CaptureLimits),
}

pub struct Session {
    /// The host handle, with the prompt channel of whoever runs the executor.
    pub host: Host,
    pub options: ExecutorOptions,
    /// The frame of the screenshot the model last received.
    pub basis: Option<FrameView>,
    /// No input ran since the basis was taken, so its frame is still the
    /// host's newest; after input a step re-observes and compares layouts.
    basis_live: bool,
    /// The tree of the observation the last screenshot came with: what a
    /// trajectory compares the next one with.
    pub last_tree: Option<std::sync::Arc<glovebox_model::AccessibilityTree>>,
}

pub use glovebox_host::refusals::no_screenshot_yet;

impl Session {
    pub fn new(host: Host, options: ExecutorOptions) -> Session {
        Session { host, options, basis: None, basis_live: false, last_tree: None }
    }

    /// An observation of the bound window through `host`, with a screenshot
    /// of the kind the model receives when `screenshot` is set.
    pub fn look(&self, host: &Host, look: Look, screenshot: bool) -> Result<Observation, Refusal> {
        let window = self.options.window.as_ref();
        match (look, screenshot) {
            (_, false) => host.observe(window, false),
            (Look::Configured, true) => host.observe(window, true),
            (Look::Fitted(limits), true) => host.observe_with(
                window,
                ObserveRequest { screenshot: true, marks: false, fit: Some(limits) },
            ),
        }
    }

    /// Checks that the batch can be mapped at all: coordinates need a
    /// screenshot, and must lie inside it. Nothing has run yet.
    pub fn precheck(&self, steps: &[Step]) -> Result<(), WireError> {
        for (i, step) in steps.iter().enumerate() {
            let Step::Input(action) = step else { continue };
            for target in action.targets() {
                let Target::Point(p) = target else { continue };
                let Some(basis) = &self.basis else {
                    return Err(WireError::at(i, 0, no_screenshot_yet()));
                };
                let (x, y, image) = (p.x.into(), p.y.into(), basis.image);
                glovebox_host::refusals::check_point_in_image(x, y, image, "screenshot")
                    .map_err(|e| WireError::at(i, 0, e))?;
            }
            action.validate().map_err(|e| WireError::at(i, 0, e))?;
        }
        Ok(())
    }

    /// What the user is shown for the call: the class, one line per
    /// action, the elements under the points, and the length of any text.
    pub fn span(&self, steps: &[Step]) -> Span {
        let input = steps.iter().any(|s| matches!(s, Step::Input(_)));
        let class =
            glovebox_host::approval_class(input, self.options.delivery == DeliveryMode::Foreground);
        let mut span = Span {
            class,
            actions: vec![],
            targets: vec![],
            typed: vec![],
            frame: self.basis.as_ref().map(|basis| basis.id),
            detail: None,
            started_by_user: false,
        };
        for step in steps {
            span.actions.push(match step {
                Step::Screenshot => "screenshot".into(),
                Step::Wait(d) => format!("wait {:.1} s", d.as_secs_f64()),
                Step::Input(action) => {
                    let targets = match &self.basis {
                        Some(basis) => self
                            .host
                            .describe_targets(basis.id, action)
                            .into_iter()
                            .filter(|(_, name)| !name.is_empty())
                            .collect(),
                        None => vec![],
                    };
                    span.typed.extend(Span::typed_by(std::slice::from_ref(action)));
                    // The targets' roles and names are shown beside the lines.
                    span.targets.extend(targets);
                    glovebox_host::describe_action(action)
                }
            });
        }
        span
    }

    /// Asks the host once for the whole call, through `asking`'s prompt
    /// channel; the handle it returns runs the call's steps (foreground
    /// steps still ask one by one).
    pub fn approve(&self, asking: &Host, steps: &[Step]) -> Result<Host, WireError> {
        asking.approve_span(self.span(steps)).map_err(WireError::new)
    }

    /// Runs the steps in order. Every coordinate maps through the basis
    /// frame: the host ends a frame at each input, so before a later step
    /// the window is observed again the same way, and a frame whose window
    /// geometry or image size differs from the basis is a layout change.
    /// The first failure stops the batch; the basis is dropped once input
    /// was delivered or the layout changed, so the model must look again.
    pub fn run(&mut self, host: &Host, steps: &[Step], look: Look) -> Result<(), WireError> {
        let mut live = self.basis.as_ref().filter(|_| self.basis_live).map(|b| b.id);
        let mut executed = 0;
        for (i, step) in steps.iter().enumerate() {
            let result = match step {
                Step::Screenshot => Ok(()),
                Step::Wait(d) => {
                    std::thread::sleep(*d);
                    Ok(())
                }
                Step::Input(action) => {
                    self.deliver(host, action, step.points(), look, &mut live).map(|()| {
                        executed += 1;
                        self.basis_live = false;
                    })
                }
            };
            if let Err(mut refusal) = result {
                if steps.len() > 1 {
                    refusal = crate::error::to_wire(refusal);
                    refusal.message = format!(
                        "action {i} of the batch failed: {}; {executed} input action(s) before it were delivered{}",
                        refusal.message,
                        if i + 1 < steps.len() { ", and the actions after it did not run" } else { "" }
                    );
                }
                let error = WireError::at(i, executed, refusal);
                if executed > 0
                    || matches!(
                        error.code(),
                        ErrorCode::LayoutChanged
                            | ErrorCode::StaleRef
                            | ErrorCode::StaleRevision
                            | ErrorCode::TargetGone
                    )
                {
                    self.basis = None;
                }
                return Err(error);
            }
        }
        Ok(())
    }

    fn deliver(
        &mut self,
        host: &Host,
        action: &Action,
        points: bool,
        look: Look,
        live: &mut Option<glovebox_model::FrameId>,
    ) -> Result<(), Refusal> {
        let frame = match live.take() {
            Some(id) => id,
            None => {
                let seen = self.look(host, look, points)?;
                if points {
                    let basis = self.basis.as_ref().ok_or_else(no_screenshot_yet)?;
                    glovebox_host::refusals::check_unchanged_since_screenshot(
                        basis.layout(),
                        seen.frame.layout(),
                    )?;
                }
                seen.frame.id
            }
        };
        host.perform(
            ActRequest::new(frame, action.clone())
                .mode(self.options.delivery)
                .look(LookAfter::Nothing),
        )
        .map(|_| ())
    }

    /// Takes up a basis saved before a restart (a call that waited for a
    /// person): the window is looked at again the way the model sees it,
    /// and only the same window, at the same place and size, giving a
    /// screenshot of the same size, becomes the basis again, as this fresh
    /// frame. Anything else is stale and refused.
    pub fn resume_on(&mut self, saved: &FrameView, look: Look) -> Result<(), Refusal> {
        self.basis = None;
        let host = self.host.clone();
        let seen = self.look(&host, look, true)?;
        glovebox_host::refusals::check_resumable(saved.layout(), seen.frame.layout())?;
        self.basis = Some(seen.frame.clone());
        self.basis_live = true;
        self.last_tree = Some(std::sync::Arc::new(seen.tree));
        Ok(())
    }

    /// The screenshot after a call: the model's next basis.
    pub fn finish(&mut self, host: &Host, look: Look) -> Result<Observation, WireError> {
        // Whatever happens next, the old basis is no longer what the model should aim with.
        self.basis = None;
        let seen = self.look(host, look, true).map_err(WireError::new)?;
        if seen.screenshot.is_none() {
            return Err(WireError::new(glovebox_host::refusals::screenshots_not_granted(
                "the observation carried no screenshot",
            )));
        }
        self.basis = Some(seen.frame.clone());
        self.basis_live = true;
        self.last_tree = Some(std::sync::Arc::new(seen.tree.clone()));
        Ok(seen)
    }
}
