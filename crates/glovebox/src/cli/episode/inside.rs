//! `glovebox episode inside`: the episode in its desktop. Starts the setup
//! apps and waits for their windows (past the wait: errored), lets the agent
//! work through a host of its own (the episode's start is the approval of
//! its input; nobody answers any other prompt, so those fail closed), then
//! reads the oracle from the applications' world and writes the record.

use super::super::exit::Failure;
use super::{AGENT_PHASE, PHASE_FILE, RECORD_FILE};
use anyhow::Context as _;
use clap::Args;
use glovebox_episode::record::CheckReading;
use glovebox_episode::spec::{AgentSpec, Check, StartedApp, TextMatch};
use glovebox_episode::{EpisodeRecord, Verdict};
use glovebox_host::Host;
use glovebox_model::{WindowId, WindowRef};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct InsideArgs {
    spec: PathBuf,
    /// The episode's directory: `work/` (its files, the apps' working directory), the record.
    #[arg(long)]
    dir: PathBuf,
}

/// How long an oracle command may run, and a setup app may take to exit once the agent is done.
const ORACLE_WAIT: Duration = Duration::from_secs(20);

pub fn inside(config: Option<PathBuf>, args: InsideArgs) -> Result<ExitCode, Failure> {
    let started = Instant::now();
    let episode =
        match glovebox_episode::Task::load(&args.spec).map_err(|e| anyhow::anyhow!("{e}"))? {
            glovebox_episode::Task::Spec(episode) => episode,
            glovebox_episode::Task::OsWorld(task) => {
                return super::osworld::inside(config, &args.spec, &args.dir, &task, started)
            }
        };
    let phase = |name: &str| std::fs::write(args.dir.join(PHASE_FILE), name);
    phase("setup").context("writing the phase")?;
    let mut record = super::errored(&super::episode_name(&args.spec), String::new(), started);
    record.reason = None;
    let work = args.dir.join("work");
    let places = Places { work: &work, spec_dir: args.spec.parent().unwrap_or(Path::new(".")) };
    let mut apps = Apps(vec![]);
    let outcome = (|| -> Result<(), String> {
        let host = open_host(config.clone(), &episode.instruction, episode.limits.budget)?;
        let mut windows = vec![];
        for (i, app) in episode.setup.apps.iter().enumerate() {
            apps.0.push(
                start(app, &places, &args.dir, i).map_err(|e| {
                    format!("setup.apps[{i}] ({}) did not start: {e}", app.command[0])
                })?,
            );
            let wait = Duration::from_secs_f64(app.timeout_secs);
            windows.push(wait_for_window(&host, &app.window, wait).ok_or_else(|| {
                format!(
                    "setup.apps[{i}] ({}) showed no window titled like {:?} within {} s",
                    app.command[0], app.window, app.timeout_secs
                )
            })?);
        }
        phase(AGENT_PHASE).map_err(|e| format!("writing the phase: {e}"))?;
        match &episode.agent {
            AgentSpec::Scripted { steps } => {
                let (window, title) = windows
                    .first()
                    .ok_or("a scripted agent needs a setup app whose window it works in")?;
                let ran = super::script::run(&host, window, title, &episode.instruction, steps);
                record.steps = ran.steps;
                record.refusals = ran.refusals;
                write_report(&mut record, &args.dir, &ran.report)?;
            }
            AgentSpec::Recorded { recording } => {
                let (window, _) = windows
                    .first()
                    .ok_or("a recorded agent needs a setup app whose window it replays in")?;
                let steps: Vec<glovebox_services::recording::Step> =
                    std::fs::read(args.dir.join(super::RECORDING_FILE))
                        .map_err(|e| e.to_string())
                        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
                        .map_err(|e| format!("reading the recording's steps: {e}"))?;
                let account = glovebox_agent::replay::run_steps(
                    &host,
                    Path::new(recording),
                    &steps,
                    &WindowRef::Id(*window),
                    glovebox_agent::replay::WithheldText::Refuse,
                );
                record.steps = account.replayed;
                record.refusals = account
                    .divergence
                    .iter()
                    .map(|d| {
                        format!(
                            "step {} diverged ({}): expected {}; saw {}",
                            d.step, d.code, d.expected, d.saw
                        )
                    })
                    .collect();
            }
            AgentSpec::Model => {
                let ran = model_agent(
                    &host,
                    config.clone(),
                    &episode.instruction,
                    episode.limits.steps,
                    windows.first().map(|(id, _)| id),
                )?;
                record.steps = ran.0;
                record.refusals = ran.1;
                write_report(&mut record, &args.dir, &ran.2)?;
            }
        }
        phase("oracle").map_err(|e| format!("writing the phase: {e}"))?;
        let mut unreadable = None;
        for check in &episode.oracle {
            match read_check(check, &places, &mut apps, &host) {
                Ok(reading) => record.checks.push(reading),
                Err(why) => {
                    record.checks.push(CheckReading {
                        check: describe(check),
                        held: false,
                        saw: why.clone(),
                    });
                    unreadable.get_or_insert(why);
                }
            }
        }
        record.verdict = match (unreadable, record.checks.iter().all(|c| c.held)) {
            (Some(why), _) => {
                record.reason = Some(format!("the oracle could not be read: {why}"));
                Verdict::Errored
            }
            (None, true) => Verdict::Passed,
            (None, false) => {
                record.reason = Some(format!(
                    "{} of {} check(s) did not hold",
                    record.checks.iter().filter(|c| !c.held).count(),
                    record.checks.len()
                ));
                Verdict::Failed
            }
        };
        Ok(())
    })();
    if let Err(reason) = outcome {
        record.verdict = Verdict::Errored;
        record.reason = Some(reason);
    }
    drop(apps);
    finish(record, &args.dir, started)
}

