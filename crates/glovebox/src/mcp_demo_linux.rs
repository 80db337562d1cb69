//! The demo itself: Linux only, as the GTK3 fixture it drives and the
//! sandbox desktop it runs in are.

use crate::prompts::ScriptedUser;
use anyhow::{bail, Context, Result};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The demo's MCP client: the scripted user for approval prompts, and a
/// scripted "model" answering glovebox's sampling requests.
#[derive(Clone)]
struct DemoClient {
    user: ScriptedUser,
    asked: Arc<AtomicUsize>,
}

/// What the scripted model decides at each step, from the tree in the prompt.
fn decide(step: usize, prompt: &str) -> Value {
    let id = |needle: &str| id_on_line(prompt, needle).unwrap_or_default();
    let decision = match step {
        0 => {
            json!({"kind": "action", "action": {"action": "set_value", "target": {"element": id("\"Name\"")}, "text": "Grace Hopper"}})
        }
        1 => {
            json!({"kind": "action", "action": {"action": "click", "target": {"element": id("\"Submit\"")}, "button": "left", "count": 1}})
        }
        _ => {
            json!({"kind": "done", "claim": "The name is Grace Hopper and the form is submitted."})
        }
    };
    json!({"decision": decision})
}

#[allow(deprecated)] // MCP sampling is deprecated upstream (SEP-2577); clients still offer it.
impl rmcp::ClientHandler for DemoClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        info.capabilities = rmcp::model::ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .build();
        info
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.user.create_elicitation(request, context).await
    }

    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        use rmcp::model::SamplingMessageContentBlock as Block;
        let prompt: String = params
            .messages
            .iter()
            .flat_map(|m| m.content.clone().into_vec())
            .filter_map(|b| if let Block::Text(t) = b { Some(t.text) } else { None })
            .collect();
        let step = self.asked.fetch_add(1, Ordering::SeqCst);
        let answer = decide(step, &prompt);
        println!("  ◆ glovebox asks the client's model (sampling, {} characters of prompt); it answers {answer}", prompt.chars().count());
        Ok(rmcp::model::CreateMessageResult::new(
            rmcp::model::SamplingMessage::assistant_text(answer.to_string()),
            "demo-script".into(),
        ))
    }
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn step(
    client: &RunningService<RoleClient, DemoClient>,
    tool: &str,
    arguments: Value,
) -> Result<String> {
    println!("\n→ {tool} {arguments}");
    let args = arguments.as_object().cloned().unwrap_or_default();
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .with_context(|| format!("calling {tool}"))?;
    let text = text_of(&result);
    let images = result.content.iter().filter(|c| c.as_image().is_some()).count();
    for line in text.lines().take(24) {
        println!("  {line}");
    }
    if text.lines().count() > 24 {
        println!("  … ({} more lines)", text.lines().count() - 24);
    }
    if images > 0 {
        println!("  [+ {images} screenshot image block(s)]");
    }
    if result.is_error == Some(true) {
        bail!("{tool} was refused: {}", text.lines().next().unwrap_or_default());
    }
    Ok(text)
}

/// The `@eN` id on the first tree line containing `needle`.
fn id_on_line(text: &str, needle: &str) -> Result<String> {
    let line = text
        .lines()
        .find(|l| l.contains(needle) && l.contains("@e"))
        .with_context(|| format!("no element {needle} in the tree"))?;
    Ok(line
        .split_whitespace()
        .find(|w| w.starts_with("@e"))
        .unwrap_or_default()
        .trim_start_matches('@')
        .to_owned())
}

/// Where the demo's form app is: beside a build (`target/release/../../testapps`),
/// beside an installed binary (`/usr/bin/../share/glovebox/testapps`, as the
/// Debian package puts it), else this source tree's.
fn testapps() -> PathBuf {
    let binary_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    let mut candidates = binary_dir
        .iter()
        .flat_map(|dir| [dir.join("../../testapps"), dir.join("../share/glovebox/testapps")]);
    candidates
        .find(|dir| dir.join("fixture_gtk3.py").is_file())
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testapps"))
}

