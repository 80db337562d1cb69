//! The session tools: switch_window (bind the grant to another window) and
//! grant_status (the active grant, and whether a denial covers a window).

use super::window_ref;
use crate::{render, GloveboxServer, GrantStatusArgs, Reply, SwitchWindowArgs};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};

#[tool_router(router = session_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Bind the grant to another listed window and observe it, without raising or focusing it; no budget cost.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn switch_window(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<SwitchWindowArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(&context, move |host, _, _| {
            let o = host.switch_window(&window_ref(&args.window)?, false)?;
            Ok(Reply::observed(render::observation(&o, host.text_budget()), &o))
        })
        .await
    }

    #[tool(
        description = "The active grant (window, scope, revision, actions left, capture); with `window`, whether a denial covers it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn grant_status(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<GrantStatusArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(&context, move |host, _, _| {
            let mut text = match host.grant_status() {
                Some(view) => serde_json::to_string_pretty(&view).unwrap_or_default(),
                None => "no active grant; the first observe creates one".into(),
            };
            if let Some(window) = args.window {
                let wanted = window_ref(&window)?;
                let mut listed = host.list_windows(None, 1)?;
                for page in 2..=listed.pages {
                    listed.windows.extend(host.list_windows(None, page)?.windows);
                }
                let infos: Vec<_> = listed.windows.iter().map(|w| w.window.clone()).collect();
                let line = match wanted.resolve(&infos) {
                    Err(
                        glovebox_model::ResolveError::Gone(why)
                        | glovebox_model::ResolveError::Ambiguous(why),
                    ) => format!("window {wanted}: {why}"),
                    Ok(found) => match listed
                        .windows
                        .iter()
                        .find(|w| w.window.id == found.id)
                        .and_then(|w| w.denial.as_ref())
                    {
                        Some(denial) => {
                            format!("window {}: denied ({})", found.id, denial.sentence())
                        }
                        None => format!("window {}: no denial covers it", found.id),
                    },
                };
                text.push('\n');
                text.push_str(&line);
            }
            Ok(Reply::text(text))
        })
        .await
    }
}
