//! The instruction-level `computer` tool: runs glovebox-agent's loop with
//! the model the user bound, behind the same approvals as the fine-grained
//! tools, and answers with the loop's bounded summary. Also the MCP
//! sampling provider, which lives here because it needs the MCP connection.

use base64::Engine as _;
use glovebox_agent::model::{DecideRequest, Model, ModelBinding, ModelError, Provider, Reply};
use glovebox_agent::Task;
use glovebox_model::Refusal;
// Sampling is deprecated upstream (SEP-2577) but is what MCP clients offer today.
#[allow(deprecated)]
use rmcp::model::{CreateMessageRequestParams, ModelHint, ModelPreferences, Role};
use rmcp::service::{Peer, RoleServer};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ComputerArgs {
    /// What to do, in plain words.
    pub instruction: String,
    /// Steps (1–50, default 10), within the grant's budget.
    #[schemars(range(min = 1, max = 50))]
    pub max_steps: Option<u32>,
    /// Look only: the loop may answer but never act.
    pub observe_only: Option<bool>,
    /// A window id; omitted: the bound window.
    pub window: Option<String>,
}

impl ComputerArgs {
    pub fn task(&self) -> Result<Task, Refusal> {
        let mut task = Task::new(self.instruction.clone());
        task.max_steps = self.max_steps.unwrap_or(glovebox_agent::run::DEFAULT_MAX_STEPS);
        task.observe_only = self.observe_only.unwrap_or(false);
        task.window = self.window.as_deref().map(str::parse).transpose()?;
        task.validate()?;
        Ok(task)
    }
}

/// Writes the run's HTML trajectory report next to the audit trail
/// (`…/glovebox/runs/`) and says where, or why there is none.
pub fn write_report(task: &Task, outcome: &glovebox_agent::Outcome) -> String {
    let path = glovebox_agent::report::default_path("computer");
    let page = glovebox_agent::report::html(&task.instruction, &outcome.summary, &outcome.steps);
    match glovebox_agent::report::write(&path, &page) {
        Ok(()) => format!("trajectory report: {}", path.display()),
        Err(e) => format!("no trajectory report ({}: {e})", path.display()),
    }
}

/// The model for one `computer` call: the user's binding, or a refusal.
/// `current`: the connection speaks 2026-07-28 or later, where a server
/// can no longer send requests (sampling among them) to its client.
pub fn bound_model(
    binding: Option<&ModelBinding>,
    peer: &Peer<RoleServer>,
    current: bool,
) -> Result<Box<dyn Model>, Refusal> {
    let binding = binding.ok_or_else(|| ModelError::Unbound.to_refusal())?;
    match binding.provider {
        Provider::McpSampling if current => Err(glovebox_host::refusals::model_unbound(
            "model.provider is mcp-sampling, which MCP clients on the 2026-07-28 protocol no longer offer (sampling is a request from server to client); bind a provider for computer use, e.g. `glovebox config set model.provider anthropic` and `glovebox config set model.name <model>` (openai, gemini and openai-compatible work too); glovebox never falls back to another model by itself",
        )),
        Provider::McpSampling => {
            let offers = peer.peer_info().is_some_and(|info| info.capabilities.sampling.is_some());
            if !offers {
                return Err(glovebox_host::refusals::model_unbound(
                    "model.provider is mcp-sampling, but this MCP client does not offer sampling; bind another provider (glovebox never falls back to one by itself)",
                ));
            }
            let handle = tokio::runtime::Handle::try_current().map_err(|e| Refusal::backend_unavailable(format!("no async runtime for sampling: {e}")))?;
            Ok(Box::new(SamplingModel { peer: peer.clone(), handle, binding: binding.clone() }))
        }
        _ => glovebox_agent::providers::bind(binding).map_err(|e| e.to_refusal()),
    }
}

/// How a `computer` call decides: the strict decision function with any
/// model, or the provider's native computer tool run through glovebox-wire.
pub enum Runner {
    Decisions(Box<dyn Model>),
    Native(ModelBinding),
}

impl Runner {
    pub fn name(&self) -> String {
        match self {
            Runner::Decisions(model) => model.name(),
            Runner::Native(b) => {
                format!("{}/{} (native computer use)", b.provider.label(), b.model)
            }
        }
    }
}

/// The runner for one `computer` call: the user's binding, or a refusal.
pub fn runner(
    binding: Option<&ModelBinding>,
    peer: &Peer<RoleServer>,
    current: bool,
) -> Result<Runner, Refusal> {
    match binding {
        Some(b) if b.native => Ok(Runner::Native(b.clone())),
        other => bound_model(other, peer, current).map(Runner::Decisions),
    }
}

