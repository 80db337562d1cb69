//! Two simulated RandR monitors of different sizes: the composite's display
//! metadata, its black unclickable gap, and single-display selection.

use crate::common::*;
use glovebox_model::{CaptureLimits, DisplaySelection, ErrorCode, FrameSubject, Point, Rect};
use glovebox_platform::{ScreenCapture, WindowSource};
use glovebox_sandbox::{MonitorSpec, Sandbox, SandboxOptions};
use glovebox_x11::X11Backend;

#[test]
fn composite_of_two_monitors_keeps_the_gap_black_and_maps_points() {
    let sandbox =
        Sandbox::start(SandboxOptions { width: 2560, height: 1080, ..SandboxOptions::default() })
            .unwrap();
    let spec = |name: &str, x, y, width, height, primary| MonitorSpec {
        name: name.into(),
        x,
        y,
        width,
        height,
        primary,
    };
    sandbox
        .set_monitors(&[
            spec("LEFT", 0, 0, 1280, 1024, true),
            spec("RIGHT", 1280, 0, 1280, 800, false),
        ])
        .unwrap();
    let backend = X11Backend::connect(Some(sandbox.display())).unwrap();
    let monitors = backend.monitors().unwrap();
    assert_eq!(monitors.len(), 2, "{monitors:?}");

    // A fixture straddling the right monitor's bottom edge: its lower part
    // lies in the gap, which must come out black.
    let fixture =
        Fixture::launch(&sandbox, &unique("Fixture gap"), &["--width", "600", "--height", "700"]);
    fixture.send(serde_json::json!({"cmd": "move", "x": 1500, "y": 380}));
    let window =
        wait_until("fixture placed", || {
            backend.list_windows().ok()?.into_iter().find(|w| {
                w.id.pid == fixture.pid() && w.geometry.y + w.geometry.height as i32 > 900
            })
        });
    fixture.activate();

    let capture = backend
        .capture_desktop(&DisplaySelection::All, CaptureLimits::new(1280, 1280).unwrap(), &[])
        .unwrap();
    assert_eq!(capture.image.size(), glovebox_model::Size::new(1280, 512));
    let FrameSubject::Desktop { bounds, displays } = &capture.frame.subject else {
        panic!("desktop frame")
    };
    assert_eq!(*bounds, Rect::new(0, 0, 2560, 1024));
    let names: Vec<_> =
        displays.iter().map(|d| (d.id.as_str(), d.name.as_str(), d.primary)).collect();
    assert_eq!(names, [("0", "LEFT", true), ("1", "RIGHT", false)]);
    assert_eq!(displays[0].pixel, Rect::new(0, 0, 640, 512));
    assert_eq!(displays[1].pixel, Rect::new(640, 0, 640, 400));

    // Natively the window covers root (1600, 950); in the composite that is gap: black, unclickable.
    assert!(window.geometry.contains(Point { x: 1600, y: 950 }));
    for y in 401..512 {
        for x in 640..1280 {
            assert_eq!(capture.image.pixel(x, y), [0, 0, 0], "gap pixel ({x}, {y})");
        }
    }
    assert_eq!(
        capture.frame.image_to_global(Point { x: 800, y: 475 }).unwrap_err().code(),
        ErrorCode::CoordinateOutOfBounds
    );
    assert_eq!(
        capture.frame.image_to_global(Point { x: 800, y: 100 }).unwrap(),
        Point { x: 1601, y: 201 }
    );

    // One display alone: just the right monitor's pixels, at native size.
    let right = backend
        .capture_desktop(&DisplaySelection::One("1".into()), CaptureLimits::default(), &[])
        .unwrap();
    assert_eq!(right.image.size(), glovebox_model::Size::new(1280, 800));
    let FrameSubject::Desktop { bounds, .. } = &right.frame.subject else {
        panic!("desktop frame")
    };
    assert_eq!(*bounds, Rect::new(1280, 0, 1280, 800));
    let unknown = backend
        .capture_desktop(&DisplaySelection::One("2".into()), CaptureLimits::default(), &[])
        .unwrap_err();
    assert_eq!(unknown.code(), ErrorCode::InvalidArgument);
    drop(fixture);
    sandbox.shutdown();
}
