//! The grant's lifecycle (DESIGN.md §3): creation (one per display, across
//! processes), binding and rebinding, the bound window closing, idle
//! expiry, revocation, Stop and its cooldown, and the control socket other
//! processes reach the holder through.

use crate::backend::Gated;
use crate::decide::lifecycle::{self, StopSeen};
use crate::frames::FrameStore;
use crate::{Host, Inner};
use glovebox_model::{
    Action, CaptureMode, ErrorCode, GrantView, InputPolicy, Origin, Refusal, Scope, WindowInfo,
    WindowRef,
};
use glovebox_services::audit::AuditRecord;
use glovebox_services::control::{
    ControlError, ControlReply, ControlRequest, ControlServer, DisplayLock,
};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

pub(crate) struct Grant {
    pub(crate) id: String,
    pub(crate) scope: Scope,
    pub(crate) origin: Origin,
    pub(crate) target: Option<WindowInfo>,
    pub(crate) no_target_reason: Option<String>,
    pub(crate) revision: u64,
    pub(crate) capture: CaptureMode,
    pub(crate) budget_left: u32,
    pub(crate) last_used: Instant,
    /// The windows whose application's guidance this grant has shown.
    pub(crate) guided: std::collections::HashSet<glovebox_model::WindowId>,
    _lock: DisplayLock,
    _control: Option<ControlServer>,
}

pub(crate) struct State {
    pub(crate) grant: Option<Grant>,
    /// Why the last grant closed, when that blocks agent grants (budget, expiry).
    pub(crate) closed: Option<Refusal>,
    pub(crate) frames: FrameStore,
    next_grant: u64,
    /// The grant revision the agent's cursor was last placed for.
    pub(crate) cursor_revision: Option<u64>,
}

impl Default for State {
    fn default() -> Self {
        State {
            grant: None,
            closed: None,
            frames: FrameStore::default(),
            next_grant: 1,
            cursor_revision: None,
        }
    }
}

/// [`State::held`] on the grant's own field, for a call that also uses
/// the state's other fields while reading it.
pub(crate) fn held(grant: &Option<Grant>) -> Result<&Grant, Refusal> {
    grant.as_ref().ok_or_else(lifecycle::grant_ended)
}

impl State {
    /// The grant this locked call ensured before: it cannot end while the
    /// lock is held, and should it have (a question let the lock go), the
    /// call is refused rather than a panic.
    pub(crate) fn held(&self) -> Result<&Grant, Refusal> {
        held(&self.grant)
    }

    /// [`State::held`], for the call to pay from it.
    pub(crate) fn held_mut(&mut self) -> Result<&mut Grant, Refusal> {
        self.grant.as_mut().ok_or_else(lifecycle::grant_ended)
    }
}

/// How long Stop waits for a turn in flight to let go of the state before
/// it answers anyway; the turn then revokes the grant at its next check.
const STOP_WAIT: Duration = Duration::from_millis(50);

impl Host {
    pub(crate) fn grant_record(&self, event: &str, grant: &Grant) -> AuditRecord {
        let mut record = AuditRecord::new(event);
        record.grant_id = Some(grant.id.clone());
        record.scope = Some(grant.scope);
        record.origin = Some(grant.origin);
        record.target = grant.target.as_ref().map(|w| w.id);
        record.app = grant.target.as_ref().map(|w| w.app.clone());
        record
    }

    /// Records a refusal in the audit trail and hands it back.
    pub(crate) fn refused(
        &self,
        state: &State,
        action: Option<&Action>,
        refusal: Refusal,
    ) -> Refusal {
        let mut record = match &state.grant {
            Some(grant) => self.grant_record("refusal", grant),
            None => AuditRecord::new("refusal"),
        };
        record.action = action.map(|a| a.kind().to_owned());
        record.text_length = action.and_then(Action::text_length);
        record.code = Some(refusal.code);
        record.detail = Some(refusal.message.clone());
        self.audit(record);
        if let Some(action) = action {
            self.record_recent(
                crate::describe_action(action),
                None,
                refusal.code.as_str().to_owned(),
            );
        }
        refusal
    }

