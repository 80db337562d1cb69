//! GNOME Shell (Mutter) on Wayland, through glovebox's shell extension:
//! GNOME Shell lists windows to no ordinary client (`org.gnome.Shell.
//! Introspect` answers only the desktop portals' bus names), so the
//! person installs the extension (`glovebox setup gnome-extension`),
//! which serves `dev.glovebox.Shell` on the session bus — the window list
//! with title, class, frame, focus and stacking; a window drawn alone, as
//! the shell's own screenshot tool draws it; the whole screen — to the
//! programs the person allowed, checked by the bus daemon's record of the
//! caller's executable. No portal dialog, no impersonated bus name.

use crate::served::{Listed, Snapshot};
use glovebox_model::{Monitor, PidSource, Rect, WindowId, WindowInfo};
use glovebox_platform::{BackendError, BackendErrorKind, Capabilities, RgbImage, Support};
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The extension's UUID, as GNOME Shell names it.
pub const EXTENSION_UUID: &str = "glovebox@glovebox.dev";
/// The extension's files, shipped inside glovebox.
pub const EXTENSION_FILES: &[(&str, &str)] = &[
    ("metadata.json", include_str!("../gnome-extension/metadata.json")),
    ("extension.js", include_str!("../gnome-extension/extension.js")),
];
/// Beside the extension: the programs it answers, one absolute path a line.
pub const ALLOWED_FILE: &str = "allowed";

const SERVICE: &str = "dev.glovebox.Shell";
const PATH: &str = "/dev/glovebox/Shell";
const ANSWER: Duration = Duration::from_secs(3);

/// The extension's errors, typed until the host turns them into refusals.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GnomeError {
    #[error("no session bus: {0}")]
    NoBus(String),
    #[error("GNOME Shell does not answer on the session bus: {0}")]
    NoShell(String),
    #[error("glovebox's GNOME Shell extension is not running ({0}): run `glovebox setup gnome-extension`, then log out and in (GNOME Shell on Wayland loads a new extension at login)")]
    NoExtension(String),
    #[error("glovebox's GNOME Shell extension refused this program: {0}")]
    NotAllowed(String),
    #[error("{call}: {message}")]
    Call { call: &'static str, message: String },
    #[error("GNOME Shell did not answer {0} within {ANSWER:?}")]
    Timeout(&'static str),
}

impl From<GnomeError> for BackendError {
    fn from(e: GnomeError) -> BackendError {
        let kind = match &e {
            GnomeError::Timeout(_) => BackendErrorKind::Timeout,
            GnomeError::Call { message, .. } if message.contains("Error.Gone") => {
                BackendErrorKind::Gone
            }
            _ => BackendErrorKind::Unavailable,
        };
        BackendError::new(kind, e.to_string())
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
struct ShellRect {
    x: i64,
    y: i64,
    width: i64,
    height: i64,
}

impl ShellRect {
    fn rect(&self) -> Option<Rect> {
        let fits = |n: i64| i32::try_from(n).is_ok();
        (fits(self.x)
            && fits(self.y)
            && self.width > 0
            && self.height > 0
            && fits(self.width)
            && fits(self.height))
        .then(|| Rect::new(self.x as i32, self.y as i32, self.width as u32, self.height as u32))
    }
}

#[derive(Debug, Clone, Deserialize)]
struct ShellWindow {
    id: String,
    pid: i64,
    title: String,
    class: String,
    instance: String,
    frame: ShellRect,
    /// The frame less the decorations Mutter draws (an X11 window's title bar).
    client: ShellRect,
    buffer: ShellRect,
    focused: bool,
    minimized: bool,
    shown: bool,
    /// `Meta.WindowType`.
    #[serde(rename = "type")]
    kind: u32,
}

#[derive(Debug, Clone, Deserialize)]
struct ShellReport {
    screens: Vec<ShellRect>,
    primary: i64,
    windows: Vec<ShellWindow>,
}

/// Mutter's window types an agent acts in: normal windows, dialogs,
/// modal dialogs, utility windows.
const APPLICATION_TYPES: [u32; 4] = [0, 3, 4, 7];

impl ShellReport {
    fn snapshot(&self) -> Snapshot {
        let monitors = self
            .screens
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                Some(Monitor {
                    name: format!("monitor-{i}"),
                    logical: s.rect()?,
                    primary: i as i64 == self.primary,
                })
            })
            .collect();
        let windows = self
            .windows
            .iter()
            .filter(|w| APPLICATION_TYPES.contains(&w.kind))
            .filter_map(|w| {
                let frame = w.frame.rect()?;
                let client = w.client.rect().unwrap_or(frame);
                let id: u64 = w.id.parse().ok()?;
                let pid = u32::try_from(w.pid).ok().filter(|&p| p > 0)?;
                let shown = w.shown && !w.minimized;
                Some(Listed {
                    info: WindowInfo {
                        // Mutter's ids count up from a per-session base; their low 32 bits name them.
                        id: WindowId { pid, handle: id as u32 },
                        app: if w.class.is_empty() { w.instance.clone() } else { w.class.clone() },
                        instance: w.instance.clone(),
                        title: w.title.clone(),
                        pid_source: PidSource::Server,
                        geometry: client,
                        focused: w.focused,
                        minimized: !shown,
                        desktop: glovebox_model::Desktop::User,
                    },
                    handle: w.id.clone(),
                    buffer: w.buffer.rect().unwrap_or(frame),
                    frame,
                    x11: None,
                    shown,
                })
            })
            .collect();
        Snapshot { monitors, windows }
    }
}

/// GNOME Shell with glovebox's extension, on the session bus at `address`.
pub struct GnomeShellBackend {
    runtime: tokio::runtime::Runtime,
    bus: zbus::Connection,
    dir: PathBuf,
    version: String,
    /// Mutter's remote-desktop session (global input), made on first use
    /// and ended with this connection.
    remote: std::sync::Mutex<Option<zbus::zvariant::OwnedObjectPath>>,
}

const REMOTE_DESKTOP: &str = "org.gnome.Mutter.RemoteDesktop";
const REMOTE_SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";

impl std::fmt::Debug for GnomeShellBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GnomeShellBackend").field("version", &self.version).finish()
    }
}

