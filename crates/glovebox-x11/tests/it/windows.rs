//! Window listing against a real headless desktop: ids, pids, titles,
//! stacking, focus, minimised state and paging, checked against the fixture
//! app's own report of its state.

use crate::common::*;
use glovebox_model::{ErrorCode, PidSource, WindowPage, WindowRef};
use glovebox_platform::WindowSource;
use glovebox_sandbox::Sandbox;
use glovebox_x11::X11Backend;

fn backend(sandbox: &Sandbox) -> X11Backend {
    X11Backend::connect(Some(sandbox.display())).expect("connect to the sandbox display")
}

#[test]
fn lists_fixture_and_xterm_with_server_pids_titles_and_classes() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture list"), &[]);
    let xterm_title = unique("Term list");
    let mut xterm = xterm(sandbox, &xterm_title, "60x10+40+40");

    let fixture_window = window_of(&fixture, &backend);
    let state = fixture.state().unwrap();
    assert_eq!(fixture_window.id.pid, fixture.pid());
    assert_eq!(fixture_window.pid_source, PidSource::Server);
    assert_eq!(
        fixture_window.id.handle as u64,
        state["xid"].as_u64().unwrap(),
        "xid matches the app's own GDK window"
    );
    assert_eq!(fixture_window.title, fixture.title);
    assert_eq!(
        (fixture_window.app.as_str(), fixture_window.instance.as_str()),
        ("GloveboxFixture", "glovebox-fixture")
    );
    assert!(
        fixture_window.geometry.width >= 480 && fixture_window.geometry.height >= 600,
        "{:?}",
        fixture_window.geometry
    );

    let xterm_ref = WindowRef::PidTitle { pid: xterm.id(), title: xterm_title.clone() };
    let xterm_window = wait_until("xterm listed", || {
        backend.list_windows().ok().and_then(|w| xterm_ref.resolve(&w).ok().cloned())
    });
    assert_eq!(xterm_window.app, "XTerm");
    assert_eq!(xterm_window.id.pid, xterm.id());

    // The stable id and the pid/title form name the same window; a stale id does not.
    let windows = backend.list_windows().unwrap();
    let by_id: WindowRef = fixture_window.id.to_string().parse().unwrap();
    assert_eq!(by_id.resolve(&windows).unwrap().id, fixture_window.id);
    let by_title: WindowRef = format!("{}/{}", fixture.pid(), fixture.title).parse().unwrap();
    assert_eq!(by_title.resolve(&windows).unwrap().id, fixture_window.id);
    let _ = xterm.kill();
    let _ = xterm.wait();
    let gone = wait_until("xterm unlisted", || {
        let windows = backend.list_windows().ok()?;
        xterm_ref.resolve(&windows).err()
    });
    assert!(matches!(gone, glovebox_model::ResolveError::Gone(_)), "{gone:?}");
}

#[test]
fn stacking_order_and_focus_follow_the_window_manager() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let first = Fixture::launch(sandbox, &unique("Fixture stack A"), &[]);
    let second = Fixture::launch(sandbox, &unique("Fixture stack B"), &[]);
    for (front, back) in [(&first, &second), (&second, &first)] {
        front.activate();
        back.wait_state("other fixture inactive", |s| s["window_active"] == false);
        let (front_window, back_window) = (window_of(front, &backend), window_of(back, &backend));
        let windows = wait_until("listing shows the activation", || {
            let w = backend.list_windows().ok()?;
            w.iter().find(|w| w.id == front_window.id).filter(|w| w.focused).map(|_| w.clone())
        });
        let position = |id| windows.iter().position(|w| w.id == id).unwrap();
        assert!(
            position(front_window.id) < position(back_window.id),
            "frontmost first: {windows:#?}"
        );
        assert_eq!(windows.iter().filter(|w| w.focused).count(), 1);
        assert!(!windows[position(back_window.id)].focused);
    }
}

#[test]
fn minimised_windows_are_flagged() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture minimise"), &[]);
    let id = window_of(&fixture, &backend).id;
    fixture.send(serde_json::json!({"cmd": "minimize"}));
    fixture.wait_state("fixture iconified", |s| s["minimized"] == true);
    wait_until("listing shows minimised", || {
        backend.list_windows().ok()?.into_iter().find(|w| w.id == id && w.minimized)
    });
    fixture.send(serde_json::json!({"cmd": "restore"}));
    fixture.wait_state("fixture restored", |s| s["minimized"] == false);
    wait_until("listing shows restored", || {
        backend.list_windows().ok()?.into_iter().find(|w| w.id == id && !w.minimized)
    });
}

#[test]
fn pages_of_thirty_cover_every_window_once() {
    let sandbox = Sandbox::shared(module_path!());
    let _turn = desktop_lock();
    let backend = backend(sandbox);
    let fixture = Fixture::launch(sandbox, &unique("Fixture pages"), &[]);
    fixture.send(serde_json::json!({"cmd": "open_windows", "count": 34}));
    fixture.wait_state("extra windows open", |s| s["extra_windows"] == 34);
    let query = fixture.title.clone();
    let page_one = wait_until("35 windows listed", || {
        let page = WindowPage::paginate(backend.list_windows().ok()?, Some(&query), 1).ok()?;
        (page.total == 35).then_some(page)
    });
    assert_eq!((page_one.pages, page_one.windows.len()), (2, 30));
    let page_two = WindowPage::paginate(backend.list_windows().unwrap(), Some(&query), 2).unwrap();
    assert_eq!(page_two.windows.len(), 5);
    let mut ids: Vec<_> = page_one.windows.iter().chain(&page_two.windows).map(|w| w.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 35);
    assert!(ids.iter().all(|id| id.pid == fixture.pid()));
    let beyond =
        WindowPage::paginate(backend.list_windows().unwrap(), Some(&query), 3).unwrap_err();
    assert_eq!(beyond.code(), ErrorCode::InvalidArgument);
}

#[test]
fn without_a_window_manager_root_children_stand_in() {
    let sandbox = Sandbox::start(glovebox_sandbox::SandboxOptions {
        window_manager: false,
        ..Default::default()
    })
    .unwrap();
    let backend = backend(&sandbox);
    let fixture = Fixture::launch(&sandbox, &unique("Fixture no wm"), &[]);
    let window = window_of(&fixture, &backend);
    assert_eq!(window.id.pid, fixture.pid());
    drop(fixture);
    sandbox.shutdown();
}
