//! Window identity and description: the stable `pid/xid` id, the `pid/title`
//! form accepted as input, what a listing says of a window, and paging.

use crate::error::Refusal;
use crate::geometry::Rect;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Windows per page of a listing (DESIGN.md §5).
pub const WINDOW_PAGE_SIZE: usize = 30;

/// A window's stable identity: the owning process and the desktop's own
/// handle of the window, which only the backend that listed it interprets —
/// an X window id, sway's container id, Mutter's or KWin's window number;
/// an `HWND` on Windows and a `CGWindowID` on macOS, both 32 bits wide.
/// Written `pid/0x1e00003`; the pid is 0 when no process could be attributed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WindowId {
    /// The owning process; 0 when no process could be attributed.
    pub pid: u32,
    /// The backend's handle of the window; nothing above the backend reads
    /// anything into it but equality.
    pub handle: u32,
}

impl fmt::Display for WindowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{:#x}", self.pid, self.handle)
    }
}

impl Serialize for WindowId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for WindowId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        match text.parse::<WindowRef>() {
            Ok(WindowRef::Id(id)) => Ok(id),
            Ok(WindowRef::PidTitle { .. }) => {
                Err(serde::de::Error::custom("expected pid/xid, got pid/title"))
            }
            Err(e) => Err(serde::de::Error::custom(e.message)),
        }
    }
}

impl schemars::JsonSchema for WindowId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WindowId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]+/(0x[0-9a-fA-F]+|[0-9]+)$",
            "description": "Stable window id: owning pid, a slash, and the desktop's handle of the window (hexadecimal)."
        })
    }
}

/// How a caller names a window: the stable id, or the owning pid and the exact
/// current title (titles change, so the id is preferred).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowRef {
    /// The stable `pid/xid` id.
    Id(WindowId),
    /// The owning process and the window's exact current title.
    PidTitle {
        /// The owning process.
        pid: u32,
        /// The exact title, compared whole and case-sensitively.
        title: String,
    },
}

impl FromStr for WindowRef {
    type Err = Refusal;

    fn from_str(text: &str) -> Result<Self, Refusal> {
        let malformed = || {
            Refusal::invalid_argument(format!(
                "window id {text:?} is malformed: use pid/xid (e.g. 4280/0x1e00003) or pid/title as listed by `glovebox windows`"
            ))
        };
        let (pid, rest) = text.split_once('/').ok_or_else(malformed)?;
        if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        let pid: u32 = pid.parse().map_err(|_| malformed())?;
        if rest.is_empty() {
            return Err(malformed());
        }
        let xid = match rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Some(u32::from_str_radix(hex, 16).map_err(|_| malformed())?)
            }
            _ if rest.bytes().all(|b| b.is_ascii_digit()) => {
                Some(rest.parse().map_err(|_| malformed())?)
            }
            _ => None,
        };
        Ok(match xid {
            Some(0) => return Err(malformed()),
            Some(handle) => WindowRef::Id(WindowId { pid, handle }),
            None => WindowRef::PidTitle { pid, title: rest.to_owned() },
        })
    }
}

impl fmt::Display for WindowRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowRef::Id(id) => id.fmt(f),
            WindowRef::PidTitle { pid, title } => write!(f, "{pid}/{title}"),
        }
    }
}

impl WindowRef {
    /// The process the named window belongs to.
    pub fn pid(&self) -> u32 {
        match self {
            WindowRef::Id(id) => id.pid,
            WindowRef::PidTitle { pid, .. } => *pid,
        }
    }

