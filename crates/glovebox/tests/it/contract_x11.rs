//! The backend contract (`glovebox_testkit::contract`) kept by the X11 and
//! AT-SPI composition on a headless desktop, with the GTK3 fixture as the
//! window it looks at: the same checks the fake desktop, the reference
//! implementation, passes, and that a new system's backend must pass.
#![cfg(target_os = "linux")]

use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;

#[test]
fn the_x11_composition_keeps_the_backend_contract() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("Contract"), &["--rows", "3"]);
    let backends = glovebox_linux::backends_with(
        Some(sandbox.display()),
        Some(sandbox.bus_address()),
        &glovebox_linux::Options::default(),
    )
    .unwrap();
    let shown = wait_until("the fixture listed", || {
        let listed = backends.windows.list_windows().ok()?;
        listed.into_iter().find(|w| w.id.pid == fixture.pid() && w.title == fixture.title)
    });
    // The tree is there once the application registered on the bus.
    wait_until("the fixture's tree", || {
        let tree = backends.accessibility.inspect(&shown, Default::default()).ok()?;
        tree.root.is_some().then_some(())
    });
    assert_eq!(glovebox_testkit::contract::broken(&backends, shown.id), Vec::<String>::new());
    // The checks delivered nothing to the fixture: no click, no key.
    let state = fixture.state().expect("the fixture's state");
    let clicks = serde_json::json!({"submit": 0, "cancel": 0, "menu_new": 0, "details": 0});
    assert_eq!(state["clicks"], clicks, "{state}");
    assert_eq!(state["keys"], serde_json::json!([]), "{state}");
}
