//! Acting: every check an input passes, in order, under the one lock, so
//! the frame and targets the user approves are the ones delivered — no
//! other call can replace the frame between the prompt and the delivery.
//!
//! Order: read-only, the action's own validity, foreground allowed, the
//! grant, its budget, the frame (newest, same revision, not expired), the
//! targets resolved in that frame, secure-input writes, the approval class
//! (consequential names escalate), then the window measured again, the
//! absolute denials and secure input once more, Stop, and delivery.

use crate::approval::{describe_action, Standing, Typed};
use crate::backend::Gated;
use crate::decide::{self, InputFacts, InputPlan};
use crate::frames::FrameRecord;
use crate::grant::State;
use crate::{
    ActOutcome, ActRequest, ApprovalRequest, Approved, Host, LookAfter, ObserveRequest, Settled,
};
use glovebox_model::{
    AccessibilityTree, Action, ApprovalClass, CaptureMode, DeliveryMode, Desktop, ErrorCode,
    FrameId, Refusal, Role, Target, TreeDiff, WindowInfo,
};
use glovebox_platform::{Delivery, Reach, Receipt, ResolvedTarget};

/// What a refusal for want of a background route adds: where the action can be done instead.
const AGENT_DISPLAY_HINT: &str =
    "; the application can be opened on the agent display (`open_app` with `desktop: \"agent\"`), a private desktop glovebox owns, where its own pointer and keyboard reach it";
/// Where the application's events cannot be watched: how long an input's
/// effect is given before the window is looked at again.
const INPUT_SETTLE: std::time::Duration = std::time::Duration::from_millis(60);
/// Where they cannot: how much longer a look that saw no change waits for a late one.
const QUIET_RECHECK: std::time::Duration = std::time::Duration::from_millis(250);
/// Where they can: the evidence an input's result waits for. A toolkit
/// runs most actions from its main loop's next idle turn and sends its
/// events as it applies them; an application that sends none in the first
/// wait did nothing the accessibility tree would show, and one still
/// sending at the cap (an animation) is looked at then. An application
/// that answered a request sent after the input, having sent nothing
/// before its answer, is given [`AFTER_ANSWER`] more instead of the rest
/// of the first wait once it has shown that it sends its reactions before
/// such an answer (a change seen later is in the next look's diff).
const SETTLE: glovebox_platform::SettleLimits = glovebox_platform::SettleLimits {
    first_event: std::time::Duration::from_millis(80),
    quiet_gap: std::time::Duration::from_millis(30),
    cap: std::time::Duration::from_millis(500),
    after_answer: Some(AFTER_ANSWER),
};
/// The same after an input the application said it has read (an X11
/// route's ping answered): its handlers run in the same turn of its loop,
/// so a first event is not long in coming.
const SETTLE_ACKNOWLEDGED: glovebox_platform::SettleLimits =
    glovebox_platform::SettleLimits { first_event: std::time::Duration::from_millis(30), ..SETTLE };
/// After the answer: room for the work a toolkit leaves to its loop's next
/// turns (a relayout, a frame clock's ticks at 60 Hz, a short timer).
const AFTER_ANSWER: std::time::Duration = std::time::Duration::from_millis(30);

/// An input admitted and approved: what it is aimed through and where it may go.
struct Admitted {
    frame_id: FrameId,
    frame: FrameRecord,
    reach: Reach,
    targets: Vec<ResolvedTarget>,
    /// Role and name of each target, as the person was asked about them.
    described: Vec<(Role, String)>,
    on_agent_display: bool,
}

