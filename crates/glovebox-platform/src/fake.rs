//! A fake desktop for tests of pure logic (policy, loop, surfaces): windows
//! are solid rectangles painted in stacking order on a black screen.
//! Backend behaviour is tested against the real X11 backend, not this.

use crate::compose::{desktop_capture, window_capture, window_capture_rect};
use crate::error::BackendError;
use crate::{
    AccessibilitySource, Capture, Delivery, InputSink, ResolvedTarget, RgbImage, ScreenCapture,
    SecureInputProbe, WindowSource,
};
use glovebox_model::{
    AccessibilityTree, Action, CaptureLimits, DisplaySelection, Element, ElementId, ElementState,
    Fidelity, Monitor, Rect, Role, TreeBudget, WindowId, WindowInfo, WindowRef,
};
use std::sync::Mutex;

/// One action the fake desktop received: window, action, targets, mode.
pub type DeliveredAction = (WindowId, Action, Vec<ResolvedTarget>, crate::Reach);

/// One window of the fake desktop.
#[derive(Debug, Clone)]
pub struct FakeWindow {
    /// What listing reports of it; `geometry` is also where it is painted.
    pub info: WindowInfo,
    /// The solid colour its rectangle is painted in.
    pub colour: [u8; 3],
}

/// Windows frontmost first, monitors, and the screen they sit on. Every
/// window's tree is a frame with an `OK` button (e2) and a password field
/// (e3); input is recorded, not performed.
#[derive(Debug)]
pub struct FakeDesktop {
    /// The root window's rectangle: what captures can read.
    pub screen: Rect,
    /// The displays, as the monitors report gives them.
    pub monitors: Mutex<Vec<Monitor>>,
    /// The windows, frontmost first.
    pub windows: Mutex<Vec<FakeWindow>>,
    /// Another client holds the keyboard.
    pub keyboard_grab: Mutex<bool>,
    /// The window whose password field has focus.
    pub password_focus: Mutex<Option<WindowId>>,
    /// Every delivered action, in order.
    pub delivered: Mutex<Vec<DeliveredAction>>,
    /// A delivered action opens something that grabs the keyboard (a menu, a prompt).
    pub grab_on_delivery: Mutex<bool>,
    /// What an explicit read of an element returns (any window).
    pub values: Mutex<std::collections::HashMap<ElementId, String>>,
    /// Windows that expose no accessibility tree (a Tk program, xterm).
    pub treeless: Mutex<std::collections::HashSet<glovebox_model::WindowId>>,
    /// A slow probe, held by a test: the probe for a focused password field
    /// says on the first channel that it runs, and waits on the second
    /// (up to 10 s) before it answers.
    pub probe_gate: Mutex<Option<ProbeGate>>,
}

/// Both ends of a held probe ([`FakeDesktop::probe_gate`]).
pub type ProbeGate = (std::sync::mpsc::Sender<()>, std::sync::mpsc::Receiver<()>);

impl FakeDesktop {
    /// A desktop of `windows` (frontmost first) on `screen`, with no
    /// keyboard grab, no focused password field and nothing delivered yet.
    pub fn new(screen: Rect, monitors: Vec<Monitor>, windows: Vec<FakeWindow>) -> Self {
        FakeDesktop {
            screen,
            monitors: Mutex::new(monitors),
            windows: Mutex::new(windows),
            keyboard_grab: Mutex::new(false),
            password_focus: Mutex::new(None),
            delivered: Mutex::new(vec![]),
            grab_on_delivery: Mutex::new(false),
            values: Mutex::default(),
            treeless: Mutex::default(),
            probe_gate: Mutex::default(),
        }
    }

    /// Moves a window (as a window manager would).
    pub fn move_window(&self, id: WindowId, to: Rect) {
        if let Some(w) = self.windows.lock().unwrap().iter_mut().find(|w| w.info.id == id) {
            w.info.geometry = to;
        }
    }

    /// Closes a window.
    pub fn close_window(&self, id: WindowId) {
        self.windows.lock().unwrap().retain(|w| w.info.id != id);
    }

    fn render(&self, rect: Rect) -> RgbImage {
        let mut image = RgbImage::black(rect.size());
        for w in self.windows.lock().unwrap().iter().rev().filter(|w| !w.info.minimized) {
            let g = w.info.geometry;
            image.fill(Rect::new(g.x - rect.x, g.y - rect.y, g.width, g.height), w.colour);
        }
        image
    }
}

impl WindowSource for FakeDesktop {
    fn list_windows(&self) -> Result<Vec<WindowInfo>, BackendError> {
        Ok(self.windows.lock().unwrap().iter().map(|w| w.info.clone()).collect())
    }
}

impl ScreenCapture for FakeDesktop {
    fn monitors(&self) -> Result<Vec<Monitor>, BackendError> {
        Ok(self.monitors.lock().unwrap().clone())
    }

