//! Reading a window's tree: finding its frame among the application's
//! accessibles, walking it within the budget, and assembling the walk into
//! the model's tree (ids, reading order, what was cut and why).

use super::*;

impl AtspiBackend {
    /// Reads `window`'s accessibles within `budget`: the frame's extents and
    /// the walk, or why the window has no accessible; `COMPUTER_TIMEOUT`
    /// when the application stops answering before its window is found.
    pub(super) fn read(
        &self,
        window: &WindowInfo,
        budget: TreeBudget,
        reading: Reading,
    ) -> Result<WindowRead, BackendError> {
        let bus = match self.bus() {
            Ok(bus) => bus,
            Err(reason) => {
                return Ok(WindowRead::NoAccessible(format!(
                    "accessibility bus unavailable: {reason}"
                )))
            }
        };
        let deadline = Instant::now() + budget.deadline;
        let timeout = || {
            BackendError::new(
                BackendErrorKind::Timeout,
                format!(
                    "the application of window {} did not answer within {} ms",
                    window.id,
                    budget.deadline.as_millis()
                ),
            )
        };
        let outcome = self.runtime.block_on(async {
            let known = self.frames.lock_recovered().get(&window.id.handle).cloned();
            if let Some(frame) = &known {
                tokio::time::timeout_at(deadline, bus.learn_toolkit(&frame.bus))
                    .await
                    .map_err(|_| timeout())?;
            }
            let found = match known {
                // A frame matched before only needs to still be there.
                Some(frame) => match tokio::time::timeout_at(deadline, bus.extents(&frame))
                    .await
                    .map_err(|_| timeout())?
                {
                    Ok(extents) => FrameMatch::Found { frame, extents: Some(extents) },
                    Err(_) => tokio::time::timeout_at(deadline, self.find_frame(&bus, window))
                        .await
                        .map_err(|_| timeout())??,
                },
                None => tokio::time::timeout_at(deadline, self.find_frame(&bus, window))
                    .await
                    .map_err(|_| timeout())??,
            };
            let (frame, extents) = match found {
                FrameMatch::Found { frame, extents } => (frame, extents),
                FrameMatch::Absent(reason) => return Ok(Err(reason)),
            };
            self.frames.lock_recovered().insert(window.id.handle, frame.clone());
            let app = frame.bus.clone();
            tokio::time::timeout_at(deadline, bus.learn_toolkit(&app))
                .await
                .map_err(|_| timeout())?;
            let followed = tokio::time::timeout_at(deadline, self.memos.take(&bus, &app))
                .await
                .map_err(|_| timeout())?;
            let mut following = followed.is_some();
            let mut memo = followed.unwrap_or_default();
            let loaded_now = memo.known.is_empty();
            if loaded_now {
                memo = match tokio::time::timeout_at(deadline, bus.cache_items(&app)).await {
                    Ok(Ok(items)) if !items.is_empty() => Memo::from_items(items),
                    Ok(Err(BusError::Gone(what))) => {
                        self.memos.distrust(&app);
                        return Err(BackendError::gone(format!("{what} exited")));
                    }
                    // No cache in at-spi2-atk's layout: a bridge whose events
                    // are not known to tell every change. Its reads walk the bus.
                    Ok(_) => {
                        if following {
                            self.memos.unfollow(&app);
                            following = false;
                        }
                        Memo::default()
                    }
                    Err(_) => return Err(timeout()),
                };
            }
            memo.frame_reads(extents);
            memo.forget_stale_positions();
            let mut walked = if memo.verified || loaded_now {
                let (kept, walked) =
                    walk_on_worker(&bus, memo, frame.clone(), budget, deadline, reading).await?;
                memo = kept;
                walked
            } else {
                // A memo kept from an earlier read is checked once against a
                // walk of the application's cache as it is now; later reads
                // take it if they agree.
                let now = match tokio::time::timeout_at(deadline, bus.cache_items(&app)).await {
                    Ok(Ok(items)) => Memo::from_items(items),
                    _ => Memo::default(),
                };
                let checked = walk(&bus, &now, frame.clone(), budget, deadline, reading).await;
                memo.verified = checked.failures.is_empty()
                    && checked.cut.is_none()
                    && memo.agrees_with(&read_facts(&checked));
                checked
            };
            if moved_unannounced(&memo, &walked) {
                memo.moved();
                walked = walk(&bus, &memo, frame, budget, deadline, reading).await;
            }
            if following {
                remember(&mut memo, &walked);
                self.memos.keep(&app, memo);
            }
            if reading == Reading::Tree {
                crate::names::settle(&bus, &mut walked, deadline).await;
            }
            if walked.nodes.iter().any(too_many_to_search) {
                self.distrust_collection(&app);
            }
            Ok(Ok((extents, walked)))
        });
        let outcome = outcome.map_err(|e| match e.kind {
            // Busy, stopped or hung: the process says which.
            BackendErrorKind::Timeout => BackendError::new(
                BackendErrorKind::Timeout,
                format!("{}: {}", e.message, ProcessState::watch(window.id.pid).why()),
            ),
            _ => e,
        })?;
        let (frame_extents, walked) = match outcome {
            Ok(walked) => walked,
            Err(reason) => return Ok(WindowRead::NoAccessible(reason)),
        };
        if walked.nodes.is_empty() {
            return match walked.cut {
                Some(Cut::Deadline(_)) => Err(timeout()),
                _ => Err(BackendError::gone(format!(
                    "the accessible of window {} vanished while it was read",
                    window.id
                ))),
            };
        }
        Ok(WindowRead::Read { frame_extents, walked })
    }