/// The record, timed, where `run` reads it.
pub(super) fn finish(
    mut record: EpisodeRecord,
    dir: &Path,
    started: Instant,
) -> Result<ExitCode, Failure> {
    record.seconds = started.elapsed().as_secs_f64();
    glovebox_platform::files::write_private(
        &dir.join(RECORD_FILE),
        &serde_json::to_vec_pretty(&record).context("serialising the record")?,
    )
    .context("writing the record")?;
    Ok(ExitCode::SUCCESS)
}

/// The trajectory report beside the record, named in it.
pub(super) fn write_report(
    record: &mut EpisodeRecord,
    dir: &Path,
    html: &str,
) -> Result<(), String> {
    let path = dir.join("report.html");
    glovebox_agent::report::write(&path, html).map_err(|e| format!("writing the report: {e}"))?;
    record.report = Some(path);
    Ok(())
}

/// A host on this desktop for the episode alone: on, the episode's budget,
/// no drawn cursor, its input approved by the person who started the episode.
pub(super) fn open_host(
    config: Option<PathBuf>,
    instruction: &str,
    budget: u32,
) -> Result<Host, String> {
    let layered = glovebox_config::Layered::load(&glovebox_config::Sources::standard(config))
        .map_err(|e| format!("the configuration: {e}"))?;
    let mut config = layered.config;
    config.enabled = true;
    config.overlay = false;
    config.grant.budget = budget;
    let host = glovebox::platform::open_host(&config)
        .map_err(|r| format!("the host did not open: {}", r.message))?;
    let span = glovebox_host::Span {
        class: glovebox_model::ApprovalClass::Input,
        actions: vec![format!(
            "run the episode {:?}",
            instruction.chars().take(200).collect::<String>()
        )],
        targets: vec![],
        typed: vec![],
        frame: None,
        detail: None,
        started_by_user: true,
    };
    host.approve_span(span)
        .map_err(|r| format!("the episode's input was not approved: {}", r.message))
}

/// The setup apps, ended when the episode is (those the agent left running).
pub(super) struct Apps(pub(super) Vec<Child>);

