//! Reading one window's tree: find the window's accessible, then walk it
//! level by level with every request of a level in flight at once, taking
//! what the application's memo already holds ([`crate::memo`]), within the
//! node, depth and deadline budgets; what the walk read is handed back to
//! the memo ([`remember`]).

use crate::memo::{Facts, Memo};
use crate::translate::{has_value, is_menu_like};
use crate::transport::{Bus, BusError, ObjectRef};
use atspi_common::{State, StateSet};
use futures_util::future::join_all;
use glovebox_model::{Rect, Role, TreeBudget, WindowInfo};
use std::collections::HashMap;
use tokio::time::Instant;

/// Children of a container that manages its descendants (a list or table
/// creating row objects on demand) are read up to this many; the rest are
/// counted and summarised.
pub const MANAGED_CHILDREN_READ: i32 = 200;

/// Cells of such a table read at most: whole visible rows, top first.
pub const MANAGED_CELLS_READ: usize = 400;

/// What is known of one accessible.
#[derive(Debug, Clone)]
pub struct RawNode {
    pub object: ObjectRef,
    pub role: Role,
    pub name: String,
    pub description: String,
    pub states: StateSet,
    pub interfaces: atspi_common::InterfaceSet,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Children counted but not read, and why.
    pub omitted: Option<(usize, String)>,
    pub extents: Option<(i32, i32, i32, i32)>,
    /// What the element offers, sorted once as it is read.
    pub actions: Vec<glovebox_model::ElementAction>,
    /// The key chord the toolkit says activates this element (a menu
    /// item's accelerator).
    pub shortcut: Option<glovebox_model::KeyCombo>,
    /// A text field known to hold no characters (its count, never its text,
    /// was read): it shows no `has value`.
    pub empty: bool,
    /// Whether every child was listed (not cut, hidden or managed).
    pub children_read: bool,
    /// What the enrichment read (or the memo held): extents, action names
    /// with bindings, and whether the text is empty.
    pub enriched: Option<Enrichment>,
}

impl RawNode {
    fn from_facts(object: ObjectRef, facts: Facts) -> RawNode {
        RawNode {
            object,
            role: facts.role,
            name: facts.name,
            description: facts.description,
            states: facts.states,
            interfaces: facts.interfaces,
            parent: None,
            children: vec![],
            omitted: None,
            extents: None,
            actions: vec![],
            shortcut: None,
            empty: false,
            children_read: false,
            enriched: None,
        }
    }

    fn facts(&self) -> Facts {
        Facts {
            role: self.role,
            name: self.name.clone(),
            description: self.description.clone(),
            states: self.states,
            interfaces: self.interfaces,
        }
    }

    /// Takes in what the enrichment read.
    fn enrich(&mut self, enrichment: Enrichment) {
        let (extents, actions, empty) = &enrichment;
        let actions = actions.as_deref().unwrap_or_default();
        self.empty = *empty == Some(true);
        self.extents = extents.flatten().filter(|(_, _, w, h)| *w > 0 && *h > 0);
        self.actions = actions
            .iter()
            .map(|(name, _)| glovebox_model::ElementAction::new(name.as_str()))
            .collect();
        // A menu-opening action's binding is a mnemonic: it pops a menu that grabs the keyboard.
        self.shortcut = self
            .actions
            .iter()
            .zip(actions)
            .filter(|(action, _)| !action.opens_menu())
            .find_map(|(_, (_, binding))| crate::shortcut::shortcut(binding));
        self.enriched = Some(enrichment);
    }

    pub fn has_interface(&self, interface: atspi_common::Interface) -> bool {
        self.interfaces.contains(interface)
    }

    pub fn has_value(&self) -> bool {
        has_value(self.role, self.interfaces, self.states) && !self.empty
    }

    /// Whether the walk asks how many characters this field holds: a text
    /// field with a value role, never a password field (nothing of it is read)
    /// and never one holding a number (a spin button always has one).
    fn counts_characters(&self) -> bool {
        !self.role.is_password()
            && self.has_interface(atspi_common::Interface::Text)
            && !self.has_interface(atspi_common::Interface::Value)
            && has_value(self.role, self.interfaces, self.states)
    }
}

