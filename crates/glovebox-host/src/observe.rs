//! Observation: the bound window's tree and pixels as a frame, and the
//! reads a user makes outside any grant (`glovebox screenshot`, `inspect`).
//! Every read passes the same gate: computer use on, the observe class's
//! approval, the denials, secure input (a keyboard grab, a focused password
//! field). Pixels hold the window alone: what other windows cover is black
//! and listed as occluded; a desktop image blacks out every denied window.

use crate::backend::Gated;
use crate::decide::{self, Guarded, SecureInput};
use crate::frames::{FrameElement, FrameRecord};
use crate::grant::State;
use crate::{ApprovalRequest, FrameView, Host, Observation, ObserveRequest};
use glovebox_model::{
    AccessibilityTree, ApprovalClass, CaptureLimits, DisplaySelection, Refusal, TreeBudget,
    WindowInfo, WindowRef,
};
use glovebox_platform::marks::PlacedMark;
use glovebox_platform::Capture;
use std::sync::Arc;
use std::time::Instant;

/// Draws the ids of the actionable elements the text shows on `scaled`
/// (the screenshot as returned: `image` pixels for the window part `shown`).
fn draw_marks(
    scaled: &mut glovebox_platform::RgbImage,
    tree: &AccessibilityTree,
    shown: glovebox_model::Rect,
    image: glovebox_model::Size,
) -> Vec<PlacedMark> {
    let (sx, sy) = (
        image.width as f64 / shown.width.max(1) as f64,
        image.height as f64 / shown.height.max(1) as f64,
    );
    let lines = tree.lines();
    let reported = lines
        .iter()
        .filter(|l| {
            l.kind == glovebox_model::tree_text::LineKind::Element && l.element.is_actionable()
        })
        .map(|l| (l.element.id, l.element.screen_bounds));
    // Seen elements are marked too: an id drawn is an id the input tools take.
    let seen = tree.seen.iter().map(|e| (e.id, Some(e.screen_bounds)));
    let boxes: Vec<_> = reported
        .chain(seen)
        .filter_map(|(id, bounds)| {
            let visible = bounds?.intersection(shown)?;
            let x = ((visible.x - shown.x) as f64 * sx).round() as i32;
            let y = ((visible.y - shown.y) as f64 * sy).round() as i32;
            let w = ((visible.width as f64 * sx).round() as u32).max(1);
            let h = ((visible.height as f64 * sy).round() as u32).max(1);
            Some((id, glovebox_model::Rect::new(x, y, w, h)))
        })
        .collect();
    glovebox_platform::marks::draw_marks(scaled, &boxes)
}

impl Host {
    /// Observes the bound window (binding or rebinding first when `window`
    /// names one): its accessibility tree, and a screenshot when asked and
    /// allowed. The result is the window's newest frame.
    pub fn observe(
        &self,
        window: Option<&WindowRef>,
        screenshot: bool,
    ) -> Result<Observation, Refusal> {
        self.observe_with(window, ObserveRequest { screenshot, marks: false, fit: None })
    }

    /// [`Host::observe`] as `request` asks: marks on the screenshot (they
    /// need the screenshot), a screenshot fitted to other limits.
    pub fn observe_with(
        &self,
        window: Option<&WindowRef>,
        request: ObserveRequest,
    ) -> Result<Observation, Refusal> {
        let mut state = self.state();
        let limits = match request.fit {
            Some(fit) => CaptureLimits::new(fit.max_width, fit.max_height),
            None => Ok(self.inner.config.capture_limits),
        };
        let result = match request.marks && !request.screenshot {
            true => Err(crate::decide::session::marks_without_screenshot()),
            false => limits
                .and_then(|limits| self.observe_locked(&mut state, window, request, limits, true)),
        };
        result.map_err(|e| self.refused(&state, None, e))
    }

    /// An observation whose approval the caller already obtained (the
    /// later looks of one wait).
    pub(crate) fn observe_approved(&self, screenshot: bool) -> Result<Observation, Refusal> {
        let mut state = self.state();
        let limits = self.inner.config.capture_limits;
        self.observe_locked(
            &mut state,
            None,
            ObserveRequest { screenshot, marks: false, fit: None },
            limits,
            false,
        )
        .map_err(|e| self.refused(&state, None, e))
    }

    /// The observe class's approval for reading `window`.
    pub(crate) fn approve_observation(
        &self,
        window: Option<&WindowInfo>,
        what: &str,
    ) -> Result<(), Refusal> {
        self.approve(Host::observation_question(window, what), &[]).map(|_| ())
    }

    /// The observe class's question about reading `window`.
    pub(crate) fn observation_question(window: Option<&WindowInfo>, what: &str) -> ApprovalRequest {
        let mut request = ApprovalRequest::call(ApprovalClass::Observe, vec![what.to_owned()]);
        request.window = window.map(Host::window_label);
        request
    }

