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

/// A raw top-level window on its own connection: titled `title`, at
/// (`x`, `y`), `size` square; `fill` is its background (the server paints
/// it), `None` leaves it without one (nothing is painted unless it draws).
fn raw_window(
    conn: &x11rb::rust_connection::RustConnection,
    screen: usize,
    title: &str,
    (x, y, size): (i16, i16, u16),
    fill: Option<u32>,
) -> u32 {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{
        AtomEnum, ConnectionExt as _, CreateWindowAux, PropMode, WindowClass,
    };
    use x11rb::wrapper::ConnectionExt as _;
    let root = conn.setup().roots[screen].root;
    let window = conn.generate_id().unwrap();
    let aux = match fill {
        Some(pixel) => CreateWindowAux::new().background_pixel(pixel),
        None => CreateWindowAux::new(),
    };
    conn.create_window(0, window, root, x, y, size, size, 0, WindowClass::INPUT_OUTPUT, 0, &aux)
        .unwrap()
        .check()
        .unwrap();
    let utf8 = conn.intern_atom(false, b"UTF8_STRING").unwrap().reply().unwrap().atom;
    let name = conn.intern_atom(false, b"_NET_WM_NAME").unwrap().reply().unwrap().atom;
    conn.change_property8(PropMode::REPLACE, window, name, utf8, title.as_bytes()).unwrap();
    conn.change_property8(
        PropMode::REPLACE,
        window,
        AtomEnum::WM_NAME,
        AtomEnum::STRING,
        title.as_bytes(),
    )
    .unwrap();
    conn.change_property8(
        PropMode::REPLACE,
        window,
        AtomEnum::WM_CLASS,
        AtomEnum::STRING,
        b"raw\0Raw\0",
    )
    .unwrap();
    conn.map_window(window).unwrap().check().unwrap();
    window
}

#[test]
fn a_covered_window_shows_only_what_it_drew_itself_never_what_lay_over_it() {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{
        AtomEnum, ConfigureWindowAux, ConnectionExt as _, CreateGCAux, Rectangle, StackMode,
    };
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let (conn, screen) = x11rb::connect(Some(sandbox.display())).unwrap();
    const COVER: [u8; 3] = [0xd1, 0x2b, 0xe7];
    const DRAWN: [u8; 3] = [0x20, 0xa0, 0x40];
    let pixel = |c: [u8; 3]| u32::from_be_bytes([0, c[0], c[1], c[2]]);
    // The window manager up (it drops a window mapped while it starts).
    let root = conn.setup().roots[screen].root;
    let clients = conn.intern_atom(false, b"_NET_CLIENT_LIST").unwrap().reply().unwrap().atom;
    wait_until("the window manager", || {
        let list = conn.get_property(false, root, clients, AtomEnum::WINDOW, 0, 1).ok()?;
        (list.reply().ok()?.type_ != u32::from(AtomEnum::NONE)).then_some(())
    });
    // A window with no background that never draws: its pixmap, once it is redirected,
    // starts as a copy of the screen there — the cover included.
    let title = unique("Never drawn");
    let under = raw_window(&conn, screen, &title, (100, 100, 200), None);
    let listed = wait_until("the window listed", || {
        // Asked again: a window manager still starting drops a map request.
        conn.map_window(under).ok()?;
        conn.flush().ok()?;
        backend.list_windows().ok()?.into_iter().find(|w| w.title == title)
    });
    let cover_title = unique("Cover");
    let cover = raw_window(&conn, screen, &cover_title, (60, 60, 300), Some(pixel(COVER)));
    wait_until("the cover listed", || {
        backend.list_windows().ok()?.into_iter().find(|w| w.title == cover_title)
    });
    // Wherever the window manager placed them, the cover goes over all of the window.
    let g = listed.geometry;
    let over = ConfigureWindowAux::new().x(g.x - 50).y(g.y - 50).stack_mode(StackMode::ABOVE);
    let limits = CaptureLimits::new(2000, 2000).unwrap();
    let reference = listed.id.to_string().parse().unwrap();
    let (cx, cy) = ((g.x + 100) as u32, (g.y + 100) as u32);
    wait_until("the cover on the screen", || {
        // Asked again until it holds: a window manager may place a window late.
        conn.configure_window(cover, &over).ok()?;
        conn.flush().ok()?;
        std::thread::sleep(std::time::Duration::from_millis(100));
        let shot = backend.capture_desktop(&DisplaySelection::All, limits, &[]).ok()?;
        let covers = backend.list_windows().ok()?.into_iter().find(|w| w.title == cover_title)?;
        let whole = covers.geometry.intersection(g) == Some(g);
        (whole && shot.image.pixel(cx, cy) == COVER).then_some(())
    });
    let shot = backend.capture_window(&reference, limits).unwrap();
    assert!(
        !shot.image.data.chunks_exact(3).any(|p| p == COVER),
        "the cover's pixels reached the covered window's picture"
    );
    assert_filled(&shot.image, Rect::new(0, 0, 200, 200), [0, 0, 0], "never drawn");
    assert!(!shot.frame.occluded.is_empty(), "what was not read is listed as occluded");

    // Once it draws (as a window does while it is exposed), its own pixels show under
    // the cover, and nothing is occluded.
    let gc = conn.generate_id().unwrap();
    conn.create_gc(gc, under, &CreateGCAux::new().foreground(pixel(DRAWN))).unwrap();
    conn.flush().unwrap();
    let drawing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let painter = {
        let (drawing, conn) = (drawing.clone(), std::sync::Arc::new(conn));
        let painter_conn = conn.clone();
        let thread = std::thread::spawn(move || {
            let whole = [Rectangle { x: 0, y: 0, width: 200, height: 200 }];
            while drawing.load(std::sync::atomic::Ordering::SeqCst) {
                let _ = painter_conn.poly_fill_rectangle(under, gc, &whole);
                let _ = painter_conn.flush();
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
        });
        (thread, conn)
    };
    let shot = wait_until("the drawing read", || {
        let shot = backend.capture_window(&reference, limits).ok()?;
        shot.frame.occluded.is_empty().then_some(shot)
    });
    drawing.store(false, std::sync::atomic::Ordering::SeqCst);
    let (thread, conn) = painter;
    thread.join().unwrap();
    assert_filled(&shot.image, Rect::new(0, 0, 200, 200), DRAWN, "drawn under the cover");
    let desktop = backend.capture_desktop(&DisplaySelection::All, limits, &[]).unwrap();
    assert_eq!(desktop.image.pixel(cx, cy), COVER, "the cover still lies over it on the screen");
    let _ = (conn.destroy_window(cover), conn.destroy_window(under), conn.flush());
}
