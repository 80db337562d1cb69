//! Trees as people read them, on applications nobody here wrote, started
//! plainly on a cold desktop. GNOME Text Editor 43 (Debian 12's, GTK 4.8):
//! pyatspi, a second AT-SPI client, shows what the toolkit sends (a button
//! named in its mnemonic form and then again, the editor's own widget
//! classes as names); glovebox's tree says what a person reads. Thunar
//! 4.18: a whole tree whose icon view is an empty panel (pyatspi agrees);
//! the files shown there are read from its pixels, and one is renamed by
//! its seen name through the official MCP Python client, the file system
//! as the oracle and the person's desktop (focus, stacking, pointer, a
//! window they work in) unchanged.
#![cfg(target_os = "linux")]

use glovebox_model::{Role, WindowRef};
use glovebox_sandbox::fixture::wait_until;
use glovebox_testkit::Reaped;
use std::process::Stdio;

/// Every accessible's role and name, one per line, as the toolkit sends them.
const SENT: &str = r#"
import pyatspi, sys
pid = int(sys.argv[1])
def walk(acc, depth=0):
    if acc is None or depth > 40: return
    print(acc.getRoleName() + "|" + (acc.name or ""))
    for child in acc:
        walk(child, depth + 1)
for app in pyatspi.Registry.getDesktop(0):
    if app.get_process_id() == pid:
        walk(app)
"#;

#[test]
fn gnome_text_editors_buttons_read_as_shown_and_its_widget_classes_name_nothing() {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = glovebox_testkit::cold_desktop();
    let home = std::env::temp_dir().join(format!("glovebox-names-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let _editor = Reaped(
        sandbox
            .command_in_home("gnome-text-editor", &home)
            .arg("--standalone")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("gnome-text-editor"),
    );
    let host = glovebox_testkit::host(&sandbox, "names").open();
    let window = wait_until("the editor's window", || {
        host.list_windows(Some("Text Editor"), 1).ok()?.windows.into_iter().next()
    })
    .window;
    let has = |tree: &glovebox_model::AccessibilityTree, role: Role, name: &str| {
        tree.root.as_ref().is_some_and(|r| r.walk().any(|e| e.role == role && e.name == name))
    };
    let seen = wait_until("the editor's tree", || {
        let seen = host.observe(Some(&WindowRef::Id(window.id)), false).ok()?;
        has(&seen.tree, Role::PushButton, "Retry").then_some(seen)
    });
    let text = seen.tree.render_text();
    // What the toolkit sends, read by another client.
    let out = glovebox_testkit::pyatspi(&sandbox, SENT, window.id.pid);
    let sent = String::from_utf8_lossy(&out.stdout);
    assert!(
        sent.contains("push button|_Retry Retry") && sent.contains("|EditorSourceView"),
        "the toolkit no longer sends these names; the test reads nothing:\n{sent}"
    );
    assert!(has(&seen.tree, Role::PushButton, "Discard…"), "{text}");
    for class in ["_Retry", "_Discard", "EditorSourceView", "EditorInfoBar", "EditorPage"] {
        assert!(!text.contains(class), "{class:?} read as a name:\n{text}");
    }
    // The editor's text area takes no name from a header bar button's label.
    let editor = seen.tree.root.as_ref().unwrap().walk().find(|e| e.role == Role::Text).unwrap();
    assert!(editor.name.is_empty(), "the text area named {:?}:\n{text}", editor.name);
    let _ = std::fs::remove_dir_all(&home);
    sandbox.shutdown();
}

/// The names of the children pyatspi finds under Thunar's icon view.
const ICON_VIEW: &str = r#"
import pyatspi, sys
pid = int(sys.argv[1])
def find(acc, depth=0):
    if acc is None or depth > 40: return None
    if acc.getRoleName() == "directory pane": return acc
    for child in acc:
        found = find(child, depth + 1)
        if found: return found
for app in pyatspi.Registry.getDesktop(0):
    if app.get_process_id() == pid:
        pane = find(app)
        print("pane" if pane else "no pane")
        if pane:
            for child in pane:
                print(child.getRoleName(), len(child) if child else 0)
"#;

#[test]
fn thunars_files_are_read_from_the_hole_in_its_tree_and_renamed_in_the_background() {
    use glovebox_model::SeenKind;
    use glovebox_testkit::desktop::Desktop;
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = glovebox_testkit::cold_desktop();
    let home = std::env::temp_dir().join(format!("glovebox-holes-{}", std::process::id()));
    let folder = home.join("Documents");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("report-draft.txt"), "draft\n").unwrap();
    std::fs::write(folder.join("notes.md"), "notes\n").unwrap();
    let _thunar = Reaped(
        sandbox
            .command_in_home("thunar", &home)
            .arg(&folder)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("thunar"),
    );
    let host = glovebox_testkit::host(&sandbox, "holes").open();
    let window = wait_until("Thunar's window", || {
        host.list_windows(Some("Thunar"), 1).ok()?.windows.into_iter().next()
    })
    .window;
    let reference = WindowRef::Id(window.id);
    let seen_text = |o: &glovebox_host::Observation, text: &str| {
        o.tree.seen.iter().find(|e| e.text == text).map(|e| e.id)
    };
    let seen = wait_until("the files seen", || {
        let o = host.observe(Some(&reference), false).ok()?;
        (seen_text(&o, "notes.md").is_some() && seen_text(&o, "report-draft.txt").is_some())
            .then_some(o)
    });
    // The tree is whole, and its icon view holds nothing (pyatspi agrees).
    assert_eq!(seen.tree.fidelity, glovebox_model::Fidelity::Full, "{}", seen.tree.render_text());
    let pane = glovebox_testkit::pyatspi(&sandbox, ICON_VIEW, window.id.pid);
    let pane = String::from_utf8_lossy(&pane.stdout);
    assert!(pane.starts_with("pane") && pane.contains("panel 0"), "{pane}");
    assert!(seen.tree.seen.iter().all(|e| e.kind != SeenKind::Button || !e.text.is_empty()));

    // Selected by its seen name and renamed with F2, in the background, by the official
    // MCP client (the person approving what it asks), with the person at work elsewhere.
    let user = crate::seen_pixels::sentinel(&sandbox);
    user.activate();
    let before = Desktop::now(&host, &sandbox, &user);
    let report = crate::seen_pixels::client(
        &sandbox,
        &home,
        ["rename", "Thunar", "notes.md=renamed.md"],
        &[],
    );
    assert!(report["ids"]["file"].is_string(), "notes.md not seen: {report}");
    for call in report["calls"].as_array().unwrap() {
        assert_eq!(call["error"], false, "{call}");
    }
    assert_eq!(crate::seen_pixels::calls(&report, "key").len(), 3, "{report}");
    wait_until("the file renamed", || folder.join("renamed.md").exists().then_some(()));
    assert!(!folder.join("notes.md").exists() && folder.join("report-draft.txt").exists());
    assert_eq!(Desktop::now(&host, &sandbox, &user), before, "the person's desktop as it was");
    let _ = std::fs::remove_dir_all(&home);
    sandbox.shutdown();
}
