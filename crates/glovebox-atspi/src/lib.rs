//! The Linux accessibility backend: AT-SPI over D-Bus.
//!
//! [`transport`] speaks D-Bus (the accessibility bus and the raw AT-SPI
//! calls); [`translate`] maps AT-SPI's numbers onto the model; [`names`]
//! settles names as people read them; [`shortcut`] spells toolkits' key
//! bindings as glovebox does; [`walk`]
//! reads one window's tree within its budgets; `memo` keeps what was read
//! of each application until its events say it changed; [`ids`] keeps
//! element ids stable across observations; `events` watches an application react to an
//! input; [`backend`] ties them together; `windows`
//! lists top-level accessibles where no compositor lists windows;
//! [`no_tree`] says why a window has no tree and what gives it one.
#![forbid(unsafe_code)]

mod backend;
pub mod busy;
mod calls;
mod events;
pub mod ids;
mod input;
mod memo;
pub mod names;
pub mod no_tree;
pub mod shortcut;
pub mod translate;
pub mod transport;
pub mod walk;
mod windows;

pub use backend::{doctor_check, windows_without_trees_check, AtspiBackend, KeyDestination};
pub use windows::AccessibleWindow;
