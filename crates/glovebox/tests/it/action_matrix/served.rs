//! The action matrix on the desktops whose compositor serves windows
//! (KDE Plasma's KWin, GNOME Shell with glovebox's extension), both on
//! Wayland: the same actions and addressings as the X11 matrix, on the
//! GTK3 and Qt 5 fixtures as native Wayland clients, in the background
//! and in the foreground, each cell judged by the fixture's own report.
//! Every cell also checks that the person's window (started last, so the
//! active one) is still the focused, frontmost window and heard nothing.
//! The table is written to `target/action-matrix-wayland.md` and printed;
//! docs/action-matrix.md carries it.

use super::cells::{action_for, judge, reset};
use super::{Act, Addressing, App, Expect, Target_, E, F, P};
use super::{BG, D, R};
use glovebox_host::{ActRequest, Host, Observation};
use glovebox_model::{DeliveryMode, ErrorCode, Refusal, WindowRef};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture, FixtureKind};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

const NO_ACT: ErrorCode = ErrorCode::ElementNotActionable;
/// Longer than GTK's and Qt's double-click time (400 ms by default).
const DOUBLE_CLICK_TIME: Duration = Duration::from_millis(500);

/// Columns: KDE GTK3 background, KDE GTK3 foreground, KDE Qt 5 background,
/// KDE Qt 5 foreground, then the same four on GNOME.
#[rustfmt::skip]
const MATRIX: &[(Act, Addressing, [Expect; 8])] = &[
    (Act::Click,        E, [D,     D,     D,     D,     D,     D,     D,     D]),
    (Act::Click,        P, [D,     D,     D,     D,     D,     D,     D,     D]),
    (Act::RightClick,   E, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::RightClick,   P, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::MiddleClick,  E, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::MiddleClick,  P, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::DoubleClick,  E, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::DoubleClick,  P, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::Move,         E, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::Move,         P, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::Drag,         E, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::Drag,         P, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::Scroll,       E, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::Scroll,       P, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::CtrlClick,    E, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::CtrlClick,    P, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::ShiftScroll,  E, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::ShiftScroll,  P, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::AltDrag,      E, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::AltDrag,      P, [R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG), R(BG)]),
    (Act::TypeAscii,    F, [R(NO_ACT), D, R(NO_ACT), D, R(NO_ACT), D, R(NO_ACT), D]),
    (Act::TypeUnicode,  F, [R(NO_ACT), R(BG), R(NO_ACT), R(BG), R(NO_ACT), R(BG), R(NO_ACT), R(BG)]),
    (Act::Key,          F, [R(BG), D,     R(BG), D,     R(BG), D,     R(BG), D]),
    (Act::SetValue,     E, [D,     D,     D,     D,     D,     D,     D,     D]),
    (Act::SetValue,     P, [D,     D,     D,     D,     D,     D,     D,     D]),
    (Act::Select,       E, [D,     D,     R(BG), R(BG), D,     D,     R(BG), R(BG)]),
    (Act::Select,       P, [D,     D,     R(BG), R(BG), D,     D,     R(BG), R(BG)]),
];

const COLUMNS: [(&str, App, DeliveryMode); 8] = [
    ("KDE", App::Gtk3, DeliveryMode::Background),
    ("KDE", App::Gtk3, DeliveryMode::Foreground),
    ("KDE", App::Qt5, DeliveryMode::Background),
    ("KDE", App::Qt5, DeliveryMode::Foreground),
    ("GNOME", App::Gtk3, DeliveryMode::Background),
    ("GNOME", App::Gtk3, DeliveryMode::Foreground),
    ("GNOME", App::Qt5, DeliveryMode::Background),
    ("GNOME", App::Qt5, DeliveryMode::Foreground),
];

