//! `glovebox episode run SPEC` and `glovebox episode batch DIR`: desktop
//! episodes for evaluating agents. `run` checks the spec, places its files,
//! starts a fresh private desktop and runs the episode inside it as a child
//! (`glovebox episode inside`, in `inside.rs`) with a home of its own under
//! the episode's directory; the desktop's end ends everything the episode
//! started. The child writes the record; this process judges what it could
//! not (a time limit, a crash) and exits with the verdict's status.
//! `batch.rs` runs many `run`s at once; `summarize.rs` shows many records at a glance.
//! An OSWorld-format task (`osworld.rs`) runs the same way, or is not run, with the reason.

mod batch;
mod inside;
mod osworld;
mod script;
mod summarize;

use super::exit::Failure;
use super::sandbox::Running;
use anyhow::Context as _;
use clap::{Args, Subcommand};
use glovebox_episode::record::MAX_RECORD_BYTES;
use glovebox_episode::spec::DesktopKind;
use glovebox_episode::{EpisodeRecord, Task, Verdict};
use glovebox_platform::files::{read_regular, read_regular_text, Links};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Subcommand, Debug)]
pub enum EpisodeAction {
    /// Run one episode in a fresh private desktop; exit 0 passed, 7 failed, 8 errored.
    Run(RunArgs),
    /// Run every episode (`*.toml`, `*.json`) of a directory, each in its own desktop; writes
    /// OUT/index.html and OUT/junit.xml.
    Batch(batch::BatchArgs),
    /// Merge the records of many runs (batches, a Job's /records/JOB) into index.html and
    /// junit.xml; exit 0 all passed, 7 some failed, 8 some errored.
    Summarize(summarize::SummarizeArgs),
    /// (internal) The episode inside its desktop, started by `run`.
    #[command(hide = true)]
    Inside(inside::InsideArgs),
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The episode's spec (TOML, or JSON by its `.json` name); `glovebox schema episode` describes it.
    /// With `--index`, a directory of specs.
    spec: PathBuf,
    /// Run the N-th spec (from 0) of the directory SPEC, in `batch`'s order (by file name): one
    /// episode per index of an indexed job.
    #[arg(long, value_name = "N")]
    index: Option<usize>,
    /// Where the episode's directory, record (`record.json`) and report go (default: `episodes/NAME`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the record as JSON on stdout.
    #[arg(long)]
    json: bool,
}

pub fn episode(config: Option<PathBuf>, action: EpisodeAction) -> Result<ExitCode, Failure> {
    match action {
        EpisodeAction::Run(args) => run(config, args),
        EpisodeAction::Batch(args) => batch::batch(config, args),
        EpisodeAction::Summarize(args) => summarize::summarize(args),
        EpisodeAction::Inside(args) => inside::inside(config, args),
    }
}

/// The name an episode's record carries: its spec file's stem.
fn episode_name(spec: &Path) -> String {
    spec.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "episode".into())
}

/// The specs of a directory (`*.toml`, `*.json`; other files are ignored), by file name.
fn specs_in(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut specs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.is_file() && path.extension().is_some_and(|e| e == "toml" || e == "json")
        })
        .collect();
    specs.sort();
    if specs.is_empty() {
        return Err(
            anyhow::anyhow!("{} holds no episode spec (*.toml, *.json)", dir.display()).into()
        );
    }
    Ok(specs)
}

fn run(config: Option<PathBuf>, mut args: RunArgs) -> Result<ExitCode, Failure> {
    on_interrupt();
    let started = Instant::now();
    if let Some(index) = args.index {
        let specs = specs_in(&args.spec)?;
        args.spec = specs
            .get(index)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--index {index} is past the {} spec(s) of {}, which count from 0",
                    specs.len(),
                    args.spec.display()
                )
            })?
            .clone();
    }
    let name = episode_name(&args.spec);
    let out = args.out.clone().unwrap_or_else(|| Path::new("episodes").join(&name));
    // The directory first, so that even a refused spec's record lands; a directory that cannot be
    // made is the record's reason, on stdout, never an error only stderr would show.
    let _ = std::fs::remove_dir_all(&out);
    // Private (0700): the report, the record's readings and a recording's kept text go here.
    let record = match glovebox_platform::files::make_dirs(&out) {
        Err(e) => errored(
            &name,
            format!(
                "the episode's directory {} could not be made, so no record is kept there; \
                 nothing started: {e}",
                out.display()
            ),
            started,
        ),
        Ok(()) => keep(
            match Task::load(&args.spec) {
                Err(e) => {
                    errored(&name, format!("the spec is refused, nothing started: {e}"), started)
                }
                Ok(Task::OsWorld(task)) => {
                    match osworld::not_run_here(&task, &args.spec, &out, config.as_deref()) {
                        Ok(None) => in_a_desktop(
                            &args.spec,
                            &Task::OsWorld(task),
                            &out,
                            config.as_deref(),
                            started,
                        ),
                        Ok(Some(why)) => {
                            let mut record =
                                errored(&name, format!("not run here: {why}"), started);
                            record.verdict = Verdict::NotRun;
                            record.domain = Some(task.domain()).filter(|d| !d.is_empty());
                            record
                        }
                        Err(why) => {
                            let mut record = errored(
                                &name,
                                format!("the task is refused, nothing started: {why}"),
                                started,
                            );
                            record.domain = Some(task.domain()).filter(|d| !d.is_empty());
                            record
                        }
                    }
                }
                Ok(episode) => in_a_desktop(&args.spec, &episode, &out, config.as_deref(), started),
            },
            &out,
        ),
    };
    if args.json {
        println!("{}", serde_json::to_string(&record).context("serialising the record")?);
    } else {
        print!("{}", render(&record));
    }
    Ok(ExitCode::from(record.verdict.exit_status()))
}