/// What a span of calls does, for the one prompt that approves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The approval class the span is asked for; its calls of that class
    /// (and observations, for input) ask no more.
    pub class: ApprovalClass,
    /// One line per step (`click at (120, 40)`, `screenshot`, `run the
    /// instruction "…" for up to 10 steps`).
    pub actions: Vec<String>,
    /// Role and name of the elements the span's steps touch, where known.
    pub targets: Vec<(Role, String)>,
    /// The text the span's steps would enter, step by step
    /// ([`Action::typed_text`]): the question shows it, and a step that
    /// types into a terminal or a window without a tree is covered only
    /// by a question that showed its text.
    pub typed: Vec<Typed>,
    /// The frame the span's steps start from, where known: typing into a
    /// window that cannot say which field is a password field asks, as
    /// one such step would, whatever the input class allows.
    pub frame: Option<FrameId>,
    /// Anything else the prompt shows (the instruction a run follows).
    pub detail: Option<String>,
    /// The person started this span themselves (`glovebox run` typed at a
    /// terminal): that is the approval a prompt would ask for, unless the
    /// configuration denies the class or a consequential target asks.
    pub started_by_user: bool,
}

impl Span {
    /// The text each of `steps` would enter, in order, for [`Span::typed`].
    pub fn typed_by(steps: &[Action]) -> Vec<Typed> {
        steps.iter().filter_map(Action::typed_text).map(Typed::Text).collect()
    }
}

impl Host {
    /// Checks `action` against frame `frame` and the live window, then
    /// delivers it in the background. Nothing reaches the window unless
    /// every check passed. [`Host::perform`] takes the other choices.
    pub fn act(&self, frame: FrameId, action: Action) -> Result<ActOutcome, Refusal> {
        self.perform(ActRequest::new(frame, action))
    }

    /// Delivers one input as `request` asks: its mode (foreground only
    /// where the configuration allows it) and the look after it. Without
    /// a look, the outcome's `next` says none was asked for; the frame
    /// still ends.
    pub fn perform(&self, request: ActRequest) -> Result<ActOutcome, Refusal> {
        let mut state = self.state();
        let screenshot = match request.look {
            LookAfter::AsConfigured => Some(self.inner.config.screenshot_after_input),
            LookAfter::Tree { screenshot } => Some(screenshot),
            LookAfter::Nothing => None,
        };
        let result =
            self.act_locked(&mut state, request.frame, &request.action, request.mode, screenshot);
        result.map_err(|e| self.refused(&state, Some(&request.action), e))
    }

    /// Asks once for a span of calls (a run of the loop, one provider batch)
    /// and returns a handle whose calls inside the span need no further
    /// prompt of that class. Consequential targets the prompt did not show,
    /// and foreground delivery, still ask one by one.
    pub fn approve_span(&self, span: Span) -> Result<Host, Refusal> {
        let names: Vec<String> =
            span.targets.iter().map(|(_, n)| n.clone()).filter(|n| !n.is_empty()).collect();
        let checked = (|| {
            self.inner.config.check_enabled()?;
            if span.class != ApprovalClass::Observe {
                self.check_input_allowed()?;
            }
            let mut request = ApprovalRequest::call(span.class, span.actions.clone());
            request.window = self
                .grant_status()
                .and_then(|g| Some(format!("{} ({})", g.target_app?, g.target?)));
            request.targets = span.targets.clone();
            request.text_characters = span.typed.iter().map(Typed::characters).sum();
            request.typed = span.typed.clone();
            request.detail = span.detail.clone();
            // Typing into a window whose fields are unknown asks as its steps would.
            let start = span.frame.and_then(|id| self.state().frames.get(id).cloned());
            if request.text_characters > 0 {
                if let Some(frame) = start.filter(decide::seen::fields_unknown) {
                    request.typed_into = Some(crate::approval::ShownBecause::NoTree);
                    request.escalation = decide::seen::typing_asks(&frame);
                }
            }
            let verdict = self.inner.config.approvals.verdict(span.class, &names);
            match verdict.policy {
                glovebox_model::Policy::Prompt
                    if span.started_by_user
                        && verdict.escalation.is_none()
                        && request.escalation.is_none() =>
                {
                    Ok(Approved::Policy)
                }
                _ => self.approve(request, &names),
            }
        })();
        let approved = checked.map_err(|e| self.refused(&self.state(), None, e))?;
        // What the person was shown is what they approved; nothing else is covered.
        let asked = approved == Approved::Person;
        let shown_texts = span
            .typed
            .iter()
            .filter_map(|t| match t {
                Typed::Text(text) if asked => Some(text.clone()),
                _ => None,
            })
            .collect();
        let mut handle = self.clone();
        handle.standing = Some(Standing {
            class: span.class,
            shown: if asked { names } else { vec![] },
            shown_texts,
        });
        Ok(handle)
    }

