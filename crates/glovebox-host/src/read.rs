//! Explicit reads: the value of elements the caller names, against the
//! bound window's newest frame. Listing never reads a value; this is the
//! one way to, and each read is an observation the user's policy approves
//! and the audit records (role, id, length — never the text).

use crate::backend::Gated;
use crate::{decide, Host};
use glovebox_model::{
    ApprovalClass, ElementId, ElementValue, FrameId, Refusal, READ_MAX_CHARS, READ_MAX_ELEMENTS,
};

impl Host {
    /// The values of `ids` in frame `frame` (the newest of the bound
    /// window), each at most [`READ_MAX_CHARS`] characters. A password
    /// field is refused as secure input; so is any read while a password
    /// field has focus or another client holds the keyboard. The frame
    /// stays valid: reading changes nothing.
    pub fn read(&self, frame: FrameId, ids: &[ElementId]) -> Result<Vec<ElementValue>, Refusal> {
        let mut state = self.state();
        let result = (|| {
            self.inner.config.check_enabled()?;
            crate::decide::session::check_read_count(ids.len(), READ_MAX_ELEMENTS)?;
            let record = self.newest_frame(&mut state, frame)?;
            let mut described = vec![];
            for id in ids {
                decide::freshness::check_element(frame, *id, record.elements.contains_key(id))?;
                let element = &record.elements[id];
                decide::check_readable(*id, element.role)?;
                described.push((element.role, element.name.clone()));
            }
            let window = self.current_target(&mut state)?;
            self.check_not_denied(&window)?;
            let what: Vec<String> = ids
                .iter()
                .zip(&described)
                .map(|(id, (role, name))| format!("read the value of {id} ({role} {name:?})"))
                .collect();
            let mut request = crate::ApprovalRequest::call(ApprovalClass::Observe, what);
            request.window = Some(Host::window_label(&window));
            request.targets = described;
            self.approve_unlocked(&mut state, request, &[])?;
            // Other calls ran while the person was asked: the frame must still be the newest.
            self.newest_frame(&mut state, frame)?;
            decide::check_secure_input(
                self.secure_input_now(Some(&window))?,
                decide::Guarded::Read,
            )?;
            let b = &self.inner.backends;
            let mut values = vec![];
            for id in ids {
                let value = b.accessibility.read_value(&window, *id, READ_MAX_CHARS).gated()?;
                let grant = state.held()?;
                let mut audit = self.grant_record("read", grant);
                audit.element_id = Some(id.to_string());
                audit.element_role = Some(value.role);
                audit.text_length = Some(value.total_chars);
                self.audit(audit);
                values.push(value);
            }
            Ok(values)
        })();
        result.map_err(|e| self.refused(&state, None, e))
    }
}