/// The fixture's report with its widgets' places moved into the frame:
/// GTK3 counts from the corner of its client-side shadow, which GNOME
/// leaves out of the window's frame (and KWin, which decorates GTK3
/// windows itself, never draws). The Name field as the tree places it in
/// the frame is the ruler.
fn in_frame(state: &serde_json::Value, seen: &Observation) -> serde_json::Value {
    let field = seen
        .tree
        .root
        .as_ref()
        .and_then(|r| {
            r.walk().find(|e| e.name == "Name" && e.has(glovebox_model::ElementState::Editable))
        })
        .and_then(|e| e.bounds);
    let Some(field) = field else { return state.clone() };
    let name = &state["allocations"]["name"];
    let (dx, dy) = (
        name[0].as_i64().unwrap_or(0) - field.x as i64,
        name[1].as_i64().unwrap_or(0) - field.y as i64,
    );
    let mut moved = state.clone();
    if let Some(allocations) = moved["allocations"].as_object_mut() {
        for a in allocations.values_mut() {
            if let Some([x, y, ..]) = a.as_array_mut().map(|v| v.as_mut_slice()) {
                *x = serde_json::json!(x.as_i64().unwrap_or(0) - dx);
                *y = serde_json::json!(y.as_i64().unwrap_or(0) - dy);
            }
        }
    }
    moved
}

fn observe(host: &Host, target: &Target_) -> Observation {
    wait_until("an observation with the fixture's tree", || {
        host.observe(Some(&WindowRef::Id(target.window)), false)
            .ok()
            .filter(|o| o.tree.node_count > 8)
    })
}

/// The person's window: still the focused and frontmost one.
fn person_undisturbed(host: &Host, person: &Fixture) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let all = host.list_windows(None, 1).map_err(|e| e.to_string())?.windows;
        let ok = all.first().is_some_and(|w| w.window.title == person.title && w.window.focused);
        if ok {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("the person's window lost the focus or the top: {all:?}"));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn run_cell(
    host: &Host,
    person: &Fixture,
    target: &Target_,
    act: Act,
    addressing: Addressing,
    mode: DeliveryMode,
    expect: Expect,
) -> Result<String, String> {
    reset(target, act);
    let clicks = matches!(
        act,
        Act::Click | Act::RightClick | Act::MiddleClick | Act::DoubleClick | Act::CtrlClick
    );
    if mode == DeliveryMode::Foreground && clicks {
        // The person's pointer clicks the same spot cell after cell: closer in time than
        // a double click, two cells' clicks would be one double click to the toolkit.
        std::thread::sleep(DOUBLE_CLICK_TIME);
    }
    let seen = observe(host, target);
    let before = target.fixture.state().unwrap();
    let person_before = person.state().unwrap();
    let action = action_for(act, addressing, target.app, mode, &seen, &in_frame(&before, &seen));
    let result: Result<glovebox_host::ActOutcome, Refusal> =
        host.perform(ActRequest::new(seen.frame.id, action).mode(mode));
    person_undisturbed(host, person)?;
    let person_after = person.state().unwrap();
    if (&person_after["values"], &person_after["keys"], &person_after["clicks"])
        != (&person_before["values"], &person_before["keys"], &person_before["clicks"])
    {
        return Err(format!("the person's window heard something: {person_after}"));
    }
    judge(expect, result, target, act, &before, || Ok(()))
}

