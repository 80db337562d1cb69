//! The gate of glovebox: the only component that decides and refuses.
//!
//! Every surface (CLI, MCP, the wire executors, the loop) calls a [`Host`];
//! none of them can widen a scope, raise a budget or skip a check. The host
//! owns whether computer use is on at all, read-only mode, the approval
//! classes and consequential escalation ([`approval`]), the grant (scope,
//! binding, revision, budget, idle expiry, origin; `grant.rs`), the denials
//! (self-target, secure input, deny list, elevated), the newest frame of
//! each window and every action's check against it, and the audit trail.
//! A surface hands the host only its way to reach the person ([`Host::with_channel`]).
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
//! let done = host.act(seen.frame.id, Action::Click { target: Target::Element(submit), button: Button::Left, count: 1, modifiers: vec![] })?;
//! println!("delivered by {}; next frame {}", done.delivery.route, done.next?.frame.id);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs, unreachable_pub)]

mod act;
pub mod approval;
mod ask;
mod backend;
mod decide;
pub mod deferred;
pub mod denials;
mod frames;
mod grant;
mod observe;
pub mod person;
pub mod presence;
pub mod process;
mod read;
mod seen;
mod takeover;
mod tools;

pub use act::Span;
/// The refusals a surface answers with where it holds the fact (its newest
/// frame, its model's coordinates, a provider's safety check): decided in
/// the gate like every other, so no surface writes a code or a sentence.
pub mod refusals {
    pub use crate::decide::relayed::*;
}
pub use approval::describe_action;
pub use approval::CallKey;
pub use approval::{ApprovalRequest, Approvals, ShownBecause, Subject, Typed};
pub use ask::Answered;
pub use backend::{refusal_of, refusal_of_control};
#[cfg(unix)]
pub use backend::{refusal_of_lost_call, refusal_of_warm};
pub use decide::approval_class;
pub use deferred::{DeferredCall, Pending, PendingQuestion, Retry};
pub use glovebox_platform::marks::PlacedMark;
pub use glovebox_platform::{Backends, Receipt, Settled};
pub use person::{
    approving, Answer, AnsweredOutOfBand, NoPrompt, PersonChannel, Request, Shown,
    StatedAcknowledgements, Wants,
};
pub use tools::{BatchOutcome, Opened, OpenedApp, WaitOutcome, Zoomed};

use crate::backend::Gated;
use approval::Standing;
use denials::{AncestorRule, Denials};
use glovebox_model::{
    AccessibilityTree, Action, ApprovalClass, CaptureLimits, CaptureMode, DeliveryMode, Denial,
    ErrorCode, FrameId, GrantView, Policy, Rect, Refusal, Size, TokenBudget, TreeBudget, TreeDiff,
    WindowId, WindowInfo, WindowPage,
};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::Delivery;
use glovebox_services::audit::{AuditLog, AuditRecord};
use glovebox_services::control::DisplayDir;
use grant::State;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// A desktop other hosts may be opened over ([`Host::persons_desktop`]);
/// what it holds is reached only through the hosts it opens.
#[derive(Clone)]
pub struct PersonsDesktop {
    backends: Backends,
}

impl PersonsDesktop {
    /// A host over this desktop with `config`.
    pub fn open(&self, config: HostConfig) -> Result<Host, Refusal> {
        Host::open(self.backends.clone(), config)
    }
}

