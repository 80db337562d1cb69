//! Why a window has no accessibility tree, and the one thing that gives it
//! one. A toolkit that exports nothing says nothing on the bus, so the
//! toolkit is read from the libraries its process has mapped
//! (`/proc/PID/maps`): a person's browser started before any agent, with
//! accessibility off, looks the same on the bus as xterm, but only one of
//! them is fixed by a restart.

use glovebox_model::{AccessibilityTree, Role};

/// The toolkit of a process that exports no tree, as far as its mapped
/// libraries tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DarkToolkit {
    /// Chromium, Chrome or an Electron app (VS Code, Slack, Discord …).
    Chromium,
    /// Firefox or Thunderbird (Gecko).
    Gecko,
    /// Qt 5 or 6.
    Qt,
    /// GTK 3 or 4 with its accessibility bridge turned off.
    Gtk,
    /// Tk (Tcl/Tk, Python's tkinter): no AT-SPI support.
    Tk,
    /// Wine: Windows programs, no AT-SPI support.
    Wine,
    /// SDL: games and media players, no AT-SPI support.
    Sdl,
    /// The X Athena widgets (xterm, xcalc …): no AT-SPI support.
    Xaw,
}

impl DarkToolkit {
    /// The toolkit of process `pid`, or `None` when its libraries are not
    /// readable or name none of these.
    pub fn of_process(pid: u32) -> Option<DarkToolkit> {
        let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        let exe = exe.as_ref().and_then(|e| e.file_name()).and_then(|n| n.to_str()).unwrap_or("");
        DarkToolkit::from_mapped(
            exe,
            maps.lines().filter_map(|line| line.split_whitespace().nth(5)),
        )
    }

    /// The toolkit among the mapped files' paths of a program named `exe`.
    /// Browsers map GTK too (for their dialogs), so they are looked for first.
    pub fn from_mapped<'a>(exe: &str, paths: impl Iterator<Item = &'a str>) -> Option<DarkToolkit> {
        if exe.starts_with("wine") {
            return Some(DarkToolkit::Wine);
        }
        let names: Vec<&str> = paths.filter_map(|p| p.rsplit('/').next()).collect();
        let maps = |prefix: &str| names.iter().any(|n| n.starts_with(prefix));
        let found = [
            (DarkToolkit::Chromium, maps("icudtl.dat") || maps("v8_context_snapshot")),
            (DarkToolkit::Gecko, maps("libxul.so")),
            (DarkToolkit::Wine, maps("ntdll.so") || maps("libwine.so")),
            (DarkToolkit::Qt, maps("libQt5Gui.so") || maps("libQt6Gui.so")),
            (DarkToolkit::Tk, maps("libtk8")),
            (DarkToolkit::Sdl, maps("libSDL2") || maps("libSDL3")),
            (DarkToolkit::Gtk, maps("libgtk-3.so") || maps("libgtk-4.so")),
            (DarkToolkit::Xaw, maps("libXaw")),
        ];
        found.into_iter().find(|(_, mapped)| *mapped).map(|(toolkit, _)| toolkit)
    }

    /// Why `app` exposes no tree, and what gives it one.
    pub fn reason(toolkit: Option<DarkToolkit>, app: &str, pid: u32) -> String {
        format!("{app} (pid {pid}) exposes no accessibility: {}", DarkToolkit::why(toolkit, app))
    }

    /// Why a toolkit gives `app` no tree, and the one fix.
    fn why(toolkit: Option<DarkToolkit>, app: &str) -> String {
        let later = "`glovebox setup accessibility` makes every later start do it, and open_app starts applications so; until then only its pixels can be read";
        match toolkit {
            Some(DarkToolkit::Chromium) => format!(
                "Chromium and Electron build a page's tree only when started with it on; quit {app} and start it with --force-renderer-accessibility ({later})"
            ),
            Some(DarkToolkit::Gecko) => format!(
                "Firefox turns its accessibility on only as it starts; quit {app} and start it with GNOME_ACCESSIBILITY=1 in its environment ({later})"
            ),
            Some(DarkToolkit::Qt) => format!(
                "Qt exports its tree only when told to as it starts; restart {app} with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 in its environment ({later})"
            ),
            Some(DarkToolkit::Gtk) => format!(
                "GTK's accessibility bridge is off in it (NO_AT_BRIDGE=1 or GTK_A11Y=none in its environment); restart {app} without them; until then only its pixels can be read"
            ),
            Some(DarkToolkit::Tk) => "Tk has no AT-SPI support, so only its pixels can be read".into(),
            Some(DarkToolkit::Wine) => "Wine has no AT-SPI support, so only its pixels can be read".into(),
            Some(DarkToolkit::Sdl) => "SDL has no AT-SPI support, so only its pixels can be read".into(),
            Some(DarkToolkit::Xaw) => {
                "the X Athena widgets have no AT-SPI support, so only its pixels can be read".into()
            }
            None => "its toolkit has no AT-SPI support or it is turned off".into(),
        }
    }
}

