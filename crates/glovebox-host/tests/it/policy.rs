//! Every rule of DESIGN.md §3–§4 and §7 (audit) against the fake desktop,
//! one test per rule, named after it.

use glovebox_host::denials::AncestorRule;
use glovebox_host::process::{current_uid, DeclaredProcesses};
use glovebox_host::{ActRequest, Backends, Host, HostConfig, ObserveRequest};
use glovebox_model::{
    Action, Button, DeliveryMode, Denial, ErrorCode, Monitor, Origin, Point, Rect, Refusal, Scope,
    Target, WindowId, WindowRef,
};
use glovebox_platform::fake::{FakeDesktop, FakeWindow};
use glovebox_testkit::fake::{fake_host, fake_window, fake_world};
use std::sync::Arc;
use std::time::Duration;

const ME: u32 = 0; // replaced by std::process::id()
const AGENT_HOST: u32 = 900;
const EDITOR: u32 = 1001;
const TERMINAL: u32 = 1002;
const KEEPASS: u32 = 1003;
const ROOT_TOOL: u32 = 1004;

fn window(pid: u32, xid: u32, app: &str, geometry: Rect) -> FakeWindow {
    fake_window(
        WindowId { pid: if pid == ME { std::process::id() } else { pid }, xid },
        app,
        &format!("{app} window"),
        geometry,
    )
}

struct World {
    desktop: Arc<FakeDesktop>,
    config: HostConfig,
}

impl World {
    /// A desktop, frontmost first: the agent host's window, an editor, a
    /// terminal, KeePassXC and a tool running as root.
    fn new(name: &str) -> World {
        let desktop = FakeDesktop::new(
            Rect::new(0, 0, 1920, 1080),
            vec![Monitor {
                name: "screen".into(),
                logical: Rect::new(0, 0, 1920, 1080),
                primary: true,
            }],
            vec![
                window(AGENT_HOST, 0x10, "AgentHost", Rect::new(0, 0, 800, 600)),
                window(EDITOR, 0x20, "Editor", Rect::new(100, 100, 640, 480)),
                window(TERMINAL, 0x30, "Terminal", Rect::new(200, 200, 640, 480)),
                window(KEEPASS, 0x40, "KeePassXC", Rect::new(300, 300, 400, 300)),
                window(ROOT_TOOL, 0x50, "RootTool", Rect::new(400, 400, 400, 300)),
            ],
        );
        // Approval prompts have tests of their own; here every class is allowed.
        let config = fake_world(name).config().clone();
        World { desktop: Arc::new(desktop), config }
    }

    fn processes() -> DeclaredProcesses {
        let uid = current_uid();
        DeclaredProcesses::new([
            (std::process::id(), AGENT_HOST, uid, "/usr/bin/glovebox"),
            (AGENT_HOST, 1, uid, "/opt/agent/agent-host"),
            (EDITOR, 1, uid, "/usr/bin/editor"),
            (TERMINAL, 1, uid, "/usr/bin/terminal"),
            (KEEPASS, 1, uid, "/usr/bin/keepassxc"),
            (ROOT_TOOL, 1, uid + 1, "/usr/sbin/root-tool"),
        ])
    }

    fn host(&self) -> Host {
        fake_host(self.desktop.clone(), World::processes(), self.config.clone()).unwrap()
    }

    fn audit_text(&self) -> String {
        std::fs::read_to_string(&self.config.audit_path).unwrap_or_default()
    }
}

fn id(pid: u32, xid: u32) -> WindowId {
    WindowId { pid, xid }
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

const OK_BUTTON: Target = Target::Element(glovebox_model::ElementId(2));

/// A screenshot fitted to `limits`.
fn fitted(limits: glovebox_model::CaptureLimits) -> ObserveRequest {
    ObserveRequest { screenshot: true, marks: false, fit: Some(limits) }
}

fn code(r: Result<impl std::fmt::Debug, Refusal>) -> ErrorCode {
    r.expect_err("expected a refusal").code
}

#[test]
fn desktop_grant_binds_frontmost_allowed_window() {
    let world = World::new("frontmost");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    // The agent host's window is frontmost but is self-target; the editor is next.
    assert_eq!(seen.frame.window, id(EDITOR, 0x20));
    assert_eq!(seen.grant.origin, Origin::Agent);
    assert_eq!(seen.grant.scope, Scope::Desktop);
    assert_eq!(seen.grant.budget_left, 50);
}

#[test]
fn self_target_refused_for_own_and_ancestor_windows() {
    let world = World::new("self");
    world.desktop.windows.lock().unwrap().push(window(
        ME,
        0x60,
        "GloveboxOverlay",
        Rect::new(0, 0, 10, 10),
    ));
    let host = world.host();
    let listed = host.list_windows(None, 1).unwrap();
    let denial =
        |xid| listed.windows.iter().find(|w| w.window.id.xid == xid).unwrap().denial.clone();
    assert!(
        matches!(denial(0x10), Some(Denial::SelfTarget { .. })),
        "the agent host launched glovebox"
    );
    assert!(matches!(denial(0x60), Some(Denial::SelfTarget { .. })), "glovebox's own window");
    assert_eq!(denial(0x20), None);
    host.observe(None, false).unwrap();
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(id(AGENT_HOST, 0x10))), false)),
        ErrorCode::SelfTarget
    );
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(id(std::process::id(), 0x60))), false)),
        ErrorCode::SelfTarget
    );
}

