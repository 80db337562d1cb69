//! Model providers speaking real wire formats: OpenAI Responses, Anthropic
//! Messages, Gemini `generateContent` and OpenAI-compatible Chat Completions. This module owns binding
//! (endpoint, API key, headers) and the one [`Model`] that drives them; each
//! wire format lives in its own module, the shared HTTP behaviour in `http`.
//! (MCP sampling lives in `glovebox-mcp`, which owns the MCP connection.)

mod anthropic;
mod compat;
pub(crate) mod gemini;
pub(crate) mod http;
pub(crate) mod openai;

use crate::model::{DecideRequest, Model, ModelBinding, ModelError, Png, Provider, Reply};
use base64::Engine as _;
use serde_json::Value;

pub(crate) const OPENAI_BASE: &str = "https://api.openai.com/v1";
pub(crate) const ANTHROPIC_BASE: &str = "https://api.anthropic.com/v1";
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";
pub(crate) const GEMINI_BASE: &str = "https://generativelanguage.googleapis.com/v1beta";

/// A Gemini model's `generateContent` endpoint under `base`.
pub(crate) fn gemini_url(base: &str, model: &str) -> String {
    format!("{base}/models/{}:generateContent", model.trim().trim_start_matches("models/"))
}

/// The model `binding` names, ready to decide. The API key is read from its
/// environment variable here, once. MCP sampling cannot be bound here (it
/// needs the MCP connection): `ModelError::Binding`.
pub fn bind(binding: &ModelBinding) -> Result<Box<dyn Model>, ModelError> {
    let wire = match binding.provider {
        Provider::OpenAiResponses => Wire::OpenAi,
        Provider::AnthropicMessages => Wire::Anthropic,
        Provider::OpenAiCompatible => Wire::Compat,
        Provider::Gemini => Wire::Gemini,
        Provider::McpSampling => {
            return Err(ModelError::Binding("mcp-sampling uses the MCP client's own model and is only available under `glovebox mcp`".into()))
        }
    };
    if binding.model.trim().is_empty() {
        return Err(ModelError::Unbound);
    }
    if binding.timeout.is_zero() {
        return Err(ModelError::Binding("model.timeout must be longer than zero".into()));
    }
    let base = base_url(wire, binding.base_url.as_deref())?;
    let key = match &binding.api_key_env {
        Some(name) => Some(api_key(name)?),
        None => None,
    };
    // The public endpoints always want a key; a custom base (a gateway that
    // adds its own credentials) may not.
    if key.is_none() && binding.base_url.is_none() && wire != Wire::Compat {
        return Err(ModelError::Binding(format!(
            "{} needs an API key: set model.api_key_env to the environment variable that holds it (e.g. {})",
            wire.label(),
            wire.key_hint()
        )));
    }
    let headers = wire.headers(key.as_deref());
    Ok(Box::new(HttpModel {
        wire,
        model: binding.model.clone(),
        url: wire.url(&base, &binding.model),
        headers,
        images: binding.images,
        http: http::Http::new(binding.timeout, binding.max_retries, key),
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
    Compat,
}

impl Wire {
    fn label(self) -> &'static str {
        self.provider().label()
    }

    fn provider(self) -> Provider {
        match self {
            Wire::OpenAi => Provider::OpenAiResponses,
            Wire::Anthropic => Provider::AnthropicMessages,
            Wire::Gemini => Provider::Gemini,
            Wire::Compat => Provider::OpenAiCompatible,
        }
    }

    fn key_hint(self) -> &'static str {
        match self {
            Wire::OpenAi => "OPENAI_API_KEY",
            Wire::Anthropic => "ANTHROPIC_API_KEY",
            Wire::Gemini => "GEMINI_API_KEY",
            Wire::Compat => "OPENAI_API_KEY",
        }
    }

    fn url(self, base: &str, model: &str) -> String {
        match self {
            Wire::OpenAi => format!("{base}/responses"),
            Wire::Anthropic => format!("{base}/messages"),
            Wire::Gemini => gemini_url(base, model),
            Wire::Compat => format!("{base}/chat/completions"),
        }
    }

    fn headers(self, key: Option<&str>) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        match self {
            Wire::Anthropic => {
                headers.push(("anthropic-version", ANTHROPIC_VERSION.to_string()));
                if let Some(key) = key {
                    headers.push(("x-api-key", key.to_string()));
                }
            }
            Wire::Gemini => {
                if let Some(key) = key {
                    headers.push(("x-goog-api-key", key.to_string()));
                }
            }
            Wire::OpenAi | Wire::Compat => {
                if let Some(key) = key {
                    headers.push(("authorization", format!("Bearer {key}")));
                }
            }
        }
        headers
    }
}