/// Which budget stopped the walk, and the nodes whose children it cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    Nodes(Vec<usize>),
    Depth(Vec<usize>),
    Deadline(Vec<usize>),
}

#[derive(Debug, Default)]
pub struct Walk {
    /// Index 0 is the window's accessible.
    pub nodes: Vec<RawNode>,
    pub cut: Option<Cut>,
    /// Objects that vanished or failed while being read.
    pub failures: Vec<String>,
    /// Whether the toolkit marks on-screen objects `showing` (GTK3, Qt) or
    /// only `visible` (GTK 4.8); decided from the window's direct children.
    pub uses_showing: bool,
}

impl Walk {
    /// Whether a node (other than the window itself) is on screen.
    pub fn is_shown(&self, node: &RawNode) -> bool {
        node.states.contains(if self.uses_showing { State::Showing } else { State::Visible })
    }
}

async fn fetch_node(bus: &Bus, object: ObjectRef) -> Result<RawNode, BusError> {
    let (role, name, description, states, interfaces) = tokio::try_join!(
        bus.role(&object),
        bus.name(&object),
        bus.description(&object),
        bus.states(&object),
        bus.interfaces(&object),
    )?;
    Ok(RawNode {
        object,
        role,
        name,
        description,
        states,
        interfaces,
        parent: None,
        children: vec![],
        omitted: None,
        extents: None,
        actions: vec![],
        shortcut: None,
        empty: false,
        children_read: false,
        enriched: None,
    })
}

/// The children to read of a node, and how many more it has that are not read.
async fn child_refs(
    bus: &Bus,
    memo: &Memo,
    walk: &Walk,
    index: usize,
) -> Result<(Vec<ObjectRef>, usize), BusError> {
    let node = &walk.nodes[index];
    if let Some(children) = memo.children(&node.object) {
        return Ok((children.clone(), 0));
    }
    if node.states.contains(State::ManagesDescendants) {
        if let Some(rows) = memo.visible_rows(&node.object) {
            return Ok(rows.clone());
        }
        if node.has_interface(atspi_common::Interface::Table) {
            if let Some(cells) = visible_cells(bus, walk, index).await {
                return Ok(cells);
            }
        }
        return managed_children(bus, walk, index).await;
    }
    Ok((bus.children(&node.object).await?.into_iter().filter(|o| !o.is_null()).collect(), 0))
}

/// The part of the screen where a node's children can be seen: its own
/// extents clipped by every ancestor's (scroll panes, viewports, the window).
async fn visible_clip(bus: &Bus, walk: &Walk, index: usize) -> Option<Rect> {
    let mut chain = vec![index];
    while let Some(parent) = walk.nodes[*chain.last().expect("non-empty")].parent {
        chain.push(parent);
    }
    let extents = join_all(chain.iter().map(|&i| bus.extents(&walk.nodes[i].object))).await;
    let rects: Vec<Rect> =
        extents.into_iter().filter_map(|e| e.ok().and_then(|e| rect(e, (0, 0)))).collect();
    rects.into_iter().reduce(|a, b| a.intersection(b).unwrap_or(Rect::new(a.x, a.y, 0, 0)))
}

