//! The boundary between glovebox and a platform backend.
//!
//! Backends implement small, capability-specific traits ([`WindowSource`],
//! [`ScreenCapture`]) and say up front what they can do ([`Capabilities`]).
//! This crate also owns pure image handling shared by every backend
//! (downscaling, PNG encoding), the environment report of `glovebox doctor`,
//! the answer of platforms without a backend, and a fake desktop for tests of
//! pure logic.
#![forbid(unsafe_code)]
#![deny(missing_docs, unreachable_pub)]

pub mod capabilities;
pub mod compose;
pub mod doctor;
pub mod error;
#[cfg(feature = "fake")]
pub mod fake;
pub mod files;
pub mod gesture;
pub mod image;
pub mod marks;
pub mod process;
pub mod protected;
pub mod route;
pub mod seen;
pub mod sync;
pub mod unsupported;

use glovebox_model::{
    AccessibilityTree, Action, CaptureLimits, Desktop, DisplaySelection, ElementId, Frame, FrameId,
    Monitor, Point, TreeBudget, WindowId, WindowInfo, WindowRef,
};
use std::sync::atomic::{AtomicU64, Ordering};

pub use capabilities::{Capabilities, Support};
pub use error::{BackendError, BackendErrorKind};
pub use gesture::Gesture;
pub use image::RgbImage;
pub use protected::ProtectedPrograms;
pub use route::{Mechanism, Relative, Route, Semantic};
pub use seen::{SeenItem, SeenRead, SeenReader};

/// Lists the desktop's top-level windows.
pub trait WindowSource {
    /// Every managed top-level window, frontmost first.
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError>;

    /// The one window `reference` names, measured now.
    fn find_window(&self, reference: &WindowRef) -> Result<WindowInfo, BackendError> {
        let windows = self.list_windows()?;
        Ok(reference.resolve(&windows)?.clone())
    }
}

/// Reads pixels of windows and displays.
pub trait ScreenCapture {
    /// The monitors of the desktop as the platform reports them.
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError>;