    /// The frontmost window no denial covers, or why there is none.
    pub(crate) fn frontmost_allowed(&self) -> Result<Result<WindowInfo, String>, Refusal> {
        let windows = self.inner.backends.windows.list_windows().gated()?;
        let mut reasons = vec![];
        for w in windows.into_iter().filter(|w| !w.minimized) {
            match self.denial_of(&w) {
                None => return Ok(Ok(w)),
                Some(d) => reasons.push(format!("{} ({}): {}", w.id, w.app, d.sentence())),
            }
        }
        Ok(Err(if reasons.is_empty() {
            "there are no windows".into()
        } else {
            format!("every window is denied: {}", reasons.join("; "))
        }))
    }

    pub(crate) fn view(&self, grant: &Grant) -> GrantView {
        GrantView {
            grant_id: grant.id.clone(),
            scope: grant.scope,
            origin: grant.origin,
            target: grant.target.as_ref().map(|w| w.id),
            target_app: grant.target.as_ref().map(|w| w.app.clone()),
            no_target_reason: grant.no_target_reason.clone(),
            revision: grant.revision,
            input_policy: InputPolicy::AutonomousInScope,
            capture: grant.capture,
            budget_left: grant.budget_left,
            idle_expiry_secs: self.inner.config.idle_expiry.as_secs(),
        }
    }

    /// The bound window as a prompt names it: `app (pid/xid)`.
    pub(crate) fn window_label(window: &WindowInfo) -> String {
        format!("{} ({})", window.app, window.id)
    }

    /// The active grant, if any.
    pub fn grant_status(&self) -> Option<GrantView> {
        let mut state = self.state();
        self.expire_if_idle(&mut state);
        state.grant.as_ref().map(|g| self.view(g))
    }

    /// Creates a grant. A user grant clears the Stop cooldown and any
    /// budget/expiry block; an agent grant is refused during them.
    pub fn create_grant(
        &self,
        origin: Origin,
        scope: Scope,
        window: Option<&WindowRef>,
    ) -> Result<GrantView, Refusal> {
        let mut state = self.state();
        let created = self
            .inner
            .config
            .check_enabled()
            .and_then(|()| self.create_grant_locked(&mut state, origin, scope, window));
        match created {
            Ok(()) => Ok(self.view(state.grant.as_ref().expect("created"))),
            Err(e) => Err(self.refused(&state, None, e)),
        }
    }

    pub(crate) fn create_grant_locked(
        &self,
        state: &mut State,
        origin: Origin,
        scope: Scope,
        window: Option<&WindowRef>,
    ) -> Result<(), Refusal> {
        if state.grant.is_some() {
            self.revoke_locked(state, "replaced by a new grant");
        }
        match origin {
            Origin::User => {
                self.inner.display_dir.clear_cooldown();
                state.closed = None;
            }
            Origin::Agent => {
                if let Some(left) = self.inner.display_dir.cooldown_left() {
                    return Err(lifecycle::stop_cooldown(left));
                }
                if let Some(closed) = &state.closed {
                    return Err(lifecycle::closed_until_the_user_grants(closed));
                }
            }
        }
        let target = match window {
            Some(reference) => {
                let w = self.inner.backends.windows.find_window(reference).gated()?;
                self.check_not_denied(&w)?;
                Ok(w)
            }
            None if scope == Scope::Window => return Err(lifecycle::window_grant_without_window()),
            None => self.frontmost_allowed()?,
        };
        let lock = self.inner.display_dir.lock().gated()?;
        let weak = Arc::downgrade(&self.inner);
        let control =
            self.inner.display_dir.serve(move |request| control_command(&weak, request)).ok();
        let id = format!("g{}-{}", self.inner.config.acting_pid, state.next_grant);
        state.next_grant += 1;
        let (target, no_target_reason) = match target {
            Ok(w) => (Some(w), None),
            Err(reason) => (None, Some(reason)),
        };
        let grant = Grant {
            id,
            scope,
            origin,
            target,
            no_target_reason,
            revision: 1,
            capture: self.inner.config.capture,
            budget_left: self.inner.config.budget,
            last_used: Instant::now(),
            guided: Default::default(),
            _lock: lock,
            _control: control,
        };
        self.inner.stop_requested.store(false, Ordering::SeqCst);
        self.audit(self.grant_record("grant-created", &grant));
        state.frames.clear();
        state.grant = Some(grant);
        Ok(())
    }