pub(crate) fn main() -> Result<()> {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        bail!("run inside a sandbox desktop: glovebox sandbox -- glovebox-mcp-demo (or glovebox sandbox --wayland -- glovebox-mcp-demo)");
    }
    let state = std::env::temp_dir().join(format!("glovebox-demo-{}.json", std::process::id()));
    let mut fixture = std::process::Command::new("/usr/bin/python3")
        .arg(testapps().join("fixture_gtk3.py"))
        .args(["--title", "glovebox demo form", "--no-password"])
        .env("GLOVEBOX_FIXTURE_STATE", &state)
        .spawn()
        .context("starting the fixture app (python3-gi, gir1.2-gtk-3.0)")?;
    let read_state =
        || -> Option<Value> { serde_json::from_str(&std::fs::read_to_string(&state).ok()?).ok() };
    let deadline = Instant::now() + Duration::from_secs(20);
    while read_state().is_none_or(|s| s["ready"] != true) {
        if Instant::now() > deadline {
            bail!("the fixture app did not come up");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let glovebox = std::env::current_exe()?.with_file_name("glovebox");
    let home = std::env::temp_dir().join(format!("glovebox-demo-home-{}", std::process::id()));
    std::fs::create_dir_all(&home)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let outcome = runtime.block_on(async {
        let mut command = tokio::process::Command::new(&glovebox);
        // The demo's own throwaway configuration: enabled, state under a scratch home.
        // The computer tool's model is the client's own, through sampling (chosen explicitly).
        command.arg("mcp").env("GLOVEBOX_ENABLED", "true").env("GLOVEBOX_MODEL_PROVIDER", "mcp-sampling").env("GLOVEBOX_MODEL_IMAGES", "false");
        command.env("XDG_STATE_HOME", home.join("state")).env("HOME", &home).env_remove("XDG_CONFIG_HOME");
        let user = ScriptedUser::answering(rmcp::model::ElicitationAction::Accept, true);
        let client = DemoClient { user, asked: Arc::default() }.serve(TokioChildProcess::new(command)?).await.context("starting glovebox mcp")?;
        let tools = client.list_all_tools().await?;
        println!("glovebox mcp offers {} tools: {}", tools.len(), tools.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>().join(", "));
        let listed = step(&client, "list_windows", json!({"query": "glovebox demo form"})).await?;
        let window = listed.lines().nth(1).and_then(|l| l.split_whitespace().next()).context("the form's window is not listed")?.to_owned();
        let seen = step(&client, "observe", json!({"window": window, "screenshot": true})).await?;
        // Ids hold from frame to frame: the ones the first observation showed stay good after each input.
        step(&client, "set_value", json!({"target": {"element": id_on_line(&seen, "\"Name\"")?}, "text": "Ada Lovelace"})).await?;
        step(&client, "set_value", json!({"target": {"element": id_on_line(&seen, "\"Email\"")?}, "text": "ada@example.org"})).await?;
        step(&client, "click", json!({"target": {"element": id_on_line(&seen, "\"Submit\"")?}})).await?;
        step(&client, "grant_status", json!({})).await?;
        println!("\nNow a whole task at once: the computer tool runs glovebox's own loop with the model the user bound.");
        step(&client, "computer", json!({"instruction": "Change the name to Grace Hopper and submit the form again", "max_steps": 5, "window": window}))
            .await?;
        client.cancel().await?;
        anyhow::Ok(())
    });
    let final_state = read_state();
    let _ = fixture.kill();
    let _ = fixture.wait();
    let _ = std::fs::remove_file(&state);
    outcome?;
    let s = final_state.context("the fixture stopped reporting")?;
    println!(
        "\nThe fixture app's own report: name {:?}, email {:?}, Submit clicked {} time(s), status {:?}",
        s["values"]["name"], s["values"]["email"], s["clicks"]["submit"], s["status"]
    );
    if s["values"]["name"] != "Grace Hopper"
        || s["values"]["email"] != "ada@example.org"
        || s["clicks"]["submit"] != 2
    {
        bail!("the fixture does not show the work the tools reported");
    }
    println!("verified: every step shows in the application's own state");
    Ok(())
}
