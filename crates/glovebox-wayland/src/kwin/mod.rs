//! KDE Plasma's compositor, KWin, on Wayland: windows with title, class,
//! geometry, focus and stacking from KWin's scripting, and pixels from
//! `org.kde.KWin.ScreenShot2` — the window's own (never what covers it)
//! and the whole workspace.
//!
//! Both are KWin's D-Bus services on the session bus. Scripting is open
//! to every client of the session; ScreenShot2 answers only programs
//! whose desktop file lists the interface in
//! `X-KDE-DBUS-Restricted-Interfaces` (the `.deb` installs one, and
//! `glovebox setup kde-screenshot` writes one for a `cargo install`),
//! so the user grants it once, by installing. Nothing here sends input:
//! KWin's input routes are global (glovebox-linux decides which class of
//! action may use them).

pub mod pixels;
mod remote;
pub mod script;

use crate::served::{Listed, Snapshot};
use futures_util::StreamExt as _;
use glovebox_platform::{BackendError, BackendErrorKind, Capabilities, RgbImage, Support};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use zbus::zvariant::{Fd, OwnedValue, Value};

const KWIN: &str = "org.kde.KWin";
const SCREENSHOT_PATH: &str = "/org/kde/KWin/ScreenShot2";
const SCREENSHOT: &str = "org.kde.KWin.ScreenShot2";
/// How long KWin has to answer one call, run a script or write a picture.
pub(crate) const ANSWER: Duration = Duration::from_secs(3);

/// KWin's errors, typed until the host turns them into refusals.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KWinError {
    #[error("no session bus: {0}")]
    NoBus(String),
    #[error("KWin does not answer on the session bus: {0}")]
    NotRunning(String),
    #[error("{call}: {message}")]
    Call { call: &'static str, message: String },
    #[error("KWin refused the screenshot: glovebox is not authorized ({0}); install the .deb, or run `glovebox setup kde-screenshots`, which writes the desktop file that lists org.kde.KWin.ScreenShot2 for this program")]
    NotAuthorized(String),
    #[error("KWin did not answer {0} within {ANSWER:?}")]
    Timeout(&'static str),
}

impl From<KWinError> for BackendError {
    fn from(e: KWinError) -> BackendError {
        let kind = match e {
            KWinError::Timeout(_) => BackendErrorKind::Timeout,
            _ => BackendErrorKind::Unavailable,
        };
        BackendError::new(kind, e.to_string())
    }
}

/// KWin on the session bus at `address` (or this process's session bus).
pub struct KWinBackend {
    runtime: tokio::runtime::Runtime,
    bus: zbus::Connection,
    /// This connection's unique bus name, which scripts report back to.
    unique_name: String,
    /// The desktop portal's remote-desktop session (global keys), made on
    /// first use and ended with this connection.
    remote: std::sync::Mutex<Option<zbus::zvariant::OwnedObjectPath>>,
    /// The report script, written once for this connection.
    script: PathBuf,
    version: String,
    /// The X server's record of XWayland clients, where glovebox reaches it.
    xwayland: Option<Box<dyn XwaylandClients>>,
}

/// Who made an XWayland window, by the X server's record: KWin 5.27
/// reports a pid only where the client wrote `_NET_WM_PID`.
pub trait XwaylandClients: Send + Sync {
    /// The pid of the client that made X window `window`.
    fn pid_of(&self, window: u32) -> Option<u32>;
}

impl std::fmt::Debug for KWinBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KWinBackend").field("version", &self.version).finish()
    }
}

static SCRIPTS_RUN: AtomicU64 = AtomicU64::new(0);

