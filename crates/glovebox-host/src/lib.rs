//! The gate of glovebox: the only component that can refuse.
//!
//! Every surface (CLI, MCP, the wire executors, the loop) calls a [`Host`];
//! none of them can widen a scope, raise a budget or skip a check. The host
//! owns the grant (scope, binding, revision, budget, idle expiry, origin),
//! runs the denials (self-target, secure input, deny list, elevated), keeps
//! the newest frame of each window and checks every action against it, and
//! writes the audit trail.
//!
//! ```no_run
//! # use glovebox_host::*;
//! # use glovebox_model::*;
//! # fn demo(host: &Host) -> Result<(), Refusal> {
//! // The first call without a grant creates an agent grant bound to the
//! // frontmost window no denial covers.
//! let seen = host.observe(None, false)?;
//! println!("{}", seen.tree.render_text());
//! // Act on an element of that frame; the result carries the next frame.
//! let submit = seen.tree.root.as_ref().unwrap().walk().find(|e| e.name == "Submit").unwrap().id;
//! let done = host.act(seen.frame.id, Action::Click { target: Target::Element(submit), button: Button::Left, count: 1 })?;
//! println!("delivered by {}; next frame {}", done.delivery.route, done.next?.frame.id);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

pub mod audit;
#[cfg(unix)]
pub mod control;
/// Without Unix sockets and `flock` there is no cross-process coordination
/// yet: every grant is refused on such platforms.
#[cfg(not(unix))]
#[path = "control_unsupported.rs"]
pub mod control;
pub mod denials;
pub mod frames;
pub mod process;
mod tools;

pub use tools::{BatchOutcome, OpenedApp, WaitOutcome, Zoomed};

use audit::{AuditLog, AuditRecord};
use control::{ControlServer, DisplayDir, DisplayLock};
use denials::{AncestorRule, Denials};
use frames::{FrameElement, FrameRecord, FrameStore};
use glovebox_model::{
    AccessibilityTree, Action, CaptureLimits, CaptureMode, DeliveryMode, Denial, ErrorCode, FrameId, GrantView, InputPolicy, Origin, Rect, Refusal, Scope,
    Size, Target, TreeBudget, WindowId, WindowInfo, WindowPage, WindowRef,
};
use glovebox_platform::{AccessibilitySource, Delivery, InputSink, ResolvedTarget, ScreenCapture, SecureInputProbe, WindowSource};
use process::ProcessTable;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// The platform pieces the host works through.
#[derive(Clone)]
pub struct Backends {
    pub windows: Arc<dyn WindowSource + Send + Sync>,
    pub capture: Arc<dyn ScreenCapture + Send + Sync>,
    pub accessibility: Arc<dyn AccessibilitySource + Send + Sync>,
    /// `None` where no input route exists yet: every input is then
    /// `COMPUTER_BACKGROUND_UNAVAILABLE` after all checks.
    pub input: Option<Arc<dyn InputSink + Send + Sync>>,
    pub secure_input: Arc<dyn SecureInputProbe + Send + Sync>,
    pub processes: Arc<dyn ProcessTable>,
    /// `None` where applications cannot be started: `open_app` is then refused.
    pub launcher: Option<Arc<dyn glovebox_platform::AppLauncher + Send + Sync>>,
}

impl Backends {
    /// Every backend from the fake desktop (tests of policy and loops).
    pub fn of_fake_desktop(desktop: Arc<glovebox_platform::fake::FakeDesktop>, processes: Arc<dyn ProcessTable>) -> Backends {
        Backends {
            windows: desktop.clone(),
            capture: desktop.clone(),
            accessibility: desktop.clone(),
            input: Some(desktop.clone()),
            secure_input: desktop,
            processes,
            launcher: None,
        }
    }
}