/// What the user approves a `computer` run by: its class, the model, the
/// window and the instruction.
pub fn span(task: &Task, runner: &Runner) -> glovebox_host::Span {
    let window = task
        .window
        .as_ref()
        .map(|w| format!("window {w}"))
        .unwrap_or_else(|| "the bound window".into());
    glovebox_host::Span {
        class: if task.observe_only {
            glovebox_model::ApprovalClass::Observe
        } else {
            glovebox_model::ApprovalClass::Input
        },
        actions: vec![format!(
            "let {} {} {window} for the instruction {:?}, for up to {} steps",
            runner.name(),
            if task.observe_only { "look at" } else { "operate" },
            task.instruction.chars().take(300).collect::<String>(),
            task.max_steps
        )],
        targets: vec![],
        typed: vec![],
        frame: None,
        detail: None,
        started_by_user: false,
    }
}

/// Runs the loop through `host` (its approval already given) and answers
/// with the summary, its JSON and where the trajectory report went.
pub fn execute(
    host: &glovebox_host::Host,
    runner: Runner,
    task: &Task,
    progress: &mut dyn FnMut(&glovebox_agent::Step),
) -> Result<String, Refusal> {
    let outcome = match runner {
        Runner::Decisions(mut model) => glovebox_agent::run(host, model.as_mut(), task, progress),
        Runner::Native(binding) => glovebox_agent::run_native(host, &binding, task, progress),
    }?;
    let json = serde_json::to_string(&outcome.summary).unwrap_or_default();
    let report = write_report(task, &outcome);
    Ok(format!(
        "{}\n\nsummary: {json}\n{report}\nObserve again before using the fine-grained tools.",
        outcome.summary.render()
    ))
}

/// The MCP client's own model, through `sampling/createMessage`. Sampling
/// carries no forced tool call, so the schema goes into the system prompt
/// and the loop parses the text as strictly as any tool arguments.
struct SamplingModel {
    peer: Peer<RoleServer>,
    handle: tokio::runtime::Handle,
    binding: ModelBinding,
}

/// The text between one enclosing Markdown code fence, if the whole answer is fenced.
fn unfenced(text: &str) -> &str {
    let t = text.trim();
    match t.strip_prefix("```").and_then(|rest| rest.strip_suffix("```")) {
        Some(inner) => inner.strip_prefix("json").unwrap_or(inner).trim(),
        None => t,
    }
}

impl Model for SamplingModel {
    fn name(&self) -> String {
        format!(
            "mcp-sampling/{}",
            if self.binding.model.is_empty() { "client's choice" } else { &self.binding.model }
        )
    }

    fn accepts_images(&self) -> bool {
        self.binding.images
    }

    #[allow(deprecated)]
    fn decide(&mut self, request: &DecideRequest) -> Result<Reply, ModelError> {
        use rmcp::model::{ImageContent, SamplingMessage, SamplingMessageContentBlock};
        let system = format!(
            "{}\n\nAnswer with one JSON object and nothing else (no prose, no code fence) that matches this JSON Schema:\n{}",
            request.system, request.tool.schema
        );
        let mut blocks = vec![SamplingMessageContentBlock::text(request.user.clone())];
        if let (Some(png), true) = (&request.screenshot, self.binding.images) {
            blocks.push(SamplingMessageContentBlock::Image(ImageContent::new(
                base64::engine::general_purpose::STANDARD.encode(&png.bytes),
                "image/png",
            )));
        }
        let mut params = CreateMessageRequestParams::new(
            vec![SamplingMessage::new_multiple(Role::User, blocks)],
            1024,
        )
        .with_system_prompt(system);
        if !self.binding.model.is_empty() {
            params = params.with_model_preferences(
                ModelPreferences::new()
                    .with_hints(vec![ModelHint::new(self.binding.model.clone())]),
            );
        }
        let timeout = self.binding.timeout;
        let peer = self.peer.clone();
        let answer = self
            .handle
            .block_on(
                async move { tokio::time::timeout(timeout, peer.create_message(params)).await },
            )
            .map_err(|_| ModelError::Timeout(timeout))?
            .map_err(|e| ModelError::Transport(format!("sampling/createMessage failed: {e}")))?;
        let text: Vec<String> = answer
            .message
            .content
            .into_vec()
            .into_iter()
            .filter_map(|block| match block {
                SamplingMessageContentBlock::Text(t) => Some(t.text),
                _ => None,
            })
            .collect();
        Ok(Reply { decision: unfenced(&text.join("")).to_owned(), usage: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_enclosing_fence_is_removed() {
        assert_eq!(unfenced("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(unfenced(" {\"a\":1} "), "{\"a\":1}");
        assert_eq!(
            unfenced("Here: ```{\"a\":1}```"),
            "Here: ```{\"a\":1}```",
            "prose around a fence stays, and fails the schema"
        );
    }
}
