//! The integration tests of glovebox-x11, one binary (each module was a test binary of its own).

mod capture;
mod common;
mod server_death;
mod two_monitors;
mod windows;