impl GnomeShellBackend {
    /// Connects and checks that GNOME Shell runs: the extension's absence
    /// is an error of its own ([`GnomeError::NoExtension`]).
    pub fn connect(address: Option<&str>) -> Result<GnomeShellBackend, GnomeError> {
        let (runtime, bus) = crate::served::connect_bus(address, "glovebox-gnome", ANSWER)
            .map_err(GnomeError::NoBus)?;
        let version = runtime.block_on(async {
            let call = bus.call_method(
                Some("org.gnome.Shell"),
                "/org/gnome/Shell",
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &("org.gnome.Shell", "ShellVersion"),
            );
            let reply = tokio::time::timeout(ANSWER, call)
                .await
                .map_err(|_| GnomeError::Timeout("org.gnome.Shell"))?
                .map_err(|e| GnomeError::NoShell(e.to_string()))?;
            let value: zbus::zvariant::OwnedValue =
                reply.body().deserialize().map_err(|e| GnomeError::NoShell(e.to_string()))?;
            Ok::<_, GnomeError>(format!(
                "GNOME Shell {}",
                String::try_from(value).unwrap_or_default()
            ))
        })?;
        let dir = crate::served::private_dir("glovebox-gnome")
            .map_err(|e| GnomeError::NoBus(format!("glovebox-gnome's directory: {e}")))?;
        Ok(GnomeShellBackend { runtime, bus, dir, version, remote: Default::default() })
    }

    pub fn compositor(&self) -> &str {
        &self.version
    }

