//! The Windows system calls behind glovebox-platform's traits, put
//! together into one desktop ([`backends`]).
//!
//! Run under Wine 10 in CI (window listing, the pixels of visible windows,
//! trees of standard controls, input by messages, the password rule); not
//! yet run on Windows itself. A window of standard controls is read through
//! them and MSAA; a window that draws its own content (no child windows) is
//! read through UI Automation, which under Wine finds no children, so there
//! the controls and MSAA are all there is.

mod capture;
mod input;
mod list;
mod msaa;
mod process;
mod system;
mod uia;

use crate::walk::{walk, IdRegistry, NodeKey};
use glovebox_model::{
    AccessibilityTree, Action, CaptureLimits, DisplaySelection, ElementId, ElementValue, Monitor,
    TreeBudget, WindowId, WindowInfo, WindowRef,
};
use glovebox_platform::compose::{
    covering, desktop_capture, refuse_black, visible_parts_of_hidden, window_capture,
    window_capture_rect,
};
use glovebox_platform::doctor::{Check, DoctorReport, SessionType};
use glovebox_platform::process::ProcessTable;
use glovebox_platform::{
    AccessibilitySource, BackendError, BackendErrorKind, Backends, Capabilities, Capture, Delivery,
    InputSink, ProtectedPrograms, Reach, ResolvedTarget, ScreenCapture, SecureInputProbe,
    SettleLimits, Settled, Support, WindowSource,
};
use std::sync::{Arc, Mutex};

/// The person's Windows desktop.
#[derive(Default)]
pub struct WindowsDesktop {
    ids: Mutex<IdRegistry>,
    processes: process::Processes,
}

impl WindowSource for WindowsDesktop {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        list::windows(&self.processes)
    }
}

impl ScreenCapture for WindowsDesktop {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        capture::monitors()
    }

    fn capture_window(
        &self,
        reference: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        let windows = self.list_windows()?;
        let position = windows
            .iter()
            .position(|w| reference.resolve(std::slice::from_ref(w)).is_ok())
            .ok_or_else(|| BackendError::gone(format!("no listed window is {reference}")))?;
        let window = windows[position].clone();
        let handle = list::live(&window)?;
        let rect = window_capture_rect(&window, capture::screen_bounds()?)?;
        let crop = |image: glovebox_platform::RgbImage, from: glovebox_model::Rect| {
            image
                .crop(glovebox_model::Rect::new(
                    rect.x - from.x,
                    rect.y - from.y,
                    rect.width,
                    rect.height,
                ))
                .ok_or_else(|| {
                    BackendError::new(
                        BackendErrorKind::Moved,
                        format!("window {} moved while it was read", window.id),
                    )
                })
        };
        // The window's own pixels, covered parts included, where the system draws them.
        if let Some((from, image)) = capture::own_pixels(handle) {
            return Ok(window_capture(&window, rect, crop(image, from)?, limits, &[]));
        }
        // Else what shows of it: whatever lies above it is painted black.
        let (from, image) = capture::visible_pixels(handle)?;
        let image = crop(image, from)?;
        refuse_black(&image, window.id)?;
        let above = windows[..position].iter().filter(|w| !w.minimized).map(|w| w.geometry);
        let covered = covering(rect, above);
        Ok(window_capture(&window, rect, image, limits, &covered))
    }

    fn capture_desktop(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
        hidden: &[WindowId],
    ) -> Result<Capture, BackendError> {
        let stacking: Vec<_> = self
            .list_windows()?
            .iter()
            .filter(|w| !w.minimized)
            .map(|w| (w.geometry, hidden.contains(&w.id)))
            .collect();
        let hidden_parts = visible_parts_of_hidden(&stacking);
        desktop_capture(&self.monitors()?, selection, limits, &hidden_parts, capture::screen_pixels)
    }
}

impl AccessibilitySource for WindowsDesktop {
    fn inspect(
        &self,
        window: &WindowInfo,
        budget: TreeBudget,
    ) -> Result<AccessibilityTree, BackendError> {
        let handle = list::live(window)?;
        let mut ids = self.ids.lock().unwrap_or_else(|p| p.into_inner());
        // Standard controls say exactly what they are, and their messages
        // carry input; a window drawing its own content has only UI
        // Automation to say what is in it.
        if !msaa::has_child_windows(handle) {
            if let Some(root) = uia::root(handle) {
                let tree = walk(crate::uia::Uia(root), window, budget, &mut ids);
                if tree.root.as_ref().is_some_and(|r| !r.children.is_empty()) {
                    return Ok(tree);
                }
            }
        }
        Ok(walk(msaa::Win32Node::Window(handle), window, budget, &mut ids))
    }