    pub(crate) async fn pid_of(&self, bus: &Bus, name: &str) -> Option<u32> {
        if let Some(pid) = self.pids.lock_recovered().get(name) {
            return Some(*pid);
        }
        let pid = bus.pid_of(name).await.ok()?;
        self.pids.lock_recovered().insert(name.to_owned(), pid);
        Some(pid)
    }

    /// Finds the window's accessible. The match is unambiguous because it
    /// needs three independent agreements: the pid (attested by the X server
    /// and by the D-Bus daemon, neither self-reported), the exact title, and
    /// the geometry; when two accessibles still fit, it refuses to guess.
    async fn find_frame(&self, bus: &Bus, window: &WindowInfo) -> Result<FrameMatch, BackendError> {
        if window.id.pid == 0 {
            return Ok(FrameMatch::Absent(
                "the window's process is unknown, so its accessible cannot be matched".into(),
            ));
        }
        let apps = bus.applications().await.map_err(bus_refusal)?;
        let pids = join_all(apps.iter().map(|app| self.pid_of(bus, &app.bus))).await;
        let owned: Vec<&ObjectRef> = apps
            .iter()
            .zip(pids)
            .filter(|(_, pid)| *pid == Some(window.id.pid))
            .map(|(app, _)| app)
            .collect();
        if owned.is_empty() {
            if !std::path::Path::new(&format!("/proc/{}", window.id.pid)).exists() {
                return Err(BackendError::gone(format!(
                    "the process of window {} has exited",
                    window.id
                )));
            }
            let toolkit = crate::no_tree::DarkToolkit::of_process(window.id.pid);
            return Ok(FrameMatch::Absent(crate::no_tree::DarkToolkit::reason(
                toolkit,
                &window.app,
                window.id.pid,
            )));
        }
        let tops: Vec<ObjectRef> = join_all(owned.iter().map(|app| bus.children(app)))
            .await
            .into_iter()
            .filter_map(Result::ok)
            .flatten()
            .filter(|o| !o.is_null())
            .collect();
        let facts = join_all(tops.iter().map(|o| async move {
            let name = bus.name(o).await.unwrap_or_default();
            let extents = bus.extents(o).await.ok();
            (name, extents)
        }))
        .await;
        let g = window.geometry;
        // GTK3 reports the decorated frame (the client area plus the window
        // manager's borders); GTK4 reports the client size at (0, 0), and on
        // Wayland every toolkit does, client-side shadows included.
        let fits = |e: &Option<(i32, i32, i32, i32)>| match e.and_then(|e| rect(e, (0, 0))) {
            Some(r) if r.x == 0 && r.y == 0 && r.size() == g.size() => true,
            Some(r)
                if r.x == 0
                    && r.y == 0
                    && (g.width..=g.width + 128).contains(&r.width)
                    && (g.height..=g.height + 128).contains(&r.height) =>
            {
                true
            }
            Some(r) => {
                r.intersection(g) == Some(g) && r.width <= g.width + 64 && r.height <= g.height + 96
            }
            None => false,
        };
        let titled: Vec<usize> = (0..tops.len()).filter(|&i| facts[i].0 == window.title).collect();
        let chosen: Vec<usize> = match titled.len() {
            1 => titled,
            0 => (0..tops.len()).filter(|&i| fits(&facts[i].1)).collect(),
            _ => titled.into_iter().filter(|&i| fits(&facts[i].1)).collect(),
        };
        match chosen.as_slice() {
            [one] => Ok(FrameMatch::Found { frame: tops[*one].clone(), extents: facts[*one].1 }),
            [] => Ok(FrameMatch::Absent(format!(
                "none of the {} accessible windows of pid {} matches the title {:?} or the geometry",
                tops.len(),
                window.id.pid,
                window.title
            ))),
            many => Ok(FrameMatch::Absent(format!(
                "{} accessible windows of pid {} match the title {:?} and the geometry; refusing to guess",
                many.len(),
                window.id.pid,
                window.title
            ))),
        }
    }

