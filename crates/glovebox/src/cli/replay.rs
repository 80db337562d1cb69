//! `glovebox trajectories` and `glovebox replay RECORDING`: the recordings
//! the host keeps of each grant's delivered actions, and one run again with
//! no model (`glovebox_agent::replay`), approved by the person who typed it.

use super::exit::{refused, Failure};
use anyhow::Context as _;
use clap::Args;
use glovebox::exit_status::Exit;
use glovebox_agent::replay;
use glovebox_model::WindowRef;
use glovebox_services::recording;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct TrajectoriesArgs {
    /// Print the list as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A recording (`glovebox trajectories` lists them).
    recording: PathBuf,
    /// Replay in this window (`pid/0xXID`); default: the window whose application and title the recording names.
    #[arg(long)]
    window: Option<String>,
    /// Approve the replay's input as a whole, as typing `glovebox run` does; without it the replay asks once, listing its steps.
    #[arg(long)]
    yes: bool,
    /// Print the account as JSON.
    #[arg(long)]
    json: bool,
    /// When the replay diverges, hand the rest to the bound model (`glovebox run`), told where and why it stopped and what the remaining steps did.
    #[arg(long)]
    model_on_divergence: bool,
}

#[derive(Serialize)]
struct Listed {
    file: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    started: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<usize>,
    windows: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

pub fn trajectories(args: TrajectoriesArgs) -> Result<ExitCode, Failure> {
    let dir = recording::default_dir();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
        Err(e) => return Err(anyhow::anyhow!("reading {}: {e}", dir.display()).into()),
    };
    files.sort();
    let listed: Vec<Listed> = files
        .into_iter()
        .map(|file| match recording::read(&file, &dir) {
            Ok(r) => {
                let mut windows: Vec<String> = vec![];
                for step in &r.steps {
                    let window = format!("{} {:?}", step.window.app, step.window.title);
                    if !windows.contains(&window) {
                        windows.push(window);
                    }
                }
                Listed {
                    file,
                    started: Some(r.header.started),
                    steps: Some(r.steps.len()),
                    windows,
                    error: None,
                }
            }
            Err(e) => Listed {
                file,
                started: None,
                steps: None,
                windows: vec![],
                error: Some(e.to_string()),
            },
        })
        .collect();
    if args.json {
        println!("{}", serde_json::to_string(&listed).context("serialising the list")?);
    } else if listed.is_empty() {
        println!("no recordings in {}", dir.display());
    } else {
        for l in &listed {
            match (&l.error, l.steps) {
                (Some(error), _) => println!("{}  unusable: {error}", l.file.display()),
                (None, steps) => println!(
                    "{}  {} step(s) in {}",
                    l.file.display(),
                    steps.unwrap_or_default(),
                    l.windows.join(", ")
                ),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn replay(config: Option<PathBuf>, args: ReplayArgs) -> Result<ExitCode, Failure> {
    let json = args.json;
    let config = glovebox_config::Layered::load(&glovebox_config::Sources::standard(config))
        .map_err(|e| refused(e.into(), json))?
        .config;
    // An unbound model is said before anything is replayed.
    let binding = args
        .model_on_divergence
        .then(|| super::run::configured_binding(&config))
        .transpose()
        .map_err(|r| refused(r, json))?;
    let host = glovebox::platform::open_host(&config).map_err(|r| refused(r, json))?;
    let host = host.with_channel(std::sync::Arc::new(super::terminal::Terminal::default()));
    let window = args
        .window
        .as_deref()
        .map(str::parse::<WindowRef>)
        .transpose()
        .map_err(|r| refused(r, json))?;
    let ask = |question: &str| super::terminal::ask_text(question);
    let account =
        replay::replay(&host, &args.recording, window, args.yes, replay::WithheldText::Ask(&ask))
            .map_err(|r| refused(r, json))?;
    let (Some(divergence), Some(binding)) = (&account.divergence, binding) else {
        if json {
            println!("{}", serde_json::to_string(&account).context("serialising the account")?);
        } else {
            print!("{}", account.render());
        }
        return Ok(account
            .divergence
            .as_ref()
            .map_or(ExitCode::SUCCESS, |d| Exit::of(d.code).into()));
    };
    if !json {
        print!("{}", account.render());
        println!("handing the rest from step {} to the model", divergence.step);
    }
    let steps = recording::read(&args.recording, &recording::default_dir())
        .map_err(|e| refused(e.to_refusal(), json))?
        .steps;
    let mut task =
        glovebox_agent::Task::new(replay::handover(&steps, &account).unwrap_or_default());
    task.window = account.window.clone();
    task.validate().map_err(|r| refused(r, json))?;
    let (outcome, report) = super::run::drive(&config, &host, &binding, &task, None, json)?;
    if json {
        println!(
            "{}",
            serde_json::json!({"replay": account, "handed_over": {"summary": outcome.summary, "report": report}})
        );
    } else {
        println!("{}\nreport: {}", outcome.summary.render(), report.display());
    }
    Ok(super::run::exit_of(&outcome.summary.stop))
}
