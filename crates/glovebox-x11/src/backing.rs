//! A covered window's own pixels, through the X Composite extension: the
//! window is redirected automatically (the server keeps painting it to the
//! screen, so nothing the person sees changes) and its off-screen pixmap
//! is read where other windows lie over it. What covers it is never in
//! that pixmap — except right after the redirection, when the server seeds
//! the new pixmap from the screen; so only what the window drew since, as
//! the DAMAGE extension reports it ([`crate::painted`]), is ever shown, and
//! each capture waits for the window to repaint.
//!
//! The redirections and damage objects belong to a connection of their
//! own, whose events nothing else reads. A window is redirected for one
//! capture and let go right after it ([`X11Backend::own_pixels_under`]);
//! the server undoes whatever is left when the connection closes. The
//! bookkeeping for windows kept longer (at most [`MAX_KEPT`], resizes,
//! unmaps) stays from when they were kept between captures.

use crate::connection::X11Backend;
use crate::errors::{connect_error, connection_lost, reply_error};
use crate::painted::Painted;
use crate::pixels::PixelFormat;
use glovebox_model::{Rect, WindowInfo};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::{BackendError, RgbImage};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::composite::{ConnectionExt as _, Redirect};
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::xproto::{ChangeWindowAttributesAux, ConnectionExt as _, EventMask, Window};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// Windows kept redirected at once; each costs the server one pixmap of
/// the window's size.
const MAX_KEPT: usize = 16;
/// How long a window just redirected (or resized, or mapped again) must
/// draw nothing before its pixmap is taken as repainted.
const QUIET: Duration = Duration::from_millis(100);
/// The longest a first look waits for that quiet.
const SETTLE_BOUND: Duration = Duration::from_millis(1000);

/// The connection that holds the redirections.
pub(crate) struct Backing {
    conn: RustConnection,
    kept: Mutex<Vec<Kept>>,
}

/// One window glovebox keeps redirected.
struct Kept {
    window: Window,
    /// Reports what the window draws, while it has pixels not drawn since
    /// the redirection; let go once it drew them all.
    damage: Option<u32>,
    painted: Painted,
    /// When it last drew, or was redirected, resized or mapped again.
    last_drawn: Instant,
    /// Its repaint after the last redirection, resize or map was waited for.
    settled: bool,
    used: Instant,
}

impl Backing {
    /// A connection of its own, with Composite ≥ 0.2 (named pixmaps) and
    /// DAMAGE; also asks `main`'s Composite version, as the extension wants
    /// before `main` names a pixmap. Or why not.
    pub(crate) fn connect(display: Option<&str>, main: &RustConnection) -> Result<Backing, String> {
        let missing =
            |conn: &RustConnection, name| conn.extension_information(name).ok().flatten().is_none();
        if missing(main, x11rb::protocol::composite::X11_EXTENSION_NAME) {
            return Err("this X server has no Composite extension, so a covered window's own pixels cannot be read (Xorg and Xvfb have it unless started with `-extension Composite`)".into());
        }
        let version = main
            .composite_query_version(0, 4)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        if (version.major_version, version.minor_version) < (0, 2) {
            return Err(format!(
                "this X server's Composite is version {}.{}; naming a window's pixmap needs 0.2",
                version.major_version, version.minor_version
            ));
        }
        let (conn, _) = x11rb::connect(display).map_err(|e| connect_error(display, e).message)?;
        if missing(&conn, x11rb::protocol::damage::X11_EXTENSION_NAME) {
            return Err("this X server has no DAMAGE extension, so what a covered window drew itself cannot be told from what covered it".into());
        }
        let ask = || -> Result<(), x11rb::errors::ReplyError> {
            conn.composite_query_version(0, 4)?.reply()?;
            conn.damage_query_version(1, 1)?.reply()?;
            Ok(())
        };
        ask().map_err(|e| e.to_string())?;
        Ok(Backing { conn, kept: Mutex::new(vec![]) })
    }

