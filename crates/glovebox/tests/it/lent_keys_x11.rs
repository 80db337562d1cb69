//! Text no key of the layout produces ("Zoë Müller 東京"), typed in the
//! background on lent key codes while the user types into another window
//! with the real keyboard at the same moment: each window gets exactly its
//! own text, the keyboard mapping is the same afterwards, and the user's
//! pointer, focus and stacking order are untouched. Text no route can type
//! is refused before any character is sent.
#![cfg(target_os = "linux")]

use glovebox_host::{Host, Observation};
use glovebox_model::{Action, ErrorCode, WindowId, WindowRef};
use glovebox_platform::Route;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;

const AGENT_TEXT: &str = "Zoë Müller 東京";
const USER_TEXT: &str = "the user types this meanwhile";

struct Stage {
    host: Host,
    target: Fixture,
    user: Fixture,
    window: WindowId,
    sandbox: &'static Sandbox,
}

impl Stage {
    fn new(sandbox: &'static Sandbox, name: &str) -> Stage {
        let host = glovebox_testkit::host(sandbox, &format!("lent-{name}")).shared_runtime().open();
        // Without a password field: keys into an inactive window whose focus is unknown are refused where one exists.
        let target = Fixture::launch(
            sandbox,
            &unique_title(&format!("Lent target {name}")),
            &["--x", "40", "--y", "40", "--no-password"],
        );
        let user = Fixture::launch(
            sandbox,
            &unique_title(&format!("Lent user {name}")),
            &["--x", "900", "--y", "40", "--no-password"],
        );
        for fixture in [&target, &user] {
            fixture.send(serde_json::json!({"cmd": "focus", "widget": "name"}));
            fixture.wait_state("name focused", |s| s["focus"] == "name");
        }
        // The user works in their own window; the agent's target stays in the background.
        user.activate();
        let window = wait_until("target listed", || {
            host.list_windows(Some(&target.title), 1)
                .ok()?
                .windows
                .into_iter()
                .next()
                .map(|w| w.window.id)
        });
        Stage { host, target, user, window, sandbox }
    }

    fn observe(&self) -> Observation {
        wait_until("target tree", || {
            self.host
                .observe(Some(&WindowRef::Id(self.window)), false)
                .ok()
                .filter(|o| o.tree.node_count > 10)
        })
    }

    /// Pointer, stacking order and active window.
    fn desktop(&self) -> ((i16, i16), Vec<WindowId>, Option<WindowId>) {
        let windows = self.host.list_windows(None, 1).unwrap().windows;
        (
            self.sandbox.pointer().unwrap(),
            windows.iter().map(|w| w.window.id).collect(),
            windows.iter().find(|w| w.window.focused).map(|w| w.window.id),
        )
    }

    /// The server's keyboard mapping as `xmodmap` prints it.
    fn keymap(&self) -> String {
        let out = self
            .sandbox
            .command("xmodmap")
            .arg("-pke")
            .output()
            .expect("xmodmap (x11-xserver-utils)");
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn text_no_key_produces_goes_to_its_window_while_the_user_types_in_theirs() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let stage = Stage::new(sandbox, "concurrent");
    let keymap_before = stage.keymap();
    let desktop_before = stage.desktop();
    let seen = stage.observe();
    // The user's own typing (XTest into the focused window), under way while glovebox types.
    let mut typing = stage
        .sandbox
        .command("xdotool")
        .args(["type", "--delay", "12", USER_TEXT])
        .spawn()
        .expect("xdotool");
    std::thread::sleep(std::time::Duration::from_millis(60));
    let done = stage
        .host
        .act(seen.frame.id, Action::Type { text: AGENT_TEXT.into() })
        .expect("typed in the background");
    assert!(typing.wait().unwrap().success());
    assert!(
        matches!(done.delivery.route.base(), Route::WindowEvents(_) | Route::ThenKeys(..)),
        "{}",
        done.delivery.route
    );
    stage
        .target
        .wait_state("the agent's text in its window", |s| s["values"]["name"] == AGENT_TEXT);
    stage
        .user
        .wait_state("the user's text in theirs, exactly", |s| s["values"]["name"] == USER_TEXT);
    assert_eq!(stage.keymap(), keymap_before, "every lent key code was given back");
    assert_eq!(
        stage.desktop(),
        desktop_before,
        "the user's pointer, stacking and focus are untouched"
    );
}

#[test]
fn text_no_route_can_type_is_refused_before_any_character_is_sent() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let stage = Stage::new(sandbox, "refused");
    let keymap_before = stage.keymap();
    // More different characters than the keyboard has spare key codes to lend.
    let too_many: String = ('\u{4e00}'..='\u{4fff}').collect();
    for text in ["ok\u{7}bell", too_many.as_str()] {
        let seen = stage.observe();
        let budget = seen.grant.budget_left;
        let refusal =
            stage.host.act(seen.frame.id, Action::Type { text: text.into() }).unwrap_err();
        assert!(
            matches!(refusal.code, ErrorCode::BackgroundUnavailable | ErrorCode::InvalidArgument),
            "{}: {refusal}",
            text.chars().take(8).collect::<String>()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(
            stage.target.state().unwrap()["values"]["name"],
            "",
            "nothing was typed: {refusal}"
        );
        assert_eq!(
            stage.host.grant_status().map(|g| g.budget_left),
            Some(budget),
            "a refusal costs nothing"
        );
    }
    assert_eq!(stage.keymap(), keymap_before);
}
