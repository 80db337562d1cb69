//! The accessibility backend object: owns the runtime and the bus
//! connection, maps X windows to their accessibles, and assembles model
//! trees from walks.

use crate::busy::ProcessState;
use crate::events::FirstEvent;
use crate::ids::IdRegistry;
use crate::memo::{Memo, Memos};
use crate::transport::{Bus, BusError, ObjectRef};
use crate::walk::{
    moved_unannounced, read_facts, rect, remember, screen_offset, walk, Cut, RawNode, Reading, Walk,
};
use atspi_common::State;
use futures_util::future::join_all;
use glovebox_model::{
    AccessibilityTree, Element, ElementId, Fidelity, OmittedChildren, Role, TreeBudget,
    TruncatedBy, Truncation, WindowInfo,
};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::{BackendError, BackendErrorKind};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

mod read;

use read::too_many_to_search;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Reads accessibility trees over AT-SPI. One per process is enough; it
/// keeps element ids stable across observations.
pub struct AtspiBackend {
    pub(crate) runtime: tokio::runtime::Runtime,
    session_bus: Option<String>,
    bus: Mutex<Option<Connected>>,
    /// The first connection, started as the backend is made so that it
    /// comes up while the caller does its other work (a one-shot command
    /// lists windows meanwhile).
    connecting: Mutex<Option<tokio::task::JoinHandle<Result<Bus, String>>>>,
    ids: Mutex<IdRegistry>,
    pids: Mutex<HashMap<String, u32>>,
    /// Accessibles already matched to X windows (by xid), checked for life on use.
    pub(crate) frames: Mutex<HashMap<u32, ObjectRef>>,
    /// Applications whose Collection queries were seen to find what a tree
    /// read finds (by bus name); only those are asked instead of read.
    collection_trusted: Mutex<HashMap<String, bool>>,
    /// Numbers given to top-level accessibles listed as windows (desktops
    /// whose compositor lists none), stable while the accessible lives.
    pub(crate) window_numbers: Mutex<HashMap<ObjectRef, u32>>,
    /// The events of the application an input is about to reach (by bus name).
    watch: Mutex<Option<(String, zbus::MessageStream)>>,
    /// Applications whose events never went quiet within the cap last time
    /// (an animation): they are given only the first wait.
    noisy: Mutex<std::collections::HashSet<String>>,
    /// When each application's first event after an input came, beside the
    /// answer to a request sent after it (by bus name): only one seen to
    /// send them before answering is believed when it answers with none.
    /// One seen to send them later is not believed again.
    reactions: Mutex<HashMap<String, FirstEvent>>,
    /// What was read of each application, kept current by its events.
    memos: Memos,
}

impl std::fmt::Debug for AtspiBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AtspiBackend")
    }
}

/// The accessibility bus as last connected (or why not), and when that was
/// last known to hold.
struct Connected {
    bus: Result<Bus, String>,
    checked: std::time::Instant,
}

/// Connects to the accessibility bus and registers for events. Without a
/// listener GTK keeps no cache and toolkits send no events; walking still
/// works without either.
async fn open_bus(session: Option<String>) -> Result<Bus, String> {
    match tokio::time::timeout(CONNECT_TIMEOUT, Bus::connect(session.as_deref())).await {
        Err(_) => Err(format!("no answer from the accessibility bus within {CONNECT_TIMEOUT:?}")),
        Ok(Err(e)) => Err(e.to_string()),
        Ok(Ok(bus)) => {
            let _ = tokio::time::timeout(CONNECT_TIMEOUT, bus.listen_for_events()).await;
            Ok(bus)
        }
    }
}

/// How long a connection (or a failure to connect) is trusted before it is
/// checked again: a killed bus, or one started later, is noticed within this.
const RECHECK: Duration = Duration::from_secs(1);

/// Where keys sent to a window would land.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyDestination {
    /// A focused password field.
    Password,
    /// A focused element that is not a password field.
    Field,
    /// No element says it has the focus (an inactive GTK3 window reports
    /// none); whether the window has a password field at all.
    Unknown { has_password: bool },
}

/// A window's accessibles as read, or why it has none.
enum WindowRead {
    Read { frame_extents: Option<(i32, i32, i32, i32)>, walked: Walk },
    NoAccessible(String),
}