    /// One window's client area, cropped to its measured geometry, holding
    /// that window's pixels alone: whatever other windows cover is black
    /// and listed in the frame's `occluded`.
    fn capture_window(
        &self,
        window: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError>;

    /// Whether this desktop's pixels can be read at all. Where they cannot,
    /// the host makes every grant accessibility-only and says why.
    fn availability(&self) -> Support {
        Support::Available { detail: "pixels can be read".into() }
    }

    /// A composite of the selected displays with black gaps between them,
    /// and black wherever one of the `hidden` windows shows (listed in the
    /// frame's `occluded`).
    fn capture_desktop(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Result<Capture, BackendError>;
}

/// Reads windows' accessibility trees.
pub trait AccessibilitySource {
    /// The tree of `window` as measured by a [`WindowSource`], within
    /// `budget`. A window without an accessible is fidelity `none`, not an
    /// error and never an empty tree.
    fn inspect(
        &self,
        window: &WindowInfo,
        budget: TreeBudget,
    ) -> Result<AccessibilityTree, BackendError>;

    /// The value of element `id` of `window` (its text, at most
    /// `max_chars` characters, or its number), read now. A password
    /// field's is never read (`SecureInput`); an element without a value
    /// is `NotActionable`.
    fn read_value(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<glovebox_model::ElementValue, BackendError>;

    /// Starts collecting the accessibility events of `window`'s
    /// application, before an input is delivered to it, so that
    /// [`AccessibilitySource::settle`] can tell when the application has
    /// reacted. Replaces an earlier watch.
    fn watch_events(&self, window: &WindowInfo);

    /// Waits, within `limits`, until the watched application has reacted
    /// and gone quiet, and says what it saw; [`Settled::Unwatched`] when no
    /// watch is running (the caller then waits by the clock).
    fn settle(&self, limits: SettleLimits) -> Settled;

    /// Whether `window`'s application, which did not answer in time, is
    /// working (its process uses the CPU) rather than stopped or hung: what
    /// it was sent is then pending, not lost.
    fn working(&self, window: &WindowInfo) -> bool;
}

/// How long to wait for evidence that an input took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleLimits {
    /// With no event by then, the application did not react.
    pub first_event: std::time::Duration,
    /// After an event, this long without one is quiet.
    pub quiet_gap: std::time::Duration,
    /// Never longer than this in all (an animation never goes quiet).
    pub cap: std::time::Duration,
    /// When the input reached the application in order with a request sent
    /// after it (the input was itself a request it answered, or it said it
    /// had read it): once the application has answered that request with
    /// no event before its answer, this long without an event is no
    /// reaction — if the application is known to report its reactions
    /// before such an answer. `None`: the first wait always runs out.
    pub after_answer: Option<std::time::Duration>,
}

impl SettleLimits {
    /// No wait: ends a watch whose input was never delivered.
    pub const NOW: SettleLimits = SettleLimits {
        first_event: std::time::Duration::ZERO,
        quiet_gap: std::time::Duration::ZERO,
        cap: std::time::Duration::ZERO,
        after_answer: None,
    };

    /// The same limits for an input that did not reach the application in
    /// order with a later request: the first wait runs out.
    pub const fn unordered(self) -> SettleLimits {
        SettleLimits { after_answer: None, ..self }
    }
}

/// What an application's events said after an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// No event within the first wait.
    Silent,
    /// No event before the application answered a request sent after the
    /// input, nor for [`SettleLimits::after_answer`] after it, from an
    /// application known to send its reactions before such an answer.
    Answered,
    /// Events came, then none for the quiet gap.
    Quiet {
        /// Events seen from the start of the wait.
        events: u32,
        /// From the start of the wait until quiet, the quiet gap included.
        after: std::time::Duration,
    },
    /// Events still came when the cap was reached.
    Flooding {
        /// Events seen before the cap.
        events: u32,
    },
    /// Nothing was watched (no bus, an application never observed, a
    /// backend without events).
    Unwatched,
}

/// What an action's target became after the host checked it: an element of
/// the window's newest frame (with the centre of its visible part, in global
/// desktop coordinates, when it has bounds on screen), or a global point
/// (with the frame's deepest element under it, when the frame has one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolvedTarget {
    /// An element id the agent named.
    Element {
        /// The element, as the window's newest frame lists it.
        id: ElementId,
        /// The centre of its visible part in global desktop coordinates;
        /// `None` when it has no bounds on screen.
        center: Option<Point>,
    },
    /// A point the agent named in a frame's image.
    Global {
        /// The point in global desktop coordinates.
        at: Point,
        /// The frame's deepest element under it; `None` when the frame
        /// has no tree or no element covers the point.
        under: Option<ElementId>,
    },
}

impl ResolvedTarget {
    /// Where a pointer route would put the pointer for this target.
    pub fn point(&self) -> Option<Point> {
        match *self {
            ResolvedTarget::Element { center, .. } => center,
            ResolvedTarget::Global { at, .. } => Some(at),
        }
    }
}

/// How an input was delivered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Delivery {
    /// The channel that carried the input, as the backend chose it.
    pub route: Route,
    /// What the application said of it.
    #[serde(default, skip_serializing_if = "Receipt::is_sent")]
    pub receipt: Receipt,
}

impl Delivery {
    /// A delivery by `route` that nothing acknowledged.
    pub fn by(route: Route) -> Delivery {
        Delivery { route, receipt: Receipt::Sent }
    }
}

/// What the application said of an input glovebox delivered.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Receipt {
    /// Sent; its effect shows in the next look.
    #[default]
    Sent,
    /// The application said it had read the input (an X11 route's
    /// `_NET_WM_PING`, answered after the events): its reaction, if any,
    /// is under way.
    Acknowledged,
    /// The application took the request and has not finished running it:
    /// no reply came in time, and its process is busy on the CPU or it
    /// answers other requests (a dialog it opened waits). Neither frozen
    /// nor refused; the next look tells what happened.
    Pending,
}

impl Receipt {
    /// Whether nothing acknowledged the input (serialisation leaves that out).
    pub fn is_sent(&self) -> bool {
        *self == Receipt::Sent
    }
}

