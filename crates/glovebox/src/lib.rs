//! How the `glovebox` binary puts the pieces together: the platform's
//! backends behind one [`glovebox_host::Host`], configured from
//! `glovebox-config`. Shared by the binary and its end-to-end tests.
#![forbid(unsafe_code)]

pub mod binding;
pub mod platform;
#[cfg(target_os = "linux")]
pub mod routes;
pub mod wire_routes;
#[cfg(target_os = "linux")]
pub mod launcher;
#[cfg(target_os = "linux")]
pub mod prompts;
