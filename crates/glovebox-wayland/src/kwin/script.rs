//! What KWin's scripting tells about the desktop: a small script, run
//! inside the compositor, reports every managed window (caption, process,
//! class, geometry, activity, stacking, X11 id) and the screens through
//! `callDBus` back to glovebox. This module holds the script's text and
//! reads its report; the transport is in the parent module.

use super::XwaylandClients;
use crate::served::Listed;
use glovebox_model::{Monitor, PidSource, Rect, WindowId, WindowInfo};
use serde::Deserialize;

/// The script, with `{BUS}`, `{PATH}` and `{INTERFACE}` to fill in: one
/// report of the screens, the pointer and every window, frontmost first.
const TEMPLATE: &str = r#"
var screens = [];
for (var i = 0; i < workspace.numScreens; i++) {
  screens.push(workspace.clientArea(KWin.ScreenArea, i, workspace.currentDesktop));
}
var windows = [];
var list = workspace.clientList();
for (var j = 0; j < list.length; j++) {
  var c = list[j];
  windows.push({
    uuid: c.internalId.toString(), caption: c.caption, pid: c.pid,
    class: c.resourceClass.toString(), name: c.resourceName.toString(),
    frame: c.frameGeometry, buffer: c.bufferGeometry,
    active: c.active, minimized: c.minimized, hidden: c.hidden,
    normal: c.normalWindow, dialog: c.dialog, managed: c.managed, deleted: c.deleted,
    desktop: c.desktop, all_desktops: c.onAllDesktops, stacking: c.stackingOrder,
    x11: c.windowId ? c.windowId : 0
  });
}
var cursor = {x: workspace.cursorPos.x, y: workspace.cursorPos.y};
callDBus("{BUS}", "{PATH}", "{INTERFACE}", "Report", JSON.stringify(
  {current_desktop: workspace.currentDesktop, screens: screens, cursor: cursor, windows: windows}));
"#;

/// A script that gives the window `{UUID}` the focus and reports the UUID
/// of the window that had it (empty for none).
const FOCUS_TEMPLATE: &str = r#"
var previous = workspace.activeClient ? workspace.activeClient.internalId.toString() : "";
var list = workspace.clientList();
for (var i = 0; i < list.length; i++) {
  if (list[i].internalId.toString() == "{UUID}") { workspace.activeClient = list[i]; }
}
callDBus("{BUS}", "{PATH}", "{INTERFACE}", "Report", previous);
"#;

/// The focus script for window `uuid`, for a connection named `bus`;
/// `None` unless `uuid` is a UUID as KWin writes it (`{` hex and dashes `}`),
/// so nothing but an id ever reaches the script's text.
pub fn focus_text(bus: &str, uuid: &str) -> Option<String> {
    let inner = uuid.strip_prefix('{')?.strip_suffix('}')?;
    let valid = inner.len() == 36 && inner.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    valid.then(|| {
        FOCUS_TEMPLATE
            .replace("{UUID}", uuid)
            .replace("{BUS}", bus)
            .replace("{PATH}", REPORT_PATH)
            .replace("{INTERFACE}", REPORT_INTERFACE)
    })
}

/// The object and interface the script reports to.
pub const REPORT_PATH: &str = "/dev/glovebox/KWinReport";
pub const REPORT_INTERFACE: &str = "dev.glovebox.KWinReport";

/// The script's text for a connection whose unique bus name is `bus`.
pub fn text(bus: &str) -> String {
    TEMPLATE
        .replace("{BUS}", bus)
        .replace("{PATH}", REPORT_PATH)
        .replace("{INTERFACE}", REPORT_INTERFACE)
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct ScriptRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl ScriptRect {
    /// Whole logical pixels; nothing empty or outside `i32`.
    pub fn rect(&self) -> Option<Rect> {
        let fits = |n: f64| n.is_finite() && n.abs() < i32::MAX as f64;
        if !(fits(self.x) && fits(self.y) && fits(self.width) && fits(self.height)) {
            return None;
        }
        let (w, h) = (self.width.round(), self.height.round());
        (w >= 1.0 && h >= 1.0)
            .then(|| Rect::new(self.x.round() as i32, self.y.round() as i32, w as u32, h as u32))
    }
}

/// One window as the script reports it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct KWinWindow {
    /// KWin's id for the window, `{…}`: what ScreenShot2 names it by.
    pub uuid: String,
    pub caption: String,
    pub pid: i64,
    pub class: String,
    pub name: String,
    pub frame: ScriptRect,
    pub buffer: ScriptRect,
    pub active: bool,
    pub minimized: bool,
    pub hidden: bool,
    pub normal: bool,
    pub dialog: bool,
    pub managed: bool,
    pub deleted: bool,
    pub desktop: i64,
    pub all_desktops: bool,
    pub stacking: i64,
    /// The X11 window of an XWayland client; 0 for a Wayland one.
    pub x11: u64,
}

