//! The agent's cursor: a small override-redirect window on its own X
//! connection, kept above everything, whose input shape is empty so that
//! every click passes through to what is below (it can never receive
//! input). Its bounding shape is a crosshair with a hollow centre, so the
//! point it marks stays visible. It draws; it never moves the user's
//! pointer. Drawing happens on a thread of its own, so an action only hands
//! it a note; every request is fire-and-forget and a failure is dropped.

use glovebox_model::Point;
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::{BackendError, Presence};
use std::sync::Mutex;
use x11rb::connection::{Connection, RequestConnection as _};
use x11rb::protocol::shape::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ConfigureWindowAux, ConnectionExt as _, CreateWindowAux,
    PropMode, Rectangle, StackMode, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// Edge of the cursor window, in pixels.
pub const CURSOR_SIZE: u16 = 31;
/// The cursor's colours: aiming, and just delivered.
pub const AIM_RGB: [u8; 3] = [0xff, 0x7a, 0x00];
pub const PRESS_RGB: [u8; 3] = [0x00, 0xb4, 0xff];
/// The cursor window's name, for tests and tools that look for it.
pub const CURSOR_TITLE: &str = "glovebox agent cursor";

fn pixel(rgb: [u8; 3]) -> u32 {
    (u32::from(rgb[0]) << 16) | (u32::from(rgb[1]) << 8) | u32::from(rgb[2])
}

/// What the drawing thread is asked to do.
enum Draw {
    Aim(Point),
    Press,
    Hide,
}

/// The cursor window, not shown until the first `aim`.
pub struct Overlay {
    window: u32,
    drawer: Mutex<std::sync::mpsc::Sender<Draw>>,
}

/// The drawing side: the cursor window on its own connection.
struct Canvas {
    conn: RustConnection,
    window: u32,
    shown: bool,
}

impl Overlay {
    /// Creates the cursor window on `display` (`$DISPLAY` when `None`).
    /// Refused where the server lacks the Shape extension: a window that
    /// could catch clicks is never drawn.
    pub fn open(display: Option<&str>) -> Result<Overlay, BackendError> {
        let (conn, screen) = x11rb::connect(display).map_err(|e| {
            BackendError::unavailable(format!("the overlay cannot connect to the X server: {e}"))
        })?;
        let lost = |e: x11rb::errors::ConnectionError| {
            BackendError::unavailable(format!("the overlay's X connection failed: {e}"))
        };
        if conn.extension_information(shape::X11_EXTENSION_NAME).map_err(lost)?.is_none() {
            return Err(BackendError::unavailable(
                "the X server has no Shape extension, so a click-through overlay cannot be drawn",
            ));
        }
        let root = conn.setup().roots[screen].root;
        let window = conn
            .generate_id()
            .map_err(|e| BackendError::unavailable(format!("no X id for the overlay: {e}")))?;
        let aux = CreateWindowAux::new()
            .override_redirect(1)
            .background_pixel(pixel(AIM_RGB))
            .border_pixel(0);
        conn.create_window(
            0,
            window,
            root,
            0,
            0,
            CURSOR_SIZE,
            CURSOR_SIZE,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &aux,
        )
        .map_err(lost)?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_NAME,
            AtomEnum::STRING,
            CURSOR_TITLE.as_bytes(),
        )
        .map_err(lost)?;
        // No input region at all: pointer events go to whatever lies below.
        conn.shape_rectangles(
            shape::SO::SET,
            shape::SK::INPUT,
            x11rb::protocol::xproto::ClipOrdering::UNSORTED,
            window,
            0,
            0,
            &[],
        )
        .map_err(lost)?;
        let (s, t, c) = (CURSOR_SIZE as i16, 3i16, CURSOR_SIZE as i16 / 2);
        let arm =
            |x: i16, y: i16, w: i16, h: i16| Rectangle { x, y, width: w as u16, height: h as u16 };
        // A crosshair whose arms stop short of the centre, so the marked point shows.
        let crosshair = [
            arm(0, c - 1, c - 4, t),
            arm(c + 5, c - 1, s - c - 5, t),
            arm(c - 1, 0, t, c - 4),
            arm(c - 1, c + 5, t, s - c - 5),
            arm(c - 6, c - 6, 12, 2),
            arm(c - 6, c + 4, 12, 2),
            arm(c - 6, c - 6, 2, 12),
            arm(c + 4, c - 6, 2, 12),
        ];
        conn.shape_rectangles(
            shape::SO::SET,
            shape::SK::BOUNDING,
            x11rb::protocol::xproto::ClipOrdering::UNSORTED,
            window,
            0,
            0,
            &crosshair,
        )
        .map_err(lost)?;
        conn.flush().map_err(lost)?;
        let (drawer, notes) = std::sync::mpsc::channel();
        let mut canvas = Canvas { conn, window, shown: false };
        std::thread::Builder::new()
            .name("glovebox-overlay".into())
            .spawn(move || {
                // Ends when the overlay is dropped (its sender with it).
                for note in notes {
                    canvas.draw(note);
                }
                let _ = canvas.conn.destroy_window(canvas.window);
                let _ = canvas.conn.flush();
            })
            .map_err(|e| BackendError::unavailable(format!("no thread for the overlay: {e}")))?;
        Ok(Overlay { window, drawer: Mutex::new(drawer) })
    }

    /// The cursor window's id (it is glovebox's own, never a target).
    pub fn window(&self) -> u32 {
        self.window
    }

    fn send(&self, note: Draw) {
        let _ = self.drawer.lock_recovered().send(note);
    }
}

impl Canvas {
    fn colour(&self, rgb: [u8; 3]) {
        let _ = self.conn.change_window_attributes(
            self.window,
            &ChangeWindowAttributesAux::new().background_pixel(pixel(rgb)),
        );
        let _ = self.conn.clear_area(false, self.window, 0, 0, 0, 0);
    }

    fn draw(&mut self, note: Draw) {
        match note {
            Draw::Aim(at) => {
                let half = i32::from(CURSOR_SIZE / 2);
                let place = ConfigureWindowAux::new()
                    .x(at.x - half)
                    .y(at.y - half)
                    .stack_mode(StackMode::ABOVE);
                let _ = self.conn.configure_window(self.window, &place);
                self.colour(AIM_RGB);
                if !self.shown {
                    let _ = self.conn.map_window(self.window);
                    self.shown = true;
                }
            }
            Draw::Press => self.colour(PRESS_RGB),
            Draw::Hide if self.shown => {
                let _ = self.conn.unmap_window(self.window);
                self.shown = false;
            }
            Draw::Hide => {}
        }
        let _ = self.conn.flush();
    }
}

impl Presence for Overlay {
    fn aim(&self, at: Point) {
        self.send(Draw::Aim(at));
    }

    fn press(&self) {
        self.send(Draw::Press);
    }

    fn hide(&self) {
        self.send(Draw::Hide);
    }
}