/// The window's accessible, or why there is none.
enum FrameMatch {
    Found { frame: ObjectRef, extents: Option<(i32, i32, i32, i32)> },
    Absent(String),
}

fn bus_refusal(e: BusError) -> BackendError {
    match e {
        BusError::Gone(what) => {
            BackendError::gone(format!("{what} went away while it was being read"))
        }
        other => BackendError::unavailable(other.to_string()),
    }
}

impl AtspiBackend {
    /// A backend on the session bus of `$DBUS_SESSION_BUS_ADDRESS`.
    pub fn new() -> Result<AtspiBackend, BackendError> {
        Self::on_session_bus(None)
    }

    /// A backend on the given session bus (e.g. a sandbox desktop's).
    pub fn on_session_bus(address: Option<&str>) -> Result<AtspiBackend, BackendError> {
        // One worker follows the applications' events between calls (and
        // reads the bus); the calling thread drives each call itself.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("glovebox-atspi")
            .enable_all()
            .build()
            .map_err(|e| BackendError::unavailable(format!("starting the D-Bus runtime: {e}")))?;
        let connecting = runtime.spawn(open_bus(address.map(str::to_owned)));
        Ok(AtspiBackend {
            connecting: Mutex::new(Some(connecting)),
            runtime,
            session_bus: address.map(str::to_owned),
            bus: Mutex::new(None),
            ids: Mutex::default(),
            pids: Mutex::default(),
            frames: Mutex::default(),
            collection_trusted: Mutex::default(),
            window_numbers: Mutex::default(),
            watch: Mutex::default(),
            noisy: Mutex::default(),
            reactions: Mutex::default(),
            memos: Memos::default(),
        })
    }

    /// The accessibility bus, connected on first use. A connection is
    /// pinged again when it was last known to hold more than [`RECHECK`]
    /// ago, and replaced when the bus is gone; a failure to connect is
    /// retried after as long, so a bus that comes back is used again.
    pub(crate) fn bus(&self) -> Result<Bus, String> {
        let mut slot = self.bus.lock_recovered();
        match slot.as_mut() {
            Some(c) if c.checked.elapsed() < RECHECK => return c.bus.clone(),
            Some(c @ Connected { bus: Ok(_), .. }) => {
                let bus = c.bus.clone().expect("matched Ok");
                if self
                    .runtime
                    .block_on(async {
                        tokio::time::timeout(Duration::from_millis(500), bus.ping()).await
                    })
                    .is_ok_and(|r| r.is_ok())
                {
                    c.checked = std::time::Instant::now();
                    return Ok(bus);
                }
            }
            _ => {}
        }
        if slot.as_ref().is_some_and(|c| c.bus.is_ok()) {
            // A new bus knows none of the old one's objects, and hands its
            // unique names (`:1.5`) out again to other processes.
            self.frames.lock_recovered().clear();
            self.collection_trusted.lock_recovered().clear();
            self.pids.lock_recovered().clear();
            self.window_numbers.lock_recovered().clear();
            self.memos.clear();
            *self.ids.lock_recovered() = IdRegistry::default();
        }
        let early = self.connecting.lock_recovered().take();
        let connected = self.runtime.block_on(async {
            match early {
                // What failed early (a bus not up yet) is tried again now.
                Some(started) => match started.await {
                    Ok(Ok(bus)) => Ok(bus),
                    _ => open_bus(self.session_bus.clone()).await,
                },
                None => open_bus(self.session_bus.clone()).await,
            }
        });
        *slot = Some(Connected { bus: connected.clone(), checked: std::time::Instant::now() });
        connected
    }

    /// The accessible matched to `window` by an earlier observation.
    pub(crate) fn frame_of(&self, window: &WindowInfo) -> Option<ObjectRef> {
        self.frames.lock_recovered().get(&window.id.handle).cloned()
    }

    /// The accessible object behind `id`, which must come from `window`.
    pub fn resolve(&self, window: &WindowInfo, id: ElementId) -> Result<ObjectRef, BackendError> {
        self.ids.lock_recovered().resolve(window.id.handle, id)
    }