/// Cells of a table that creates them on demand (a spreadsheet's two
/// billion): the rows and columns under the visible clip, found by
/// hit-testing its corners, read row by row through the Table interface;
/// the rest are counted. `None` when the table does not answer so (then
/// it is read as a list).
async fn visible_cells(bus: &Bus, walk: &Walk, index: usize) -> Option<(Vec<ObjectRef>, usize)> {
    let table = &walk.nodes[index].object;
    let count = bus.child_count(table).await.ok()?.max(0) as usize;
    let clip = visible_clip(bus, walk, index).await.filter(|c| !c.is_empty())?;
    let position_at = |x: i32, y: i32| async move {
        let hit =
            bus.hit_test(table, x, y).await.ok().filter(|hit| !hit.is_null() && hit != table)?;
        let index = bus.index_in_parent(&hit).await.ok().filter(|i| *i >= 0)?;
        bus.table_position(table, index).await.ok().filter(|(r, c)| *r >= 0 && *c >= 0)
    };
    let (first, last) = tokio::join!(
        position_at(clip.x + 1, clip.y + 1),
        position_at(clip.right() as i32 - 2, clip.bottom() as i32 - 2)
    );
    let ((top, left), (bottom, right)) = (first?, last?);
    if bottom < top || right < left {
        return None;
    }
    let columns = (right - left + 1) as usize;
    let rows = ((MANAGED_CELLS_READ / columns.max(1)).max(1) as i32).min(bottom - top + 1);
    let positions: Vec<(i32, i32)> = (top..top + rows)
        .flat_map(|r| (left..=right).map(move |c| (r, c)))
        .take(MANAGED_CELLS_READ)
        .collect();
    let cells: Vec<ObjectRef> =
        join_all(positions.iter().map(|&(r, c)| bus.table_cell(table, r, c)))
            .await
            .into_iter()
            .filter_map(Result::ok)
            .filter(|o| !o.is_null())
            .collect();
    let omitted = count.saturating_sub(cells.len());
    Some((cells, omitted))
}

/// Children of a container that creates them on demand (a list or table):
/// only those inside the visible clip are read; the rest are counted.
/// Off-screen rows report no position (GTK3 answers G_MININT), so the
/// visible index range is found by hit-testing the clip's corners.
async fn managed_children(
    bus: &Bus,
    walk: &Walk,
    index: usize,
) -> Result<(Vec<ObjectRef>, usize), BusError> {
    let container = &walk.nodes[index].object;
    let count = bus.child_count(container).await?.max(0);
    let Some(clip) = visible_clip(bus, walk, index).await.filter(|c| !c.is_empty()) else {
        return Ok((vec![], count as usize));
    };
    let index_at = |x: i32, y: i32| async move {
        let hit = bus
            .hit_test(container, x, y)
            .await
            .ok()
            .filter(|hit| !hit.is_null() && hit != container)?;
        bus.index_in_parent(&hit).await.ok().filter(|i| (0..count).contains(i))
    };
    let (right, bottom) = (clip.right() as i32 - 2, clip.bottom() as i32 - 2);
    let middle = clip.y + clip.height as i32 / 2;
    let probes =
        [(clip.x + 1, clip.y + 1), (clip.x + 1, middle), (clip.x + 1, bottom), (right, bottom)];
    let seed = join_all(probes.map(|(x, y)| index_at(x, y)))
        .await
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(0);
    let child_extents = |i: i32| async move {
        let child = bus.child_at(container, i).await?;
        let extents = bus.extents(&child).await.ok().and_then(|e| rect(e, (0, 0)));
        Ok::<_, BusError>((i, child, extents))
    };
    let shown = |extents: Option<Rect>| extents.is_some_and(|r| r.intersection(clip).is_some());
    // Visible rows form one run of indices around the seed: extend it both
    // ways a chunk at a time until a chunk ends in a child that is not shown.
    const CHUNK: i32 = 16;
    let mut visible: Vec<(i32, ObjectRef)> = vec![];
    let mut low = seed;
    while low > 0 && visible.len() < MANAGED_CHILDREN_READ as usize {
        let start = (low - CHUNK).max(0);
        let mut ended = false;
        for result in join_all((start..low).map(child_extents)).await {
            let (i, child, extents) = result?;
            if shown(extents) {
                visible.push((i, child));
            } else {
                ended = true;
            }
        }
        low = start;
        if ended {
            break;
        }
    }
    let mut high = seed;
    while high < count && visible.len() < MANAGED_CHILDREN_READ as usize {
        let end = (high + CHUNK).min(count);
        let chunk = join_all((high..end).map(child_extents)).await;
        let mut ended = false;
        for result in chunk {
            let (i, child, extents) = result?;
            if shown(extents) {
                visible.push((i, child));
            } else if i > seed {
                ended = true;
            }
        }
        high = end;
        if ended {
            break;
        }
    }
    // Column headers sit at the first indices, visible whatever the scroll.
    if low > 0 {
        for result in join_all((0..low.min(4)).map(child_extents)).await {
            let (i, child, extents) = result?;
            if shown(extents) {
                visible.push((i, child));
            }
        }
    }
    visible.sort_by_key(|(i, _)| *i);
    visible.dedup_by_key(|(i, _)| *i);
    let visible: Vec<ObjectRef> = visible.into_iter().map(|(_, c)| c).collect();
    let omitted = (count as usize).saturating_sub(visible.len());
    Ok((visible, omitted))
}

