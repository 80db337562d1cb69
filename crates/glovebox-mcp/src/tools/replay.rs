//! The replay tool: a recorded task run again with no model, stopping
//! where the window no longer matches the recording.

use super::window_ref;
use crate::{GloveboxServer, ReplayArgs, Reply};
use glovebox_model::Refusal;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};

#[tool_router(router = replay_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Replay a recorded task with no model, stopping where it diverges.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn replay(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<ReplayArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(&context, move |host, _, _| {
            let window = args.window.as_deref().map(window_ref).transpose()?;
            let account = glovebox_agent::replay::replay(
                host,
                std::path::Path::new(&args.recording),
                window,
                false,
                glovebox_agent::replay::WithheldText::Refuse,
            )?;
            match &account.divergence {
                None => Ok(Reply::text(account.render())),
                Some(d) => Err(Refusal::new(d.code, account.render())),
            }
        })
        .await
    }
}
