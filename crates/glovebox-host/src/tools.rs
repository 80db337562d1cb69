//! The host's session tools beyond observe and act: batches of input,
//! waits, zoom into the newest frame, switching the bound window, and
//! opening applications. Each goes through the same grant, freshness and
//! denial checks as a single action, and refusals are audited the same way.

use crate::act::Span;
use crate::approval::describe_action;
use crate::backend::Gated;
use crate::decide;
use crate::{ApprovalRequest, Host, Observation};
use glovebox_model::{
    validate_batch, Action, ApprovalClass, DeliveryMode, Desktop, ErrorCode, FrameId, Rect,
    Refusal, Size, WaitCondition, WaitFor, WindowInfo, WindowRef,
};
use glovebox_platform::Delivery;
use std::time::{Duration, Instant};

/// How long `open_app` waits for the new application's window.
const OPEN_APP_TIMEOUT: Duration = Duration::from_secs(15);
/// How long after the new window appears `open_app` keeps giving the
/// user's window its focus and place back.
const HAND_BACK_WATCH: Duration = Duration::from_millis(600);
/// How often a conditional wait looks at the window again.
const WAIT_POLL: Duration = Duration::from_millis(100);
/// How long a started application's first look waits for its web page to
/// load: the document holding content.
const PAGE_LOAD_BOUND: Duration = Duration::from_secs(10);

/// What a batch did.
#[derive(Debug)]
pub struct BatchOutcome {
    /// The route of every delivered step, in order.
    pub delivered: Vec<Delivery>,
    /// The first step (1-based) that failed, and why; no later step ran.
    pub failed: Option<(usize, Refusal)>,
    /// The newest observation after the last delivered step.
    pub next: Result<Observation, Refusal>,
    /// What changed from the frame the batch began on to `next`.
    pub changes: Option<glovebox_model::TreeDiff>,
    /// Set when the batch used the last of the budget and closed the grant.
    pub grant_closed: Option<ErrorCode>,
}

/// What a wait saw.
#[derive(Debug)]
pub struct WaitOutcome {
    /// `None` for a timed wait; for a condition, whether it was seen to
    /// hold. `Some(false)` means the time ran out: nothing is proven.
    pub confirmed: Option<bool>,
    /// How long it waited, in milliseconds.
    pub waited_ms: u64,
    /// The bound window once the wait ended.
    pub observation: Observation,
}

/// A full-resolution crop of a frame's screenshot.
#[derive(Debug, Clone)]
pub struct Zoomed {
    /// The frame whose screenshot was cropped.
    pub frame: FrameId,
    /// The crop in the window's own pixels (relative to its client area).
    pub region: Rect,
    /// The PNG's size: the region's, unless the capture limits scaled it.
    pub size: Size,
    /// The crop, PNG-encoded.
    pub png: Vec<u8>,
}

/// An application `open_app` started (or found running), and the grant's
/// first look at it.
#[derive(Debug)]
pub struct OpenedApp {
    /// The process started, or the running window's process.
    pub pid: u32,
    /// The window the grant is now bound to.
    pub window: WindowInfo,
    /// The grant's first look at that window.
    pub observation: Observation,
    /// Whether it was started, and whether the user's focus was given back.
    pub how: Opened,
    /// Its web page had not loaded when the observation was taken (the
    /// bound ran out): the model should look again.
    pub still_loading: bool,
}

/// What an opening's first look waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageWait {
    /// An application: a web document it shows is waited for only once
    /// there (a browser's bare frame has no document and is not waited for).
    DocumentsItShows,
    /// A web address: its page must be there. Until the browser has
    /// published a tree, and a document with content in it, it is loading
    /// (a loaded machine saw open_url answer with no tree at all, and with
    /// the browser's frame before its document).
    TheAddressedPage,
}

/// What an opening starts, where, what its audit line says and what its
/// first look waits for.
struct Launch<'p> {
    plan: &'p glovebox_platform::LaunchPlan,
    desktop: Desktop,
    detail: String,
    wait: PageWait,
}

