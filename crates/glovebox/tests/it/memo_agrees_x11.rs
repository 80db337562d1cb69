//! The kept accessibility memo against a fresh walk: one long-lived
//! AT-SPI backend (as a host keeps) reads each window after every step of a
//! scripted sequence of changes, and must read exactly what a new backend
//! (nothing kept, every fact asked of the bus) reads at the same moment:
//! roles, names, states, bounds, values shown, actions and what was left
//! out. The changes are made through a host of their own, on the GTK3
//! fixture, gtk3-widget-factory, a Qt 5 editor, a page in Chromium and
//! LibreOffice Calc; each change's effect is checked in the application's
//! own report or by the fresh read. (Qt's bridge leaves changes unsaid, a
//! window's new title, a closed menu's item enabled: its reads walk the bus
//! each time, and the Qt step shows that this holds.)
#![cfg(target_os = "linux")]

use glovebox_atspi::AtspiBackend;
use glovebox_host::{ActRequest, Host, Observation};
use glovebox_model::Role;
use glovebox_model::{
    AccessibilityTree, Action, Button, Element, Target, TreeBudget, WindowId, WindowInfo, WindowRef,
};
use glovebox_platform::WindowSource;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::{Sandbox, SandboxOptions};
use glovebox_x11::X11Backend;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

struct Stage {
    sandbox: Sandbox,
    host: Host,
    x11: X11Backend,
    kept: AtspiBackend,
    children: Vec<Child>,
}

impl Stage {
    fn start() -> Stage {
        let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
        let host = glovebox_testkit::host(&sandbox, "memo")
            .shared_runtime()
            .configure(|config| config.budget = 10_000)
            .open();
        let x11 = X11Backend::connect(Some(sandbox.display())).unwrap();
        let kept = AtspiBackend::on_session_bus(Some(sandbox.bus_address())).unwrap();
        Stage { sandbox, host, x11, kept, children: vec![] }
    }

    fn launch(&mut self, program: &str, args: &[&str], title_part: &str) -> WindowInfo {
        let child = self
            .sandbox
            .command(program)
            .args(args)
            .env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")
            .env("HOME", self.sandbox.runtime_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e} (installed by .ci/install-deps)"));
        self.children.push(child);
        let first = self.window(title_part);
        // The window manager places and sizes a new window a moment after it
        // maps (slowly on a loaded machine): its settled geometry is the one
        // its accessible is matched by.
        std::thread::sleep(Duration::from_millis(500));
        self.x11.find_window(&WindowRef::Id(first.id)).unwrap_or(first)
    }

    fn window(&self, title_part: &str) -> WindowInfo {
        wait_until(&format!("a window titled {title_part:?}"), || {
            self.x11.list_windows().ok()?.into_iter().find(|w| w.title.contains(title_part))
        })
    }

