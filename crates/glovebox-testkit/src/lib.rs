//! What glovebox's tests share, so no suite rebuilds it: the host builders
//! over a sandbox desktop ([`host`], [`wayland_host`]), the snapshot of the
//! user's desktop a background action must leave as it was
//! ([`desktop::Desktop`]), the fake world the pure policy, loop and surface
//! tests run on ([`fake`]), the scripted MCP client ([`mcp`]) and `glovebox serve` over plain HTTP ([`serve`]). Fixture apps are launched through
//! `glovebox_sandbox::fixture`.
#![forbid(unsafe_code)]

pub mod architecture;
pub mod desktop;
pub mod fake;
mod host;
pub mod mcp;
pub mod model;
pub mod sdk;
pub mod serve;

pub use host::{audit_path, host, wayland_host, TestHost, WaylandTestHost};