/// Settings of one host; see `glovebox-config` for where they come from.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Computer use is on; off, every call answers `COMPUTER_DISABLED`.
    pub enabled: bool,
    /// The display the grant lock is per (e.g. `:0`).
    pub display: String,
    /// The glovebox process this host acts as: its windows and its
    /// ancestors are the self-target, its pid signs the audit records and
    /// the grant ids. This process; in a warm host, the CLI whose call it
    /// carries out ([`warm`]).
    pub acting_pid: u32,
    /// Where each display's lock, Stop cooldown and control socket live
    /// ([`DisplayDir::default_root`] by default).
    pub runtime_root: std::path::PathBuf,
    /// The audit trail's JSON lines file ([`AuditLog::default_path`]).
    pub audit_path: std::path::PathBuf,
    /// Input actions a new grant may deliver before it closes (starting an
    /// application counts as one).
    pub budget: u32,
    /// A grant unused this long expires.
    pub idle_expiry: Duration,
    /// Whether grants may include pixels; forced to accessibility-only
    /// when the desktop's pixels cannot be read.
    pub capture: CaptureMode,
    /// No input is delivered at all; observation still works.
    pub read_only: bool,
    /// Deny-list entries added to the system's credential software
    /// ([`glovebox_platform::ProtectedPrograms`]), matched against
    /// a window's application, instance and executable names; `*` matches
    /// any run of characters, case is ignored.
    pub deny: Vec<String>,
    /// Which of the processes that launched glovebox count as glovebox
    /// itself (self-target).
    pub ancestor_rule: AncestorRule,
    /// A frame older than this is stale: its ids and points are refused.
    pub frame_ttl: Duration,
    /// After Stop, agent grants are refused on this display for this long.
    pub stop_cooldown: Duration,
    /// Limits of each accessibility tree read.
    pub tree_budget: TreeBudget,
    /// The largest screenshot an observation returns, unless it asks for a
    /// smaller fit.
    pub capture_limits: CaptureLimits,
    /// Calls may ask for foreground delivery (the real pointer and keyboard).
    pub allow_foreground: bool,
    /// `open_url` may open addresses other than http and https (`file:`…).
    pub allow_local_urls: bool,
    /// An input's result carries the new screenshot when pixels are allowed.
    pub screenshot_after_input: bool,
    /// The default bound on an observation's text tree, for surfaces.
    pub text_budget: TokenBudget,
    /// The policy of each approval class and what escalates a call to
    /// consequential.
    pub approvals: Approvals,
    /// How long a question asked across calls waits for its answer.
    pub answer_wait: Duration,
    /// Whether each grant's delivered actions are recorded for replay.
    pub recording: Recording,
    /// Guidance per application, the user's entries before the shipped ones; an observation
    /// carries the first that fits its window, once per grant and window.
    pub guidance: Vec<glovebox_model::GuidanceEntry>,
}

/// Whether, and where, delivered actions are recorded ([`recording`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Recording {
    /// Nothing is recorded.
    #[default]
    Off,
    /// One file per grant in `dir`, typed text kept as `text` says.
    On {
        /// The directory of the recordings ([`recording::default_dir`]).
        dir: std::path::PathBuf,
        /// Whether typed text is kept or only its length.
        text: glovebox_model::TextRecording,
    },
}

impl HostConfig {
    /// The careful defaults: on (an embedder that builds a host means to use
    /// it), observation allowed, input and foreground asking first.
    pub fn new(display: &str) -> HostConfig {
        HostConfig {
            enabled: true,
            display: display.to_owned(),
            acting_pid: std::process::id(),
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
            allow_local_urls: false,
            screenshot_after_input: false,
            text_budget: TokenBudget::new(8_000).expect("in range"),
            approvals: Approvals::new(
                glovebox_model::ApprovalMode::Write,
                [Policy::Allow, Policy::Prompt, Policy::Prompt],
                &[],
            ),
            answer_wait: deferred::DEFAULT_ANSWER_WAIT,
            recording: Recording::Off,
            guidance: vec![],
        }
    }

    /// Refuses when computer use is off, before any backend is opened.
    pub fn check_enabled(&self) -> Result<(), Refusal> {
        match self.enabled {
            true => Ok(()),
            false => Err(decide::lifecycle::disabled()),
        }
    }
}

/// A window as the host lists it: with the reason it is denied, if it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListedWindow {
    /// The window as the backend lists it.
    #[serde(flatten)]
    pub window: WindowInfo,
    /// Why it may not be a target; `None` when it may.
    pub denial: Option<Denial>,
}

/// One page of the host's window listing, frontmost window first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListedPage {
    /// This page's number, from 1.
    pub page: usize,
    /// How many pages the matching windows fill.
    pub pages: usize,
    /// Windows matching the query on all pages.
    pub total: usize,
    /// This page's windows.
    pub windows: Vec<ListedWindow>,
}

/// What an observation's coordinates and ids are valid against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FrameView {
    /// The frame's id: an action names it to use this frame's element ids
    /// and points.
    pub id: FrameId,
    /// The window the frame shows (the grant's bound window).
    pub window: WindowId,
    /// The grant revision it was taken in; a new revision makes it stale.
    pub revision: u64,
    /// The window's client area as measured for this frame (root coordinates).
    pub geometry: Rect,
    /// The pixel space of point targets: the screenshot's size, or the
    /// window's own size without one.
    pub image: Size,
    /// Image pixels per native pixel (1.0 when not scaled down).
    pub scale: f64,
    /// Seconds the frame stays usable from when it was taken (the
    /// configured frame lifetime); after that it is stale.
    pub expires_in_secs: u64,
    /// Parts of the window (root coordinates) that other windows covered:
    /// they are black in the screenshot, never the other window's pixels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub occluded: Vec<Rect>,
}