/// Settings of one host; see `glovebox-config` for where they come from.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The display the grant lock is per (e.g. `:0`).
    pub display: String,
    pub runtime_root: std::path::PathBuf,
    pub audit_path: std::path::PathBuf,
    pub budget: u32,
    pub idle_expiry: Duration,
    pub capture: CaptureMode,
    pub read_only: bool,
    pub deny: Vec<String>,
    pub ancestor_rule: AncestorRule,
    pub frame_ttl: Duration,
    pub stop_cooldown: Duration,
    pub tree_budget: TreeBudget,
    pub capture_limits: CaptureLimits,
    /// Calls may ask for foreground delivery (the real pointer and keyboard).
    pub allow_foreground: bool,
}

impl HostConfig {
    pub fn new(display: &str) -> HostConfig {
        HostConfig {
            display: display.to_owned(),
            runtime_root: DisplayDir::default_root(),
            audit_path: AuditLog::default_path(),
            budget: 50,
            idle_expiry: Duration::from_secs(15 * 60),
            capture: CaptureMode::A11yAndPixels,
            read_only: false,
            deny: vec![],
            ancestor_rule: AncestorRule::Ancestors,
            frame_ttl: Duration::from_secs(10 * 60),
            stop_cooldown: Duration::from_secs(30),
            tree_budget: TreeBudget::default(),
            capture_limits: CaptureLimits::default(),
            allow_foreground: false,
        }
    }
}

/// A window as the host lists it: with the reason it is denied, if it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListedWindow {
    #[serde(flatten)]
    pub window: WindowInfo,
    pub denial: Option<Denial>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListedPage {
    pub page: usize,
    pub pages: usize,
    pub total: usize,
    pub windows: Vec<ListedWindow>,
}

/// What an observation's coordinates and ids are valid against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FrameView {
    pub id: FrameId,
    pub window: WindowId,
    pub revision: u64,
    pub geometry: Rect,
    /// The pixel space of point targets: the screenshot's size, or the
    /// window's own size without one.
    pub image: Size,
    pub scale: f64,
    pub expires_in_secs: u64,
}

/// One observation of the bound window.
#[derive(Debug, Clone)]
pub struct Observation {
    pub frame: FrameView,
    pub tree: AccessibilityTree,
    /// PNG bytes, when the grant allows pixels and they were asked for.
    pub screenshot: Option<Vec<u8>>,
    pub grant: GrantView,
}

/// What this host can do for its callers, stated before they ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostCapabilities {
    /// An input route exists; without one every input ends in
    /// `COMPUTER_BACKGROUND_UNAVAILABLE` after the host's checks.
    pub input: bool,
    /// Grants created here may include screenshots.
    pub pixels: bool,
    pub read_only: bool,
}

/// The result of a delivered action.
#[derive(Debug, Clone)]
pub struct ActOutcome {
    pub delivery: Delivery,
    /// The next observation of the bound window. An action that was
    /// delivered stays delivered even when this fails (a menu it opened may
    /// hold the keyboard, say); the refusal then says why there is no frame.
    pub next: Result<Observation, Refusal>,
    /// Set when this action used the last of the budget and closed the grant.
    pub grant_closed: Option<ErrorCode>,
}

struct Grant {
    id: String,
    scope: Scope,
    origin: Origin,
    target: Option<WindowInfo>,
    no_target_reason: Option<String>,
    revision: u64,
    capture: CaptureMode,
    budget_left: u32,
    last_used: Instant,
    _lock: DisplayLock,
    _control: Option<ControlServer>,
}

struct State {
    grant: Option<Grant>,
    /// Why the last grant closed, when that blocks agent grants (budget, expiry).
    closed: Option<(ErrorCode, String)>,
    frames: FrameStore,
    next_grant: u64,
}

struct Inner {
    backends: Backends,
    config: HostConfig,
    denials: Denials,
    display_dir: DisplayDir,
    audit: AuditLog,
    state: Mutex<State>,
    /// Set by Stop: the turn in flight gives up at its next checkpoint.
    stop_requested: AtomicBool,
}

/// The gate. Cheap to clone; clones share one state.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

