//! The agent display (DESIGN.md §5): a private desktop glovebox starts on
//! first use and owns (Xvfb, openbox and an accessibility bus of its own,
//! from glovebox-sandbox), composed beside the user's desktop.
//! [`Desktops`] answers for both: windows are listed from both (the
//! agent's marked `desktop: agent`), and every call about one window goes
//! to the backends of the desktop it is on. Nothing of the user's is on
//! the agent display, so the host may let input there use that display's
//! own pointer and keyboard ([`Reach::AgentDisplay`]). Every application
//! on it runs in the box ([`crate::agent_box`]), which keeps it from the
//! user's display, buses and files.

use crate::agent_box::AgentBox;
use crate::routes::LinuxInput;
use crate::LinuxSecureInput;
use glovebox_atspi::AtspiBackend;
use glovebox_model::{
    AccessibilityTree, Action, CaptureLimits, Desktop, DisplaySelection, ElementId, ElementValue,
    Monitor, Point, TreeBudget, WindowId, WindowInfo, WindowRef,
};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::{
    AccessibilitySource, AgentScreen, AppLauncher, BackendError, BackendErrorKind, Backends,
    BrowserPages, Capture, Delivery, Gesture, InputSink, LaunchPlan, Reach, ResolvedTarget,
    ScreenCapture, SecureInputProbe, SettleLimits, Settled, Support, WindowSource,
};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use glovebox_x11::X11Backend;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// The agent display's size: a common laptop screen, so applications lay
/// themselves out as they would for a person.
pub const AGENT_DISPLAY_SIZE: (u32, u32) = (1280, 800);

/// A running agent display and the backends that reach it.
pub struct AgentDisplay {
    sandbox: Sandbox,
    /// What its applications run in (and the display itself, for its scope).
    boxed: AgentBox,
    x11: Arc<X11Backend>,
    atspi: Arc<AtspiBackend>,
    input: LinuxInput,
    secure: LinuxSecureInput,
}

impl AgentDisplay {
    /// Starts the private desktop inside the box and connects to it.
    pub fn start(pages: BrowserPages) -> Result<AgentDisplay, BackendError> {
        let (width, height) = AGENT_DISPLAY_SIZE;
        let boxed = AgentBox::new(pages)?;
        let sandbox = boxed.start_display(move || Sandbox::start(SandboxOptions { width, height, ..SandboxOptions::default() }))?.map_err(|e| {
            BackendError::new(
                BackendErrorKind::Unsupported,
                format!("the agent display could not start: {e} (it needs the Debian packages xvfb, openbox and dbus)"),
            )
        })?;
        boxed.prepare(&sandbox)?;
        let x11 = Arc::new(X11Backend::connect(Some(sandbox.display()))?);
        let atspi = Arc::new(AtspiBackend::on_session_bus(Some(sandbox.bus_address()))?);
        Ok(AgentDisplay {
            input: LinuxInput { x11: x11.clone(), atspi: atspi.clone() },
            secure: LinuxSecureInput { x11: x11.clone(), atspi: atspi.clone() },
            sandbox,
            boxed,
            x11,
            atspi,
        })
    }

    /// How the box keeps the display's applications from the user's.
    pub fn isolation(&self) -> crate::agent_box::Isolation {
        self.boxed.isolation()
    }

    /// The private desktop itself (its display, bus and process group).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    fn windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        let mut windows = self.x11.list_windows()?;
        windows.iter_mut().for_each(|w| w.desktop = Desktop::Agent);
        Ok(windows)
    }
}

/// The user's desktop and, once something asked for it, the agent display.
pub struct Desktops {
    user: Backends,
    agent: OnceLock<AgentDisplay>,
    /// What the agent display's browsers may open.
    pages: BrowserPages,
    /// Held while the agent display starts, so it starts once.
    starting: Mutex<()>,
    /// Processes with windows on the agent display: a window reference
    /// names its process, and a process draws on one display.
    agent_pids: Mutex<HashSet<u32>>,
    /// The desktop whose application's events are being watched.
    watched: Mutex<Desktop>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock_recovered()
}

impl Desktops {
    /// `user`'s desktop, with an agent display to start when one is asked for.
    pub fn new(user: Backends, pages: BrowserPages) -> Arc<Desktops> {
        Arc::new(Desktops {
            user,
            agent: OnceLock::new(),
            pages,
            starting: Mutex::new(()),
            agent_pids: Mutex::new(HashSet::new()),
            watched: Mutex::new(Desktop::User),
        })
    }

    /// The agent display, started now if it is not running yet.
    pub fn agent(&self) -> Result<&AgentDisplay, BackendError> {
        if let Some(agent) = self.agent.get() {
            return Ok(agent);
        }
        let _starting = lock(&self.starting);
        if let Some(agent) = self.agent.get() {
            return Ok(agent);
        }
        let started = AgentDisplay::start(self.pages)?;
        Ok(self.agent.get_or_init(|| started))
    }

