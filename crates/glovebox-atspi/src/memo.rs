//! What the walks have read of each application, kept until its own events
//! say it changed: an observation reads this memo and asks the bus only for
//! what is missing or was invalidated.
//!
//! Each application gets a task that reads its signals as they come (the
//! AT-SPI events glovebox registered for and its cache's additions and
//! removals) and queues them; the next observation applies them before it
//! reads. The rules are conservative: an object an event names loses what
//! the event could have changed, and anything that can move things on
//! screen (a child added, a scroll, a name that may resize a label, text,
//! an unknown event) makes every kept position and every list of visible
//! rows stale at once. A queue that overflows, an input the application
//! answered with no event at all, a new accessibility bus: the memo is
//! dropped and the next observation walks the bus again.

use crate::translate;
use crate::transport::{Bus, CacheItem, ObjectRef};
use atspi_common::{State, StateSet};
use futures_util::StreamExt as _;
use glovebox_model::Role;
use glovebox_platform::sync::LockRecovered as _;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Events queued for one application before the memo gives up and walks anew.
const PENDING_LIMIT: usize = 20_000;
/// Objects kept per application; past this the memo starts over.
const KNOWN_LIMIT: usize = 100_000;
/// Applications whose events are followed at once; the least recently read goes first.
const APPS_LIMIT: usize = 32;

/// An accessible's own facts, as `GetRole`, `Name`, … or the cache say them.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    pub role: Role,
    pub name: String,
    pub description: String,
    pub states: StateSet,
    pub interfaces: atspi_common::InterfaceSet,
}

impl From<&CacheItem> for Facts {
    fn from(item: &CacheItem) -> Facts {
        Facts {
            role: translate::role(item.role),
            name: item.name.clone(),
            description: item.description.clone(),
            states: translate::state_set(&item.states),
            interfaces: translate::interface_set(&item.interfaces),
        }
    }
}

/// What is known of one accessible; `None` is "ask the bus".
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub facts: Option<Facts>,
    /// Every child, in the toolkit's order.
    pub children: Option<Vec<ObjectRef>>,
    pub child_count: Option<i32>,
    /// Position and size as last read (`None` inside: it reported none):
    /// never shown from here, only compared with a new read.
    pub extents: Option<Option<(i32, i32, i32, i32)>>,
    /// Action names and key bindings.
    pub actions: Option<Vec<(String, String)>>,
    /// Whether its text holds no characters.
    pub empty: Option<bool>,
}

/// The memo of one application.
#[derive(Debug, Default)]
pub struct Memo {
    pub known: HashMap<ObjectRef, Known>,
    /// The rows a container that manages its descendants shows, and how
    /// many it has beyond them; trusted only while [`Memo::layout_fresh`].
    pub visible_rows: HashMap<ObjectRef, (Vec<ObjectRef>, usize)>,
    /// Whether nothing has moved since the visible rows were found: no event
    /// that could move things came, and the window's frame reads the same.
    pub layout_fresh: bool,
    /// The frame's extents when positions were read.
    pub frame_extents: Option<(i32, i32, i32, i32)>,
    /// Whether a fresh walk has read what this memo says. Until then it is
    /// not read from: a bridge that has just started learns of listeners a
    /// moment late, and what changed meanwhile was never announced.
    pub verified: bool,
}

impl Memo {
    /// A memo filled from `Cache.GetItems`: facts, and children where the
    /// cache lists them all.
    pub fn from_items(items: Vec<CacheItem>) -> Memo {
        let mut memo = Memo::default();
        let mut children: HashMap<ObjectRef, Vec<(i32, ObjectRef)>> = HashMap::new();
        for item in &items {
            if item.parent != item.object {
                children
                    .entry(item.parent.clone())
                    .or_default()
                    .push((item.index_in_parent, item.object.clone()));
            }
        }
        for item in items {
            let mut listed = children.remove(&item.object).unwrap_or_default();
            listed.sort_by_key(|(i, _)| *i);
            let complete = item.child_count >= 0
                && listed.len() == item.child_count as usize
                && listed.iter().all(|(i, _)| *i >= 0);
            let known = Known {
                facts: Some(Facts::from(&item)),
                children: complete.then(|| listed.into_iter().map(|(_, o)| o).collect()),
                child_count: (item.child_count >= 0).then_some(item.child_count),
                ..Known::default()
            };
            memo.known.insert(item.object, known);
        }
        memo
    }

