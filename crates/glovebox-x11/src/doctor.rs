//! `glovebox doctor` on Linux, X11 part: what the display offers glovebox,
//! and what each missing piece disables. (The accessibility bus is checked
//! by `glovebox-atspi`.)

use crate::X11Backend;
use glovebox_platform::doctor::{Check, DoctorReport, SessionType};
use glovebox_platform::WindowSource;
use x11rb::connection::Connection as _;
use x11rb::connection::RequestConnection;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};
use x11rb::rust_connection::RustConnection;

/// The server is an XWayland: it has the `XWAYLAND` extension (23.1 and
/// later), or names its RandR outputs `XWAYLAND<n>` (every version).
pub(crate) fn is_xwayland(conn: &RustConnection) -> bool {
    use x11rb::protocol::randr::ConnectionExt as _;
    if conn.extension_information("XWAYLAND").ok().flatten().is_some() {
        return true;
    }
    let root = conn.setup().roots[0].root;
    let Ok(Ok(resources)) = conn.randr_get_screen_resources_current(root).map(|c| c.reply()) else {
        return false;
    };
    resources.outputs.iter().take(16).any(|&output| {
        conn.randr_get_output_info(output, resources.config_timestamp)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|info| info.name.starts_with(b"XWAYLAND"))
    })
}

/// A rootless XWayland keeps no root pixmap: GetImage on the root fails.
/// A rootful XWayland or any other X server answers it. `thorough` also
/// recognises an XWayland without the extension by its outputs (two round
/// trips more: for the doctor, not for every connection).
pub(crate) fn is_rootless_xwayland(conn: &RustConnection, thorough: bool) -> bool {
    let xwayland = match thorough {
        true => is_xwayland(conn),
        false => conn.extension_information("XWAYLAND").ok().flatten().is_some(),
    };
    if !xwayland {
        return false;
    }
    let root = conn.setup().roots[0].root;
    !matches!(
        conn.get_image(ImageFormat::Z_PIXMAP, root, 0, 0, 1, 1, !0).map(|c| c.reply()),
        Ok(Ok(_))
    )
}

fn extension_check(
    conn: &RustConnection,
    name: &'static str,
    label: &str,
    disables: &[&str],
) -> Check {
    match conn.extension_information(name) {
        Ok(Some(_)) => Check::ok(label, format!("{name} present")),
        Ok(None) => {
            Check::missing(label, format!("the X server has no {name} extension"), disables)
        }
        Err(e) => Check::missing(label, format!("could not query {name}: {e}"), disables),
    }
}

fn window_manager_check(backend: &X11Backend) -> Check {
    const DISABLES: &[&str] =
        &["EWMH window list, stacking order and focus flags (listing falls back to root children)"];
    let name = (|| {
        let atoms = &backend.atoms;
        let wm = backend
            .conn
            .get_property(
                false,
                backend.root,
                atoms._NET_SUPPORTING_WM_CHECK,
                x11rb::protocol::xproto::AtomEnum::WINDOW,
                0,
                1,
            )
            .ok()?
            .reply()
            .ok()?;
        let wm_window = wm.value32()?.next()?;
        let name = backend
            .conn
            .get_property(false, wm_window, atoms._NET_WM_NAME, atoms.UTF8_STRING, 0, 64)
            .ok()?
            .reply()
            .ok()?;
        Some(String::from_utf8_lossy(&name.value).into_owned())
    })();
    match name {
        Some(name) => Check::ok("window manager", format!("{name} (EWMH)")),
        None => Check::missing(
            "window manager",
            "no EWMH window manager (_NET_SUPPORTING_WM_CHECK unset)",
            DISABLES,
        ),
    }
}

/// Runs every check against `display` (or `$DISPLAY`).
pub fn doctor(display: Option<&str>) -> DoctorReport {
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some();
    let mut checks = vec![];
    let backend = X11Backend::connect(display);
    let session = match &backend {
        Err(refusal) => {
            checks.push(Check::missing(
                "display",
                refusal.message.clone(),
                &["every capture, listing and input operation"],
            ));
            if wayland {
                SessionType::Wayland
            } else {
                SessionType::None
            }
        }
        Ok(backend) => {
            let name = display
                .map(str::to_owned)
                .or_else(|| std::env::var("DISPLAY").ok())
                .unwrap_or_default();
            let vendor = String::from_utf8_lossy(&backend.conn.setup().vendor).into_owned();
            checks.push(Check::ok("display", format!("X display {name} ({vendor})")));
            let rootless = is_rootless_xwayland(&backend.conn, true);
            if rootless {
                checks.push(Check::missing(
                    "root pixels",
                    "rootless XWayland: the root window is unreadable and Wayland clients are invisible",
                    &["screenshots", "pixel-addressed input"],
                ));
            }
            let conn = &backend.conn;
            checks.push(extension_check(conn, "XTEST", "XTest", &["foreground input (opt-in)"]));
            checks.push(match backend.capture_route() {
                crate::CaptureRoute::Unavailable(reason) => Check::missing("capture", reason, &["screenshots"]),
                _ => {
                    // Capture one pixel so the route shown is the one that works.
                    let probe = glovebox_platform::ScreenCapture::capture_desktop(
                        backend,
                        &glovebox_model::DisplaySelection::All,
                        glovebox_model::CaptureLimits::new(1, 1).expect("valid"),
                        &[],
                    );
                    match (probe, backend.capture_route()) {
                        (Err(e), _) => Check::missing("capture", e.message, &["screenshots"]),
                        (Ok(_), crate::CaptureRoute::Shm) => Check::ok("capture", "MIT-SHM (memfd, AttachFd)"),
                        (Ok(_), _) => {
                            Check::warning("capture", "GetImage through the socket (MIT-SHM unavailable: remote display or no extension)", &["fast capture"])
                        }
                    }
                }
            });
            checks.push(extension_check(
                conn,
                "RANDR",
                "RandR",
                &["per-monitor desktop frames (the screen counts as one display)"],
            ));
            checks.push(extension_check(
                conn,
                "Composite",
                "Composite",
                &["capture of covered windows (later work)"],
            ));
            checks.push(extension_check(
                conn,
                "SHAPE",
                "Shape",
                &["a click-through presence overlay"],
            ));
            checks.push(extension_check(
                conn,
                "X-Resource",
                "X-Resource",
                &["server-attested window pids (falls back to _NET_WM_PID, which clients write themselves)"],
            ));
            checks.push(window_manager_check(backend));
            if let Err(e) = backend.list_windows() {
                checks.push(Check::missing("window listing", e.to_string(), &["list_windows"]));
            }
            if rootless {
                SessionType::XwaylandRootless
            } else {
                SessionType::X11
            }
        }
    };
    DoctorReport { platform: std::env::consts::OS.to_owned(), session, checks }
}