fn refuse(code: ErrorCode, message: impl Into<String>) -> Refusal {
    Refusal::new(code, message)
}

impl Host {
    pub fn open(backends: Backends, config: HostConfig) -> Result<Host, Refusal> {
        let denials = Denials::new(&*backends.processes, std::process::id(), process::current_uid(), config.ancestor_rule, &config.deny);
        let display_dir = DisplayDir::new(&config.runtime_root, &config.display)?;
        let audit = AuditLog::new(config.audit_path.clone());
        let state = State { grant: None, closed: None, frames: FrameStore::default(), next_grant: 1 };
        Ok(Host {
            inner: Arc::new(Inner { backends, config, denials, display_dir, audit, state: Mutex::new(state), stop_requested: AtomicBool::new(false) }),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn audit(&self, record: AuditRecord) {
        if let Err(e) = self.inner.audit.append(&record) {
            eprintln!("glovebox: audit write to {} failed: {e}", self.inner.audit.path().display());
        }
    }

    fn grant_record(&self, event: &str, grant: &Grant) -> AuditRecord {
        let mut record = AuditRecord::new(event);
        record.grant_id = Some(grant.id.clone());
        record.scope = Some(grant.scope);
        record.origin = Some(grant.origin);
        record.target = grant.target.as_ref().map(|w| w.id);
        record.app = grant.target.as_ref().map(|w| w.app.clone());
        record
    }

    /// Records a refusal in the audit trail and hands it back.
    fn refused(&self, state: &State, action: Option<&Action>, refusal: Refusal) -> Refusal {
        let mut record = match &state.grant {
            Some(grant) => self.grant_record("refusal", grant),
            None => AuditRecord::new("refusal"),
        };
        record.action = action.map(|a| a.kind().to_owned());
        record.text_length = action.and_then(Action::text_length);
        record.code = Some(refusal.code);
        record.detail = Some(refusal.message.clone());
        self.audit(record);
        refusal
    }

    /// The denial that covers `window` now, static rules first.
    fn denial_of(&self, window: &WindowInfo) -> Option<Denial> {
        self.inner.denials.check(&*self.inner.backends.processes, window)
    }

    /// Refuses a window no grant may target (self-target, deny list,
    /// elevated), or any capture while secure input is active, for surfaces
    /// that read a window outside a grant (`glovebox screenshot`, `inspect`).
    pub fn check_readable(&self, window: Option<&WindowInfo>) -> Result<(), Refusal> {
        let checked = (|| {
            if let Some(d) = window.and_then(|w| self.denial_of(w)) {
                return Err(refuse(d.code(), d.sentence()));
            }
            if self.inner.backends.secure_input.keyboard_grabbed()? {
                return Err(refuse(ErrorCode::SecureInput, "another client holds the keyboard (a password or authentication prompt); nothing is captured until it lets go"));
            }
            Ok(())
        })();
        checked.map_err(|e| self.refused(&self.state(), None, e))
    }

    pub fn capabilities(&self) -> HostCapabilities {
        HostCapabilities {
            input: self.inner.backends.input.is_some() && !self.inner.config.read_only,
            pixels: self.inner.config.capture == CaptureMode::A11yAndPixels,
            read_only: self.inner.config.read_only,
        }
    }

    /// Every window, frontmost first, with the reason each denied one is denied.
    pub fn list_windows(&self, query: Option<&str>, page: usize) -> Result<ListedPage, Refusal> {
        let windows = self.inner.backends.windows.list_windows()?;
        let page = WindowPage::paginate(windows, query, page)?;
        Ok(ListedPage {
            page: page.page,
            pages: page.pages,
            total: page.total,
            windows: page.windows.into_iter().map(|w| ListedWindow { denial: self.denial_of(&w), window: w }).collect(),
        })
    }

    /// The frontmost window no denial covers, or why there is none.
    fn frontmost_allowed(&self) -> Result<Result<WindowInfo, String>, Refusal> {
        let windows = self.inner.backends.windows.list_windows()?;
        let mut reasons = vec![];
        for w in windows.into_iter().filter(|w| !w.minimized) {
            match self.denial_of(&w) {
                None => return Ok(Ok(w)),
                Some(d) => reasons.push(format!("{} ({}): {}", w.id, w.app, d.sentence())),
            }
        }
        Ok(Err(if reasons.is_empty() { "there are no windows".into() } else { format!("every window is denied: {}", reasons.join("; ")) }))
    }

    fn view(&self, grant: &Grant) -> GrantView {
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

    /// The active grant, if any.
    pub fn grant_status(&self) -> Option<GrantView> {
        let mut state = self.state();
        self.expire_if_idle(&mut state);
        state.grant.as_ref().map(|g| self.view(g))
    }

    /// Creates a grant. A user grant clears the Stop cooldown and any
    /// budget/expiry block; an agent grant is refused during them.
    pub fn create_grant(&self, origin: Origin, scope: Scope, window: Option<&WindowRef>) -> Result<GrantView, Refusal> {
        let mut state = self.state();
        self.create_grant_locked(&mut state, origin, scope, window).map(|()| self.view(state.grant.as_ref().expect("created")))
    }

    fn create_grant_locked(&self, state: &mut State, origin: Origin, scope: Scope, window: Option<&WindowRef>) -> Result<(), Refusal> {
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
                    return Err(refuse(
                        ErrorCode::StoppedByUser,
                        format!("the user pressed Stop; agent grants are refused for {} more second(s)", left.as_secs() + 1),
                    ));
                }
                if let Some((code, why)) = &state.closed {
                    return Err(refuse(*code, format!("{why}; the user must create a new grant (`glovebox grant`)")));
                }
            }
        }
        let target = match window {
            Some(reference) => {
                let w = self.inner.backends.windows.find_window(reference)?;
                if let Some(d) = self.denial_of(&w) {
                    return Err(refuse(d.code(), d.sentence()));
                }
                Ok(w)
            }
            None if scope == Scope::Window => return Err(Refusal::invalid_argument("a window-scoped grant needs a window")),
            None => self.frontmost_allowed()?,
        };
        let lock = self.inner.display_dir.lock()?;
        let weak = Arc::downgrade(&self.inner);
        let control = self.inner.display_dir.serve(move |command| control_command(&weak, command)).ok();
        let id = format!("g{}-{}", std::process::id(), state.next_grant);
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
            _lock: lock,
            _control: control,
        };
        self.inner.stop_requested.store(false, Ordering::SeqCst);
        self.audit(self.grant_record("grant-created", &grant));
        state.frames.clear();
        state.grant = Some(grant);
        Ok(())
    }