impl KWinWindow {
    /// glovebox's number for the window: the first 32 bits of KWin's
    /// UUID, stable while the window lives and across processes (a CLI
    /// call names the window a previous one listed).
    pub fn number(&self) -> Option<u32> {
        let hex: String = self.uuid.chars().filter(|c| c.is_ascii_hexdigit()).take(8).collect();
        (hex.len() == 8).then(|| u32::from_str_radix(&hex, 16).ok()).flatten()
    }

    pub fn id(&self, xwayland: Option<&dyn XwaylandClients>) -> Option<WindowId> {
        Some(WindowId { pid: self.process(xwayland)?.0, handle: self.number()? })
    }

    /// Its process and whose word that is: KWin's record of the client's
    /// socket peer; for an XWayland window that names no process (Tk sets
    /// no `_NET_WM_PID`, so KWin has none), the X server's record where
    /// glovebox reaches it, else process 0 (unknown) — still a window. A
    /// Wayland window always has one.
    fn process(&self, xwayland: Option<&dyn XwaylandClients>) -> Option<(u32, PidSource)> {
        match u32::try_from(self.pid).ok().filter(|&p| p > 0) {
            Some(pid) => Some((pid, PidSource::Server)),
            None if self.x11 != 0 => {
                let by_server = u32::try_from(self.x11)
                    .ok()
                    .and_then(|window| xwayland?.pid_of(window))
                    .filter(|&p| p > 0);
                Some(by_server.map_or((0, PidSource::Unknown), |pid| (pid, PidSource::Server)))
            }
            None => None,
        }
    }
}

/// The pointer's position as the script reports it.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct ScriptPoint {
    pub x: f64,
    pub y: f64,
}

/// The script's whole report.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Report {
    pub current_desktop: i64,
    pub screens: Vec<ScriptRect>,
    /// Where the pointer is (absent from a script that did not say).
    #[serde(default)]
    pub cursor: Option<ScriptPoint>,
    pub windows: Vec<KWinWindow>,
}

impl Report {
    pub fn parse(json: &str) -> Result<Report, String> {
        serde_json::from_str(json).map_err(|e| format!("KWin's script reported {e}"))
    }

    /// The application windows (normal windows and dialogs KWin manages),
    /// frontmost first. Panels, the desktop, menus and KWin's own
    /// surfaces are not windows an agent acts in.
    pub fn windows(&self, xwayland: Option<&dyn XwaylandClients>) -> Vec<Listed> {
        let mut listed: Vec<(i64, Listed)> = self
            .windows
            .iter()
            .filter(|w| (w.normal || w.dialog) && w.managed && !w.deleted)
            .filter_map(|w| {
                // KWin 5.27's scripting gives no client rectangle: the
                // frame (with KWin's title bar, where it draws one) is the
                // window, and its pictures show the same rectangle.
                let frame = w.frame.rect()?;
                let shown = !w.minimized
                    && !w.hidden
                    && (w.all_desktops || w.desktop == self.current_desktop);
                let (pid, pid_source) = w.process(xwayland)?;
                let info = WindowInfo {
                    id: WindowId { pid, handle: w.number()? },
                    app: w.class.clone(),
                    instance: w.name.clone(),
                    title: w.caption.clone(),
                    pid_source,
                    geometry: frame,
                    focused: w.active,
                    minimized: !shown,
                    desktop: glovebox_model::Desktop::User,
                };
                let listed = Listed {
                    info,
                    handle: w.uuid.clone(),
                    buffer: w.buffer.rect().unwrap_or(frame),
                    frame,
                    x11: u32::try_from(w.x11).ok().filter(|&x| x != 0),
                    shown,
                };
                Some((w.stacking, listed))
            })
            .collect();
        // KWin's stacking order counts from the bottom.
        listed.sort_by_key(|l| std::cmp::Reverse(l.0));
        listed.into_iter().map(|(_, l)| l).collect()
    }

    /// Where the pointer is, in whole logical pixels.
    pub fn pointer(&self) -> Option<glovebox_model::Point> {
        let c = self.cursor?;
        let fits = |n: f64| n.is_finite() && n.abs() < i32::MAX as f64;
        (fits(c.x) && fits(c.y))
            .then(|| glovebox_model::Point { x: c.x.round() as i32, y: c.y.round() as i32 })
    }

