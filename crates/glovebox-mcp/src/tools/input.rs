//! The input tools: click, move, drag, scroll, type, set_value, key,
//! select and batch. Each acts on the newest frame handed to its client
//! ([`GloveboxServer::act`] for the single actions) and answers with what
//! changed.

use crate::{
    render, BatchArgs, ClickArgs, DragArgs, GloveboxServer, KeyArgs, MoveArgs, Reply, ScrollArgs,
    SelectArgs, SetValueArgs, TypeArgs,
};
use glovebox_host::{ActRequest, Host, LookAfter};
use glovebox_model::{Action, Button, DeliveryMode, Refusal};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};

impl GloveboxServer {
    /// One action on the newest frame of the calling client, as a tool's work.
    fn act(
        &self,
        action: Action,
        delivery: Option<DeliveryMode>,
        screenshot: Option<bool>,
    ) -> impl FnOnce(&Host, &GloveboxServer, &str) -> Result<Reply, Refusal> + Send + 'static {
        move |host, server, client| {
            let (frame, mode) = (server.newest(client)?, delivery.unwrap_or_default());
            let look = screenshot
                .map_or(LookAfter::AsConfigured, |screenshot| LookAfter::Tree { screenshot });
            let done = host.perform(ActRequest::new(frame, action).mode(mode).look(look))?;
            let text = render::acted(&done, host.text_budget());
            Ok(match &done.next {
                Ok(next) => Reply::observed(text, next),
                Err(_) => Reply::text(text),
            })
        }
    }
}

#[tool_router(router = input_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Click an element or a point of the newest observation, in the background where a route exists. Returns what changed.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn click(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<ClickArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::Click {
            target: args.target,
            button: args.button.unwrap_or(Button::Left),
            count: args.count.unwrap_or(1),
            modifiers: args.modifiers.unwrap_or_default(),
        };
        self.run(&context, self.act(action, args.delivery, args.screenshot)).await
    }

    #[tool(
        name = "move",
        description = "Move the pointer over a target (hover), e.g. to reveal a tooltip.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn r#move(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<MoveArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action =
            Action::Move { target: args.target, modifiers: args.modifiers.unwrap_or_default() };
        self.run(&context, self.act(action, args.delivery, args.screenshot)).await
    }

    #[tool(
        description = "Press the left button at `from`, move to `to`, release.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn drag(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<DragArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::Drag {
            from: args.from,
            to: args.to,
            modifiers: args.modifiers.unwrap_or_default(),
        };
        self.run(&context, self.act(action, args.delivery, args.screenshot)).await
    }

    #[tool(
        description = "Turn the wheel over a target: dy > 0 scrolls down, dx > 0 right (steps, -100..100).",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn scroll(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<ScrollArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::Scroll {
            target: args.target,
            dx: args.dx,
            dy: args.dy,
            modifiers: args.modifiers.unwrap_or_default(),
        };
        self.run(&context, self.act(action, args.delivery, args.screenshot)).await
    }

    #[tool(
        name = "type",
        description = "Type at the focused field's caret (inserts; set_value replaces). Returns what changed.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn r#type(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<TypeArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::Type { text: args.text };
        self.run(&context, self.act(action, args.delivery, args.screenshot)).await
    }

    #[tool(
        description = "Replace the whole value of a text field, slider or spin button (empty clears). Preferred over click + type. Returns what changed.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn set_value(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<SetValueArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::SetValue { target: args.target, text: args.text };
        self.run(&context, self.act(action, None, args.screenshot)).await
    }

    #[tool(
        description = "Press a key or chord (`Enter`, `ctrl+s`, `shift+Tab`, `F5`), 1–20 times.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn key(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<KeyArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::Key { combo: args.combo, repeat: args.repeat.unwrap_or(1) };
        self.run(&context, self.act(action, args.delivery, args.screenshot)).await
    }

    #[tool(
        description = "Choose an option by its visible name in a combo box or list.",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn select(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<SelectArgs>,
    ) -> Result<CallToolResult, McpError> {
        let action = Action::Select { target: args.target, option: args.option };
        self.run(&context, self.act(action, None, args.screenshot)).await
    }

    #[tool(
        description = "Run 2–3 actions in order (only the first may target; later ones type or press keys); the first refusal stops the rest",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn batch(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<BatchArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(&context, move |host, server, client| {
            let done =
                host.batch(server.newest(client)?, args.steps, args.delivery.unwrap_or_default())?;
            let text = render::batch(&done, host.text_budget());
            Ok(match &done.next {
                Ok(next) => Reply::observed(text, next),
                Err(_) => Reply::text(text),
            })
        })
        .await
    }
}