    pub(super) fn assemble(
        &self,
        window: &WindowInfo,
        walked: Walk,
        frame_extents: Option<(i32, i32, i32, i32)>,
        budget: TreeBudget,
        started: std::time::Instant,
    ) -> AccessibilityTree {
        let offset = screen_offset(walked.nodes[0].extents.or(frame_extents), window);
        let mut walked = walked;
        reading_order(&mut walked.nodes);
        let mut ids = self.ids.lock_recovered();
        let origin = (window.geometry.x, window.geometry.y);
        // Ids in reading order (depth first), so a first observation reads e1, e2, … top to bottom.
        let mut order = vec![];
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(walked.nodes[i].children.iter().rev());
        }
        let id_of: Option<HashMap<usize, ElementId>> = order
            .iter()
            .map(|&i| {
                let node = &walked.nodes[i];
                ids.id_for(window.id.handle, &node.object, node.role).map(|id| (i, id))
            })
            .collect();
        drop(ids);
        let Some(id_of) = id_of else {
            let why = "this glovebox process has named every element id a tree may have; \
                       start it again to read trees";
            return AccessibilityTree::without_tree(window.id, why.into());
        };
        fn build(
            i: usize,
            nodes: &[RawNode],
            id_of: &HashMap<usize, ElementId>,
            offset: (i32, i32),
            origin: (i32, i32),
        ) -> Element {
            let n = &nodes[i];
            let screen = n.extents.and_then(|e| rect(e, offset));
            let states = crate::translate::element_states(n.states);
            Element {
                id: id_of[&i],
                role: n.role,
                // A password field's name is its label; its text is never read.
                name: n.name.clone(),
                description: n.description.clone(),
                states,
                bounds: screen.map(|r| {
                    glovebox_model::Rect::new(
                        r.x.saturating_sub(origin.0),
                        r.y.saturating_sub(origin.1),
                        r.width,
                        r.height,
                    )
                }),
                screen_bounds: screen,
                has_value: n.has_value(),
                actions: n.actions.clone(),
                shortcut: n.shortcut,
                children: n
                    .children
                    .iter()
                    .map(|&c| build(c, nodes, id_of, offset, origin))
                    .collect(),
                omitted_children: n
                    .omitted
                    .as_ref()
                    .map(|(count, hint)| OmittedChildren { count: *count, hint: hint.clone() }),
            }
        }
        let root = build(0, &walked.nodes, &id_of, offset, origin);
        let focused_password =
            walked.nodes.iter().any(|n| n.role.is_password() && n.states.contains(State::Focused));
        let truncated = walked.cut.as_ref().map(|cut| {
            let (by, at) = match cut {
                Cut::Nodes(at) => (TruncatedBy::Nodes { max: budget.max_nodes }, at),
                Cut::Depth(at) => (TruncatedBy::Depth { max: budget.max_depth }, at),
                Cut::Deadline(at) => {
                    (TruncatedBy::Deadline { millis: budget.deadline.as_millis() as u64 }, at)
                }
            };
            Truncation { by, at: at.iter().filter_map(|i| id_of.get(i).copied()).collect() }
        });
        let fidelity = match (&truncated, walked.failures.first()) {
            (None, None) => Fidelity::Full,
            (Some(_), _) => {
                Fidelity::Partial { reason: "a budget cut the tree short (see truncated)".into() }
            }
            (None, Some(first)) => Fidelity::Partial {
                reason: format!(
                    "{} object(s) could not be read, e.g. {first}",
                    walked.failures.len()
                ),
            },
        };
        AccessibilityTree {
            window: window.id,
            fidelity,
            node_count: walked.nodes.len(),
            root: Some(root),
            truncated,
            focused_password,
            elapsed_ms: started.elapsed().as_millis() as u64,
            seen: vec![],
            seen_omitted: 0,
            guidance: None,
        }
    }
}