    /// The agent display if it runs; never starts it.
    pub fn running_agent(&self) -> Option<&AgentDisplay> {
        self.agent.get()
    }

    /// The backends the host works through, answering for both desktops.
    pub fn backends(self: &Arc<Self>) -> Backends {
        Backends {
            windows: self.clone(),
            capture: self.clone(),
            accessibility: self.clone(),
            input: Some(self.clone()),
            secure_input: self.clone(),
            processes: self.user.processes.clone(),
            launcher: Some(self.clone()),
            presence: self.user.presence.clone(),
            agent_display: Some(self.clone()),
            seen: Some(glovebox_ocr::shared_reader()),
            protected: crate::PROTECTED,
        }
    }

    fn agent_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        let Some(agent) = self.running_agent() else { return Ok(vec![]) };
        let windows = agent.windows()?;
        lock(&self.agent_pids).extend(windows.iter().map(|w| w.id.pid));
        Ok(windows)
    }

    /// The agent display when `pid`'s windows are on it.
    fn agent_of_pid(&self, pid: u32) -> Option<&AgentDisplay> {
        self.running_agent().filter(|_| lock(&self.agent_pids).contains(&pid))
    }

    /// The agent display when `window` is on it; an agent window when the
    /// agent display has ended is gone.
    fn agent_of(&self, window: &WindowInfo) -> Result<Option<&AgentDisplay>, BackendError> {
        match window.desktop {
            Desktop::User => Ok(None),
            Desktop::Agent => self.running_agent().map(Some).ok_or_else(|| {
                BackendError::gone(format!(
                    "window {} was on the agent display, which is not running",
                    window.id
                ))
            }),
        }
    }
}

impl WindowSource for Desktops {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        let mut windows = self.user.windows.list_windows()?;
        windows.extend(self.agent_windows()?);
        Ok(windows)
    }

    fn find_window(&self, reference: &WindowRef) -> Result<WindowInfo, BackendError> {
        match self.agent_of_pid(reference.pid()) {
            Some(agent) => {
                let windows = agent.windows()?;
                Ok(reference.resolve(&windows)?.clone())
            }
            None => match self.user.windows.find_window(reference) {
                // A process not listed on the agent display yet may have just mapped a window there.
                Err(gone) if self.running_agent().is_some() => {
                    let windows = self.agent_windows()?;
                    reference.resolve(&windows).cloned().map_err(|_| gone)
                }
                found => found,
            },
        }
    }
}

impl ScreenCapture for Desktops {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        self.user.capture.monitors()
    }

    fn capture_window(
        &self,
        window: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        match self.agent_of_pid(window.pid()) {
            Some(agent) => agent.x11.capture_window(window, limits),
            None => self.user.capture.capture_window(window, limits),
        }
    }

    fn availability(&self) -> Support {
        self.user.capture.availability()
    }

    fn capture_desktop(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Result<Capture, BackendError> {
        self.user.capture.capture_desktop(selection, limits, hidden)
    }
}

impl AccessibilitySource for Desktops {
    fn inspect(
        &self,
        window: &WindowInfo,
        budget: TreeBudget,
    ) -> Result<AccessibilityTree, BackendError> {
        match self.agent_of(window)? {
            Some(agent) => agent.atspi.inspect(window, budget),
            None => self.user.accessibility.inspect(window, budget),
        }
    }

    fn read_value(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<ElementValue, BackendError> {
        match self.agent_of(window)? {
            Some(agent) => agent.atspi.read_value(window, id, max_chars),
            None => self.user.accessibility.read_value(window, id, max_chars),
        }
    }

    fn watch_events(&self, window: &WindowInfo) {
        // A watch on one desktop ends any on the other.
        let previous = std::mem::replace(&mut *lock(&self.watched), window.desktop);
        if previous != window.desktop {
            self.settle(SettleLimits::NOW);
        }
        match self.agent_of(window) {
            Ok(Some(agent)) => AccessibilitySource::watch_events(&*agent.atspi, window),
            Ok(None) => self.user.accessibility.watch_events(window),
            Err(_) => {}
        }
    }

    fn working(&self, window: &WindowInfo) -> bool {
        match self.agent_of(window) {
            Ok(Some(agent)) => AccessibilitySource::working(&*agent.atspi, window),
            _ => self.user.accessibility.working(window),
        }
    }

    fn settle(&self, limits: SettleLimits) -> Settled {
        match *lock(&self.watched) {
            Desktop::Agent => self
                .running_agent()
                .map(|a| AccessibilitySource::settle(&*a.atspi, limits))
                .unwrap_or(Settled::Unwatched),
            Desktop::User => self.user.accessibility.settle(limits),
        }
    }
}

impl InputSink for Desktops {
    fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        reach: Reach,
    ) -> Result<Delivery, BackendError> {
        match (self.agent_of(window)?, reach) {
            (Some(agent), Reach::AgentDisplay) => {
                agent.input.deliver(window, action, targets, reach)
            }
            (Some(_), _) | (None, Reach::AgentDisplay) => {
                Err(BackendError::invalid_argument(format!(
                    "window {} is on the {} desktop, not reached that way",
                    window.id,
                    if window.desktop == Desktop::Agent { "agent" } else { "user's" }
                )))
            }
            (None, reach) => self
                .user
                .input
                .as_ref()
                .ok_or_else(|| {
                    BackendError::no_background_route("this desktop has no input route")
                })?
                .deliver(window, action, targets, reach),
        }
    }
}

