//! An MCP client side that answers glovebox's approval prompts with a fixed
//! choice: the scripted stand-in for a user in `glovebox-mcp-demo` and in
//! tests. It records every prompt it was shown.

use glovebox_platform::sync::LockRecovered as _;
use rmcp::model::{ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction};
use rmcp::service::RequestContext;
use rmcp::RoleClient;
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub struct ScriptedUser {
    pub answer: ElicitationAction,
    /// Print each prompt and the answer to stdout.
    pub echo: bool,
    pub seen: Arc<Mutex<Vec<String>>>,
}

impl ScriptedUser {
    pub fn answering(answer: ElicitationAction, echo: bool) -> ScriptedUser {
        ScriptedUser { answer, echo, seen: Arc::default() }
    }

    pub fn prompts(&self) -> Vec<String> {
        self.seen.lock_recovered().clone()
    }
}

impl rmcp::ClientHandler for ScriptedUser {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities = ClientCapabilities::builder().enable_elicitation().build();
        info
    }

    async fn create_elicitation(&self, request: ElicitRequestParams, _context: RequestContext<RoleClient>) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            if self.echo {
                println!("  ? approval prompt: {message}");
                println!("  ! the scripted user answers {:?}", self.answer);
            }
            self.seen.lock_recovered().push(message.clone());
        }
        let result = ElicitResult::new(self.answer.clone());
        Ok(match self.answer {
            ElicitationAction::Accept => result.with_content(serde_json::json!({"approve": true})),
            _ => result,
        })
    }
}