/// What a walk read of each object: its facts and, where it listed them
/// all, its children (for [`Memo::agrees_with`]).
pub fn read_facts(walk: &Walk) -> Vec<(ObjectRef, Facts, Option<Vec<ObjectRef>>)> {
    let whole = walk.failures.is_empty() && walk.cut.is_none();
    walk.nodes
        .iter()
        .map(|node| {
            let listed = whole
                && node.children_read
                && node.omitted.is_none()
                && !node.states.contains(State::ManagesDescendants);
            let children = listed
                .then(|| node.children.iter().map(|&c| walk.nodes[c].object.clone()).collect());
            (node.object.clone(), node.facts(), children)
        })
        .collect()
}

/// Whether a walk that took the rows shown by a container from the memo
/// found something somewhere at another place than the memo had it: then
/// the window moved without saying so (a scroll, a layout) and the rows
/// must be found again.
pub fn moved_unannounced(memo: &Memo, walk: &Walk) -> bool {
    let used_kept_rows = walk.nodes.iter().any(|n| {
        n.states.contains(State::ManagesDescendants) && memo.visible_rows(&n.object).is_some()
    });
    used_kept_rows
        && walk.nodes.iter().any(|n| match (&n.enriched, memo.previous_extents(&n.object)) {
            (Some((Some(now), _, _)), Some(before)) => *now != before,
            _ => false,
        })
}

/// What a walk is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A tree to show: positions, actions and text counts of what is shown.
    Tree,
    /// Only each object's facts (role, name, states): a check such as
    /// whether a password field has the focus.
    Facts,
}