    /// Applies the changes events reported, in order. An object removed
    /// also leaves every kept list of children it was in: its parent may
    /// have sent no event of its own (Chromium replacing a page's document).
    fn apply_all(&mut self, changes: Vec<Change>) {
        let mut removed = std::collections::HashSet::new();
        for change in changes {
            match &change {
                Change::Removed(object) => {
                    removed.insert(object.clone());
                }
                Change::ChildrenChanged { removed: Some(child), .. } => {
                    removed.insert(child.clone());
                }
                _ => {}
            }
            self.apply(change);
        }
        if removed.is_empty() {
            return;
        }
        for known in self.known.values_mut() {
            if known
                .children
                .as_ref()
                .is_some_and(|children| children.iter().any(|c| removed.contains(c)))
            {
                known.children = None;
                known.child_count = None;
            }
        }
    }

    /// Whether a fresh walk read what this memo says of the objects it
    /// walked: the same facts, and the same children where both list them.
    pub fn agrees_with(&self, walked: &[(ObjectRef, Facts, Option<Vec<ObjectRef>>)]) -> bool {
        walked.iter().all(|(object, facts, children)| {
            self.facts(object).is_none_or(|kept| kept == facts)
                && match (self.children(object), children) {
                    (Some(kept), Some(read)) => kept == read,
                    _ => true,
                }
        })
    }

    pub fn facts(&self, object: &ObjectRef) -> Option<&Facts> {
        self.known.get(object)?.facts.as_ref()
    }

    pub fn children(&self, object: &ObjectRef) -> Option<&Vec<ObjectRef>> {
        self.known.get(object)?.children.as_ref()
    }

    pub fn child_count(&self, object: &ObjectRef) -> Option<i32> {
        self.known.get(object)?.child_count
    }

    /// Where the last walk found `object` (`Some(None)`: it reported no place).
    pub fn previous_extents(&self, object: &ObjectRef) -> Option<Option<(i32, i32, i32, i32)>> {
        self.known.get(object)?.extents
    }

    pub fn actions(&self, object: &ObjectRef) -> Option<&Vec<(String, String)>> {
        self.known.get(object)?.actions.as_ref()
    }

    pub fn empty(&self, object: &ObjectRef) -> Option<bool> {
        self.known.get(object)?.empty
    }

    pub fn visible_rows(&self, object: &ObjectRef) -> Option<&(Vec<ObjectRef>, usize)> {
        self.layout_fresh.then(|| self.visible_rows.get(object)).flatten()
    }

    pub fn entry(&mut self, object: &ObjectRef) -> &mut Known {
        self.known.entry(object.clone()).or_default()
    }

    /// Drops the visible rows when the layout moved.
    pub fn forget_stale_positions(&mut self) {
        if !self.layout_fresh {
            self.visible_rows.clear();
        }
    }

    /// Says the window's frame reads `extents` now: a frame that moved or
    /// changed size moved everything in it.
    pub fn frame_reads(&mut self, extents: Option<(i32, i32, i32, i32)>) {
        if self.frame_extents != extents {
            self.moved();
            self.frame_extents = extents;
        }
    }

    pub(crate) fn moved(&mut self) {
        self.layout_fresh = false;
        self.visible_rows.clear();
    }

    /// Applies one change an event reported.
    fn apply(&mut self, change: Change) {
        match change {
            Change::Added(item) => {
                let facts = Facts::from(&*item);
                if let Some(parent) = self.known.get_mut(&item.parent) {
                    parent.children = None;
                    parent.child_count = None;
                }
                let known = self.entry(&item.object);
                known.facts = Some(facts);
                known.children = None;
                known.child_count = (item.child_count >= 0).then_some(item.child_count);
                self.moved();
            }
            Change::Removed(object) => {
                self.known.remove(&object);
                self.moved();
            }
            Change::ChildrenChanged { object, removed } => {
                if let Some(known) = self.known.get_mut(&object) {
                    known.children = None;
                    known.child_count = None;
                }
                if let Some(child) = removed {
                    self.known.remove(&child);
                }
                self.moved();
            }
            Change::State { object, state }
                if !self.known.contains_key(&object) && state == State::Busy =>
            {
                // Loading in an object no walk has met: a document hangs
                // somewhere a kept list of children does not show (Chromium
                // swaps a page's document with no event on its parent).
                // Focus alone is not enough: Calc makes a new accessible
                // for each cell the cursor moves to, and dropping every
                // list on each would walk the whole window after each key.
                for known in self.known.values_mut() {
                    known.children = None;
                    known.child_count = None;
                }
                self.moved();
            }
            Change::State { object, state } => {
                if let Some(known) = self.known.get_mut(&object) {
                    known.facts = None;
                    // A document that finished (or started) loading: Chromium
                    // fills it without a ChildrenChanged of its own.
                    if state == State::Busy {
                        known.children = None;
                        known.child_count = None;
                    }
                }
                if !layout_neutral_state(state) {
                    self.moved();
                }
            }
            Change::Property { object, property } => {
                let role = self.facts(&object).map(|f| f.role);
                // A value is read live, never kept: only a scroll position moves things.
                if property == Property::Value && role.is_some() && role != Some(Role::ScrollBar) {
                    return;
                }
                if let Some(known) = self.known.get_mut(&object) {
                    known.facts = None;
                    if property != Property::Description {
                        known.actions = None;
                    }
                }
                if property != Property::Description {
                    self.moved();
                }
            }
            Change::Text(object) => {
                if let Some(known) = self.known.get_mut(&object) {
                    known.empty = None;
                }
                self.moved();
            }
            Change::Other => self.moved(),
        }
    }
}

