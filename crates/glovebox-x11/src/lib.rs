//! The Linux/X11 backend: EWMH window listing, MIT-SHM/GetImage capture of
//! windows (a covered window's own pixels through Composite) and RandR monitors, and the environment checks of `glovebox doctor`.
//!
//! Transport (the X connection) lives in [`connection`]; what is read over it
//! is turned into `glovebox-model` values in [`windows`] and [`capture`].
//! Everything here is safe code except [`shm`], which must map shared memory.
#![cfg_attr(not(feature = "shm"), forbid(unsafe_code))]
#![cfg_attr(feature = "shm", deny(unsafe_code))]

mod backing;
mod capture;
mod client_pids;
mod connection;
pub mod doctor;
mod errors;
pub mod grab;
pub mod input;
mod keymap;
/// Keysyms for routes that type keysyms themselves (a compositor's remote desktop).
pub use input::button_number;
pub use keymap::{char_keysym, combo_keysyms, modifier_keysyms};
mod occlusion;
pub mod overlay;
mod painted;
mod ping;
mod pixels;
mod screen;
#[cfg(feature = "shm")]
mod shm;
mod windows;

pub use capture::CaptureRoute;
pub use client_pids::ClientPids;
pub use connection::X11Backend;
