//! The integration tests of glovebox-agent, one binary (each module was a test binary of its own).

mod fuzz;
mod loop_fake;
mod native;
mod providers;
#[path = "providers/server.rs"]
mod server;