/// How far an input may reach, as the host decided it for one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Never the user's pointer, focus or stacking order: semantic
    /// accessibility routes and events sent to the window alone.
    Background,
    /// The user's real pointer and keyboard, put back afterwards (the
    /// configuration allowed it and the call asked for it).
    Foreground,
    /// A desktop glovebox owns (the agent display): the background routes
    /// first, else that desktop's own pointer and keyboard, which are
    /// nobody else's.
    AgentDisplay,
}

/// Delivers checked input to a window. Only the host calls this, after
/// every freshness and denial check passed, with the reach it decided.
pub trait InputSink {
    /// Delivers `action` to `window` within `reach`. `targets` are the
    /// action's targets in its order (a drag has two), as the host resolved
    /// them against the window's newest frame.
    fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        reach: Reach,
    ) -> Result<Delivery, BackendError>;
}

/// What launching an application by name would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPlan {
    /// The application's display name (a desktop entry's `Name`, or the executable's).
    pub name: String,
    /// The executable to start: a desktop entry's `Exec` program (looked up
    /// on `PATH` when it names no directory), or the executable named.
    pub program: std::path::PathBuf,
    /// The arguments `program` is started with (a desktop entry's `Exec`
    /// words after the program; field codes such as `%U` are not passed).
    pub args: Vec<String>,
    /// Every program running `program` may start, found before anything
    /// runs: its target through symbolic links (an alternatives link such as
    /// `x-terminal-emulator`) and what a wrapper script names (`uxterm`
    /// runs `xterm`). The deny list is matched against each of them.
    pub runs: Vec<std::path::PathBuf>,
}

/// Which addresses the agent display's browsers may open, for every
/// navigation (the address bar, a link, a redirect), not only the first:
/// the host's rule for `open_url`, kept by the browser itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BrowserPages {
    /// `http` and `https` only.
    #[default]
    Web,
    /// Local addresses too (`file:`, `view-source:` …): `input.local_urls`.
    Any,
}

/// Starts applications by name: a desktop entry or an executable.
pub trait AppLauncher {
    /// What `name` would run, without running it, so the host can check it first.
    fn plan(&self, name: &str) -> Result<LaunchPlan, BackendError>;
    /// Runs a plan on `desktop`, detached from the caller; returns the new
    /// process id.
    fn launch(&self, plan: &LaunchPlan, desktop: Desktop) -> Result<u32, BackendError>;
    /// A browser that opens `url` in a window of its own on the agent
    /// display (a private profile, so it never joins, raises or activates a
    /// browser of the user's), where this launcher can start one.
    fn browser(&self, url: &str) -> Result<LaunchPlan, BackendError>;
    /// Puts the user's window `user` back in front (active, and above the
    /// new window) if the window manager gave `started` either on its
    /// launch. Returns whether anything had to be put back.
    fn hand_back(
        &self,
        user: glovebox_model::WindowId,
        started: glovebox_model::WindowId,
    ) -> Result<bool, BackendError>;
}

/// How a system's desktop is opened (`glovebox-desktop`), whatever the system.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DesktopOptions {
    /// Draw the agent's cursor where the system can (on Linux/X11 an
    /// override-redirect, click-through window).
    pub overlay: bool,
    /// Which display server to drive when no display is named (Linux).
    pub backend: glovebox_model::DisplayBackend,
    /// What the agent display's browsers may open.
    pub agent_browser: BrowserPages,
}