    fn call<B>(&self, method: &'static str, body: &B) -> Result<zbus::message::Message, GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        self.runtime.block_on(async {
            let call = self.bus.call_method(Some(SERVICE), PATH, Some(SERVICE), method, body);
            match tokio::time::timeout(ANSWER, call).await {
                Err(_) => Err(GnomeError::Timeout(method)),
                Ok(Ok(reply)) => Ok(reply),
                Ok(Err(zbus::Error::MethodError(name, text, _))) => {
                    let text = text.unwrap_or_default();
                    Err(match name.as_str() {
                        "org.freedesktop.DBus.Error.AccessDenied" => GnomeError::NotAllowed(text),
                        "org.freedesktop.DBus.Error.ServiceUnknown"
                        | "org.freedesktop.DBus.Error.NameHasNoOwner" => {
                            GnomeError::NoExtension(text)
                        }
                        "org.freedesktop.DBus.Error.UnknownMethod" => GnomeError::Call {
                            call: method,
                            message: format!(
                                "the installed extension is older than this glovebox (run `glovebox setup gnome-extension` again, then log out and in): {text}"
                            ),
                        },
                        other => {
                            GnomeError::Call { call: method, message: format!("{other}: {text}") }
                        }
                    })
                }
                Ok(Err(e)) => Err(GnomeError::Call { call: method, message: e.to_string() }),
            }
        })
    }

    fn report(&self) -> Result<ShellReport, GnomeError> {
        let reply = self.call("Windows", &())?;
        let json: String = reply
            .body()
            .deserialize()
            .map_err(|e| GnomeError::Call { call: "Windows", message: e.to_string() })?;
        serde_json::from_str(&json).map_err(|e| GnomeError::Call {
            call: "Windows",
            message: format!("the extension reported {e}"),
        })
    }

    /// The windows glovebox lists, frontmost first.
    pub fn listed(&self) -> Result<Vec<Listed>, GnomeError> {
        Ok(self.report()?.snapshot().windows)
    }

    /// A picture the extension writes as PNG into glovebox's private
    /// directory, read and removed.
    fn picture<B>(
        &self,
        method: &'static str,
        body: impl FnOnce(&str) -> B,
    ) -> Result<RgbImage, GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        static PICTURES: AtomicU64 = AtomicU64::new(0);
        let file = self.dir.join(format!(
            "picture-{}-{}.png",
            std::process::id(),
            PICTURES.fetch_add(1, Ordering::Relaxed)
        ));
        let path = file.to_string_lossy().into_owned();
        let outcome = self.call(method, &body(&path));
        let bytes = std::fs::read(&file);
        let _ = std::fs::remove_file(&file);
        outcome?;
        let bytes = bytes.map_err(|e| GnomeError::Call {
            call: method,
            message: format!("reading its picture: {e}"),
        })?;
        RgbImage::decode_png(&bytes).map_err(|e| GnomeError::Call {
            call: method,
            message: format!("its picture: {}", e.message),
        })
    }

    /// Gives window `handle` the keyboard focus through the shell; the
    /// handle of the window that had it, if one did.
    pub fn focus(&self, handle: &str) -> Result<Option<String>, GnomeError> {
        let id: u64 = handle.parse().map_err(|_| GnomeError::Call {
            call: "Focus",
            message: format!("{handle} is not a Mutter window id"),
        })?;
        let reply = self.call("Focus", &(id,))?;
        let previous: u64 = reply
            .body()
            .deserialize()
            .map_err(|e| GnomeError::Call { call: "Focus", message: e.to_string() })?;
        Ok((previous != 0).then(|| previous.to_string()))
    }

    /// Moves the seat's pointer (the shell's virtual pointer, through
    /// glovebox's extension) to `(x, y)` on the desktop; where it was.
    pub fn move_pointer(&self, x: f64, y: f64) -> Result<(f64, f64), GnomeError> {
        let reply = self.call("MovePointer", &(x, y))?;
        reply
            .body()
            .deserialize()
            .map_err(|e| GnomeError::Call { call: "MovePointer", message: e.to_string() })
    }

    /// Presses or releases a button of the seat's pointer (1 left, 2
    /// middle, 3 right, 8 back, 9 forward).
    pub fn pointer_button(&self, button: u32, pressed: bool) -> Result<(), GnomeError> {
        self.call("PointerButton", &(button, pressed)).map(|_| ())
    }

    /// Presses and releases keys on the seat's keyboard (Mutter's
    /// remote-desktop session: global input, to whatever window has the
    /// focus), in order: `(keysym, pressed)`.
    pub fn keysyms(&self, strokes: &[(u32, bool)]) -> Result<(), GnomeError> {
        let mut remote = self.remote.lock().unwrap_or_else(|p| p.into_inner());
        let session = match remote.as_ref() {
            Some(session) => session.clone(),
            None => {
                let session = self.runtime.block_on(async {
                    let call = async {
                        let reply = self
                            .bus
                            .call_method(
                                Some(REMOTE_DESKTOP),
                                "/org/gnome/Mutter/RemoteDesktop",
                                Some(REMOTE_DESKTOP),
                                "CreateSession",
                                &(),
                            )
                            .await?;
                        let session: zbus::zvariant::OwnedObjectPath =
                            reply.body().deserialize()?;
                        self.bus
                            .call_method(
                                Some(REMOTE_DESKTOP),
                                session.as_str(),
                                Some(REMOTE_SESSION),
                                "Start",
                                &(),
                            )
                            .await?;
                        Ok::<_, zbus::Error>(session)
                    };
                    tokio::time::timeout(ANSWER, call)
                        .await
                        .map_err(|_| GnomeError::Timeout("org.gnome.Mutter.RemoteDesktop"))?
                        .map_err(|e| GnomeError::Call {
                            call: "org.gnome.Mutter.RemoteDesktop",
                            message: e.to_string(),
                        })
                })?;
                *remote = Some(session.clone());
                session
            }
        };
        self.runtime.block_on(async {
            for stroke in strokes {
                let call = self.bus.call_method(
                    Some(REMOTE_DESKTOP),
                    session.as_str(),
                    Some(REMOTE_SESSION),
                    "NotifyKeyboardKeysym",
                    stroke,
                );
                tokio::time::timeout(ANSWER, call)
                    .await
                    .map_err(|_| GnomeError::Timeout("NotifyKeyboardKeysym"))?
                    .map_err(|e| GnomeError::Call {
                        call: "NotifyKeyboardKeysym",
                        message: e.to_string(),
                    })?;
            }
            Ok(())
        })
    }

    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            backend: format!("wayland ({})", self.version),
            window_listing: Support::Available {
                detail: "glovebox's GNOME Shell extension (title, class, frame, focus, stacking)"
                    .into(),
            },
            window_capture: Support::Available {
                detail: "the shell draws the window alone".into(),
            },
            desktop_capture: Support::Available {
                detail: "the shell's screenshot of the screen".into(),
            },
            accessibility: Support::Missing { reason: "provided by the AT-SPI backend".into() },
        }
    }
}

