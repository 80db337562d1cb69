//! The demo's stand-in for a user: an MCP client side that answers
//! glovebox's approval prompts with a fixed choice and says so on stdout.
//! (The tests' scripted client is glovebox-testkit's.)

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
};
use rmcp::service::RequestContext;
use rmcp::RoleClient;

#[derive(Clone)]
pub struct ScriptedUser {
    pub answer: ElicitationAction,
    /// Print each prompt and the answer to stdout.
    pub echo: bool,
}

impl ScriptedUser {
    pub fn answering(answer: ElicitationAction, echo: bool) -> ScriptedUser {
        ScriptedUser { answer, echo }
    }
}

impl rmcp::ClientHandler for ScriptedUser {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities = ClientCapabilities::builder().enable_elicitation().build();
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            if self.echo {
                println!("  ? approval prompt: {message}");
                println!("  ! the scripted user answers {:?}", self.answer);
            }
        }
        let result = ElicitResult::new(self.answer.clone());
        Ok(match self.answer {
            ElicitationAction::Accept => result.with_content(serde_json::json!({"approve": true})),
            _ => result,
        })
    }
}