/// Whether `tree` shows a page still loading, as `wait` reads it.
fn page_loading(tree: &glovebox_model::AccessibilityTree, wait: PageWait) -> bool {
    use glovebox_model::Role;
    let Some(root) = tree.root.as_ref() else {
        return wait == PageWait::TheAddressedPage;
    };
    let mut documents =
        root.walk().filter(|e| matches!(e.role, Role::DocumentWeb | Role::DocumentFrame));
    match wait {
        PageWait::DocumentsItShows => documents.any(|d| d.children.is_empty()),
        PageWait::TheAddressedPage => {
            let mut any = false;
            let empty = documents.any(|d| {
                any = true;
                d.children.is_empty()
            });
            empty || !any
        }
    }
}

/// How `open_app` came by the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// The application already ran: its window, nothing started.
    AlreadyRunning,
    /// Started; the user's window kept focus and its place.
    Started,
    /// Started; the window manager gave the new window focus or the top,
    /// and glovebox put the user's window back.
    StartedAndHandedBack,
}

/// Whether a window's class (WM_CLASS) names the application of `plan`.
fn names_app(w: &WindowInfo, plan: &glovebox_platform::LaunchPlan) -> bool {
    let program =
        plan.program.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    [w.app.to_lowercase(), w.instance.to_lowercase()]
        .iter()
        .any(|c| !c.is_empty() && (*c == program || *c == plan.name.to_lowercase()))
}

impl Host {
    /// Runs 2–3 steps in order: the first may target anything, later ones
    /// only type or press keys. Each step is checked against the newest
    /// frame right before it is delivered; the first refusal ends the batch
    /// and is reported with its step number. Nothing is retried.
    /// The batch is approved once, with every step and the first step's
    /// targets shown; a step that lands on another consequential target
    /// asks again.
    pub fn batch(
        &self,
        frame: FrameId,
        steps: Vec<Action>,
        mode: DeliveryMode,
    ) -> Result<BatchOutcome, Refusal> {
        if let Err(e) = validate_batch(&steps) {
            return Err(self.refused(&self.state(), steps.first(), e));
        }
        let span = Span {
            class: decide::approval_class(true, mode == DeliveryMode::Foreground),
            actions: steps.iter().map(describe_action).collect(),
            targets: steps
                .first()
                .map(|first| self.describe_targets(frame, first))
                .unwrap_or_default(),
            typed: Span::typed_by(&steps),
            frame: Some(frame),
            detail: None,
            started_by_user: false,
        };
        let approved = match span.class {
            // Foreground steps ask one by one, as the class says.
            ApprovalClass::Foreground => self.clone(),
            _ => self.approve_span(span)?,
        };
        approved.batch_approved(frame, steps, mode)
    }

    fn batch_approved(
        &self,
        frame: FrameId,
        steps: Vec<Action>,
        mode: DeliveryMode,
    ) -> Result<BatchOutcome, Refusal> {
        let mut state = self.state();
        let mut frame = frame;
        let first_tree = state.frames.get(frame).map(|f| f.tree.clone());
        let mut outcome = BatchOutcome {
            delivered: vec![],
            failed: None,
            next: Err(decide::session::no_step_ran()),
            changes: None,
            grant_closed: None,
        };
        for (index, step) in steps.iter().enumerate() {
            let number = index + 1;
            match self.act_locked(
                &mut state,
                frame,
                step,
                mode,
                Some(self.inner.config.screenshot_after_input),
            ) {
                Ok(done) => {
                    outcome.delivered.push(done.delivery);
                    outcome.grant_closed = done.grant_closed;
                    if let Ok(next) = &done.next {
                        frame = next.frame.id;
                    }
                    let no_frame = done.next.as_ref().err().cloned();
                    outcome.next = done.next;
                    if number < steps.len() {
                        if let Some(e) = no_frame {
                            let e = e.reworded(|m| format!("batch step {}: there is no fresh frame to check it against: {m}", number + 1));
                            outcome.failed =
                                Some((number + 1, self.refused(&state, steps.get(number), e)));
                            break;
                        }
                    }
                }
                Err(e) => {
                    let e = self.refused(
                        &state,
                        Some(step),
                        e.reworded(|m| format!("batch step {number}: {m}")),
                    );
                    if number == 1 {
                        return Err(e);
                    }
                    outcome.failed = Some((number, e));
                    break;
                }
            }
        }
        if let (Some(before), Ok(after)) = (&first_tree, &outcome.next) {
            outcome.changes = Some(glovebox_model::TreeDiff::between(before, &after.tree));
        }
        Ok(outcome)
    }

