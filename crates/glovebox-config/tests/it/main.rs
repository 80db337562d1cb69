//! The integration tests of glovebox-config, one binary (each module was a test binary of its own).

mod fuzz;
mod private;