impl KWinBackend {
    /// Connects, checks that KWin owns its name, and writes the report
    /// script into a private directory.
    pub fn connect(address: Option<&str>) -> Result<KWinBackend, KWinError> {
        let (runtime, bus) = crate::served::connect_bus(address, "glovebox-kwin", ANSWER)
            .map_err(KWinError::NoBus)?;
        let version = runtime.block_on(async {
            let reply = tokio::time::timeout(
                ANSWER,
                bus.call_method(
                    Some(KWIN),
                    "/KWin",
                    Some("org.kde.KWin"),
                    "supportInformation",
                    &(),
                ),
            )
            .await
            .map_err(|_| KWinError::Timeout("supportInformation"))?
            .map_err(|e| KWinError::NotRunning(e.to_string()))?;
            let text: String = reply.body().deserialize().unwrap_or_default();
            Ok::<_, KWinError>(version_of(&text))
        })?;
        let unique = bus.unique_name().map(|n| n.to_string()).unwrap_or_default();
        // One file per connection: the script names this connection, and
        // another backend of the same process must not rewrite it.
        static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
        let dir = crate::served::private_dir("glovebox-kwin")
            .map_err(|e| KWinError::NoBus(format!("glovebox-kwin's directory: {e}")))?;
        let script = dir.join(format!(
            "report-{}-{}.js",
            std::process::id(),
            CONNECTIONS.fetch_add(1, Ordering::Relaxed)
        ));
        glovebox_platform::files::write_private(&script, script::text(&unique).as_bytes())
            .map_err(|e| KWinError::NoBus(format!("writing {}: {e}", script.display())))?;
        Ok(KWinBackend {
            runtime,
            bus,
            unique_name: unique,
            script,
            version,
            remote: Default::default(),
            xwayland: None,
        })
    }

    /// Names the process of an XWayland window that wrote no pid by
    /// `clients` (the X server's record) instead of leaving it unknown.
    pub fn with_xwayland(mut self, clients: Box<dyn XwaylandClients>) -> KWinBackend {
        self.xwayland = Some(clients);
        self
    }

    /// KWin's version as it reports it (`KWin 5.27.5`).
    pub fn compositor(&self) -> &str {
        &self.version
    }

    /// The script's report: screens and every window.
    pub fn report(&self) -> Result<script::Report, KWinError> {
        let json = self.run(&self.script)?;
        script::Report::parse(&json)
            .map_err(|message| KWinError::Call { call: "the window script", message })
    }

    /// Gives the window KWin calls `uuid` the keyboard focus; the UUID of
    /// the window that had it, if one did.
    pub fn focus(&self, uuid: &str) -> Result<Option<String>, KWinError> {
        let text = script::focus_text(&self.unique_name, uuid).ok_or_else(|| KWinError::Call {
            call: "the focus script",
            message: format!("{uuid:?} is not a KWin window id"),
        })?;
        let file =
            self.script.with_extension(format!("focus-{}.js", SCRIPTS_RUN.load(Ordering::Relaxed)));
        glovebox_platform::files::write_private(&file, text.as_bytes())
            .map_err(|e| KWinError::Call { call: "the focus script", message: e.to_string() })?;
        let previous = self.run(&file);
        let _ = std::fs::remove_file(&file);
        Ok(Some(previous?).filter(|p| !p.is_empty()))
    }

    /// Loads the script at `path` into KWin, runs it, and returns what it
    /// reported back; the script is unloaded whatever happened.
    fn run(&self, path: &std::path::Path) -> Result<String, KWinError> {
        let name = format!(
            "glovebox-{}-{}",
            std::process::id(),
            SCRIPTS_RUN.fetch_add(1, Ordering::Relaxed)
        );
        let path = path.to_string_lossy().into_owned();
        let outcome = self
            .runtime
            .block_on(async { tokio::time::timeout(ANSWER, self.run_script(&path, &name)).await });
        // Loaded scripts stay in KWin until unloaded, whatever happened.
        let unload_args = (name.as_str(),);
        let _ = self.runtime.block_on(async {
            let unload = self.bus.call_method(
                Some(KWIN),
                "/Scripting",
                Some("org.kde.kwin.Scripting"),
                "unloadScript",
                &unload_args,
            );
            tokio::time::timeout(ANSWER, unload).await
        });
        outcome.map_err(|_| KWinError::Timeout("the window script"))?
    }