impl FrameView {
    /// Where it showed its window, as the refusals of a surface's basis compare it.
    pub fn layout(&self) -> refusals::Layout {
        refusals::Layout { window: self.window, geometry: self.geometry, image: self.image }
    }
}

/// One observation of the bound window.
#[derive(Debug, Clone)]
pub struct Observation {
    /// What the ids and coordinates below are valid against.
    pub frame: FrameView,
    /// The window's accessibility tree, read for this frame.
    pub tree: AccessibilityTree,
    /// PNG bytes, when the grant allows pixels and they were asked for.
    pub screenshot: Option<Vec<u8>>,
    /// The element ids drawn on the screenshot, where they were drawn (its pixels).
    pub marks: Vec<glovebox_platform::marks::PlacedMark>,
    /// The grant as it stands after this observation.
    pub grant: GrantView,
}

/// What an observation is asked to return besides the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ObserveRequest {
    /// A screenshot, where the grant allows pixels.
    pub screenshot: bool,
    /// Actionable elements' ids drawn on the screenshot.
    pub marks: bool,
    /// The screenshot scaled down (never up) to fit these limits instead
    /// of the configured ones, keeping its aspect ratio; the frame's image
    /// is that size, so points map through it.
    pub fit: Option<CaptureLimits>,
}

/// One input asked of the host: [`Host::perform`] carries it out.
#[derive(Debug, Clone)]
pub struct ActRequest {
    /// The frame whose ids and coordinates the action uses.
    pub frame: FrameId,
    /// What to do.
    pub action: Action,
    /// Background, or foreground where the configuration allows it.
    pub mode: DeliveryMode,
    /// What to look at once it is delivered.
    pub look: LookAfter,
}

impl ActRequest {
    /// `action` on `frame`, in the background, looked at as configured.
    pub fn new(frame: FrameId, action: Action) -> ActRequest {
        ActRequest { frame, action, mode: DeliveryMode::Background, look: LookAfter::AsConfigured }
    }

    /// This request delivered in `mode`.
    pub fn mode(self, mode: DeliveryMode) -> ActRequest {
        ActRequest { mode, ..self }
    }

    /// This request followed by `look`.
    pub fn look(self, look: LookAfter) -> ActRequest {
        ActRequest { look, ..self }
    }
}

/// What the host looks at once an input is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookAfter {
    /// The tree, with a screenshot when the configuration asks for one
    /// after every input.
    AsConfigured,
    /// The tree, with a screenshot when `screenshot` and the grant holds
    /// pixels.
    Tree {
        /// Whether a screenshot is asked for.
        screenshot: bool,
    },
    /// Nothing: the caller observes on its own schedule.
    Nothing,
}

/// What this host can do for its callers, stated before they ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostCapabilities {
    /// An input route exists; without one every input ends in
    /// `COMPUTER_BACKGROUND_UNAVAILABLE` after the host's checks.
    pub input: bool,
    /// Grants created here may include screenshots.
    pub pixels: bool,
    /// No input is delivered: the host runs read-only, or this handle is
    /// observe-only.
    pub read_only: bool,
}

/// The result of a delivered action.
#[derive(Debug, Clone)]
pub struct ActOutcome {
    /// The route that carried the input and what the application said of it.
    pub delivery: Delivery,
    /// The next observation of the bound window. An action that was
    /// delivered stays delivered even when this fails (a menu it opened may
    /// hold the keyboard, say); the refusal then says why there is no frame.
    pub next: Result<Observation, Refusal>,
    /// What changed from the frame the action was made on to `next`.
    pub changes: Option<TreeDiff>,
    /// Set when this action used the last of the budget and closed the grant.
    pub grant_closed: Option<ErrorCode>,
    /// What the application's events said before `next` was taken
    /// ([`Settled::Unwatched`] when no result was asked for).
    pub settled: Settled,
}