#[test]
fn ancestor_rule_only_widens() {
    let mut world = World::new("ancestors");
    world.config.ancestor_rule = AncestorRule::AncestorsAndTheirChildren;
    // A helper of the agent host (its child, glovebox's sibling) draws its prompts.
    world.desktop.windows.lock().unwrap().push(window(
        1100,
        0x70,
        "AgentPrompt",
        Rect::new(0, 0, 10, 10),
    ));
    let mut processes = World::processes();
    processes.insert(1100, AGENT_HOST, current_uid(), "/opt/agent/prompt");
    let host = fake_host(world.desktop.clone(), processes, world.config.clone()).unwrap();
    let listed = host.list_windows(None, 1).unwrap();
    assert!(matches!(
        listed.windows.iter().find(|w| w.window.id.xid == 0x70).unwrap().denial,
        Some(Denial::SelfTarget { .. })
    ));
    assert!(matches!(
        listed.windows.iter().find(|w| w.window.id.xid == 0x10).unwrap().denial,
        Some(Denial::SelfTarget { .. })
    ));
}

#[test]
fn deny_list_with_built_in_entry_config_cannot_remove() {
    let mut world = World::new("denylist");
    world.config.deny = vec!["Terminal".into()];
    let host = world.host();
    let listed = host.list_windows(None, 1).unwrap();
    let denial =
        |xid| listed.windows.iter().find(|w| w.window.id.xid == xid).unwrap().denial.clone();
    assert_eq!(
        denial(0x40),
        Some(Denial::Denylisted { entry: "keepassxc".into(), built_in: true })
    );
    assert_eq!(
        denial(0x30),
        Some(Denial::Denylisted { entry: "terminal".into(), built_in: false })
    );
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(id(KEEPASS, 0x40))), false)),
        ErrorCode::TargetDenylisted
    );
    // Denied windows stay listed, with their reason.
    assert_eq!(listed.total, 5);
}

#[test]
fn elevated_target_refused() {
    let world = World::new("elevated");
    let host = world.host();
    let listed = host.list_windows(None, 1).unwrap();
    assert!(matches!(
        listed.windows.iter().find(|w| w.window.id.xid == 0x50).unwrap().denial,
        Some(Denial::Elevated { .. })
    ));
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(id(ROOT_TOOL, 0x50))), false)),
        ErrorCode::TargetElevated
    );
}

#[test]
fn whole_desktop_denied_leaves_grant_without_target() {
    let world = World::new("alldenied");
    world
        .desktop
        .windows
        .lock()
        .unwrap()
        .retain(|w| w.info.id.pid == AGENT_HOST || w.info.id.pid == KEEPASS);
    let host = world.host();
    let refused = host.observe(None, false).unwrap_err();
    assert_eq!(refused.code, ErrorCode::TargetGone);
    assert!(refused.message.contains("every window is denied"), "{}", refused.message);
    let status = host.grant_status().unwrap();
    assert_eq!(status.target, None);
    assert!(status.no_target_reason.unwrap().contains("KeePassXC"));
}

#[test]
fn rebind_reruns_all_denials_and_bumps_revision() {
    let world = World::new("rebind");
    let host = world.host();
    let first = host.observe(None, false).unwrap();
    let moved = host.observe(Some(&WindowRef::Id(id(TERMINAL, 0x30))), false).unwrap();
    assert_eq!(moved.frame.window, id(TERMINAL, 0x30));
    assert!(moved.grant.revision > first.grant.revision);
    // The old frame died with the rebind.
    assert_eq!(code(host.act(first.frame.id, click(OK_BUTTON))), ErrorCode::StaleRef);
    // Rebinding onto a denied window is refused and changes nothing.
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(id(KEEPASS, 0x40))), false)),
        ErrorCode::TargetDenylisted
    );
    assert_eq!(host.grant_status().unwrap().target, Some(id(TERMINAL, 0x30)));
    assert!(world.audit_text().contains("grant-rebound"));
}

#[test]
fn window_grant_refuses_rebind() {
    let world = World::new("pinned");
    let host = world.host();
    host.create_grant(Origin::User, Scope::Window, Some(&WindowRef::Id(id(EDITOR, 0x20)))).unwrap();
    host.observe(None, false).unwrap();
    assert_eq!(
        code(host.observe(Some(&WindowRef::Id(id(TERMINAL, 0x30))), false)),
        ErrorCode::ScopeViolation
    );
    assert_eq!(host.grant_status().unwrap().target, Some(id(EDITOR, 0x20)));
}

#[test]
fn stale_basis_when_the_window_moved_or_resized() {
    let world = World::new("basis");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    world.desktop.move_window(id(EDITOR, 0x20), Rect::new(150, 100, 640, 480));
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::StaleBasis);
    let again = host.observe(None, false).unwrap();
    world.desktop.move_window(id(EDITOR, 0x20), Rect::new(150, 100, 600, 480));
    assert_eq!(code(host.act(again.frame.id, click(OK_BUTTON))), ErrorCode::StaleBasis);
    assert!(world.desktop.delivered.lock().unwrap().is_empty(), "nothing was delivered");
}