/// States whose change moves nothing on screen.
fn layout_neutral_state(state: State) -> bool {
    matches!(
        state,
        State::Focused
            | State::Selected
            | State::Checked
            | State::Pressed
            | State::Armed
            | State::Active
            | State::Indeterminate
            | State::Sensitive
            | State::Enabled
            | State::Editable
            | State::Focusable
            | State::Selectable
            | State::ReadOnly
            | State::Required
            | State::InvalidEntry
            | State::Visited
            | State::Animated
    )
}

/// The property a `PropertyChange` names, as far as the memo tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Property {
    /// `accessible-value`: read live, never kept.
    Value,
    /// `accessible-description`: changes no layout and no action.
    Description,
    /// Any other (name, role, parent, table parts …).
    Other,
}

impl From<&str> for Property {
    fn from(name: &str) -> Property {
        match name {
            "accessible-value" => Property::Value,
            "accessible-description" => Property::Description,
            _ => Property::Other,
        }
    }
}

/// What one signal says changed.
#[derive(Debug)]
enum Change {
    Added(Box<CacheItem>),
    Removed(ObjectRef),
    ChildrenChanged {
        object: ObjectRef,
        removed: Option<ObjectRef>,
    },
    /// A state turned on or off (an unknown name is `State::Invalid`).
    State {
        object: ObjectRef,
        state: State,
    },
    Property {
        object: ObjectRef,
        property: Property,
    },
    Text(ObjectRef),
    /// Anything else an application sent: it may have moved things.
    Other,
}

/// Reads an AT-SPI signal.
fn change_of(message: &zbus::Message) -> Change {
    let header = message.header();
    let (Some(sender), Some(path), Some(interface), Some(member)) =
        (header.sender(), header.path(), header.interface(), header.member())
    else {
        return Change::Other;
    };
    let object = ObjectRef { bus: sender.to_string(), path: path.clone().into() };
    let body = message.body();
    match (interface.as_str(), member.as_str()) {
        ("org.a11y.atspi.Cache", "AddAccessible") => match body.deserialize::<CacheItem>() {
            Ok(item) => Change::Added(Box::new(item)),
            Err(_) => Change::Other,
        },
        ("org.a11y.atspi.Cache", "RemoveAccessible") => match body.deserialize::<ObjectRef>() {
            Ok(gone) => Change::Removed(gone),
            Err(_) => Change::Other,
        },
        ("org.a11y.atspi.Event.Object", member) => {
            // Every AT-SPI event starts with its detail string and two integers, then a variant.
            let Ok((detail, _, _, data)) = body
                .deserialize::<(String, i32, i32, zbus::zvariant::OwnedValue)>()
                .or_else(|_| {
                    body.deserialize::<(
                        String,
                        i32,
                        i32,
                        zbus::zvariant::OwnedValue,
                        HashMap<String, zbus::zvariant::OwnedValue>,
                    )>()
                    .map(|(d, a, b, v, _)| (d, a, b, v))
                })
            else {
                return Change::Other;
            };
            match member {
                "ChildrenChanged" => {
                    let removed = detail
                        .starts_with("remove")
                        .then(|| <(String, zbus::zvariant::OwnedObjectPath)>::try_from(data).ok())
                        .flatten();
                    Change::ChildrenChanged {
                        object,
                        removed: removed.map(|(bus, path)| ObjectRef { bus, path }),
                    }
                }
                "StateChanged" => Change::State { object, state: State::from(detail.as_str()) },
                "PropertyChange" => {
                    Change::Property { object, property: Property::from(detail.as_str()) }
                }
                "TextChanged" => Change::Text(object),
                _ => Change::Other,
            }
        }
        _ => Change::Other,
    }
}

