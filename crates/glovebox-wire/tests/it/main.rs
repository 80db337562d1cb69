//! The integration tests of glovebox-wire, one binary (each module was a test binary of its own).

mod common;
mod fuzz;
mod golden;
