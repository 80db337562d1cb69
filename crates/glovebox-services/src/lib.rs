//! What glovebox keeps and how its processes meet, kept apart from the
//! gate (`glovebox-host`), which decides: nothing here decides whether a
//! call may run.
//!
//! - [`audit`]: the append-only trail of every decision.
//! - [`recording`] and [`signing`]: element-addressed recordings that
//!   outlive a session, signed with the user's key.
//! - [`control`]: the per-display grant lock, Stop cooldown and control
//!   socket by which glovebox processes of one display coordinate;
//!   [`warm`]: the socket a resident host serves one-shot calls on.
//! - [`access`]: who may reach a page glovebox serves on loopback.
//! - [`os`]: what differs per operating system below all of these — where
//!   state and runtime files go, randomness, this process's user, and the
//!   user at the other end of a local socket.
#![forbid(unsafe_code)]
#![deny(missing_docs, unreachable_pub)]

pub mod access;
pub mod audit;
pub mod control;
mod control_messages;
pub mod os;
pub mod recording;
pub mod signing;
#[cfg(unix)]
pub mod warm;
