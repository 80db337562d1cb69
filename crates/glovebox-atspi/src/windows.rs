//! Top-level accessibles as windows, for desktops whose compositor lists
//! none to other clients (a Wayland session without sway's IPC). Each gets
//! a number stable while the accessible lives, so its id keeps the
//! `pid/N` form; its pid is the bus daemon's record of the application.

use crate::backend::AtspiBackend;
use crate::transport::ObjectRef;
use atspi_common::{State, StateSet};
use futures_util::future::join_all;
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::BackendError;

/// One top-level accessible window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessibleWindow {
    /// Stable while the accessible lives; never reused within a process.
    pub number: u32,
    pub pid: u32,
    /// The application's accessible name.
    pub app: String,
    pub title: String,
    /// The size the toolkit reports (a Wayland client knows no position).
    pub size: Option<(u32, u32)>,
    /// The toolkit says the window is the active one.
    pub active: bool,
}

impl AtspiBackend {
    /// Every shown top-level accessible of every application, the active
    /// one first, then in the order they were first seen.
    pub fn windows(&self) -> Result<Vec<AccessibleWindow>, BackendError> {
        let bus = self.bus().map_err(BackendError::unavailable)?;
        let found = self.runtime.block_on(async {
            let apps =
                bus.applications().await.map_err(|e| BackendError::unavailable(e.to_string()))?;
            let apps: Vec<ObjectRef> = apps.into_iter().filter(|a| !a.is_null()).collect();
            let described = join_all(apps.iter().map(|app| async {
                let pid = self.pid_of(&bus, &app.bus).await;
                let name = bus.name(app).await.unwrap_or_default();
                let tops = bus.children(app).await.unwrap_or_default();
                let tops = join_all(tops.into_iter().filter(|t| !t.is_null()).map(|top| async {
                    let states = bus.states(&top).await.unwrap_or(StateSet::empty());
                    let title = bus.name(&top).await.unwrap_or_default();
                    let extents = bus.extents(&top).await.ok();
                    (top, states, title, extents)
                }))
                .await;
                (pid, name, tops)
            }))
            .await;
            Ok::<_, BackendError>(described)
        })?;
        let mut numbers = self.window_numbers.lock_recovered();
        let mut next = numbers.values().copied().max().unwrap_or(0) + 1;
        let mut windows = vec![];
        for (pid, app, tops) in found {
            let Some(pid) = pid else { continue };
            for (top, states, title, extents) in tops {
                // Popup menus and tooltips are top-levels too, but neither shown nor sized while closed.
                let size = extents
                    .filter(|&(_, _, w, h)| w > 0 && h > 0)
                    .map(|(_, _, w, h)| (w as u32, h as u32));
                if !(states.contains(State::Showing) || states.contains(State::Visible))
                    || size.is_none()
                {
                    continue;
                }
                let number = *numbers.entry(top.clone()).or_insert_with(|| {
                    next += 1;
                    next - 1
                });
                self.frames.lock_recovered().insert(number, top);
                windows.push(AccessibleWindow {
                    number,
                    pid,
                    app: app.clone(),
                    title,
                    size,
                    active: states.contains(State::Active),
                });
            }
        }
        windows.sort_by_key(|w| (!w.active, w.number));
        Ok(windows)
    }
}