    /// What `action`'s targets are in `frame`, as (role, name) — for an
    /// approval prompt. Unknown ids and points over no element are left out;
    /// the action itself is checked properly when it runs.
    pub fn describe_targets(
        &self,
        frame: FrameId,
        action: &Action,
    ) -> Vec<(glovebox_model::Role, String)> {
        let state = self.state();
        let Some(record) = state.frames.get(frame) else { return vec![] };
        action
            .targets()
            .into_iter()
            .filter_map(|t| match t {
                glovebox_model::Target::Element(id) => Some(id),
                glovebox_model::Target::Point(p) => {
                    record.to_global(p).ok().and_then(|g| record.element_at(g))
                }
            })
            .filter_map(|id| record.elements.get(&id).map(|e| (e.role, e.name.clone())))
            .collect()
    }

    /// Sleeps in short slices, giving up when the user presses Stop.
    fn pause(&self, total: Duration) -> Result<(), Refusal> {
        let end = Instant::now() + total;
        while Instant::now() < end {
            if self.stopped() {
                return Err(decide::lifecycle::stopped(decide::lifecycle::StopSeen::Before));
            }
            std::thread::sleep((end - Instant::now()).min(Duration::from_millis(20)));
        }
        Ok(())
    }

    /// Waits a fixed time, or until an element query appears, disappears or
    /// changes in the bound window's tree, then returns an observation.
    /// Approved once as an observation; its looks inside need no more prompts.
    pub fn wait(&self, what: WaitFor, screenshot: bool) -> Result<WaitOutcome, Refusal> {
        if let Err(e) = what.validate() {
            return Err(self.refused(&self.state(), None, e));
        }
        let first = self.observe(None, false)?;
        let start = Instant::now();
        let waited = || start.elapsed().as_millis() as u64;
        let (condition, query, timeout) = match what {
            WaitFor::Seconds(seconds) => {
                self.pause(Duration::from_secs_f64(seconds))?;
                return Ok(WaitOutcome {
                    confirmed: None,
                    observation: self.observe_approved(screenshot)?,
                    waited_ms: waited(),
                });
            }
            WaitFor::Until { condition, query, timeout_secs } => {
                (condition, query, Duration::from_secs_f64(timeout_secs))
            }
        };
        let initial = query.fingerprint(&first.tree);
        let holds = |now: &[String]| match condition {
            WaitCondition::Appear => !now.is_empty(),
            WaitCondition::Disappear => now.is_empty(),
            WaitCondition::Change => now != initial.as_slice(),
        };
        let mut confirmed = condition != WaitCondition::Change && holds(&initial);
        while !confirmed && start.elapsed() < timeout {
            self.pause(WAIT_POLL.min(timeout.saturating_sub(start.elapsed())))?;
            let now = self.observe_approved(false)?;
            confirmed = holds(&query.fingerprint(&now.tree));
        }
        Ok(WaitOutcome {
            confirmed: Some(confirmed),
            observation: self.observe_approved(screenshot)?,
            waited_ms: waited(),
        })
    }

    /// A full-resolution crop of `frame`'s screenshot. `region` is in the
    /// frame's image pixels and must lie inside the image; nothing new is
    /// captured, so no other window can appear in it. Secure input is
    /// probed again right before the crop (`decide::check_secure_input`):
    /// while a password field of the window has focus or a prompt holds
    /// the keyboard, the crop is refused as an observation would be.
    pub fn zoom(&self, frame_id: FrameId, region: Rect) -> Result<Zoomed, Refusal> {
        let mut state = self.state();
        let result = (|| {
            let grant = self.ensure_grant(&mut state, false)?;
            decide::check_pixels(grant.capture, None)?;
            let window = grant.target.clone();
            // The same freshness rule as an input's: a crop is of the frame the agent holds.
            let frame = self.newest_frame(&mut state, frame_id)?;
            let Some(pixels) = frame.pixels.clone() else {
                return Err(decide::session::zoom_without_screenshot(frame_id));
            };
            let question = Host::observation_question(
                window.as_ref(),
                &format!("zoom into {region:?} of the last screenshot"),
            );
            self.approve_unlocked(&mut state, question, &[])?;
            // Other calls ran while the person was asked: the frame must still be the newest.
            self.newest_frame(&mut state, frame_id)?;
            // After the approval (which may have waited): the image is old, secure input is now.
            let shown =
                self.inner.backends.windows.find_window(&WindowRef::Id(frame.window)).gated()?;
            decide::check_secure_input(
                self.secure_input_now(Some(&shown))?,
                decide::Guarded::Read,
            )?;
            decide::session::check_zoom_region(region, frame.image)?;
            // Image pixels back to the window's own, rounding outwards.
            let (nw, nh) = (pixels.width as u64, pixels.height as u64);
            let (iw, ih) = (frame.image.width.max(1) as u64, frame.image.height.max(1) as u64);
            let x0 = region.x as u64 * nw / iw;
            let y0 = region.y as u64 * nh / ih;
            let x1 = ((region.x as u64 + region.width as u64) * nw).div_ceil(iw).min(nw);
            let y1 = ((region.y as u64 + region.height as u64) * nh).div_ceil(ih).min(nh);
            let native =
                Rect::new(x0 as i32, y0 as i32, (x1 - x0).max(1) as u32, (y1 - y0).max(1) as u32);
            let crop = pixels.crop(native).ok_or_else(decide::session::zoom_maps_outside)?;
            let size = self.inner.config.capture_limits.fit(crop.size());
            let png = crop.downscale(size).encode_png()?;
            Ok(Zoomed { frame: frame_id, region: native, size, png })
        })();
        result.map_err(|e| self.refused(&state, None, e))
    }

