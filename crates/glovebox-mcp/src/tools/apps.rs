//! The tools that start something on the desktop: open_app (an app,
//! bound and observed) and open_url (an address in a private browser on the
//! agent display).

use crate::{render, GloveboxServer, OpenAppArgs, OpenUrlArgs, Reply};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};

/// What the first line says when the page had not loaded by the bound.
fn still_loading(opened: &glovebox_host::OpenedApp) -> &'static str {
    if opened.still_loading {
        "; its page had not loaded within 10 s: observe again to see it"
    } else {
        ""
    }
}

#[tool_router(router = apps_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Start an app (desktop entry or executable), bind to its window and observe it; a denied one never starts.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn open_app(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<OpenAppArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(&context, move |host, _, _| {
            let opened = host.open_app(&args.name, args.desktop, false)?;
            let how = match (opened.how, args.desktop) {
                (glovebox_host::Opened::AlreadyRunning, _) => "already running: its window, nothing started",
                (_, glovebox_model::Desktop::Agent) => "started on the agent display",
                (glovebox_host::Opened::Started, _) => "started; your window kept focus",
                (glovebox_host::Opened::StartedAndHandedBack, _) => "started; the window manager focused it, and glovebox gave focus back to your window",
            };
            let text = format!("{how}; pid {}; window {}{}\n{}", opened.pid, opened.window.id, still_loading(&opened), render::observation(&opened.observation, host.text_budget()));
            Ok(Reply::observed(text, &opened.observation))
        })
        .await
    }

    #[tool(
        description = "Open an http(s) address in a private browser on the agent display and observe it.",
        annotations(destructive_hint = true, open_world_hint = true)
    )]
    async fn open_url(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<OpenUrlArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(&context, move |host, _, _| {
            let opened = host.open_url(&args.url, false)?;
            let text = format!(
                "opened on the agent display; pid {}; window {}{}\n{}",
                opened.pid,
                opened.window.id,
                still_loading(&opened),
                render::observation(&opened.observation, host.text_budget())
            );
            Ok(Reply::observed(text, &opened.observation))
        })
        .await
    }
}