    /// Finds the one window this reference names. A numeric tail that is no
    /// window id of that pid is tried as a title, since titles may be digits.
    pub fn resolve<'a>(&self, windows: &'a [WindowInfo]) -> Result<&'a WindowInfo, ResolveError> {
        match self {
            WindowRef::Id(id) => {
                if let Some(w) = windows.iter().find(|w| w.id == *id) {
                    return Ok(w);
                }
                let as_title = WindowRef::PidTitle { pid: id.pid, title: id.handle.to_string() };
                as_title.resolve(windows).map_err(|_| {
                    if let Some(w) = windows.iter().find(|w| w.id.handle == id.handle) {
                        ResolveError::Gone(format!("window {:#x} belongs to pid {}, not {}; its id is {}", id.handle, w.id.pid, id.pid, w.id))
                    } else {
                        ResolveError::Gone(format!("no window {id} on this desktop (closed, or never existed); list windows again"))
                    }
                })
            }
            WindowRef::PidTitle { pid, title } => {
                let matches: Vec<_> =
                    windows.iter().filter(|w| w.id.pid == *pid && w.title == *title).collect();
                match matches.as_slice() {
                    [one] => Ok(one),
                    [] => Err(ResolveError::Gone(format!(
                        "no window of pid {pid} is titled {title:?}; list windows again"
                    ))),
                    many => Err(ResolveError::Ambiguous(format!(
                        "{} windows of pid {pid} are titled {title:?}; name one by id: {}",
                        many.len(),
                        many.iter().map(|w| w.id.to_string()).collect::<Vec<_>>().join(", ")
                    ))),
                }
            }
        }
    }
}

/// Where a window's pid came from: the X server's own record of the client
/// (X-Resource), or the `_NET_WM_PID` property the client wrote about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PidSource {
    /// The X server's record of the client (X-Resource), which the client cannot forge.
    Server,
    /// The `_NET_WM_PID` property the client wrote about itself.
    ClientProperty,
    /// Neither source gave a pid.
    Unknown,
}

/// Whose desktop a window is on: `user` or `agent` (the agent display).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Desktop {
    /// The user's own desktop: input there never touches the user's pointer,
    /// keyboard focus or stacking order.
    #[default]
    User,
    /// A private desktop glovebox started and owns (DESIGN.md §5, the agent
    /// display): nothing of the user's is there, so it takes full input.
    Agent,
}

impl Desktop {
    /// Whether this is the user's own desktop (the default, left out of listings).
    pub fn is_user(&self) -> bool {
        *self == Desktop::User
    }
}

/// One top-level window as a listing reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WindowInfo {
    /// The window's stable id.
    pub id: WindowId,
    /// The application's name as the desktop lists it: WM_CLASS's class on
    /// X11 (e.g. `XTerm`), the app id on Wayland; on Windows and macOS the
    /// executable's or bundle's name.
    pub app: String,
    /// A finer name where the desktop has one (WM_CLASS's instance, e.g.
    /// `xterm`); else the same as `app`.
    pub instance: String,
    /// The current title; it may change while the window lives.
    pub title: String,
    /// Where the pid in `id` came from.
    pub pid_source: PidSource,
    /// Client area in root coordinates, without window-manager decorations.
    pub geometry: Rect,
    /// It is the active window, holding the keyboard focus.
    pub focused: bool,
    /// It is minimized or hidden, so none of it is on screen.
    pub minimized: bool,
    /// Omitted for the user's desktop.
    #[serde(default, skip_serializing_if = "Desktop::is_user")]
    pub desktop: Desktop,
}

/// One page of a window listing, frontmost window first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WindowPage {
    /// 1-based page number.
    pub page: usize,
    /// Pages the matching windows fill; at least 1, even with no window.
    pub pages: usize,
    /// Windows matching the query on all pages.
    pub total: usize,
    /// This page's windows, at most [`WINDOW_PAGE_SIZE`], frontmost first.
    pub windows: Vec<WindowInfo>,
}

