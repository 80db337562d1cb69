//! Element ids: short opaque `e12` handles mapped, inside this process, to
//! the accessible object they stand for. The same object of the same window
//! keeps its id across observations; an id is never handed to another
//! object, even when a toolkit reuses a gone object's path (Qt's paths are
//! addresses) for a new one of another role.

use crate::transport::ObjectRef;
use glovebox_model::{ElementId, Role};
use glovebox_platform::{BackendError, BackendErrorKind};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct IdRegistry {
    next: u32,
    by_object: HashMap<(u32, ObjectRef), (ElementId, Role)>,
    by_id: HashMap<ElementId, (u32, ObjectRef)>,
}

impl IdRegistry {
    /// The id of `object` (of role `role`) in window `xid`, minted
    /// on first sight. The same path with another role is another object:
    /// it gets a new id and the old one resolves to nothing. `None` once
    /// this process has named every tree id there is ([`ElementId::tree`]):
    /// an id is never handed to a second object, nor taken from the seen ids.
    pub fn id_for(&mut self, xid: u32, object: &ObjectRef, role: Role) -> Option<ElementId> {
        let key = (xid, object.clone());
        match self.by_object.get(&key) {
            Some(&(id, seen_role)) if seen_role == role => return Some(id),
            Some(&(old, _)) => {
                self.by_id.remove(&old);
            }
            None => {}
        }
        let id = ElementId::tree(self.next + 1)?;
        self.next += 1;
        self.by_object.insert(key, (id, role));
        self.by_id.insert(id, (xid, object.clone()));
        Some(id)
    }

    /// The object behind `id`, which must belong to window `xid`.
    pub fn resolve(&self, xid: u32, id: ElementId) -> Result<ObjectRef, BackendError> {
        match self.by_id.get(&id) {
            Some((owner, object)) if *owner == xid => Ok(object.clone()),
            Some((owner, _)) => Err(BackendError::new(
                BackendErrorKind::StaleElement,
                format!("{id} belongs to window {owner:#x}, not {xid:#x}; observe this window and use its ids"),
            )),
            None if ElementId::tree(self.next).is_some_and(|newest| id <= newest) => {
                Err(BackendError::new(BackendErrorKind::StaleElement, format!("{id} is gone from the window; observe again and use the new ids")))
            }
            None => Err(BackendError::new(BackendErrorKind::NotFound, format!("{id} was never issued; observe again and use the new ids"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::OwnedObjectPath;

    fn object(path: &str) -> ObjectRef {
        ObjectRef { bus: ":1.5".into(), path: OwnedObjectPath::try_from(path).unwrap() }
    }

    #[test]
    fn ids_are_stable_per_window_and_refuse_other_windows() {
        let mut ids = IdRegistry::default();
        let a = ids.id_for(0x100, &object("/a"), Role::PushButton).unwrap();
        let b = ids.id_for(0x100, &object("/b"), Role::PushButton).unwrap();
        assert_ne!(a, b);
        assert_eq!(ids.id_for(0x100, &object("/a"), Role::PushButton), Some(a));
        assert_eq!(ids.resolve(0x100, a).unwrap(), object("/a"));
        assert_eq!(ids.resolve(0x200, a).unwrap_err().kind, BackendErrorKind::StaleElement);
        assert_eq!(
            ids.resolve(0x100, ElementId::tree(999).unwrap()).unwrap_err().kind,
            BackendErrorKind::NotFound
        );
    }

    #[test]
    fn a_reused_path_with_another_role_is_a_new_object() {
        let mut ids = IdRegistry::default();
        let button = ids.id_for(0x100, &object("/0x55d0"), Role::PushButton).unwrap();
        let label = ids.id_for(0x100, &object("/0x55d0"), Role::Label).unwrap();
        assert_ne!(button, label);
        assert_eq!(ids.resolve(0x100, button).unwrap_err().kind, BackendErrorKind::StaleElement);
        assert_eq!(ids.resolve(0x100, label).unwrap(), object("/0x55d0"));
        assert_eq!(ids.id_for(0x100, &object("/0x55d0"), Role::Label), Some(label));
    }

    #[test]
    fn the_last_tree_id_is_never_followed_by_a_seen_one() {
        let mut ids = IdRegistry { next: glovebox_model::FIRST_SEEN_ID - 2, ..Default::default() };
        let last = ids.id_for(0x100, &object("/last"), Role::PushButton).unwrap();
        assert_eq!(last.origin(), glovebox_model::ElementOrigin::Tree);
        assert_eq!(ids.id_for(0x100, &object("/past"), Role::PushButton), None);
        assert_eq!(ids.id_for(0x100, &object("/last"), Role::PushButton), Some(last));
    }
}