/// Walks the tree under `root`.
pub async fn walk(
    bus: &Bus,
    memo: &Memo,
    root: ObjectRef,
    budget: TreeBudget,
    deadline: Instant,
    reading: Reading,
) -> Walk {
    let mut walk = Walk::default();
    // (object, parent index, depth)
    let mut frontier: Vec<(ObjectRef, Option<usize>, usize)> = vec![(root, None, 0)];
    let mut enrichment = vec![];
    while !frontier.is_empty() {
        // Node facts: from the cache, else fetched (all at once).
        // The window's own facts are always asked: its name is its title,
        // which Qt changes without an event.
        let kept =
            |object: &ObjectRef, depth: usize| if depth == 0 { None } else { memo.facts(object) };
        let missing: Vec<ObjectRef> = frontier
            .iter()
            .filter(|(o, _, depth)| kept(o, *depth).is_none())
            .map(|(o, _, _)| o.clone())
            .collect();
        let fetched = match tokio::time::timeout_at(
            deadline,
            join_all(missing.iter().cloned().map(|o| fetch_node(bus, o))),
        )
        .await
        {
            Ok(results) => results,
            Err(_) => {
                walk.cut =
                    Some(Cut::Deadline(frontier.iter().filter_map(|(_, p, _)| *p).collect()));
                break;
            }
        };
        let mut fetched_by_ref: HashMap<ObjectRef, RawNode> = HashMap::new();
        for (object, result) in missing.into_iter().zip(fetched) {
            match result {
                Ok(node) => {
                    fetched_by_ref.insert(object, node);
                }
                Err(e) => walk.failures.push(e.to_string()),
            }
        }
        let mut added: Vec<(usize, usize)> = vec![]; // (node index, depth)
        let mut cut_by_nodes: Vec<usize> = vec![];
        for (object, parent, depth) in frontier.drain(..) {
            let node = match kept(&object, depth) {
                Some(facts) => RawNode::from_facts(object.clone(), facts.clone()),
                None => match fetched_by_ref.remove(&object) {
                    Some(node) => node,
                    None => continue,
                },
            };
            if node.states.contains(State::Defunct) {
                continue;
            }
            if walk.nodes.len() >= budget.max_nodes {
                if let Some(p) = parent {
                    if !cut_by_nodes.contains(&p) {
                        cut_by_nodes.push(p);
                    }
                }
                continue;
            }
            let index = walk.nodes.len();
            walk.nodes.push(RawNode { parent, ..node });
            if let Some(p) = parent {
                walk.nodes[p].children.push(index);
            }
            added.push((index, depth));
        }
        if added.iter().any(|(_, depth)| *depth == 1) {
            walk.uses_showing = added
                .iter()
                .filter(|(_, depth)| *depth == 1)
                .any(|(i, _)| walk.nodes[*i].states.contains(State::Showing));
        }
        // Hidden subtrees (another tab's page, a collapsed section) are
        // counted, not walked; menus are walked, since their items work closed.
        let (hidden, added): (Vec<_>, Vec<_>) = added.into_iter().partition(|(i, depth)| {
            let node = &walk.nodes[*i];
            *depth > 0 && !walk.is_shown(node) && !is_menu_like(node.role)
        });
        let hidden_counts =
            join_all(hidden.iter().map(|(i, _)| hidden_child_count(bus, memo, &walk.nodes[*i])))
                .await;
        for ((index, _), count) in hidden.into_iter().zip(hidden_counts) {
            if count > 0 {
                walk.nodes[index].omitted = Some((count, OMITTED_HIDDEN.into()));
            }
        }
        if reading == Reading::Tree {
            start_enrichment(bus, memo, &mut walk, &added, &mut enrichment);
        }
        if !cut_by_nodes.is_empty() {
            walk.cut = Some(Cut::Nodes(cut_by_nodes));
            break;
        }
        // Children of this level, all requested at once.
        let expandable: Vec<(usize, usize)> = added
            .iter()
            .copied()
            .filter(|(i, _)| might_have_children(memo, &walk.nodes[*i]))
            .collect();
        let (within, too_deep): (Vec<_>, Vec<_>) =
            expandable.into_iter().partition(|(_, depth)| *depth < budget.max_depth);
        if !too_deep.is_empty() && walk.cut.is_none() {
            walk.cut = Some(Cut::Depth(too_deep.iter().map(|(i, _)| *i).collect()));
        }
        let requests = within.iter().map(|(i, _)| child_refs(bus, memo, &walk, *i));
        let results = match tokio::time::timeout_at(deadline, join_all(requests)).await {
            Ok(results) => results,
            Err(_) => {
                walk.cut = Some(Cut::Deadline(within.iter().map(|(i, _)| *i).collect()));
                break;
            }
        };
        for ((index, depth), result) in within.into_iter().zip(results) {
            match result {
                Ok((children, not_read)) => {
                    if not_read > 0 {
                        let hint =
                            if walk.nodes[index].has_interface(atspi_common::Interface::Table) {
                                OMITTED_CELLS
                            } else {
                                OMITTED_OFFSCREEN
                            };
                        walk.nodes[index].omitted = Some((not_read, hint.into()));
                    }
                    walk.nodes[index].children_read = true;
                    frontier.extend(children.into_iter().map(|c| (c, Some(index), depth + 1)));
                }
                Err(e) => walk.failures.push(e.to_string()),
            }
        }
    }
    finish_enrichment(&mut walk, enrichment, deadline).await;
    walk
}

pub const OMITTED_HIDDEN: &str =
    "hidden (another page, or a collapsed or scrolled-away part); bring it into view to read them";
pub const OMITTED_OFFSCREEN: &str =
    "off-screen or not yet created rows; scroll the list to bring them into view";
pub const OMITTED_CELLS: &str = "cells off-screen, or on screen beyond the first 400 read (whole rows, top first); scroll to bring others into view";

async fn hidden_child_count(bus: &Bus, memo: &Memo, node: &RawNode) -> usize {
    match memo.child_count(&node.object) {
        Some(count) if count >= 0 => count as usize,
        _ => bus.child_count(&node.object).await.unwrap_or(0).max(0) as usize,
    }
}

fn might_have_children(memo: &Memo, node: &RawNode) -> bool {
    memo.child_count(&node.object) != Some(0)
}

