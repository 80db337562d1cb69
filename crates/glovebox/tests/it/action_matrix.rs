//! The action matrix: every input action × addressing (element, point) ×
//! delivery (background, foreground) × application (GTK3 fixture, GTK4
//! fixture, a terminal fixture in xterm; in the background also the Qt 5
//! fixture and the web fixture page in Chromium and in Firefox ESR), each
//! cell run through the host on a real headless desktop and judged by the
//! target application's own report of its state. The share of cells
//! delivered in the background per application ends the table.
//!
//! The expected outcome of every cell is declared in [`MATRIX`]: delivered
//! (the fixture must show the change) or an exact refusal code (the fixture
//! must show no change). Background cells also check that the real pointer,
//! the focused window, the stacking order and a sentinel window the user
//! works in are untouched; foreground cells check that pointer, focus and
//! stacking came back. The table of results is printed at the end and
//! written to `target/action-matrix.md` (copied to `docs/action-matrix.md`).
#![cfg(target_os = "linux")]

use glovebox_model::Role;
use glovebox_testkit::desktop::Desktop;

use glovebox_host::{ActRequest, Host, Observation};
use glovebox_model::{
    Action, Button, DeliveryMode, ErrorCode, ModifierKey, Point, Refusal, Target, WindowId,
    WindowRef,
};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture, FixtureKind};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

mod cells;
mod served;
pub(crate) use cells::shows;
use cells::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum App {
    Gtk3,
    Gtk4,
    XTerm,
    /// The PyQt5 fixture.
    Qt5,
    /// The web fixture page in Chromium.
    Chromium,
    /// The web fixture page in Firefox ESR.
    Firefox,
    /// The GTK4 fixture on GTK 4.18, from a Debian 13 root (bubblewrap).
    Gtk4Current,
    /// The web fixture page in Chromium started without its accessibility
    /// switch: its page is a bare frame, read from its pixels.
    ChromiumSeen,
    /// The web fixture page in Firefox with "Prevent accessibility
    /// services" ticked: no tree at all, read from its pixels.
    FirefoxSeen,
    /// The Tk fixture (`testapps/fixture_tk_matrix.py`): Tk has no
    /// accessibility at all, so it is read from its pixels.
    Tk,
    /// The Win32 matrix fixture (`testapps/windows/matrix.c`) under Wine,
    /// driven through glovebox.exe: its column is `windows_wine::matrix`'s.
    Win32,
}