/// Events read for one application and not yet applied.
#[derive(Default)]
struct Pending {
    changes: Vec<Change>,
    overflowed: bool,
    /// When the application has sent no event since the last input: set
    /// by a settle that saw none, so the memo is not trusted.
    distrusted: bool,
    /// The signals stopped coming (the connection closed): nothing kept
    /// can be trusted again, and the application is followed anew.
    ended: bool,
}

struct Followed {
    /// `None` while an observation holds the memo.
    memo: Option<Memo>,
    pending: Arc<Mutex<Pending>>,
    reader: tokio::task::JoinHandle<()>,
    last_read: u64,
}

impl Drop for Followed {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The memos of the applications glovebox has read, each with the task
/// following its events.
#[derive(Default)]
pub struct Memos {
    apps: Mutex<HashMap<String, Followed>>,
    /// Applications whose events cannot be trusted to tell every change:
    /// each of their reads walks the bus.
    unfollowed: Mutex<std::collections::HashSet<String>>,
    reads: std::sync::atomic::AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock_recovered()
}

impl Memos {
    /// The memo of `app` with every queued event applied, for an
    /// observation to read and hand back with [`Memos::keep`]. The first
    /// time, its events are followed from now on and the memo starts
    /// empty: the caller fills it (from the cache, then by walking).
    /// `None` when following is impossible (then the caller walks the bus).
    pub async fn take(&self, bus: &Bus, app: &str) -> Option<Memo> {
        if lock(&self.unfollowed).contains(app) {
            return None;
        }
        let read = self.reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        {
            let mut apps = lock(&self.apps);
            if apps.get(app).is_some_and(|f| lock(&f.pending).ended) {
                apps.remove(app);
            }
            if let Some(followed) = apps.get_mut(app) {
                followed.last_read = read;
                let mut memo = followed.memo.take().unwrap_or_default();
                let mut pending = lock(&followed.pending);
                let changes = std::mem::take(&mut pending.changes);
                if std::mem::take(&mut pending.overflowed)
                    || std::mem::take(&mut pending.distrusted)
                    || memo.known.len() > KNOWN_LIMIT
                {
                    return Some(Memo::default());
                }
                drop(pending);
                memo.apply_all(changes);
                return Some(memo);
            }
        }
        let mut stream = bus.events_of(app).await.ok()?;
        let pending = Arc::new(Mutex::new(Pending::default()));
        let queue = pending.clone();
        let reader = tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let mut pending = lock(&queue);
                if pending.changes.len() >= PENDING_LIMIT {
                    pending.changes.clear();
                    pending.overflowed = true;
                }
                if !pending.overflowed {
                    pending.changes.push(change_of(&message));
                }
            }
            lock(&queue).ended = true;
        });
        let mut apps = lock(&self.apps);
        if apps.len() >= APPS_LIMIT && !apps.contains_key(app) {
            let oldest = apps.iter().min_by_key(|(_, f)| f.last_read).map(|(name, _)| name.clone());
            if let Some(oldest) = oldest {
                apps.remove(&oldest);
            }
        }
        apps.insert(app.to_owned(), Followed { memo: None, pending, reader, last_read: read });
        Some(Memo::default())
    }

    /// Hands a memo back after an observation filled it.
    pub fn keep(&self, app: &str, memo: Memo) {
        if let Some(followed) = lock(&self.apps).get_mut(app) {
            followed.memo = Some(memo);
        }
    }

    /// Stops trusting what is kept of `app`: an input it answered with no
    /// event, or it went away.
    pub fn distrust(&self, app: &str) {
        if let Some(followed) = lock(&self.apps).get_mut(app) {
            followed.memo = None;
            lock(&followed.pending).distrusted = true;
        }
    }

    /// Stops following `app` for good: its bridge does not send an event
    /// for every change (Qt's leaves out a window's new title and menu
    /// items enabled while closed; only at-spi2-atk's, which answers
    /// `Cache.GetItems`, is known to send them all).
    pub fn unfollow(&self, app: &str) {
        lock(&self.apps).remove(app);
        lock(&self.unfollowed).insert(app.to_owned());
    }

    /// Forgets every application (a new bus knows none of them).
    pub fn clear(&self) {
        lock(&self.apps).clear();
        lock(&self.unfollowed).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(path: &str) -> ObjectRef {
        ObjectRef {
            bus: ":1.9".into(),
            path: zbus::zvariant::OwnedObjectPath::try_from(path).unwrap(),
        }
    }

    fn item(path: &str, parent: &str, index: i32, child_count: i32, role: u32) -> CacheItem {
        CacheItem {
            object: object(path),
            app: object("/org/a11y/atspi/accessible/root"),
            parent: object(parent),
            index_in_parent: index,
            child_count,
            interfaces: vec![],
            name: path.into(),
            role,
            description: String::new(),
            states: vec![0, 0],
        }
    }

    fn memo() -> Memo {
        let mut memo = Memo::from_items(vec![
            item("/w", "/app", 0, 2, 23),
            item("/b", "/w", 1, 0, 43),
            item("/a", "/w", 0, 0, 48),
        ]);
        memo.layout_fresh = true;
        memo.visible_rows.insert(object("/w"), (vec![object("/a")], 3));
        memo
    }

    #[test]
    fn the_cache_gives_children_in_order_only_when_it_lists_them_all() {
        let memo = memo();
        assert_eq!(memo.children(&object("/w")), Some(&vec![object("/a"), object("/b")]));
        let partial =
            Memo::from_items(vec![item("/w", "/app", 0, 3, 23), item("/a", "/w", 0, 0, 43)]);
        assert_eq!(partial.children(&object("/w")), None);
        assert_eq!(partial.child_count(&object("/w")), Some(3));
    }

    #[test]
    fn a_child_removed_leaves_the_list_it_was_in_though_its_parent_said_nothing() {
        let mut removed = memo();
        removed.apply_all(vec![Change::Removed(object("/b"))]);
        assert_eq!(removed.children(&object("/w")), None);
        assert!(removed.facts(&object("/a")).is_some());
    }

    #[test]
    fn a_focus_change_drops_the_object_facts_but_keeps_the_visible_rows() {
        let mut memo = memo();
        memo.apply(Change::State { object: object("/b"), state: State::from("focused") });
        assert!(memo.facts(&object("/b")).is_none());
        assert!(memo.visible_rows(&object("/w")).is_some());
        memo.apply(Change::State { object: object("/b"), state: State::from("showing") });
        assert!(memo.visible_rows(&object("/w")).is_none());
    }

    #[test]
    fn a_document_that_finishes_loading_is_read_again_with_its_children() {
        let mut memo = memo();
        memo.apply(Change::State { object: object("/w"), state: State::from("busy") });
        assert_eq!(memo.children(&object("/w")), None);
        assert!(memo.facts(&object("/w")).is_none());
        assert!(!memo.layout_fresh);
    }

    #[test]
    fn loading_in_an_object_never_met_drops_every_kept_list_of_children() {
        let mut memo = memo();
        memo.apply(Change::State { object: object("/b"), state: State::from("busy") });
        assert!(
            memo.children(&object("/w")).is_some(),
            "a known object's loading keeps the others"
        );
        // A cell Calc made for its cursor takes focus: the lists stay.
        memo.apply(Change::State { object: object("/cell"), state: State::from("focused") });
        assert!(memo.children(&object("/w")).is_some());
        memo.apply(Change::State { object: object("/new"), state: State::from("busy") });
        assert_eq!(memo.children(&object("/w")), None);
        assert!(memo.facts(&object("/a")).is_some());
    }

    #[test]
    fn a_scroll_makes_positions_stale_and_another_value_does_not() {
        let mut memo = memo();
        memo.entry(&object("/b")).facts.as_mut().unwrap().role = Role::Slider;
        memo.apply(Change::Property {
            object: object("/b"),
            property: Property::from("accessible-value"),
        });
        assert!(memo.layout_fresh);
        memo.apply(Change::Property {
            object: object("/a"),
            property: Property::from("accessible-value"),
        });
        assert!(!memo.layout_fresh);
    }

    #[test]
    fn children_changed_drops_the_list_and_the_removed_child() {
        let mut memo = memo();
        memo.apply(Change::ChildrenChanged { object: object("/w"), removed: Some(object("/b")) });
        assert_eq!(memo.children(&object("/w")), None);
        assert!(memo.facts(&object("/b")).is_none());
        assert!(!memo.layout_fresh);
    }

    #[test]
    fn a_name_change_drops_facts_and_actions() {
        let mut memo = memo();
        memo.entry(&object("/b")).actions = Some(vec![("click".into(), String::new())]);
        memo.apply(Change::Property {
            object: object("/b"),
            property: Property::from("accessible-name"),
        });
        assert!(memo.facts(&object("/b")).is_none() && memo.actions(&object("/b")).is_none());
    }
}
