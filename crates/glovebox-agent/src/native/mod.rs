//! The loop's native path (DESIGN.md §6, "Exposure follows the model"): a
//! model with native computer use (Anthropic's computer toolset or
//! `computer_20250124`, OpenAI GA `computer`, Gemini `computer_use`) gets its own tool in a multi-turn conversation, and every
//! call it makes runs through the same `glovebox-wire` executor that
//! `glovebox serve` offers, over the same host, approvals and denials.
//!
//! This module owns the loop, binding (endpoint, key, headers) and the
//! trajectory it records; each provider's conversation format lives in its
//! own module. It returns the same [`Outcome`] as [`crate::run`]: the summary
//! is built from what the host delivered, never from the model's prose.

mod anthropic;
mod gemini;
mod openai;
mod prompt;

use crate::model::{ModelBinding, ModelError, Png, Provider};
use crate::providers::{self, http::Http};
use crate::run::{Outcome, Record, Task};
use crate::trajectory::{DecisionRecord, FinalWindow, Step, StopReason, Summary, Verdict};
use glovebox_host::Host;
use glovebox_model::{CaptureMode, ErrorCode, Point, Refusal, Size, WindowId, WindowRef};
use glovebox_wire::ExecutorOptions;
use serde_json::{json, Value};

use std::time::Instant;

/// The largest display an Anthropic model is told about (WXGA): Anthropic
/// recommends at most XGA/WXGA, since larger screenshots are downscaled on
/// their side and the model's coordinates lose precision.
pub const MAX_DISPLAY: Size = Size { width: 1280, height: 800 };
/// Screenshots kept in the conversation; older ones are replaced (a note for
/// Anthropic, a 1×1 placeholder for OpenAI) so requests stay bounded.
pub const KEPT_SCREENSHOTS: usize = 3;
/// The beta the `computer_20250124` tool needs on the Messages API.
pub const ANTHROPIC_BETA: &str = "computer-use-2025-01-24";
/// A reply starting with this is a question for the user, not a claim.
pub const QUESTION_PREFIX: &str = "QUESTION:";
/// Lines of the tree kept in the first step's record.
const TREE_EXCERPT_LINES: usize = 40;

/// One model reply, read.
pub(crate) struct Reply {
    /// The native tool calls in order, as the provider sent them.
    pub calls: Vec<Value>,
    /// The model's text; its claim (or question) when there are no calls.
    pub text: String,
    pub usage: Option<(u64, u64)>,
}

/// What one tool call did, as the conversation saw it.
pub(crate) struct Executed {
    /// Kind and coordinates of what was asked; typed text as a length.
    pub action: String,
    /// The call as the trajectory records it.
    pub decision: Value,
    /// The first point aimed at, in the pixels of the screenshot it was aimed with.
    pub target: Option<Point>,
    /// `anthropic:left_click`, `openai-ga:click+type`.
    pub route: String,
    /// The call carries input (a delivered one is work; otherwise it only looked).
    pub input: bool,
    /// The host's (or executor's) answer; a refusal went back to the model.
    pub outcome: Result<(), Refusal>,
    /// A batch that failed part-way: (description, route) of what was delivered before.
    pub delivered_before: Option<(String, String)>,
    /// The PNG the model received with the result.
    pub screenshot: Option<Vec<u8>>,
    /// The conversation cannot go on (no result could be built for the call).
    pub fatal: Option<Refusal>,
    /// What was tried, to spot the same failing call coming back.
    pub fingerprint: String,
}

/// One provider's conversation: the request body, reading a reply into the
/// history, and running a call through its executor into the history.
pub(crate) trait Conversation {
    fn body(&mut self) -> Value;
    /// Reads `answer`; an unreadable one leaves the history as it was.
    fn read(&mut self, answer: &Value) -> Result<Reply, ModelError>;
    fn execute(&mut self, call: &Value) -> Executed;
    /// The tree the executor's last screenshot was taken with.
    fn last_tree(&self) -> Option<std::sync::Arc<glovebox_model::AccessibilityTree>>;
}

