//! An OSWorld-format task as an episode. Before any desktop starts, `run`
//! asks [`not_run_here`] whether every config step is one glovebox carries
//! out and whether OSWorld's own evaluator (`osworld_evaluate.py`, on
//! `desktop-env` in the Python `episode.osworld_python` names) can score it; a
//! task that cannot be is `not_run` with the reason. Inside the desktop,
//! [`inside`] carries out the config steps, lets the bound model work
//! through the loop as any model episode does, carries out the evaluator's
//! postconfig, and scores with OSWorld's metric: 1 passes, less fails.

use super::super::exit::Failure;
use super::inside::{
    finish, model_agent, open_host, wait_for, wait_for_window, write_report, Apps,
};
use super::{episode_name, errored, AGENT_PHASE, PHASE_FILE};
use glovebox_episode::osworld::{
    Command as TaskCommand, ConfigStep, OsWorldTask, Places, WindowMatch,
};
use glovebox_episode::record::CheckReading;
use glovebox_episode::Verdict;
use glovebox_host::Host;
use glovebox_model::WindowId;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// OSWorld's evaluator, run by the Python that has `desktop-env` (deploy/osworld/requirements.txt).
const EVALUATOR: &str = include_str!("osworld_evaluate.py");
const EVALUATOR_FILE: &str = "osworld-evaluate.py";

/// How long a config command, the evaluator, an opened file's window may take.
const COMMAND_WAIT: Duration = Duration::from_secs(60);
const EVALUATOR_WAIT: Duration = Duration::from_secs(180);
const OPEN_WAIT: Duration = Duration::from_secs(90);
const ACTIVATE_WAIT: Duration = Duration::from_secs(10);

/// The Python with OSWorld's `desktop-env`: the configuration's `episode.osworld_python`.
fn evaluator_python(config: Option<&Path>) -> Result<PathBuf, String> {
    let sources = glovebox_config::Sources::standard(config.map(Path::to_path_buf));
    glovebox_config::Layered::load(&sources)
        .map(|layered| PathBuf::from(layered.config.episode.osworld_python))
        .map_err(|e| format!("the configuration: {e}"))
}

/// Before anything starts: `Ok(Some(why))` when this task cannot run here, `Ok(None)` when
/// it can, `Err` when OSWorld's evaluator cannot read it (a task that cannot be judged).
pub(super) fn not_run_here(
    task: &OsWorldTask,
    spec: &Path,
    out: &Path,
    config: Option<&Path>,
) -> Result<Option<String>, String> {
    let home = out.join("home");
    if let Err(why) = task.steps(places(&home, spec)) {
        return Ok(Some(why));
    }
    match run_evaluator(spec, out, config, &["check"]) {
        Ok(answer) => match (answer["not_run"].as_str(), answer["error"].as_str()) {
            (Some(why), _) => Ok(Some(why.to_owned())),
            (None, Some(error)) => {
                Err(format!("OSWorld's evaluator cannot read its evaluator: {error}"))
            }
            (None, None) => Ok(None),
        },
        // No evaluator here (no Python with desktop-env): this machine cannot score it.
        Err(why) => Ok(Some(why)),
    }
}

/// Where the task's VM paths land in this episode.
fn places<'a>(home: &'a Path, spec: &'a Path) -> Places<'a> {
    let as_root =
        std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
    Places { home, task_dir: spec.parent().unwrap_or(Path::new(".")), as_root }
}

/// OSWorld's evaluator on the task: its one JSON answer.
fn run_evaluator(
    spec: &Path,
    out: &Path,
    config: Option<&Path>,
    args: &[&str],
) -> Result<Value, String> {
    let python = evaluator_python(config)?;
    if !python.exists() {
        return Err(format!(
            "OSWorld's evaluator needs a Python with desktop-env, and {} is not there \
             (episode.osworld_python)",
            python.display()
        ));
    }
    let script = out.join(EVALUATOR_FILE);
    glovebox_platform::files::write_private(&script, EVALUATOR.as_bytes())
        .map_err(|e| format!("writing {}: {e}", script.display()))?;
    let log = std::fs::File::create(out.join("osworld-evaluate.log"))
        .map_err(|e| format!("creating the evaluator's log: {e}"))?;
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(args[0])
        .arg(std::path::absolute(spec).unwrap_or_else(|_| spec.to_path_buf()))
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("OSWorld's evaluator did not start ({}): {e}", python.display()))?;
    let mut stdout = child.stdout.take().ok_or("the evaluator's output")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    wait_for(&mut child, EVALUATOR_WAIT)
        .ok_or_else(|| format!("OSWorld's evaluator ran past {} s", EVALUATOR_WAIT.as_secs()))?;
    let text = reader.join().unwrap_or_default();
    serde_json::from_str(text.lines().last().unwrap_or_default()).map_err(|e| {
        format!(
            "OSWorld's evaluator answered no JSON ({e}); see {}",
            out.join("osworld-evaluate.log").display()
        )
    })
}