    fn observe_locked(
        &self,
        state: &mut crate::Locked<'_>,
        window: Option<&WindowRef>,
        request: ObserveRequest,
        limits: CaptureLimits,
        ask: bool,
    ) -> Result<Observation, Refusal> {
        let grant = self.ensure_grant(state, true)?;
        if let Some(reference) = window {
            let named = self.inner.backends.windows.find_window(reference).gated()?;
            if grant.target.as_ref().map(|t| t.id) != Some(named.id) {
                decide::check_may_move(grant.scope, "another")?;
                self.check_not_denied(&named)?;
                self.bind(state, Some(named), None);
            }
        }
        let target = self.current_target(state)?;
        self.check_not_denied(&target)?;
        if ask {
            let what = if request.screenshot {
                "read the accessibility tree and take a screenshot"
            } else {
                "read the accessibility tree"
            };
            self.approve_unlocked(state, Host::observation_question(Some(&target), what), &[])?;
            // Other calls ran while the person was asked: the window read is the one approved.
            let grant = self.ensure_grant(state, false)?;
            decide::freshness::check_still_bound(target.id, grant.target.as_ref().map(|t| t.id))?;
        }
        self.observe_target_fitted(state, &target, request, limits)
    }

    pub(crate) fn observe_target(
        &self,
        state: &mut State,
        target: &WindowInfo,
        request: ObserveRequest,
    ) -> Result<Observation, Refusal> {
        self.observe_target_fitted(state, target, request, self.inner.config.capture_limits)
    }

    fn observe_target_fitted(
        &self,
        state: &mut State,
        target: &WindowInfo,
        request: ObserveRequest,
        limits: CaptureLimits,
    ) -> Result<Observation, Refusal> {
        let screenshot = request.screenshot;
        let b = &self.inner.backends;
        decide::check_secure_input(self.secure_input_now(None)?, Guarded::Read)?;
        let grant = crate::grant::held(&state.grant)?;
        if screenshot {
            decide::check_pixels(grant.capture, self.inner.pixels_missing.as_deref())?;
        }
        let mut tree = b.accessibility.inspect(target, self.inner.config.tree_budget).gated()?;
        decide::check_secure_input(SecureInput::of(false, tree.focused_password), Guarded::Read)?;
        self.recording_observed(&tree);
        // Where the tree is missing or thin, the pixels are read too, if the grant may see them.
        let pixels_allowed = grant.capture == glovebox_model::CaptureMode::A11yAndPixels
            && self.inner.pixels_missing.is_none();
        // Or where a whole tree leaves a large drawn view empty: there alone.
        let holes = match crate::seen::wanted(&tree) {
            true => vec![],
            false => crate::seen::holes(&tree, target.geometry),
        };
        let reader = b
            .seen
            .clone()
            .filter(|_| pixels_allowed && (crate::seen::wanted(&tree) || !holes.is_empty()));
        if !pixels_allowed && !screenshot && tree.root.is_none() {
            let why = self
                .inner
                .pixels_missing
                .as_deref()
                .unwrap_or("the grant captures accessibility only");
            crate::seen::note_unread(&mut tree, why);
        }
        // Full resolution is kept for zoom; the caller gets it scaled to the limits.
        let native = CaptureLimits::new(
            glovebox_model::frame::MAX_IMAGE_EDGE,
            glovebox_model::frame::MAX_IMAGE_EDGE,
        )?;
        let capture = match (screenshot, &reader) {
            (true, _) => Some(b.capture.capture_window(&WindowRef::Id(target.id), native).gated()?),
            // Pixels only to read from: a window that cannot be captured (closing as
            // it is looked at) still answers its tree, saying why nothing was seen.
            (false, Some(_)) => match b.capture.capture_window(&WindowRef::Id(target.id), native) {
                Ok(capture) => Some(capture),
                Err(e) => {
                    crate::seen::note_unread(&mut tree, &e.message);
                    None
                }
            },
            (false, None) => None,
        };
        // The window as measured (for staleness) and the part of it the
        // image shows (for mapping points): they differ when it reaches
        // past the screen's edge.
        let geometry = target.geometry;
        let (shown, image, occluded) = match &capture {
            Some(c) if screenshot => {
                (c.frame.native_rect(), limits.fit(c.image.size()), c.frame.occluded.clone())
            }
            _ => (target.geometry, target.geometry.size(), vec![]),
        };
        let seen_boxes = match (&reader, &capture) {
            (Some(reader), Some(c)) => {
                let frames = &mut state.frames;
                crate::seen::add_seen(
                    reader.as_ref(),
                    &mut frames.seen_ids,
                    &mut tree,
                    c,
                    geometry,
                    &holes,
                )
            }
            _ => Default::default(),
        };
        let id = glovebox_platform::next_frame_id();
        let mut elements: std::collections::HashMap<_, _> = tree
            .root
            .iter()
            .flat_map(|r| r.walk())
            .map(|e| (e.id, FrameElement::of(e, shown)))
            .collect();
        let mut hit_order: Vec<_> = tree
            .root
            .iter()
            .flat_map(|r| r.walk())
            .filter(|e| elements[&e.id].visible.is_some())
            .map(|e| e.id)
            .collect();
        for element in &tree.seen {
            let pixels = seen_boxes[&element.id];
            elements.insert(element.id, FrameElement::of_seen(element, shown, pixels));
            hit_order.push(element.id);
        }
        let no_tree = tree.root.is_none();
        let pixels = capture.map(|c| Arc::new(c.image));
        let png_pixels = pixels.clone().filter(|_| screenshot);
        let record = FrameRecord {
            id,
            window: target.id,
            revision: grant.revision,
            geometry,
            shown,
            image,
            elements,
            hit_order,
            no_tree,
            pixels: pixels.clone(),
            tree: Arc::new(tree.clone()),
            created: Instant::now(),
        };
        let frame = FrameView {
            id,
            window: target.id,
            revision: grant.revision,
            geometry,
            image,
            scale: image.width as f64 / shown.width.max(1) as f64,
            expires_in_secs: self.inner.config.frame_ttl.as_secs(),
            occluded,
        };
        state.frames.insert(record);
        let revision = grant.revision;
        self.show_cursor_on(state, target, revision);
        // glovebox's guidance for the application, on this grant's first look at the window:
        // for the program its process runs, not only the name its window claims.
        if state.held_mut()?.guided.insert(target.id) {
            let executable = self.inner.backends.processes.executable(target.id.pid);
            tree.guidance = glovebox_model::Guidance::for_window(
                &self.inner.config.guidance,
                &target.app,
                executable.as_deref().and_then(|e| e.file_name()).and_then(|n| n.to_str()),
                &target.title,
            );
        }
        let grant = state.held()?;
        let mut marks = vec![];
        let png = png_pixels
            .map(|p| {
                let mut scaled = p.as_ref().clone().downscale(image);
                if request.marks {
                    marks = draw_marks(&mut scaled, &tree, shown, image);
                }
                scaled.encode_png()
            })
            .transpose()?;
        let mut audit = self.grant_record("observe", grant);
        audit.detail = Some(format!(
            "frame {id}, {} elements{}{}",
            tree.node_count,
            match tree.seen.len() {
                0 => String::new(),
                n => format!(", {n} seen in the pixels"),
            },
            if png.is_some() { ", screenshot" } else { "" }
        ));
        self.audit(audit);
        Ok(Observation { frame, tree, screenshot: png, marks, grant: self.view(grant) })
    }