/// Where the model lives and how to reach it. Not `Debug`: headers hold the key.
struct Client {
    url: String,
    headers: Vec<(&'static str, String)>,
    http: Http,
}

fn bind(binding: &ModelBinding) -> Result<Client, ModelError> {
    let (default_base, path, label, hint) = match binding.provider {
        Provider::AnthropicMessages => {
            (providers::ANTHROPIC_BASE, "messages", "anthropic", "ANTHROPIC_API_KEY")
        }
        Provider::OpenAiResponses => {
            (providers::OPENAI_BASE, "responses", "openai", "OPENAI_API_KEY")
        }
        Provider::Gemini => (providers::GEMINI_BASE, "", "gemini", "GEMINI_API_KEY"),
        _ => {
            return Err(ModelError::Binding(
                "model.native needs model.provider openai, anthropic or gemini".into(),
            ))
        }
    };
    if binding.model.trim().is_empty() {
        return Err(ModelError::Unbound);
    }
    if binding.timeout.is_zero() {
        return Err(ModelError::Binding("model.timeout must be longer than zero".into()));
    }
    if !binding.images {
        return Err(ModelError::Binding("a native computer-use model works from screenshots; model.images = false contradicts model.native".into()));
    }
    let base = match binding.base_url.as_deref().map(str::trim).filter(|b| !b.is_empty()) {
        Some(base) if !(base.starts_with("http://") || base.starts_with("https://")) => {
            return Err(ModelError::Binding(format!(
                "model.base_url {base:?} is not an http:// or https:// URL"
            )))
        }
        Some(base) => base.trim_end_matches('/').to_string(),
        None => default_base.to_string(),
    };
    let key = binding.api_key_env.as_deref().map(providers::api_key).transpose()?;
    // As in `providers::bind`: the public endpoints want a key, a gateway may not.
    if key.is_none() && binding.base_url.is_none() {
        return Err(ModelError::Binding(format!("{label} needs an API key: set model.api_key_env to the environment variable that holds it (e.g. {hint})")));
    }
    let mut headers = Vec::new();
    match binding.provider {
        Provider::AnthropicMessages => {
            headers.push(("anthropic-version", providers::ANTHROPIC_VERSION.to_string()));
            // The toolset is generally available; only the older single tool is a beta.
            if binding.anthropic_tool == crate::model::AnthropicTool::Computer20250124 {
                headers.push(("anthropic-beta", ANTHROPIC_BETA.to_string()));
            }
            if let Some(key) = &key {
                headers.push(("x-api-key", key.clone()));
            }
        }
        Provider::Gemini => {
            if let Some(key) = &key {
                headers.push(("x-goog-api-key", key.clone()));
            }
        }
        _ => {
            if let Some(key) = &key {
                headers.push(("authorization", format!("Bearer {key}")));
            }
        }
    }
    let url = match binding.provider {
        Provider::Gemini => providers::gemini_url(&base, &binding.model),
        _ => format!("{base}/{path}"),
    };
    Ok(Client { url, headers, http: Http::new(binding.timeout, binding.max_retries, key) })
}

/// The display size declared to an Anthropic model: the window scaled down
/// (never up) to fit [`MAX_DISPLAY`], keeping its aspect ratio, so the
/// executor's picture fills it with at most a pixel of padding.
pub fn display_for(window: Size) -> Size {
    let (w, h) = (window.width.max(1) as u64, window.height.max(1) as u64);
    let (mw, mh) = (MAX_DISPLAY.width as u64, MAX_DISPLAY.height as u64);
    if w <= mw && h <= mh {
        return Size::new(w as u32, h as u32);
    }
    // Compare w/mw with h/mh without floating point.
    if w * mh >= h * mw {
        Size::new(mw as u32, ((h * mw) / w).max(1) as u32)
    } else {
        Size::new(((w * mh) / h).max(1) as u32, mh as u32)
    }
}

/// Runs `task` with the bound model's native computer tool through `host`,
/// whose prompt channel the host asks for approvals and OpenAI's pending
/// safety checks; an observe-only task gets a handle that refuses input.
/// `progress` sees each step as it completes.
/// `Err` only when nothing could start (arguments, binding, no window).
pub fn run_native(
    host: &Host,
    binding: &ModelBinding,
    task: &Task,
    progress: &mut dyn FnMut(&Step),
) -> Result<Outcome, Refusal> {
    task.validate()?;
    if host.capabilities().read_only && !task.observe_only {
        return Err(glovebox_host::refusals::task_could_deliver_nothing());
    }
    let client = bind(binding).map_err(|e| e.to_refusal())?;
    // Bind the window first, so the executor's first screenshot is of it.
    let seen = host.observe(task.window.as_ref(), false)?;
    if seen.grant.capture != CaptureMode::A11yAndPixels {
        return Err(glovebox_host::refusals::screenshots_not_granted(
            "a native computer-use model needs screenshots",
        ));
    }
    let window = seen.frame.window;
    let max_steps = if task.observe_only {
        task.max_steps
    } else {
        task.max_steps.min(seen.grant.budget_left.max(1))
    };
    let host = if task.observe_only { host.observe_only() } else { host.clone() };
    // Pinned to the bound window: should it close, the executor is refused
    // rather than acting in whatever window the grant falls back to.
    let options = ExecutorOptions {
        window: Some(WindowRef::Id(window)),
        delivery: task.delivery,
        ..ExecutorOptions::default()
    };
    let (windows, mut titles) = prompt::windows(&host);
    let tree = seen.tree.render_text();
    let title = titles.get(&window).map(|t| t.1.clone()).unwrap_or_default();
    let first = prompt::first_turn(
        &task.instruction,
        max_steps,
        seen.grant.budget_left,
        &windows,
        &format!("Bound window: {window} (its title is in the list above)"),
        &tree,
    );
    let name = format!("{}/{}", binding.provider.label(), binding.model);
    let mut conversation: Box<dyn Conversation> = match binding.provider {
        Provider::AnthropicMessages => {
            let display = match binding.anthropic_tool {
                crate::model::AnthropicTool::Toolset => None,
                crate::model::AnthropicTool::Computer20250124 => {
                    Some(display_for(seen.frame.geometry.size()))
                }
            };
            let system = prompt::system(task.observe_only, display);
            Box::new(anthropic::Anthropic::new(
                host.clone(),
                options,
                &binding.model,
                system,
                first,
                display,
            ))
        }
        Provider::Gemini => Box::new(gemini::Gemini::new(
            host.clone(),
            options,
            prompt::system(task.observe_only, None),
            first,
        )?),
        _ => Box::new(openai::OpenAi::new(
            host.clone(),
            options,
            &binding.model,
            prompt::system(task.observe_only, None),
            first,
        )),
    };
    let mut run = Run {
        record: Record::default(),
        window,
        title,
        shown: None,
        tree: tree.lines().take(TREE_EXCERPT_LINES).collect::<Vec<_>>().join("\n"),
    };
    let stop = 'run: loop {
        if run.record.steps.len() as u32 >= max_steps {
            break StopReason::StepLimit { limit: max_steps };
        }
        let body = conversation.body();
        let asked = Instant::now();
        let reply = client
            .http
            .post_json(&client.url, &client.headers, &body)
            .and_then(|answer| conversation.read(&answer));
        let model_ms = asked.elapsed().as_millis() as u64;
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) if e.code() == ErrorCode::ModelSchemaViolation => {
                // Unreadable: a failed step; the same request goes out again.
                let step = run.step(
                    DecisionRecord::Unparsed { excerpt: String::new() },
                    None,
                    None,
                    model_ms,
                    None,
                );
                if let Some(stop) = run.record.refused(step, e.to_refusal(), "unreadable", progress)
                {
                    break stop;
                }
                continue;
            }
            Err(e) => break StopReason::Model { code: e.code(), message: e.to_string() },
        };
        if reply.calls.is_empty() {
            let text = bounded(reply.text.trim());
            let question = text
                .strip_prefix(QUESTION_PREFIX)
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .map(str::to_owned);
            let decision = match &question {
                Some(q) => json!({"kind": "ask", "question": q}),
                None => json!({"kind": "done", "claim": text}),
            };
            let mut step =
                run.step(DecisionRecord::Parsed { decision }, None, None, model_ms, reply.usage);
            step.verdict = if question.is_some() { Verdict::Asked } else { Verdict::Finished };
            run.record.finish(step, progress);
            break match question {
                Some(question) => StopReason::Asked { question },
                None => StopReason::Done,
            };
        }
        for (i, call) in reply.calls.iter().enumerate() {
            if run.record.steps.len() as u32 >= max_steps {
                break 'run StopReason::StepLimit { limit: max_steps };
            }
            // The model's time and tokens belong to the first call of its reply.
            let (model_ms, usage) = if i == 0 { (model_ms, reply.usage) } else { (0, None) };
            let started = Instant::now();
            let before = conversation.last_tree();
            let done = conversation.execute(call);
            let act_ms = started.elapsed().as_millis() as u64;
            // What the call changed, from the trees its screenshots came with (no extra look:
            // another observation would replace the frame the model's coordinates refer to).
            // A call that brought no new screenshot (the toolset's clicks answer in words) has none;
            // the next look's step then says what changed since the last one.
            let changes = match (before, conversation.last_tree()) {
                (Some(before), Some(after)) if !std::sync::Arc::ptr_eq(&before, &after) => {
                    let diff = glovebox_model::TreeDiff::between(&before, &after).render_text();
                    Some(diff.lines().take(crate::run::CHANGE_LINES).collect::<Vec<_>>().join("\n"))
                }
                _ => None,
            };
            if let Some((action, route)) = &done.delivered_before {
                let mut step = run.step(
                    DecisionRecord::Parsed { decision: done.decision.clone() },
                    Some(action.clone()),
                    done.target,
                    model_ms,
                    usage,
                );
                step.verdict = Verdict::Delivered { route: route.clone() };
                run.record.finish(step, progress);
            }
            let mut step = run.step(
                DecisionRecord::Parsed { decision: done.decision.clone() },
                Some(done.action.clone()),
                done.target,
                model_ms,
                usage,
            );
            step.act_ms = act_ms;
            step.changes = changes;
            if let Some(png) = &done.screenshot {
                run.shown = Some(png.clone());
            }
            match done.outcome {
                Ok(()) => {
                    step.verdict = if done.input {
                        Verdict::Delivered { route: done.route.clone() }
                    } else {
                        Verdict::Finished
                    };
                    run.record.finish(step, progress);
                }
                Err(refusal) => {
                    if let Some(stop) =
                        run.record.refused(step, refusal, &done.fingerprint, progress)
                    {
                        break 'run stop;
                    }
                }
            }
            if let Some(refusal) = done.fatal {
                break 'run StopReason::host(&refusal);
            }
        }
    };
    // The titles as they are now: the window may have renamed itself.
    let (_, fresh) = prompt::windows(&host);
    titles.extend(fresh);
    let final_window = titles.get(&window).map(|(app, title)| FinalWindow {
        id: window,
        app: app.clone(),
        title: title.clone(),
    });
    let summary = Summary::of(&run.record.steps, stop, max_steps, final_window, name);
    Ok(Outcome { summary, steps: run.record.steps })
}