/// A model behind one HTTP endpoint. Deliberately not `Debug`: its headers
/// hold the API key.
struct HttpModel {
    wire: Wire,
    model: String,
    url: String,
    headers: Vec<(&'static str, String)>,
    images: bool,
    http: http::Http,
}

impl Model for HttpModel {
    fn name(&self) -> String {
        format!("{}/{}", self.wire.label(), self.model)
    }

    fn accepts_images(&self) -> bool {
        self.images
    }

    fn decide(&mut self, request: &DecideRequest) -> Result<Reply, ModelError> {
        // The loop already leaves the screenshot out for a text-only model;
        // checking again keeps pixels from leaving under a binding that said no.
        let screenshot = request.screenshot.as_ref().filter(|_| self.images);
        let body = match self.wire {
            Wire::OpenAi => openai::body(&self.model, request, screenshot),
            Wire::Anthropic => anthropic::body(&self.model, request, screenshot),
            Wire::Gemini => gemini::body(request, screenshot),
            Wire::Compat => compat::body(&self.model, request, screenshot),
        };
        let answer = self.http.post_json(&self.url, &self.headers, &body)?;
        match self.wire {
            Wire::OpenAi => openai::parse(&answer, request.tool.name),
            Wire::Anthropic => anthropic::parse(&answer, request.tool.name),
            Wire::Gemini => gemini::parse(&answer, request.tool.name),
            Wire::Compat => compat::parse(&answer, request.tool.name),
        }
    }
}

fn base_url(wire: Wire, configured: Option<&str>) -> Result<String, ModelError> {
    let base = match (configured.map(str::trim).filter(|b| !b.is_empty()), wire) {
        (Some(base), _) => base,
        (None, Wire::OpenAi) => OPENAI_BASE,
        (None, Wire::Anthropic) => ANTHROPIC_BASE,
        (None, Wire::Gemini) => GEMINI_BASE,
        (None, Wire::Compat) => return Err(ModelError::Binding(
            "openai-compatible needs model.base_url (e.g. http://localhost:11434/v1 for Ollama)"
                .into(),
        )),
    };
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(ModelError::Binding(format!(
            "model.base_url {base:?} is not an http:// or https:// URL"
        )));
    }
    Ok(base.trim_end_matches('/').to_string())
}

/// The key from the variable `name`; the error names the variable, never a value.
pub(crate) fn api_key(name: &str) -> Result<String, ModelError> {
    match std::env::var(name) {
        Ok(key) if key.trim().is_empty() => {
            Err(ModelError::Binding(format!("environment variable {name} is empty")))
        }
        Ok(key) => Ok(key.trim().to_string()),
        Err(std::env::VarError::NotPresent) => {
            Err(ModelError::Binding(format!("environment variable {name} is not set")))
        }
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(ModelError::Binding(format!("environment variable {name} is not valid Unicode")))
        }
    }
}

fn data_url(png: &Png) -> String {
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png.bytes)
    )
}

/// Tokens in and out when both counters are present.
pub(crate) fn usage(answer: &Value, input: &str, output: &str) -> Option<(u64, u64)> {
    let usage = answer.get("usage")?;
    Some((usage.get(input)?.as_u64()?, usage.get(output)?.as_u64()?))
}

/// An answer that parsed as JSON but is not a usable decision, with the
/// provider's own reason when it gave one.
fn wire_error(what: &str, answer: &Value) -> ModelError {
    match http::error_message(answer) {
        Some(reason) => ModelError::InvalidResponse(format!("{what}: {reason}")),
        None => ModelError::InvalidResponse(what.to_string()),
    }
}
