//! The action matrix's Windows (Wine) column: every input action ×
//! addressing of the matrix (`action_matrix.rs`) sent by the official MCP
//! Python SDK to `glovebox.exe mcp` under Wine, in the background, aimed at
//! the Win32 matrix fixture (`testapps/windows/matrix.c`) with notepad in
//! front, and judged by the fixture's own state document with the matrix's
//! own rule (`action_matrix::shows`). Every cell is delivered (the fixture
//! shows it) or refused with its declared code (the fixture shows
//! nothing); notepad stays in front and the pointer does not move.

use super::{build, repo, wait_for, wine_turn, Wine};
use crate::action_matrix::{
    shows, Act, Addressing, App, Expect, NEW_NAME, TYPED_ASCII, TYPED_UNICODE,
};
use glovebox_model::ErrorCode;
use glovebox_sandbox::{Sandbox, SandboxOptions};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use Addressing::{Element as E, Focus as F, Point as P};
use Expect::{Delivered as D, Refused as R};

const BG: ErrorCode = ErrorCode::BackgroundUnavailable;

/// The declared outcome of each cell. Window messages carry every pointer
/// action with its button, count and Ctrl or Shift (`MK_*` in the
/// message); Alt has no place in a pointer message and a chord needs keys
/// held on the keyboard, so those are refused rather than sent without it.
#[rustfmt::skip]
const WINE: &[(Act, Addressing, Expect)] = &[
    (Act::Click, E, D), (Act::Click, P, D),
    (Act::RightClick, E, D), (Act::RightClick, P, D),
    (Act::MiddleClick, E, D), (Act::MiddleClick, P, D),
    (Act::DoubleClick, E, D), (Act::DoubleClick, P, D),
    (Act::Move, E, D), (Act::Move, P, D),
    (Act::Drag, E, D), (Act::Drag, P, D),
    (Act::Scroll, E, D), (Act::Scroll, P, D),
    (Act::CtrlClick, E, D), (Act::CtrlClick, P, D),
    (Act::ShiftScroll, E, D), (Act::ShiftScroll, P, D),
    (Act::AltDrag, E, R(BG)), (Act::AltDrag, P, R(BG)),
    (Act::TypeAscii, F, D),
    (Act::TypeUnicode, F, D),
    (Act::Key, F, R(BG)),
    (Act::SetValue, E, D), (Act::SetValue, P, D),
    (Act::Select, E, D), (Act::Select, P, D),
];

/// The MCP client, one tool call per line.
struct Client {
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    child: std::process::Child,
}

