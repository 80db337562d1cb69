//! `glovebox trajectories` and `glovebox replay RECORDING`: the recordings
//! the host keeps of each grant's delivered actions, and one run again with
//! no model. Each step finds its element in a fresh look at the window by
//! role, name and named ancestors, goes through the same gate as live input
//! (approvals, denials, budget, Stop), and must change the tree as it did
//! when it was recorded; the replay stops at the first step that does not,
//! saying what was expected and what the tree shows.

use super::exit::{refused, Failure};
use anyhow::Context as _;
use clap::Args;
use glovebox::exit_status::Exit;
use glovebox_host::recording::{self, Found, RecordedTarget, Recording};
use glovebox_host::{ActRequest, Host, LookAfter};
use glovebox_model::{ErrorCode, Refusal, Target, WindowId, WindowRef};
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
    /// Approve the replay's input as a whole, as typing `glovebox run` does; without it each input asks as configured.
    #[arg(long)]
    yes: bool,
    /// Print the account as JSON.
    #[arg(long)]
    json: bool,
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
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect(),
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
                Listed { file, started: Some(r.header.started), steps: Some(r.steps.len()), windows, error: None }
            }
            Err(e) => Listed { file, started: None, steps: None, windows: vec![], error: Some(e.to_string()) },
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
                (None, steps) => println!("{}  {} step(s) in {}", l.file.display(), steps.unwrap_or_default(), l.windows.join(", ")),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Where a replay stopped short, and why.
#[derive(Serialize, Debug)]
struct Divergence {
    step: u32,
    code: ErrorCode,
    /// What the recording expected.
    expected: String,
    /// What the live window shows instead.
    saw: String,
}

#[derive(Serialize, Debug)]
struct Account {
    recording: PathBuf,
    replayed: u32,
    of: usize,
    lines: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    divergence: Option<Divergence>,
}

pub fn replay(config: Option<PathBuf>, args: ReplayArgs) -> Result<ExitCode, Failure> {
    let json = args.json;
    let recording = recording::read(&args.recording, &recording::default_dir()).map_err(|e| refused(e.to_refusal(), json))?;
    let first = recording.steps.first().ok_or_else(|| refused(Refusal::invalid_argument(format!("{} holds no step", args.recording.display())), json))?;
    let config = glovebox_config::Layered::load(&glovebox_config::Sources::standard(config)).map_err(|e| refused(e.into(), json))?.config;
    let host = glovebox::platform::open_host(&config).map_err(|r| refused(r, json))?;
    let host = host.with_approver(std::sync::Arc::new(super::terminal::Terminal));
    let host = match args.yes {
        true => host
            .approve_span(glovebox_host::Span {
                class: glovebox_model::ApprovalClass::Input,
                actions: vec![format!("replay {} step(s) of {}", recording.steps.len(), args.recording.display())],
                targets: vec![],
                text_characters: 0,
                detail: None,
                started_by_user: true,
            })
            .map_err(|r| refused(r, json))?,
        false => host,
    };
    let window = match &args.window {
        Some(id) => id.parse::<WindowRef>().map_err(|r| refused(r, json))?,
        None => WindowRef::Id(find_window(&host, &first.window).map_err(|r| refused(r, json))?),
    };
    let account = run(&host, &recording, &window);
    if json {
        println!("{}", serde_json::to_string(&account).context("serialising the account")?);
    } else {
        for line in &account.lines {
            println!("{line}");
        }
        match &account.divergence {
            None => println!("replayed {} of {} step(s)", account.replayed, account.of),
            Some(d) => println!("diverged at step {} ({}): expected {}; the window shows {}", d.step, d.code, d.expected, d.saw),
        }
    }
    Ok(match &account.divergence {
        None => ExitCode::SUCCESS,
        Some(d) => Exit::of(d.code).into(),
    })
}

