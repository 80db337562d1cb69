//! `glovebox mcp` over its real stdio transport, driven by the official
//! SDK's client against a sandbox desktop: tools/list, an observe →
//! set_value → click flow checked against the fixture's own report, the
//! screenshot as a PNG image block of the stated size, disabled and
//! read-only modes, and a wrong-typed call that leaves the server serving.
#![cfg(target_os = "linux")]

use base64::Engine as _;
use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{unique_title, Fixture};
use glovebox_sandbox::Sandbox;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-mcp-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glovebox` in the sandbox with a scratch home, state and runtime
/// directory of its own (so a Stop cooldown stays within one test).
fn glovebox(sandbox: &Sandbox, home: &std::path::Path) -> std::process::Command {
    sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), home)
}

/// `glovebox mcp` with approvals off (every class allowed, no escalation),
/// for the tests about everything else.
async fn connect(
    sandbox: &Sandbox,
    name: &str,
    enabled: bool,
    args: &[&str],
) -> RunningService<RoleClient, ()> {
    connect_as(
        sandbox,
        name,
        enabled,
        args,
        &[("GLOVEBOX_APPROVAL_MODE", "yolo"), ("GLOVEBOX_APPROVAL_CONSEQUENTIAL", "")],
        (),
    )
    .await
}

async fn connect_as<C: rmcp::ClientHandler>(
    sandbox: &Sandbox,
    name: &str,
    enabled: bool,
    args: &[&str],
    env: &[(&str, &str)],
    client: C,
) -> RunningService<RoleClient, C> {
    let home = scratch(name);
    let mut command = glovebox(sandbox, &home);
    command.arg("mcp").args(args);
    command.env("GLOVEBOX_ENABLED", if enabled { "true" } else { "false" });
    for (k, v) in env {
        command.env(k, v);
    }
    client
        .serve(TokioChildProcess::new(tokio::process::Command::from(command)).unwrap())
        .await
        .unwrap()
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

async fn call<C: rmcp::ClientHandler>(
    client: &RunningService<RoleClient, C>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args(arguments)))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `@eN` id on the tree line that contains `needle`.
fn id_on_line(text: &str, needle: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains(needle) && l.contains('@'))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"));
    line.split_whitespace()
        .find(|w| w.starts_with("@e"))
        .unwrap()
        .trim_start_matches('@')
        .to_owned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap()
}

#[test]
fn observe_set_value_click_through_the_stdio_server() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP flow"), &["--no-password"]);
    runtime().block_on(async {
        let client = connect(sandbox, "flow", true, &[]).await;
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        for expected in [
            "list_windows",
            "observe",
            "zoom",
            "wait",
            "click",
            "move",
            "drag",
            "scroll",
            "type",
            "set_value",
            "key",
            "select",
            "batch",
            "open_app",
            "open_url",
            "replay",
            "switch_window",
            "grant_status",
            "computer",
        ] {
            assert!(names.contains(&expected), "{expected} missing from {names:?}");
        }
        for tool in &tools {
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")), "{}", tool.name);
            let annotations = tool
                .annotations
                .as_ref()
                .unwrap_or_else(|| panic!("{} has no annotations", tool.name));
            // `computer` may act (destructive) but stays listed read-only (observe_only runs).
            let input =
                glovebox_mcp::INPUT_TOOLS.contains(&tool.name.as_ref()) || tool.name == "computer";
            assert_eq!(annotations.destructive_hint.unwrap_or(false), input, "{}", tool.name);
            assert_eq!(annotations.read_only_hint.unwrap_or(false), !input, "{}", tool.name);
        }

        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&client, "observe", json!({"window": window, "screenshot": true})).await;
        assert_ne!(seen.is_error, Some(true), "{}", text_of(&seen));
        let text = text_of(&seen);
        let image =
            seen.content.iter().find_map(|c| c.as_image().cloned()).expect("an image block");
        assert_eq!(image.mime_type, "image/png");
        let png = RgbImage::decode_png(
            &base64::engine::general_purpose::STANDARD.decode(&image.data).unwrap(),
        )
        .unwrap();
        let stated = format!("pixels of a {}x{} image", png.width, png.height);
        assert!(
            text.contains(&stated),
            "the frame line states the image size: {stated} in\n{text}"
        );

        let name = id_on_line(&text, "\"Name\"");
        let done = call(
            &client,
            "set_value",
            json!({"target": {"element": name}, "text": "Ada Lovelace ✓"}),
        )
        .await;
        assert_ne!(done.is_error, Some(true), "{}", text_of(&done));
        fixture.wait_state("name set", |s| s["values"]["name"] == "Ada Lovelace ✓");
        // The result says what changed, by the same ids: the field now has a value.
        assert!(text_of(&done).contains(&format!("~ @{name} text \"Name\"")), "{}", text_of(&done));
        let submit = id_on_line(&text, "\"Submit\"");
        let clicked = call(&client, "click", json!({"target": {"element": submit}})).await;
        assert!(text_of(&clicked).starts_with("delivered by"), "{}", text_of(&clicked));
        fixture.wait_state("submitted", |s| s["clicks"]["submit"] == 1);
        assert!(
            text_of(&clicked).contains("name \"Ready\" → \"Submit clicked\""),
            "{}",
            text_of(&clicked)
        );

        // Values only by explicit read; marks on request; a budget folds and says so.
        let read =
            text_of(&call(&client, "observe", json!({"screenshot": false, "read": [name]})).await);
        assert!(read.contains(&format!("{name} text: \"Ada Lovelace ✓\"")), "{read}");
        let marked = call(&client, "observe", json!({"marks": true})).await;
        assert!(text_of(&marked).contains("the screenshot is marked"), "{}", text_of(&marked));
        assert!(
            marked.content.iter().any(|c| c.as_image().is_some()),
            "marks come with the screenshot"
        );
        let small = text_of(
            &call(&client, "observe", json!({"screenshot": false, "max_tokens": 200})).await,
        );
        assert!(small.contains("text budget: ≈") && small.contains("more lines folded"), "{small}");
        let bad = call(&client, "observe", json!({"max_tokens": 5})).await;
        assert!(text_of(&bad).starts_with("COMPUTER_INVALID_ARGUMENT"), "{}", text_of(&bad));

        // A stale id is a tool error with its code first and what to do next.
        let stale = call(&client, "click", json!({"target": {"element": "e9999"}})).await;
        assert_eq!(stale.is_error, Some(true));
        assert!(text_of(&stale).starts_with("COMPUTER_STALE_REF"), "{}", text_of(&stale));

        // Wrong-typed arguments: a protocol error, and the server keeps serving.
        let wrong = client
            .call_tool(
                CallToolRequestParams::new("click").with_arguments(args(json!({"target": 5}))),
            )
            .await;
        assert!(wrong.is_err() || wrong.as_ref().unwrap().is_error == Some(true), "{wrong:?}");
        let still = call(&client, "grant_status", json!({})).await;
        assert_ne!(still.is_error, Some(true));
        client.cancel().await.unwrap();
    });
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 1);
}

#[test]
fn disabled_and_read_only_servers_refuse_with_their_codes() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP modes"), &[]);
    runtime().block_on(async {
        let off = connect(sandbox, "off", false, &[]).await;
        let refused = call(&off, "observe", json!({})).await;
        assert_eq!(refused.is_error, Some(true));
        let text = text_of(&refused);
        assert!(
            text.starts_with("COMPUTER_DISABLED")
                && text.contains("glovebox config set enabled true"),
            "{text}"
        );
        off.cancel().await.unwrap();

        // Screenshots as files: a file:// resource link to a PNG instead of inline bytes.
        let files = connect_as(
            sandbox,
            "files",
            true,
            &[],
            &[("GLOVEBOX_MCP_SCREENSHOT_FILES", "true")],
            (),
        )
        .await;
        let listed = text_of(&call(&files, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&files, "observe", json!({"window": window, "screenshot": true})).await;
        assert!(seen.content.iter().all(|c| c.as_image().is_none()), "no inline image");
        let link = seen
            .content
            .iter()
            .find_map(|c| c.as_resource_link().cloned())
            .expect("a resource link");
        let png = std::fs::read(link.uri.strip_prefix("file://").unwrap()).unwrap();
        assert_eq!(link.size, Some(png.len() as u64));
        // Pixels show what was typed: readable by this user alone.
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(link.uri.strip_prefix("file://").unwrap()).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600, "{}", link.uri);
        RgbImage::decode_png(&png).unwrap();
        files.cancel().await.unwrap();

        let read_only = connect(sandbox, "ro", true, &["--read-only"]).await;
        let names: Vec<String> =
            read_only.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
        for hidden in glovebox_mcp::INPUT_TOOLS {
            assert!(!names.iter().any(|n| n == hidden), "{hidden} is listed in read-only mode");
        }
        assert!(names.iter().any(|n| n == "observe"));
        call(&read_only, "observe", json!({"screenshot": false})).await;
        let refused =
            call(&read_only, "click", json!({"target": {"point": {"x": 5, "y": 5}}})).await;
        assert_eq!(refused.is_error, Some(true));
        assert!(text_of(&refused).starts_with("COMPUTER_READ_ONLY"), "{}", text_of(&refused));
        read_only.cancel().await.unwrap();
    });
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 0);
}

#[test]
fn stop_from_another_process_revokes_a_running_server() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP stop"), &["--no-password"]);
    runtime().block_on(async {
        let client = connect(sandbox, "stop", true, &[]).await;
        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = call(&client, "observe", json!({"window": window, "screenshot": false})).await;
        assert_ne!(seen.is_error, Some(true), "{}", text_of(&seen));
        let submit = id_on_line(&text_of(&seen), "\"Submit\"");
        let started = std::time::Instant::now();
        let stop = glovebox(
            sandbox,
            &std::env::temp_dir().join(format!("glovebox-mcp-test-{}-stop", std::process::id())),
        )
        .arg("stop")
        .output()
        .unwrap();
        println!(
            "glovebox stop took {:?} (process start included): {}",
            started.elapsed(),
            String::from_utf8_lossy(&stop.stdout).trim()
        );
        assert!(stop.status.success(), "{}", String::from_utf8_lossy(&stop.stderr));
        for (tool, arguments) in
            [("click", json!({"target": {"element": submit}})), ("observe", json!({}))]
        {
            let refused = call(&client, tool, arguments).await;
            assert_eq!(refused.is_error, Some(true));
            assert!(
                text_of(&refused).starts_with("COMPUTER_STOPPED_BY_USER"),
                "{tool}: {}",
                text_of(&refused)
            );
        }
        client.cancel().await.unwrap();
    });
    assert_eq!(fixture.state().unwrap()["clicks"]["submit"], 0, "nothing was delivered after Stop");
}

#[test]
fn approvals_prompt_through_elicitation_and_fail_closed() {
    use rmcp::model::ElicitationAction;
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let fixture = Fixture::launch(sandbox, &unique_title("MCP approvals"), &["--no-password"]);
    let prompted = glovebox_testkit::mcp::ScriptedClient::answering;
    runtime().block_on(async {
        // The default mode: observing is allowed, input asks.
        let yes = prompted(ElicitationAction::Accept);
        let client = connect_as(sandbox, "approve-yes", true, &[], &[], yes.clone()).await;
        let listed = text_of(&call(&client, "list_windows", json!({"query": fixture.title})).await);
        let window = listed.lines().nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
        let seen = text_of(
            &call(&client, "observe", json!({"window": window, "screenshot": false})).await,
        );
        assert!(yes.prompts().is_empty(), "observing needs no approval");
        let name = id_on_line(&seen, "\"Name\"");
        let done = call(
            &client,
            "set_value",
            json!({"target": {"element": name}, "text": "secret-free text"}),
        )
        .await;
        assert_ne!(done.is_error, Some(true), "{}", text_of(&done));
        fixture.wait_state("approved value", |s| s["values"]["name"] == "secret-free text");
        let asked = yes.prompts();
        assert_eq!(asked.len(), 1);
        assert!(
            asked[0].contains("set the value")
                && asked[0].contains("\"Name\"")
                && asked[0].contains("16 character(s)"),
            "{}",
            asked[0]
        );
        assert!(
            asked[0].contains(": \"secret-free text\""),
            "the prompt shows the text it approves: {}",
            asked[0]
        );
        client.cancel().await.unwrap();

        // Declined and cancelled prompts refuse, and nothing changes.
        for (answer, label) in
            [(ElicitationAction::Decline, "decline"), (ElicitationAction::Cancel, "cancel")]
        {
            let client =
                connect_as(sandbox, &format!("approve-{label}"), true, &[], &[], prompted(answer))
                    .await;
            let seen = text_of(
                &call(&client, "observe", json!({"window": window, "screenshot": false})).await,
            );
            let refused = call(
                &client,
                "set_value",
                json!({"target": {"element": id_on_line(&seen, "\"Name\"")}, "text": "nope"}),
            )
            .await;
            assert!(
                text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED"),
                "{label}: {}",
                text_of(&refused)
            );
            client.cancel().await.unwrap();
        }
        // A client that cannot ask fails closed.
        let mute = connect_as(sandbox, "approve-mute", true, &[], &[], ()).await;
        let seen =
            text_of(&call(&mute, "observe", json!({"window": window, "screenshot": false})).await);
        let refused = call(
            &mute,
            "set_value",
            json!({"target": {"element": id_on_line(&seen, "\"Name\"")}, "text": "nope"}),
        )
        .await;
        assert!(
            text_of(&refused).starts_with("COMPUTER_APPROVAL_REQUIRED"),
            "{}",
            text_of(&refused)
        );
        mute.cancel().await.unwrap();
        assert_eq!(fixture.state().unwrap()["values"]["name"], "secret-free text");

        // Even with every class allowed, a consequential button asks first.
        let no = prompted(ElicitationAction::Decline);
        let yolo = connect_as(
            sandbox,
            "approve-yolo",
            true,
            &[],
            &[("GLOVEBOX_APPROVAL_MODE", "yolo")],
            no.clone(),
        )
        .await;
        let seen =
            text_of(&call(&yolo, "observe", json!({"window": window, "screenshot": false})).await);
        let refused =
            call(&yolo, "click", json!({"target": {"element": id_on_line(&seen, "\"Submit\"")}}))
                .await;
        assert!(text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED"), "{}", text_of(&refused));
        let asked = no.prompts();
        assert!(asked.len() == 1 && asked[0].contains("reads like \"submit\""), "{asked:?}");
        // A plain button goes through without a prompt.
        let cancel =
            call(&yolo, "click", json!({"target": {"element": id_on_line(&seen, "\"Cancel\"")}}))
                .await;
        assert_ne!(cancel.is_error, Some(true), "{}", text_of(&cancel));
        assert_eq!(no.prompts().len(), 1);
        yolo.cancel().await.unwrap();

        // The observe class reaches every observation tool.
        let deny = [("GLOVEBOX_APPROVAL_MODE", "custom"), ("GLOVEBOX_APPROVAL_OBSERVE", "deny")];
        let closed = connect_as(
            sandbox,
            "observe-deny",
            true,
            &[],
            &deny,
            prompted(ElicitationAction::Accept),
        )
        .await;
        for (tool, arguments) in [
            ("list_windows", json!({})),
            ("observe", json!({"window": window})),
            ("switch_window", json!({"window": window})),
            ("wait", json!({"wait": {"seconds": 0.5}})),
            ("zoom", json!({"region": {"x": 0, "y": 0, "width": 10, "height": 10}})),
        ] {
            let refused = call(&closed, tool, arguments).await;
            assert!(
                text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED")
                    || (tool == "zoom" && refused.is_error == Some(true)),
                "{tool}: {}",
                text_of(&refused)
            );
            assert!(
                refused.content.iter().all(|c| c.as_image().is_none()),
                "{tool} returned pixels"
            );
        }
        closed.cancel().await.unwrap();
        // Always ask, and the user declines: nothing is captured.
        let declining = prompted(ElicitationAction::Decline);
        let asking = connect_as(
            sandbox,
            "observe-ask",
            true,
            &[],
            &[("GLOVEBOX_APPROVAL_MODE", "always-ask")],
            declining.clone(),
        )
        .await;
        let refused = call(&asking, "observe", json!({"window": window, "screenshot": true})).await;
        assert!(text_of(&refused).starts_with("COMPUTER_APPROVAL_DENIED"), "{}", text_of(&refused));
        assert!(refused.content.iter().all(|c| c.as_image().is_none()));
        assert!(
            declining.prompts().iter().any(|p| p.contains("take a screenshot")),
            "{:?}",
            declining.prompts()
        );
        asking.cancel().await.unwrap();
    });
    let state = fixture.state().unwrap();
    assert_eq!(state["clicks"]["submit"], 0, "the declined Submit never happened");
    assert_eq!(state["clicks"]["cancel"], 1);
}

mod wire;