impl WindowPage {
    /// Filters `windows` (kept in their order) by a case-insensitive query on
    /// app, instance, title and id, and cuts page `page` (1-based) of 30.
    pub fn paginate(
        windows: Vec<WindowInfo>,
        query: Option<&str>,
        page: usize,
    ) -> Result<WindowPage, Refusal> {
        if page == 0 {
            return Err(Refusal::invalid_argument("page numbers start at 1"));
        }
        let needle = query.map(str::to_lowercase).filter(|q| !q.trim().is_empty());
        let matching: Vec<WindowInfo> = match needle {
            None => windows,
            Some(q) => windows
                .into_iter()
                .filter(|w| {
                    [&w.app, &w.instance, &w.title, &w.id.to_string()]
                        .iter()
                        .any(|field| field.to_lowercase().contains(&q))
                })
                .collect(),
        };
        let total = matching.len();
        let pages = total.div_ceil(WINDOW_PAGE_SIZE).max(1);
        if page > pages {
            return Err(Refusal::invalid_argument(format!(
                "page {page} does not exist: {total} windows fill {pages} page(s)"
            )));
        }
        let windows = matching
            .into_iter()
            .skip((page - 1) * WINDOW_PAGE_SIZE)
            .take(WINDOW_PAGE_SIZE)
            .collect();
        Ok(WindowPage { page, pages, total, windows })
    }
}

/// Why a [`WindowRef`] names no single window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No window matches (closed, or never existed).
    Gone(String),
    /// Several windows match a `pid/title`.
    Ambiguous(String),
}

