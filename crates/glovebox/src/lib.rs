//! How the `glovebox` binary turns its configuration into a host and a
//! model binding, shared by the binary and its end-to-end tests. Every
//! platform piece comes from glovebox-linux; every decision from the host.
#![forbid(unsafe_code)]

pub mod binding;
pub mod exit_status;
pub mod mcp_config;
pub mod platform;
#[cfg(target_os = "linux")]
pub mod reference;
