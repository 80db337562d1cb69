//! Capture against a real headless desktop: window and desktop frames are
//! checked pixel by pixel against the colours the fixture app says it drew
//! and where; bad input is refused with its code; capture changes nothing.

use crate::common::*;
use glovebox_model::{CaptureLimits, DisplaySelection, ErrorCode, FrameSubject, Point, Rect};
use glovebox_platform::{RgbImage, ScreenCapture, WindowSource};
use glovebox_sandbox::Sandbox;
use glovebox_x11::{CaptureRoute, X11Backend};
use serde_json::Value;

const COLOURS: [(&str, [u8; 3]); 3] =
    [("red", [255, 0, 0]), ("green", [0, 255, 0]), ("blue", [0, 0, 255])];

fn backend(sandbox: &Sandbox) -> X11Backend {
    X11Backend::connect(Some(sandbox.display())).expect("connect to the sandbox display")
}

fn swatch(state: &Value, colour: &str) -> Rect {
    let r: Vec<i64> =
        state["swatches"][colour].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    Rect::new(r[0] as i32, r[1] as i32, r[2] as u32, r[3] as u32)
}

/// Every pixel of `rect` (shrunk by a border against edge blending) has `rgb`.
fn assert_filled(image: &RgbImage, rect: Rect, rgb: [u8; 3], what: &str) {
    let inner = Rect::new(rect.x + 2, rect.y + 2, rect.width - 4, rect.height - 4);
    for y in inner.y..inner.y + inner.height as i32 {
        for x in inner.x..inner.x + inner.width as i32 {
            assert_eq!(image.pixel(x as u32, y as u32), rgb, "{what} at ({x}, {y})");
        }
    }
}

#[test]
fn shm_is_the_capture_route_on_a_local_server() {
    let backend = backend(Sandbox::shared(module_path!()));
    backend
        .capture_desktop(&DisplaySelection::All, CaptureLimits::new(16, 16).unwrap(), &[])
        .unwrap();
    assert_eq!(backend.capture_route(), CaptureRoute::Shm);
}

#[test]
fn window_capture_shows_the_fixture_swatches_where_it_drew_them() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture capture"), &[]);
    let state = fixture.activate();
    let window = window_of(&fixture, &backend);
    let before = backend.list_windows().unwrap();

    let capture = backend
        .capture_window(&window.id.to_string().parse().unwrap(), CaptureLimits::default())
        .unwrap();
    assert_eq!(capture.image.size(), window.geometry.size());
    assert_eq!(capture.frame.scale, 1.0);
    assert_eq!(
        capture.frame.subject,
        FrameSubject::Window { window: window.id, geometry: window.geometry }
    );
    for (colour, rgb) in COLOURS {
        assert_filled(&capture.image, swatch(&state, colour), rgb, colour);
    }
    // The PNG carries the same pixels.
    let decoded = RgbImage::decode_png(&capture.image.encode_png().unwrap()).unwrap();
    assert_eq!(decoded, capture.image);

    // Capturing changed neither focus nor stacking.
    assert_eq!(backend.list_windows().unwrap(), before);
    assert_eq!(fixture.state().unwrap()["window_active"], true);
}

#[test]
fn downscaled_window_capture_keeps_aspect_and_colours() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture scaled"), &[]);
    let state = fixture.activate();
    let window = window_of(&fixture, &backend);
    let limits = CaptureLimits::new(window.geometry.width / 2, 10_000).unwrap();
    let capture = backend.capture_window(&window.id.to_string().parse().unwrap(), limits).unwrap();
    assert_eq!(capture.image.width, window.geometry.width / 2);
    assert_eq!(
        capture.image.height,
        window.geometry.height * (window.geometry.width / 2) / window.geometry.width
    );
    assert!((capture.frame.scale - 0.5).abs() < 0.01);
    for (colour, rgb) in COLOURS {
        let r = swatch(&state, colour);
        let half = Rect::new(r.x / 2 + 1, r.y / 2 + 1, r.width / 2 - 2, r.height / 2 - 2);
        assert_filled(&capture.image, half, rgb, colour);
    }
}

