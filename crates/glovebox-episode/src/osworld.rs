//! OSWorld-format tasks: the JSON files the field evaluates computer-use
//! agents on (an instruction, `config` steps that prepare the machine, and an
//! `evaluator` naming OSWorld's metric and getter functions), read as
//! glovebox episodes. This module reads a task and decides, before anything
//! starts, which of its steps glovebox carries out and which make the task
//! not run here (with the reason); the evaluator itself is OSWorld's own
//! code, run by the binary, so it is kept here as the task wrote it.

use crate::spec::{DesktopKind, DesktopSpec, Limits, SpecError};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The VM's home in OSWorld's tasks; in an episode it is the episode's own home.
pub const VM_HOME: &str = "/home/user";

/// One OSWorld-format task, as its file holds it.
#[derive(Debug, Clone, Deserialize)]
pub struct OsWorldTask {
    pub id: String,
    /// The VM snapshot the task starts from (`libreoffice_calc`, `chrome`, `os`): its domain.
    #[serde(default)]
    pub snapshot: Option<String>,
    pub instruction: String,
    #[serde(default)]
    pub config: Vec<RawStep>,
    #[serde(default)]
    pub related_apps: Vec<String>,
    pub evaluator: Evaluator,
}

/// A config step as written: its type and its parameters.
#[derive(Debug, Clone, Deserialize)]
pub struct RawStep {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub parameters: Value,
}

/// The part of the evaluator glovebox acts on; the rest goes to OSWorld's code as written.
#[derive(Debug, Clone, Deserialize)]
pub struct Evaluator {
    pub func: Value,
    #[serde(default)]
    pub postconfig: Vec<RawStep>,
}

/// A config step glovebox carries out in the episode's desktop, with VM paths made the episode's.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigStep {
    /// Start a program and go on.
    Launch {
        command: Command,
    },
    /// Open a file in the application for its kind and wait for its window (titled with its name).
    Open {
        path: PathBuf,
    },
    /// Run a command to its end.
    Execute {
        command: Command,
    },
    Sleep {
        seconds: f64,
    },
    /// Copy a local file (a path beside the task, or a `file:` URL) to a path in the episode.
    Download {
        files: Vec<(PathBuf, PathBuf)>,
    },
    /// Wait for a window with this title (the agent is given windows, none is raised).
    ActivateWindow {
        title: String,
        strict: bool,
    },
    /// Ask the windows with this title (or class) to close, as a person closing them would:
    /// the application saves what it keeps on exit (a browser's profile).
    CloseWindow {
        name: String,
        match_by: WindowMatch,
    },
}

/// How a window step names its window, as OSWorld's `strict` and `by_class` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowMatch {
    /// Part of its title.
    TitleContains,
    /// Its whole title.
    TitleEquals,
    /// Its class.
    Class,
}

/// A command as OSWorld writes one: a program and arguments, or a line for the shell.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Argv(Vec<String>),
    Shell(String),
}

/// Where a task's VM paths land: the episode's home, and the task file's directory; and
/// whether the episode runs as root (where Chromium needs `--no-sandbox`).
#[derive(Debug, Clone, Copy)]
pub struct Places<'a> {
    pub home: &'a Path,
    pub task_dir: &'a Path,
    pub as_root: bool,
}

/// The longest sleep a step may ask for, in seconds.
const MAX_SLEEP_SECS: f64 = 60.0;

impl OsWorldTask {
    /// Whether this JSON is an OSWorld-format task rather than a glovebox spec.
    pub fn is_one(text: &str) -> bool {
        serde_json::from_str::<Value>(text)
            .is_ok_and(|v| v.get("evaluator").is_some() && v.get("oracle").is_none())
    }

    pub fn parse(text: &str) -> Result<OsWorldTask, SpecError> {
        let task: OsWorldTask =
            serde_json::from_str(text).map_err(|e| SpecError::Parse(e.to_string()))?;
        if task.instruction.trim().is_empty() {
            return Err(SpecError::Invalid {
                field: "instruction".into(),
                problem: "is empty".into(),
            });
        }
        match &task.evaluator.func {
            Value::String(_) => {}
            Value::Array(funcs) if !funcs.is_empty() && funcs.iter().all(Value::is_string) => {}
            _ => {
                return Err(SpecError::Invalid {
                    field: "evaluator.func".into(),
                    problem: "must name a metric function, or a list of them".into(),
                })
            }
        }
        Ok(task)
    }