    async fn run_script(&self, path: &str, name: &str) -> Result<String, KWinError> {
        let mut incoming = zbus::MessageStream::from(&self.bus);
        let call = |call: &'static str| {
            move |e: zbus::Error| KWinError::Call { call, message: e.to_string() }
        };
        let reply = self
            .bus
            .call_method(
                Some(KWIN),
                "/Scripting",
                Some("org.kde.kwin.Scripting"),
                "loadScript",
                &(path, name),
            )
            .await
            .map_err(call("org.kde.kwin.Scripting.loadScript"))?;
        let id: i32 =
            reply.body().deserialize().map_err(call("org.kde.kwin.Scripting.loadScript"))?;
        if id < 0 {
            return Err(KWinError::Call {
                call: "org.kde.kwin.Scripting.loadScript",
                message: format!("KWin did not load {path} ({id})"),
            });
        }
        self.bus
            .call_method(
                Some(KWIN),
                format!("/{id}").as_str(),
                Some("org.kde.kwin.Script"),
                "run",
                &(),
            )
            .await
            .map_err(call("org.kde.kwin.Script.run"))?;
        while let Some(message) = incoming.next().await {
            let Ok(message) = message else { continue };
            let header = message.header();
            let ours = header.message_type() == zbus::message::Type::MethodCall
                && header.path().is_some_and(|p| p.as_str() == script::REPORT_PATH)
                && header.member().is_some_and(|m| m.as_str() == "Report");
            if !ours {
                continue;
            }
            let _ = self.bus.reply(&header, &()).await;
            return message.body().deserialize::<String>().map_err(|e| KWinError::Call {
                call: "the window script",
                message: e.to_string(),
            });
        }
        Err(KWinError::NotRunning("the session bus closed".into()))
    }

    /// One ScreenShot2 call (`CaptureWindow` with `uuid`, or
    /// `CaptureWorkspace` without): the picture in logical pixels.
    fn screenshot(&self, uuid: Option<&str>) -> Result<RgbImage, KWinError> {
        let (reader, writer) = std::io::pipe()
            .map_err(|e| KWinError::Call { call: "pipe", message: e.to_string() })?;
        // The pipe is read while KWin writes: a picture is larger than its buffer.
        let (sent, read) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("glovebox-kwin-pixels".into())
            .spawn(move || {
                use std::io::Read as _;
                let mut bytes = vec![];
                let outcome =
                    reader.take(pixels::MAX_BYTES as u64).read_to_end(&mut bytes).map(|_| bytes);
                let _ = sent.send(outcome);
            })
            .map_err(|e| KWinError::Call { call: "a reader thread", message: e.to_string() })?;
        let writer = std::os::fd::OwnedFd::from(writer);
        let mut options: HashMap<&str, Value> = HashMap::new();
        options.insert("include-cursor", Value::from(false));
        options.insert("native-resolution", Value::from(false));
        let method = if uuid.is_some() { "CaptureWindow" } else { "CaptureWorkspace" };
        let call = async {
            match uuid {
                Some(uuid) => {
                    options.insert("include-decoration", Value::from(true));
                    self.bus
                        .call_method(
                            Some(KWIN),
                            SCREENSHOT_PATH,
                            Some(SCREENSHOT),
                            method,
                            &(uuid, &options, Fd::from(&writer)),
                        )
                        .await
                }
                None => {
                    self.bus
                        .call_method(
                            Some(KWIN),
                            SCREENSHOT_PATH,
                            Some(SCREENSHOT),
                            method,
                            &(&options, Fd::from(&writer)),
                        )
                        .await
                }
            }
        };
        let answer = self.runtime.block_on(async { tokio::time::timeout(ANSWER, call).await });
        // KWin holds its own copy; this one must go for the reader to end.
        drop(writer);
        let reply = match answer {
            Err(_) => return Err(KWinError::Timeout("org.kde.KWin.ScreenShot2")),
            Ok(Err(zbus::Error::MethodError(name, text, _)))
                if name.as_str().ends_with("NoAuthorized") =>
            {
                return Err(KWinError::NotAuthorized(text.unwrap_or_default()))
            }
            Ok(Err(e)) => {
                return Err(KWinError::Call {
                    call: "org.kde.KWin.ScreenShot2",
                    message: e.to_string(),
                })
            }
            Ok(Ok(reply)) => reply,
        };
        let results: HashMap<String, OwnedValue> = reply.body().deserialize().map_err(|e| {
            KWinError::Call { call: "org.kde.KWin.ScreenShot2", message: e.to_string() }
        })?;
        let number = |key: &str| results.get(key).and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
        let layout = pixels::Layout {
            width: number("width"),
            height: number("height"),
            stride: number("stride"),
            format: number("format"),
        };
        let scale = results.get("scale").and_then(|v| f64::try_from(v).ok()).unwrap_or(1.0);
        let bytes = read
            .recv_timeout(ANSWER)
            .map_err(|_| KWinError::Timeout("the screenshot's pixels"))?
            .map_err(|e| KWinError::Call {
                call: "reading the screenshot",
                message: e.to_string(),
            })?;
        let image = pixels::decode(layout, &bytes).map_err(|e| KWinError::Call {
            call: "org.kde.KWin.ScreenShot2",
            message: e.message,
        })?;
        if scale.is_finite() && scale > 1.0 {
            let logical = glovebox_model::Size {
                width: ((image.width as f64 / scale).round() as u32).max(1),
                height: ((image.height as f64 / scale).round() as u32).max(1),
            };
            return Ok(image.downscale(logical));
        }
        Ok(image)
    }

    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            backend: format!("wayland ({})", self.version),
            window_listing: Support::Available {
                detail: "KWin's scripting (caption, class, geometry, focus, stacking)".into(),
            },
            window_capture: Support::Available {
                detail: "org.kde.KWin.ScreenShot2: the window's own pixels".into(),
            },
            desktop_capture: Support::Available {
                detail: "org.kde.KWin.ScreenShot2: the workspace".into(),
            },
            accessibility: Support::Missing { reason: "provided by the AT-SPI backend".into() },
        }
    }

    /// Whether KWin lets this program take screenshots: one picture of
    /// the workspace, refused with `NoAuthorized` as any capture would be.
    pub fn screenshot_allowed(&self) -> Result<(), KWinError> {
        self.screenshot(None).map(|_| ())
    }

    /// The windows glovebox lists, frontmost first, with KWin's ids.
    pub fn listed(&self) -> Result<Vec<Listed>, KWinError> {
        Ok(self.report()?.windows(self.xwayland.as_deref()))
    }
}

fn version_of(support_information: &str) -> String {
    support_information
        .lines()
        .find_map(|l| l.trim().strip_prefix("KWin version:"))
        .map(|v| format!("KWin {}", v.trim()))
        .unwrap_or_else(|| "KWin".into())
}

impl Drop for KWinBackend {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.script);
    }
}

impl crate::served::Served for KWinBackend {
    fn compositor(&self) -> &str {
        &self.version
    }

    fn snapshot(&self) -> Result<Snapshot, BackendError> {
        let report = self.report()?;
        Ok(Snapshot {
            monitors: report.monitors(),
            windows: report.windows(self.xwayland.as_deref()),
        })
    }

    fn window_pixels(&self, window: &Listed) -> Result<RgbImage, BackendError> {
        Ok(self.screenshot(Some(&window.handle))?)
    }

    fn screen_pixels(&self) -> Result<RgbImage, BackendError> {
        Ok(self.screenshot(None)?)
    }
}

crate::served::platform_traits!(KWinBackend);
