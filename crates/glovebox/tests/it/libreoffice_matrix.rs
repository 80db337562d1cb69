//! The LibreOffice columns of the action matrix: Calc and Writer (Debian's
//! 7.4, GTK3 build), in the background on the user's desktop and on the
//! agent display. The fixture matrix's rows (a pad, a combo box) do not
//! exist in an office suite; these rows are what one does there: a cell's
//! number and text (also in other scripts), a click on a cell then typing
//! and Return, a key, a document's text replaced and typed at its caret, a
//! new paragraph. Every verdict is read from the application by a second
//! AT-SPI client (pyatspi); every action must leave the user's pointer,
//! active window, stacking and sentinel window as they were. The table is
//! printed and written to `target/libreoffice-matrix.md`; `LO_ONLY="Calc true"`
//! (an app and whether on the agent display) runs one column.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::Role;
use glovebox_model::{Action, Button, Target, WindowId, WindowRef};
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum App {
    Calc,
    Writer,
}

/// One step of a row: an action aimed by what the newest look shows.
type Step = fn(&Observation) -> Action;

struct Row {
    app: App,
    what: &'static str,
    steps: &'static [Step],
    /// What pyatspi must read after the steps: cells (Calc) or the document's paragraphs (Writer).
    expect: Oracle,
}

enum Oracle {
    Cells(&'static [(&'static str, &'static str)]),
    Paragraphs(&'static [&'static str]),
}

fn element(seen: &Observation, role: Role, name: &str) -> Target {
    let root = seen.tree.root.as_ref().expect("a tree");
    let found = root.walk().find(|e| e.role == role && (name.is_empty() || e.name == name));
    Target::Element(
        found.unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", seen.tree.render_text())).id,
    )
}