    /// The domain a summary groups it by: its snapshot, else its first app.
    pub fn domain(&self) -> String {
        self.snapshot.clone().or_else(|| self.related_apps.first().cloned()).unwrap_or_default()
    }

    /// OSWorld's screen (1920×1080) on a fresh X11 desktop.
    pub fn desktop(&self) -> DesktopSpec {
        DesktopSpec { kind: DesktopKind::X11, width: 1920, height: 1080 }
    }

    /// OSWorld's runs allow 15 to 100 steps; glovebox gives 50, and the time and input budget to match.
    pub fn limits(&self) -> Limits {
        Limits { steps: 50, seconds: 900.0, budget: 200 }
    }

    /// The config steps, then the evaluator's postconfig, as glovebox carries them out;
    /// or why this task cannot run here.
    pub fn steps(&self, places: Places) -> Result<(Vec<ConfigStep>, Vec<ConfigStep>), String> {
        let read = |steps: &[RawStep], field: &str| {
            steps
                .iter()
                .enumerate()
                .map(|(i, step)| {
                    carried(step, places)
                        .map_err(|why| format!("{field}[{i}] ({}): {why}", step.kind))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok((
            read(&self.config, "config")?,
            read(&self.evaluator.postconfig, "evaluator.postconfig")?,
        ))
    }
}

/// A VM path in the episode: `/home/user/...` in its home.
pub fn in_episode(path: &str, home: &Path) -> PathBuf {
    match path.strip_prefix(VM_HOME) {
        Some("") => home.to_path_buf(),
        Some(rest) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

/// A command's text with the VM's home made the episode's wherever it is a whole path
/// component (`/home/user`, `/home/user/x`, `'/home/user'`), not in `/home/username`.
fn in_episode_text(text: &str, home: &Path) -> String {
    let home = home.to_string_lossy();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(VM_HOME) {
        let after = &rest[at + VM_HOME.len()..];
        let whole =
            after.chars().next().is_none_or(|c| !(c.is_alphanumeric() || "_-.".contains(c)));
        out.push_str(&rest[..at]);
        out.push_str(if whole { &home } else { VM_HOME });
        rest = after;
    }
    out.push_str(rest);
    out
}

fn carried(step: &RawStep, places: Places) -> Result<ConfigStep, String> {
    let p = &step.parameters;
    let text = |name: &str| {
        p.get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("parameters.{name} is missing or not a string"))
    };
    let flag = |name: &str| p.get(name).and_then(Value::as_bool).unwrap_or(false);
    let command = || -> Result<Command, String> {
        let shell = flag("shell");
        let command = match p.get("command") {
            Some(Value::String(line)) if shell => {
                Command::Shell(in_episode_text(line, places.home))
            }
            // OSWorld splits a string command at spaces when it is not for the shell.
            Some(Value::String(line)) => Command::Argv(
                line.split_whitespace().map(|w| in_episode_text(w, places.home)).collect(),
            ),
            Some(Value::Array(words)) if words.iter().all(Value::is_string) => {
                let words: Vec<String> = words
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|w| in_episode_text(w, places.home))
                    .collect();
                if shell {
                    Command::Shell(words.join(" "))
                } else {
                    Command::Argv(words)
                }
            }
            _ => return Err("parameters.command is missing or not a string or list".into()),
        };
        let command = match command {
            Command::Argv(words) if words.first().is_some_and(|w| w == "google-chrome") => {
                Command::Argv(chrome_here(&words[1..], places))
            }
            other => other,
        };
        let words = match &command {
            Command::Argv(words) => words.join(" "),
            Command::Shell(line) => line.clone(),
        };
        let program = words.split_whitespace().next().unwrap_or_default();
        let program = program.rsplit('/').next().unwrap_or_default();
        if ["pkill", "killall", "kill"].contains(&program) {
            return Err(format!(
                "`{program}` would reach processes outside the episode: its desktop shares \
                 this machine's processes (close_window closes an app in the episode)"
            ));
        }
        if words.trim().is_empty() {
            return Err("the command is empty".into());
        }
        if words.contains("pyautogui") {
            return Err("it gives input with pyautogui; in glovebox input is the agent's, \
                        through its gate, and pyautogui is not carried"
                .into());
        }
        Ok(command)
    };
    Ok(match step.kind.as_str() {
        "launch" => ConfigStep::Launch { command: command()? },
        "execute" | "command" => {
            if p.get("until").is_some_and(|u| !u.is_null()) {
                return Err(
                    "`until` (re-running a command until its output matches) is not carried".into(),
                );
            }
            ConfigStep::Execute { command: command()? }
        }
        "open" => ConfigStep::Open { path: in_episode(&text("path")?, places.home) },
        "sleep" => {
            let seconds = p.get("seconds").and_then(Value::as_f64).unwrap_or(f64::NAN);
            if !(seconds.is_finite() && (0.0..=MAX_SLEEP_SECS).contains(&seconds)) {
                return Err(format!("parameters.seconds must lie in 0..={MAX_SLEEP_SECS}"));
            }
            ConfigStep::Sleep { seconds }
        }
        "download" => {
            let files = p
                .get("files")
                .and_then(Value::as_array)
                .filter(|f| !f.is_empty())
                .ok_or("parameters.files is missing or empty")?;
            let files = files
                .iter()
                .map(|f| {
                    let (url, path) = (
                        f.get("url").and_then(Value::as_str).unwrap_or_default(),
                        f.get("path").and_then(Value::as_str).unwrap_or_default(),
                    );
                    if path.is_empty() {
                        return Err("a file has no path".to_owned());
                    }
                    Ok((local_source(url, places.task_dir)?, in_episode(path, places.home)))
                })
                .collect::<Result<Vec<_>, _>>()?;
            ConfigStep::Download { files }
        }
        "activate_window" => ConfigStep::ActivateWindow {
            title: text("window_name")?,
            strict: flag("strict") && !flag("by_class"),
        },
        "close_window" => ConfigStep::CloseWindow {
            name: text("window_name")?,
            match_by: match (flag("by_class"), flag("strict")) {
                (true, _) => WindowMatch::Class,
                (false, true) => WindowMatch::TitleEquals,
                (false, false) => WindowMatch::TitleContains,
            },
        },
        other => {
            return Err(format!(
                "the step type `{other}` is not carried here (carried: launch, open, execute, \
                 command, sleep, download, activate_window, close_window)"
            ))
        }
    })
}

/// OSWorld's Google Chrome as this machine has it: Debian's Chromium, its profile where
/// Chrome keeps one (`~/.config/google-chrome`, which OSWorld's getters read), past its
/// first run, with its renderer's accessibility on (as `glovebox launch` starts it), and
/// `--no-sandbox` as root, where Chromium's own sandbox cannot run.
fn chrome_here(args: &[String], places: Places) -> Vec<String> {
    let mut words = vec![
        "chromium".to_owned(),
        format!("--user-data-dir={}", places.home.join(".config/google-chrome").display()),
        "--no-first-run".into(),
        "--no-default-browser-check".into(),
        "--force-renderer-accessibility".into(),
    ];
    if places.as_root {
        words.push("--no-sandbox".into());
    }
    words.extend(args.iter().cloned());
    words
}

/// A download's source as a local file: a path beside the task or a `file:` URL; a URL on
/// the network is refused, since an episode has none.
fn local_source(url: &str, task_dir: &Path) -> Result<PathBuf, String> {
    let path = if let Some(rest) = url.strip_prefix("file://") {
        PathBuf::from(percent_decoded(rest))
    } else if url.contains("://") {
        return Err(format!(
            "{url:?} needs the network, which an episode does not have here: give the file \
             as a local path or a file: URL"
        ));
    } else if url.is_empty() {
        return Err("a file has no url".into());
    } else {
        task_dir.join(url)
    };
    if !path.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    Ok(path)
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(config: Value) -> OsWorldTask {
        OsWorldTask::parse(
            &json!({"id": "t", "snapshot": "libreoffice_calc", "instruction": "Do it.",
                "config": config, "source": "anywhere", "trajectory": "trajectories/",
                "related_apps": ["libreoffice_calc"],
                "evaluator": {"func": "compare_table", "result": {"type": "vm_file"}}})
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn vm_paths_land_in_the_episode_home_and_commands_keep_their_words() {
        let dir = std::env::temp_dir().join(format!("osworld-steps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("start.xlsx"), b"x").unwrap();
        let home = dir.join("home");
        let places = Places { home: &home, task_dir: &dir, as_root: false };
        let t = task(json!([
            {"type": "download", "parameters": {"files": [{"url": "start.xlsx", "path": "/home/user/a.xlsx"}]}},
            {"type": "open", "parameters": {"path": "/home/user/a.xlsx"}},
            {"type": "launch", "parameters": {"command": "featherpad /home/user/n.txt"}},
            {"type": "execute", "parameters": {"command": "echo hi > /home/user/x", "shell": true}},
            {"type": "sleep", "parameters": {"seconds": 0.5}}
        ]));
        let (steps, post) = t.steps(places).unwrap();
        assert!(post.is_empty());
        assert_eq!(
            steps,
            vec![
                ConfigStep::Download { files: vec![(dir.join("start.xlsx"), home.join("a.xlsx"))] },
                ConfigStep::Open { path: home.join("a.xlsx") },
                ConfigStep::Launch {
                    command: Command::Argv(vec![
                        "featherpad".into(),
                        format!("{}/n.txt", home.display())
                    ])
                },
                ConfigStep::Execute {
                    command: Command::Shell(format!("echo hi > {}/x", home.display()))
                },
                ConfigStep::Sleep { seconds: 0.5 },
            ]
        );
        assert_eq!(t.domain(), "libreoffice_calc");
        // A file: URL, percent-encoded as URLs are.
        std::fs::write(dir.join("a b.docx"), b"x").unwrap();
        let url = format!("file://{}/a%20b.docx", dir.display());
        let by_url = task(
            json!([{"type": "download", "parameters": {"files": [{"url": url, "path": "/home/user/l.docx"}]}}]),
        );
        assert_eq!(
            by_url.steps(places).unwrap().0,
            vec![ConfigStep::Download { files: vec![(dir.join("a b.docx"), home.join("l.docx"))] }]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_is_not_carried_says_which_step_and_why() {
        let here = Path::new("/nonexistent-task-dir");
        let places = Places { home: Path::new("/tmp/h"), task_dir: here, as_root: false };
        let why = |config: Value| task(config).steps(places).unwrap_err();
        let network = why(
            json!([{"type": "download", "parameters": {"files": [{"url": "https://example.com/a.xlsx", "path": "/home/user/a.xlsx"}]}}]),
        );
        assert!(
            network.starts_with("config[0] (download): ") && network.contains("needs the network"),
            "{network}"
        );
        let input = why(
            json!([{"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; pyautogui.hotkey('ctrl', 's')"]}}]),
        );
        assert!(input.contains("pyautogui"), "{input}");
        let kill = why(json!([{"type": "launch", "parameters": {"command": ["pkill", "chrome"]}}]));
        assert!(kill.contains("`pkill` would reach processes outside the episode"), "{kill}");
        let unknown = why(json!([{"type": "googledrive", "parameters": {}}]));
        assert!(unknown.contains("`googledrive` is not carried"), "{unknown}");
        let long = why(json!([{"type": "sleep", "parameters": {"seconds": 1e9}}]));
        assert!(long.contains("seconds must lie"), "{long}");
        assert!(why(json!([{"type": "open", "parameters": {}}])).contains("parameters.path"));
    }

    #[test]
    fn the_vm_home_is_replaced_only_as_a_whole_path_component() {
        let home = Path::new("/e/home");
        assert_eq!(
            in_episode_text("cp /home/user/a '/home/user' /home/username /home/user", home),
            "cp /e/home/a '/e/home' /home/username /e/home"
        );
    }

    #[test]
    fn a_glovebox_spec_is_not_taken_for_a_task_and_a_task_needs_a_metric() {
        assert!(!OsWorldTask::is_one(r#"{"instruction": "x", "oracle": [], "evaluator": 1}"#));
        assert!(OsWorldTask::is_one(r#"{"id": "t", "instruction": "x", "evaluator": {}}"#));
        let no_func =
            OsWorldTask::parse(r#"{"id": "t", "instruction": "x", "evaluator": {"func": 3}}"#);
        assert!(
            matches!(no_func, Err(SpecError::Invalid { field, .. }) if field == "evaluator.func")
        );
        assert_eq!(percent_decoded("/a%20b/c%zz"), "/a b/c%zz");
    }
}
