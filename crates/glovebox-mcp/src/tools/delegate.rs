//! The computer tool: a task delegated to the model the user bound, run by
//! glovebox's own loop ([`crate::computer`]) within the call, or as an MCP
//! task for clients that declare the extension ([`crate::tasks`]).

use crate::{approval, computer, current, render, tasks, GloveboxServer, Reply};
use glovebox_host::Span;
use glovebox_model::Refusal;
use glovebox_platform::sync::LockRecovered as _;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_router, ErrorData as McpError};
use std::sync::{Arc, Mutex};

#[tool_router(router = delegate_router, vis = "pub(super)")]
impl GloveboxServer {
    #[tool(
        description = "Delegate a task to the user's bound model (not you): a bounded loop that returns what it delivered, what was refused and why it stopped. observe_only looks only",
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn computer(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<computer::ComputerArgs>,
    ) -> Result<CallToolResponse, McpError> {
        let era = current::CallOrigin::of(&context, &self.connection).era;
        let refused = |r: &Refusal| {
            Ok(CallToolResult::error(vec![ContentBlock::text(render::refusal(r))]).into())
        };
        let task = match args.task() {
            Ok(task) => task,
            Err(r) => return refused(&r),
        };
        let current = matches!(era, current::Era::Current { .. });
        let runner = match self
            .shared
            .options
            .model
            .clone()
            .and_then(|binding| computer::runner(binding.as_ref(), &context.peer, current))
        {
            Ok(runner) => runner,
            Err(r) => return refused(&r),
        };
        let span = computer::span(&task, &runner);
        if current && context.client_capabilities().is_some_and(|c| c.supports_tasks()) {
            return self.computer_task(&context, span, runner, task).await;
        }
        self.run(&context, move |host, server, client| {
            // The run as a whole is approved once, by its class; the host
            // still asks for consequential targets inside it, one by one.
            let mut host = host.approve_span(span)?;
            if current {
                // A question in the middle of a run cannot end the call to
                // be asked (its retry would run the instruction again).
                host = host.with_channel(Arc::new(approval::CannotAskMidRun));
            }
            let summary = computer::execute(&host, runner, &task, &mut |_| {});
            // The loop's frames replaced the one this session handed out.
            server.forget_newest(client);
            Ok(Reply::text(summary?))
        })
        .await
        .map(Into::into)
    }
}

impl GloveboxServer {
    /// A `computer` run as a task: the run's approval is settled within
    /// the call (input-required rounds), then the call answers with the
    /// task and the loop goes on on a thread of its own ([`tasks`]).
    async fn computer_task(
        &self,
        context: &RequestContext<RoleServer>,
        span: Span,
        runner: computer::Runner,
        task: glovebox_agent::Task,
    ) -> Result<CallToolResponse, McpError> {
        let board = self.shared.tasks.clone();
        let created = Arc::new(Mutex::new(None));
        let handed = created.clone();
        let result = self
            .run(context, move |host, server, client| {
                let host = host.approve_span(span)?;
                let run = board.create(client, host.clone())?;
                let host = host.with_channel(Arc::new(tasks::TaskQuestions { task: run.clone() }));
                let (server, client, started, orphan) =
                    (server.clone(), client.to_owned(), run.clone(), run.clone());
                std::thread::Builder::new()
                    .name("glovebox-computer-task".into())
                    .spawn(move || {
                        let summary = computer::execute(&host, runner, &task, &mut |step| {
                            run.progress(step.line())
                        });
                        server.forget_newest(&client);
                        run.finish(match summary {
                            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
                            Err(r) => {
                                CallToolResult::error(vec![ContentBlock::text(render::refusal(&r))])
                            }
                        });
                    })
                    .map_err(|e| {
                        let refusal =
                            Refusal::backend_unavailable(format!("starting the run: {e}"));
                        orphan.finish(CallToolResult::error(vec![ContentBlock::text(
                            render::refusal(&refusal),
                        )]));
                        refusal
                    })?;
                *handed.lock_recovered() = Some(started.created());
                Ok(Reply::text(String::new()))
            })
            .await?;
        let created = created.lock_recovered().take();
        Ok(match created {
            Some(task) => CallToolResponse::Task(task),
            None => result.into(),
        })
    }
}