    pub fn monitors(&self) -> Vec<Monitor> {
        self.screens
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                Some(Monitor { name: format!("screen-{i}"), logical: s.rect()?, primary: i == 0 })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(
        uuid: &str,
        caption: &str,
        stacking: i64,
        extra: serde_json::Value,
    ) -> serde_json::Value {
        let rect = serde_json::json!({"x": 10, "y": 20, "width": 300, "height": 200});
        let mut w = serde_json::json!({
            "uuid": uuid, "caption": caption, "pid": 42, "class": "featherpad", "name": "featherpad",
            "frame": rect, "buffer": rect, "active": false, "minimized": false,
            "hidden": false, "normal": true, "dialog": false, "managed": true, "deleted": false,
            "desktop": 1, "all_desktops": false, "stacking": stacking, "x11": 0
        });
        for (k, v) in extra.as_object().unwrap() {
            w[k] = v.clone();
        }
        w
    }

    #[test]
    fn windows_come_frontmost_first_with_stable_numbers_and_the_rest_left_out() {
        let report = serde_json::json!({
            "current_desktop": 1,
            "screens": [{"x": 0, "y": 0, "width": 1280, "height": 800}],
            "cursor": {"x": 640.4, "y": 399.6},
            "windows": [
                window("{2f68d0ff-5439-4930-bb54-ec780f31343c}", "below", 0, serde_json::json!({})),
                window("{c50fa38c-a561-42fc-bd30-35da8df8ec22}", "above", 3, serde_json::json!({"active": true, "x11": 4194316})),
                window("{00000001-0000-0000-0000-000000000000}", "panel", 5, serde_json::json!({"normal": false})),
                window("{00000002-0000-0000-0000-000000000000}", "elsewhere", 2, serde_json::json!({"desktop": 2})),
                window("{00000003-0000-0000-0000-000000000000}", "", 1, serde_json::json!({"frame": {"x": 0, "y": 0, "width": 0, "height": 5}})),
                // An XWayland window that names no process (Tk): listed, its process unknown.
                window("{00000004-0000-0000-0000-000000000000}", "tk form", -1, serde_json::json!({"pid": 0, "x11": 6291460})),
                // A Wayland surface without a process is no client's window.
                window("{00000005-0000-0000-0000-000000000000}", "nobody's", -2, serde_json::json!({"pid": -1})),
            ]
        });
        let report = Report::parse(&report.to_string()).unwrap();
        let listed = report.windows(None);
        let titles: Vec<&str> = listed.iter().map(|l| l.info.title.as_str()).collect();
        assert_eq!(titles, ["above", "elsewhere", "below", "tk form"]);
        assert_eq!(listed[3].info.id, WindowId { pid: 0, handle: 4 });
        assert_eq!(listed[3].info.pid_source, PidSource::Unknown);
        assert_eq!(listed[3].x11, Some(6291460));
        assert_eq!(listed[0].info.id, WindowId { pid: 42, handle: 0xc50f_a38c });
        assert!(listed[0].info.focused);
        assert_eq!(listed[0].x11, Some(4194316));
        assert!(listed[1].info.minimized, "another virtual desktop has no pixels on screen");
        assert_eq!(listed[2].info.geometry, Rect::new(10, 20, 300, 200));
        assert_eq!(report.monitors()[0].logical, Rect::new(0, 0, 1280, 800));
        assert_eq!(report.pointer(), Some(glovebox_model::Point { x: 640, y: 400 }));

        // Where the X server's record is reached, the Tk window is its client's.
        struct Server;
        impl XwaylandClients for Server {
            fn pid_of(&self, window: u32) -> Option<u32> {
                (window == 6291460).then_some(4242)
            }
        }
        let listed = report.windows(Some(&Server));
        assert_eq!(listed[3].info.id, WindowId { pid: 4242, handle: 4 });
        assert_eq!(listed[3].info.pid_source, PidSource::Server);
        assert_eq!(listed[0].info.id.pid, 42, "KWin's own record is kept");
        assert!(Report::parse("{\"windows\": 3}").is_err());
        let silent = r#"{"current_desktop": 1, "screens": [], "windows": []}"#;
        assert_eq!(Report::parse(silent).unwrap().pointer(), None, "an older script said nothing");
    }

    #[test]
    fn only_a_kwin_uuid_reaches_the_focus_script() {
        let uuid = "{c50fa38c-a561-42fc-bd30-35da8df8ec22}";
        assert!(focus_text(":1.4", uuid).unwrap().contains(&format!("== \"{uuid}\"")));
        for bad in ["{c50fa38c\"); evil(); (\"}", "c50fa38c-a561-42fc-bd30-35da8df8ec22", "{}"] {
            assert_eq!(focus_text(":1.4", bad), None, "{bad}");
        }
    }

    #[test]
    fn the_script_names_this_connection_and_nothing_is_left_to_fill() {
        let text = text(":1.42");
        assert!(text.contains("callDBus(\":1.42\", \"/dev/glovebox/KWinReport\""));
        assert!(!text.contains('{') || !text.contains("{BUS}"));
    }
}