impl SecureInputProbe for Desktops {
    fn keyboard_grabbed(&self) -> Result<bool, BackendError> {
        // A prompt holding either keyboard stops input everywhere.
        let agent = match self.running_agent() {
            Some(agent) => agent.secure.keyboard_grabbed()?,
            None => false,
        };
        Ok(agent || self.user.secure_input.keyboard_grabbed()?)
    }

    fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError> {
        match self.agent_of(window)? {
            Some(agent) => agent.secure.focused_password(window),
            None => self.user.secure_input.focused_password(window),
        }
    }
}

impl AgentScreen for Desktops {
    fn running(&self) -> bool {
        self.running_agent().is_some()
    }

    fn view(
        &self,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Option<Result<Capture, BackendError>> {
        let agent = self.running_agent()?;
        Some(agent.x11.capture_desktop(&DisplaySelection::All, limits, hidden))
    }

    fn person_input(
        &self,
        input: &glovebox_model::PersonInput,
    ) -> Option<Result<(), BackendError>> {
        let agent = self.running_agent()?;
        Some(person_gesture(&agent.x11, input).and_then(|g| agent.x11.play_as_person(&g)))
    }

    /// The person's desktop as a process of its own composes it: the same
    /// backends, beside an agent display of its own that has not started
    /// (this one's windows, pixels and input are not the person's).
    fn persons_desktop(&self) -> Backends {
        Desktops::new(self.user.clone(), self.pages).backends()
    }
}

/// The gesture a person's input from the page amounts to on the agent display: places on the
/// picture become pixels of its screen as it is now.
fn person_gesture(
    x11: &X11Backend,
    input: &glovebox_model::PersonInput,
) -> Result<Gesture, BackendError> {
    use glovebox_model::{PersonInput, ScreenFraction};
    let screen = x11.screen_rect()?;
    let pixel = |at: &ScreenFraction| Point {
        // The last pixel for 1.0, not one past the edge.
        x: ((at.x * f64::from(screen.width)) as i32).min(screen.width as i32 - 1),
        y: ((at.y * f64::from(screen.height)) as i32).min(screen.height as i32 - 1),
    };
    let held = glovebox_model::Modifiers::default();
    Ok(match input {
        PersonInput::Click { at, button } => {
            Gesture::Click { at: pixel(at), button: *button, count: 1, held }
        }
        PersonInput::Scroll { at, dy } => Gesture::Scroll { at: pixel(at), dx: 0, dy: *dy, held },
        PersonInput::Key { combo } => Gesture::Key {
            combo: glovebox_model::KeyCombo::parse(combo).map_err(BackendError::from)?,
            repeat: 1,
        },
        PersonInput::Text { text } => Gesture::Text { text: text.clone() },
    })
}

impl AppLauncher for Desktops {
    fn plan(&self, name: &str) -> Result<LaunchPlan, BackendError> {
        self.user
            .launcher
            .as_ref()
            .ok_or_else(|| {
                BackendError::new(
                    BackendErrorKind::Unsupported,
                    "this desktop cannot start applications",
                )
            })?
            .plan(name)
    }

    fn launch(&self, plan: &LaunchPlan, desktop: Desktop) -> Result<u32, BackendError> {
        if desktop == Desktop::User {
            let launcher = self.user.launcher.as_ref().ok_or_else(|| {
                BackendError::new(
                    BackendErrorKind::Unsupported,
                    "this desktop cannot start applications",
                )
            })?;
            return launcher.launch(plan, desktop);
        }
        let agent = self.agent()?;
        let child = agent.boxed.spawn(&agent.sandbox, &plan.program, &plan.args)?;
        let pid = child.id();
        lock(&self.agent_pids).insert(pid);
        // Reaped in the background so it never lingers as a zombie.
        let mut child = child;
        std::thread::spawn(move || child.wait());
        Ok(pid)
    }

    fn browser(&self, url: &str) -> Result<LaunchPlan, BackendError> {
        let profile = crate::agent_box::browser_profile(&self.agent()?.sandbox);
        glovebox_platform::files::private_dir(&profile).map_err(|e| {
            BackendError::unavailable(format!("the browser profile {}: {e}", profile.display()))
        })?;
        crate::launcher::browser_plan(url, &profile)
    }

    fn hand_back(&self, user: WindowId, started: WindowId) -> Result<bool, BackendError> {
        // A window on the agent display took nothing of the user's.
        if self.agent_of_pid(started.pid).is_some() {
            return Ok(false);
        }
        match &self.user.launcher {
            Some(launcher) => launcher.hand_back(user, started),
            None => Ok(false),
        }
    }
}