    /// The kept backend's read once the window's tree has more than a few elements.
    fn first_read(
        &self,
        window: &WindowInfo,
        ready: impl Fn(&AccessibilityTree) -> bool,
    ) -> AccessibilityTree {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let tree = self.kept.inspect(window, TreeBudget::default());
            match tree {
                Ok(tree) if tree.node_count > 5 && ready(&tree) => return tree,
                _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
                other => panic!("{}: never ready: {other:?}", window.title),
            }
        }
    }

    /// The kept read and a fresh one must agree; events may lag the change
    /// by a moment, so they are compared until they agree or 10 s pass.
    /// Returns the fresh read.
    fn agree(&self, window: &WindowInfo, step: &str) -> AccessibilityTree {
        // The window's geometry as it is now (a step may have resized it).
        let window = self
            .x11
            .list_windows()
            .unwrap()
            .into_iter()
            .find(|w| w.id == window.id)
            .expect("the window is still listed");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let read = |backend: &AtspiBackend| backend.inspect(&window, TreeBudget::default());
            let fresh_backend =
                AtspiBackend::on_session_bus(Some(self.sandbox.bus_address())).unwrap();
            let (kept, fresh, again) =
                match (read(&self.kept), read(&fresh_backend), read(&self.kept)) {
                    (Ok(kept), Ok(fresh), Ok(again)) => (kept, fresh, again),
                    // A busy application (a spreadsheet building the cells a scroll brought) may miss a deadline.
                    failed if Instant::now() < deadline => {
                        println!("{}: {step}: a read failed, again: {failed:?}", window.title);
                        std::thread::sleep(Duration::from_millis(250));
                        continue;
                    }
                    failed => panic!("{}: {step}: a read failed: {failed:?}", window.title),
                };
            let (kept, fresh_shape, again) = (shape(&kept), shape(&fresh), shape(&again));
            // The app may change between the reads; agreement with either kept read counts.
            if kept == fresh_shape || again == fresh_shape {
                println!(
                    "{}: {step}: the kept read agrees with a fresh walk ({} elements)",
                    window.title, fresh.node_count
                );
                return fresh;
            }
            if Instant::now() > deadline {
                let first = kept
                    .iter()
                    .zip(&fresh_shape)
                    .position(|(a, b)| a != b)
                    .unwrap_or(kept.len().min(fresh_shape.len()));
                let around = |lines: &[String]| {
                    lines
                        .iter()
                        .skip(first.saturating_sub(3))
                        .take(8)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                panic!(
                    "{}: after {step}, the kept read ({} lines) differs from a fresh walk ({} lines) at line {first}:\nkept:\n{}\nfresh:\n{}",
                    window.title,
                    kept.len(),
                    fresh_shape.len(),
                    around(&kept),
                    around(&fresh_shape)
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn observe(&self, window: WindowId) -> Observation {
        self.host.observe(Some(&WindowRef::Id(window)), false).unwrap()
    }

    /// One action through the host, in the background; whether it was delivered.
    fn act(
        &self,
        window: WindowId,
        what: &str,
        action: impl Fn(&Observation) -> Option<Action>,
    ) -> bool {
        let seen = self.observe(window);
        let Some(action) = action(&seen) else {
            panic!("{what}: no target in\n{}", seen.tree.render_text())
        };
        let outcome = self.host.perform(ActRequest::new(seen.frame.id, action));
        println!(
            "{what}: {:?}",
            outcome.as_ref().map(|done| done.delivery.route.to_string()).map_err(|r| r.to_string())
        );
        outcome.is_ok()
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

/// Everything a read says of each element except its id (ids are per backend), depth first.
fn shape(tree: &AccessibilityTree) -> Vec<String> {
    fn visit(e: &Element, depth: usize, out: &mut Vec<String>) {
        let omitted = e
            .omitted_children
            .as_ref()
            .map(|o| format!(" +{} ({})", o.count, o.hint))
            .unwrap_or_default();
        out.push(format!(
            "{}{} {:?} {:?} states={:?} at={:?} value={} actions={:?} shortcut={:?}{omitted}",
            "  ".repeat(depth),
            e.role,
            e.name,
            e.description,
            e.states,
            e.screen_bounds,
            e.has_value,
            e.actions,
            e.shortcut
        ));
        for child in &e.children {
            visit(child, depth + 1, out);
        }
    }
    let mut out = vec![format!(
        "fidelity {:?} truncated {:?}",
        tree.fidelity,
        tree.truncated.as_ref().map(|t| &t.by)
    )];
    if let Some(root) = &tree.root {
        visit(root, 0, &mut out);
    }
    out
}

fn find(seen: &Observation, pick: impl Fn(&Element) -> bool) -> Option<&Element> {
    seen.tree.root.as_ref()?.walk().find(|e| pick(e))
}

fn named(seen: &Observation, role: Role, name: &str) -> Option<Target> {
    find(seen, |e| e.role == role && e.name == name).map(|e| Target::Element(e.id))
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

#[test]
fn the_kept_tree_agrees_with_a_fresh_walk_after_each_change_on_the_gtk3_fixture() {
    let _heavy = glovebox_testkit::heavy_turn();
    let stage = Stage::start();
    let fixture = Fixture::launch(&stage.sandbox, &unique_title("Memo fixture"), &[]);
    let window = stage.window(&fixture.title);
    stage.first_read(&window, |t| t.render_text().contains("Submit"));
    stage.agree(&window, "the first read");
    let id = window.id;
    assert!(stage.act(id, "set Name", |seen| Some(Action::SetValue {
        target: named(seen, Role::Text, "Name")?,
        text: "Ada Lovelace".into()
    })));
    wait_until("the fixture reports the name", || {
        fixture.state().filter(|s| s["values"]["name"] == "Ada Lovelace")
    });
    stage.agree(&window, "set Name");
    assert!(stage.act(id, "tick Subscribe", |seen| Some(click(named(
        seen,
        Role::CheckBox,
        "Subscribe"
    )?))));
    wait_until("the fixture reports the tick", || {
        fixture.state().filter(|s| s["values"]["subscribe"] == true)
    });
    stage.agree(&window, "tick Subscribe");
    assert!(stage.act(id, "click Details", |seen| Some(click(named(
        seen,
        Role::PushButton,
        "Details"
    )?))));
    wait_until("the fixture shows its details", || {
        fixture.state().filter(|s| s["details_shown"] == true)
    });
    let shown = stage.agree(&window, "show details");
    assert!(
        shown.render_text().contains("Hide details"),
        "the panel appeared:\n{}",
        shown.render_text()
    );
    assert!(stage.act(id, "scroll the list", |seen| {
        let list = find(seen, |e| e.role == Role::Table || e.role == Role::TreeTable)?;
        Some(Action::Scroll { target: Target::Element(list.id), dx: 0, dy: 10, modifiers: vec![] })
    }));
    let scrolled = stage.agree(&window, "scroll the list");
    assert!(
        !scrolled.render_text().contains("\"Row 0\""),
        "the list scrolled:\n{}",
        scrolled.render_text()
    );
    assert!(stage.act(id, "click Hide details", |seen| Some(click(named(
        seen,
        Role::PushButton,
        "Hide details"
    )?))));
    let hidden = stage.agree(&window, "hide details");
    assert!(!hidden.render_text().contains("Hide details"));
    assert!(stage.act(id, "choose Blue", |seen| {
        let combo = find(seen, |e| e.role == Role::ComboBox)?;
        Some(Action::Select { target: Target::Element(combo.id), option: "Blue".into() })
    }));
    wait_until("the fixture reports Blue", || {
        fixture.state().filter(|s| s["values"]["combo"] == "Blue")
    });
    stage.agree(&window, "choose Blue");
}

#[test]
fn the_kept_tree_agrees_with_a_fresh_walk_on_applications_nobody_here_wrote() {
    let _heavy = glovebox_testkit::heavy_turn();
    let mut stage = Stage::start();
    // gtk3-widget-factory: another page, a check box.
    let factory = stage.launch("gtk3-widget-factory", &[], "gtk3-widget-factory");
    stage.first_read(&factory, |_| true);
    stage.agree(&factory, "the first read");
    let mut delivered = 0;
    delivered += stage.act(factory.id, "open the second page", |seen| {
        find(seen, |e| e.role == Role::PageTab && !e.has(glovebox_model::ElementState::Selected))
            .map(|e| click(Target::Element(e.id)))
    }) as usize;
    stage.agree(&factory, "the second page");
    delivered += stage.act(factory.id, "tick a check box", |seen| {
        find(seen, |e| e.role == Role::CheckBox).map(|e| click(Target::Element(e.id)))
    }) as usize;
    stage.agree(&factory, "a check box");
    assert!(delivered > 0, "nothing was delivered to gtk3-widget-factory");

    // A Qt 5 editor with a document.
    let document = stage.sandbox.runtime_dir().join("memo-notes.txt");
    std::fs::write(&document, "first line\n").unwrap();
    let editor = stage.launch("featherpad", &[document.to_str().unwrap()], "memo-notes");
    stage.first_read(&editor, |t| t.render_text().contains("text"));
    stage.agree(&editor, "the first read");
    assert!(stage.act(editor.id, "replace the document", |seen| {
        let text = find(seen, |e| e.role == Role::Text && e.has_value)?;
        Some(Action::SetValue {
            target: Target::Element(text.id),
            text: "a new line\nand another\n".into(),
        })
    }));
    stage.agree(&editor, "replace the document");

    // A page in Chromium that grows a list on each click.
    let page = stage.sandbox.runtime_dir().join("memo-page.html");
    std::fs::write(
        &page,
        "<!doctype html><title>Memo page</title><label>Name <input id=n></label>\
         <button onclick=\"let li=document.createElement('li');li.textContent='Item '+(list.children.length+1);list.appendChild(li)\">Add item</button>\
         <ul id=list></ul>",
    )
    .unwrap();
    let profile =
        format!("--user-data-dir={}", stage.sandbox.runtime_dir().join("memo-chromium").display());
    let url = format!("file://{}", page.display());
    let browser = stage.launch(
        "chromium",
        &[
            "--no-sandbox",
            "--force-renderer-accessibility",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--window-size=900,700",
            &profile,
            &url,
        ],
        "Memo page",
    );
    stage.first_read(&browser, |t| t.render_text().contains("Add item"));
    stage.agree(&browser, "the first read");
    for n in 1..=2 {
        assert!(stage.act(browser.id, "add an item", |seen| Some(click(named(
            seen,
            Role::PushButton,
            "Add item"
        )?))));
        let grown = stage.agree(&browser, &format!("item {n} added"));
        assert!(
            grown.render_text().contains(&format!("Item {n}")),
            "the page grew:\n{}",
            grown.render_text()
        );
    }
    assert!(stage.act(browser.id, "type a name", |seen| {
        let field = find(seen, |e| {
            e.role == Role::Entry || (e.role == Role::Text && e.name.contains("Name"))
        })?;
        Some(Action::SetValue { target: Target::Element(field.id), text: "Grace".into() })
    }));
    stage.agree(&browser, "a name typed");

    // A spreadsheet: a cell written. (A scrolled sheet is left out:
    // after a wheel scroll LibreOffice 7.4 here stops answering any reader
    // for seconds, a fresh one as much as a kept one.)
    let sheet = stage.launch("localc", &["--norestore", "--nologo"], "LibreOffice Calc");
    stage.first_read(&sheet, |t| t.render_text().contains("\"A1\""));
    stage.agree(&sheet, "the first read");
    assert!(stage.act(sheet.id, "write B3", |seen| Some(Action::SetValue {
        target: named(seen, Role::TableCell, "B3")?,
        text: "42".into()
    })));
    stage.agree(&sheet, "B3 written");
    let fresh = AtspiBackend::on_session_bus(Some(stage.sandbox.bus_address())).unwrap();
    fresh.inspect(&sheet, TreeBudget::default()).unwrap();
    let b3 = fresh
        .inspect(&sheet, TreeBudget::default())
        .unwrap()
        .root
        .unwrap()
        .walk()
        .find(|e| e.name == "B3")
        .map(|e| e.id)
        .expect("B3");
    assert_eq!(
        fresh.read_value(&sheet, b3, 100).unwrap().text,
        "42",
        "a second reader sees the cell written"
    );
}