struct Inner {
    backends: Backends,
    config: HostConfig,
    denials: Denials,
    display_dir: DisplayDir,
    audit: AuditLog,
    state: Mutex<State>,
    presence: Mutex<presence::PresenceState>,
    /// Set by Stop: the turn in flight gives up at its next checkpoint.
    stop_requested: AtomicBool,
    /// The person has taken the agent display over from the indicator page:
    /// the agent's calls are paused until they hand it back.
    taken_over: AtomicBool,
    /// Why this desktop's pixels cannot be read, when they cannot: every
    /// grant is then accessibility-only.
    pixels_missing: Option<String>,
    /// Questions asked across calls, waiting for their answers.
    tickets: deferred::TicketStore,
    /// The recording of the current grant (its id), once it delivered something.
    recorder: Mutex<Option<(String, glovebox_services::recording::Recorder)>>,
}

/// How a handle puts its questions to the person.
#[derive(Clone)]
enum Prompt {
    /// No channel: approvals fail closed, the agent's questions go to the
    /// indicator page.
    Nobody,
    /// Asks and waits within the call (the terminal, MCP elicitation).
    Channel(Arc<dyn PersonChannel>),
    /// Cannot wait: the question ends the call and its retry brings the answer.
    AcrossCalls(Arc<deferred::DeferredCall>),
}

/// The gate. Cheap to clone; clones share one state. Each handle carries
/// the prompt channel of the surface that holds it, and any span of calls
/// the user approved as a whole.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
    prompt: Prompt,
    standing: Option<Standing>,
    /// This handle delivers no input (an observe-only task).
    observe_only: bool,
}

impl Host {
    /// A host over `backends`. Its prompt channel is [`NoPrompt`] until a
    /// surface supplies one: every prompt fails closed.
    pub fn open(backends: Backends, mut config: HostConfig) -> Result<Host, Refusal> {
        config.check_enabled()?;
        let pixels_missing = match backends.capture.availability() {
            glovebox_platform::Support::Missing { reason } => Some(reason),
            glovebox_platform::Support::Available { .. } => None,
        };
        if pixels_missing.is_some() {
            config.capture = CaptureMode::A11yOnly;
        }
        let denials = Denials::new(
            &*backends.processes,
            config.acting_pid,
            process::current_uid(),
            config.ancestor_rule,
            &config.deny,
            backends.protected,
        );
        let display_dir = DisplayDir::new(&config.runtime_root, &config.display).gated()?;
        let audit = AuditLog::new(config.audit_path.clone());
        let state = State::default();
        let inner = Inner {
            backends,
            config,
            denials,
            display_dir,
            audit,
            state: Mutex::new(state),
            presence: Mutex::default(),
            stop_requested: AtomicBool::new(false),
            taken_over: AtomicBool::new(false),
            pixels_missing,
            tickets: Arc::default(),
            recorder: Mutex::default(),
        };
        Ok(Host::over(Arc::new(inner)))
    }

    /// A handle over `inner` with no channel to the person, no standing
    /// approval, delivering input: what `open` hands out, and what Stop and
    /// the control socket act through.
    fn over(inner: Arc<Inner>) -> Host {
        Host { inner, prompt: Prompt::Nobody, standing: None, observe_only: false }
    }

    /// The person's desktop of this host, without its drawn cursor, for
    /// other hosts over the same connections: a warm host carrying out a
    /// CLI's call with the CLI's own settings, grant and audit identity,
    /// which reaches what the CLI alone does (never an agent display this
    /// host runs) and draws nothing. The backends stay sealed inside.
    pub fn persons_desktop(&self) -> PersonsDesktop {
        let backends = self.inner.backends.persons_desktop();
        PersonsDesktop { backends: Backends { presence: None, ..backends } }
    }

    /// This host, reaching the person through `channel` (MCP elicitation,
    /// the terminal) for every approval and question; the state stays shared.
    pub fn with_channel(&self, channel: Arc<dyn PersonChannel>) -> Host {
        Host { prompt: Prompt::Channel(channel), ..self.clone() }
    }

    /// This host for one call of a surface that cannot wait for the user
    /// within a call ([`deferred`]): a question ends the call, and
    /// [`DeferredCall::pending`] hands it to the surface. `retry` is what
    /// the client brought back from an earlier round of the same call; one
    /// that does not belong to `call` refuses before anything else runs.
    pub fn for_deferred_call(
        &self,
        call: CallKey,
        retry: Option<Retry>,
    ) -> Result<(Host, Arc<DeferredCall>), Refusal> {
        let deferred = Arc::new(deferred::DeferredCall::begin(
            self.inner.tickets.clone(),
            call,
            self.inner.config.answer_wait,
            retry,
        )?);
        Ok((Host { prompt: Prompt::AcrossCalls(deferred.clone()), ..self.clone() }, deferred))
    }

