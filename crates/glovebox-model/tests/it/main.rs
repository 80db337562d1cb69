//! The integration tests of glovebox-model, one binary (each module was a test binary of its own).

mod fuzz;
mod tree_text;
