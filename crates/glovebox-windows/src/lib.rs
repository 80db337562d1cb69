//! glovebox's Windows desktop, behind glovebox-platform's traits.
//!
//! - [`roles`]: MSAA roles and states, UI Automation control types and the
//!   standard controls' classes and styles, turned into glovebox's roles.
//! - [`walk`]: one budgeted walk of a window's tree over any node source,
//!   with ids that stay with their nodes.
//! - [`messages`]: which window messages carry an action to a control with
//!   the foreground untouched.
//! - [`uia`]: UI Automation's elements as nodes of the walk, over the real
//!   element or a tree written down for the tests.
//! - `win32` (Windows only): the system calls — `EnumWindows`, a window's
//!   own pixels, MSAA and UI Automation reads, the messages sent.
//!
//! The pure modules are tested on every system. The Windows module is built
//! for `x86_64-pc-windows-gnu` and run under Wine (docs/windows.md says
//! which parts Wine proves); it has not yet run on Windows itself.
#![deny(missing_docs, unreachable_pub)]

pub mod messages;
pub mod roles;
pub mod uia;
pub mod walk;
#[cfg(windows)]
mod win32;
#[cfg(windows)]
pub use win32::{backends, capabilities, doctor, WindowsDesktop};