/// Every cell of one desktop's four columns; their texts by column, in row order.
fn run_desktop(
    desktop: &'static str,
    sandbox: &dyn glovebox_sandbox::Desktop,
    host: &Host,
    failures: &mut Vec<String>,
) -> Vec<(usize, Vec<String>)> {
    let launch = |app: App| {
        let title = unique_title(&format!("{desktop} matrix {app:?}"));
        let fixture = match app {
            App::Qt5 => Fixture::launch_kind(sandbox, FixtureKind::Qt5, &title, &[]),
            _ => Fixture::launch(sandbox, &title, &["--no-password"]),
        };
        let window = wait_until("the fixture listed", || {
            host.list_windows(Some(&fixture.title), 1).ok()?.windows.first().map(|w| w.window.id)
        });
        fixture.wait_state("ready", |s| s["ready"] == true);
        Target_ { app, on_agent_display: false, fixture, window }
    };
    let gtk = launch(App::Gtk3);
    let qt = launch(App::Qt5);
    let person = Fixture::launch(
        sandbox,
        &unique_title(&format!("{desktop} matrix person")),
        &["--no-password"],
    );
    wait_until("the person's window listed", || {
        host.list_windows(Some(&person.title), 1).ok()?.windows.first().map(|_| ())
    });
    person.wait_state("the person's window active", |s| s["window_active"] == true);
    let mut columns = vec![];
    for (index, (name, app, mode)) in COLUMNS.iter().enumerate() {
        if *name != desktop {
            continue;
        }
        let target = if *app == App::Qt5 { &qt } else { &gtk };
        let mut cells = vec![];
        for (act, addressing, expected) in MATRIX {
            let outcome =
                run_cell(host, &person, target, *act, *addressing, *mode, expected[index]);
            let text = match outcome {
                Ok(text) => text,
                Err(why) => {
                    failures
                        .push(format!("{desktop} {app:?} {mode:?} {act:?} {addressing:?}: {why}"));
                    format!("FAILED: {why}")
                }
            };
            cells.push(text);
        }
        columns.push((index, cells));
    }
    columns
}

#[test]
fn action_matrix_on_kde_and_gnome() {
    let _heavy = glovebox_testkit::heavy_turn();
    let foreground = |config: &mut glovebox_host::HostConfig| {
        config.allow_foreground = true;
        config.budget = 10_000;
    };
    let glovebox = Path::new(env!("CARGO_BIN_EXE_glovebox"));
    let mut failures = vec![];
    let mut columns = vec![];
    // `MATRIX_ONLY=GNOME` (or `KDE`) runs one desktop's columns, to iterate on them.
    let only = std::env::var("MATRIX_ONLY").ok().filter(|o| !o.is_empty());
    let runs = |desktop: &str| only.as_deref().is_none_or(|o| o == desktop);
    if runs("KDE") {
        let (kde, _turn) = glovebox_sandbox::kde::KdeSandbox::shared_turn(&[glovebox]);
        let host = glovebox_testkit::kde_host_with(kde, "matrix-kde", foreground);
        columns.extend(run_desktop("KDE", kde, &host, &mut failures));
    }
    if runs("GNOME") {
        let (gnome, _turn) = glovebox_sandbox::gnome::GnomeSandbox::shared_turn(|| {
            let me = std::env::current_exe().unwrap();
            vec![glovebox_testkit::gnome_extension(&[me.as_path(), glovebox])]
        });
        let host = glovebox_testkit::gnome_host_with(gnome, "matrix-gnome", foreground);
        columns.extend(run_desktop("GNOME", gnome, &host, &mut failures));
    }
    columns.sort_by_key(|(index, _)| *index);
    let mut table = String::from("| action | addressing |");
    for (name, app, mode) in COLUMNS {
        let app = if app == App::Qt5 { "Qt 5" } else { "GTK3" };
        let mode = if mode == DeliveryMode::Foreground { "foreground" } else { "background" };
        let _ = write!(table, " {name} {app} {mode} |");
    }
    table.push_str("\n|---|---|");
    table.push_str(&"---|".repeat(COLUMNS.len()));
    for (row, (act, addressing, _)) in MATRIX.iter().enumerate() {
        let _ = write!(table, "\n| {act:?} | {addressing:?} |");
        for (_, cells) in &columns {
            let _ = write!(table, " {} |", cells[row]);
        }
    }
    table.push('\n');
    println!("{table}");
    let out = glovebox_testkit::sdk::repo().join("target/action-matrix-wayland.md");
    let _ = std::fs::write(out, &table);
    assert!(failures.is_empty(), "{} cells failed:\n{}", failures.len(), failures.join("\n"));
}