/// Extents (`None` when not asked; `Some(None)` when asked and not
/// answered), action names with key bindings (`None` when not asked or not
/// answered), whether the text is empty (`None` when not counted).
pub type Enrichment =
    (Option<Option<(i32, i32, i32, i32)>>, Option<Vec<(String, String)>>, Option<bool>);

/// Starts reading bounds and action names of freshly added nodes, taking
/// the actions and text counts the memo holds. The requests run while the walk goes on, filling
/// the application's idle time between the walk's own round trips. Hidden
/// objects have no meaningful position, and their actions matter only in
/// menus.
fn start_enrichment(
    bus: &Bus,
    memo: &Memo,
    walk: &mut Walk,
    added: &[(usize, usize)],
    pending: &mut Vec<(usize, tokio::task::JoinHandle<Enrichment>)>,
) {
    for &(index, _) in added {
        let node = &walk.nodes[index];
        let shown = index == 0 || walk.is_shown(node);
        let want_extents = shown && node.has_interface(atspi_common::Interface::Component);
        let want_actions = (shown || is_menu_like(node.role))
            && node.has_interface(atspi_common::Interface::Action);
        let want_count = node.counts_characters();
        if !(want_extents || want_actions || want_count) {
            continue;
        }
        // Positions are read every time: toolkits move things without a
        // word (Qt sends no event when a layout settles or a window resizes).
        let object = &node.object;
        let kept_actions = memo.actions(object).filter(|_| want_actions).cloned();
        let kept_empty = memo.empty(object).filter(|_| want_count);
        let ask_actions = want_actions && kept_actions.is_none();
        let ask_count = want_count && kept_empty.is_none();
        if !(want_extents || ask_actions || ask_count) {
            walk.nodes[index].enrich((None, kept_actions, kept_empty));
            continue;
        }
        let (bus, object) = (bus.clone(), object.clone());
        pending.push((
            index,
            tokio::spawn(async move {
                let extents = async {
                    match want_extents {
                        true => Some(bus.extents(&object).await.ok()),
                        false => None,
                    }
                };
                let actions = async {
                    match (ask_actions, kept_actions) {
                        (true, _) => bus.actions(&object).await.ok(),
                        (false, kept) => kept,
                    }
                };
                let empty = async {
                    match ask_count {
                        true => bus.character_count(&object).await.ok().map(|count| count == 0),
                        false => kept_empty,
                    }
                };
                tokio::join!(extents, actions, empty)
            }),
        ));
    }
}

async fn finish_enrichment(
    walk: &mut Walk,
    pending: Vec<(usize, tokio::task::JoinHandle<Enrichment>)>,
    deadline: Instant,
) {
    let (indices, handles): (Vec<usize>, Vec<_>) = pending.into_iter().unzip();
    let aborts: Vec<_> = handles.iter().map(|h| h.abort_handle()).collect();
    match tokio::time::timeout_at(deadline, join_all(handles)).await {
        Ok(results) => {
            for (index, result) in indices.into_iter().zip(results) {
                if let Ok(enrichment) = result {
                    walk.nodes[index].enrich(enrichment);
                }
            }
        }
        Err(_) => {
            aborts.iter().for_each(|a| a.abort());
            if walk.cut.is_none() {
                walk.cut = Some(Cut::Deadline(vec![]));
            }
            walk.failures.push("bounds and actions were not all read before the deadline".into());
        }
    }
}

