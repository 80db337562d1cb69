//! The contract every desktop's backends keep, as checks over a
//! [`Backends`] bag: what a new system's backend must pass before the
//! host is put on it (docs/adding-a-desktop.md). The fake desktop is the
//! reference implementation (this module's test); the X11 composition
//! passes the same checks on a sandbox desktop with a real application
//! (`glovebox-cli`'s `contract_x11` suite).
//!
//! Each clause is what the host relies on without checking again: ids
//! that name the same window until it goes, a gone window refused as gone
//! by every trait (never an empty success), captures of the window asked
//! for, trees whose ids are unique and whose window is the one asked for,
//! probes that answer.

use glovebox_host::refusal_of;
use glovebox_model::{
    CaptureLimits, ErrorCode, FrameSubject, TreeBudget, WindowId, WindowInfo, WindowRef,
};
use glovebox_platform::{Backends, Reach};
use std::collections::HashSet;

/// An id no desktop hands out: pid 0 and the highest handle.
fn never_listed() -> WindowId {
    WindowId { pid: 0, handle: u32::MAX }
}

/// The clauses `backends` breaks, each as a sentence; empty when it keeps
/// them all. `shown` is a window the desktop shows now (mapped, on
/// screen, with an accessibility tree), which the checks look at.
pub fn broken(backends: &Backends, shown: WindowId) -> Vec<String> {
    let mut broken = vec![];
    let mut clause = |kept: bool, sentence: String| {
        if !kept {
            broken.push(sentence);
        }
    };
    let gone = |code: Option<ErrorCode>| code == Some(ErrorCode::TargetGone);
    let code_of = |e: glovebox_platform::BackendError| Some(refusal_of(e).code);

    // Listing: unique ids, each found again as itself.
    let listed = match backends.windows.list_windows() {
        Ok(listed) => listed,
        Err(e) => return vec![format!("list_windows failed: {e}")],
    };
    let ids: HashSet<WindowId> = listed.iter().map(|w| w.id).collect();
    clause(ids.len() == listed.len(), "list_windows named a window twice".into());
    clause(ids.contains(&shown), format!("list_windows did not list {shown}"));
    for window in &listed {
        let again = backends.windows.find_window(&WindowRef::Id(window.id));
        clause(
            again.as_ref().is_ok_and(|w| w.id == window.id && w.app == window.app),
            format!("find_window({}) did not find the listed window again: {again:?}", window.id),
        );
    }
    let missing = never_listed();
    let found = backends.windows.find_window(&WindowRef::Id(missing));
    clause(
        gone(found.clone().err().and_then(code_of)),
        format!("find_window of a window never listed was not refused as gone: {found:?}"),
    );

    // Pixels: the window asked for, of its size; a gone window refused.
    let limits = CaptureLimits::new(4096, 4096).expect("valid limits");
    match backends.capture.capture_window(&WindowRef::Id(shown), limits) {
        Ok(capture) => {
            let of_it = matches!(capture.frame.subject, FrameSubject::Window { window, .. } if window == shown);
            clause(of_it, format!("capture_window({shown}) framed another subject"));
            let size = capture.image.size();
            clause(
                size.width > 0 && size.height > 0 && size == capture.frame.image,
                format!(
                    "capture_window({shown}) gave {size:?} pixels for a {:?} frame",
                    capture.frame.image
                ),
            );
        }
        Err(e) => clause(false, format!("capture_window({shown}) failed: {e}")),
    }
    let captured = backends.capture.capture_window(&WindowRef::Id(missing), limits);
    clause(
        gone(captured.err().and_then(code_of)),
        "capture_window of a window never listed was not refused as gone".into(),
    );
    let monitors = backends.capture.monitors();
    clause(monitors.as_ref().is_ok_and(|m| !m.is_empty()), format!("monitors: {monitors:?}"));

    // Trees: of the window asked for, ids unique, unknown ids refused.
    let window: WindowInfo = match listed.iter().find(|w| w.id == shown) {
        Some(w) => w.clone(),
        None => return broken,
    };
    match backends.accessibility.inspect(&window, TreeBudget::default()) {
        Ok(tree) => {
            clause(
                tree.window == shown,
                format!("inspect({shown}) answered window {}", tree.window),
            );
            let elements: Vec<_> = tree.root.iter().flat_map(|r| r.walk()).map(|e| e.id).collect();
            let unique: HashSet<_> = elements.iter().collect();
            clause(!elements.is_empty(), format!("inspect({shown}) found no element"));
            clause(
                unique.len() == elements.len(),
                format!("inspect({shown}) repeated an element id"),
            );
            let unknown =
                (1..).map_while(glovebox_model::ElementId::tree).find(|id| !unique.contains(id));
            if let Some(unknown) = unknown {
                let read = backends.accessibility.read_value(&window, unknown, 100);
                clause(
                    read.is_err(),
                    format!("read_value of {unknown}, not in the tree, answered {read:?}"),
                );
            }
        }
        Err(e) => clause(false, format!("inspect({shown}) failed: {e}")),
    }
    let gone_window = WindowInfo { id: missing, ..window.clone() };
    // A tree source need not know which windows exist (the window source
    // says that); it must not make elements up for one that does not.
    let tree = backends.accessibility.inspect(&gone_window, TreeBudget::default());
    let made_up = tree
        .as_ref()
        .is_ok_and(|t| t.root.is_some() || matches!(t.fidelity, glovebox_model::Fidelity::Full));
    clause(!made_up, format!("inspect of a window never listed answered elements: {tree:?}"));

    // Probes answer; input never lands on a window that is gone.
    let grabbed = backends.secure_input.keyboard_grabbed();
    clause(grabbed.is_ok(), format!("keyboard_grabbed failed: {grabbed:?}"));
    let password = backends.secure_input.focused_password(&window);
    clause(password.is_ok(), format!("focused_password({shown}) failed: {password:?}"));
    if let Some(input) = &backends.input {
        let action =
            glovebox_model::Action::Key { combo: "shift".parse().expect("a key"), repeat: 1 };
        let delivered = input.deliver(&gone_window, &action, &[], Reach::Background);
        clause(
            delivered.is_err(),
            format!("input to a window never listed answered {delivered:?}"),
        );
    }

    // Processes: this one is known, with its user.
    let uid = backends.processes.owner_uid(std::process::id());
    clause(
        uid == Some(glovebox_host::process::current_uid()),
        format!("the process table gave this process's user as {uid:?}"),
    );
    broken
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_model::Rect;
    use glovebox_platform::fake::FakeDesktop;
    use std::sync::Arc;

    /// The fake desktop's backends over one window, with this process in its table.
    fn fake_backends(shown: WindowId) -> (Backends, Arc<FakeDesktop>) {
        let screen = Rect::new(0, 0, 1920, 1080);
        let monitors =
            vec![glovebox_model::Monitor { name: "screen".into(), logical: screen, primary: true }];
        let window =
            crate::fake::fake_window(shown, "Editor", "notes", Rect::new(10, 10, 300, 200));
        let desktop = Arc::new(FakeDesktop::new(screen, monitors, vec![window]));
        let uid = glovebox_host::process::current_uid();
        let processes = glovebox_host::process::DeclaredProcesses::new([
            (std::process::id(), 1, uid, "/usr/bin/glovebox"),
            (shown.pid, 1, uid, "/usr/bin/editor"),
        ]);
        let protected = crate::fake::PROTECTED;
        (Backends::of_fake_desktop(desktop.clone(), Arc::new(processes), protected), desktop)
    }

    /// Answers every `find_window` with the first window listed, as if any
    /// id were there: what a careless backend does.
    struct AnyWindow(Arc<FakeDesktop>);

    impl glovebox_platform::WindowSource for AnyWindow {
        fn list_windows(&self) -> Result<Vec<WindowInfo>, glovebox_platform::BackendError> {
            self.0.list_windows()
        }

        fn find_window(
            &self,
            _: &WindowRef,
        ) -> Result<WindowInfo, glovebox_platform::BackendError> {
            Ok(self.0.list_windows()?.remove(0))
        }
    }

    #[test]
    fn the_fake_desktop_keeps_the_contract_and_a_careless_backend_is_caught() {
        let shown = WindowId { pid: 4242, handle: 0x10 };
        let (backends, desktop) = fake_backends(shown);
        assert_eq!(broken(&backends, shown), Vec::<String>::new());
        let mut careless = backends.clone();
        careless.windows = Arc::new(AnyWindow(desktop));
        let found = broken(&careless, shown);
        assert!(
            found.iter().any(|b| b.starts_with("find_window of a window never listed")),
            "{found:?}"
        );
    }
}