    fn read_value(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<ElementValue, BackendError> {
        let top = list::live(window)?;
        let key =
            self.ids.lock().unwrap_or_else(|p| p.into_inner()).resolve(window.id.handle, id)?;
        let NodeKey::Window(h) = key else {
            return Err(BackendError::not_actionable(format!(
                "{id} holds no text of its own; its name is what it shows"
            )));
        };
        let control = system::hwnd(h);
        if !system::within(top, control) {
            return Err(BackendError::new(
                BackendErrorKind::StaleElement,
                format!("{id} is gone from the window; observe again"),
            ));
        }
        let kind = msaa::standard(control);
        let role = kind.map(|k| k.role()).unwrap_or(glovebox_model::Role::Unknown);
        match kind {
            Some(crate::roles::StandardControl::Edit { password: true, .. }) => {
                Err(BackendError::new(
                    BackendErrorKind::SecureInput,
                    format!("{id} is a password field: its text is never read"),
                ))
            }
            Some(k) if k.text_is_value() || k == crate::roles::StandardControl::ComboBox => {
                let text = msaa::control_text(control, 1 << 20).ok_or_else(|| {
                    BackendError::new(
                        BackendErrorKind::Timeout,
                        "the application did not answer in time",
                    )
                })?;
                let total_chars = text.chars().count();
                Ok(ElementValue {
                    id,
                    role,
                    text: text.chars().take(max_chars).collect(),
                    total_chars,
                })
            }
            _ => Err(BackendError::not_actionable(format!("{id} holds no value"))),
        }
    }

    fn watch_events(&self, _window: &WindowInfo) {}

    /// No events are watched yet (WinEvent hooks would be): the host waits by the clock.
    fn settle(&self, _limits: SettleLimits) -> Settled {
        Settled::Unwatched
    }

    fn working(&self, _window: &WindowInfo) -> bool {
        false
    }
}

impl InputSink for WindowsDesktop {
    fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        reach: Reach,
    ) -> Result<Delivery, BackendError> {
        input::Input { ids: &self.ids }.deliver(window, action, targets, reach)
    }
}

impl SecureInputProbe for WindowsDesktop {
    fn keyboard_grabbed(&self) -> Result<bool, BackendError> {
        Ok(input::secure_desktop())
    }

    fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError> {
        input::focused_password(window)
    }
}

/// The person's desktop, every backend from one [`WindowsDesktop`].
pub fn backends(protected: ProtectedPrograms) -> Result<Backends, BackendError> {
    let desktop = Arc::new(WindowsDesktop::default());
    list::top_level()?;
    let processes: Arc<dyn ProcessTable> = Arc::new(process::Processes);
    Ok(Backends {
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
    })
}

/// What this session offers.
pub fn capabilities() -> Capabilities {
    let listing = match list::top_level() {
        Ok(_) => Support::Available { detail: "EnumWindows".into() },
        Err(e) => Support::Missing { reason: e.message },
    };
    Capabilities {
        backend: "windows".into(),
        window_listing: listing,
        window_capture: Support::Available {
            detail:
                "PrintWindow (PW_RENDERFULLCONTENT), else the window's DC with covered parts black"
                    .into(),
        },
        desktop_capture: Support::Available { detail: "the screen's DC".into() },
        accessibility: Support::Available {
            detail: "standard controls and MSAA; UI Automation not read yet".into(),
        },
    }
}

/// The environment report.
pub fn doctor() -> DoctorReport {
    let mut checks = vec![];
    checks.push(match list::top_level() {
        Ok(windows) => Check::ok("windows", format!("{} top-level windows listed", windows.len())),
        Err(e) => Check::missing("windows", e.message, &["every listing, capture and input"]),
    });
    checks.push(match capture::monitors() {
        Ok(monitors) => Check::ok("monitors", format!("{} monitor(s)", monitors.len())),
        Err(e) => Check::missing("monitors", e.message, &["screenshots"]),
    });
    checks.push(if input::secure_desktop() {
        Check::warning(
            "input desktop",
            "the secure desktop holds the input",
            &["input until it closes"],
        )
    } else {
        Check::ok("input desktop", "the session's own desktop holds the input")
    });
    checks.push(match system::has_ui_automation() {
        true => Check::ok(
            "ui automation",
            "CUIAutomation answers (read for windows without child controls)",
        ),
        false => Check::warning(
            "ui automation",
            "CUIAutomation cannot be made: trees come from the standard controls and MSAA alone",
            &["trees of applications that draw their own content"],
        ),
    });
    DoctorReport { platform: "windows".into(), session: SessionType::Windows, checks }
}
