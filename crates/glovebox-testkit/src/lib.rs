//! What glovebox's end-to-end tests share, so no suite rebuilds it: the one
//! host builder over a sandbox desktop ([`host`]), and the snapshot of the
//! user's desktop a background action must leave as it was
//! ([`desktop::Desktop`]); and the fake world the pure policy, loop and
//! surface tests run on ([`fake`]). Fixture apps are launched through
//! `glovebox_sandbox::fixture`.
#![forbid(unsafe_code)]

pub mod desktop;
pub mod fake;
mod host;

pub use host::{audit_path, host, wayland_host, TestHost, WaylandTestHost};