#[test]
fn stale_revision_when_the_grant_moved_on() {
    let world = World::new("revision");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    // The bound window closes: the desktop grant falls back, the in-flight action is refused.
    world.desktop.close_window(id(EDITOR, 0x20));
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::StaleRevision);
    let status = host.grant_status().unwrap();
    assert_eq!(
        status.target,
        Some(id(TERMINAL, 0x30)),
        "fell back to the frontmost allowed window"
    );
    assert!(status.revision > seen.grant.revision);
}

#[test]
fn window_grant_is_revoked_when_its_window_closes() {
    let world = World::new("closed");
    let host = world.host();
    host.create_grant(Origin::User, Scope::Window, Some(&WindowRef::Id(id(EDITOR, 0x20)))).unwrap();
    let seen = host.observe(None, false).unwrap();
    world.desktop.close_window(id(EDITOR, 0x20));
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::TargetGone);
    assert!(host.grant_status().is_none());
}

#[test]
fn stale_ref_after_an_input_and_for_unknown_ids() {
    let world = World::new("staleref");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    let done = host.act(seen.frame.id, click(OK_BUTTON)).unwrap();
    assert_eq!(done.delivery.route, glovebox_platform::Route::Fake);
    assert_ne!(done.next.as_ref().unwrap().frame.id, seen.frame.id);
    // The input ended the old frame.
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::StaleRef);
    // An id the newest frame does not have.
    assert_eq!(
        code(host.act(
            done.next.as_ref().unwrap().frame.id,
            click(Target::Element(glovebox_model::ElementId(77)))
        )),
        ErrorCode::StaleRef
    );
    assert_eq!(world.desktop.delivered.lock().unwrap().len(), 1);
}

#[test]
fn out_of_bounds_point_is_refused_never_clamped() {
    let world = World::new("bounds");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    for p in [Point { x: 640, y: 10 }, Point { x: 10, y: 480 }, Point { x: -1, y: 5 }] {
        assert_eq!(
            code(host.act(seen.frame.id, click(Target::Point(p)))),
            ErrorCode::CoordinateOutOfBounds
        );
    }
    host.act(seen.frame.id, click(Target::Point(Point { x: 639, y: 479 }))).unwrap();
    let delivered = world.desktop.delivered.lock().unwrap();
    assert_eq!(
        delivered[0].2,
        vec![glovebox_platform::ResolvedTarget::Global {
            at: Point { x: 100 + 639, y: 100 + 479 },
            under: Some(glovebox_model::ElementId(1))
        }]
    );
}

#[test]
fn budget_reaching_zero_closes_the_grant() {
    let mut world = World::new("budget");
    world.config.budget = 2;
    let host = world.host();
    let mut frame = host.observe(None, false).unwrap().frame.id;
    let first = host.act(frame, click(OK_BUTTON)).unwrap();
    assert_eq!(first.next.as_ref().unwrap().grant.budget_left, 1);
    frame = first.next.as_ref().unwrap().frame.id;
    let last = host.act(frame, click(OK_BUTTON)).unwrap();
    assert_eq!(last.grant_closed, Some(ErrorCode::BudgetExhausted));
    assert!(host.grant_status().is_none());
    assert_eq!(
        code(host.act(last.next.as_ref().unwrap().frame.id, click(OK_BUTTON))),
        ErrorCode::NoGrant
    );
    // An agent cannot simply start over; the user can.
    assert_eq!(code(host.observe(None, false)), ErrorCode::BudgetExhausted);
    host.create_grant(Origin::User, Scope::Desktop, None).unwrap();
    host.observe(None, false).unwrap();
}

#[test]
fn a_delivered_action_stays_delivered_when_the_next_observation_is_refused() {
    let world = World::new("afterwards");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    // The click opens something that grabs the keyboard (a menu, a prompt).
    *world.desktop.grab_on_delivery.lock().unwrap() = true;
    let done = host.act(seen.frame.id, click(OK_BUTTON)).unwrap();
    assert_eq!(done.delivery.route, glovebox_platform::Route::Fake);
    assert_eq!(world.desktop.delivered.lock().unwrap().len(), 1);
    assert_eq!(done.next.unwrap_err().code, ErrorCode::SecureInput);
    assert_eq!(host.grant_status().unwrap().budget_left, 49, "the delivered action was paid for");
}

#[test]
fn stop_while_an_action_settles_ends_the_grant_before_the_next_look() {
    let world = World::new("stop-settle");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    let stopper = host.clone();
    // The host waits for the toolkit after delivering; Stop lands inside that wait.
    let stop = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        stopper.stop().unwrap();
    });
    let done = host.act(seen.frame.id, click(OK_BUTTON)).unwrap();
    stop.join().unwrap();
    assert_eq!(
        world.desktop.delivered.lock().unwrap().len(),
        1,
        "what was delivered stays delivered"
    );
    assert_eq!(done.next.unwrap_err().code, ErrorCode::StoppedByUser);
    assert!(done.changes.is_none());
    assert!(host.grant_status().is_none(), "the grant ended");
}

#[test]
fn observations_and_switches_do_not_spend_budget() {
    let world = World::new("free");
    let host = world.host();
    host.observe(None, false).unwrap();
    host.observe(Some(&WindowRef::Id(id(TERMINAL, 0x30))), true).unwrap();
    assert_eq!(host.grant_status().unwrap().budget_left, 50);
}

