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
use glovebox_testkit::fake::{fake_host, fake_window, fake_world, PROTECTED};
use std::sync::Arc;
use std::time::Duration;

const ME: u32 = 0; // replaced by std::process::id()
const AGENT_HOST: u32 = 900;
const EDITOR: u32 = 1001;
const TERMINAL: u32 = 1002;
const KEEPASS: u32 = 1003;
const ROOT_TOOL: u32 = 1004;

fn window(pid: u32, handle: u32, app: &str, geometry: Rect) -> FakeWindow {
    fake_window(
        WindowId { pid: if pid == ME { std::process::id() } else { pid }, handle },
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

fn id(pid: u32, handle: u32) -> WindowId {
    WindowId { pid, handle }
}

fn click(target: Target) -> Action {
    Action::Click { target, button: Button::Left, count: 1, modifiers: vec![] }
}

const OK_BUTTON: Target = Target::Element(glovebox_model::ElementId::tree(2).unwrap());

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
        |xid| listed.windows.iter().find(|w| w.window.id.handle == xid).unwrap().denial.clone();
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
        listed.windows.iter().find(|w| w.window.id.handle == 0x70).unwrap().denial,
        Some(Denial::SelfTarget { .. })
    ));
    assert!(matches!(
        listed.windows.iter().find(|w| w.window.id.handle == 0x10).unwrap().denial,
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
        |xid| listed.windows.iter().find(|w| w.window.id.handle == xid).unwrap().denial.clone();
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
        listed.windows.iter().find(|w| w.window.id.handle == 0x50).unwrap().denial,
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
            click(Target::Element(glovebox_model::ElementId::tree(77).unwrap()))
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
            under: Some(glovebox_model::ElementId::tree(1).unwrap())
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
    let password = Target::Element(glovebox_model::ElementId::tree(3).unwrap());
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
        seen: None,
        protected: PROTECTED,
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
    let ok = glovebox_model::ElementId::tree(2).unwrap();
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

mod approvals_and_images;
mod guidance;
mod takeover;
mod typing;