    /// Moves the grant to another window (denials checked, revision bumped)
    /// and observes it. The window is not raised or focused: switching is
    /// the grant's business, not the user's desktop's.
    pub fn switch_window(
        &self,
        window: &WindowRef,
        screenshot: bool,
    ) -> Result<Observation, Refusal> {
        self.observe(Some(window), screenshot)
    }

    /// Starts an application by desktop-entry name or executable on
    /// `desktop` (the user's, or the agent display glovebox owns), waits for
    /// its window to map, binds the grant to it and observes it. Denied
    /// applications are refused before anything starts. Costs one action.
    pub fn open_app(
        &self,
        name: &str,
        desktop: Desktop,
        screenshot: bool,
    ) -> Result<OpenedApp, Refusal> {
        let mut state = self.state();
        let result = (|| {
            decide::session::check_app_name(name)?;
            let launcher = self.admit_opening(&mut state)?;
            let plan = launcher.plan(name.trim()).gated()?;
            let on = match desktop {
                Desktop::User => "",
                Desktop::Agent => ", on the agent display",
            };
            self.approve_launch(
                &mut state,
                &plan,
                "start an application",
                format!("{:?}, which runs {}{on}", plan.name, plan.program.display()),
            )?;
            let listed = self.inner.backends.windows.list_windows().gated()?;
            // Already running: its window, not a second copy.
            if let Some(running) = listed.iter().find(|w| {
                w.desktop == desktop
                    && !w.minimized
                    && names_app(w, &plan)
                    && self.denial_of(w).is_none()
            }) {
                let window = running.clone();
                let mut record = self.grant_record("open-app", state.held()?);
                record.detail = Some(format!(
                    "{:?} already runs (window {}); nothing started",
                    plan.name, window.id
                ));
                self.audit(record);
                self.bind(&mut state, Some(window.clone()), None);
                let observation = self.observe_target(
                    &mut state,
                    &window,
                    crate::ObserveRequest { screenshot, marks: false, fit: None },
                )?;
                return Ok(OpenedApp {
                    pid: window.id.pid,
                    window,
                    observation,
                    how: Opened::AlreadyRunning,
                    still_loading: false,
                });
            }
            let detail = format!("started {:?} ({}){on}", plan.name, plan.program.display());
            let launch = Launch { plan: &plan, desktop, detail, wait: PageWait::DocumentsItShows };
            self.launch_and_bind(&mut state, launch, &listed, screenshot)
        })();
        result.map_err(|e| self.refused(&state, None, e))
    }