/// The record written to `OUT/record.json`, or, when it cannot be (a records volume that is
/// not writable, a full disk), the same record made errored with that reason: a run whose
/// record is lost must not read as passed or failed.
fn keep(record: EpisodeRecord, out: &Path) -> EpisodeRecord {
    let path = out.join("record.json");
    let written = if out.is_dir() {
        serde_json::to_vec_pretty(&record)
            .map_err(std::io::Error::other)
            .and_then(|bytes| glovebox_platform::files::write_private(&path, &bytes))
    } else {
        Err(std::io::Error::new(std::io::ErrorKind::NotFound, "the directory is gone"))
    };
    match written {
        Ok(()) => record,
        Err(e) => {
            let reason = record.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default();
            let was = match record.verdict {
                Verdict::Passed => " (the episode itself passed)".to_owned(),
                Verdict::Failed => format!(" (the episode itself failed{reason})"),
                Verdict::Errored if reason.is_empty() => String::new(),
                Verdict::Errored => format!(" (and before that{reason})"),
                Verdict::NotRun => format!(" (the episode itself was not run{reason})"),
            };
            EpisodeRecord {
                verdict: Verdict::Errored,
                reason: Some(format!(
                    "the record could not be written to {}: {e}{was}",
                    path.display()
                )),
                ..record
            }
        }
    }
}

/// A record for an episode that could not be judged.
fn errored(name: &str, reason: String, started: Instant) -> EpisodeRecord {
    EpisodeRecord {
        episode: name.to_owned(),
        verdict: Verdict::Errored,
        reason: Some(reason),
        steps: 0,
        refusals: vec![],
        checks: vec![],
        seconds: started.elapsed().as_secs_f64(),
        model_tokens: None,
        score: None,
        domain: None,
        report: None,
    }
}

/// The phase the child reached, written to `OUT/phase` as it goes: a time
/// limit during setup is the desktop's fault, during the agent's turn the agent's.
const PHASE_FILE: &str = "phase";
const AGENT_PHASE: &str = "agent";
const RECORD_FILE: &str = "inside-record.json";
/// A recorded agent's steps, verified by `run` and read by the child.
const RECORDING_FILE: &str = "recording-steps.json";

fn in_a_desktop(
    spec: &Path,
    task: &Task,
    out: &Path,
    config: Option<&Path>,
    started: Instant,
) -> EpisodeRecord {
    let name = episode_name(spec);
    if let Err(e) = glovebox_platform::files::make_dirs(&out.join("work")) {
        return errored(&name, format!("creating {}: {e}", out.join("work").display()), started);
    }
    let no_files = vec![];
    let files = match task {
        Task::Spec(episode) => &episode.setup.files,
        Task::OsWorld(_) => &no_files,
    };
    for file in files {
        let path = out.join("work").join(&file.path);
        let placed = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&path, &file.content));
        if let Err(e) = placed {
            return errored(&name, format!("placing {}: {e}", file.path), started);
        }
    }
    if let Task::Spec(glovebox_episode::Episode {
        agent: glovebox_episode::spec::AgentSpec::Recorded { recording },
        ..
    }) = task
    {
        // Verified here, with the user's key; the episode's own home has none.
        let path = spec.parent().unwrap_or(Path::new(".")).join(recording);
        let steps = match glovebox_services::recording::read(
            &path,
            &glovebox_services::recording::default_dir(),
        ) {
            Ok(read) => read.steps,
            Err(e) => {
                return errored(&name, format!("agent.recording {}: {e}", path.display()), started)
            }
        };
        // The user's recording may keep typed text.
        let handed = serde_json::to_vec(&steps).map_err(std::io::Error::other).and_then(|bytes| {
            glovebox_platform::files::write_private(&out.join(RECORDING_FILE), &bytes)
        });
        if let Err(e) = handed {
            return errored(&name, format!("writing the recording's steps: {e}"), started);
        }
    }
    let wanted = task.desktop();
    let (width, height) = (wanted.width, wanted.height);
    let desktop = match wanted.kind {
        DesktopKind::X11 => glovebox_sandbox::Sandbox::start(glovebox_sandbox::SandboxOptions {
            width,
            height,
            ..Default::default()
        })
        .map(Running::X11),
        DesktopKind::Wayland => glovebox_sandbox::wayland::WaylandSandbox::start(
            glovebox_sandbox::wayland::WaylandOptions { width, height, ..Default::default() },
        )
        .map(Running::Wayland),
    };
    let desktop = match desktop {
        Ok(desktop) => desktop,
        Err(e) => return errored(&name, format!("the desktop did not start: {e}"), started),
    };
    let mut record = run_inside(&desktop, spec, task, out, config, started);
    record.domain = record.domain.take().or_else(|| task.domain());
    desktop.shutdown();
    record
}