    /// The toolkit of the application behind `window`, when an observation
    /// matched it to an accessible (asked over the bus once per application).
    pub fn toolkit(&self, window: &WindowInfo) -> Option<crate::transport::ToolkitName> {
        let frame = self.frame_of(window)?;
        let bus = self.bus().ok()?;
        self.runtime.block_on(async {
            tokio::time::timeout(CONNECT_TIMEOUT, bus.toolkit(&frame.bus)).await.ok()?.ok()
        })
    }

    /// The shortcuts of elements `ids` of `window` as GetKeyBinding says
    /// them (in glovebox's spelling), for elements whose GetActions named
    /// none: Qt tells a menu item's accelerator to GetKeyBinding alone.
    /// Asked only when a chord is looked for, never on a tree read.
    pub fn asked_shortcuts(
        &self,
        window: &WindowInfo,
        ids: &[ElementId],
    ) -> Vec<(ElementId, glovebox_model::KeyCombo)> {
        let Ok(bus) = self.bus() else { return vec![] };
        let objects: Vec<(ElementId, ObjectRef)> =
            ids.iter().filter_map(|&id| Some((id, self.resolve(window, id).ok()?))).collect();
        self.runtime.block_on(async {
            let asked = join_all(
                objects
                    .iter()
                    .map(|(id, object)| async { (*id, bus.key_binding(object, 0).await.ok()) }),
            );
            match tokio::time::timeout(CONNECT_TIMEOUT, asked).await {
                Ok(answers) => answers
                    .into_iter()
                    .filter_map(|(id, binding)| Some((id, crate::shortcut::shortcut(&binding?)?)))
                    .collect(),
                Err(_) => vec![],
            }
        })
    }

    /// The live role and name of the accessible behind `id` (read now, not
    /// from the last observation).
    pub fn describe(
        &self,
        window: &WindowInfo,
        id: ElementId,
    ) -> Result<(Role, String), BackendError> {
        let object = self.resolve(window, id)?;
        let bus = self.bus().map_err(BackendError::unavailable)?;
        self.runtime.block_on(async {
            let read = async { tokio::try_join!(bus.role(&object), bus.name(&object)) };
            match tokio::time::timeout(CONNECT_TIMEOUT, read).await {
                Err(_) => Err(BackendError::new(
                    BackendErrorKind::Timeout,
                    format!("{id}'s application did not answer"),
                )),
                Ok(Err(e)) => Err(bus_refusal(e)),
                Ok(Ok((role, name))) => Ok((role, name)),
            }
        })
    }

    /// Whether a password field of `window` has keyboard focus, read now.
    /// A window without an accessible cannot say; that is `false` here, and
    /// the keyboard-grab probe is what covers such prompts.
    pub fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError> {
        let frame = self.frame_of(window);
        let bus = self.bus().ok();
        let query = |states: &[State], roles: &[Role]| -> Option<Vec<ObjectRef>> {
            let (frame, bus) = (frame.as_ref()?, bus.as_ref()?);
            let asked = self.runtime.block_on(async {
                tokio::time::timeout(CONNECT_TIMEOUT, bus.find_matching(frame, states, roles, 1))
                    .await
            });
            asked.ok()?.ok()
        };
        let app = frame.as_ref().map(|f| f.bus.clone());
        let trusted =
            app.as_ref().and_then(|a| self.collection_trusted.lock_recovered().get(a).copied());
        if trusted == Some(true) {
            if let Some(found) = query(&[State::Focused], &[Role::PasswordText]) {
                return Ok(found.iter().any(|o| !o.is_null()));
            }
        }
        // A read of the window's facts decides (positions, actions and names
        // are not needed); when it shows a focused element, it also tells
        // whether this application's Collection answers truthfully.
        let budget = TreeBudget::new(5_000, 64, Duration::from_secs(2)).expect("valid budget");
        let walked = match self.read(window, budget, Reading::Facts)? {
            WindowRead::Read { walked, .. } => walked,
            WindowRead::NoAccessible(_) => return Ok(false),
        };
        let focused = |n: &&RawNode| n.states.contains(State::Focused);
        if let (None, Some(app)) = (trusted, app) {
            if walked.nodes.iter().any(too_many_to_search) {
                self.distrust_collection(&app);
            } else if let Some(expected) =
                walked.nodes.iter().find(focused).map(|n| n.object.clone())
            {
                let answered = query(&[State::Focused], &[])
                    .map(|found| found.into_iter().find(|o| !o.is_null()));
                let agrees = matches!(answered, Some(Some(a)) if a == expected);
                self.collection_trusted.lock_recovered().insert(app, agrees);
            }
        }
        Ok(walked.nodes.iter().filter(focused).any(|n| n.role.is_password()))
    }