#[test]
fn idle_expiry_closes_the_grant() {
    let mut world = World::new("expiry");
    world.config.idle_expiry = Duration::from_millis(150);
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    std::thread::sleep(Duration::from_millis(250));
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::GrantExpired);
    assert!(host.grant_status().is_none());
    assert!(world.audit_text().contains("grant-expired"));
}

#[test]
fn frames_expire() {
    let mut world = World::new("framettl");
    world.config.frame_ttl = Duration::from_millis(100);
    let host = world.host();
    let seen = host.observe(None, true).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // A crop of it answers as an input on it does: one freshness rule.
    assert_eq!(
        code(host.zoom(seen.frame.id, glovebox_model::Rect::new(0, 0, 10, 10))),
        ErrorCode::StaleRef
    );
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::StaleRef);
}

#[test]
fn read_only_refuses_input_before_anything_else() {
    let mut world = World::new("readonly");
    world.config.read_only = true;
    let host = world.host();
    assert!(host.capabilities().read_only && !host.capabilities().input);
    let seen = host.observe(None, false).unwrap();
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::ReadOnly);
    // Even a malformed action on a bogus frame is refused as read-only first.
    assert_eq!(
        code(host.act(glovebox_model::FrameId(999), Action::Type { text: String::new() })),
        ErrorCode::ReadOnly
    );
    assert!(world.desktop.delivered.lock().unwrap().is_empty());
}

#[test]
fn secure_input_refuses_capture_and_input_while_a_password_field_has_focus() {
    let world = World::new("secure");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    *world.desktop.password_focus.lock().unwrap() = Some(id(EDITOR, 0x20));
    assert_eq!(code(host.observe(None, true)), ErrorCode::SecureInput);
    // The tree is not read either (DESIGN.md §4: capture and input wait).
    assert_eq!(code(host.observe(None, false)), ErrorCode::SecureInput);
    assert_eq!(
        code(host.act(seen.frame.id, Action::Type { text: "hunter2".into() })),
        ErrorCode::SecureInput
    );
    assert!(world.desktop.delivered.lock().unwrap().is_empty());
    // Focus leaves the field: capture and input work again.
    *world.desktop.password_focus.lock().unwrap() = None;
    let again = host.observe(None, true).unwrap();
    assert!(again.screenshot.is_some());
    host.act(again.frame.id, click(OK_BUTTON)).unwrap();
}

#[test]
fn secure_input_never_writes_into_a_password_field() {
    let world = World::new("pwfield");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    let password = Target::Element(glovebox_model::ElementId(3));
    assert_eq!(
        code(host.act(seen.frame.id, Action::SetValue { target: password, text: "pw".into() })),
        ErrorCode::SecureInput
    );
    assert!(world.desktop.delivered.lock().unwrap().is_empty());
    assert_eq!(host.grant_status().unwrap().budget_left, 50, "a refused action costs nothing");
}

#[test]
fn secure_input_refuses_while_another_client_holds_the_keyboard() {
    let world = World::new("grab");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    *world.desktop.keyboard_grab.lock().unwrap() = true;
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::SecureInput);
    assert_eq!(code(host.observe(None, false)), ErrorCode::SecureInput);
}

#[test]
fn stop_cooldown_refuses_agent_grant_and_user_grant_clears_it() {
    let world = World::new("stop");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    host.stop().unwrap();
    assert!(host.grant_status().is_none());
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::StoppedByUser);
    assert_eq!(code(host.observe(None, false)), ErrorCode::StoppedByUser);
    // The cooldown holds across hosts (processes) on the same display.
    let other = world.host();
    assert_eq!(code(other.observe(None, false)), ErrorCode::StoppedByUser);
    other.create_grant(Origin::User, Scope::Desktop, None).unwrap();
    other.revoke("done");
    host.observe(None, false).unwrap();
}

#[test]
fn one_grant_per_display_across_hosts() {
    let world = World::new("onegrant");
    let first = world.host();
    let second = world.host();
    first.observe(None, false).unwrap();
    let refused = second.observe(None, false).unwrap_err();
    assert_eq!(refused.code, ErrorCode::NoGrant);
    assert!(refused.message.contains("holds this display's grant"));
    first.revoke("done");
    second.observe(None, false).unwrap();
}

#[test]
fn audit_never_contains_typed_text_or_a_password_value() {
    let world = World::new("audit");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    let secret = "typed-SECRET-4711";
    let done = host.act(seen.frame.id, Action::Type { text: secret.into() }).unwrap();
    host.act(
        done.next.as_ref().unwrap().frame.id,
        Action::SetValue { target: OK_BUTTON, text: format!("{secret}-value") },
    )
    .unwrap();
    let before = host.observe(None, false).unwrap();
    *world.desktop.password_focus.lock().unwrap() = Some(id(EDITOR, 0x20));
    assert_eq!(
        code(host.act(before.frame.id, Action::Type { text: "pw-hunter2".into() })),
        ErrorCode::SecureInput
    );
    let audit = world.audit_text();
    assert!(!audit.contains(secret) && !audit.contains("hunter2"), "{audit}");
    assert!(audit.contains(&format!("\"text_length\":{}", secret.len())));
    for event in ["grant-created", "observe", "action", "refusal"] {
        assert!(audit.contains(&format!("\"event\":\"{event}\"")), "{event} missing");
    }
    assert!(audit.contains("COMPUTER_SECURE_INPUT"));
}

