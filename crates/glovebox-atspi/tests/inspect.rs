//! Accessibility trees of real applications in a headless desktop: the GTK3
//! fixture (checked against its own report of widget positions and state),
//! gtk3-widget-factory, gtk4-widget-factory and xterm; budgets, timeouts and
//! the password rule.

use glovebox_atspi::AtspiBackend;
use glovebox_model::Role;
use glovebox_model::{
    AccessibilityTree, Element, ElementId, ElementState, ErrorCode, Fidelity, Rect, TreeBudget,
    TruncatedBy, WindowInfo, WindowRef,
};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::WindowSource;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_x11::X11Backend;
use std::process::{Child, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// One accessibility backend per test binary, as a long-lived host would
/// have; tests take turns on it.
fn backends() -> (&'static X11Backend, MutexGuard<'static, AtspiBackend>) {
    static X11: OnceLock<X11Backend> = OnceLock::new();
    static ATSPI: OnceLock<Mutex<AtspiBackend>> = OnceLock::new();
    let sandbox = Sandbox::shared(module_path!());
    let x11 = X11.get_or_init(|| X11Backend::connect(Some(sandbox.display())).unwrap());
    let atspi = ATSPI.get_or_init(|| {
        Mutex::new(AtspiBackend::on_session_bus(Some(sandbox.bus_address())).unwrap())
    });
    (x11, atspi.lock_recovered())
}

fn window(x11: &X11Backend, pid: u32, title: &str) -> WindowInfo {
    let reference = WindowRef::PidTitle { pid, title: title.to_owned() };
    wait_until("window listed", || {
        x11.list_windows().ok().and_then(|w| reference.resolve(&w).ok().cloned())
    })
}

fn find<'a>(tree: &'a AccessibilityTree, role: Role, name: &str) -> &'a Element {
    tree.root
        .as_ref()
        .and_then(|root| root.walk().find(|e| e.role == role && e.name == name))
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", tree.render_text()))
}

fn allocation(state: &serde_json::Value, widget: &str) -> Rect {
    let a: Vec<i64> = state["allocations"][widget]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    Rect::new(a[0] as i32, a[1] as i32, a[2] as u32, a[3] as u32)
}

/// Waits until the fixture's tree reads as `predicate` wants (the bridge
/// registers a moment after the window maps).
fn inspect_until(
    atspi: &AtspiBackend,
    window: &WindowInfo,
    what: &str,
    predicate: impl Fn(&AccessibilityTree) -> bool,
) -> AccessibilityTree {
    wait_until(what, || atspi.inspect(window, TreeBudget::default()).ok().filter(|t| predicate(t)))
}

#[test]
fn fixture_elements_match_the_apps_own_report() {
    let (x11, atspi) = backends();
    let fixture =
        Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y fixture"), &[]);
    let state = fixture.state().unwrap();
    let window = window(x11, fixture.pid(), &fixture.title);
    let tree = inspect_until(&atspi, &window, "full fidelity", |t| t.fidelity == Fidelity::Full);
    assert_eq!(tree.window, window.id);
    assert!(!atspi.focused_password(&window).unwrap());

    let submit = find(&tree, Role::PushButton, "Submit");
    assert!(submit.has(ElementState::Enabled) && submit.has(ElementState::Focusable));
    assert!(
        submit.actions.iter().any(|a| a.name.eq_ignore_ascii_case("click")),
        "{:?}",
        submit.actions
    );
    // Bounds agree with the fixture's own allocation of the button, relative to the window.
    assert_eq!(submit.bounds, Some(allocation(&state, "submit")));
    let screen = submit.screen_bounds.unwrap();
    assert_eq!(
        (screen.x - window.geometry.x, screen.y - window.geometry.y),
        (submit.bounds.unwrap().x, submit.bounds.unwrap().y)
    );
    let inside = Rect::new(0, 0, window.geometry.width, window.geometry.height);
    assert_eq!(submit.bounds.unwrap().intersection(inside), submit.bounds);

    // The id resolves back to the same live accessible, and is stable across observations.
    assert_eq!(
        atspi.describe(&window, submit.id).unwrap(),
        (Role::PushButton, "Submit".to_owned())
    );
    let again = atspi.inspect(&window, TreeBudget::default()).unwrap();
    assert_eq!(find(&again, Role::PushButton, "Submit").id, submit.id);

    // Other elements the fixture has, with their roles.
    // `has value` says the field holds text (its count read, never the text).
    let name = find(&tree, Role::Text, "Name");
    assert!(name.has(ElementState::Editable));
    assert_eq!(name.has_value, !state["values"]["name"].as_str().unwrap().is_empty(), "{state}");
    assert!(find(&tree, Role::CheckBox, "Subscribe")
        .actions
        .iter()
        .any(|a| a.name.eq_ignore_ascii_case("click")));
    assert!(tree.root.as_ref().unwrap().walk().any(|e| e.role == Role::Slider && e.has_value));
    assert_eq!(find(&tree, Role::Menu, "File").children.len(), 2);

    // The long list: visible rows are read, the rest are counted, not dropped.
    let table = tree.root.as_ref().unwrap().walk().find(|e| e.role == Role::Table).unwrap();
    let rows = table.children.iter().filter(|c| c.role == Role::TableCell).count();
    assert!((3..50).contains(&rows), "{rows} rows read");
    let omitted = table.omitted_children.as_ref().expect("off-screen rows are summarised");
    assert_eq!(omitted.count + table.children.len(), 201, "header + 200 rows");
    assert!(tree.render_text().contains("more not shown"));
}

