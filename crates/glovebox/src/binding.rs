//! The user's `[model]` configuration as a binding for the loop. No
//! configured provider means no binding: callers answer
//! `COMPUTER_MODEL_UNBOUND`, never a model of their own choosing.

use glovebox_agent::{ModelBinding, ModelError, Provider};
use std::time::Duration;

/// The binding `[model]` describes, `Ok(None)` when nothing is bound.
pub fn model_binding(config: &glovebox_config::ModelConfig) -> Result<Option<ModelBinding>, ModelError> {
    let provider: Provider = match config.provider.parse() {
        Ok(p) => p,
        Err(ModelError::Unbound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(Some(ModelBinding {
        provider,
        model: config.model.trim().to_owned(),
        base_url: text(&config.base_url),
        api_key_env: text(&config.api_key_env),
        images: config.images,
        timeout: Duration::from_secs(config.timeout_secs),
        max_retries: config.max_retries,
        native: config.native,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_provider_is_unbound_and_a_named_one_is_bound_as_written() {
        let mut config = glovebox_config::Config::default().model;
        assert_eq!(model_binding(&config).unwrap(), None);
        config.provider = "openai-compatible".into();
        config.model = "llama3.2".into();
        config.base_url = "http://127.0.0.1:11434/v1".into();
        let bound = model_binding(&config).unwrap().unwrap();
        assert_eq!(bound.provider, Provider::OpenAiCompatible);
        assert_eq!(bound.api_key_env, None);
        assert_eq!(bound.timeout, Duration::from_secs(60));
    }
}