    fn capture_window(
        &self,
        window: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, BackendError> {
        let info = self.find_window(window)?;
        let rect = window_capture_rect(&info, self.screen)?;
        let windows = self.windows.lock().unwrap().clone();
        let above = windows
            .iter()
            .take_while(|w| w.info.id != info.id)
            .filter(|w| !w.info.minimized)
            .map(|w| w.info.geometry);
        let covered = crate::compose::covering(info.geometry, above);
        Ok(window_capture(&info, rect, self.render(rect), limits, &covered))
    }

    fn capture_desktop(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
        hidden: &[glovebox_model::WindowId],
    ) -> Result<Capture, BackendError> {
        let monitors = self.monitors()?;
        let stacking: Vec<(Rect, bool)> = self
            .windows
            .lock()
            .unwrap()
            .iter()
            .filter(|w| !w.info.minimized)
            .map(|w| (w.info.geometry, hidden.contains(&w.info.id)))
            .collect();
        let hidden = crate::compose::visible_parts_of_hidden(&stacking);
        desktop_capture(&monitors, selection, limits, &hidden, |rect| Ok(self.render(rect)))
    }
}

fn fake_element(
    id: u32,
    role: Role,
    name: &str,
    bounds: Rect,
    window: &WindowInfo,
    states: Vec<ElementState>,
) -> Element {
    let g = window.geometry;
    Element {
        states: states.into_iter().collect(),
        bounds: Some(bounds),
        screen_bounds: Some(Rect::new(g.x + bounds.x, g.y + bounds.y, bounds.width, bounds.height)),
        has_value: role.is_password(),
        actions: if role == Role::PushButton {
            vec![glovebox_model::ElementAction::new("click")]
        } else {
            vec![]
        },
        ..Element::new(
            ElementId::tree(id).expect("the fake desktop's ids are tree ids"),
            role,
            name,
        )
    }
}

impl AccessibilitySource for FakeDesktop {
    fn inspect(
        &self,
        window: &WindowInfo,
        _: TreeBudget,
    ) -> Result<AccessibilityTree, BackendError> {
        let info = self.find_window(&WindowRef::Id(window.id))?;
        if self.treeless.lock().unwrap().contains(&info.id) {
            return Ok(AccessibilityTree::without_tree(
                info.id,
                "the application exposes no tree".into(),
            ));
        }
        let focused = *self.password_focus.lock().unwrap() == Some(info.id);
        let shown = vec![ElementState::Enabled, ElementState::Showing, ElementState::Visible];
        let mut password_states = shown.clone();
        password_states.extend([ElementState::Focusable, ElementState::Editable]);
        if focused {
            password_states.push(ElementState::Focused);
        }
        let mut button_states = shown.clone();
        button_states.push(ElementState::Focusable);
        let size = Rect::new(0, 0, info.geometry.width, info.geometry.height);
        let mut root = fake_element(1, Role::Frame, &info.title, size, &info, shown);
        root.children = vec![
            fake_element(
                2,
                Role::PushButton,
                "OK",
                Rect::new(10, 10, 50, 20),
                &info,
                button_states,
            ),
            fake_element(
                3,
                Role::PasswordText,
                "Password",
                Rect::new(10, 40, 100, 20),
                &info,
                password_states,
            ),
        ];
        Ok(AccessibilityTree {
            window: info.id,
            fidelity: Fidelity::Full,
            root: Some(root),
            node_count: 3,
            truncated: None,
            focused_password: focused,
            elapsed_ms: 0,
            seen: vec![],
            seen_omitted: 0,
            guidance: None,
        })
    }

    fn read_value(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<glovebox_model::ElementValue, BackendError> {
        self.value_of(window, id, max_chars)
    }

    fn watch_events(&self, _: &WindowInfo) {}

    /// The fake sends no events: the host waits by the clock, as for an
    /// application it cannot watch (the policy tests rely on that wait).
    fn settle(&self, _: crate::SettleLimits) -> crate::Settled {
        crate::Settled::Unwatched
    }

    fn working(&self, _: &WindowInfo) -> bool {
        false
    }
}

impl FakeDesktop {
    fn value_of(
        &self,
        window: &WindowInfo,
        id: ElementId,
        max_chars: usize,
    ) -> Result<glovebox_model::ElementValue, BackendError> {
        let tree = self.inspect(window, TreeBudget::default())?;
        let element = tree.find(id).ok_or_else(|| {
            BackendError::new(crate::BackendErrorKind::StaleElement, format!("{id} is gone"))
        })?;
        if element.is_password() {
            return Err(BackendError::new(
                crate::BackendErrorKind::SecureInput,
                "a password field's content is never read",
            ));
        }
        let text = self.values.lock().unwrap().get(&id).cloned().ok_or_else(|| {
            BackendError::new(
                crate::BackendErrorKind::NotActionable,
                format!("{id} has no value to read"),
            )
        })?;
        Ok(glovebox_model::ElementValue {
            id,
            role: element.role,
            total_chars: text.chars().count(),
            text: text.chars().take(max_chars).collect(),
        })
    }
}

impl InputSink for FakeDesktop {
    fn deliver(
        &self,
        window: &WindowInfo,
        action: &Action,
        targets: &[ResolvedTarget],
        mode: crate::Reach,
    ) -> Result<Delivery, BackendError> {
        // As a real desktop: a window that is gone takes nothing.
        self.find_window(&WindowRef::Id(window.id))?;
        self.delivered.lock().unwrap().push((window.id, action.clone(), targets.to_vec(), mode));
        if *self.grab_on_delivery.lock().unwrap() {
            *self.keyboard_grab.lock().unwrap() = true;
        }
        Ok(Delivery::by(crate::Route::Fake))
    }
}

impl SecureInputProbe for FakeDesktop {
    fn keyboard_grabbed(&self) -> Result<bool, BackendError> {
        Ok(*self.keyboard_grab.lock().unwrap())
    }