    /// Puts a provider's safety check on a proposed step to the user; only
    /// an explicit yes acknowledges it, whatever the configuration says, and
    /// no prompt channel fails closed (`COMPUTER_SAFETY_CHECK_UNACKNOWLEDGED`).
    pub fn acknowledge_safety_check(
        &self,
        id: &str,
        code: Option<&str>,
        message: Option<&str>,
        step: &[String],
    ) -> Result<(), Refusal> {
        let subject = crate::Subject::SafetyCheck {
            id: id.to_owned(),
            code: code.map(str::to_owned),
            message: message.map(str::to_owned),
            step: step.to_vec(),
        };
        let mut request = ApprovalRequest::call(ApprovalClass::Input, vec![]);
        request.subject = subject;
        request.window =
            self.grant_status().and_then(|g| Some(format!("{} ({})", g.target_app?, g.target?)));
        let result = self.ask(&request);
        let mut record = glovebox_services::audit::AuditRecord::new("safety-check");
        record.detail = Some(format!(
            "{id} ({}): {}",
            code.unwrap_or("no code"),
            if result.is_ok() { "acknowledged by the user" } else { "not acknowledged" }
        ));
        self.audit(record);
        result
    }

    /// The observation after an input and what changed since `before`,
    /// taken once the application's events say it has reacted and gone
    /// quiet (`limits`: [`SETTLE`], or [`SETTLE_ACKNOWLEDGED`]). Where they cannot be watched, the look waits
    /// [`INPUT_SETTLE`] (toolkits run many actions from their main loop's
    /// idle time) and, seeing no change, looks once more after
    /// [`QUIET_RECHECK`] before saying so.
    fn observe_settled(
        &self,
        state: &mut State,
        window: &glovebox_model::WindowInfo,
        request: ObserveRequest,
        before: &glovebox_model::AccessibilityTree,
        limits: glovebox_platform::SettleLimits,
    ) -> (Result<crate::Observation, Refusal>, Option<TreeDiff>, Settled) {
        let look = |pause: std::time::Duration, state: &mut State| {
            std::thread::sleep(pause);
            // Stop pressed while the action settled: no more looking at the window.
            if self.stopped() {
                self.revoke_locked(state, "stopped by the user");
                return (
                    Err(decide::lifecycle::stopped(decide::lifecycle::StopSeen::AfterDelivery)),
                    None,
                );
            }
            let next = self.observe_target(state, window, request);
            let changes = next.as_ref().ok().map(|n| TreeDiff::between(before, &n.tree));
            (next, changes)
        };
        let settled = self.inner.backends.accessibility.settle(limits);
        if settled != Settled::Unwatched {
            let (next, changes) = look(std::time::Duration::ZERO, state);
            return (next, changes, settled);
        }
        let (next, changes) = look(INPUT_SETTLE, state);
        if !changes.as_ref().is_some_and(TreeDiff::is_empty) {
            return (next, changes, settled);
        }
        let (next, changes) = look(QUIET_RECHECK, state);
        (next, changes, settled)
    }