    /// Where keys sent to `window` would land, as far as its accessibles
    /// say (a read of their facts only).
    pub fn key_destination(&self, window: &WindowInfo) -> Result<KeyDestination, BackendError> {
        let walked = match self.read(window, TreeBudget::default(), Reading::Facts)? {
            WindowRead::Read { walked, .. } => walked,
            WindowRead::NoAccessible(_) => {
                return Ok(KeyDestination::Unknown { has_password: false })
            }
        };
        let password = |n: &RawNode| n.role.is_password();
        let focused: Vec<&RawNode> =
            walked.nodes.iter().filter(|n| n.states.contains(State::Focused)).collect();
        Ok(match focused.as_slice() {
            [] => KeyDestination::Unknown { has_password: walked.nodes.iter().any(password) },
            some if some.iter().any(|n| password(n)) => KeyDestination::Password,
            _ => KeyDestination::Field,
        })
    }

    /// Never asks `app` a Collection query again: it shows a container too
    /// large to search (see [`too_many_to_search`]).
    fn distrust_collection(&self, app: &str) {
        self.collection_trusted.lock_recovered().insert(app.to_owned(), false);
    }

    /// Whether password focus in `window` is checked by a Collection query
    /// (validated against a tree read of the same application) rather than
    /// by reading the tree.
    pub fn password_check_uses_collection(&self, window: &WindowInfo) -> bool {
        let app = self.frame_of(window).map(|f| f.bus);
        app.and_then(|a| self.collection_trusted.lock_recovered().get(&a).copied()).unwrap_or(false)
    }

    /// Reads `window`'s tree within `budget`. A window without an accessible
    /// gets fidelity `none` and its reason; an application that stops
    /// answering before its window is found gets `COMPUTER_TIMEOUT`.
    pub fn inspect(
        &self,
        window: &WindowInfo,
        budget: TreeBudget,
    ) -> Result<AccessibilityTree, BackendError> {
        let started = std::time::Instant::now();
        match self.read(window, budget, Reading::Tree)? {
            WindowRead::Read { frame_extents, walked } => {
                let mut tree = self.assemble(window, walked, frame_extents, budget, started);
                if tree.fidelity == Fidelity::Full {
                    if let Some(reason) = crate::no_tree::bare_browser_frame(&tree, &window.app) {
                        tree.fidelity = Fidelity::Partial { reason };
                    }
                }
                Ok(tree)
            }
            WindowRead::NoAccessible(reason) => Ok(AccessibilityTree {
                elapsed_ms: started.elapsed().as_millis() as u64,
                ..AccessibilityTree::without_tree(window.id, reason)
            }),
        }
    }
}

impl glovebox_platform::AccessibilitySource for AtspiBackend {
    fn inspect(
        &self,
        window: &WindowInfo,
        budget: TreeBudget,
    ) -> Result<AccessibilityTree, BackendError> {
        AtspiBackend::inspect(self, window, budget)
    }

