//! `glovebox mcp` and `glovebox serve` driven by the official MCP Python
//! SDK (`Client`, pinned in `.ci/install-deps`) in each of its connect
//! modes — `auto` (probes `server/discover`, adopts 2026-07-28), pinned to
//! `2026-07-28`, and `legacy` (the initialize handshake) — and by the
//! official TypeScript SDKs (v1 `@modelcontextprotocol/sdk`, v2
//! `@modelcontextprotocol/client` in its default, auto and pinned modes),
//! with a user who accepts, declines or cancels each approval prompt. Oracles: the
//! fixture's own state, the audit log (one delivered action per approved
//! call), and the user's desktop (pointer, stacking, focus, a sentinel
//! window) unchanged.
#![cfg(target_os = "linux")]

use glovebox_host::Host;
use glovebox_sandbox::fixture::{unique_title, wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::desktop::Desktop;
use serde_json::Value;
use std::path::{Path, PathBuf};

mod ask;
mod race;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sdk_python() -> PathBuf {
    let python = repo().join("target/sdk-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash .ci/install-deps` (it installs the pinned SDK clients)",
        python.display()
    );
    python
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-mcp-current-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An in-process host that only looks, for the desktop oracle.
fn looker(sandbox: &Sandbox) -> Host {
    glovebox_testkit::host(sandbox, "mcp-current-looker").open()
}

/// Runs `testapps/sdk_mcp_approvals.py` against `server`; its report and the audit it left.
/// A user of the client script: its connect mode, what it answers every
/// prompt, the fixture's title and the name it sets.
struct User<'a> {
    mode: &'a str,
    answer: &'a str,
    title: &'a str,
    name: &'a str,
}

fn client(
    sandbox: &Sandbox,
    home: &Path,
    user: User,
    server: &[&str],
    token: Option<&str>,
) -> Value {
    let mut command = sandbox.command_in_home(sdk_python(), home);
    command.arg(repo().join("testapps/sdk_mcp_approvals.py"));
    run_client(command, user, server, token)
}

/// [`client`] with more environment (`SUBMIT_BUTTON`: the button's label).
fn client_with(
    sandbox: &Sandbox,
    home: &Path,
    user: User,
    server: &[&str],
    env: &[(&str, &str)],
) -> Value {
    let mut command = sandbox.command_in_home(sdk_python(), home);
    command.arg(repo().join("testapps/sdk_mcp_approvals.py")).envs(env.iter().copied());
    run_client(command, user, server, None)
}

/// Runs `testapps/node/mcp_approvals.mjs` (the official TypeScript SDKs);
/// `user.mode` names the SDK and its mode (`v1`, `v2-default`, `v2-auto`, `v2-2026-07-28`).
fn ts_client(sandbox: &Sandbox, home: &Path, user: User, server: &[&str]) -> Value {
    ts_client_with(sandbox, home, user, server, &[])
}

fn ts_client_with(
    sandbox: &Sandbox,
    home: &Path,
    user: User,
    server: &[&str],
    env: &[(&str, &str)],
) -> Value {
    let script = repo().join("testapps/node/mcp_approvals.mjs");
    assert!(
        repo().join("testapps/node/node_modules/@modelcontextprotocol/client").exists(),
        "the TypeScript SDKs are missing: run `bash .ci/install-deps` (it installs them from testapps/node/package-lock.json)"
    );
    let mut command = sandbox.command_in_home("node", home);
    command.arg(script).envs(env.iter().copied());
    run_client(command, user, server, None)
}

fn run_client(
    mut command: std::process::Command,
    user: User,
    server: &[&str],
    token: Option<&str>,
) -> Value {
    let User { mode, answer, title, name } = user;
    command.args([mode, answer, title, name]).args(server);
    // The default approval mode: observing allowed, input asks.
    command.env("GLOVEBOX_ENABLED", "true");
    if let Some(token) = token {
        command.env("GLOVEBOX_TOKEN", token);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{mode}/{answer}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// The `action` records of the audit trail under `home`.
fn delivered_actions(home: &Path) -> usize {
    let audit =
        std::fs::read_to_string(home.join("state/glovebox/audit/audit.jsonl")).unwrap_or_default();
    audit.lines().filter(|l| l.contains("\"event\":\"action\"")).count()
}

fn refused_with(report: &Value, tool: &str, code: &str) -> bool {
    report["calls"][tool]["error"] == true
        && report["calls"][tool]["text"].as_str().is_some_and(|t| t.starts_with(code))
}

#[test]
fn python_sdk_in_every_connect_mode_delivers_with_approval_and_nothing_without() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = looker(sandbox);
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("MCP current"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("MCP current user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    sentinel.activate();
    wait_until("both windows listed", || {
        (host.list_windows(None, 1).ok()?.windows.len() >= 2).then_some(())
    });
    let before = Desktop::now(&host, sandbox, &sentinel);
    let mcp = [env!("CARGO_BIN_EXE_glovebox"), "mcp"];
    for (done, (mode, protocol)) in
        [("auto", "2026-07-28"), ("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")]
            .into_iter()
            .enumerate()
    {
        let submits = done + 1;
        let home = scratch(&format!("accept-{mode}"));
        let name = format!("Ada {mode}");
        let report = client(
            sandbox,
            &home,
            User { mode, answer: "accept", title: &fixture.title, name: &name },
            &mcp,
            None,
        );
        assert_eq!(report["protocol"], protocol, "{report}");
        // The 2.5 s wait said it was working, once a second, counting up.
        let progress: Vec<f64> = report["progress"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["progress"].as_f64().unwrap())
            .collect();
        assert!(
            progress.len() >= 2 && progress.windows(2).all(|w| w[0] < w[1]),
            "{mode}: {report}"
        );
        assert!(
            report["progress"][0]["message"].as_str().unwrap().starts_with("still working"),
            "{report}"
        );
        let prompts: Vec<&str> =
            report["prompts"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert_eq!(prompts.len(), 2, "one prompt per input call: {prompts:?}");
        assert!(
            prompts[0].contains("set the value")
                && prompts[0].contains("\"Name\"")
                && prompts[0].contains(&format!(": \"{name}\"")),
            "{}",
            prompts[0]
        );
        assert!(prompts[1].contains("push button \"Submit\""), "{}", prompts[1]);
        assert_eq!(report["calls"]["set_value"]["error"], false, "{report}");
        assert_eq!(report["calls"]["click"]["error"], false, "{report}");
        let state = fixture.wait_state("the approved calls", |s| {
            s["values"]["name"] == name.as_str() && s["clicks"]["submit"] == submits
        });
        assert_eq!(state["window_active"], false, "the fixture stayed in the background");
        assert_eq!(
            delivered_actions(&home),
            2,
            "{mode}: each answer approved exactly one delivery"
        );
    }
    for answer in ["decline", "cancel"] {
        let home = scratch(answer);
        let report = client(
            sandbox,
            &home,
            User { mode: "auto", answer, title: &fixture.title, name: "never set" },
            &mcp,
            None,
        );
        assert_eq!(report["protocol"], "2026-07-28");
        assert_eq!(report["prompts"].as_array().unwrap().len(), 2, "{report}");
        assert!(
            refused_with(&report, "set_value", "COMPUTER_APPROVAL_DENIED")
                && refused_with(&report, "click", "COMPUTER_APPROVAL_DENIED"),
            "{report}"
        );
        assert_eq!(delivered_actions(&home), 0);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let state = fixture.state().unwrap();
    assert_eq!(
        (state["values"]["name"].as_str(), state["clicks"]["submit"].as_i64()),
        (Some("Ada legacy"), Some(3)),
        "declined and cancelled calls changed nothing"
    );
    assert_eq!(
        Desktop::now(&host, sandbox, &sentinel),
        before,
        "pointer, stacking, focus and the user's window as they were"
    );
}

#[test]
fn typescript_sdks_deliver_with_approval_and_nothing_without() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = looker(sandbox);
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("MCP typescript"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("MCP typescript user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    sentinel.activate();
    wait_until("both windows listed", || {
        (host.list_windows(None, 1).ok()?.windows.len() >= 2).then_some(())
    });
    let before = Desktop::now(&host, sandbox, &sentinel);
    let mcp = [env!("CARGO_BIN_EXE_glovebox"), "mcp"];
    // v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/client`)
    // in its default mode speak the handshake era; v2 probes or pins 2026-07-28.
    let modes = [
        ("v1", "2025-11-25"),
        ("v2-default", "2025-11-25"),
        ("v2-auto", "2026-07-28"),
        ("v2-2026-07-28", "2026-07-28"),
    ];
    for (done, (mode, protocol)) in modes.into_iter().enumerate() {
        let home = scratch(&format!("ts-accept-{mode}"));
        let name = format!("Grace {mode}");
        let report = ts_client(
            sandbox,
            &home,
            User { mode, answer: "accept", title: &fixture.title, name: &name },
            &mcp,
        );
        assert_eq!(report["protocol"], protocol, "{report}");
        let prompts = report["prompts"].as_array().unwrap();
        assert_eq!(prompts.len(), 2, "one prompt per input call: {report}");
        assert!(prompts[1].as_str().unwrap().contains("push button \"Submit\""), "{report}");
        assert_eq!(
            (
                report["calls"]["set_value"]["error"].as_bool(),
                report["calls"]["click"]["error"].as_bool()
            ),
            (Some(false), Some(false)),
            "{report}"
        );
        fixture.wait_state("the approved calls", |s| {
            s["values"]["name"] == name.as_str() && s["clicks"]["submit"] == done + 1
        });
        assert_eq!(
            delivered_actions(&home),
            2,
            "{mode}: each answer approved exactly one delivery"
        );
    }
    for (mode, answer) in [("v2-auto", "decline"), ("v2-2026-07-28", "cancel"), ("v1", "decline")] {
        let home = scratch(&format!("ts-{mode}-{answer}"));
        let report = ts_client(
            sandbox,
            &home,
            User { mode, answer, title: &fixture.title, name: "never set" },
            &mcp,
        );
        assert_eq!(report["prompts"].as_array().unwrap().len(), 2, "{report}");
        assert!(
            refused_with(&report, "set_value", "COMPUTER_APPROVAL_DENIED")
                && refused_with(&report, "click", "COMPUTER_APPROVAL_DENIED"),
            "{report}"
        );
        assert_eq!(delivered_actions(&home), 0);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let state = fixture.state().unwrap();
    assert_eq!(
        (state["values"]["name"].as_str(), state["clicks"]["submit"].as_i64()),
        (Some("Grace v2-2026-07-28"), Some(4)),
        "declined and cancelled calls changed nothing"
    );
    assert_eq!(
        Desktop::now(&host, sandbox, &sentinel),
        before,
        "pointer, stacking, focus and the user's window as they were"
    );
}

/// A dialog nobody here wrote (zenity's form) filled and confirmed through
/// the Python and TypeScript SDKs on 2026-07-28; the oracle is what zenity
/// prints when its OK is pressed.
#[test]
fn a_real_dialog_is_filled_through_the_sdks_on_the_current_protocol() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let host = looker(sandbox);
    let sentinel = Fixture::launch(
        sandbox,
        &unique_title("MCP zenity user"),
        &["--no-password", "--x", "900", "--y", "60"],
    );
    let mcp = [env!("CARGO_BIN_EXE_glovebox"), "mcp"];
    for (sdk, mode) in [("python", "auto"), ("typescript", "v2-auto")] {
        let title = unique_title("Zenity form");
        let zenity = sandbox
            .command("zenity")
            .args(["--forms", "--title", &title, "--add-entry=Name"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let dialog = wait_until("the dialog", || {
            host.list_windows(Some(&title), 1).ok()?.windows.first().map(|w| w.window.id)
        });
        // zenity may take the focus as it maps, after a first activation:
        // the user's window is made active until it stays so.
        let before = wait_until("the user's window focused", || {
            sentinel.activate();
            std::thread::sleep(std::time::Duration::from_millis(200));
            let desktop = Desktop::now(&host, sandbox, &sentinel);
            (desktop.sentinel[4] == true && desktop.focused != Some(dialog)).then_some(desktop)
        });
        let home = scratch(&format!("zenity-{sdk}"));
        let name = format!("Ada via {sdk}");
        let user = User { mode, answer: "accept", title: &title, name: &name };
        let report = match sdk {
            "python" => client_with(sandbox, &home, user, &mcp, &[("SUBMIT_BUTTON", "OK")]),
            _ => ts_client_with(sandbox, &home, user, &mcp, &[("SUBMIT_BUTTON", "OK")]),
        };
        assert_eq!(report["protocol"], "2026-07-28", "{report}");
        assert_eq!(report["prompts"].as_array().unwrap().len(), 2, "{report}");
        let out = zenity.wait_with_output().unwrap();
        assert_eq!(
            (out.status.code(), String::from_utf8_lossy(&out.stdout).trim()),
            (Some(0), name.as_str()),
            "zenity printed what was typed: {report}"
        );
        assert_eq!(delivered_actions(&home), 2);
        let mut after = Desktop::now(&host, sandbox, &sentinel);
        after.stacking.insert(before.stacking.iter().position(|w| *w == dialog).unwrap(), dialog);
        assert_eq!(
            after, before,
            "pointer, stacking (but the closed dialog), focus and the user's window as they were"
        );
    }
}

/// The MCP Inspector's CLI (`mcpdo`) as a person at a shell: connected in
/// its `auto` and `modern` eras, answering with `elicitation/respond`.
#[test]
fn the_inspector_cli_approves_and_declines_like_a_person_at_a_shell() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("MCP inspector"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let mcpdo = repo().join("testapps/node/node_modules/.bin/mcpdo");
    assert!(mcpdo.exists(), "the MCP Inspector is missing: run `bash .ci/install-deps`");
    let run = |era: &str, answer: &str, name: &str| {
        let home = scratch(&format!("inspector-{era}-{answer}"));
        let mut command = sandbox.command_in_home("/usr/bin/python3", &home);
        command.arg(repo().join("testapps/inspector_mcpdo.py")).arg(&mcpdo).args([
            era,
            answer,
            &fixture.title,
            name,
            env!("CARGO_BIN_EXE_glovebox"),
            "mcp",
        ]);
        command.env("GLOVEBOX_ENABLED", "true");
        let out = command.output().unwrap();
        assert!(out.status.success(), "{era}/{answer}: {}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        (report, home)
    };
    let (accepted, home) = run("auto", "accept", "Ada inspector");
    assert_eq!(accepted["protocol"], "modern", "{accepted}");
    assert_eq!(
        accepted["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect::<Vec<_>>(),
        glovebox_mcp::TOOL_ORDER
    );
    assert_eq!(accepted["prompts"].as_array().unwrap().len(), 2, "{accepted}");
    assert_eq!(
        (
            accepted["calls"]["set_value"]["error"].as_bool(),
            accepted["calls"]["click"]["error"].as_bool()
        ),
        (Some(false), Some(false)),
        "{accepted}"
    );
    fixture.wait_state("the approved calls", |s| {
        s["values"]["name"] == "Ada inspector" && s["clicks"]["submit"] == 1
    });
    assert_eq!(delivered_actions(&home), 2);
    let (declined, home) = run("modern", "decline", "never set");
    assert!(
        refused_with(&declined, "set_value", "COMPUTER_APPROVAL_DENIED")
            && refused_with(&declined, "click", "COMPUTER_APPROVAL_DENIED"),
        "{declined}"
    );
    assert_eq!(delivered_actions(&home), 0);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let state = fixture.state().unwrap();
    assert_eq!(
        (state["values"]["name"].as_str(), state["clicks"]["submit"].as_i64()),
        (Some("Ada inspector"), Some(1))
    );
}

#[test]
fn retries_with_answers_that_do_not_belong_to_the_call_deliver_nothing() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("MCP adversary"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let home = scratch("adversary");
    let mcp = [env!("CARGO_BIN_EXE_glovebox"), "mcp"];
    let report = client(
        sandbox,
        &home,
        User { mode: "2026-07-28", answer: "adversary", title: &fixture.title, name: "Eve" },
        &mcp,
        None,
    );
    let cases = &report["adversary"];
    let starts = |case: &str, code: &str| cases[case].as_str().is_some_and(|t| t.starts_with(code));
    assert!(
        starts("other arguments", "COMPUTER_APPROVAL_REQUIRED")
            && cases["other arguments"].as_str().unwrap().contains("another call"),
        "{cases}"
    );
    assert!(starts("malformed response", "COMPUTER_INVALID_ARGUMENT"), "{cases}");
    assert!(starts("forged state", "COMPUTER_APPROVAL_REQUIRED"), "{cases}");
    assert!(starts("garbage state", "COMPUTER_INVALID_ARGUMENT"), "{cases}");
    assert!(cases["answered"].as_str().unwrap().starts_with("delivered by"), "{cases}");
    // A spent state is a call with no answer: asked again, nothing delivered.
    assert_eq!(cases["replayed"], "input required again", "{cases}");
    assert_eq!(
        cases["stale frame"], "input required again",
        "an answer given on one frame never approves another: {cases}"
    );
    // The user approved Name and Submit, and Cancel once by hand; nothing else arrived.
    let state = fixture.wait_state("the approved calls", |s| s["clicks"]["submit"] == 1);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let state = fixture.state().unwrap_or(state);
    assert_eq!(
        (state["values"]["name"].as_str(), state["clicks"]["cancel"].as_i64()),
        (Some("Eve"), Some(1)),
        "{state}"
    );
    assert_eq!(delivered_actions(&home), 3);
}

#[test]
fn two_clients_on_one_http_server_each_approve_only_their_own_calls() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(
        sandbox,
        &unique_title("MCP two clients"),
        &["--no-password", "--x", "40", "--y", "40"],
    );
    let home = scratch("serve");
    let mut serve = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), &home);
    serve
        .args(["serve", "--port", "0"])
        .env("GLOVEBOX_ENABLED", "true")
        .stdout(std::process::Stdio::piped());
    let mut server = serve.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let announced: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("serve printed {line:?}: {e}"));
    let (url, token) = (
        announced["url"].as_str().unwrap().to_owned(),
        announced["token"].as_str().unwrap().to_owned(),
    );
    let token = token.as_str();
    let (a, b) = std::thread::scope(|scope| {
        let run = |who: &'static str, answer: &'static str| {
            let (url, title) = (url.clone(), fixture.title.clone());
            scope.spawn(move || {
                client(
                    sandbox,
                    &scratch(&format!("client-{who}")),
                    User { mode: "auto", answer, title: &title, name: who },
                    &[url.as_str()],
                    Some(token),
                )
            })
        };
        let (a, b) = (run("Alice", "accept"), run("Bob", "decline"));
        (a.join().unwrap(), b.join().unwrap())
    });
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(a["protocol"], "2026-07-28");
    // Bob declines whatever he is asked; a call of his that meets Alice's
    // newer frame is refused as stale before it asks. Nothing of his arrives.
    for tool in ["set_value", "click"] {
        assert!(
            refused_with(&b, tool, "COMPUTER_APPROVAL_DENIED")
                || refused_with(&b, tool, "COMPUTER_STALE"),
            "{b}"
        );
    }
    // Each of his declined calls asked him (not Alice); a call refused as stale asked no one.
    let denied = ["set_value", "click"]
        .iter()
        .filter(|tool| refused_with(&b, tool, "COMPUTER_APPROVAL_DENIED"))
        .count();
    assert!(b["prompts"].as_array().unwrap().len() >= denied, "{b}");
    // Alice's calls may meet Bob's newer frame (one desktop, one actor): a
    // stale frame refuses; what she approved and was delivered is in the app.
    let alice_set = a["calls"]["set_value"]["error"] == false;
    let state = fixture.state().unwrap();
    if alice_set {
        assert_eq!(state["values"]["name"], "Alice", "{a}");
    } else {
        assert!(refused_with(&a, "set_value", "COMPUTER_STALE"), "{a}");
    }
    assert_ne!(state["values"]["name"], "Bob", "Bob's declined call never arrived");
    let audit =
        std::fs::read_to_string(home.join("state/glovebox/audit/audit.jsonl")).unwrap_or_default();
    let delivered = audit.lines().filter(|l| l.contains("\"event\":\"action\"")).count();
    let alice_delivered = [&a["calls"]["set_value"], &a["calls"]["click"]]
        .iter()
        .filter(|c| c["error"] == false)
        .count();
    assert_eq!(delivered, alice_delivered, "only Alice's approved calls were delivered: {a}");
}

/// On the current protocol, with no handshake: `server/discover` names the
/// versions served, and tools/list comes in the fixed order with a cache
/// hint, within 16 KiB on the wire.
#[test]
fn discover_and_a_cacheable_tool_list_in_a_fixed_order_on_2026_07_28() {
    use std::io::{BufRead, Write};
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("raw-current");
    let mut server = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), &home);
    server
        .arg("mcp")
        .env("GLOVEBOX_ENABLED", "true")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut server = server.spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(server.stdout.take().unwrap());
    let meta = serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let mut answer = |id: u64, method: &str| {
        writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": meta}})).unwrap();
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "the server closed");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return (line.len(), message);
            }
        }
    };
    let (_, discovered) = answer(1, "server/discover");
    let versions = discovered["result"]["supportedVersions"].to_string();
    assert!(versions.contains("2026-07-28") && versions.contains("2025-11-25"), "{discovered}");
    assert_eq!(
        discovered["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "glovebox",
        "{discovered}"
    );
    let (bytes, listed) = answer(2, "tools/list");
    assert!(bytes <= 16_384, "tools/list is {bytes} bytes on the wire");
    println!("tools/list on 2026-07-28: {bytes} bytes");
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, glovebox_mcp::TOOL_ORDER, "{listed}");
    assert_eq!(listed["result"]["ttlMs"], 3_600_000, "{}", listed["result"]["ttlMs"]);
    drop(stdin);
    let _ = server.kill();
    let _ = server.wait();
}
