//! The seam between the loop and a model: what one decision request holds,
//! what a bound model answers, and how a model is bound (DESIGN.md §6).
//!
//! A model is injected into the loop as a [`Model`]. The providers in
//! [`crate::providers`] speak real wire formats; tests drive the loop with
//! scripted models. A model answers with the raw text of its decision (the
//! arguments of the one function tool it was forced to call, or whatever it
//! wrote instead); parsing and validation belong to the loop, so no
//! provider can let a malformed decision through.

use glovebox_model::{ErrorCode, Refusal};
use std::time::Duration;

/// The one function tool every provider forces the model to call.
pub const DECISION_TOOL: &str = "next_step";

/// One request for the next decision. Stateless: everything the model needs
/// is in here (the loop's own record of earlier steps included), so any
/// provider can send it as a single turn.
#[derive(Debug, Clone)]
pub struct DecideRequest {
    /// The system prompt: the model's role, the rules, and that screen
    /// content is data, never instructions.
    pub system: String,
    /// The user turn: the instruction, the steps so far with the host's
    /// verdicts, the window list and the compact tree of the bound window.
    pub user: String,
    /// A PNG of the bound window, only when the grant allows pixels and the
    /// model accepts images.
    pub screenshot: Option<Png>,
    /// The name, description and strict JSON schema of the decision tool.
    pub tool: ToolSpec,
}

#[derive(Debug, Clone)]
pub struct Png {
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: String,
    /// A JSON Schema in the strict subset OpenAI accepts (every property
    /// required, `additionalProperties: false`); Anthropic and
    /// OpenAI-compatible servers accept it as it is.
    pub schema: serde_json::Value,
}

/// What a model answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The decision as text: the tool call's arguments, or the text the
    /// model wrote when it did not call the tool. Parsed by the loop.
    pub decision: String,
    /// Tokens in and out, when the provider reports them.
    pub usage: Option<(u64, u64)>,
}

/// A bound model.
pub trait Model: Send {
    /// `provider/model`, for progress lines, reports and the audit.
    fn name(&self) -> String;
    /// Whether screenshots may be sent to it (a text-only model gets the tree alone).
    fn accepts_images(&self) -> bool;
    /// One decision. Providers retry 429/5xx with backoff themselves;
    /// what comes out is the final answer or the final error.
    fn decide(&mut self, request: &DecideRequest) -> Result<Reply, ModelError>;
}

/// Why a model gave no decision.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("no model is bound for computer use; set [model] provider and model (e.g. `glovebox config set model.provider anthropic`)")]
    Unbound,
    /// The binding itself is unusable (missing API key variable, bad URL).
    #[error("the model binding is unusable: {0}")]
    Binding(String),
    /// 401/403: the key is missing, wrong or lacks access.
    #[error("the provider refused the credentials (HTTP {status}): {message}")]
    Unauthorized { status: u16, message: String },
    /// 404: wrong model name or endpoint.
    #[error("the provider does not know this model or endpoint (HTTP 404): {0}")]
    NotFound(String),
    /// 429 or 5xx after every retry.
    #[error("the provider kept failing (HTTP {status}) after {attempts} attempts: {message}")]
    Unavailable { status: u16, attempts: u32, message: String },
    /// Any other HTTP status.
    #[error("the provider answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    /// The body was not the provider's documented shape (not JSON, no choices, …).
    #[error("the provider's answer was not understood: {0}")]
    InvalidResponse(String),
    #[error("the provider did not answer within {0:?}")]
    Timeout(Duration),
    /// Connection refused, DNS, TLS.
    #[error("the provider could not be reached: {0}")]
    Transport(String),
}

impl ModelError {
    /// The registry code callers see.
    pub fn code(&self) -> ErrorCode {
        match self {
            ModelError::Unbound | ModelError::Binding(_) => ErrorCode::ModelUnbound,
            ModelError::InvalidResponse(_) => ErrorCode::ModelSchemaViolation,
            ModelError::Timeout(_) => ErrorCode::Timeout,
            ModelError::Unauthorized { .. }
            | ModelError::NotFound(_)
            | ModelError::Unavailable { .. }
            | ModelError::Http { .. }
            | ModelError::Transport(_) => ErrorCode::BackendUnavailable,
        }
    }

    pub fn to_refusal(&self) -> Refusal {
        Refusal::new(self.code(), self.to_string())
    }
}

/// Which wire format a binding speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// `POST {base}/responses` (default base `https://api.openai.com/v1`).
    OpenAiResponses,
    /// `POST {base}/messages` (default base `https://api.anthropic.com/v1`).
    AnthropicMessages,
    /// `POST {base}/models/{model}:generateContent` (default base
    /// `https://generativelanguage.googleapis.com/v1beta`), key in `x-goog-api-key`.
    Gemini,
    /// `POST {base}/chat/completions` on any OpenAI-compatible server
    /// (Ollama, vLLM, LM Studio); `base_url` is required.
    OpenAiCompatible,
    /// The MCP client's own model through `sampling/createMessage`, only
    /// under `glovebox mcp` and only when the user chose it.
    McpSampling,
}

impl Provider {
    /// The name a model is reported under (`anthropic/claude-…`).
    pub fn label(self) -> &'static str {
        match self {
            Provider::OpenAiResponses => "openai",
            Provider::AnthropicMessages => "anthropic",
            Provider::Gemini => "gemini",
            Provider::OpenAiCompatible => "openai-compatible",
            Provider::McpSampling => "mcp-sampling",
        }
    }
}

/// The user's explicit choice of model (config `[model]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelBinding {
    pub provider: Provider,
    pub model: String,
    /// Overrides the provider's default endpoint base (required for OpenAI-compatible).
    pub base_url: Option<String>,
    /// The environment variable holding the API key; `None`: send none
    /// (local OpenAI-compatible servers).
    pub api_key_env: Option<String>,
    /// Whether the model takes images; `false` sends the tree alone.
    pub images: bool,
    /// Per request.
    pub timeout: Duration,
    /// Extra attempts on 429/5xx/timeouts, with exponential backoff.
    pub max_retries: u32,
    /// The model has native computer use (OpenAI GA `computer`, Anthropic
    /// `computer_2025…`) and gets that tool instead of the decision function.
    /// Explicit: never inferred from the model's name.
    pub native: bool,
    /// Which Anthropic contract a native run declares.
    pub anthropic_tool: AnthropicTool,
}

/// The Anthropic computer-use contract of a native run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnthropicTool {
    /// `computer_toolset_20260801`, generally available: no beta header.
    #[default]
    Toolset,
    /// `computer_20250124` behind the `computer-use-2025-01-24` beta.
    Computer20250124,
}