    /// Puts `request` to the person through this handle's channel: their
    /// answer, or (across calls, unanswered yet) the refusal that ends the
    /// call until its retry brings one.
    fn put_to_person(&self, request: Request<'_>) -> Result<Answer, Refusal> {
        match &self.prompt {
            Prompt::Nobody => Ok(NoPrompt.put(request)),
            Prompt::Channel(channel) => Ok(channel.put(request)),
            Prompt::AcrossCalls(call) => {
                call.answer_for(request).ok_or_else(|| call.defer(request))
            }
        }
    }

    /// Asks the person to approve `request`; their answer decides.
    fn ask(&self, request: &ApprovalRequest) -> Result<(), Refusal> {
        let answer = self.put_to_person(Request::of_approval(request))?;
        decide::approval::answer_to_result(answer, request)
    }

    /// This host for an observe-only task: every input it is asked for is
    /// refused before anyone is asked.
    pub fn observe_only(&self) -> Host {
        Host { observe_only: true, ..self.clone() }
    }

    /// Refuses input on a read-only host or an observe-only handle.
    fn check_input_allowed(&self) -> Result<(), Refusal> {
        if self.inner.config.read_only {
            return Err(decide::lifecycle::no_input(decide::lifecycle::NoInput::ReadOnly));
        }
        if self.observe_only {
            return Err(decide::lifecycle::no_input(decide::lifecycle::NoInput::ObserveOnly));
        }
        Ok(())
    }

