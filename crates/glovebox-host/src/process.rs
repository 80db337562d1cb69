//! The process table the host's denials read ([`glovebox_platform::process`]),
//! and the uid glovebox itself runs as.

pub use glovebox_platform::process::*;

pub use glovebox_services::os::current_uid;