impl App {
    fn label(self) -> &'static str {
        match self {
            App::Gtk3 => "GTK3",
            App::Gtk4 => "GTK4",
            App::XTerm => "xterm",
            App::Qt5 => "Qt 5",
            App::Chromium => "Chromium",
            App::Firefox => "Firefox",
            App::Gtk4Current => "GTK 4.18",
            App::ChromiumSeen => "Chromium (accessibility off, seen)",
            App::FirefoxSeen => "Firefox (accessibility off, seen)",
            App::Tk => "Tk (seen)",
            App::Win32 => "Win32 (Wine)",
        }
    }

    fn is_web(self) -> bool {
        matches!(self, App::Chromium | App::Firefox | App::ChromiumSeen | App::FirefoxSeen)
    }

    /// Addressed by the elements seen in its pixels: it reports no tree of its page.
    fn is_seen(self) -> bool {
        matches!(self, App::ChromiumSeen | App::FirefoxSeen | App::Tk)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// Left click on the Submit button (xterm: anywhere).
    Click,
    RightClick,
    MiddleClick,
    DoubleClick,
    /// Hover over the pad.
    Move,
    /// From the pad's left part to its right part.
    Drag,
    /// Two wheel steps down over the pad.
    Scroll,
    /// A left click on the pad with ctrl held (add to a selection).
    CtrlClick,
    /// Two wheel steps down over the pad with shift held.
    ShiftScroll,
    /// The pad drag with alt held.
    AltDrag,
    /// ASCII text at the caret of the focused field.
    TypeAscii,
    /// Text no US key produces (accents, CJK, emoji).
    TypeUnicode,
    /// `ctrl+a`.
    Key,
    /// Replace the Name field's text.
    SetValue,
    /// Choose "Blue" in the colour combo.
    Select,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Addressing {
    Element,
    Point,
    /// Typing and keys go to the focused element; they take no target.
    Focus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect {
    Delivered,
    Refused(ErrorCode),
}

use Addressing::{Element as E, Focus as F, Point as P};
use Expect::{Delivered as D, Refused as R};

const BG: ErrorCode = ErrorCode::BackgroundUnavailable;
const NO_EL: ErrorCode = ErrorCode::ElementNotFound;
const NO_ACT: ErrorCode = ErrorCode::ElementNotActionable;

/// Expected outcome per cell: GTK3 background, GTK3 foreground, GTK4
/// background, GTK4 foreground, xterm background, xterm foreground, then
/// Qt 5, Chromium and Firefox in the background (see docs/action-matrix.md
/// for why each refusal is one: Qt and Gecko read the wheel only through
/// XInput2, web fields take text only as keys, Gecko's drop-down would
/// change without telling the page).
/// xterm exposes no accessibility tree, so its element cells have no ids
/// (`ELEMENT_NOT_FOUND`); GTK4 ignores synthetic X events, so only
/// AT-SPI routes reach it in the background. Text no US key produces goes
/// in only through AT-SPI, which needs a focused field: GTK3 reports none
/// in an inactive window, so Unicode typing into a background GTK3 window
/// is refused (set_value carries any Unicode). Held modifiers travel in
/// synthetic events' state; xterm keeps ctrl and shift with a pointer
/// button for itself, and the window manager owns alt with the real
/// pointer's buttons (openbox moves the window), so those are refused.
#[rustfmt::skip]
const MATRIX: &[(Act, Addressing, [Expect; 19])] = &[
    //                           GTK3 bg    GTK3 fg    GTK4 bg    GTK4 fg    xterm bg   xterm fg   Qt5 bg     Chromium   Firefox    | on the agent display: GTK3, GTK4, Qt5, Chromium, Firefox | GTK 4.18: bg, agent display | read from pixels: Chromium and Firefox with accessibility off, Tk
    (Act::Click,        E, [D,         D,         D,         D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         D,         D, D,         D, D]),
    (Act::Click,        P, [D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D, D,         D, D]),
    (Act::RightClick,   E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::RightClick,   P, [D,         D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::MiddleClick,  E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::MiddleClick,  P, [D,         D,         R(BG),     D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::DoubleClick,  E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::DoubleClick,  P, [D,         D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::Move,         E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::Move,         P, [D,         D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::Drag,         E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::Drag,         P, [D,         D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::Scroll,       E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  R(BG),     D,         R(BG),     D,         D,         D,         D,         D,         R(BG),     D, D,         R(BG), D]),
    (Act::Scroll,       P, [D,         D,         R(BG),     D,         D,         D,         R(BG),     D,         R(BG),     D,         D,         D,         D,         D,         R(BG),     D, D,         R(BG), D]),
    (Act::CtrlClick,    E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::CtrlClick,    P, [D,         D,         R(BG),     D,         R(NO_ACT), R(NO_ACT), D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::ShiftScroll,  E, [D,         D,         R(BG),     D,         R(NO_EL),  R(NO_EL),  R(BG),     D,         R(BG),     D,         D,         D,         D,         D,         R(BG),     D, D,         R(BG), D]),
    (Act::ShiftScroll,  P, [D,         D,         R(BG),     D,         R(NO_ACT), R(NO_ACT), R(BG),     D,         R(BG),     D,         D,         D,         D,         D,         R(BG),     D, D,         R(BG), D]),
    (Act::AltDrag,      E, [D,         R(NO_ACT), R(BG),     R(NO_ACT), R(NO_EL),  R(NO_EL),  D,         D,         D,         D,         R(NO_ACT), D,         D,         D,         R(BG),     R(NO_ACT), D,         D, D]),
    (Act::AltDrag,      P, [D,         R(NO_ACT), R(BG),     R(NO_ACT), D,         R(NO_ACT), D,         D,         D,         D,         R(NO_ACT), D,         D,         D,         R(BG),     R(NO_ACT), D,         D, D]),
    (Act::TypeAscii,    F, [D,         D,         D,         D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         R(NO_ACT), D, D,         D, D]),
    (Act::TypeUnicode,  F, [D,         D,         D,         D,         R(BG),     D,         D,         R(BG),     D,         D,         D,         D,         R(BG),     D,         R(NO_ACT), D, R(BG),     D, D]),
    (Act::Key,          F, [D,         D,         R(BG),     D,         R(BG),     D,         D,         D,         D,         D,         D,         D,         D,         D,         R(BG),     D, D,         D, D]),
    (Act::SetValue,     E, [D,         D,         D,         D,         R(NO_EL),  R(NO_EL),  D,         R(BG),     D,         D,         D,         D,         R(BG),     D,         D,         D, R(NO_ACT), R(NO_ACT), R(NO_ACT)]),
    (Act::SetValue,     P, [D,         D,         D,         D,         R(BG),     R(BG),     D,         R(BG),     D,         D,         D,         D,         R(BG),     D,         D,         D, R(BG),     R(BG), R(BG)]),
    (Act::Select,       E, [D,         D,         R(BG),     R(BG),     R(NO_EL),  R(NO_EL),  R(BG),     R(BG),     R(BG),     D,         R(BG),     R(BG),     R(BG),     R(BG),     R(BG),     R(BG), R(NO_ACT), R(NO_ACT), R(NO_ACT)]),
    (Act::Select,       P, [D,         D,         R(BG),     R(BG),     R(BG),     R(BG),     R(BG),     R(BG),     R(BG),     D,         R(BG),     R(BG),     R(BG),     R(BG),     R(BG),     R(BG), R(BG),     R(BG), R(BG)]),
];

/// Where and how a column's actions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    /// The user's desktop, background routes only.
    Background,
    /// The user's desktop, the real pointer and keyboard put back after.
    Foreground,
    /// The app runs on the agent display; the call asks for background
    /// and the host reaches it with that display's own input where needed.
    AgentDisplay,
}

impl Column {
    fn mode(self) -> DeliveryMode {
        match self {
            Column::Foreground => DeliveryMode::Foreground,
            Column::Background | Column::AgentDisplay => DeliveryMode::Background,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Column::Background => "background",
            Column::Foreground => "foreground",
            Column::AgentDisplay => "agent display",
        }
    }
}

const APPS: [(App, Column); 19] = [
    (App::Gtk3, Column::Background),
    (App::Gtk3, Column::Foreground),
    (App::Gtk4, Column::Background),
    (App::Gtk4, Column::Foreground),
    (App::XTerm, Column::Background),
    (App::XTerm, Column::Foreground),
    (App::Qt5, Column::Background),
    (App::Chromium, Column::Background),
    (App::Firefox, Column::Background),
    (App::Gtk3, Column::AgentDisplay),
    (App::Gtk4, Column::AgentDisplay),
    (App::Qt5, Column::AgentDisplay),
    (App::Chromium, Column::AgentDisplay),
    (App::Firefox, Column::AgentDisplay),
    (App::Gtk4Current, Column::Background),
    (App::Gtk4Current, Column::AgentDisplay),
    (App::ChromiumSeen, Column::Background),
    (App::FirefoxSeen, Column::Background),
    (App::Tk, Column::Background),
];

/// The toolkits whose share the matrix publishes (xterm has no
/// accessibility); the goal is over the first five, GTK 4.18 is shown beside.
const TOOLKITS: [App; 6] =
    [App::Gtk3, App::Gtk4, App::Qt5, App::Chromium, App::Firefox, App::Gtk4Current];
const FIVE: usize = 5;

pub(crate) const TYPED_ASCII: &str = "hello world";
pub(crate) const TYPED_UNICODE: &str = "héllo 日本 🦀";
pub(crate) const NEW_NAME: &str = "Grace Hopper ✓";

struct Stage {
    host: Host,
    sentinel: Fixture,
    sandbox: Sandbox,
    desktops: std::sync::Arc<glovebox_linux::agent::Desktops>,
}

struct Target_ {
    app: App,
    on_agent_display: bool,
    fixture: Fixture,
    window: WindowId,
}

impl Stage {
    fn desktop(&self) -> Desktop {
        Desktop::now(&self.host, &self.sandbox, &self.sentinel)
    }

    fn observe(&self, target: &Target_) -> Observation {
        let minimum = if target.app == App::XTerm || target.app.is_seen() { 0 } else { 8 };
        // A page is there once it is laid out: its button has a place on screen.
        let laid_out = |o: &Observation| {
            !target.app.is_web()
                || (target.app.is_seen()
                    && ["Submit", "Pad"].iter().all(|t| o.tree.seen.iter().any(|e| e.text == *t)))
                || o.tree
                    .root
                    .as_ref()
                    .is_some_and(|r| r.walk().any(|e| e.name == "Submit" && e.bounds.is_some()))
        };
        let mut last;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.host.observe(Some(&WindowRef::Id(target.window)), false) {
                Ok(o) if o.tree.node_count >= minimum && laid_out(&o) => return o,
                Ok(o) => last = format!("{} nodes: {}", o.tree.node_count, o.tree.render_text()),
                Err(e) => last = e.to_string(),
            }
            assert!(Instant::now() < deadline, "no tree of {:?}: {last}", target.app);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn launch(&self, app: App) -> Target_ {
        let (kind, args): (FixtureKind, &[&str]) = match app {
            // Without a password field: keys into an inactive window whose
            // focus is unknown are refused where one exists (see input_x11.rs).
            App::Gtk3 => {
                (FixtureKind::Gtk3, &["--x", "20", "--y", "20", "--rows", "20", "--no-password"])
            }
            App::Gtk4 => (FixtureKind::Gtk4, &["--no-password"]),
            App::XTerm => (FixtureKind::XTerm, &[]),
            App::Qt5 => (FixtureKind::Qt5, &["--x", "560", "--y", "600", "--width", "400"]),
            App::Chromium => (
                FixtureKind::Chromium,
                &["--x", "980", "--y", "0", "--width", "900", "--height", "520"],
            ),
            App::Firefox => (
                FixtureKind::Firefox,
                &["--x", "980", "--y", "540", "--width", "900", "--height", "520"],
            ),
            App::Gtk4Current => (FixtureKind::Gtk4, &["--no-password"]),
            // Beside their accessible twins: the lower halves of the screen's left side.
            App::ChromiumSeen => (
                FixtureKind::Chromium,
                &[
                    "--x",
                    "0",
                    "--y",
                    "440",
                    "--width",
                    "640",
                    "--height",
                    "620",
                    "--accessibility",
                    "off",
                ],
            ),
            // Above the page of the accessible Chromium, clear of the sentinel.
            App::Tk => (FixtureKind::Tk, &["--x", "1450", "--y", "0"]),
            App::Win32 => unreachable!("the Win32 column runs under Wine: windows_wine::matrix"),
            App::FirefoxSeen => (
                FixtureKind::Firefox,
                &[
                    "--x",
                    "650",
                    "--y",
                    "440",
                    "--width",
                    "640",
                    "--height",
                    "620",
                    "--accessibility",
                    "off",
                ],
            ),
        };
        let title = unique_title(&format!("Matrix {app:?}"));
        let fixture = match app {
            App::Gtk4Current => {
                Fixture::launch_kind(&current_gtk4(&self.sandbox), kind, &title, args)
            }
            _ => Fixture::launch_kind(&self.sandbox, kind, &title, args),
        };
        self.target(app, fixture, false)
    }

    /// The fixture of `app` started on the agent display (its own desktop:
    /// the windows overlap there, and full input raises the one it acts in).
    fn launch_on_agent_display(&self, app: App) -> Target_ {
        let (kind, args): (FixtureKind, &[&str]) = match app {
            App::Gtk3 => {
                (FixtureKind::Gtk3, &["--x", "0", "--y", "0", "--rows", "20", "--no-password"])
            }
            App::Gtk4 => (FixtureKind::Gtk4, &["--no-password"]),
            App::Qt5 => (FixtureKind::Qt5, &["--x", "300", "--y", "100", "--width", "400"]),
            App::Chromium => (
                FixtureKind::Chromium,
                &["--x", "0", "--y", "0", "--width", "900", "--height", "520"],
            ),
            App::Firefox => (
                FixtureKind::Firefox,
                &["--x", "300", "--y", "260", "--width", "900", "--height", "520"],
            ),
            App::Gtk4Current => (FixtureKind::Gtk4, &["--no-password"]),
            App::XTerm | App::ChromiumSeen | App::FirefoxSeen | App::Tk | App::Win32 => {
                unreachable!("{app:?} has no agent display column")
            }
        };
        let agent = self.desktops.agent().expect("the agent display starts");
        let title = unique_title(&format!("Matrix agent {app:?}"));
        let fixture = match app {
            App::Gtk4Current => {
                Fixture::launch_kind(&current_gtk4(agent.sandbox()), kind, &title, args)
            }
            _ => Fixture::launch_kind(agent.sandbox(), kind, &title, args),
        };
        self.target(app, fixture, true)
    }

    fn target(&self, app: App, fixture: Fixture, on_agent_display: bool) -> Target_ {
        let window = wait_until("target listed", || {
            self.host
                .list_windows(Some(&fixture.title), 1)
                .ok()?
                .windows
                .into_iter()
                .next()
                .map(|w| w.window)
        });
        assert_eq!(
            window.desktop.is_user(),
            !on_agent_display,
            "{app:?} listed on the wrong desktop: {window:?}"
        );
        Target_ { app, on_agent_display, fixture, window: window.id }
    }
}

/// `desktop` with programs from the Debian 13 root (GTK 4.18); the
/// repository is bound in for the fixture scripts.
fn current_gtk4(desktop: &Sandbox) -> glovebox_sandbox::InRoot<'_, Sandbox> {
    let root = std::path::PathBuf::from(glovebox_sandbox::CURRENT_GTK4_ROOT);
    assert!(
        glovebox_sandbox::InRoot::<Sandbox>::available(&root),
        "no GTK 4.18 root at {} (`.ci/install-deps` builds it)",
        root.display()
    );
    let repo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    glovebox_sandbox::InRoot { desktop, root, binds: vec![repo] }
}

/// The desktop after an action. Background actions must leave it untouched
/// at once. Foreground ones restore the X focus before returning, but the
/// user's toolkit learns of it from its own event queue a moment later (the
/// sentinel's GTK `is-active` lags the X focus), so they get a short grace
/// for the desktop to read as it did; a restoration that never happens
/// still fails.
fn settled_desktop(stage: &Stage, before: &Desktop, column: Column) -> Desktop {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let now = stage.desktop();
        if column != Column::Foreground || now == *before || Instant::now() > deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The cell's verdict: `Ok(outcome)` when it behaved as declared, or why not.
fn run_cell(
    stage: &Stage,
    target: &Target_,
    act: Act,
    addressing: Addressing,
    column: Column,
    expect: Expect,
) -> Result<String, String> {
    let mode = column.mode();
    if target.app == App::Tk {
        // Tk takes two presses within its double-click time (500 ms) for a double
        // click, as it would from a person: the cells are that far apart.
        std::thread::sleep(Duration::from_millis(600));
    }
    reset(target, act);
    let seen = stage.observe(target);
    let state_before = target.fixture.state().unwrap();
    let action = action_for(act, addressing, target.app, mode, &seen, &state_before);
    let desktop_before = stage.desktop();
    let budget_before = seen.grant.budget_left;
    let result: Result<glovebox_host::ActOutcome, Refusal> =
        stage.host.perform(ActRequest::new(seen.frame.id, action.clone()).mode(mode));
    let desktop_after = settled_desktop(stage, &desktop_before, column);
    if desktop_after != desktop_before {
        return Err(format!(
            "the user's desktop changed:\n before {desktop_before:?}\n after  {desktop_after:?}"
        ));
    }
    judge(expect, result, target, act, &state_before, || {
        if stage.host.grant_status().map(|g| g.budget_left) != Some(budget_before) {
            return Err("a refused action consumed budget".into());
        }
        Ok(())
    })
}

#[test]
fn action_matrix() {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let (host, desktops) = glovebox_testkit::host(&sandbox, "matrix")
        .shared_runtime()
        .configure(|config| {
            config.allow_foreground = true;
            config.budget = 10_000;
        })
        .open_with_agent_display();
    let sentinel = Fixture::launch(
        &sandbox,
        &unique_title("Matrix sentinel"),
        &["--x", "1300", "--y", "500", "--rows", "5"],
    );
    let stage = Stage { host, sentinel, sandbox, desktops };
    // `MATRIX_ONLY=agent` (or another column label) runs only matching columns, to iterate on one.
    let only = std::env::var("MATRIX_ONLY").ok().filter(|o| !o.is_empty());
    let runs = |app: App, column: Column| {
        only.as_ref().is_none_or(|o| {
            format!("{app:?} {}", column.label()).to_lowercase().contains(&o.to_lowercase())
        })
    };
    // Two passes: the windows read from their pixels run once the others are closed, so no
    // more than four browsers share the machine's two cores at a time.
    let mut verdicts: Vec<Vec<Option<Result<String, String>>>> =
        vec![vec![None; APPS.len()]; MATRIX.len()];
    for seen_pass in [false, true] {
        let mut targets = vec![];
        for (app, column) in APPS {
            let on_agent_display = column == Column::AgentDisplay;
            if app.is_seen() == seen_pass
                && runs(app, column)
                && !targets
                    .iter()
                    .any(|t: &Target_| t.app == app && t.on_agent_display == on_agent_display)
            {
                targets.push(if on_agent_display {
                    stage.launch_on_agent_display(app)
                } else {
                    stage.launch(app)
                });
            }
        }
        if targets.is_empty() {
            continue;
        }
        // The user works in the sentinel; the targets stay in the background.
        stage.sentinel.activate();
        // The user's pointer rests on the sentinel.
        stage.sandbox.warp_pointer(1500, 700).unwrap();
        for (row, (act, addressing, expected)) in MATRIX.iter().enumerate() {
            for (column, ((app, how), expect)) in APPS.iter().zip(expected).enumerate() {
                if app.is_seen() != seen_pass || !runs(*app, *how) {
                    continue;
                }
                let on_agent_display = *how == Column::AgentDisplay;
                let target = targets
                    .iter()
                    .find(|t| t.app == *app && t.on_agent_display == on_agent_display)
                    .unwrap();
                let verdict = run_cell(&stage, target, *act, *addressing, *how, *expect);
                if only.is_some() {
                    eprintln!("cell {act:?} {addressing:?} {app:?} {how:?}: {verdict:?}");
                }
                verdicts[row][column] = Some(verdict);
            }
        }
        // Dropped fixtures end their applications before the next pass starts its own.
        drop(targets);
    }

    let mut failures = vec![];
    // Cells delivered per column, and rows delivered without touching the user per toolkit.
    let mut delivered = [0usize; APPS.len()];
    let mut untouched = [0usize; TOOLKITS.len()];
    let mut table = String::from("| action | addressing |");
    for (app, column) in APPS {
        write!(table, " {} {} |", app.label(), column.label()).unwrap();
    }
    table.push_str("\n|---|---|");
    table.push_str(&"---|".repeat(APPS.len()));
    table.push('\n');
    for ((act, addressing, expected), row_verdicts) in MATRIX.iter().zip(&verdicts) {
        let mut row = format!("| {act:?} | {addressing:?} |");
        let mut row_untouched = [false; TOOLKITS.len()];
        for (column, ((app, how), expect)) in APPS.iter().zip(expected).enumerate() {
            let Some(verdict) = &row_verdicts[column] else {
                row.push_str(" not run |");
                continue;
            };
            if verdict.as_ref().is_ok_and(|cell| cell.starts_with("delivered")) {
                delivered[column] += 1;
                if let (Some(t), Column::Background | Column::AgentDisplay) =
                    (TOOLKITS.iter().position(|t| t == app), how)
                {
                    row_untouched[t] = true;
                }
            }
            let cell = match verdict {
                Ok(outcome) => outcome.clone(),
                Err(why) => {
                    failures.push(format!("{act:?} × {addressing:?} × {app:?} × {how:?}: {why}"));
                    format!(
                        "**FAILED** ({})",
                        match expect {
                            Expect::Delivered => "expected delivered".into(),
                            Expect::Refused(c) => format!("expected {c}"),
                        }
                    )
                }
            };
            write!(row, " {cell} |").unwrap();
        }
        for (t, hit) in row_untouched.iter().enumerate() {
            untouched[t] += usize::from(*hit);
        }
        table.push_str(&row);
        table.push('\n');
    }
    let share = |count: usize| {
        format!("{count}/{} ({:.0} %)", MATRIX.len(), 100.0 * count as f64 / MATRIX.len() as f64)
    };
    let mut summary = String::from("\nDelivered in the background on the user's desktop:");
    let mut across = (0, 0);
    for (column, (app, how)) in APPS.iter().enumerate() {
        if *how == Column::Background {
            write!(summary, " {} {};", app.label(), share(delivered[column])).unwrap();
            if TOOLKITS[..FIVE].contains(app) {
                across = (across.0 + delivered[column], across.1 + MATRIX.len());
            }
        }
    }
    writeln!(
        summary,
        " across GTK3, GTK4, Qt 5, Chromium and Firefox {}/{} ({:.0} %).",
        across.0,
        across.1,
        100.0 * across.0 as f64 / across.1 as f64
    )
    .unwrap();
    write!(summary, "\nDelivered without touching the user's pointer, keyboard focus or stacking (in the background, or on the agent display):").unwrap();
    for (t, app) in TOOLKITS.iter().enumerate() {
        write!(summary, " {} {};", app.label(), share(untouched[t])).unwrap();
    }
    let total: usize = untouched[..FIVE].iter().sum();
    let cells = FIVE * MATRIX.len();
    writeln!(
        summary,
        " across GTK3, GTK4 (4.8), Qt 5, Chromium and Firefox {total}/{cells} ({:.0} %).",
        100.0 * total as f64 / cells as f64
    )
    .unwrap();
    table.push_str(&summary);
    println!("\n{table}");
    if only.is_none() {
        let out =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/action-matrix.md");
        let _ = std::fs::write(&out, &table);
    }
    assert!(failures.is_empty(), "{} cell(s) FAILED:\n{}", failures.len(), failures.join("\n"));
}