    pub(crate) fn revoke_locked(&self, state: &mut State, why: &str) {
        if let Some(grant) = state.grant.take() {
            let mut record = self.grant_record("grant-revoked", &grant);
            record.detail = Some(why.to_owned());
            self.audit(record);
            // The grant's recording ends with it: dropped, it writes its closing line.
            drop(self.inner.recorder.lock().unwrap_or_else(|p| p.into_inner()).take());
        }
        state.frames.clear();
        self.hide_cursor(state);
    }

    /// Revokes the active grant.
    pub fn revoke(&self, why: &str) {
        let mut state = self.state();
        self.revoke_locked(&mut state, why);
    }

    /// Stop: revokes the grant, aborts the turn holding it, and refuses
    /// agent grants for the cooldown (across processes).
    pub fn stop(&self) -> Result<(), Refusal> {
        stop_inner(&self.inner)
    }

    /// Stop from another process: reaches the holder of this display's grant
    /// through its control socket, and starts the cooldown either way.
    pub fn stop_display(
        runtime_root: &std::path::Path,
        display: &str,
        cooldown: Duration,
    ) -> Result<String, Refusal> {
        let dir = glovebox_services::control::DisplayDir::new(runtime_root, display).gated()?;
        dir.start_cooldown(cooldown).gated()?;
        match dir.send(ControlRequest::Stop) {
            Ok(reply) => Ok(reply.to_string()),
            Err(ControlError::NoHolder) => {
                Ok("no grant was active; agent grants are refused for the cooldown".into())
            }
            Err(e) => Err(crate::refusal_of_control(e)),
        }
    }

    /// The grant of this display as its holder reports it (another process).
    pub fn remote_status(
        runtime_root: &std::path::Path,
        display: &str,
    ) -> Result<ControlReply, Refusal> {
        glovebox_services::control::DisplayDir::new(runtime_root, display)
            .and_then(|dir| dir.send(ControlRequest::Status))
            .gated()
    }

    fn expire_if_idle(&self, state: &mut State) -> Option<Refusal> {
        let grant = state.grant.as_ref()?;
        if grant.last_used.elapsed() < self.inner.config.idle_expiry {
            return None;
        }
        let mut record = self.grant_record("grant-expired", grant);
        record.code = Some(ErrorCode::GrantExpired);
        self.audit(record);
        state.grant = None;
        state.frames.clear();
        self.hide_cursor(state);
        let expired = lifecycle::grant_expired(self.inner.config.idle_expiry);
        state.closed = Some(expired.clone());
        Some(expired)
    }

