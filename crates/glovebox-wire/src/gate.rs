//! OpenAI's `pending_safety_checks` as the executors carry them. Whether a
//! check is acknowledged is the user's answer to the host's prompt
//! ([`glovebox_host::Host::acknowledge_safety_check`]); nothing here decides.

use serde::{Deserialize, Serialize};

/// One OpenAI `pending_safety_checks` entry, echoed back unchanged when
/// the user acknowledged it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SafetyCheck {
    pub id: String,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}
