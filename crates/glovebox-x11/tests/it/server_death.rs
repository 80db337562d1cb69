//! The X server going away under a connected backend: every call answers
//! `COMPUTER_BACKEND_UNAVAILABLE` at once, never a hang or a panic.

use crate::common::Code;
use glovebox_model::{CaptureLimits, DisplaySelection, ErrorCode};
use glovebox_platform::{ScreenCapture, WindowSource};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use glovebox_x11::X11Backend;

#[test]
fn calls_after_the_server_died_are_backend_unavailable() {
    let sandbox =
        Sandbox::start(SandboxOptions { window_manager: false, ..Default::default() }).unwrap();
    let display = sandbox.display().to_owned();
    let backend = X11Backend::connect(Some(&display)).unwrap();
    backend.list_windows().unwrap();
    sandbox.shutdown();
    let errors = [
        backend.list_windows().unwrap_err(),
        backend.capture_desktop(&DisplaySelection::All, CaptureLimits::default(), &[]).unwrap_err(),
        backend
            .capture_window(&"1/0x200001".parse().unwrap(), CaptureLimits::default())
            .unwrap_err(),
    ];
    for e in errors {
        assert_eq!(e.code(), ErrorCode::BackendUnavailable, "{e}");
    }
    let reconnect = X11Backend::connect(Some(&display)).unwrap_err();
    assert_eq!(reconnect.code(), ErrorCode::BackendUnavailable);
}

#[test]
fn no_display_at_all_is_backend_unavailable() {
    let e = X11Backend::connect(Some(":")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::BackendUnavailable);
    let e = X11Backend::connect(Some("nonsense")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::BackendUnavailable);
}

#[test]
fn capabilities_are_stated_up_front() {
    let sandbox =
        Sandbox::start(SandboxOptions { window_manager: false, ..Default::default() }).unwrap();
    let backend = X11Backend::connect(Some(sandbox.display())).unwrap();
    let caps = backend.capabilities();
    assert_eq!(caps.backend, "x11");
    assert!(caps.window_capture.is_available() && caps.desktop_capture.is_available());
    let glovebox_platform::Support::Available { detail } = &caps.window_listing else {
        panic!("{caps:?}")
    };
    assert!(detail.contains("no window manager"), "{detail}");
    assert!(!caps.accessibility.is_available());
    sandbox.shutdown();
}