    /// Opens a web address in a browser of its own on the agent display
    /// (the user's browser and focus are never touched), waits for its
    /// window, binds the grant to it and observes it. Only `http` and
    /// `https` addresses, unless the configuration allows local ones
    /// (`file:` and the like). The approval shows the address. Costs one action.
    pub fn open_url(&self, url: &str, screenshot: bool) -> Result<OpenedApp, Refusal> {
        let mut state = self.state();
        let result = (|| {
            let site = decide::web_address(url, self.inner.config.allow_local_urls)?;
            let launcher = self.admit_opening(&mut state)?;
            let plan = launcher.browser(url.trim()).gated()?;
            self.approve_launch(
                &mut state,
                &plan,
                "open a web address",
                format!("{} in {}, on the agent display", url.trim(), plan.name),
            )?;
            let listed = self.inner.backends.windows.list_windows().gated()?;
            // The audit keeps where, not the whole address (its query may hold a token).
            let detail = format!("opened {site} in {} on the agent display", plan.name);
            let wait = PageWait::TheAddressedPage;
            let launch = Launch { plan: &plan, desktop: Desktop::Agent, detail, wait };
            self.launch_and_bind(&mut state, launch, &listed, screenshot)
        })();
        result.map_err(|e| self.refused(&state, None, e))
    }