#[test]
fn unknown_and_foreign_ids_are_refused() {
    let (x11, atspi) = backends();
    let first = Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y ids A"), &[]);
    let second = Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y ids B"), &[]);
    let (a, b) = (window(x11, first.pid(), &first.title), window(x11, second.pid(), &second.title));
    let tree = inspect_until(&atspi, &a, "tree of A", |t| t.fidelity == Fidelity::Full);
    let submit = find(&tree, Role::PushButton, "Submit").id;
    assert_eq!(atspi.describe(&b, submit).unwrap_err().code(), ErrorCode::StaleRef);
    assert_eq!(
        atspi.describe(&a, ElementId::tree(999_999).unwrap()).unwrap_err().code(),
        ErrorCode::ElementNotFound
    );
}

#[test]
fn password_values_never_appear_and_focus_is_flagged() {
    let (x11, atspi) = backends();
    let fixture =
        Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y password"), &[]);
    let secret = "hunter2-Sekret-9f3";
    fixture.send(serde_json::json!({"cmd": "set", "widget": "password", "value": secret}));
    fixture
        .send(serde_json::json!({"cmd": "set", "widget": "name", "value": "visible-name-value"}));
    fixture.wait_state("password set", |s| s["values"]["password_length"] == secret.len());
    fixture.activate();
    fixture.send(serde_json::json!({"cmd": "focus", "widget": "password"}));
    fixture.wait_state("password focused", |s| s["focus"] == "password");
    let window = window(x11, fixture.pid(), &fixture.title);
    let tree = inspect_until(&atspi, &window, "password focus seen", |t| t.focused_password);
    assert!(atspi.focused_password(&window).unwrap(), "the quick check agrees with the tree");
    assert!(
        atspi.password_check_uses_collection(&window),
        "GTK3 answers Collection queries truthfully"
    );
    assert!(
        atspi.focused_password(&window).unwrap(),
        "the Collection query sees the focused password field too"
    );
    let password = find(&tree, Role::PasswordText, "Password");
    assert!(password.has(ElementState::Focused) && password.has_value);
    let json = serde_json::to_string(&tree).unwrap();
    let text = tree.render_text();
    for output in [&json, &text] {
        assert!(!output.contains(secret), "the password leaked");
        assert!(
            !output.contains("visible-name-value"),
            "values are never read, not even of plain fields"
        );
    }
    assert!(text.contains("a password field has focus"));
}

#[test]
fn checkbox_state_follows_the_app() {
    let (x11, atspi) = backends();
    let fixture =
        Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y checkbox"), &[]);
    let window = window(x11, fixture.pid(), &fixture.title);
    let before = inspect_until(&atspi, &window, "tree", |t| t.fidelity == Fidelity::Full);
    assert!(!find(&before, Role::CheckBox, "Subscribe").has(ElementState::Checked));
    fixture.send(serde_json::json!({"cmd": "set", "widget": "subscribe", "value": true}));
    fixture.wait_state("subscribed", |s| s["values"]["subscribe"] == true);
    inspect_until(&atspi, &window, "checked state", |t| {
        find(t, Role::CheckBox, "Subscribe").has(ElementState::Checked)
    });
}