impl Client {
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        writeln!(self.input, "{}", json!({"tool": tool, "arguments": arguments})).unwrap();
        self.input.flush().unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{tool}: {e}: {line:?}"))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The id on the tree line holding `needle` (`@e12 push button "Submit"` → `e12`).
fn id_of(tree: &str, needle: &str) -> String {
    let line = tree
        .lines()
        .find(|l| l.contains(needle) && l.contains("@e"))
        .unwrap_or_else(|| panic!("no {needle:?} in:\n{tree}"));
    let word = line.split_whitespace().find(|w| w.starts_with("@e")).unwrap();
    word.trim_start_matches('@').to_owned()
}

/// The centre of the fixture's widget `name`, `dx` to the right, in the
/// frame's image (the window's client area, at scale 1).
fn point(state: &Value, name: &str, dx: i64) -> Value {
    let a = &state["allocations"][name];
    let at = |i: usize| a[i].as_i64().unwrap();
    json!({"point": {"x": at(0) + at(2) / 2 + dx, "y": at(1) + at(3) / 2}})
}

/// The tool and arguments of a cell, as `action_matrix::cells::action_for` aims them.
fn call_for(act: Act, addressing: Addressing, tree: &str, state: &Value) -> (&'static str, Value) {
    let aim = |needle: &str, widget: &str, dx: i64| match addressing {
        Addressing::Element => json!({"element": id_of(tree, needle)}),
        _ => point(state, widget, dx),
    };
    let pad = |dx| aim("\"Pad\"", "pad", dx);
    match act {
        Act::Click => ("click", json!({"target": aim("push button \"Submit\"", "submit", 0)})),
        Act::RightClick => ("click", json!({"target": pad(0), "button": "right"})),
        Act::MiddleClick => ("click", json!({"target": pad(0), "button": "middle"})),
        Act::DoubleClick => ("click", json!({"target": pad(20), "count": 2})),
        Act::Move => ("move", json!({"target": pad(20)})),
        Act::CtrlClick => ("click", json!({"target": pad(0), "modifiers": ["ctrl"]})),
        Act::Scroll => ("scroll", json!({"target": pad(0), "dy": 2})),
        Act::ShiftScroll => ("scroll", json!({"target": pad(0), "dy": 2, "modifiers": ["shift"]})),
        Act::Drag | Act::AltDrag => {
            let modifiers = if act == Act::AltDrag { json!(["alt"]) } else { json!([]) };
            (
                "drag",
                json!({"from": pad(-60), "to": point(state, "pad", 60), "modifiers": modifiers}),
            )
        }
        Act::TypeAscii => ("type", json!({"text": TYPED_ASCII})),
        Act::TypeUnicode => ("type", json!({"text": TYPED_UNICODE})),
        Act::Key => ("key", json!({"combo": "ctrl+a"})),
        Act::SetValue => {
            ("set_value", json!({"target": aim("entry \"Name\"", "name", 0), "text": NEW_NAME}))
        }
        Act::Select => {
            ("select", json!({"target": aim("combo box \"Colour\"", "combo", 0), "option": "Blue"}))
        }
    }
}

/// The route a delivery's answer names (`delivered by win32:BM_CLICK`), else its first line.
fn route_of(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("delivered by ").unwrap_or(first).trim().to_owned()
}

#[test]
fn the_win32_column_of_the_action_matrix_under_wine() {
    build();
    let _turn = wine_turn();
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let mut wine = Wine::start(&sandbox);
    wine.spawn(&["/target/matrix.exe", "Z:\\files\\matrix.json"]);
    let state_file = wine.dir.join("files/matrix.json");
    let state = || -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(&state_file).ok()?).ok()
    };
    wait_for("the matrix fixture's state", Duration::from_secs(30), state);
    wine.spawn(&["notepad"]);
    wait_for("notepad in front", Duration::from_secs(30), || {
        (wine.probe()["foreground"] == "Untitled - Notepad").then_some(())
    });
    let pointer = sandbox.pointer().unwrap();

    let server = wine.command(&["wine", "/target/glovebox.exe", "mcp"]);
    let mut child = Command::new(glovebox_testkit::sdk::python())
        .arg(repo().join("testapps/sdk_mcp_lines.py"))
        .arg(server.get_program())
        .args(server.get_args())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut client = Client {
        input: child.stdin.take().unwrap(),
        output: BufReader::new(child.stdout.take().unwrap()),
        child,
    };
    let mut ready = String::new();
    client.output.read_line(&mut ready).unwrap();
    assert!(ready.contains("ready"), "{ready}");
    let listed = client.call("list_windows", json!({"query": "glovebox matrix"}));
    let window = listed["text"]
        .as_str()
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();

    let mut rows = vec![];
    let mut failures = vec![];
    for &(act, addressing, expect) in WINE {
        let reset = wine.command(&["wine", "/target/poke.exe"]).output().unwrap();
        assert!(reset.status.success(), "poke: {reset:?}");
        let before = wait_for("the fixture put back", Duration::from_secs(10), || {
            state().filter(|s| {
                s["values"]["name"] == "" && s["values"]["combo"] == "Red" && s["focus"] == "name"
            })
        });
        let seen = client.call("observe", json!({"window": window, "screenshot": true}));
        let tree = seen["text"].as_str().unwrap().to_owned();
        let (tool, arguments) = call_for(act, addressing, &tree, &before);
        let answer = client.call(tool, arguments);
        let text = answer["text"].as_str().unwrap_or_default();
        let verdict = match (expect, answer["error"] == true) {
            (Expect::Delivered, false) => {
                let deadline = Instant::now() + Duration::from_secs(5);
                loop {
                    if state().is_some_and(|now| shows(act, App::Win32, &before, &now)) {
                        break Ok(format!("delivered ({})", route_of(text)));
                    }
                    if Instant::now() > deadline {
                        break Err(format!(
                            "reported delivered ({text}) but the fixture shows no change"
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            (Expect::Delivered, true) => Err(format!("refused: {text}")),
            (Expect::Refused(code), false) => {
                Err(format!("expected {code}, but delivered: {text}"))
            }
            (Expect::Refused(code), true) if text.starts_with(code.as_str()) => {
                std::thread::sleep(Duration::from_millis(300));
                match state() {
                    Some(now) if shows(act, App::Win32, &before, &now) => {
                        Err(format!("refused with {code} but the fixture changed"))
                    }
                    _ => Ok(format!("refused {code}")),
                }
            }
            (Expect::Refused(code), true) => Err(format!("expected {code}, got {text}")),
        };
        let cell = verdict.unwrap_or_else(|why| {
            failures.push(format!("{act:?} × {addressing:?}: {why}"));
            format!("FAILED: {why}")
        });
        rows.push(format!("| {act:?} | {addressing:?} | {cell} |"));
    }
    let delivered = rows.iter().filter(|r| r.contains("| delivered")).count();
    let table = format!(
        "| action | addressing | Win32 (Wine) background |\n|---|---|---|\n{}\n\nDelivered in the background: Win32 (Wine) {delivered}/{} ({} %).\n",
        rows.join("\n"),
        WINE.len(),
        delivered * 100 / WINE.len()
    );
    println!("{table}");
    let _ = std::fs::write(repo().join("target/action-matrix-windows.md"), &table);
    assert!(failures.is_empty(), "cells that did not hold:\n{}", failures.join("\n"));
    // The person's window still in front and their pointer where it was, after all 27 cells.
    assert_eq!(wine.probe()["foreground"], "Untitled - Notepad", "the foreground window changed");
    assert_eq!(sandbox.pointer().unwrap(), pointer, "the pointer moved");
}