    /// The gate of a read outside any grant: on, approved as an
    /// observation, not denied, no secure input.
    fn check_read(&self, window: Option<&WindowInfo>, what: &str) -> Result<(), Refusal> {
        self.inner.config.check_enabled()?;
        if let Some(window) = window {
            self.check_not_denied(window)?;
        }
        self.approve_observation(window, what)?;
        decide::check_secure_input(self.secure_input_now(None)?, Guarded::Read)
    }

    /// One window's accessibility tree outside any grant (`glovebox inspect`).
    pub fn read_tree(
        &self,
        window: &WindowRef,
        budget: TreeBudget,
    ) -> Result<(WindowInfo, AccessibilityTree), Refusal> {
        let result = (|| {
            self.inner.config.check_enabled()?;
            let info = self.inner.backends.windows.find_window(window).gated()?;
            self.check_read(Some(&info), "read the accessibility tree")?;
            let tree = self.inner.backends.accessibility.inspect(&info, budget).gated()?;
            decide::check_secure_input(
                SecureInput::of(false, tree.focused_password),
                Guarded::Read,
            )?;
            Ok((info, tree))
        })();
        result.map_err(|e| self.refused(&self.state(), None, e))
    }

    /// One window's pixels outside any grant (`glovebox screenshot --window`):
    /// the window alone, covered parts black and listed as occluded.
    pub fn read_window_pixels(
        &self,
        window: &WindowRef,
        limits: CaptureLimits,
    ) -> Result<Capture, Refusal> {
        let result = (|| {
            self.inner.config.check_enabled()?;
            let info = self.inner.backends.windows.find_window(window).gated()?;
            self.check_read(Some(&info), "take a screenshot")?;
            decide::check_secure_input(self.password_focus_now(&info)?, Guarded::Read)?;
            self.inner.backends.capture.capture_window(&WindowRef::Id(info.id), limits).gated()
        })();
        result.map_err(|e| self.refused(&self.state(), None, e))
    }

    /// The selected displays outside any grant (`glovebox screenshot`),
    /// with every denied window blacked out wherever it shows.
    pub fn read_desktop_pixels(
        &self,
        selection: &DisplaySelection,
        limits: CaptureLimits,
    ) -> Result<Capture, Refusal> {
        let result = (|| {
            self.check_read(None, "take a screenshot of the desktop")?;
            let windows = self.inner.backends.windows.list_windows().gated()?;
            if let Some(active) = windows.iter().find(|w| w.focused) {
                decide::check_secure_input(self.password_focus_now(active)?, Guarded::Read)?;
            }
            let hidden: Vec<_> =
                windows.iter().filter(|w| self.denial_of(w).is_some()).map(|w| w.id).collect();
            self.inner.backends.capture.capture_desktop(selection, limits, &hidden).gated()
        })();
        result.map_err(|e| self.refused(&self.state(), None, e))
    }
}