#[test]
fn platform_unsupported_answers_every_operation() {
    let world = World::new("unsupported");
    let platform = Arc::new(glovebox_platform::unsupported::UnsupportedPlatform { os: "macos" });
    let backends = Backends {
        windows: platform.clone(),
        capture: platform.clone(),
        accessibility: platform.clone(),
        input: None,
        secure_input: world.desktop.clone(),
        processes: Arc::new(World::processes()),
        launcher: None,
        presence: None,
        agent_display: None,
    };
    let host = Host::open(backends, world.config.clone()).unwrap();
    assert_eq!(code(host.observe(None, false)), ErrorCode::PlatformUnsupported);
    assert_eq!(code(host.list_windows(None, 1)), ErrorCode::PlatformUnsupported);
}

#[test]
fn foreground_delivery_only_when_the_configuration_allows_it() {
    let world = World::new("foreground");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    let budget = seen.grant.budget_left;
    let refused = host
        .perform(ActRequest::new(seen.frame.id, click(OK_BUTTON)).mode(DeliveryMode::Foreground))
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ApprovalDenied);
    assert!(refused.message.contains("glovebox config set input.foreground true"), "{refused}");
    assert!(world.desktop.delivered.lock().unwrap().is_empty());
    assert_eq!(host.grant_status().unwrap().budget_left, budget);
    drop(host);

    let mut allowed = World::new("foreground-allowed");
    allowed.config.allow_foreground = true;
    let host = allowed.host();
    let seen = host.observe(None, false).unwrap();
    host.perform(ActRequest::new(seen.frame.id, click(OK_BUTTON)).mode(DeliveryMode::Foreground))
        .unwrap();
    let delivered = allowed.desktop.delivered.lock().unwrap();
    assert_eq!(delivered[0].3, glovebox_platform::Reach::Foreground);
    // Element targets reach the sink with the centre of their visible part.
    let ok = glovebox_model::ElementId(2);
    assert_eq!(
        delivered[0].2,
        vec![glovebox_platform::ResolvedTarget::Element {
            id: ok,
            center: Some(Point { x: 100 + 10 + 25, y: 100 + 10 + 10 })
        }]
    );
}

#[test]
fn batches_are_checked_step_by_step_and_stop_at_the_first_refusal() {
    let world = World::new("batch");
    let host = world.host();
    let seen = host.observe(None, false).unwrap();
    let budget = seen.grant.budget_left;
    let typing = Action::Type { text: "abc".into() };
    // Invalid shapes run nothing and cost nothing.
    assert_eq!(
        code(host.batch(seen.frame.id, vec![typing.clone()], DeliveryMode::Background)),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        code(host.batch(
            seen.frame.id,
            vec![typing.clone(), click(OK_BUTTON)],
            DeliveryMode::Background
        )),
        ErrorCode::InvalidArgument
    );
    assert!(world.desktop.delivered.lock().unwrap().is_empty());
    // The password field takes focus after the first step: the second is refused, and named.
    *world.desktop.grab_on_delivery.lock().unwrap() = true;
    let done = host
        .batch(seen.frame.id, vec![click(OK_BUTTON), typing], DeliveryMode::Background)
        .unwrap();
    assert_eq!(done.delivered.len(), 1);
    let (step, refusal) = done.failed.unwrap();
    assert_eq!((step, refusal.code), (2, ErrorCode::SecureInput));
    assert_eq!(world.desktop.delivered.lock().unwrap().len(), 1);
    assert_eq!(host.grant_status().unwrap().budget_left, budget - 1);
}

#[test]
fn fitted_observation_scales_down_to_the_callers_limits_and_points_map_back_per_axis() {
    let world = World::new("fitted");
    let host = world.host();
    // The editor is 640×480; a client that declared a 320×320 display sees it at 320×240.
    let limits = glovebox_model::CaptureLimits::new(320, 320).unwrap();
    let seen = host.observe_with(None, fitted(limits)).unwrap();
    assert_eq!(seen.frame.image, glovebox_model::Size::new(320, 240));
    let png = glovebox_platform::RgbImage::decode_png(seen.screenshot.as_ref().unwrap()).unwrap();
    assert_eq!(png.size(), seen.frame.image, "the PNG is the frame's image");
    // Never up: larger limits keep the native size; the plain observe keeps its configured limits.
    assert_eq!(
        host.observe_with(None, fitted(glovebox_model::CaptureLimits::new(4000, 4000).unwrap()))
            .unwrap()
            .frame
            .image,
        glovebox_model::Size::new(640, 480)
    );
    assert_eq!(host.observe(None, true).unwrap().frame.image, glovebox_model::Size::new(640, 480));
    assert_eq!(
        code(host.observe_with(
            None,
            fitted(glovebox_model::CaptureLimits { max_width: 0, max_height: 10 })
        )),
        ErrorCode::InvalidArgument
    );
    let seen = host.observe_with(None, fitted(limits)).unwrap();
    assert_eq!(
        code(host.act(seen.frame.id, click(Target::Point(Point { x: 320, y: 10 })))),
        ErrorCode::CoordinateOutOfBounds
    );
    // Image pixel (319, 239) is native pixels 638..640 × 478..480: its centre lands on (639, 479).
    host.act(seen.frame.id, click(Target::Point(Point { x: 319, y: 239 }))).unwrap();
    let seen = host.observe_with(None, fitted(limits)).unwrap();
    host.act(seen.frame.id, click(Target::Point(Point { x: 0, y: 0 }))).unwrap();
    let delivered = world.desktop.delivered.lock().unwrap();
    let at = |i: usize| match &delivered[i].2[0] {
        glovebox_platform::ResolvedTarget::Global { at, .. } => *at,
        other => panic!("{other:?}"),
    };
    assert_eq!(at(0), Point { x: 100 + 639, y: 100 + 479 });
    assert_eq!(at(1), Point { x: 100 + 1, y: 100 + 1 });
}