    fn read_value(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<glovebox_model::ElementValue, BackendError> {
        AtspiBackend::read_value(self, window, id, max_chars)
    }

    fn watch_events(&self, window: &WindowInfo) {
        let stream = self.frame_of(window).zip(self.bus().ok()).and_then(|(frame, bus)| {
            let stream = self.runtime.block_on(async {
                tokio::time::timeout(WATCH_TIMEOUT, bus.events_of(&frame.bus)).await.ok()?.ok()
            })?;
            Some((frame.bus, stream))
        });
        let earlier = std::mem::replace(&mut *self.watch.lock_recovered(), stream);
        // Ending a watch removes its match rule from a task on this runtime.
        let _runtime = self.runtime.enter();
        drop(earlier);
    }

    /// An application seen flooding is given only the first wait from then
    /// on, until a settle of its sees it quiet again.
    fn working(&self, window: &WindowInfo) -> bool {
        ProcessState::watch(window.id.pid) == ProcessState::Working
    }

    fn settle(&self, mut limits: glovebox_platform::SettleLimits) -> glovebox_platform::Settled {
        use glovebox_platform::Settled;
        let Some((app, mut stream)) = self.watch.lock_recovered().take() else {
            return Settled::Unwatched;
        };
        let mut noisy = self.noisy.lock_recovered();
        if noisy.contains(&app) {
            limits.cap = limits.cap.min(limits.first_event);
        }
        let learned = self.reactions.lock_recovered().get(&app).copied();
        // The request the application serves after the input: its root's
        // role. Its answer is believed for an application seen to send its
        // reactions before answering, or, not seen yet, one whose toolkit
        // handles input where it answers.
        let bus = self.bus().ok().filter(|_| limits.after_answer.is_some());
        let root = ObjectRef::root_of(&app);
        let answer = async move {
            let bus = bus?;
            bus.role(&root).await.ok()?;
            Some(match learned {
                Some(first) => first == FirstEvent::InTurn,
                None => {
                    bus.toolkit(&root.bus).await.is_ok_and(|t| t.family.reacts_where_it_answers())
                }
            })
        };
        let watched = self.runtime.block_on(crate::events::settle(&mut stream, answer, limits));
        match watched.first_event {
            Some(FirstEvent::Late) => {
                self.reactions.lock_recovered().insert(app.clone(), FirstEvent::Late);
            }
            Some(FirstEvent::InTurn) => {
                self.reactions.lock_recovered().entry(app.clone()).or_insert(FirstEvent::InTurn);
            }
            None => {}
        }
        let settled = watched.settled;
        if matches!(settled, Settled::Silent | Settled::Answered) {
            // Whatever the input did, the application said nothing of it:
            // what is kept of it may be stale.
            self.memos.distrust(&app);
        }
        match settled {
            Settled::Flooding { .. } if !limits.cap.is_zero() => noisy.insert(app),
            Settled::Quiet { .. } | Settled::Silent | Settled::Answered => noisy.remove(&app),
            _ => false,
        };
        let _runtime = self.runtime.enter();
        drop(stream);
        settled
    }
}

/// How long starting a watch may take (one AddMatch round trip).
const WATCH_TIMEOUT: Duration = Duration::from_millis(300);

impl AtspiBackend {
    /// The text (or number) of element `id`, read now because the caller
    /// named it. The role is read live: a field that became a password
    /// field since the frame is refused all the same.
    pub fn read_value(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<glovebox_model::ElementValue, BackendError> {
        let object = self.resolve(window, id)?;
        let bus = self.bus().map_err(BackendError::unavailable)?;
        let read = async {
            let (role, interfaces) = tokio::try_join!(bus.role(&object), bus.interfaces(&object))?;
            if role.is_password() {
                return Ok(Err(BackendError::new(
                    BackendErrorKind::SecureInput,
                    format!("{id} is a password field: its content is never read"),
                )));
            }
            let value = if interfaces.contains(atspi_common::Interface::Text) {
                let (text, total_chars) = bus.text_prefix(&object, max_chars).await?;
                Some((text, total_chars))
            } else if interfaces.contains(atspi_common::Interface::Value) {
                let number = bus.current_value(&object).await?;
                let text = if number.fract() == 0.0 && number.abs() < 1e15 {
                    format!("{}", number as i64)
                } else {
                    format!("{number}")
                };
                Some((text.clone(), text.chars().count()))
            } else {
                None
            };
            Ok(match value {
                Some((text, total_chars)) => {
                    Ok(glovebox_model::ElementValue { id, role, text, total_chars })
                }
                None => Err(BackendError::new(
                    BackendErrorKind::NotActionable,
                    format!("{id} ({}) has no text or value to read", role),
                )),
            })
        };
        self.runtime.block_on(async {
            match tokio::time::timeout(CONNECT_TIMEOUT, read).await {
                Err(_) => Err(BackendError::new(
                    BackendErrorKind::Timeout,
                    format!("{id}'s application did not answer the read"),
                )),
                Ok(Err(e)) => Err(bus_refusal(e)),
                Ok(Ok(result)) => result,
            }
        })
    }
}

impl AtspiBackend {
    /// Whether accessibility trees can be read here (the doctor's check, as a capability).
    pub fn support() -> glovebox_platform::Support {
        let check = doctor_check();
        match check.status {
            glovebox_platform::doctor::CheckStatus::Missing => {
                glovebox_platform::Support::Missing { reason: check.detail }
            }
            _ => glovebox_platform::Support::Available {
                detail: format!("AT-SPI: {}", check.detail),
            },
        }
    }
}

/// The doctor's accessibility check: the bus is found and answers.
pub fn doctor_check() -> glovebox_platform::doctor::Check {
    use glovebox_platform::doctor::Check;
    const DISABLES: &[&str] =
        &["accessibility trees (observe falls back to pixels only)", "semantic background input"];
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        return Check::missing("accessibility bus", "cannot start the D-Bus runtime", DISABLES);
    };
    runtime.block_on(async {
        match tokio::time::timeout(CONNECT_TIMEOUT, async {
            let bus = Bus::connect(None).await?;
            Ok::<_, BusError>((bus.applications().await?, bus.turned_accessibility_on))
        })
        .await
        {
            Err(_) => Check::missing("accessibility bus", format!("no answer within {CONNECT_TIMEOUT:?}"), DISABLES),
            Ok(Err(e)) => Check::missing("accessibility bus", format!("{e} (install at-spi2-core; a session bus must be running)"), DISABLES),
            Ok(Ok((apps, turned_on))) => {
                let status = if turned_on {
                    "; org.a11y.Status.IsEnabled was off and glovebox turned it on: Chromium and Electron apps started before now expose no tree until restarted"
                } else {
                    "; org.a11y.Status.IsEnabled is on"
                };
                Check::ok("accessibility bus", format!("AT-SPI registry answers; {} accessible application(s){status}", apps.len()))
            }
        }
    })
}

/// The doctor's word on the windows whose application exposes no tree:
/// each named with why and the one fix ([`crate::no_tree`]). `None` when
/// the accessibility bus does not answer (its own check says so).
pub fn windows_without_trees_check(
    windows: &[WindowInfo],
) -> Option<glovebox_platform::doctor::Check> {
    use crate::no_tree::DarkToolkit;
    use glovebox_platform::doctor::Check;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    let registered: std::collections::HashSet<u32> = runtime.block_on(async {
        tokio::time::timeout(CONNECT_TIMEOUT, async {
            let bus = Bus::connect(None).await.ok()?;
            let apps = bus.applications().await.ok()?;
            let pids = join_all(apps.iter().map(|app| bus.pid_of(&app.bus))).await;
            Some(pids.into_iter().filter_map(Result::ok).collect())
        })
        .await
        .ok()
        .flatten()
    })?;
    let mut named = std::collections::HashSet::new();
    let mut reasons: Vec<String> = windows
        .iter()
        .filter(|w| w.id.pid != 0 && !registered.contains(&w.id.pid) && named.insert(w.id.pid))
        .map(|w| DarkToolkit::reason(DarkToolkit::of_process(w.id.pid), &w.app, w.id.pid))
        .collect();
    // A browser registered without its page is read, as `observe` reads it.
    let browsers: Vec<&WindowInfo> = windows
        .iter()
        .filter(|w| registered.contains(&w.id.pid) && named.insert(w.id.pid))
        .filter(|w| DarkToolkit::of_process(w.id.pid) == Some(DarkToolkit::Chromium))
        .collect();
    if let (false, Ok(backend)) = (browsers.is_empty(), AtspiBackend::on_session_bus(None)) {
        for window in browsers {
            if let Ok(tree) = backend.inspect(window, glovebox_model::TreeBudget::default()) {
                if let Fidelity::Partial { reason } | Fidelity::None { reason } = tree.fidelity {
                    reasons.push(reason);
                }
            }
        }
    }
    Some(if reasons.is_empty() {
        Check::ok(
            "windows' trees",
            format!(
                "the application of every listed window ({}) exposes accessibility",
                windows.len()
            ),
        )
    } else {
        Check::warning(
            "windows' trees",
            reasons.join("; "),
            &["the accessibility trees of these windows (their pixels stay readable)"],
        )
    })
}