impl crate::served::Served for GnomeShellBackend {
    fn compositor(&self) -> &str {
        &self.version
    }

    fn snapshot(&self) -> Result<Snapshot, BackendError> {
        Ok(self.report()?.snapshot())
    }

    fn window_pixels(&self, window: &Listed) -> Result<RgbImage, BackendError> {
        let id: u64 = window.handle.parse().map_err(|_| {
            BackendError::new(BackendErrorKind::InvalidArgument, "not a Mutter window id")
        })?;
        Ok(self.picture("CaptureWindow", |path| (id, path.to_owned()))?)
    }

    fn screen_pixels(&self) -> Result<RgbImage, BackendError> {
        Ok(self.picture("CaptureScreen", |path| (path.to_owned(),))?)
    }
}

crate::served::platform_traits!(GnomeShellBackend);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extensions_report_keeps_application_windows_frontmost_first() {
        let rect = |x: i64, w: i64| serde_json::json!({"x": x, "y": 10, "width": w, "height": 50});
        let window = |id: &str, kind: u32, focused: bool, shown: bool| {
            serde_json::json!({"id": id, "pid": 7, "title": format!("w{id}"), "class": "Gedit", "instance": "gedit",
                "app_id": "", "frame": rect(5, 100), "client": rect(5, 100), "buffer": rect(0, 110), "focused": focused,
                "minimized": false, "shown": shown, "type": kind, "skip_taskbar": false, "x11": false})
        };
        let json = serde_json::json!({
            "screens": [{"x": 0, "y": 0, "width": 1280, "height": 800}], "primary": 0,
            "windows": [window("4294967297", 0, true, true), window("12", 15, false, true), window("13", 3, false, false)]
        });
        let report: ShellReport = serde_json::from_value(json).unwrap();
        let snapshot = report.snapshot();
        let titles: Vec<&str> = snapshot.windows.iter().map(|l| l.info.title.as_str()).collect();
        assert_eq!(titles, ["w4294967297", "w13"], "the shell's own surfaces are not windows");
        assert_eq!(snapshot.windows[0].info.id, WindowId { pid: 7, handle: 1 });
        assert!(snapshot.windows[0].info.focused);
        assert!(snapshot.windows[1].info.minimized, "not shown: no pixels");
        assert_eq!(snapshot.windows[0].buffer, Rect::new(0, 10, 110, 50));
        assert_eq!(snapshot.monitors[0].logical, Rect::new(0, 0, 1280, 800));
        assert!(snapshot.monitors[0].primary);
    }
}