fn pixels(png: &[u8]) -> glovebox_platform::RgbImage {
    glovebox_platform::RgbImage::decode_png(png).unwrap()
}

fn colours(image: &glovebox_platform::RgbImage) -> std::collections::HashSet<[u8; 3]> {
    (0..image.height)
        .flat_map(|y| (0..image.width).map(move |x| (x, y)))
        .map(|(x, y)| image.pixel(x, y))
        .collect()
}

#[test]
fn disabled_refuses_before_anything_opens() {
    let mut world = World::new("disabled");
    world.config.enabled = false;
    assert_eq!(
        fake_host(world.desktop.clone(), World::processes(), world.config.clone())
            .err()
            .map(|e| e.code),
        Some(ErrorCode::Disabled)
    );
    assert_eq!(code(world.config.check_enabled()), ErrorCode::Disabled);
}

#[test]
fn observe_deny_refuses_every_observation_tool() {
    let mut world = World::new("observe-deny");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::Custom,
        [
            glovebox_model::Policy::Deny,
            glovebox_model::Policy::Allow,
            glovebox_model::Policy::Allow,
        ],
        &[],
    );
    let host = world.host();
    assert_eq!(code(host.list_windows(None, 1)), ErrorCode::ApprovalDenied);
    assert_eq!(code(host.observe(None, false)), ErrorCode::ApprovalDenied);
    assert_eq!(code(host.observe(None, true)), ErrorCode::ApprovalDenied);
    assert_eq!(
        code(host.switch_window(&WindowRef::Id(id(TERMINAL, 0x30)), false)),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(host.wait(glovebox_model::WaitFor::Seconds(0.5), false)),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(
            host.read_tree(&WindowRef::Id(id(EDITOR, 0x20)), glovebox_model::TreeBudget::default())
        ),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(host.read_window_pixels(
            &WindowRef::Id(id(EDITOR, 0x20)),
            glovebox_model::CaptureLimits::default()
        )),
        ErrorCode::ApprovalDenied
    );
    assert_eq!(
        code(host.read_desktop_pixels(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits::default()
        )),
        ErrorCode::ApprovalDenied
    );
    assert!(!world.audit_text().contains("\"event\":\"observe\""), "nothing was observed");
}

#[test]
fn always_ask_with_a_declined_prompt_refuses_and_captures_nothing() {
    let mut world = World::new("always-ask");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::AlwaysAsk,
        [glovebox_model::Policy::Allow; 3],
        &[],
    );
    let asked: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let seen = asked.clone();
    let host = world.host().with_approver(Arc::new(move |r: &glovebox_host::ApprovalRequest| {
        seen.lock().unwrap().push(r.question());
        glovebox_host::Answer::Declined
    }));
    assert_eq!(code(host.observe(None, true)), ErrorCode::ApprovalDenied);
    assert_eq!(code(host.list_windows(None, 1)), ErrorCode::ApprovalDenied);
    // No prompt channel at all: required, not denied.
    assert_eq!(
        code(host.with_approver(Arc::new(glovebox_host::NoPrompt)).observe(None, false)),
        ErrorCode::ApprovalRequired
    );
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 2);
    assert!(asked[0].contains("take a screenshot") && asked[0].contains("Editor"), "{}", asked[0]);
    assert!(!world.audit_text().contains("\"event\":\"observe\""), "nothing was observed");
}