/// The task in its desktop: config, the model, postconfig, OSWorld's score.
pub(super) fn inside(
    config: Option<PathBuf>,
    spec: &Path,
    dir: &Path,
    task: &OsWorldTask,
    started: Instant,
) -> Result<ExitCode, Failure> {
    let phase = |name: &str| std::fs::write(dir.join(PHASE_FILE), name);
    let mut record = errored(&episode_name(spec), String::new(), started);
    record.reason = None;
    record.domain = Some(task.domain()).filter(|d| !d.is_empty());
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| dir.join("home"));
    let mut apps = Apps(vec![]);
    let outcome = (|| -> Result<(), String> {
        phase("setup").map_err(|e| format!("writing the phase: {e}"))?;
        prepare_home(&home).map_err(|e| format!("preparing the home: {e}"))?;
        let (steps, postconfig) = task.steps(places(&home, spec))?;
        let limits = task.limits();
        let host = open_host(config.clone(), &task.instruction, limits.budget)?;
        let mut carrier = Carrier { host: &host, apps: &mut apps, dir, home: &home, window: None };
        for (i, step) in steps.iter().enumerate() {
            carrier.carry_out(step).map_err(|e| format!("config[{i}]: {e}"))?;
        }
        let window = carrier.window;
        phase(AGENT_PHASE).map_err(|e| format!("writing the phase: {e}"))?;
        let (taken, refusals, report) =
            model_agent(&host, config.clone(), &task.instruction, limits.steps, window.as_ref())?;
        record.steps = taken;
        record.refusals = refusals;
        write_report(&mut record, dir, &report)?;
        phase("oracle").map_err(|e| format!("writing the phase: {e}"))?;
        let mut carrier = Carrier { host: &host, apps: &mut apps, dir, home: &home, window };
        for (i, step) in postconfig.iter().enumerate() {
            carrier.carry_out(step).map_err(|e| format!("evaluator.postconfig[{i}]: {e}"))?;
        }
        let cache = dir.join("osworld-cache");
        let (home_arg, cache_arg) = (home.to_string_lossy(), cache.to_string_lossy());
        let screen = format!("{}x{}", task.desktop().width, task.desktop().height);
        let answer = run_evaluator(
            spec,
            dir,
            config.as_deref(),
            &["evaluate", "--home", &home_arg, "--cache", &cache_arg, "--screen", &screen],
        )?;
        let metric = match &task.evaluator.func {
            Value::Array(funcs) => {
                funcs.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")
            }
            func => func.as_str().unwrap_or_default().to_owned(),
        };
        if let Some(score) = answer["score"].as_f64() {
            let held = score >= 1.0;
            record.score = Some(score);
            record.checks.push(CheckReading {
                check: format!("OSWorld's {metric} scores the task 1"),
                held,
                saw: format!("score {score}"),
            });
            record.verdict = if held { Verdict::Passed } else { Verdict::Failed };
            if !held {
                record.reason = Some(format!("OSWorld's {metric} scored it {score}"));
            }
        } else if let Some(why) = answer["not_run"].as_str() {
            record.verdict = Verdict::NotRun;
            record.reason = Some(why.to_owned());
        } else {
            return Err(format!(
                "OSWorld's evaluator could not score it: {}",
                answer["error"].as_str().unwrap_or("no score")
            ));
        }
        Ok(())
    })();
    if let Err(reason) = outcome {
        record.verdict = Verdict::Errored;
        record.reason = Some(reason);
    }
    drop(apps);
    finish(record, dir, started)
}

/// What an OSWorld VM has set that a fresh home has not: LibreOffice saves in the
/// format the file has without asking (its "Keep current format" question), and shows
/// no tip at start. Written only where the home has no LibreOffice profile yet.
fn prepare_home(home: &Path) -> std::io::Result<()> {
    let profile = home.join(".config/libreoffice/4/user");
    let file = profile.join("registrymodifications.xcu");
    if file.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&profile)?;
    std::fs::write(
        file,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<oor:items xmlns:oor=\"http://openoffice.org/2001/registry\" \
         xmlns:xs=\"http://www.w3.org/2001/XMLSchema\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n\
         <item oor:path=\"/org.openoffice.Office.Common/Save/Document\"><prop oor:name=\"WarnAlienFormat\" oor:op=\"fuse\"><value>false</value></prop></item>\n\
         <item oor:path=\"/org.openoffice.Office.Common/Misc\"><prop oor:name=\"ShowTipOfTheDay\" oor:op=\"fuse\"><value>false</value></prop></item>\n\
         </oor:items>\n",
    )
}

/// Carries out config steps in the episode's desktop.
struct Carrier<'a> {
    host: &'a Host,
    apps: &'a mut Apps,
    dir: &'a Path,
    home: &'a Path,
    /// The window the agent is given: the last one a step opened or waited for.
    window: Option<WindowId>,
}