    /// Frame `frame_id` if it is the bound window's newest, of the grant's
    /// revision and not expired (an expired one ends here).
    pub(crate) fn newest_frame(
        &self,
        state: &mut State,
        frame_id: FrameId,
    ) -> Result<FrameRecord, Refusal> {
        use decide::freshness::{FrameNow, GrantNow, Stale};
        let ttl = self.inner.config.frame_ttl;
        let grant = state
            .grant
            .as_ref()
            .map(|g| GrantNow { revision: g.revision, bound: g.target.as_ref().map(|t| t.id) });
        let frame = state.frames.get(frame_id).map(|f| {
            (
                FrameNow { revision: f.revision, window: f.window, age: f.created.elapsed() },
                f.clone(),
            )
        });
        decide::freshness::check_frame(grant, frame, ttl).map_err(|stale| {
            if stale == Stale::Expired {
                state.frames.end(frame_id);
            }
            stale.refusal(frame_id, ttl)
        })
    }

    /// One input, start to end, under the state: admitted and approved, checked again at the
    /// point of delivery, delivered, paid for, then looked at.
    pub(crate) fn act_locked(
        &self,
        state: &mut crate::Locked<'_>,
        frame_id: FrameId,
        action: &Action,
        mode: DeliveryMode,
        observe_after: Option<bool>,
    ) -> Result<ActOutcome, Refusal> {
        let admitted = self.admit_input(state, frame_id, action, mode)?;
        let window = self.check_at_delivery(state, &admitted, action, mode)?;
        let delivery = self.deliver_input(&admitted, &window, action, observe_after)?;
        self.pay_for_input(state, &admitted, action, &delivery)?;
        Ok(self.after_input(state, &admitted, &window, action, delivery, observe_after))
    }

    /// The checks before the person is asked, then the approval itself: the grant and its
    /// reach, the frame (the newest of this grant), the targets resolved in it.
    fn admit_input(
        &self,
        state: &mut crate::Locked<'_>,
        frame_id: FrameId,
        action: &Action,
        mode: DeliveryMode,
    ) -> Result<Admitted, Refusal> {
        self.inner.config.check_enabled()?;
        self.check_input_allowed()?;
        action.validate()?;
        let grant = self.ensure_grant(state, false)?;
        let on_agent_display = grant.target.as_ref().is_some_and(|t| t.desktop == Desktop::Agent);
        let reach = decide::admit(self.input_facts(on_agent_display, grant.budget_left), mode)?;
        let frame = self.newest_frame(state, frame_id)?;
        let InputPlan { targets, described, mut approval } =
            decide::plan_input(reach, frame_id, &frame, action)?;
        // The approval sees exactly these targets of exactly this frame.
        approval.window =
            state.grant.as_ref().and_then(|g| g.target.as_ref()).map(Host::window_label);
        let names: Vec<String> =
            described.iter().map(|(_, n)| n.clone()).filter(|n| !n.is_empty()).collect();
        self.approve_unlocked(state, approval, &names)?;
        Ok(Admitted { frame_id, frame, reach, targets, described, on_agent_display })
    }

    /// What decides whether an input may go on the desktop.
    fn input_facts(&self, on_agent_display: bool, budget_left: u32) -> InputFacts {
        InputFacts {
            on_agent_display,
            allow_foreground: self.inner.config.allow_foreground,
            budget_left,
        }
    }