/// No lock is held while a person is asked: another call of the same host
/// runs to its end meanwhile. Then the approved input is checked again and
/// delivers nothing to a window the prompt did not name.
#[test]
fn a_call_made_while_the_person_is_asked_runs_and_the_approved_input_then_checks_again() {
    let mut world = World::new("approve-act");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::Write,
        [glovebox_model::Policy::Allow; 3],
        &[],
    );
    let base = world.host();
    let seen = base.observe(None, true).unwrap();
    assert_eq!(seen.frame.window, id(EDITOR, 0x20));
    let other = base.clone();
    type Racing = Option<
        Result<Result<glovebox_host::Observation, Refusal>, std::sync::mpsc::RecvTimeoutError>,
    >;
    let racing: Arc<std::sync::Mutex<Racing>> = Arc::default();
    let slot = racing.clone();
    let questions: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let asked = questions.clone();
    let host = base.with_approver(Arc::new(move |r: &glovebox_host::ApprovalRequest| {
        asked.lock().unwrap().push(r.question());
        // While the user reads the prompt, another call rebinds the grant
        // to the terminal and observes it, and finishes before the answer.
        let other = other.clone();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(other.switch_window(&WindowRef::Id(id(TERMINAL, 0x30)), false));
        });
        *slot.lock().unwrap() = Some(finished.recv_timeout(Duration::from_secs(10)));
        glovebox_host::Answer::Approved
    }));
    let refused = host.act(seen.frame.id, click(OK_BUTTON)).unwrap_err();
    let switched = racing
        .lock()
        .unwrap()
        .take()
        .unwrap()
        .expect("the other call finished while the person was asked")
        .unwrap();
    assert_eq!(switched.frame.window, id(TERMINAL, 0x30));
    // Rebinding ended every frame of the editor.
    assert_eq!(refused.code, ErrorCode::StaleRef, "{refused}");
    assert!(
        world.desktop.delivered.lock().unwrap().is_empty(),
        "nothing delivered after the grant moved"
    );
    let questions = questions.lock().unwrap();
    assert!(
        questions[0].contains("push button \"OK\"")
            && questions[0].contains(&id(EDITOR, 0x20).to_string()),
        "{}",
        questions[0]
    );
}

/// The same for an observation: asked about one window, it reads no other.
#[test]
fn an_observation_approved_while_the_grant_moved_reads_nothing() {
    let mut world = World::new("approve-observe");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::AlwaysAsk,
        [glovebox_model::Policy::Allow; 3],
        &[],
    );
    let base = world.host();
    let approving = base.with_approver(Arc::new(|_: &glovebox_host::ApprovalRequest| {
        glovebox_host::Answer::Approved
    }));
    approving.observe(None, false).unwrap();
    let other = approving.clone();
    let host = base.with_approver(Arc::new(move |_: &glovebox_host::ApprovalRequest| {
        let other = other.clone();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(other.switch_window(&WindowRef::Id(id(TERMINAL, 0x30)), false));
        });
        finished
            .recv_timeout(Duration::from_secs(10))
            .expect("the other call finished while the person was asked")
            .unwrap();
        glovebox_host::Answer::Approved
    }));
    let refused = host.observe(None, true).unwrap_err();
    assert_eq!(refused.code, ErrorCode::StaleRevision, "{refused}");
}

#[test]
fn consequential_targets_ask_inside_an_approved_span_unless_shown() {
    let mut world = World::new("span");
    world.config.approvals = glovebox_host::Approvals::new(
        glovebox_model::ApprovalMode::Write,
        [glovebox_model::Policy::Allow; 3],
        &["ok".to_owned()],
    );
    let asked: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let seen = asked.clone();
    let host = world.host().with_approver(Arc::new(move |r: &glovebox_host::ApprovalRequest| {
        seen.lock().unwrap().push(r.question());
        glovebox_host::Answer::Approved
    }));
    let span = glovebox_host::Span {
        class: glovebox_model::ApprovalClass::Input,
        actions: vec!["run a task".into()],
        targets: vec![],
        text_characters: 0,
        detail: None,
        started_by_user: false,
    };
    let run = host.approve_span(span).unwrap();
    let first = run.observe(None, false).unwrap();
    let next = run.act(first.frame.id, Action::Type { text: "x".into() }).unwrap().next.unwrap();
    assert_eq!(
        asked.lock().unwrap().len(),
        1,
        "the span's one prompt; typing inside it asks nothing more"
    );
    run.act(next.frame.id, click(OK_BUTTON)).unwrap();
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 2, "the consequential \"OK\" asked again");
    assert!(asked[1].contains("Asking because \"OK\" reads like \"ok\""), "{}", asked[1]);
}

#[test]
fn a_window_screenshot_holds_that_window_alone_and_says_what_was_covered() {
    let world = World::new("occluded");
    // The agent host's window (frontmost) lies over the editor's top-left corner.
    world.desktop.move_window(id(AGENT_HOST, 0x10), Rect::new(0, 0, 300, 250));
    let host = world.host();
    let seen = host.observe(None, true).unwrap();
    assert_eq!(seen.frame.window, id(EDITOR, 0x20));
    assert_eq!(seen.frame.occluded, vec![Rect::new(100, 100, 200, 150)]);
    let image = pixels(seen.screenshot.as_ref().unwrap());
    let found = colours(&image);
    assert!(!found.contains(&[0x10, 0, 0]), "no pixel of the window lying over it");
    assert!(found.contains(&[0x20, 0, 0]), "the editor's own pixels");
    assert_eq!(image.pixel(10, 10), [0, 0, 0], "the covered corner is black");
    let outside = host
        .read_window_pixels(
            &WindowRef::Id(id(EDITOR, 0x20)),
            glovebox_model::CaptureLimits::default(),
        )
        .unwrap();
    assert_eq!(outside.frame.occluded, vec![Rect::new(100, 100, 200, 150)]);
    assert!(!colours(&outside.image).contains(&[0x10, 0, 0]));
}