struct Run {
    record: Record,
    window: WindowId,
    title: String,
    /// The screenshot the model last received: what its next coordinates refer to.
    shown: Option<Vec<u8>>,
    /// The first lines of the tree the first turn carried.
    tree: String,
}

impl Run {
    fn step(
        &self,
        decision: DecisionRecord,
        action: Option<String>,
        target: Option<Point>,
        model_ms: u64,
        tokens: Option<(u64, u64)>,
    ) -> Step {
        let screenshot = self.shown.as_ref().and_then(|bytes| {
            png_size(bytes).map(|s| Png { bytes: bytes.clone(), width: s.width, height: s.height })
        });
        Step {
            index: self.record.steps.len() as u32 + 1,
            window: Some(self.window),
            window_title: self.title.clone(),
            frame: None,
            image: screenshot.as_ref().map(|p| Size::new(p.width, p.height)),
            tree_excerpt: if self.record.steps.is_empty() {
                self.tree.clone()
            } else {
                String::new()
            },
            target_drawn: target.filter(|_| screenshot.is_some()),
            screenshot,
            decision,
            action,
            verdict: Verdict::Finished,
            changes: None,
            model_ms,
            act_ms: 0,
            tokens,
        }
    }
}

/// The width and height from a PNG's IHDR chunk, without decoding it.
pub(crate) fn png_size(bytes: &[u8]) -> Option<Size> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some(Size::new(word(16), word(20)))
}

pub(crate) use crate::decision::bounded;

/// A short piece of a model-supplied name for descriptions (action names are
/// read from the model's JSON and could be anything).
pub(crate) fn short(text: &str) -> String {
    bounded(text).chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_display_fits_the_window_into_wxga_keeping_its_aspect() {
        assert_eq!(display_for(Size::new(640, 480)), Size::new(640, 480));
        assert_eq!(display_for(Size::new(1920, 1080)), Size::new(1280, 720));
        assert_eq!(display_for(Size::new(1000, 1600)), Size::new(500, 800));
        assert_eq!(display_for(Size::new(0, 0)), Size::new(1, 1));
    }

    #[test]
    fn png_sizes_come_from_the_header_and_garbage_is_none() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(640u32.to_be_bytes());
        png.extend(480u32.to_be_bytes());
        assert_eq!(png_size(&png), Some(Size::new(640, 480)));
        assert_eq!(png_size(b"not a png at all, not at all"), None);
    }
}
