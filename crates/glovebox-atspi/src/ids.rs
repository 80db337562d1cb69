//! Element ids: short opaque `e12` handles mapped, inside this process, to
//! the accessible object they stand for. The same object of the same window
//! keeps its id across observations.

use crate::transport::ObjectRef;
use glovebox_model::ElementId;
use glovebox_platform::{BackendError, BackendErrorKind};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct IdRegistry {
    next: u32,
    by_object: HashMap<(u32, ObjectRef), ElementId>,
    by_id: HashMap<ElementId, (u32, ObjectRef)>,
}

impl IdRegistry {
    /// The id of `object` in window `xid`, minted on first sight.
    pub fn id_for(&mut self, xid: u32, object: &ObjectRef) -> ElementId {
        if let Some(id) = self.by_object.get(&(xid, object.clone())) {
            return *id;
        }
        self.next += 1;
        let id = ElementId(self.next);
        self.by_object.insert((xid, object.clone()), id);
        self.by_id.insert(id, (xid, object.clone()));
        id
    }

    /// The object behind `id`, which must belong to window `xid`.
    pub fn resolve(&self, xid: u32, id: ElementId) -> Result<ObjectRef, BackendError> {
        match self.by_id.get(&id) {
            Some((owner, object)) if *owner == xid => Ok(object.clone()),
            Some((owner, _)) => Err(BackendError::new(
                BackendErrorKind::StaleElement,
                format!("{id} belongs to window {owner:#x}, not {xid:#x}; observe this window and use its ids"),
            )),
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
        let a = ids.id_for(0x100, &object("/a"));
        let b = ids.id_for(0x100, &object("/b"));
        assert_ne!(a, b);
        assert_eq!(ids.id_for(0x100, &object("/a")), a);
        assert_eq!(ids.resolve(0x100, a).unwrap(), object("/a"));
        assert_eq!(ids.resolve(0x200, a).unwrap_err().kind, BackendErrorKind::StaleElement);
        assert_eq!(ids.resolve(0x100, ElementId(999)).unwrap_err().kind, BackendErrorKind::NotFound);
    }
}
