//! The user's `[model]` configuration as a binding for the loop. No
//! configured provider means no binding: callers answer
//! `COMPUTER_MODEL_UNBOUND`, never a model of their own choosing.

use glovebox_agent::{ModelBinding, ModelError, Provider};
use glovebox_config::ModelProvider;
use std::time::Duration;

/// The binding `[model]` describes, `Ok(None)` when nothing is bound.
pub fn model_binding(
    config: &glovebox_config::ModelConfig,
) -> Result<Option<ModelBinding>, ModelError> {
    let provider = match config.provider {
        ModelProvider::Unbound => return Ok(None),
        ModelProvider::Openai => Provider::OpenAiResponses,
        ModelProvider::Anthropic => Provider::AnthropicMessages,
        ModelProvider::Gemini => Provider::Gemini,
        ModelProvider::OpenaiCompatible => Provider::OpenAiCompatible,
        ModelProvider::McpSampling => Provider::McpSampling,
    };
    let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    let unusable = |why: String| Err(ModelError::Binding(why));
    if provider != Provider::McpSampling && config.model.trim().is_empty() {
        return unusable(format!("model.provider is {:?} but model.model names no model (`glovebox config set model.model NAME`)", config.provider));
    }
    if provider == Provider::OpenAiCompatible && config.base_url.trim().is_empty() {
        return unusable("model.provider openai-compatible needs model.base_url (e.g. http://127.0.0.1:11434/v1 for Ollama)".into());
    }
    if config.native
        && !matches!(
            provider,
            Provider::OpenAiResponses | Provider::AnthropicMessages | Provider::Gemini
        )
    {
        return unusable(format!(
            "model.native needs model.provider openai, anthropic or gemini, not {:?}",
            config.provider
        ));
    }
    Ok(Some(ModelBinding {
        provider,
        model: config.model.trim().to_owned(),
        base_url: text(&config.base_url),
        api_key_env: text(&config.api_key_env),
        images: config.images,
        timeout: Duration::from_secs(config.timeout_secs),
        max_retries: config.max_retries,
        native: config.native,
        anthropic_tool: match config.anthropic_tool {
            glovebox_config::AnthropicTool::Toolset20260801 => {
                glovebox_agent::model::AnthropicTool::Toolset
            }
            glovebox_config::AnthropicTool::Computer20250124 => {
                glovebox_agent::model::AnthropicTool::Computer20250124
            }
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_provider_is_unbound_and_a_named_one_is_bound_as_written() {
        let mut config = glovebox_config::Config::default().model;
        assert_eq!(model_binding(&config).unwrap(), None);
        config.provider = ModelProvider::OpenaiCompatible;
        config.model = "llama3.2".into();
        config.base_url = "http://127.0.0.1:11434/v1".into();
        let bound = model_binding(&config).unwrap().unwrap();
        assert_eq!(bound.provider, Provider::OpenAiCompatible);
        assert_eq!(bound.api_key_env, None);
        assert_eq!(bound.timeout, Duration::from_secs(60));
        config.base_url.clear();
        assert!(
            matches!(model_binding(&config), Err(ModelError::Binding(_))),
            "openai-compatible without a base URL"
        );
        config.provider = ModelProvider::Anthropic;
        config.model.clear();
        assert!(
            matches!(model_binding(&config), Err(ModelError::Binding(_))),
            "a provider without a model"
        );
        config.model = "claude-sonnet-4-5".into();
        config.native = true;
        assert!(model_binding(&config).unwrap().unwrap().native);
        config.provider = ModelProvider::McpSampling;
        assert!(matches!(model_binding(&config), Err(ModelError::Binding(_))), "native sampling");
    }
}