/// Puts siblings in reading order (top to bottom, then left to right);
/// toolkits' own child order is often reversed or arbitrary (GTK3 grids list
/// their children last-added first). Siblings without bounds (hidden ones)
/// follow in the toolkit's order.
pub(super) fn reading_order(nodes: &mut [RawNode]) {
    for i in 0..nodes.len() {
        let mut children = nodes[i].children.clone();
        // Children without a place on screen (hidden ones) keep their order, after the rest.
        children.sort_by_key(|&c| match nodes[c].extents.and_then(|e| rect(e, (0, 0))) {
            Some(r) => (false, r.y, r.x),
            None => (true, 0, 0),
        });
        nodes[i].children = children;
    }
}

/// Children a Collection query may have to go through under one
/// container before glovebox stops asking that application such queries.
const SEARCHABLE_CHILDREN: usize = 10_000;

/// A container that manages more descendants than a search should visit:
/// a query that matches nothing walks every one of them (LibreOffice Calc's
/// sheet has two billion cells, and after one such query Calc answered no
/// client for minutes: measured). A list of a few hundred rows is fine.
pub(super) fn too_many_to_search(node: &RawNode) -> bool {
    node.states.contains(State::ManagesDescendants)
        && node.omitted.as_ref().is_some_and(|(count, _)| *count >= SEARCHABLE_CHILDREN)
}

/// [`walk`] as a task of the runtime's worker thread, where the
/// connection's reader hands it each reply without waking another thread:
/// on this machine's two cores a read that waits on the calling thread
/// pays a cross-thread wake-up for nearly every reply it takes.
async fn walk_on_worker(
    bus: &Bus,
    memo: Memo,
    root: ObjectRef,
    budget: TreeBudget,
    deadline: Instant,
    reading: Reading,
) -> Result<(Memo, Walk), BackendError> {
    let bus = bus.clone();
    tokio::spawn(async move {
        let walked = walk(&bus, &memo, root, budget, deadline, reading).await;
        (memo, walked)
    })
    .await
    .map_err(|e| {
        BackendError::new(BackendErrorKind::Unavailable, format!("the tree read ended early: {e}"))
    })
}