#[test]
fn budgets_truncate_and_say_where() {
    let (x11, atspi) = backends();
    let fixture =
        Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y budget"), &[]);
    let window = window(x11, fixture.pid(), &fixture.title);
    inspect_until(&atspi, &window, "tree", |t| t.fidelity == Fidelity::Full);
    let small =
        atspi.inspect(&window, TreeBudget::new(10, 64, Duration::from_secs(3)).unwrap()).unwrap();
    assert_eq!(small.node_count, 10);
    let cut = small.truncated.as_ref().expect("truncated");
    assert_eq!(cut.by, TruncatedBy::Nodes { max: 10 });
    assert!(!cut.at.is_empty() && cut.at.iter().all(|id| small.find(*id).is_some()));
    assert!(matches!(small.fidelity, Fidelity::Partial { .. }));
    let shallow =
        atspi.inspect(&window, TreeBudget::new(5_000, 2, Duration::from_secs(3)).unwrap()).unwrap();
    assert_eq!(shallow.truncated.as_ref().unwrap().by, TruncatedBy::Depth { max: 2 });
    fn depth(e: &Element) -> usize {
        1 + e.children.iter().map(depth).max().unwrap_or(0)
    }
    assert!(depth(shallow.root.as_ref().unwrap()) <= 3);
    assert!(shallow.render_text().contains("truncated by the depth budget"));
}

#[test]
fn a_tree_of_twenty_thousand_nodes_stays_within_the_budget() {
    let (x11, atspi) = backends();
    let fixture = Fixture::launch(
        Sandbox::shared(module_path!()),
        &unique_title("A11y huge"),
        &["--labels", "20000"],
    );
    let window = window(x11, fixture.pid(), &fixture.title);
    let budget = TreeBudget::new(5_000, 64, Duration::from_secs(10)).unwrap();
    let started = Instant::now();
    let tree = wait_until("huge tree", || {
        atspi.inspect(&window, budget).ok().filter(|t| t.node_count > 100)
    });
    assert!(started.elapsed() < Duration::from_secs(30));
    // Nothing is dropped silently: what was not read is counted.
    let counted: usize = tree
        .root
        .as_ref()
        .unwrap()
        .walk()
        .filter_map(|e| e.omitted_children.as_ref())
        .map(|o| o.count)
        .sum();
    assert!(tree.node_count <= 5_000);
    assert!(tree.node_count + counted >= 20_000, "{} read + {counted} counted", tree.node_count);
    // A budget below what is on screen cuts the read and says so.
    let tight =
        atspi.inspect(&window, TreeBudget::new(100, 64, Duration::from_secs(10)).unwrap()).unwrap();
    assert_eq!(tight.node_count, 100);
    assert_eq!(tight.truncated.as_ref().unwrap().by, TruncatedBy::Nodes { max: 100 });
}

#[test]
fn an_unresponsive_app_times_out_within_the_deadline() {
    let (x11, atspi) = backends();
    let fixture =
        Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y frozen"), &[]);
    let window = window(x11, fixture.pid(), &fixture.title);
    inspect_until(&atspi, &window, "tree", |t| t.fidelity == Fidelity::Full);
    fixture.send(serde_json::json!({"cmd": "freeze", "seconds": 6}));
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let budget = TreeBudget::new(5_000, 64, Duration::from_millis(800)).unwrap();
    let result = atspi.inspect(&window, budget);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(2_000), "took {elapsed:?}");
    match result {
        Err(e) => assert_eq!(e.code(), ErrorCode::Timeout, "{e}"),
        Ok(tree) => assert!(
            matches!(tree.truncated.as_ref().map(|t| &t.by), Some(TruncatedBy::Deadline { .. })),
            "{tree:?}"
        ),
    }
}

#[test]
fn an_app_that_exits_is_gone_not_inaccessible() {
    let (x11, atspi) = backends();
    let mut fixture =
        Fixture::launch(Sandbox::shared(module_path!()), &unique_title("A11y exiting"), &[]);
    let window = window(x11, fixture.pid(), &fixture.title);
    inspect_until(&atspi, &window, "tree", |t| t.fidelity == Fidelity::Full);
    fixture.child.kill().unwrap();
    fixture.child.wait().unwrap();
    let err = atspi.inspect(&window, TreeBudget::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::TargetGone, "{err}");
}