/// Hands what a walk read to the memo. Lists of children are kept only
/// from a walk that read everything it meant to (nothing failed or was
/// cut) and never of a web document still loading (busy); positions are kept to tell the next walk whether anything moved.
pub fn remember(memo: &mut Memo, walk: &Walk) {
    let whole = walk.failures.is_empty() && walk.cut.is_none();
    memo.forget_stale_positions();
    for node in &walk.nodes {
        let known = memo.entry(&node.object);
        known.facts = Some(node.facts());
        if let Some((extents, actions, empty)) = &node.enriched {
            if extents.is_some() && whole {
                known.extents = *extents;
            }
            // Only what the application answered is kept: a failed read is asked again next time.
            if actions.is_some() {
                known.actions = actions.clone();
            }
            if empty.is_some() {
                known.empty = *empty;
            }
        }
        let objects =
            || node.children.iter().map(|&c| walk.nodes[c].object.clone()).collect::<Vec<_>>();
        match &node.omitted {
            Some((count, hint)) if hint == OMITTED_HIDDEN => {
                known.child_count = Some(*count as i32)
            }
            _ if !node.children_read || !whole => {}
            // A web document still loading: Chromium fills it without an
            // event. (Only documents: a list not kept is read again on every look.)
            _ if node.role == Role::DocumentWeb && node.states.contains(State::Busy) => {}
            None if !node.states.contains(State::ManagesDescendants) => {
                known.children = Some(objects());
                known.child_count = Some(node.children.len() as i32);
            }
            omitted => {
                let beyond = omitted.as_ref().map_or(0, |(count, _)| *count);
                memo.visible_rows.insert(node.object.clone(), (objects(), beyond));
            }
        }
    }
    memo.layout_fresh = whole;
}

/// How the accessible's extents relate to the X window: GTK3 reports screen
/// coordinates; GTK4 reports window-relative ones even when asked for screen.
pub fn screen_offset(
    frame_extents: Option<(i32, i32, i32, i32)>,
    window: &WindowInfo,
) -> (i32, i32) {
    let g = window.geometry;
    match frame_extents {
        Some((x, y, _, _)) if (x, y) == (g.x, g.y) => (0, 0),
        // Window-relative extents (GTK4, and every toolkit on Wayland). A
        // frame larger than the window includes client-side shadows, which
        // GTK draws alike on opposite sides: the window sits in its middle.
        // A frame shorter than the window: the toolkit draws decorations of its
        // own around its content (Qt on GNOME: a title bar above, thin borders
        // on the other sides), which its extents leave out.
        Some((0, 0, w, h)) if w <= g.width as i32 && h < g.height as i32 => {
            let side = (g.width as i32 - w) / 2;
            (g.x + side, g.y + (g.height as i32 - h - side).max(0))
        }
        Some((0, 0, w, h)) => {
            (g.x - ((w - g.width as i32).max(0) / 2), g.y - ((h - g.height as i32).max(0) / 2))
        }
        _ => (0, 0),
    }
}

/// Screen rectangle of reported extents; `None` for the placeholder
/// extents toolkits report for objects not on screen (G_MININT origins,
/// empty or absurd sizes).
pub fn rect((x, y, w, h): (i32, i32, i32, i32), offset: (i32, i32)) -> Option<Rect> {
    const LIMIT: i32 = 1 << 20;
    let sane = |v: i32| (-LIMIT..=LIMIT).contains(&v);
    if !(sane(x) && sane(y) && w > 0 && h > 0 && w <= LIMIT && h <= LIMIT) {
        return None;
    }
    Some(Rect::new(x + offset.0, y + offset.1, w as u32, h as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::{PidSource, WindowId};

    fn window(x: i32, y: i32, width: u32, height: u32) -> WindowInfo {
        WindowInfo {
            id: WindowId { pid: 1, handle: 1 },
            app: "app".into(),
            instance: "app".into(),
            title: "w".into(),
            pid_source: PidSource::Unknown,
            geometry: Rect::new(x, y, width, height),
            focused: false,
            minimized: false,
            desktop: glovebox_model::Desktop::User,
        }
    }

    #[test]
    fn extents_are_placed_in_the_window_whatever_the_toolkit_counts_from() {
        let w = window(100, 50, 400, 300);
        // Screen coordinates (GTK3 on X11).
        assert_eq!(screen_offset(Some((100, 50, 400, 300)), &w), (0, 0));
        // Window-relative, the window's own size (GTK4).
        assert_eq!(screen_offset(Some((0, 0, 400, 300)), &w), (100, 50));
        // Window-relative with client-side shadows of 20 on each side (GTK3 on Wayland).
        assert_eq!(screen_offset(Some((0, 0, 440, 340)), &w), (80, 30));
        // Window-relative content under a title bar of 26 the toolkit draws, borders
        // of 2 (Qt on GNOME).
        assert_eq!(screen_offset(Some((0, 0, 396, 272)), &w), (102, 76));
        assert_eq!(screen_offset(None, &w), (0, 0));
    }
}