fn run_inside(
    desktop: &Running,
    spec: &Path,
    task: &Task,
    out: &Path,
    config: Option<&Path>,
    started: Instant,
) -> EpisodeRecord {
    let name = episode_name(spec);
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (spec, out) = (absolute(spec), absolute(out));
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return errored(&name, format!("finding this program: {e}"), started),
    };
    let log = match std::fs::File::create(out.join("inside.log")) {
        Ok(log) => log,
        Err(e) => return errored(&name, format!("creating the episode's log: {e}"), started),
    };
    let mut command = desktop.command(&exe);
    if let Some(config) = config {
        command.arg("--config").arg(absolute(config));
    }
    command
        .args(["episode", "inside"])
        .arg(&spec)
        .arg("--dir")
        .arg(&out)
        .stdin(std::process::Stdio::null());
    // A home of its own: no user configuration, its audit trail beside its record.
    let home = out.join("home");
    command
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env(glovebox_config::CONFIG_HOME_ENV, home.join(".config/glovebox"))
        .env("XDG_STATE_HOME", out.join("state"))
        .current_dir(out.join("work"));
    command
        .stdout(log.try_clone().map(Into::into).unwrap_or(std::process::Stdio::null()))
        .stderr(log);
    // The episode's own defaults, under any `--config` and GLOVEBOX_* setting: the desktop is private
    // and thrown away, so no input asks first, not even on a Submit or Send (nobody is there to
    // answer), and the foreground may be used; the denials (password fields, glovebox's own
    // windows) still hold.
    let user_file = home.join(".config/glovebox/config.toml");
    // Foreground input (the real pointer and keyboard, which a model asks for where the
    // background does not reach: a browser's address bar) is allowed too: nobody's pointer
    // or focus is on this desktop to be taken.
    let defaults = "enabled = true\noverlay = false\n\n[input]\nforeground = true\n\n\
                    [approval]\nmode = \"yolo\"\nconsequential = []\n";
    let mut child = match std::fs::create_dir_all(user_file.parent().unwrap_or(&home))
        .and_then(|_| std::fs::write(&user_file, defaults))
        .and_then(|_| command.spawn())
    {
        Ok(child) => child,
        Err(e) => return errored(&name, format!("starting the episode's runner: {e}"), started),
    };
    let seconds = task.limits().seconds;
    let limit = Duration::from_secs_f64(seconds);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < limit && !interrupted() => {
                std::thread::sleep(Duration::from_millis(50))
            }
            _ => break None,
        }
    };
    if status.is_none() {
        // What it started is in the desktop's process group and ends with the desktop.
        let _ = child.kill();
        let _ = child.wait();
    }
    let phase = read_regular_text(&out.join(PHASE_FILE), 64, Links::Refuse).unwrap_or_default();
    let Some(status) = status else {
        let reason = if interrupted() {
            "interrupted".to_owned()
        } else {
            format!("exceeded limits.seconds ({seconds} s)")
        };
        let mut record = errored(&name, reason, started);
        // Out of time while the agent worked: the task was not done in time.
        if phase.trim() == AGENT_PHASE && !interrupted() {
            record.verdict = Verdict::Failed;
        }
        return record;
    };
    match read_regular(&out.join(RECORD_FILE), MAX_RECORD_BYTES, Links::Refuse)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<EpisodeRecord>(&bytes).ok())
    {
        Some(mut record) => {
            record.seconds = started.elapsed().as_secs_f64();
            record
        }
        None => errored(
            &name,
            format!(
                "the episode's runner ended ({status}) without a record; see {}",
                out.join("inside.log").display()
            ),
            started,
        ),
    }
}

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Ctrl-C or a batch ending this run: the episode's group and desktop end, and the record says interrupted.
fn on_interrupt() {
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst));
}

/// The record as lines for a person.
fn render(record: &EpisodeRecord) -> String {
    let verdict = match record.verdict {
        Verdict::Passed => "passed",
        Verdict::Failed => "FAILED",
        Verdict::Errored => "ERRORED",
        Verdict::NotRun => "NOT RUN",
    };
    let mut text = format!(
        "{} {verdict} in {:.1} s, {} step(s)",
        record.episode, record.seconds, record.steps
    );
    if let Some(reason) = &record.reason {
        text.push_str(&format!(": {reason}"));
    }
    text.push('\n');
    for check in &record.checks {
        text.push_str(&format!(
            "  [{}] {} — saw {}\n",
            if check.held { "ok" } else { "no" },
            check.check,
            check.saw
        ));
    }
    for refusal in &record.refusals {
        text.push_str(&format!("  refused: {refusal}\n"));
    }
    text
}