fn spawn(program: &str, args: &[&str]) -> Child {
    Sandbox::shared(module_path!())
        .command(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn xterm_is_inspectable_with_fidelity_none() {
    let (x11, atspi) = backends();
    let title = unique_title("A11y xterm");
    let xterm = Killed(spawn("xterm", &["-title", &title, "-e", "sleep", "600"]));
    let window = window(x11, xterm.0.id(), &title);
    let tree = atspi.inspect(&window, TreeBudget::default()).unwrap();
    let Fidelity::None { reason } = &tree.fidelity else { panic!("{tree:?}") };
    assert!(reason.contains("XTerm"), "{reason}");
    assert!(tree.root.is_none() && tree.node_count == 0);
    assert!(tree.render_text().contains("fidelity none"));
}

#[test]
fn gtk3_widget_factory_reads_fully() {
    let (x11, atspi) = backends();
    let app = Killed(spawn("gtk3-widget-factory", &[]));
    let window = window(x11, app.0.id(), "gtk3-widget-factory");
    let tree = inspect_until(&atspi, &window, "gtk3 factory tree", |t| t.node_count > 100);
    assert_eq!(tree.fidelity, Fidelity::Full);
    let root = tree.root.as_ref().unwrap();
    assert!(root.walk().any(|e| e.role == Role::CheckBox
        && e.name == "checkbutton"
        && e.has(ElementState::Checked)));
    assert!(root.walk().any(|e| e.role == Role::RadioButton && e.name == "Page 2"));
    assert!(root.walk().filter(|e| e.role == Role::SpinButton).all(|e| e.has_value));
}

#[test]
fn gtk4_widget_factory_reads_with_window_relative_extents_fixed() {
    let (x11, atspi) = backends();
    let app = Killed(spawn("gtk4-widget-factory", &[]));
    let window = window(x11, app.0.id(), "GTK Widget Factory");
    let tree = inspect_until(&atspi, &window, "gtk4 factory tree", |t| t.node_count > 100);
    let root = tree.root.as_ref().unwrap();
    let close = root
        .walk()
        .find(|e| e.role == Role::PushButton && e.name == "Close")
        .expect("the header bar's Close button");
    // GTK4 reports window-relative extents; screen bounds must land inside the window.
    let screen = close.screen_bounds.unwrap();
    let g = window.geometry;
    assert!(g.intersection(screen) == Some(screen), "{screen:?} not inside {g:?}");
    assert!(root.walk().any(|e| e.role == Role::PageTab && e.name.contains('2')));
    assert!(!tree.render_text().lines().skip(1).collect::<Vec<_>>().is_empty());
    assert!(tree.render_text().contains("\"Close\""));
}

#[test]
fn fixture_text_rendering_keeps_its_shape() {
    // A desktop and backend of its own: ids start from e1 and focus stays
    // put whatever the other tests do.
    let sandbox = Sandbox::start(Default::default()).unwrap();
    let x11 = X11Backend::connect(Some(sandbox.display())).unwrap();
    let atspi = AtspiBackend::on_session_bus(Some(sandbox.bus_address())).unwrap();
    let fixture = Fixture::launch(&sandbox, &unique_title("A11y snapshot"), &[]);
    let window = window(&x11, fixture.pid(), &fixture.title);
    let tree = inspect_until(&atspi, &window, "tree", |t| t.fidelity == Fidelity::Full);
    let text = tree.render_text();
    let (header, body) = text.split_once('\n').unwrap();
    assert!(header.starts_with(&format!("window {} · fidelity full · ", window.id)), "{header}");
    let body = body.replacen(&format!("frame {:?}", fixture.title), "frame \"<title>\"", 1);
    insta::assert_snapshot!("fixture_tree_text", body);
    drop(fixture);
    sandbox.shutdown();
}

/// The code the host gives a backend's failure (or a model refusal's own).
trait Code {
    fn code(&self) -> glovebox_model::ErrorCode;
}

impl Code for glovebox_platform::BackendError {
    fn code(&self) -> glovebox_model::ErrorCode {
        glovebox_host::refusal_of(self.clone()).code
    }
}

impl Code for glovebox_model::Refusal {
    fn code(&self) -> glovebox_model::ErrorCode {
        self.code
    }
}