    /// Everything that may have changed while the person was asked, checked again right
    /// before delivery: the grant and its budget, the frame still the newest, the window where
    /// the frame saw it, the absolute denials, secure input, seen pixels unmoved, and — the
    /// one point where they are checked under the state — Stop and the person's take-over.
    /// The window as it is now.
    fn check_at_delivery(
        &self,
        state: &mut crate::Locked<'_>,
        admitted: &Admitted,
        action: &Action,
        mode: DeliveryMode,
    ) -> Result<WindowInfo, Refusal> {
        let Admitted { frame_id, frame, on_agent_display, .. } = admitted;
        // Other calls ran while the person was asked: the frame must still be
        // the newest of the same grant (an input since ended it), with an action left.
        let grant = self.ensure_grant(state, false)?;
        decide::admit(self.input_facts(*on_agent_display, grant.budget_left), mode)?;
        self.newest_frame(state, *frame_id)?;
        let window = self.current_target(state)?;
        decide::check_basis(*frame_id, frame, &window)?;
        // Immediately before synthesis: the absolute denials, again.
        self.check_not_denied(&window)?;
        decide::check_secure_input(self.secure_input_now(Some(&window))?, decide::Guarded::Input)?;
        if !decide::seen::seen_targets(frame, action).is_empty() {
            // A seen element is only pixels: they must still be where the frame saw them.
            let native = glovebox_model::CaptureLimits::new(
                glovebox_model::frame::MAX_IMAGE_EDGE,
                glovebox_model::frame::MAX_IMAGE_EDGE,
            )?;
            let now = self
                .inner
                .backends
                .capture
                .capture_window(&glovebox_model::WindowRef::Id(window.id), native)
                .ok();
            decide::seen::check_seen_unmoved(
                *frame_id,
                frame,
                action,
                now.as_ref().map(|c| &c.image),
            )?;
        }
        // At the one point of delivery, under the state: Stop, and the person's take-over
        // (the probes above may have taken a while).
        if self.stopped() {
            self.revoke_locked(state, "stopped by the user");
            return Err(decide::lifecycle::stopped(decide::lifecycle::StopSeen::Before));
        }
        decide::check_not_paused(self.taken_over())?;
        Ok(window)
    }

    /// Puts the input on the desktop through the input backend, the drawn cursor with it.
    fn deliver_input(
        &self,
        admitted: &Admitted,
        window: &WindowInfo,
        action: &Action,
        observe_after: Option<bool>,
    ) -> Result<Delivery, Refusal> {
        let b = &self.inner.backends;
        let Some(input) = &b.input else {
            return Err(decide::session::no_input_route());
        };
        // The drawn cursor is on the user's desktop; the agent display is watched on the indicator page.
        // Over a window read from its pixels it stays where it is: a window capture
        // blacks it out, and it would hide what the next look reads there.
        let cursor_drawn = !admitted.on_agent_display && admitted.frame.tree.seen.is_empty();
        if let Some(at) =
            admitted.targets.first().and_then(ResolvedTarget::point).filter(|_| cursor_drawn)
        {
            self.aim_cursor(at);
        }
        if observe_after.is_some() {
            // Listening starts before the input, so no reaction is missed.
            b.accessibility.watch_events(window);
        }
        let reach = admitted.reach;
        match input.deliver(window, action, &admitted.targets, reach).gated() {
            Ok(delivery) => {
                if cursor_drawn {
                    self.press_cursor();
                }
                Ok(delivery)
            }
            Err(mut refusal) => {
                if refusal.code == ErrorCode::BackgroundUnavailable && reach == Reach::Background {
                    refusal.message.push_str(AGENT_DISPLAY_HINT);
                }
                if observe_after.is_some() {
                    // A watch left running would queue the app's events for nothing.
                    b.accessibility.settle(glovebox_platform::SettleLimits::NOW);
                }
                Err(refusal)
            }
        }
    }

    /// A delivered input ends its frame, costs one of the budget and is audited.
    fn pay_for_input(
        &self,
        state: &mut crate::Locked<'_>,
        admitted: &Admitted,
        action: &Action,
        delivery: &Delivery,
    ) -> Result<(), Refusal> {
        let described = &admitted.described;
        let on = described.first().map(|(role, name)| format!("{role} {name:?}"));
        self.record_recent(describe_action(action), on, format!("delivered by {}", delivery.route));
        state.frames.end(admitted.frame_id);
        state.held_mut()?.budget_left -= 1;
        let mut record = self.grant_record("action", state.held()?);
        record.action = Some(action.kind().to_owned());
        record.text_length = action.text_length();
        record.element_role = described.first().map(|(role, _)| *role);
        record.element_id = action.targets().iter().find_map(|t| match t {
            Target::Element(id) => Some(id.to_string()),
            Target::Point(_) => None,
        });
        record.detail = Some(format!("delivered by {}", delivery.route));
        self.audit(record);
        Ok(())
    }