impl From<ResolveError> for Refusal {
    fn from(e: ResolveError) -> Refusal {
        match e {
            ResolveError::Gone(why) => Refusal::target_gone(why),
            ResolveError::Ambiguous(why) => Refusal::invalid_argument(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn window(pid: u32, handle: u32, title: &str) -> WindowInfo {
        WindowInfo {
            id: WindowId { pid, handle },
            app: "App".into(),
            instance: "app".into(),
            title: title.into(),
            pid_source: PidSource::Server,
            geometry: Rect::new(0, 0, 10, 10),
            focused: false,
            minimized: false,
            desktop: Desktop::User,
        }
    }

    #[test]
    fn ids_print_and_parse_round_trip() {
        let id = WindowId { pid: 4280, handle: 0x1e00003 };
        assert_eq!(id.to_string(), "4280/0x1e00003");
        assert_eq!("4280/0x1e00003".parse::<WindowRef>().unwrap(), WindowRef::Id(id));
        assert_eq!("4280/31457283".parse::<WindowRef>().unwrap(), WindowRef::Id(id));
        assert_eq!(
            "4280/Mail — Inbox".parse::<WindowRef>().unwrap(),
            WindowRef::PidTitle { pid: 4280, title: "Mail — Inbox".into() }
        );
        assert_eq!(
            "7/a/b".parse::<WindowRef>().unwrap(),
            WindowRef::PidTitle { pid: 7, title: "a/b".into() }
        );
    }

    #[test]
    fn malformed_ids_are_invalid_arguments() {
        for bad in [
            "",
            "/",
            "12",
            "12/",
            "/0x5",
            "x/0x5",
            "-1/0x5",
            "99999999999/0x5",
            "1/0x100000000",
            "1/0",
            "1/4294967296",
        ] {
            let err = bad.parse::<WindowRef>().map(|r| r.to_string()).expect_err(bad);
            assert_eq!(err.code, ErrorCode::InvalidArgument, "{bad:?}");
        }
    }

    #[test]
    fn resolve_by_id_title_and_reports_unknown_ambiguous_and_wrong_pid() {
        let list = vec![
            window(1, 0x10, "one"),
            window(1, 0x11, "same"),
            window(1, 0x12, "same"),
            window(2, 0x20, "42"),
        ];
        assert_eq!("1/0x10".parse::<WindowRef>().unwrap().resolve(&list).unwrap().title, "one");
        assert_eq!("1/one".parse::<WindowRef>().unwrap().resolve(&list).unwrap().id.handle, 0x10);
        assert_eq!("2/42".parse::<WindowRef>().unwrap().resolve(&list).unwrap().id.handle, 0x20);
        let ambiguous =
            Refusal::from("1/same".parse::<WindowRef>().unwrap().resolve(&list).unwrap_err());
        assert_eq!(ambiguous.code, ErrorCode::InvalidArgument);
        assert!(ambiguous.message.contains("1/0x11") && ambiguous.message.contains("1/0x12"));
        let gone =
            Refusal::from("1/0x99".parse::<WindowRef>().unwrap().resolve(&list).unwrap_err());
        assert_eq!(gone.code, ErrorCode::TargetGone);
        let wrong_pid =
            Refusal::from("3/0x10".parse::<WindowRef>().unwrap().resolve(&list).unwrap_err());
        assert_eq!(wrong_pid.code, ErrorCode::TargetGone);
        assert!(wrong_pid.message.contains("1/0x10"));
    }

    #[test]
    fn pages_hold_thirty_windows_and_out_of_range_pages_are_refused() {
        let list: Vec<_> = (0..65).map(|i| window(1, 0x100 + i, &format!("w{i}"))).collect();
        let first = WindowPage::paginate(list.clone(), None, 1).unwrap();
        assert_eq!((first.page, first.pages, first.total, first.windows.len()), (1, 3, 65, 30));
        let last = WindowPage::paginate(list.clone(), None, 3).unwrap();
        assert_eq!(last.windows.len(), 5);
        assert_eq!(last.windows[0].title, "w60");
        assert_eq!(
            WindowPage::paginate(list.clone(), None, 4).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(
            WindowPage::paginate(list.clone(), None, 0).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        let found = WindowPage::paginate(list, Some("W6"), 1).unwrap();
        assert_eq!(found.total, 6); // w6, w60..w64
        let none = WindowPage::paginate(vec![], None, 1).unwrap();
        assert_eq!((none.total, none.pages, none.windows.len()), (0, 1, 0));
    }
}

/// Which display server glovebox drives (`backend` in the configuration).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DisplayBackend {
    /// Wayland when the session is one (`WAYLAND_DISPLAY` set, and
    /// `XDG_SESSION_TYPE=wayland` or no `DISPLAY`), else X11.
    #[default]
    Auto,
    /// The X server at `DISPLAY` (XWayland's windows too, on a Wayland desktop).
    X11,
    /// The Wayland compositor at `WAYLAND_DISPLAY`: semantic input only.
    Wayland,
}

impl DisplayBackend {
    /// `Auto` decided from an environment's `WAYLAND_DISPLAY`,
    /// `XDG_SESSION_TYPE` and `DISPLAY`.
    pub fn decide(
        self,
        wayland_display: Option<&str>,
        session_type: Option<&str>,
        display: Option<&str>,
    ) -> DisplayBackend {
        let set = |v: Option<&str>| v.is_some_and(|v| !v.is_empty());
        match self {
            DisplayBackend::Auto
                if set(wayland_display) && (session_type == Some("wayland") || !set(display)) =>
            {
                DisplayBackend::Wayland
            }
            DisplayBackend::Auto => DisplayBackend::X11,
            chosen => chosen,
        }
    }
}

#[cfg(test)]
mod display_backend_tests {
    use super::DisplayBackend::*;

    #[test]
    fn auto_is_wayland_only_in_a_wayland_session() {
        assert_eq!(Auto.decide(Some("wayland-1"), Some("wayland"), Some(":0")), Wayland);
        assert_eq!(Auto.decide(Some("wayland-1"), None, None), Wayland);
        assert_eq!(Auto.decide(Some("wayland-1"), Some("x11"), Some(":0")), X11);
        assert_eq!(Auto.decide(None, Some("wayland"), Some(":0")), X11);
        assert_eq!(X11.decide(Some("wayland-1"), Some("wayland"), None), X11);
        assert_eq!(Wayland.decide(None, None, Some(":0")), Wayland);
    }
}
