//! What the control socket carries between glovebox processes: one
//! [`ControlRequest`] per connection and one [`ControlReply`] back, as JSON
//! lines. The messages are the same on every platform; how they travel (a
//! Unix socket beside the grant lock) is `control`'s.

use glovebox_model::Refusal;

/// What another process asks the holder of a display's grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "request", rename_all = "kebab-case")]
pub enum ControlRequest {
    /// Stop: revoke the grant and abort the turn holding it.
    Stop,
    /// The active grant.
    Status,
    /// The address of the holder's indicator page.
    Indicator,
}

/// The holder's answer to a [`ControlRequest`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum ControlReply {
    /// The grant is revoked and the Stop cooldown runs.
    Stopped,
    /// Stop was asked and could not be carried out.
    StopFailed {
        /// Why it could not.
        refusal: Refusal,
    },
    /// The active grant.
    Grant {
        /// The grant as `glovebox grant status` shows it.
        grant: glovebox_model::GrantView,
    },
    /// The holder has no active grant.
    NoGrant,
    /// The holder's state is taken (a call in flight) or unusable.
    Busy {
        /// Which of the two, in words.
        why: String,
    },
    /// The holder's indicator page.
    Indicator {
        /// Its address, with the access token it needs.
        url: String,
    },
    /// The holder serves no indicator page.
    NoIndicator,
    /// The holder is ending.
    Gone,
    /// The request was not one this holder understands (another version).
    Unknown {
        /// The request's line as received, cut to 200 characters.
        request: String,
    },
}

impl std::fmt::Display for ControlReply {
    /// What `glovebox stop` and `glovebox grant status` print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ControlReply::Stopped => f.write_str("stopped"),
            ControlReply::StopFailed { refusal } => write!(f, "error {refusal}"),
            ControlReply::Grant { grant } => {
                f.write_str(&serde_json::to_string(grant).unwrap_or_default())
            }
            ControlReply::NoGrant => f.write_str("no grant"),
            ControlReply::Busy { why } => write!(f, "busy: {why}"),
            ControlReply::Indicator { url } => f.write_str(url),
            ControlReply::NoIndicator => f.write_str("no indicator"),
            ControlReply::Gone => f.write_str("gone"),
            ControlReply::Unknown { request } => write!(f, "unknown request {request:?}"),
        }
    }
}

/// Why coordination between glovebox processes of one display failed.
/// What that means for a call is the gate's to say (`glovebox-host`'s
/// mapping of lower-layer errors).
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// Another process holds the display's grant lock.
    #[error("another glovebox process (pid {holder}) holds this display's grant")]
    Held {
        /// The holder's pid as its lock file says it.
        holder: String,
    },
    /// No process serves the display's control socket.
    #[error("no glovebox process holds a grant on this display")]
    NoHolder,
    /// The holder answered something that is no control reply.
    #[error("the grant holder answered {reply:?}, not a control reply ({why}); is it another glovebox version?")]
    BadReply {
        /// What it answered.
        reply: String,
        /// Why that is no reply.
        why: String,
    },
    /// A file, socket or thread of the coordination failed.
    #[error("{what}: {source}")]
    Io {
        /// Which one.
        what: &'static str,
        /// How.
        #[source]
        source: std::io::Error,
    },
    /// This system has no control socket yet: another process's Stop or
    /// status cannot reach the grant's holder.
    #[error("glovebox's control socket (Stop and status from another process) is not built for {os} yet: the grant's holder ends its grant with its own Stop")]
    Unsupported {
        /// The system (`std::env::consts::OS`).
        os: &'static str,
    },
}