    /// The look after a delivered input (when asked for), what it changed, whether the
    /// application is still busy with it, the recording, and the grant's end once its budget
    /// is spent.
    fn after_input(
        &self,
        state: &mut crate::Locked<'_>,
        admitted: &Admitted,
        window: &WindowInfo,
        action: &Action,
        delivery: Delivery,
        observe_after: Option<bool>,
    ) -> ActOutcome {
        let frame = &admitted.frame;
        let (next, changes, settled) = match observe_after {
            Some(screenshot) => {
                let pixels =
                    state.grant.as_ref().is_some_and(|g| g.capture == CaptureMode::A11yAndPixels);
                let request =
                    ObserveRequest { screenshot: screenshot && pixels, marks: false, fit: None };
                // A request the application answered (a semantic route) or an input it said it
                // read reached it before any request sent now: an answer to one is the order.
                let limits = match delivery.receipt {
                    Receipt::Acknowledged => SETTLE_ACKNOWLEDGED,
                    _ if delivery.route.answered() => SETTLE,
                    _ => SETTLE.unordered(),
                };
                self.observe_settled(state, window, request, &frame.tree, limits)
            }
            None => (Err(decide::freshness::no_look_after()), None, Settled::Unwatched),
        };
        // No look after it because the application is busy: what it was sent is still running.
        let unanswered = next.as_ref().is_err_and(|r| r.code == ErrorCode::Timeout)
            && delivery.receipt != Receipt::Pending;
        let delivery = match unanswered && self.inner.backends.accessibility.working(window) {
            true => Delivery { receipt: Receipt::Pending, ..delivery },
            false => delivery,
        };
        // A seen element is kept as its point: a replay's fresh frame has new seen ids.
        let recorded = decide::seen::seen_as_points(frame, action);
        self.record_delivered(state, window, &recorded, &frame.tree, changes.as_ref());
        let mut grant_closed = None;
        if let Some(spent) = state.grant.as_ref().and_then(|g| decide::budget_spent(g.budget_left))
        {
            self.revoke_locked(state, &spent.message);
            grant_closed = Some(spent.code);
            state.closed = Some(spent);
        }
        ActOutcome { delivery, next, changes, grant_closed, settled }
    }

    /// Adds a delivered action to its grant's recording, when recording is on.
    fn record_delivered(
        &self,
        state: &State,
        window: &WindowInfo,
        action: &Action,
        tree: &AccessibilityTree,
        changes: Option<&TreeDiff>,
    ) {
        let (crate::Recording::On { dir, text }, Some(grant)) =
            (&self.inner.config.recording, state.grant.as_ref())
        else {
            return;
        };
        let mut recorder = self.inner.recorder.lock().unwrap_or_else(|p| p.into_inner());
        if recorder.as_ref().is_none_or(|(id, _)| *id != grant.id) {
            match glovebox_services::recording::Recorder::start(dir, &grant.id, *text) {
                Ok(started) => *recorder = Some((grant.id.clone(), started)),
                Err(e) => return self.recording_failed(grant, &e),
            }
        }
        let address = glovebox_services::recording::WindowAddress {
            app: window.app.clone(),
            title: window.title.clone(),
        };
        if let Some(Err(e)) =
            recorder.as_mut().map(|(_, r)| r.record(address, action, tree, changes))
        {
            self.recording_failed(grant, &e);
        }
    }

    /// A look at a window: what the last step delivered without a look of its own changed.
    pub(crate) fn recording_observed(&self, tree: &AccessibilityTree) {
        let mut recorder = self.inner.recorder.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, recorder)) = recorder.as_mut() {
            // A failure here is found again at the next step's write, which is audited.
            let _ = recorder.observed(tree);
        }
    }

    fn recording_failed(&self, grant: &crate::grant::Grant, error: &std::io::Error) {
        let mut record = self.grant_record("recording-failed", grant);
        record.detail = Some(error.to_string());
        self.audit(record);
    }
}