impl Carrier<'_> {
    fn carry_out(&mut self, step: &ConfigStep) -> Result<(), String> {
        match step {
            ConfigStep::Launch { command } => {
                let index = self.apps.0.len();
                let child = self
                    .command(command)
                    .stdout(self.output(index, "stdout")?)
                    .stderr(self.output(index, "stderr")?)
                    .spawn()
                    .map_err(|e| format!("did not start: {e}"))?;
                self.apps.0.push(child);
            }
            ConfigStep::Open { path } => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                let name = name.ok_or_else(|| format!("{} names no file", path.display()))?;
                let index = self.apps.0.len();
                let child = Command::new(opener(path))
                    .args(opener_args(path))
                    .arg(path)
                    .current_dir(self.home)
                    .stdin(Stdio::null())
                    .stdout(self.output(index, "stdout")?)
                    .stderr(self.output(index, "stderr")?)
                    .spawn()
                    .map_err(|e| format!("opening {}: {e}", path.display()))?;
                self.apps.0.push(child);
                let (id, _) = wait_for_window(self.host, &name, OPEN_WAIT).ok_or_else(|| {
                    format!("no window titled like {name:?} within {} s", OPEN_WAIT.as_secs())
                })?;
                self.window = Some(id);
            }
            ConfigStep::Execute { command } => {
                let mut child = self
                    .command(command)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(|e| format!("did not start: {e}"))?;
                wait_for(&mut child, COMMAND_WAIT)
                    .ok_or_else(|| format!("ran past {} s", COMMAND_WAIT.as_secs()))?;
            }
            ConfigStep::Sleep { seconds } => std::thread::sleep(Duration::from_secs_f64(*seconds)),
            ConfigStep::Download { files } => {
                for (from, to) in files {
                    if let Some(parent) = to.parent() {
                        std::fs::create_dir_all(parent)
                            .map_err(|e| format!("making {}: {e}", parent.display()))?;
                    }
                    std::fs::copy(from, to).map_err(|e| {
                        format!("copying {} to {}: {e}", from.display(), to.display())
                    })?;
                }
            }
            ConfigStep::CloseWindow { name, match_by } => {
                // wmctrl, as OSWorld's VM server does it: _NET_CLOSE_WINDOW, a close a person
                // could ask for, in this episode's display.
                let mut wmctrl = Command::new("wmctrl");
                match match_by {
                    WindowMatch::TitleContains => wmctrl.arg("-c"),
                    WindowMatch::TitleEquals => wmctrl.args(["-F", "-c"]),
                    WindowMatch::Class => wmctrl.args(["-x", "-c"]),
                };
                let mut child = wmctrl
                    .arg(name)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(|e| format!("wmctrl did not start: {e}"))?;
                wait_for(&mut child, COMMAND_WAIT)
                    .ok_or_else(|| format!("wmctrl ran past {} s", COMMAND_WAIT.as_secs()))?;
            }
            ConfigStep::ActivateWindow { title, strict } => {
                // As on OSWorld's VM, a window that is not there is no error; nothing is raised.
                if let Some((id, found)) = wait_for_window(self.host, title, ACTIVATE_WAIT) {
                    if !*strict || found == *title {
                        self.window = Some(id);
                    }
                }
            }
        }
        Ok(())
    }

    fn command(&self, command: &TaskCommand) -> Command {
        let mut built = match command {
            TaskCommand::Shell(line) => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(line);
                c
            }
            TaskCommand::Argv(words) => {
                // The VM's `python` is its Python 3.
                let program = if words[0] == "python" { "python3" } else { words[0].as_str() };
                let mut c = Command::new(program);
                c.args(&words[1..]);
                c
            }
        };
        built.current_dir(self.home).stdin(Stdio::null());
        built
    }

    fn output(&self, index: usize, stream: &str) -> Result<Stdio, String> {
        std::fs::File::create(self.dir.join(format!("app-{index}.{stream}")))
            .map(Stdio::from)
            .map_err(|e| format!("creating app-{index}.{stream}: {e}"))
    }
}

/// The program OSWorld's VM opens a file with: LibreOffice for office documents, else the
/// desktop's default (`xdg-open`).
fn opener(path: &Path) -> &'static str {
    if is_office(path) {
        "libreoffice"
    } else {
        "xdg-open"
    }
}

fn opener_args(path: &Path) -> &'static [&'static str] {
    if is_office(path) {
        &["--norestore", "--nologo"]
    } else {
        &[]
    }
}

fn is_office(path: &Path) -> bool {
    const OFFICE: &[&str] = &[
        "xlsx", "xls", "ods", "fods", "csv", "docx", "doc", "odt", "fodt", "rtf", "pptx", "ppt",
        "odp", "fodp",
    ];
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| OFFICE.contains(&e.to_ascii_lowercase().as_str()))
}