/// The platform pieces the host works through, as the platform crate
/// composes them. Only the host holds them.
#[derive(Clone)]
pub struct Backends {
    /// Lists and measures the desktop's windows.
    pub windows: std::sync::Arc<dyn WindowSource + Send + Sync>,
    /// Reads windows' and displays' pixels.
    pub capture: std::sync::Arc<dyn ScreenCapture + Send + Sync>,
    /// Reads accessibility trees and values, and watches for an
    /// application's reaction to an input.
    pub accessibility: std::sync::Arc<dyn AccessibilitySource + Send + Sync>,
    /// `None` where no input route exists yet: every input is then
    /// `COMPUTER_BACKGROUND_UNAVAILABLE` after all checks.
    pub input: Option<std::sync::Arc<dyn InputSink + Send + Sync>>,
    /// Tells the host when a keyboard grab or a focused password field
    /// makes input secure.
    pub secure_input: std::sync::Arc<dyn SecureInputProbe + Send + Sync>,
    /// Parents, owners and executables of processes, for the self-target,
    /// elevated and deny-list rules.
    pub processes: std::sync::Arc<dyn process::ProcessTable>,
    /// `None` where applications cannot be started: `open_app` is then refused.
    pub launcher: Option<std::sync::Arc<dyn AppLauncher + Send + Sync>>,
    /// The agent's drawn cursor, where one can be drawn; purely visual.
    pub presence: Option<std::sync::Arc<dyn Presence>>,
    /// The agent display's screen, for the user to watch; `None` where the
    /// platform has no agent display.
    pub agent_display: Option<std::sync::Arc<dyn AgentScreen>>,
    /// Reads elements from a window's pixels where its tree is missing or
    /// thin; `None` where no reader is built in.
    pub seen: Option<std::sync::Arc<dyn SeenReader>>,
    /// This system's credential software and consent surfaces, which no
    /// grant reaches.
    pub protected: ProtectedPrograms,
}

/// The screen of the desktop glovebox owns (the agent display), shown to
/// the user on the indicator page.
pub trait AgentScreen: Send + Sync {
    /// Whether the agent display runs now.
    fn running(&self) -> bool;
    /// The whole screen with `hidden` windows blacked out, or `None` while
    /// no agent display runs (it is never started just to be looked at).
    fn view(
        &self,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Option<Result<Capture, BackendError>>;
    /// The person's own input from the indicator page, given to the agent
    /// display's pointer and keyboard as a hand there would; `None` while
    /// no agent display runs.
    fn person_input(&self, input: &glovebox_model::PersonInput)
        -> Option<Result<(), BackendError>>;
    /// The backends of the person's desktop this agent display sits
    /// beside, without it.
    fn persons_desktop(&self) -> Backends;
}

impl Backends {
    /// These backends without the agent display: the person's desktop
    /// alone, as a call made on the person's behalf from their own shell
    /// (the one-shot CLI, ridden on a warm host) reaches it.
    pub fn persons_desktop(&self) -> Backends {
        match &self.agent_display {
            Some(agent) => agent.persons_desktop(),
            None => self.clone(),
        }
    }
}

#[cfg(feature = "fake")]
impl Backends {
    /// Every backend from the fake desktop (tests of policy and loops).
    pub fn of_fake_desktop(
        desktop: std::sync::Arc<fake::FakeDesktop>,
        processes: std::sync::Arc<dyn process::ProcessTable>,
        protected: ProtectedPrograms,
    ) -> Backends {
        Backends {
            windows: desktop.clone(),
            capture: desktop.clone(),
            accessibility: desktop.clone(),
            input: Some(desktop.clone()),
            secure_input: desktop,
            processes,
            launcher: None,
            presence: None,
            agent_display: None,
            seen: None,
            protected,
        }
    }
}

/// The agent's cursor, drawn on the desktop and never taken: it shows
/// where the agent is about to act and that it acted. Purely visual: it
/// fails silently, and the host's re-measurement, not the drawing, is the
/// truth about where an action lands.
pub trait Presence: Send + Sync {
    /// Shows the cursor at `at` (root coordinates), on top of everything.
    fn aim(&self, at: Point);
    /// Shows that the action at the cursor was delivered.
    fn press(&self);
    /// Takes the cursor off the screen (the grant ended).
    fn hide(&self);
}

/// Signals of secure input the platform can see.
pub trait SecureInputProbe {
    /// Another client holds an active keyboard grab (a pinentry or polkit prompt).
    fn keyboard_grabbed(&self) -> Result<bool, BackendError>;

    /// A password field of `window` has keyboard focus.
    fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError>;
}

/// An image and the frame record that says what it shows.
#[derive(Debug, Clone)]
pub struct Capture {
    /// What the image shows: its subject, scale, time and occluded parts.
    pub frame: Frame,
    /// The pixels, already scaled to the frame's `image` size.
    pub image: RgbImage,
}

/// A frame id unique within this process.
pub fn next_frame_id() -> FrameId {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    FrameId(NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Milliseconds since the Unix epoch, for frame timestamps.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