/// The window the recording's first step acted in: the same application
/// with the same title, else the only window of that application.
fn find_window(host: &Host, address: &recording::WindowAddress) -> Result<WindowId, Refusal> {
    let listed = host.list_windows(None, 1)?.windows;
    let same_app: Vec<_> = listed.iter().filter(|w| w.window.app == address.app).collect();
    if let Some(w) = same_app.iter().find(|w| w.window.title == address.title) {
        return Ok(w.window.id);
    }
    match same_app.as_slice() {
        [only] => Ok(only.window.id),
        [] => Err(Refusal::target_gone(format!(
            "no window of {} is open (the recording worked in {:?}); start it, or name one with --window",
            address.app, address.title
        ))),
        _ => Err(Refusal::invalid_argument(format!(
            "{} windows of {} are open and none is titled {:?}; name one with --window",
            same_app.len(),
            address.app,
            address.title
        ))),
    }
}

fn run(host: &Host, recording: &Recording, window: &WindowRef) -> Account {
    let mut account = Account { recording: recording.path.clone(), replayed: 0, of: recording.steps.len(), lines: vec![], divergence: None };
    for step in &recording.steps {
        match one(host, step, window) {
            Ok(line) => {
                account.replayed += 1;
                account.lines.push(format!("step {}: {line}", step.index));
            }
            Err(divergence) => {
                account.divergence = Some(divergence);
                break;
            }
        }
    }
    account
}

fn one(host: &Host, step: &recording::Step, window: &WindowRef) -> Result<String, Divergence> {
    let diverged = |code, expected: String, saw: String| Divergence { step: step.index, code, expected, saw };
    if let Some(length) = step.withheld_text {
        return Err(diverged(
            ErrorCode::ApprovalRequired,
            format!("{} of {length} character(s) the recording did not keep", step.action.kind()),
            "nothing was typed: replaying it needs the text from you (record with `glovebox config set recording.text kept` to keep it)".into(),
        ));
    }
    let seen = host.observe(Some(window), false).map_err(|r| diverged(r.code, "the window to look at".into(), r.message))?;
    let mut targets = vec![];
    for target in &step.targets {
        targets.push(match target {
            RecordedTarget::Point { point } => Target::Point(*point),
            RecordedTarget::Element(address) => {
                let wanted = describe(address);
                match recording::find(&seen.tree, address) {
                    Found::One(id) => Target::Element(id),
                    Found::None => return Err(diverged(ErrorCode::ElementNotFound, wanted, "no such element".into())),
                    Found::Many(n) => {
                        return Err(diverged(ErrorCode::ElementNotFound, wanted, format!("{n} elements answer to it, so acting on one would be a guess")))
                    }
                }
            }
        });
    }
    let action = step.action.retargeted(&targets).map_err(|r| diverged(r.code, "a replayable action".into(), r.message))?;
    let done = host
        .perform(ActRequest::new(seen.frame.id, action).look(LookAfter::Tree { screenshot: false }))
        .map_err(|r| diverged(r.code, format!("{} to be delivered", step.action.kind()), r.message))?;
    let delivered = format!("{} → delivered ({})", step.action.kind(), done.delivery.route);
    let Some(expected) = step.expect.as_ref().filter(|e| !e.is_empty()) else {
        return Ok(delivered);
    };
    let unmet = match &done.changes {
        Some(diff) => recording::unmet(expected, diff),
        None => expected.clone(),
    };
    if !unmet.is_empty() {
        let saw = done.changes.as_ref().map(recording::expectation).filter(|l| !l.is_empty()).map(|l| l.join("; ")).unwrap_or_else(|| "no change".into());
        return Err(diverged(ErrorCode::StaleBasis, unmet.join("; "), saw));
    }
    Ok(format!("{delivered}; {} expected change(s) seen", expected.len()))
}

fn describe(address: &recording::ElementAddress) -> String {
    let inside: Vec<String> = address.ancestors.iter().map(|a| format!("{} {:?}", a.role, a.name)).collect();
    match inside.is_empty() {
        true => format!("{} {:?}", address.role, address.name),
        false => format!("{} {:?} in {}", address.role, address.name, inside.join(" › ")),
    }
}