fn cell(seen: &Observation, name: &str) -> Target {
    element(seen, Role::TableCell, name)
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

fn key(combo: &str) -> Action {
    Action::Key { combo: combo.parse().unwrap(), repeat: 1 }
}

const ROWS: &[Row] = &[
    Row {
        app: App::Calc,
        what: "set a cell's number",
        steps: &[|s| Action::SetValue { target: cell(s, "B2"), text: "42".into() }],
        expect: Oracle::Cells(&[("B2", "42")]),
    },
    Row {
        app: App::Calc,
        what: "set a cell's text",
        steps: &[|s| Action::SetValue { target: cell(s, "A3"), text: "Plums".into() }],
        expect: Oracle::Cells(&[("A3", "Plums")]),
    },
    Row {
        app: App::Calc,
        what: "set a cell's text in other scripts",
        steps: &[|s| Action::SetValue { target: cell(s, "A4"), text: "Zoë 東京".into() }],
        expect: Oracle::Cells(&[("A4", "Zoë 東京")]),
    },
    Row {
        app: App::Calc,
        what: "click a cell, type, Return",
        steps: &[
            |s| click(cell(s, "C2")),
            |_| Action::Type { text: "hello".into() },
            |_| key("Return"),
        ],
        expect: Oracle::Cells(&[("C2", "hello")]),
    },
    Row {
        app: App::Calc,
        what: "click a cell, type other scripts, Return",
        steps: &[
            |s| click(cell(s, "C3")),
            |_| Action::Type { text: "Müller 東京".into() },
            |_| key("Return"),
        ],
        expect: Oracle::Cells(&[("C3", "Müller 東京")]),
    },
    Row {
        app: App::Writer,
        what: "replace the document's text",
        steps: &[|s| Action::SetValue {
            target: element(s, Role::Paragraph, ""),
            text: "Ada Lovelace".into(),
        }],
        expect: Oracle::Paragraphs(&["Ada Lovelace"]),
    },
    Row {
        app: App::Writer,
        what: "type at the caret (after set_value: its end)",
        steps: &[
            |s| Action::SetValue { target: element(s, Role::Paragraph, ""), text: "Ada".into() },
            |_| Action::Type { text: " Lovelace".into() },
        ],
        expect: Oracle::Paragraphs(&["Ada Lovelace"]),
    },
    Row {
        app: App::Writer,
        what: "type other scripts at the caret",
        steps: &[
            |s| Action::SetValue { target: element(s, Role::Paragraph, ""), text: "".into() },
            |_| Action::Type { text: "Zoë Müller 東京 🦀".into() },
        ],
        expect: Oracle::Paragraphs(&["Zoë Müller 東京 🦀"]),
    },
    Row {
        app: App::Writer,
        what: "Return makes a new paragraph",
        steps: &[
            |s| Action::SetValue { target: element(s, Role::Paragraph, ""), text: "One".into() },
            |_| key("Return"),
            |_| Action::Type { text: "two".into() },
        ],
        expect: Oracle::Paragraphs(&["One", "two"]),
    },
];

/// What pyatspi reads in the window of `pid` whose title holds `title`:
/// the named cells of its sheet, or every paragraph of its document.
fn read_back(desktop: &Sandbox, pid: u32, title: &str, oracle: &Oracle) -> Vec<String> {
    let script = r#"
import pyatspi, sys
pid, title, mode, cells = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
def find(acc, role, depth=0):
    if depth > 14 or acc is None: return None
    if acc.getRoleName() == role: return acc
    for child in acc:
        found = find(child, role, depth + 1)
        if found: return found
def text(acc):
    t = acc.queryText()
    return t.getText(0, t.characterCount)
for app in pyatspi.Registry.getDesktop(0):
    if app.get_process_id() != pid: continue
    window = [w for w in app if title in w.name][0]
    if mode == 'cells':
        table = find(window, 'table').queryTable()
        for cell in cells:
            print(text(table.getAccessibleAt(int(cell[1:]) - 1, ord(cell[0]) - ord('A'))))
    else:
        document = find(window, 'document text')
        for paragraph in document:
            print(text(paragraph))
"#;
    let (mode, cells): (&str, Vec<&str>) = match oracle {
        Oracle::Cells(cells) => ("cells", cells.iter().map(|(c, _)| *c).collect()),
        Oracle::Paragraphs(_) => ("paragraphs", vec![]),
    };
    let out = desktop
        .command("/usr/bin/python3")
        .arg("-c")
        .arg(script)
        .arg(pid.to_string())
        .arg(title)
        .arg(mode)
        .args(cells)
        .output()
        .expect("python3-pyatspi");
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

fn expected(oracle: &Oracle) -> Vec<String> {
    match oracle {
        Oracle::Cells(cells) => cells.iter().map(|(_, v)| v.to_string()).collect(),
        Oracle::Paragraphs(paragraphs) => paragraphs.iter().map(|p| p.to_string()).collect(),
    }
}

struct Stage {
    host: Host,
    sandbox: Sandbox,
    sentinel: Fixture,
    desktops: std::sync::Arc<glovebox_linux::agent::Desktops>,
    children: Vec<Child>,
}

impl Stage {
    fn user(&self) -> glovebox_testkit::desktop::Desktop {
        glovebox_testkit::desktop::Desktop::now(&self.host, &self.sandbox, &self.sentinel)
    }

    /// A fresh document of `app` on the user's desktop or the agent
    /// display, listed and read; its title and window.
    fn open(&mut self, app: App, on_agent_display: bool) -> (String, WindowId) {
        let desktop = if on_agent_display {
            self.desktops.agent().expect("the agent display starts").sandbox()
        } else {
            &self.sandbox
        };
        let stem = unique_title(&format!("lo {app:?}")).replace(' ', "-").to_lowercase();
        let (program, file, content) = match app {
            App::Calc => ("localc", format!("{stem}.csv"), "fruit,count\nApples,3\nPears,5\n"),
            App::Writer => ("lowriter", format!("{stem}.txt"), "first line\n"),
        };
        let path = desktop.runtime_dir().join(&file);
        std::fs::write(&path, content).unwrap();
        let log = std::fs::File::create(desktop.runtime_dir().join(format!("{stem}.log"))).unwrap();
        let mut command = desktop.command(program);
        command.args(["--norestore", "--nologo"]);
        if app == App::Calc {
            command.arg("--infilter=CSV:44,34,76,1");
        }
        let child = command
            .arg(&path)
            .env("HOME", desktop.runtime_dir())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn();
        self.children.push(
            child.unwrap_or_else(|e| panic!("{program}: {e} (installed by .ci/install-deps)")),
        );
        let window = wait_until(&format!("{file} listed"), || {
            self.host
                .list_windows(Some(&file), 1)
                .ok()?
                .windows
                .into_iter()
                .next()
                .map(|w| w.window)
        });
        assert_eq!(window.desktop.is_user(), !on_agent_display);
        let ready = |o: &Observation| {
            let role = if app == App::Calc { Role::TableCell } else { Role::Paragraph };
            o.tree.root.as_ref().is_some_and(|r| r.walk().any(|e| e.role == role))
        };
        wait_until(&format!("{file} read"), || {
            self.host.observe(Some(&WindowRef::Id(window.id)), false).ok().filter(ready)
        });
        // The application may ask to be activated as it finishes starting: the user takes the focus back.
        self.sentinel.keep_active();
        self.sandbox.warp_pointer(1500, 700).unwrap();
        (file, window.id)
    }

    /// The row's steps, each on the newest look, in the background; the verdict and the last route.
    fn run(
        &self,
        row: &Row,
        window: WindowId,
        title: &str,
        on_agent_display: bool,
    ) -> Result<String, String> {
        let before = self.user();
        let mut routes = vec![];
        for step in row.steps {
            let seen = self
                .host
                .observe(Some(&WindowRef::Id(window)), false)
                .map_err(|e| format!("observe: {e}"))?;
            let done =
                self.host.act(seen.frame.id, step(&seen)).map_err(|e| format!("refused: {e}"))?;
            routes.push(done.delivery.route.to_string());
        }
        if self.user() != before {
            return Err(format!("the user's desktop changed: {:?} → {:?}", before, self.user()));
        }
        let desktop =
            if on_agent_display { self.desktops.agent().unwrap().sandbox() } else { &self.sandbox };
        let want = expected(&row.expect);
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let read = read_back(desktop, window.pid, title, &row.expect);
            if read == want {
                return Ok(routes.join(", "));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "delivered by {} but pyatspi reads {read:?}, not {want:?}",
                    routes.join(", ")
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn libreoffice_matrix() {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let (host, desktops) = glovebox_testkit::host(&sandbox, "libreoffice")
        .shared_runtime()
        .configure(|config| config.budget = 10_000)
        .open_with_agent_display();
    let sentinel = Fixture::launch(
        &sandbox,
        &unique_title("LibreOffice sentinel"),
        &["--x", "1300", "--y", "500", "--rows", "5"],
    );
    let mut stage = Stage { host, sandbox, sentinel, desktops, children: vec![] };
    let columns =
        [(App::Calc, false), (App::Calc, true), (App::Writer, false), (App::Writer, true)];
    let columns: Vec<_> = columns
        .into_iter()
        .filter(|(a, agent)| {
            std::env::var("LO_ONLY").map_or(true, |o| format!("{a:?} {agent}") == o)
        })
        .collect();
    let label = |(app, agent): (App, bool)| {
        format!("{app:?} {}", if agent { "on the agent display" } else { "in the background" })
    };
    let mut table = String::from("| row |");
    for &column in &columns {
        table.push_str(&format!(" {} |", label(column)));
    }
    table.push_str(&format!("\n|---|{}\n", "---|".repeat(columns.len())));
    let mut verdicts = vec![vec![]; ROWS.len()];
    let mut failures = vec![];
    for &column @ (app, on_agent_display) in &columns {
        for (i, row) in ROWS.iter().enumerate() {
            if row.app != app {
                continue;
            }
            // Each row in a document of its own: one row's keys cannot move another's caret.
            let (title, window) = stage.open(app, on_agent_display);
            let verdict = stage.run(row, window, &title, on_agent_display);
            println!("{} × {}: {verdict:?}", row.what, label(column));
            if let Err(why) = &verdict {
                failures.push(format!("{} × {}: {why}", row.what, label(column)));
            }
            verdicts[i].push((column, verdict));
        }
    }
    let mut delivered = 0;
    for (row, verdicts) in ROWS.iter().zip(&verdicts) {
        table.push_str(&format!("| {} |", row.what));
        for &column in &columns {
            let cell = match verdicts.iter().find(|(c, _)| *c == column).map(|(_, v)| v) {
                None => "—".to_owned(),
                Some(Ok(routes)) => {
                    delivered += 1;
                    format!("delivered ({routes})")
                }
                Some(Err(_)) => "**FAILED**".to_owned(),
            };
            table.push_str(&format!(" {cell} |"));
        }
        table.push('\n');
    }
    let cells: usize = verdicts.iter().map(Vec::len).sum();
    table.push_str(&format!("\nDelivered without touching the user's pointer, keyboard focus or stacking: {delivered}/{cells}.\n"));
    println!("\n{table}");
    let out =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/libreoffice-matrix.md");
    let _ = std::fs::write(out, &table);
    assert!(failures.is_empty(), "{} cell(s) FAILED:\n{}", failures.len(), failures.join("\n"));
}