impl Drop for Apps {
    fn drop(&mut self) {
        for child in &mut self.0 {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// The places a spec's commands may name: `{dir}` (the episode's working directory) and `{spec_dir}`.
struct Places<'a> {
    work: &'a Path,
    spec_dir: &'a Path,
}

impl Places<'_> {
    fn place(&self, text: &str) -> String {
        text.replace("{dir}", &self.work.to_string_lossy())
            .replace("{spec_dir}", &self.spec_dir.to_string_lossy())
    }
}

fn start(app: &StartedApp, places: &Places, dir: &Path, index: usize) -> std::io::Result<Child> {
    let work = places.work;
    let place = |arg: &String| places.place(arg);
    let stdout = std::fs::File::create(dir.join(format!("app-{index}.stdout")))?;
    let stderr = std::fs::File::create(dir.join(format!("app-{index}.stderr")))?;
    Command::new(place(&app.command[0]))
        .args(app.command[1..].iter().map(place))
        .envs(app.env.iter().map(|(k, v)| (k, place(v))))
        .current_dir(work)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
}

/// The first window whose title holds `title`, within `wait`, with
/// its whole title; once two looks 200 ms apart find it in the same place
/// (the window manager may still be placing a window just listed, and a
/// step made on the first look would meet a moved window).
pub(super) fn wait_for_window(
    host: &Host,
    title: &str,
    wait: Duration,
) -> Option<(WindowId, String)> {
    let deadline = Instant::now() + wait;
    let wanted = title.to_lowercase();
    let mut seen = None;
    loop {
        let listed =
            host.list_windows(Some(title), 1).ok().into_iter().flat_map(|page| page.windows);
        if let Some(window) =
            listed.into_iter().find(|w| w.window.title.to_lowercase().contains(&wanted))
        {
            let place = (window.window.id, window.window.geometry);
            if seen == Some(place) {
                return Some((window.window.id, window.window.title));
            }
            seen = Some(place);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The bound model through the loop: its steps, refusals and report.
pub(super) fn model_agent(
    host: &Host,
    config: Option<PathBuf>,
    instruction: &str,
    max_steps: u32,
    window: Option<&WindowId>,
) -> Result<(u32, Vec<String>, String), String> {
    let layered = glovebox_config::Layered::load(&glovebox_config::Sources::standard(config))
        .map_err(|e| format!("the configuration: {e}"))?;
    let binding = glovebox::binding::model_binding(&layered.config.model)
        .map_err(|e| e.to_refusal().message)?
        .ok_or("no model is bound (model.provider)")?;
    let mut task = glovebox_agent::Task::new(instruction.to_owned());
    task.max_steps = max_steps;
    task.window = window.map(|w| WindowRef::Id(*w));
    task.validate().map_err(|r| r.message)?;
    let outcome = if binding.native {
        glovebox_agent::run_native(host, &binding, &task, &mut |_| {})
    } else {
        let mut model =
            glovebox_agent::providers::bind(&binding).map_err(|e| e.to_refusal().message)?;
        glovebox_agent::run(host, model.as_mut(), &task, &mut |_| {})
    }
    .map_err(|r| r.message)?;
    let refusals = outcome
        .steps
        .iter()
        .filter_map(|s| match &s.verdict {
            glovebox_agent::trajectory::Verdict::Refused { code, message } => {
                Some(format!("{}: {message}", code.as_str()))
            }
            _ => None,
        })
        .collect();
    let report = glovebox_agent::report::html(&task.instruction, &outcome.summary, &outcome.steps);
    Ok((outcome.summary.steps, refusals, report))
}

fn describe(check: &Check) -> String {
    let matched = |m: &TextMatch| match m {
        TextMatch::Equals(s) => format!("equals {s:?}"),
        TextMatch::Contains(s) => format!("contains {s:?}"),
    };
    let output = |exit: &i32, stdout: &Option<TextMatch>| match stdout {
        Some(m) => format!("exits {exit} and its output {}", matched(m)),
        None => format!("exits {exit}"),
    };
    match check {
        Check::File { path, text } => format!("file {path} {}", matched(text)),
        Check::Command { run, exit, stdout } => {
            format!("`{}` {}", run.join(" "), output(exit, stdout))
        }
        Check::AppExit { app, exit, stdout } => {
            format!("setup.apps[{app}] {}", output(exit, stdout))
        }
        Check::Accessible { window, on, text } => {
            let name = on.name.as_deref().map(|n| format!(" {n:?}")).unwrap_or_default();
            format!(
                "{}{name} in {window:?} {}",
                on.role.map(|r| r.name()).unwrap_or("element"),
                matched(text)
            )
        }
    }
}

/// What the text was, for the record (at most 200 characters).
fn shown(text: &str) -> String {
    let short: String = text.chars().take(200).collect();
    if short.len() < text.len() {
        format!("{short:?}…")
    } else {
        format!("{short:?}")
    }
}

/// One check read from the world: `Err` when it could not be read at all.
fn read_check(
    check: &Check,
    places: &Places,
    apps: &mut Apps,
    host: &Host,
) -> Result<CheckReading, String> {
    let work = places.work;
    let reading = |held: bool, saw: String| Ok(CheckReading { check: describe(check), held, saw });
    match check {
        Check::File { path, text } => match std::fs::read_to_string(work.join(path)) {
            Ok(contents) => reading(text.holds(&contents), shown(&contents)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                reading(false, "no such file".into())
            }
            Err(e) => Err(format!("reading {path}: {e}")),
        },
        Check::Command { run, exit, stdout } => {
            let mut child = Command::new(places.place(&run[0]))
                .args(run[1..].iter().map(|arg| places.place(arg)))
                .current_dir(work)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("`{}` did not start: {e}", run[0]))?;
            let status = wait_for(&mut child, ORACLE_WAIT)
                .ok_or_else(|| format!("`{}` ran past {} s", run[0], ORACLE_WAIT.as_secs()))?;
            let mut out = String::new();
            if let Some(mut pipe) = child.stdout.take() {
                let _ = std::io::Read::read_to_string(&mut pipe, &mut out);
            }
            let held =
                status.code() == Some(*exit) && stdout.as_ref().is_none_or(|m| m.holds(&out));
            reading(
                held,
                format!(
                    "exit {} and output {}",
                    status.code().map_or("by a signal".into(), |c| c.to_string()),
                    shown(&out)
                ),
            )
        }
        Check::AppExit { app, exit, stdout } => {
            let child = &mut apps.0[*app];
            let Some(status) = wait_for(child, ORACLE_WAIT) else {
                return reading(
                    false,
                    format!("still running {} s after the agent was done", ORACLE_WAIT.as_secs()),
                );
            };
            let out = std::fs::read_to_string(
                work.parent().unwrap_or(work).join(format!("app-{app}.stdout")),
            )
            .unwrap_or_default();
            let held =
                status.code() == Some(*exit) && stdout.as_ref().is_none_or(|m| m.holds(&out));
            reading(
                held,
                format!(
                    "exit {} and output {}",
                    status.code().map_or("by a signal".into(), |c| c.to_string()),
                    shown(&out)
                ),
            )
        }
        Check::Accessible { window, on, text } => {
            let listed = host
                .list_windows(Some(window), 1)
                .map_err(|r| format!("listing windows: {}", r.message))?;
            let Some(found) = listed
                .windows
                .into_iter()
                .find(|w| w.window.title.to_lowercase().contains(&window.to_lowercase()))
            else {
                return reading(false, format!("no window titled like {window:?}"));
            };
            let seen = host
                .observe(Some(&WindowRef::Id(found.window.id)), false)
                .map_err(|r| format!("looking at {window:?}: {}", r.message))?;
            let query = on.query();
            let matching: Vec<_> = seen
                .tree
                .root
                .iter()
                .flat_map(|r| r.walk())
                .filter(|e| query.matches(e))
                .map(|e| e.id)
                .take(glovebox_model::READ_MAX_ELEMENTS)
                .collect();
            if matching.is_empty() {
                return reading(false, "no such element".into());
            }
            // Any element at that address showing the text will do (a calculator's history, a list's rows).
            let values = host
                .read(seen.frame.id, &matching)
                .map_err(|r| format!("reading the element: {}", r.message))?;
            let held = values.iter().any(|v| text.holds(&v.text));
            let texts: Vec<&str> = values.iter().map(|v| v.text.as_str()).collect();
            reading(held, shown(&texts.join(" | ")))
        }
    }
}

/// The child's status once it ends, within `wait`.
pub(super) fn wait_for(child: &mut Child, wait: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + wait;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
