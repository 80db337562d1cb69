//! One module per system; `cfg` picks the one this build is for. Each
//! offers the same five items: `display_name`, `open`, `doctor`,
//! `capabilities` and `PROTECTED`.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) use linux::*;

#[cfg(not(any(target_os = "linux", target_os = "windows")))]
mod unsupported;

#[cfg(target_os = "windows")]
mod windows;
#[cfg(target_os = "windows")]
pub(crate) use windows::*;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
pub(crate) use macos::*;

#[cfg(not(any(target_os = "linux", target_os = "windows", target_os = "macos")))]
pub(crate) use unsupported::*;