    /// What `window` (interior `width`×`height`) drew itself since it was
    /// redirected, redirecting it first (and waiting for its repaint) when
    /// it is not yet.
    fn painted(&self, window: Window, width: u32, height: u32) -> Result<Painted, BackendError> {
        let mut kept = self.kept.lock_recovered();
        self.drain(&mut kept)?;
        if !kept.iter().any(|k| k.window == window) {
            self.keep(&mut kept, window, width, height)?;
        }
        let deadline = Instant::now() + SETTLE_BOUND;
        loop {
            let k = kept.iter_mut().find(|k| k.window == window).ok_or_else(|| {
                BackendError::gone(format!("window {window:#x} closed while it was captured"))
            })?;
            let now = Instant::now();
            if k.settled || now.duration_since(k.last_drawn) >= QUIET || now >= deadline {
                k.settled = true;
                k.used = now;
                return Ok(k.painted.clone());
            }
            std::thread::sleep(Duration::from_millis(5));
            self.drain(&mut kept)?;
        }
    }

    /// Redirects `window` and starts following what it draws, letting the
    /// window used longest ago go when [`MAX_KEPT`] are kept.
    fn keep(
        &self,
        kept: &mut Vec<Kept>,
        window: Window,
        width: u32,
        height: u32,
    ) -> Result<(), BackendError> {
        if kept.len() >= MAX_KEPT {
            if let Some(oldest) = (0..kept.len()).min_by_key(|&i| kept[i].used) {
                self.let_go(kept.swap_remove(oldest));
            }
        }
        let conn = &self.conn;
        let damage = conn.generate_id().map_err(|e| BackendError::unavailable(e.to_string()))?;
        let listen = ChangeWindowAttributesAux::new().event_mask(EventMask::STRUCTURE_NOTIFY);
        let sent = (|| {
            Ok::<_, x11rb::errors::ConnectionError>([
                conn.change_window_attributes(window, &listen)?,
                // Before the redirection: the repaint it causes is reported.
                conn.damage_create(damage, window, ReportLevel::RAW_RECTANGLES)?,
                conn.composite_redirect_window(window, Redirect::AUTOMATIC)?,
            ])
        })()
        .map_err(connection_lost)?;
        for cookie in sent {
            cookie.check().map_err(|e| reply_error(e, Some(&format_args!("{window:#x}"))))?;
        }
        let now = Instant::now();
        kept.push(Kept {
            window,
            damage: Some(damage),
            painted: Painted::new(width, height),
            last_drawn: now,
            settled: false,
            used: now,
        });
        Ok(())
    }

    /// Lets `window` go: no longer redirected or followed.
    fn release(&self, window: Window) {
        let mut kept = self.kept.lock_recovered();
        if let Some(i) = kept.iter().position(|k| k.window == window) {
            self.let_go(kept.swap_remove(i));
        }
    }

    /// Undoes what [`Backing::keep`] did to `k`'s window. A window that
    /// closed meanwhile answers with errors nobody waits for.
    fn let_go(&self, k: Kept) {
        let _ = self.conn.composite_unredirect_window(k.window, Redirect::AUTOMATIC);
        if let Some(damage) = k.damage {
            let _ = self.conn.damage_destroy(damage);
        }
        let quiet = ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT);
        let _ = self.conn.change_window_attributes(k.window, &quiet);
        let _ = self.conn.flush();
    }

    /// Takes in every event waiting: what the kept windows drew, their
    /// resizes, unmaps and ends.
    fn drain(&self, kept: &mut Vec<Kept>) -> Result<(), BackendError> {
        while let Some(event) = self.conn.poll_for_event().map_err(connection_lost)? {
            let now = Instant::now();
            match event {
                Event::DamageNotify(n) => {
                    let Some(k) = kept.iter_mut().find(|k| k.damage == Some(n.damage)) else {
                        continue;
                    };
                    let (w, h) = (u32::from(n.geometry.width), u32::from(n.geometry.height));
                    if k.painted.size() != (w, h) {
                        k.painted = k.painted.resized(w, h);
                    }
                    let a = n.area;
                    k.painted.add(Rect::new(
                        a.x.into(),
                        a.y.into(),
                        a.width.into(),
                        a.height.into(),
                    ));
                    k.last_drawn = now;
                    if k.painted.is_complete() {
                        // Every pixel is the window's own now: no more reports needed.
                        if let Some(damage) = k.damage.take() {
                            let _ = self.conn.damage_destroy(damage);
                        }
                    }
                }
                Event::ConfigureNotify(c) => {
                    let Some(k) = kept.iter_mut().find(|k| k.window == c.window) else { continue };
                    let size = (u32::from(c.width), u32::from(c.height));
                    if k.painted.size() != size {
                        k.painted = k.painted.resized(size.0, size.1);
                        self.follow_again(k, now)?;
                    }
                }
                // Unmapped, its pixmap goes; mapped again, the new one is seeded from the screen.
                Event::UnmapNotify(u) => {
                    let Some(k) = kept.iter_mut().find(|k| k.window == u.window) else { continue };
                    let (w, h) = k.painted.size();
                    k.painted = Painted::new(w, h);
                    self.follow_again(k, now)?;
                }
                // The server let go of its redirection and damage with it.
                Event::DestroyNotify(d) => kept.retain(|k| k.window != d.window),
                _ => {}
            }
        }
        Ok(())
    }

    /// `k` has pixels it has not drawn again: report what it draws, and
    /// wait for its repaint on the next look.
    fn follow_again(&self, k: &mut Kept, now: Instant) -> Result<(), BackendError> {
        if k.damage.is_none() {
            let damage =
                self.conn.generate_id().map_err(|e| BackendError::unavailable(e.to_string()))?;
            self.conn
                .damage_create(damage, k.window, ReportLevel::RAW_RECTANGLES)
                .map_err(connection_lost)?;
            k.damage = Some(damage);
        }
        k.last_drawn = now;
        k.settled = false;
        Ok(())
    }
}

