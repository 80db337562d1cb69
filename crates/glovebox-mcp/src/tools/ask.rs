//! ask_user: the agent's question to the person, through the client's own
//! way of asking — the same channel the host's approvals take. Handshake
//! era: an elicitation within the call. Current era (2026-07-28): the call
//! ends with an input-required result carrying the question as a form, and
//! the client's retry brings the answer back; the host keeps the question
//! and its token with every other that waits across calls
//! ([`glovebox_host::deferred`]). A client that cannot ask leaves the
//! indicator page as the channel. The host checks the question and the
//! answer and audits them ([`glovebox_host::Host::ask_user`]).

use crate::{AskUserArgs, GloveboxServer, Reply};
use glovebox_model::Question;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};

#[tool_router(router = ask_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Ask the person (e.g. for a code or a choice); returns their answer.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn ask_user(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<AskUserArgs>,
    ) -> Result<CallToolResult, McpError> {
        let question = Question { text: args.question, choices: args.choices.unwrap_or_default() };
        self.run(&context, move |host, _, _| {
            let answer = host.ask_user(&question)?;
            Ok(Reply::text(format!("The person answered: {}", answer.text)))
        })
        .await
    }
}