/// Why the tree of a Chromium or Electron window holds no page, when it
/// does not: Chromium registers its frame once `IsEnabled` turns on after
/// it started, yet builds no page tree unless started with its switch, so
/// such a tree is frames and panels only. `None` for any other tree: the
/// toolkit is read (from `/proc`) only for a tree of nothing but containers,
/// so an ordinary window's observation costs nothing more.
pub fn bare_browser_frame(tree: &AccessibilityTree, app: &str) -> Option<String> {
    let root = tree.root.as_ref()?;
    let container =
        |role: Role| matches!(role, Role::Frame | Role::Window | Role::Panel | Role::Filler);
    if !root.walk().all(|e| container(e.role)) {
        return None;
    }
    (DarkToolkit::of_process(tree.window.pid) == Some(DarkToolkit::Chromium)).then(|| {
        format!(
            "{app} (pid {}) shows its frame but no page: {}",
            tree.window.pid,
            DarkToolkit::why(Some(DarkToolkit::Chromium), app)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(exe: &str, paths: &[&str]) -> Option<DarkToolkit> {
        DarkToolkit::from_mapped(exe, paths.iter().copied())
    }

    #[test]
    fn the_toolkit_is_read_from_the_mapped_libraries_browsers_first() {
        let gtk = "/usr/lib/x86_64-linux-gnu/libgtk-3.so.0.2406.32";
        assert_eq!(
            of("chromium", &["/usr/lib/chromium/icudtl.dat", gtk]),
            Some(DarkToolkit::Chromium)
        );
        assert_eq!(
            of("code", &["/usr/share/code/v8_context_snapshot.bin"]),
            Some(DarkToolkit::Chromium)
        );
        assert_eq!(
            of("firefox-esr", &["/usr/lib/firefox-esr/libxul.so", gtk]),
            Some(DarkToolkit::Gecko)
        );
        assert_eq!(
            of("featherpad", &["/usr/lib/x86_64-linux-gnu/libQt5Gui.so.5.15.8"]),
            Some(DarkToolkit::Qt)
        );
        assert_eq!(
            of(
                "python3.11",
                &["/usr/lib/x86_64-linux-gnu/libtk8.6.so", "/usr/lib/x86_64-linux-gnu/libX11.so.6"]
            ),
            Some(DarkToolkit::Tk)
        );
        assert_eq!(
            of("xterm", &["/usr/lib/x86_64-linux-gnu/libXaw.so.7.0.0"]),
            Some(DarkToolkit::Xaw)
        );
        assert_eq!(of("wine64-preloader", &[]), Some(DarkToolkit::Wine));
        assert_eq!(of("mousepad", &[gtk]), Some(DarkToolkit::Gtk));
        assert_eq!(of("xclock", &["/usr/lib/x86_64-linux-gnu/libX11.so.6"]), None);
    }

    #[test]
    fn the_reason_names_the_app_why_and_the_one_fix() {
        let chromium = DarkToolkit::reason(Some(DarkToolkit::Chromium), "Chromium", 42);
        assert!(chromium.starts_with("Chromium (pid 42) exposes no accessibility: "), "{chromium}");
        assert!(chromium.contains("start it with --force-renderer-accessibility"), "{chromium}");
        let tk = DarkToolkit::reason(Some(DarkToolkit::Tk), "Tk", 7);
        assert!(tk.contains("Tk has no AT-SPI support") && !tk.contains("restart"), "{tk}");
    }
}