    fn focused_password(&self, window: &WindowInfo) -> Result<bool, BackendError> {
        if let Some((probing, go_on)) = self.probe_gate.lock().unwrap().as_ref() {
            let _ = probing.send(());
            let _ = go_on.recv_timeout(std::time::Duration::from_secs(10));
        }
        Ok(*self.password_focus.lock().unwrap() == Some(window.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::{ErrorCode, FrameSubject, PidSource, Point, WindowId};

    fn desktop() -> FakeDesktop {
        let window = |handle, geometry, colour, minimized| FakeWindow {
            info: WindowInfo {
                id: WindowId { pid: 7, handle },
                app: "Fake".into(),
                instance: "fake".into(),
                title: format!("w{handle}"),
                pid_source: PidSource::Server,
                geometry,
                focused: false,
                minimized,
                desktop: glovebox_model::Desktop::User,
            },
            colour,
        };
        FakeDesktop::new(
            Rect::new(0, 0, 300, 200),
            vec![
                Monitor { name: "A".into(), logical: Rect::new(0, 0, 100, 200), primary: true },
                Monitor { name: "B".into(), logical: Rect::new(200, 0, 100, 100), primary: false },
            ],
            vec![
                window(1, Rect::new(10, 10, 50, 50), [255, 0, 0], false),
                window(2, Rect::new(0, 0, 300, 200), [0, 0, 255], false),
                window(3, Rect::new(0, 0, 10, 10), [0, 255, 0], true),
            ],
        )
    }

    #[test]
    fn window_capture_crops_to_the_window_and_blacks_out_what_lies_on_top() {
        let d = desktop();
        let capture =
            d.capture_window(&"7/0x2".parse().unwrap(), CaptureLimits::default()).unwrap();
        assert_eq!(capture.image.size(), glovebox_model::Size::new(300, 200));
        assert_eq!(capture.image.pixel(20, 20), [0, 0, 0], "window 1 lies over it there");
        assert_eq!(capture.frame.occluded, vec![Rect::new(10, 10, 50, 50)]);
        assert_eq!(capture.image.pixel(100, 100), [0, 0, 255]);
        let minimised =
            d.capture_window(&"7/0x3".parse().unwrap(), CaptureLimits::default()).unwrap_err();
        assert_eq!(minimised.kind, crate::BackendErrorKind::NoBackgroundRoute);
        let unknown =
            d.capture_window(&"7/0x9".parse().unwrap(), CaptureLimits::default()).unwrap_err();
        assert_eq!(unknown.kind, crate::BackendErrorKind::Gone);
    }

    #[test]
    fn desktop_composite_blackens_gaps_and_maps_points_back() {
        let d = desktop();
        let capture = d
            .capture_desktop(&DisplaySelection::All, CaptureLimits::new(150, 150).unwrap(), &[])
            .unwrap();
        assert_eq!(capture.image.size(), glovebox_model::Size::new(150, 100));
        // The blue window covers the gap at (150, 150) natively; the composite is black there.
        assert_eq!(capture.image.pixel(75, 75), [0, 0, 0]);
        assert_eq!(capture.image.pixel(120, 75), [0, 0, 0]);
        assert_eq!(capture.image.pixel(120, 25), [0, 0, 255]);
        assert_eq!(capture.image.pixel(15, 15), [255, 0, 0]);
        let FrameSubject::Desktop { displays, .. } = &capture.frame.subject else {
            panic!("desktop frame")
        };
        assert_eq!(displays[1].pixel, Rect::new(100, 0, 50, 50));
        assert_eq!(
            capture.frame.image_to_global(Point { x: 120, y: 25 }).unwrap(),
            Point { x: 241, y: 51 }
        );
        assert_eq!(
            capture.frame.image_to_global(Point { x: 120, y: 75 }).unwrap_err().code,
            ErrorCode::CoordinateOutOfBounds
        );
    }
}