#[test]
fn desktop_capture_places_the_window_at_its_root_position() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture desktop"), &[]);
    let state = fixture.activate();
    let window = window_of(&fixture, &backend);
    let capture =
        backend.capture_desktop(&DisplaySelection::All, CaptureLimits::default(), &[]).unwrap();
    assert_eq!(capture.image.size(), glovebox_model::Size::new(1920, 1080));
    let FrameSubject::Desktop { bounds, displays } = &capture.frame.subject else {
        panic!("desktop frame")
    };
    assert_eq!(*bounds, Rect::new(0, 0, 1920, 1080));
    assert_eq!(displays.len(), 1);
    for (colour, rgb) in COLOURS {
        let r = swatch(&state, colour);
        let on_root =
            Rect::new(window.geometry.x + r.x, window.geometry.y + r.y, r.width, r.height);
        assert_filled(&capture.image, on_root, rgb, colour);
        // A pixel of the frame maps back to the same place on the root.
        let centre = Point { x: on_root.x + 30, y: on_root.y + 30 };
        assert_eq!(capture.frame.image_to_global(centre).unwrap(), centre);
    }
    let small = backend
        .capture_desktop(&DisplaySelection::All, CaptureLimits::new(960, 960).unwrap(), &[])
        .unwrap();
    assert_eq!(small.image.size(), glovebox_model::Size::new(960, 540));
    let red = swatch(&state, "red");
    let x = (window.geometry.x + red.x + 30) as u32 / 2;
    let y = (window.geometry.y + red.y + 30) as u32 / 2;
    assert_eq!(small.image.pixel(x, y), [255, 0, 0]);
}

#[test]
fn bad_window_references_and_minimised_windows_are_refused() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let limits = CaptureLimits::default();
    let unknown = backend.capture_window(&"1/0x7ffffff".parse().unwrap(), limits).unwrap_err();
    assert_eq!(unknown.code(), ErrorCode::TargetGone);
    let no_title = backend.capture_window(&"1/no such title".parse().unwrap(), limits).unwrap_err();
    assert_eq!(no_title.code(), ErrorCode::TargetGone);
    let display =
        backend.capture_desktop(&DisplaySelection::One("3".into()), limits, &[]).unwrap_err();
    assert_eq!(display.code(), ErrorCode::InvalidArgument);

    let fixture = Fixture::launch(sandbox, &unique("Fixture minimised capture"), &[]);
    let id = window_of(&fixture, &backend).id;
    fixture.send(serde_json::json!({"cmd": "minimize"}));
    fixture.wait_state("fixture iconified", |s| s["minimized"] == true);
    wait_until("listed minimised", || {
        backend.list_windows().ok()?.into_iter().find(|w| w.id == id && w.minimized)
    });
    let minimised = backend.capture_window(&id.to_string().parse().unwrap(), limits).unwrap_err();
    assert_eq!(minimised.code(), ErrorCode::BackgroundUnavailable);
    assert!(minimised.message.contains("minimised"));
}

#[test]
fn a_window_that_closes_or_moves_during_capture_is_refused() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture closing"), &[]);
    let measured = window_of(&fixture, &backend);

    // Measured, then moved before its pixels are read: the basis is stale.
    fixture.send(serde_json::json!({"cmd": "move", "x": 300, "y": 200}));
    wait_until("window moved", || {
        backend
            .list_windows()
            .ok()?
            .into_iter()
            .find(|w| w.id == measured.id && w.geometry != measured.geometry)
    });
    let moved = backend.capture_measured_window(&measured, CaptureLimits::default()).unwrap_err();
    assert_eq!(moved.code(), ErrorCode::StaleBasis);

    // Measured, then closed before its pixels are read: the target is gone.
    let current = window_of(&fixture, &backend);
    fixture.send(serde_json::json!({"cmd": "quit"}));
    wait_until("window closed", || {
        (!backend.list_windows().ok()?.iter().any(|w| w.id == current.id)).then_some(())
    });
    let gone = backend.capture_measured_window(&current, CaptureLimits::default()).unwrap_err();
    assert_eq!(gone.code(), ErrorCode::TargetGone);
}
