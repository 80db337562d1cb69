//! The scripted MCP client of the tests: a user who answers every approval
//! prompt the same way, and — when given one — a model of the client's own
//! that answers sampling requests from a script. It records what it was
//! shown.
// Sampling is deprecated upstream (SEP-2577), but clients offer it and the
// computer tool uses it.
#![allow(deprecated)]

use glovebox_platform::sync::LockRecovered as _;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, SamplingMessage,
    SamplingMessageContentBlock,
};
use rmcp::service::RequestContext;
use rmcp::RoleClient;
use std::sync::{Arc, Mutex};

/// The client's model: answers sampling request `n` (from 0), given its
/// system prompt and its text.
pub type ScriptedModel = Arc<dyn Fn(usize, &str, &str) -> String + Send + Sync>;

#[derive(Clone)]
pub struct ScriptedClient {
    answer: ElicitationAction,
    model: Option<ScriptedModel>,
    prompts: Arc<Mutex<Vec<String>>>,
    sampled: Arc<Mutex<Vec<String>>>,
}

impl ScriptedClient {
    /// A client whose user gives `answer` to every approval prompt.
    pub fn answering(answer: ElicitationAction) -> ScriptedClient {
        ScriptedClient { answer, model: None, prompts: Arc::default(), sampled: Arc::default() }
    }

    /// The same client offering sampling, answered by `model`.
    pub fn with_model(
        self,
        model: impl Fn(usize, &str, &str) -> String + Send + Sync + 'static,
    ) -> ScriptedClient {
        ScriptedClient { model: Some(Arc::new(model)), ..self }
    }

    /// The approval prompts shown so far, in order.
    pub fn prompts(&self) -> Vec<String> {
        self.prompts.lock_recovered().clone()
    }

    /// Each sampling request so far: its system prompt, a line break, its text.
    pub fn sampled(&self) -> Vec<String> {
        self.sampled.lock_recovered().clone()
    }
}

impl rmcp::ClientHandler for ScriptedClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder().enable_elicitation();
        let mut info = ClientConfig::default();
        info.capabilities = match self.model {
            Some(_) => capabilities.enable_sampling().build(),
            None => capabilities.build(),
        };
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.prompts.lock_recovered().push(message.clone());
        }
        let result = ElicitResult::new(self.answer.clone());
        Ok(match self.answer {
            ElicitationAction::Accept => result.with_content(serde_json::json!({"approve": true})),
            _ => result,
        })
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, rmcp::ErrorData> {
        let Some(model) = &self.model else {
            return Err(
                rmcp::ErrorData::method_not_found::<rmcp::model::CreateMessageRequestMethod>(),
            );
        };
        let prompt: String = params
            .messages
            .iter()
            .flat_map(|m| m.content.clone().into_vec())
            .filter_map(|b| {
                if let SamplingMessageContentBlock::Text(t) = b {
                    Some(t.text)
                } else {
                    None
                }
            })
            .collect();
        let system = params.system_prompt.clone().unwrap_or_default();
        let step = {
            let mut sampled = self.sampled.lock_recovered();
            sampled.push(format!("{system}\n{prompt}"));
            sampled.len() - 1
        };
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(model(step, &system, &prompt)),
            "client-model".into(),
        ))
    }
}
