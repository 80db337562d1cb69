//! `glovebox run "instruction"`: the loop in a terminal, with the model the
//! user bound, a live progress line per step, Ctrl-C as Stop, a summary
//! (text or `--json`) and a self-contained HTML trajectory report.
//!
//! The person who typed the command approved the run as a whole; inputs on
//! consequential targets (send, pay, delete, …) still ask on the terminal,
//! and without a terminal they are refused (`COMPUTER_APPROVAL_REQUIRED`).

use super::exit::{refused, Failure};
use anyhow::Context as _;
use clap::Args;
use glovebox::exit_status::Exit;
use glovebox_agent::{Provider, StopReason, Task};
use glovebox_model::Refusal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// What to do, in plain words.
    instruction: String,
    /// Steps the loop may take (1–50); clamped by the grant's action budget.
    #[arg(long, default_value_t = glovebox_agent::run::DEFAULT_MAX_STEPS)]
    max_steps: u32,
    /// Work in this window (`pid/0xXID` from `glovebox windows`); default: the frontmost allowed one.
    #[arg(long)]
    window: Option<String>,
    /// Look only: the model may answer, never act.
    #[arg(long)]
    observe_only: bool,
    /// Print the summary as JSON on stdout (progress stays on stderr).
    #[arg(long)]
    json: bool,
    /// Where to write the HTML trajectory report (default: under the state directory).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

pub fn run(config: Option<PathBuf>, args: RunArgs) -> Result<ExitCode, Failure> {
    let json = args.json;
    let config = glovebox_config::Layered::load(&glovebox_config::Sources::standard(config))
        .map_err(|e| refused(e.into(), json))?
        .config;
    glovebox::platform::host_config(&config, &glovebox_desktop::display_name(config.backend))
        .and_then(|h| h.check_enabled())
        .map_err(|r| refused(r, json))?;
    let binding = configured_binding(&config).map_err(|r| refused(r, json))?;
    let mut task = Task::new(args.instruction.clone());
    task.max_steps = args.max_steps;
    task.observe_only = args.observe_only;
    task.window =
        args.window.as_deref().map(str::parse).transpose().map_err(|r| refused(r, json))?;
    task.validate().map_err(|r| refused(r, json))?;
    let host = glovebox::platform::open_host(&config).map_err(|r| refused(r, json))?;
    glovebox::platform::serve_indicator(&host);
    let (outcome, report) = drive(&config, &host, &binding, &task, args.report, json)?;
    if json {
        println!("{}", serde_json::json!({"summary": outcome.summary, "report": report}));
    } else {
        println!("{}\nreport: {}", outcome.summary.render(), report.display());
    }
    Ok(exit_of(&outcome.summary.stop))
}

/// The exit status of a run that ended for `stop`.
pub(super) fn exit_of(stop: &StopReason) -> ExitCode {
    match stop {
        StopReason::Done | StopReason::Asked { .. } => ExitCode::SUCCESS,
        StopReason::StepLimit { .. } => Exit::Timeout.into(),
        other => other.code().map(Exit::of).unwrap_or(Exit::Failure).into(),
    }
}

/// Runs `task` with the bound model on `host`, as the person who typed the
/// command asked: Ctrl-C is Stop, a progress line per step, and the HTML
/// report written to `report` (default: under the state directory).
pub(super) fn drive(
    config: &glovebox_config::Config,
    host: &glovebox_host::Host,
    binding: &glovebox_agent::ModelBinding,
    task: &Task,
    report: Option<PathBuf>,
    json: bool,
) -> Result<(glovebox_agent::run::Outcome, PathBuf), Failure> {
    let mut model = match binding.native {
        true => None,
        false => Some(
            glovebox_agent::providers::bind(binding).map_err(|e| refused(e.to_refusal(), json))?,
        ),
    };
    let model_name = model.as_ref().map(|m| m.name()).unwrap_or_else(|| {
        format!("{}/{} (native computer use)", config.model.provider, binding.model)
    });

    // Ctrl-C is Stop: the grant is revoked and the loop ends at its next
    // host call; a second Ctrl-C leaves at once.
    let stopper = host.clone();
    let pressed = std::sync::atomic::AtomicBool::new(false);
    ctrlc::set_handler(move || {
        if pressed.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(130);
        }
        let _ = stopper.stop();
    })
    .context("installing the Ctrl-C handler")?;

    // The person who typed the command started the run: that is its
    // approval (unless the configuration denies the class); the host still
    // asks on the terminal for consequential targets and safety checks.
    let span = glovebox_host::Span {
        class: if task.observe_only {
            glovebox_model::ApprovalClass::Observe
        } else {
            glovebox_model::ApprovalClass::Input
        },
        actions: vec![format!(
            "run the instruction {:?} with {model_name}",
            task.instruction.chars().take(300).collect::<String>()
        )],
        targets: vec![],
        typed: vec![],
        frame: None,
        detail: None,
        started_by_user: true,
    };
    let bar = indicatif::ProgressBar::new_spinner();
    // Approvals and the model's questions go to this terminal, the spinner held while the
    // person answers; without a terminal the questions go to the indicator page.
    let host = host
        .with_channel(std::sync::Arc::new(super::terminal::Terminal(Some(bar.clone()))))
        .approve_span(span)
        .map_err(|r| refused(r, json))?;
    bar.enable_steady_tick(Duration::from_millis(120));
    bar.set_message(format!("step 1: asking {model_name}"));
    let max = task.max_steps;
    let mut progress = |step: &glovebox_agent::Step| {
        bar.println(format!(
            "{} ({} ms model, {} ms host)",
            step.line(),
            step.model_ms,
            step.act_ms
        ));
        bar.set_message(format!("step {}/{max}: asking the model", step.index + 1));
    };
    let outcome = match model.as_mut() {
        Some(model) => glovebox_agent::run_asking(
            &host,
            model.as_mut(),
            task,
            glovebox_agent::Questions::PutToPerson,
            &mut progress,
        ),
        None => glovebox_agent::run_native(&host, binding, task, &mut progress),
    };
    bar.finish_and_clear();
    let outcome = outcome.map_err(|r| refused(r, json))?;

    let path = report.unwrap_or_else(|| glovebox_agent::report::default_path("run"));
    glovebox_agent::report::write(
        &path,
        &glovebox_agent::report::html(&task.instruction, &outcome.summary, &outcome.steps),
    )
    .with_context(|| format!("writing {}", path.display()))?;
    Ok((outcome, path))
}

/// The configured binding; unbound or MCP sampling (which needs an MCP
/// client) is `COMPUTER_MODEL_UNBOUND`.
pub(super) fn configured_binding(
    config: &glovebox_config::Config,
) -> Result<glovebox_agent::ModelBinding, Refusal> {
    match glovebox::binding::model_binding(&config.model).map_err(|e| e.to_refusal())? {
        None => Err(glovebox_agent::ModelError::Unbound.to_refusal()),
        Some(b) if b.provider == Provider::McpSampling => Err(glovebox_host::refusals::model_unbound(
            "model.provider mcp-sampling borrows an MCP client's model and only works under `glovebox mcp`; bind openai, anthropic or openai-compatible for `glovebox run`",
        )),
        Some(b) => Ok(b),
    }
}