    /// The grant for this call: the active one (touched), or a new agent
    /// grant when there is none and `create` allows it.
    pub(crate) fn ensure_grant<'s>(
        &self,
        state: &'s mut State,
        create: bool,
    ) -> Result<&'s mut Grant, Refusal> {
        self.inner.config.check_enabled()?;
        // After Stop nothing uses a grant; only a new one (a user grant, or
        // an agent grant once the cooldown is over) clears the flag.
        if self.stopped() && (state.grant.is_some() || !create) {
            self.revoke_locked(state, "stopped by the user");
            return Err(lifecycle::stopped(StopSeen::GrantRevoked));
        }
        crate::decide::check_not_paused(self.taken_over())?;
        if let Some(expired) = self.expire_if_idle(state) {
            return Err(expired);
        }
        if state.grant.is_none() {
            if !create {
                return Err(lifecycle::no_active_grant());
            }
            self.create_grant_locked(state, Origin::Agent, Scope::Desktop, None)?;
        }
        match state.grant.as_mut() {
            Some(grant) => {
                grant.last_used = Instant::now();
                Ok(grant)
            }
            None => Err(lifecycle::no_active_grant()),
        }
    }

    pub(crate) fn stopped(&self) -> bool {
        self.inner.stop_requested.load(Ordering::SeqCst)
    }

    /// Binds the grant to `window` after re-running every denial on a fresh
    /// enumeration; always bumps the revision and ends every frame.
    pub(crate) fn bind(
        &self,
        state: &mut State,
        window: Option<WindowInfo>,
        no_target_reason: Option<String>,
    ) {
        state.frames.clear();
        let grant = state.grant.as_mut().expect("bound grants exist");
        grant.target = window;
        grant.no_target_reason = no_target_reason;
        grant.revision += 1;
        let record = self.grant_record("grant-rebound", state.grant.as_ref().expect("exists"));
        self.audit(record);
    }

    /// The bound window, measured now. A vanished window makes a desktop
    /// grant fall back to the frontmost allowed window (new revision) and
    /// revokes a window grant.
    pub(crate) fn current_target(&self, state: &mut State) -> Result<WindowInfo, Refusal> {
        let grant = state.grant.as_ref().expect("checked");
        let Some(target) = grant.target.clone() else {
            // Windows may have appeared or been allowed since the grant lost its target.
            return match self.frontmost_allowed()? {
                Ok(w) => {
                    self.bind(state, Some(w.clone()), None);
                    Ok(w)
                }
                Err(reason) => Err(lifecycle::no_target(&reason)),
            };
        };
        match self.inner.backends.windows.find_window(&WindowRef::Id(target.id)) {
            Ok(now) => Ok(now),
            Err(e) if e.is(&glovebox_platform::BackendErrorKind::Gone) => {
                if grant.scope == Scope::Window {
                    self.revoke_locked(state, "the bound window closed");
                    return Err(lifecycle::bound_window_closed(target.id));
                }
                match self.frontmost_allowed()? {
                    Ok(w) => self.bind(state, Some(w), None),
                    Err(reason) => self.bind(state, None, Some(reason)),
                }
                Err(lifecycle::grant_moved_on(target.id))
            }
            Err(e) => Err(crate::refusal_of(e)),
        }
    }
}

fn stop_inner(inner: &Arc<Inner>) -> Result<(), Refusal> {
    // From here every entry point refuses: the flag is checked before the grant is used.
    inner.stop_requested.store(true, Ordering::SeqCst);
    // Stop ends a take-over too: nothing is left paused, waiting for a hand-back.
    inner.taken_over.store(false, Ordering::SeqCst);
    inner.display_dir.start_cooldown(inner.config.stop_cooldown).gated()?;
    let host = Host::over(inner.clone());
    let deadline = Instant::now() + STOP_WAIT;
    loop {
        match inner.state.try_lock() {
            Ok(mut state) => {
                host.revoke_locked(&mut state, "stopped by the user");
                return Ok(());
            }
            Err(std::sync::TryLockError::Poisoned(p)) => {
                host.revoke_locked(&mut p.into_inner(), "stopped by the user");
                return Ok(());
            }
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(2))
            }
            // A turn holds the state (a slow application call, or a prompt
            // the user has not answered): it sees the flag at its next
            // check and revokes the grant itself.
            Err(std::sync::TryLockError::WouldBlock) => return Ok(()),
        }
    }
}

fn control_command(inner: &Weak<Inner>, request: ControlRequest) -> ControlReply {
    let Some(inner) = inner.upgrade() else { return ControlReply::Gone };
    match request {
        ControlRequest::Stop => match stop_inner(&inner) {
            Ok(()) => ControlReply::Stopped,
            Err(refusal) => ControlReply::StopFailed { refusal },
        },
        ControlRequest::Status => {
            // A turn in flight (an open approval prompt, say) holds the
            // state; the answer then says so instead of waiting for it.
            let deadline = Instant::now() + Duration::from_millis(500);
            let host = Host::over(inner.clone());
            loop {
                match inner.state.try_lock() {
                    Ok(state) => {
                        return match state.grant.as_ref() {
                            Some(grant) => ControlReply::Grant { grant: host.view(grant) },
                            None => ControlReply::NoGrant,
                        }
                    }
                    Err(std::sync::TryLockError::Poisoned(_)) => {
                        return ControlReply::Busy { why: "the holder's last call failed".into() }
                    }
                    Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(std::sync::TryLockError::WouldBlock) => {
                        return ControlReply::Busy {
                            why: "a call is in flight (an approval prompt may be open)".into(),
                        }
                    }
                }
            }
        }
        ControlRequest::Indicator => {
            let host = Host::over(inner);
            host.indicator_url()
                .map_or(ControlReply::NoIndicator, |url| ControlReply::Indicator { url })
        }
    }
}