    fn revoke_locked(&self, state: &mut State, why: &str) {
        if let Some(grant) = state.grant.take() {
            let mut record = self.grant_record("grant-revoked", &grant);
            record.detail = Some(why.to_owned());
            self.audit(record);
        }
        state.frames.clear();
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
    pub fn stop_display(runtime_root: &std::path::Path, display: &str, cooldown: Duration) -> Result<String, Refusal> {
        let dir = DisplayDir::new(runtime_root, display)?;
        dir.start_cooldown(cooldown)?;
        match dir.send("stop") {
            Ok(reply) => Ok(reply),
            Err(e) if e.code == ErrorCode::NoGrant => Ok("no grant was active; agent grants are refused for the cooldown".into()),
            Err(e) => Err(e),
        }
    }

    /// The grant of this display as its holder reports it (another process).
    pub fn remote_status(runtime_root: &std::path::Path, display: &str) -> Result<String, Refusal> {
        DisplayDir::new(runtime_root, display)?.send("status")
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
        let why = format!("the grant expired after {} s idle", self.inner.config.idle_expiry.as_secs());
        state.closed = Some((ErrorCode::GrantExpired, why.clone()));
        Some(refuse(ErrorCode::GrantExpired, why))
    }

    /// The grant for this call: the active one (touched), or a new agent
    /// grant when there is none and `create` allows it.
    fn ensure_grant(&self, state: &mut State, create: bool) -> Result<(), Refusal> {
        // After Stop nothing uses a grant; only a new one (a user grant, or
        // an agent grant once the cooldown is over) clears the flag.
        if self.inner.stop_requested.load(Ordering::SeqCst) && (state.grant.is_some() || !create) {
            self.revoke_locked(state, "stopped by the user");
            return Err(refuse(ErrorCode::StoppedByUser, "the user pressed Stop; the grant is revoked"));
        }
        if let Some(expired) = self.expire_if_idle(state) {
            return Err(expired);
        }
        if state.grant.is_none() {
            if !create {
                return Err(refuse(ErrorCode::NoGrant, "there is no active grant; observe first"));
            }
            self.create_grant_locked(state, Origin::Agent, Scope::Desktop, None)?;
        }
        if let Some(g) = state.grant.as_mut() {
            g.last_used = Instant::now();
        }
        Ok(())
    }

    /// Binds the grant to `window` after re-running every denial on a fresh
    /// enumeration; always bumps the revision and ends every frame.
    fn bind(&self, state: &mut State, window: Option<WindowInfo>, no_target_reason: Option<String>) {
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
    fn current_target(&self, state: &mut State) -> Result<WindowInfo, Refusal> {
        let grant = state.grant.as_ref().expect("checked");
        let Some(target) = grant.target.clone() else {
            // Windows may have appeared or been allowed since the grant lost its target.
            return match self.frontmost_allowed()? {
                Ok(w) => {
                    self.bind(state, Some(w.clone()), None);
                    Ok(w)
                }
                Err(reason) => Err(refuse(ErrorCode::TargetGone, format!("the grant has no target: {reason}"))),
            };
        };
        match self.inner.backends.windows.find_window(&WindowRef::Id(target.id)) {
            Ok(now) => Ok(now),
            Err(e) if e.code == ErrorCode::TargetGone => {
                if grant.scope == Scope::Window {
                    self.revoke_locked(state, "the bound window closed");
                    return Err(refuse(ErrorCode::TargetGone, format!("window {} closed; its window-scoped grant is revoked", target.id)));
                }
                match self.frontmost_allowed()? {
                    Ok(w) => self.bind(state, Some(w), None),
                    Err(reason) => self.bind(state, None, Some(reason)),
                }
                Err(refuse(ErrorCode::StaleRevision, format!("window {} closed; the grant moved on (observe again)", target.id)))
            }
            Err(e) => Err(e),
        }
    }

    /// Observes the bound window (binding or rebinding first when `window`
    /// names one): its accessibility tree, and a screenshot when asked and
    /// allowed. The result is the window's newest frame.
    pub fn observe(&self, window: Option<&WindowRef>, screenshot: bool) -> Result<Observation, Refusal> {
        let mut state = self.state();
        let limits = self.inner.config.capture_limits;
        self.observe_locked(&mut state, window, screenshot, limits).map_err(|e| self.refused(&state, None, e))
    }

    /// [`Host::observe`] with a screenshot scaled down (never up) to fit
    /// `limits` instead of the configured capture limits, keeping its
    /// aspect ratio. The frame's `image` is that scaled size, so point
    /// targets in the returned PNG's pixels map back exactly, per axis.
    /// For surfaces whose client declares its own display size (the
    /// Anthropic computer tool).
    pub fn observe_fitted(&self, window: Option<&WindowRef>, limits: CaptureLimits) -> Result<Observation, Refusal> {
        let mut state = self.state();
        let result = CaptureLimits::new(limits.max_width, limits.max_height).and_then(|limits| self.observe_locked(&mut state, window, true, limits));
        result.map_err(|e| self.refused(&state, None, e))
    }

    fn observe_locked(&self, state: &mut State, window: Option<&WindowRef>, screenshot: bool, limits: CaptureLimits) -> Result<Observation, Refusal> {
        self.ensure_grant(state, true)?;
        if let Some(reference) = window {
            let named = self.inner.backends.windows.find_window(reference)?;
            let grant = state.grant.as_ref().expect("ensured");
            if grant.target.as_ref().map(|t| t.id) != Some(named.id) {
                if grant.scope == Scope::Window {
                    return Err(refuse(ErrorCode::ScopeViolation, "this grant is pinned to one window; it cannot move to another"));
                }
                if let Some(d) = self.denial_of(&named) {
                    return Err(refuse(d.code(), d.sentence()));
                }
                self.bind(state, Some(named), None);
            }
        }
        let target = self.current_target(state)?;
        if let Some(d) = self.denial_of(&target) {
            return Err(refuse(d.code(), d.sentence()));
        }
        self.observe_target_fitted(state, &target, screenshot, limits)
    }

    fn observe_target(&self, state: &mut State, target: &WindowInfo, screenshot: bool) -> Result<Observation, Refusal> {
        self.observe_target_fitted(state, target, screenshot, self.inner.config.capture_limits)
    }

    fn observe_target_fitted(&self, state: &mut State, target: &WindowInfo, screenshot: bool, limits: CaptureLimits) -> Result<Observation, Refusal> {
        let b = &self.inner.backends;
        if b.secure_input.keyboard_grabbed()? {
            return Err(refuse(ErrorCode::SecureInput, "another client holds the keyboard (a password or authentication prompt); nothing is captured until it lets go"));
        }
        let tree = b.accessibility.inspect(target, self.inner.config.tree_budget)?;
        let grant = state.grant.as_ref().expect("ensured");
        let pixels_allowed = grant.capture == CaptureMode::A11yAndPixels;
        let capture = if screenshot && pixels_allowed {
            if tree.focused_password {
                return Err(refuse(ErrorCode::SecureInput, "a password field has focus: no screenshot is taken while it does"));
            }
            // Full resolution is kept for zoom; the caller gets it scaled to the limits.
            let native = CaptureLimits::new(glovebox_model::frame::MAX_IMAGE_EDGE, glovebox_model::frame::MAX_IMAGE_EDGE)?;
            Some(b.capture.capture_window(&WindowRef::Id(target.id), native)?)
        } else if screenshot {
            return Err(refuse(ErrorCode::ScopeViolation, "this grant allows the accessibility tree only, not pixels"));
        } else {
            None
        };
        let (geometry, image) = match &capture {
            Some(c) => (c.frame.native_rect(), limits.fit(c.image.size())),
            None => (target.geometry, target.geometry.size()),
        };
        let id = glovebox_platform::next_frame_id();
        let elements: std::collections::HashMap<_, _> = tree.root.iter().flat_map(|r| r.walk()).map(|e| (e.id, FrameElement::of(e, geometry))).collect();
        let hit_order = tree.root.iter().flat_map(|r| r.walk()).filter(|e| elements[&e.id].visible.is_some()).map(|e| e.id).collect();
        let no_tree = tree.root.is_none();
        let pixels = capture.map(|c| Arc::new(c.image));
        let record = FrameRecord { id, window: target.id, revision: grant.revision, geometry, image, elements, hit_order, no_tree, pixels: pixels.clone(), created: Instant::now() };
        let frame = FrameView {
            id,
            window: target.id,
            revision: grant.revision,
            geometry,
            image,
            scale: image.width as f64 / geometry.width.max(1) as f64,
            expires_in_secs: self.inner.config.frame_ttl.as_secs(),
        };
        state.frames.insert(record);
        let png = pixels.map(|p| p.as_ref().clone().downscale(image).encode_png()).transpose()?;
        let mut audit = self.grant_record("observe", grant);
        audit.detail = Some(format!("frame {id}, {} elements{}", tree.node_count, if png.is_some() { ", screenshot" } else { "" }));
        self.audit(audit);
        Ok(Observation { frame, tree, screenshot: png, grant: self.view(grant) })
    }

    /// Checks `action` against frame `frame` and the live window, then
    /// delivers it. Nothing reaches the window unless every check passed.
    pub fn act(&self, frame: FrameId, action: Action) -> Result<ActOutcome, Refusal> {
        self.act_with(frame, action, DeliveryMode::Background)
    }

    /// [`Host::act`] with an explicit delivery mode; foreground delivery
    /// only when the configuration allows it.
    pub fn act_with(&self, frame: FrameId, action: Action, mode: DeliveryMode) -> Result<ActOutcome, Refusal> {
        let mut state = self.state();
        let result = self.act_locked(&mut state, frame, &action, mode, true);
        result.map_err(|e| self.refused(&state, Some(&action), e))
    }

    /// [`Host::act_with`] without the follow-up observation, for callers
    /// that observe on their own schedule. The frame still ends.
    pub fn act_unobserved(&self, frame: FrameId, action: Action, mode: DeliveryMode) -> Result<Delivery, Refusal> {
        let mut state = self.state();
        let result = self.act_locked(&mut state, frame, &action, mode, false);
        result.map(|outcome| outcome.delivery).map_err(|e| self.refused(&state, Some(&action), e))
    }

    fn act_locked(&self, state: &mut State, frame_id: FrameId, action: &Action, mode: DeliveryMode, observe_after: bool) -> Result<ActOutcome, Refusal> {
        if self.inner.config.read_only {
            return Err(refuse(ErrorCode::ReadOnly, "glovebox runs read-only: no input is delivered"));
        }
        action.validate()?;
        if mode == DeliveryMode::Foreground && !self.inner.config.allow_foreground {
            return Err(refuse(
                ErrorCode::ApprovalDenied,
                "foreground delivery (the user's real pointer and keyboard) is off in the configuration; `glovebox config set input.foreground true` allows calls to ask for it",
            ));
        }
        self.ensure_grant(state, false)?;
        let grant = state.grant.as_ref().expect("ensured");
        if grant.budget_left == 0 {
            return Err(refuse(ErrorCode::BudgetExhausted, "the grant has no input actions left"));
        }
        let Some(frame) = state.frames.get(frame_id).cloned() else {
            return Err(refuse(ErrorCode::StaleRef, format!("frame {frame_id} is not the newest frame of the bound window (an input ended it, or it never existed); observe again and use the new ids")));
        };
        if frame.revision != grant.revision || grant.target.as_ref().map(|t| t.id) != Some(frame.window) {
            return Err(refuse(ErrorCode::StaleRevision, "the grant was rebound after this frame; observe again"));
        }
        if frame.created.elapsed() > self.inner.config.frame_ttl {
            state.frames.end(frame_id);
            return Err(refuse(ErrorCode::StaleRef, format!("frame {frame_id} expired after {} s; observe again", self.inner.config.frame_ttl.as_secs())));
        }
        let window = self.current_target(state)?;
        if window.geometry != frame.geometry || window.minimized {
            return Err(refuse(
                ErrorCode::StaleBasis,
                format!("window {} moved, resized or was minimised since frame {frame_id} ({:?} then, {:?} now); observe again", window.id, frame.geometry, window.geometry),
            ));
        }
        let mut targets = vec![];
        let mut element_role = None;
        for target in action.targets() {
            targets.push(match target {
                Target::Element(id) => match frame.elements.get(&id) {
                    Some(element) => {
                        element_role.get_or_insert(element.role.clone());
                        ResolvedTarget::Element { id, center: element.center }
                    }
                    None if frame.no_tree => {
                        return Err(refuse(ErrorCode::ElementNotFound, format!("window {} exposes no accessibility tree, so it has no element {id}; point at image pixels instead", frame.window)))
                    }
                    None => return Err(refuse(ErrorCode::StaleRef, format!("{id} is not in frame {frame_id}; observe again and use the new ids"))),
                },
                Target::Point(p) => {
                    let at = frame.to_global(p)?;
                    ResolvedTarget::Global { at, under: frame.element_at(at) }
                }
            });
        }
        if matches!(action, Action::SetValue { .. }) && element_role.as_deref() == Some("password text") {
            return Err(refuse(ErrorCode::SecureInput, "glovebox never writes into password fields"));
        }
        // Immediately before synthesis: the absolute denials, again.
        if let Some(d) = self.denial_of(&window) {
            return Err(refuse(d.code(), d.sentence()));
        }
        let b = &self.inner.backends;
        if b.secure_input.keyboard_grabbed()? {
            return Err(refuse(ErrorCode::SecureInput, "another client holds the keyboard (a password or authentication prompt)"));
        }
        if b.secure_input.focused_password(&window)? {
            return Err(refuse(ErrorCode::SecureInput, "a password field has focus: glovebox types nothing while it does"));
        }
        if self.inner.stop_requested.load(Ordering::SeqCst) {
            return Err(refuse(ErrorCode::StoppedByUser, "the user pressed Stop"));
        }
        let Some(input) = &b.input else {
            return Err(refuse(ErrorCode::BackgroundUnavailable, "this platform has no background input route yet"));
        };
        let delivery = input.deliver(&window, action, &targets, mode)?;
        // Any input ends the frame; the budget pays for it.
        state.frames.end(frame_id);
        let grant = state.grant.as_mut().expect("ensured");
        grant.budget_left -= 1;
        let mut record = self.grant_record("action", state.grant.as_ref().expect("ensured"));
        record.action = Some(action.kind().to_owned());
        record.text_length = action.text_length();
        record.element_role = element_role;
        record.element_id = action.targets().iter().find_map(|t| match t {
            Target::Element(id) => Some(id.to_string()),
            Target::Point(_) => None,
        });
        record.detail = Some(format!("delivered by {}", delivery.route));
        self.audit(record);
        let next = if observe_after {
            self.observe_target(state, &window, false)
        } else {
            Err(refuse(ErrorCode::StaleRef, "no observation was asked for after this action; observe for the next frame"))
        };
        let mut grant_closed = None;
        if state.grant.as_ref().is_some_and(|g| g.budget_left == 0) {
            let why = "the grant used its whole action budget".to_owned();
            self.revoke_locked(state, &why);
            state.closed = Some((ErrorCode::BudgetExhausted, why));
            grant_closed = Some(ErrorCode::BudgetExhausted);
        }
        Ok(ActOutcome { delivery, next, grant_closed })
    }
}

/// How long Stop waits for a turn in flight to let go of the state before
/// it answers anyway; the turn then revokes the grant at its next check.
const STOP_WAIT: Duration = Duration::from_millis(50);

fn stop_inner(inner: &Arc<Inner>) -> Result<(), Refusal> {
    // From here every entry point refuses: the flag is checked before the grant is used.
    inner.stop_requested.store(true, Ordering::SeqCst);
    inner.display_dir.start_cooldown(inner.config.stop_cooldown)?;
    let host = Host { inner: inner.clone() };
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
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            // A turn holds the state (a slow application call): it sees the
            // flag at its next check and revokes the grant itself.
            Err(std::sync::TryLockError::WouldBlock) => return Ok(()),
        }
    }
}

fn control_command(inner: &Weak<Inner>, command: &str) -> String {
    let Some(inner) = inner.upgrade() else { return "gone".into() };
    match command {
        "stop" => match stop_inner(&inner) {
            Ok(()) => "stopped".into(),
            Err(e) => format!("error {e}"),
        },
        "status" => {
            let host = Host { inner };
            match host.grant_status() {
                Some(view) => serde_json::to_string(&view).unwrap_or_default(),
                None => "no grant".into(),
            }
        }
        other => format!("unknown command {other:?}"),
    }
}
