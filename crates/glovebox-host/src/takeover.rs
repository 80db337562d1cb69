//! The person takes the agent display over from the indicator page and
//! hands it back. While it is taken, every agent call is answered
//! `COMPUTER_PAUSED_BY_USER` (the grant is kept, nothing is done), and the
//! person's pointer and keys on the page's live view go to the agent
//! display's own pointer and keyboard — never the user's desktop. Handing
//! back resumes the grant with every frame from before ended, so the
//! agent's next call works on a fresh look. The audit records both moments
//! and nothing of what the person typed.

use crate::backend::Gated as _;
use crate::decide::lifecycle::{self, NoAgentDisplay};
use crate::Host;
use glovebox_model::{PersonInput, Refusal};
use glovebox_services::audit::AuditRecord;
use std::sync::atomic::Ordering;

impl Host {
    /// Whether the person has the agent display now.
    pub fn taken_over(&self) -> bool {
        self.inner.taken_over.load(Ordering::SeqCst)
    }

    /// The person takes the agent display over; `false` when they already had it.
    pub fn take_over(&self) -> Result<bool, Refusal> {
        let running = self.inner.backends.agent_display.as_ref().is_some_and(|a| a.running());
        if !running {
            return Err(lifecycle::no_agent_display(NoAgentDisplay::NotRunning));
        }
        {
            // Under the host's state: an input already past its checks is delivered first, and
            // none is delivered once this returns (act.rs asks again at the point of delivery).
            let _state = self.state();
            if self.inner.taken_over.swap(true, Ordering::SeqCst) {
                return Ok(false);
            }
        }
        let mut record = AuditRecord::new("taken-over");
        record.detail = Some(
            "the person took over the agent display from the indicator page; agent calls are paused"
                .into(),
        );
        self.audit(record);
        Ok(true)
    }

    /// The person hands the agent display back: the grant resumes, and every frame from before
    /// is ended (the agent observes again). `false` when nothing was taken: no change.
    pub fn hand_back(&self) -> Result<bool, Refusal> {
        if !self.taken_over() {
            return Ok(false);
        }
        {
            let mut state = self.state();
            state.frames.clear();
            self.inner.taken_over.store(false, Ordering::SeqCst);
        }
        let mut record = AuditRecord::new("handed-back");
        record.detail = Some(
            "the person handed the agent display back; the agent's frames from before are stale"
                .into(),
        );
        self.audit(record);
        Ok(true)
    }

    /// One piece of the person's input, delivered to the agent display while it is taken over.
    /// Never audited or logged: it may be a password the person types into a login there.
    pub fn person_input(&self, input: &PersonInput) -> Result<(), Refusal> {
        if !self.taken_over() {
            return Err(lifecycle::person_input_not_taken_over());
        }
        input.validate()?;
        match &self.inner.backends.agent_display {
            Some(screen) => match screen.person_input(input) {
                Some(delivered) => delivered.gated(),
                None => Err(lifecycle::no_agent_display(NoAgentDisplay::Ended)),
            },
            None => Err(lifecycle::no_agent_display(NoAgentDisplay::Unsupported)),
        }
    }
}