    fn state(&self) -> Locked<'_> {
        Locked { mutex: &self.inner.state, guard: Some(self.inner.state.lock_recovered()) }
    }

    fn audit(&self, mut record: AuditRecord) {
        record.pid = self.inner.config.acting_pid;
        if let Err(e) = self.inner.audit.append(&record) {
            eprintln!("glovebox: audit write to {} failed: {e}", self.inner.audit.path().display());
        }
    }

    /// The denial that covers `window` now, static rules first.
    fn denial_of(&self, window: &WindowInfo) -> Option<Denial> {
        self.inner.denials.check(&*self.inner.backends.processes, window)
    }

    /// [`decide::check_not_denied`] for `window` as it is now.
    fn check_not_denied(&self, window: &WindowInfo) -> Result<(), Refusal> {
        decide::check_not_denied(self.denial_of(window))
    }

    /// Secure input as the probes find it now: a keyboard grab (it covers
    /// every window), then a focused password field in `window` when one
    /// is named. The one place the probes are asked for a decision.
    fn secure_input_now(
        &self,
        window: Option<&WindowInfo>,
    ) -> Result<Option<decide::SecureInput>, Refusal> {
        let probes = &self.inner.backends.secure_input;
        let grabbed = probes.keyboard_grabbed().gated()?;
        let password_focused = match window {
            Some(window) if !grabbed => probes.focused_password(window).gated()?,
            _ => false,
        };
        Ok(decide::SecureInput::of(grabbed, password_focused))
    }

    /// Whether a password field of `window` has focus now, for a read
    /// whose keyboard grab was already asked.
    fn password_focus_now(
        &self,
        window: &WindowInfo,
    ) -> Result<Option<decide::SecureInput>, Refusal> {
        Ok(decide::SecureInput::of(
            false,
            self.inner.backends.secure_input.focused_password(window).gated()?,
        ))
    }

    /// The one answer to "may this call of `class` go ahead", asked with
    /// `request` (whose subject names the class) when the policy prompts.
    fn approve(&self, request: ApprovalRequest, names: &[String]) -> Result<Approved, Refusal> {
        self.approve_with(request, names)
    }

    /// [`Host::approve`] with `state` let go while a person is asked: one
    /// slow answer must not hold up every other call of this host. What
    /// was checked before the question is the caller's to check again.
    fn approve_unlocked(
        &self,
        state: &mut Locked<'_>,
        request: ApprovalRequest,
        names: &[String],
    ) -> Result<Approved, Refusal> {
        state.unlocked(|| self.approve_with(request, names))
    }

    fn approve_with(
        &self,
        mut request: ApprovalRequest,
        names: &[String],
    ) -> Result<Approved, Refusal> {
        let class = request.class().expect("calls have a class");
        let approvals = &self.inner.config.approvals;
        let mut verdict = approvals.verdict(class, names);
        // The plan's own reason to ask (typing into a window whose fields are unknown).
        if let Some(why) = request.escalation.take() {
            if verdict.policy == Policy::Allow && approvals.unknown_field_typing == Policy::Prompt {
                verdict.policy = Policy::Prompt;
            }
            verdict.escalation = verdict.escalation.or(Some(why));
        }
        match verdict.policy {
            Policy::Allow => Ok(Approved::Policy),
            Policy::Deny => Err(decide::approval::denied(class)),
            Policy::Prompt => {
                // One rule whatever the mode: typed text the person must read is
                // covered only by a question that showed it.
                if self.standing.as_ref().is_some_and(|s| {
                    s.covers(class, verdict.escalated_by.as_deref(), request.must_have_shown())
                }) {
                    return Ok(Approved::Standing);
                }
                request.escalation = verdict.escalation;
                self.ask(&request).map(|()| Approved::Person)
            }
        }
    }

    /// How long a question put to the user is waited for (`approval.answer_wait_secs`).
    pub fn answer_wait(&self) -> Duration {
        self.inner.config.answer_wait
    }

    /// The configured bound on an observation's text tree.
    pub fn text_budget(&self) -> TokenBudget {
        self.inner.config.text_budget
    }

    /// What this handle can do: input, pixels, read-only.
    pub fn capabilities(&self) -> HostCapabilities {
        HostCapabilities {
            input: self.inner.backends.input.is_some()
                && !self.inner.config.read_only
                && !self.observe_only,
            pixels: self.inner.config.capture == CaptureMode::A11yAndPixels,
            read_only: self.inner.config.read_only || self.observe_only,
        }
    }

    /// Every window, frontmost first, with the reason each denied one is
    /// denied — a keyboard grab included, on every window
    /// (`decide::listed_denial`). An observation: its
    /// approval class is asked first.
    pub fn list_windows(&self, query: Option<&str>, page: usize) -> Result<ListedPage, Refusal> {
        let listed = (|| {
            self.approve(
                ApprovalRequest::call(
                    ApprovalClass::Observe,
                    vec!["list the desktop's windows".into()],
                ),
                &[],
            )?;
            let windows = self.inner.backends.windows.list_windows().gated()?;
            let page = WindowPage::paginate(windows, query, page)?;
            // A keyboard grab is asked live (one X request). A focused password field is not:
            // its probe walks an application's tree (LibreOffice's, whose Collection cannot be
            // trusted, for up to 2 s), and listings repeated beside an observation starved it
            // (a clean-clone CI run). Every observation, read and input probes it anyway.
            let grabbed = self.secure_input_now(None).ok().map(|now| now.is_some());
            let listed = |w: WindowInfo| {
                let fixed = self.denial_of(&w);
                ListedWindow { denial: decide::listed_denial(fixed, grabbed, None), window: w }
            };
            Ok(ListedPage {
                page: page.page,
                pages: page.pages,
                total: page.total,
                windows: page.windows.into_iter().map(listed).collect(),
            })
        })();
        listed.map_err(|e| self.refused(&self.state(), None, e))
    }
}

/// How a call came to be approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approved {
    /// Its class is allowed by the configuration.
    Policy,
    /// A span's approval covered it.
    Standing,
    /// The person said yes to its question.
    Person,
}

/// The host's state, locked; let go only while a person is asked
/// ([`Host::approve_unlocked`]).
pub(crate) struct Locked<'a> {
    mutex: &'a Mutex<State>,
    /// `None` only inside [`Locked::unlocked`].
    guard: Option<MutexGuard<'a, State>>,
}

impl Locked<'_> {
    /// Runs `f` with the state unlocked, and locks it again.
    fn unlocked<T>(&mut self, f: impl FnOnce() -> T) -> T {
        self.guard = None;
        let result = f();
        self.guard = Some(self.mutex.lock_recovered());
        result
    }
}

impl std::ops::Deref for Locked<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        self.guard.as_deref().expect("locked outside Locked::unlocked")
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut State {
        self.guard.as_deref_mut().expect("locked outside Locked::unlocked")
    }
}
