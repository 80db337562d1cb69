//! The integration tests of glovebox-host, one binary (each module was a test binary of its own).

mod ask_user;
mod deferred_approvals;
mod policy;
mod private_files;