#[test]
fn a_desktop_image_blacks_out_every_denied_window() {
    let world = World::new("desktop-redacted");
    let host = world.host();
    let capture = host
        .read_desktop_pixels(
            &glovebox_model::DisplaySelection::All,
            glovebox_model::CaptureLimits::new(1920, 1080).unwrap(),
        )
        .unwrap();
    let found = colours(&capture.image);
    for (denied, what) in [
        ([0x10, 0, 0], "glovebox's launcher"),
        ([0x40, 0, 0], "KeePassXC"),
        ([0x50, 0, 0], "a root tool"),
    ] {
        assert!(!found.contains(&denied), "{what} shows in the desktop image");
    }
    // The editor lies wholly under the launcher's window; the terminal reaches past it.
    assert!(found.contains(&[0x30, 0, 0]), "allowed windows show");
    assert_eq!(capture.image.pixel(10, 10), [0, 0, 0], "where the launcher's window was is black");
    assert!(!capture.frame.occluded.is_empty());
}

#[test]
fn reads_outside_a_grant_refuse_secure_input_and_denied_windows() {
    let world = World::new("reads");
    let host = world.host();
    let editor = WindowRef::Id(id(EDITOR, 0x20));
    assert!(host.read_tree(&editor, glovebox_model::TreeBudget::default()).is_ok());
    assert_eq!(
        code(
            host.read_tree(
                &WindowRef::Id(id(KEEPASS, 0x40)),
                glovebox_model::TreeBudget::default()
            )
        ),
        ErrorCode::TargetDenylisted
    );
    assert_eq!(
        code(host.read_window_pixels(
            &WindowRef::Id(id(AGENT_HOST, 0x10)),
            glovebox_model::CaptureLimits::default()
        )),
        ErrorCode::SelfTarget
    );
    *world.desktop.password_focus.lock().unwrap() = Some(id(EDITOR, 0x20));
    assert_eq!(
        code(host.read_tree(&editor, glovebox_model::TreeBudget::default())),
        ErrorCode::SecureInput
    );
    assert_eq!(
        code(host.read_window_pixels(&editor, glovebox_model::CaptureLimits::default())),
        ErrorCode::SecureInput
    );
    *world.desktop.password_focus.lock().unwrap() = None;
    assert!(
        host.read_window_pixels(&editor, glovebox_model::CaptureLimits::default()).is_ok(),
        "works again once focus leaves"
    );
}

#[test]
fn a_window_partly_off_screen_still_takes_actions() {
    let world = World::new("offscreen");
    world.desktop.move_window(id(EDITOR, 0x20), Rect::new(-100, 100, 640, 480));
    let host = world.host();
    let seen = host.observe(None, true).unwrap();
    assert_eq!(
        seen.frame.geometry,
        Rect::new(-100, 100, 640, 480),
        "the window as measured, not clipped"
    );
    assert_eq!(seen.frame.image.width, 540, "the image shows the part on screen");
    host.act(seen.frame.id, click(Target::Point(glovebox_model::Point { x: 50, y: 20 }))).unwrap();
    let delivered = world.desktop.delivered.lock().unwrap().clone();
    assert!(
        matches!(
            delivered[0].2[0],
            glovebox_platform::ResolvedTarget::Global {
                at: glovebox_model::Point { x: 50, y: 120 },
                ..
            }
        ),
        "{:?}",
        delivered[0].2
    );
}

#[derive(Default)]
struct DrawnCursor(std::sync::Mutex<Vec<String>>);

impl glovebox_platform::Presence for DrawnCursor {
    fn aim(&self, at: glovebox_model::Point) {
        self.0.lock().unwrap().push(format!("aim {} {}", at.x, at.y));
    }
    fn press(&self) {
        self.0.lock().unwrap().push("press".into());
    }
    fn hide(&self) {
        self.0.lock().unwrap().push("hide".into());
    }
}

#[test]
fn the_agents_cursor_appears_with_the_first_look_aims_before_delivery_and_goes_with_the_grant() {
    let world = World::new("cursor");
    let cursor = Arc::new(DrawnCursor::default());
    let mut backends =
        Backends::of_fake_desktop(world.desktop.clone(), Arc::new(World::processes()));
    backends.presence = Some(cursor.clone());
    let host = Host::open(backends, world.config.clone()).unwrap();
    host.observe(None, false).unwrap();
    assert_eq!(*cursor.0.lock().unwrap(), ["aim 116 116"], "inside the editor's top-left corner");
    let seen = host.observe(None, false).unwrap();
    assert_eq!(cursor.0.lock().unwrap().len(), 1, "the same grant and window: the cursor stays");
    // A refused action draws nothing; a delivered one aims at the element's centre, then presses.
    assert_eq!(
        code(host.act(seen.frame.id, click(Target::Element(glovebox_model::ElementId(99))))),
        ErrorCode::StaleRef
    );
    assert_eq!(cursor.0.lock().unwrap().len(), 1);
    host.act(seen.frame.id, click(OK_BUTTON)).unwrap();
    assert_eq!(cursor.0.lock().unwrap()[1..], ["aim 135 120", "press"]);
    let view = host.presence_view();
    assert_eq!(view.grant.as_ref().unwrap().budget_left, 49);
    assert!(view.recent.last().unwrap().result.starts_with("delivered by"), "{:?}", view.recent);
    host.stop().unwrap();
    assert_eq!(cursor.0.lock().unwrap().last().unwrap(), "hide");
    assert!(host.presence_view().grant.is_none() && host.presence_view().stopped);
}