    /// The checks before anything is started: enabled, input allowed, a
    /// grant that may move to a new window and has an action left.
    fn admit_opening<'s>(
        &'s self,
        state: &mut crate::grant::State,
    ) -> Result<&'s std::sync::Arc<dyn glovebox_platform::AppLauncher + Send + Sync>, Refusal> {
        self.inner.config.check_enabled()?;
        self.check_input_allowed()?;
        let grant = self.ensure_grant(state, true)?;
        decide::check_may_move(grant.scope, "a new application")?;
        decide::check_budget(grant.budget_left)?;
        self.inner.backends.launcher.as_ref().ok_or_else(decide::session::cannot_start_apps)
    }

    /// Refuses a denied program, then asks for approval of starting it.
    fn approve_launch(
        &self,
        state: &mut crate::Locked<'_>,
        plan: &glovebox_platform::LaunchPlan,
        what: &str,
        detail: String,
    ) -> Result<(), Refusal> {
        // What the program resolves to counts as much as its name: a link or
        // a wrapper script must not carry a denied program past the list.
        let mut names = vec![plan.name.to_lowercase()];
        for program in std::iter::once(&plan.program).chain(&plan.runs) {
            names.push(program.to_string_lossy().to_lowercase());
            if let Some(base) = program.file_name() {
                names.push(base.to_string_lossy().to_lowercase());
            }
        }
        decide::check_not_denied(self.inner.denials.denylisted(&names))?;
        let mut request = ApprovalRequest::call(ApprovalClass::Input, vec![what.into()]);
        // Nothing is bound to yet: the question names what will appear.
        request.window = Some("a new window".into());
        request.detail = Some(detail);
        self.approve_unlocked(state, request, &[])?;
        if self.stopped() {
            return Err(decide::lifecycle::stopped(decide::lifecycle::StopSeen::Before));
        }
        // Other calls ran while the person was asked: the grant must still take a new window.
        self.admit_opening(state).map(|_| ())
    }

    /// Runs the launch's plan on its desktop, pays for it, waits for its
    /// window (none of `listed`), gives the user's window back what the
    /// window manager took, binds the grant to the new window and observes it.
    fn launch_and_bind(
        &self,
        state: &mut crate::grant::State,
        launch: Launch<'_>,
        listed: &[WindowInfo],
        screenshot: bool,
    ) -> Result<OpenedApp, Refusal> {
        let Launch { plan, desktop, detail, wait } = launch;
        let b = &self.inner.backends;
        let launcher = b.launcher.as_ref().ok_or_else(decide::session::cannot_start_apps)?;
        // Only a launch on the user's desktop can take the user's focus.
        let user_window = listed
            .iter()
            .find(|w| w.focused && w.desktop == Desktop::User && desktop == Desktop::User)
            .map(|w| w.id);
        let before: Vec<_> = listed.iter().map(|w| w.id).collect();
        let pid = launcher.launch(plan, desktop).gated()?;
        state.held_mut()?.budget_left -= 1;
        let mut record = self.grant_record("open-app", state.held()?);
        record.detail = Some(format!("{detail} as pid {pid}"));
        self.audit(record);
        let window = self.wait_for_new_window(pid, plan, &before)?;
        self.check_not_denied(&window)?;
        // Window managers focus (and raise) a new window as it maps; the user did not ask for that.
        // It may do so a moment after the window is found (a CI run saw the focus move
        // right after open_app returned): watched for a while, handed back each time.
        let mut how = Opened::Started;
        if let Some(user) = user_window {
            let watch_until = Instant::now() + HAND_BACK_WATCH;
            loop {
                match launcher.hand_back(user, window.id) {
                    Ok(true) => how = Opened::StartedAndHandedBack,
                    Ok(false) => {}
                    Err(e) => {
                        let mut record = self.grant_record("open-app", state.held()?);
                        record.detail = Some(format!(
                            "could not give the user's window back its focus: {}",
                            e.message
                        ));
                        self.audit(record);
                        break;
                    }
                }
                if Instant::now() >= watch_until {
                    break;
                }
                std::thread::sleep(WAIT_POLL / 2);
            }
        }
        let window =
            b.windows.find_window(&glovebox_model::WindowRef::Id(window.id)).unwrap_or(window);
        self.bind(state, Some(window.clone()), None);
        let look = crate::ObserveRequest { screenshot, marks: false, fit: None };
        let mut observation = self.observe_target(state, &window, look)?;
        // Answered once its page is there: a browser maps its window before the page loads.
        let loaded_by = Instant::now() + PAGE_LOAD_BOUND;
        while page_loading(&observation.tree, wait) && Instant::now() < loaded_by {
            self.pause(WAIT_POLL)?;
            observation = self.observe_target(state, &window, look)?;
        }
        let still_loading = page_loading(&observation.tree, wait);
        Ok(OpenedApp { pid, window, observation, how, still_loading })
    }

    /// The first new window of the started process (or a descendant of it),
    /// or failing that one whose class names the application.
    fn wait_for_new_window(
        &self,
        pid: u32,
        plan: &glovebox_platform::LaunchPlan,
        before: &[glovebox_model::WindowId],
    ) -> Result<WindowInfo, Refusal> {
        let processes = &self.inner.backends.processes;
        let descends = |mut p: u32| {
            for _ in 0..16 {
                if p == pid {
                    return true;
                }
                match processes.parent(p) {
                    Some(parent) if parent > 1 => p = parent,
                    _ => return false,
                }
            }
            false
        };
        let named = |w: &WindowInfo| names_app(w, plan);
        let deadline = Instant::now() + OPEN_APP_TIMEOUT;
        loop {
            let fresh: Vec<WindowInfo> = self
                .inner
                .backends
                .windows
                .list_windows()
                .gated()?
                .into_iter()
                .filter(|w| !before.contains(&w.id) && !w.minimized)
                .collect();
            if let Some(w) = fresh
                .iter()
                .find(|w| descends(w.id.pid))
                .or_else(|| fresh.iter().find(|w| named(w)))
            {
                return Ok(w.clone());
            }
            if Instant::now() > deadline {
                return Err(decide::session::no_window_mapped(&plan.name, pid, OPEN_APP_TIMEOUT));
            }
            self.pause(Duration::from_millis(50))?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{page_loading, PageWait};
    use glovebox_model::{AccessibilityTree, Element, ElementId, Fidelity, Role, WindowId};

    fn tree(root: Option<Element>) -> AccessibilityTree {
        let bare =
            AccessibilityTree::without_tree(WindowId { pid: 1, handle: 2 }, "no tree yet".into());
        match root {
            Some(root) => AccessibilityTree { fidelity: Fidelity::Full, root: Some(root), ..bare },
            None => bare,
        }
    }

    fn frame(children: Vec<Element>) -> Element {
        Element { children, ..Element::new(ElementId::tree(1).unwrap(), Role::Frame, "browser") }
    }

    fn document(children: Vec<Element>) -> Element {
        Element { children, ..Element::new(ElementId::tree(2).unwrap(), Role::DocumentWeb, "page") }
    }

    #[test]
    fn an_address_waits_for_a_tree_a_document_and_its_content() {
        let field = Element::new(ElementId::tree(3).unwrap(), Role::Entry, "Full name");
        let wait = PageWait::TheAddressedPage;
        assert!(page_loading(&tree(None), wait));
        assert!(page_loading(&tree(Some(frame(vec![]))), wait));
        assert!(page_loading(&tree(Some(frame(vec![document(vec![])]))), wait));
        assert!(!page_loading(&tree(Some(frame(vec![document(vec![field.clone()])]))), wait));

        let wait = PageWait::DocumentsItShows;
        assert!(!page_loading(&tree(None), wait), "an application without a tree is not a page");
        assert!(!page_loading(&tree(Some(frame(vec![]))), wait));
        assert!(page_loading(&tree(Some(frame(vec![document(vec![])]))), wait));
        assert!(!page_loading(&tree(Some(frame(vec![document(vec![field])]))), wait));
    }
}
