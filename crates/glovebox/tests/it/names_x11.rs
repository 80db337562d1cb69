//! Names as people read them, on an application nobody here wrote: GNOME
//! Text Editor 43 (Debian 12's, GTK 4.8) started plainly on a cold desktop.
//! pyatspi, a second AT-SPI client, shows what the toolkit sends (a button
//! named in its mnemonic form and then again, the editor's own widget
//! classes as names); glovebox's tree says what a person reads.
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