impl X11Backend {
    fn backing(&self) -> Result<&Backing, BackendError> {
        self.backing
            .get_or_init(|| Backing::connect(self.display.as_deref(), &self.conn))
            .as_ref()
            .map_err(|reason| BackendError::unavailable(reason.clone()))
    }

    /// Paints the `covered` parts (root coordinates) of `native` — the
    /// capture of `rect`, part of `window` — with the window's own pixels,
    /// and answers the parts it could not (pixels the window has not drawn
    /// since it was redirected), which are black.
    pub(crate) fn own_pixels_under(
        &self,
        window: &WindowInfo,
        rect: Rect,
        native: &mut RgbImage,
        covered: &[Rect],
    ) -> Result<Vec<Rect>, BackendError> {
        let covered: Vec<Rect> = covered.iter().filter_map(|c| c.intersection(rect)).collect();
        if covered.is_empty() {
            return Ok(vec![]);
        }
        let backing = self.backing()?;
        let xid = window.id.handle;
        let gone = |e| reply_error(e, Some(&window.id));
        let geometry =
            self.conn.get_geometry(xid).map_err(connection_lost)?.reply().map_err(gone)?;
        let attributes =
            self.conn.get_window_attributes(xid).map_err(connection_lost)?.reply().map_err(gone)?;
        let format = PixelFormat::of_visual(
            self.conn.setup(),
            self.capture.screen(),
            attributes.visual,
            geometry.depth,
        )
        .map_err(BackendError::unavailable)?;
        let painted =
            backing.painted(xid, u32::from(geometry.width), u32::from(geometry.height))?;
        let pixmap =
            self.conn.generate_id().map_err(|e| BackendError::unavailable(e.to_string()))?;
        self.conn
            .composite_name_window_pixmap(xid, pixmap)
            .map_err(connection_lost)?
            .check()
            .map_err(gone)?;
        let origin = (window.geometry.x, window.geometry.y);
        let border = i32::from(geometry.border_width);
        let filled = (|| {
            let mut left = vec![];
            for c in &covered {
                // Window coordinates (its interior) and pixmap coordinates (border included).
                let inside = Rect::new(c.x - origin.0, c.y - origin.1, c.width, c.height);
                let from = Rect::new(inside.x + border, inside.y + border, c.width, c.height);
                let own = self.capture.read_drawable(&self.conn, pixmap, from, format)?;
                let at = (c.x - rect.x, c.y - rect.y);
                for y in 0..c.height {
                    for x in 0..c.width {
                        let drawn = painted
                            .is_painted((inside.x + x as i32) as u32, (inside.y + y as i32) as u32);
                        let rgb = if drawn { own.pixel(x, y) } else { [0, 0, 0] };
                        let i = ((at.1 as u32 + y) as usize * native.width as usize
                            + (at.0 as u32 + x) as usize)
                            * 3;
                        native.data[i..i + 3].copy_from_slice(&rgb);
                    }
                }
                if let Some(u) = painted.unpainted_within(inside) {
                    left.push(Rect::new(u.x + origin.0, u.y + origin.1, u.width, u.height));
                }
            }
            Ok(left)
        })();
        let _ = self.conn.free_pixmap(pixmap);
        // Redirected only while it is captured: Tk read characters typed on
        // lent key codes as nothing while it stayed redirected (the action
        // matrix's Tk column), so the window is given back at once.
        backing.release(xid);
        filled
    }
}
