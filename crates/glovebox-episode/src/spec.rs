//! The episode spec: a desktop, what is set up in it, the instruction, the
//! agent, its limits and the oracle that decides success. Read from TOML or
//! JSON; an unknown field, a missing oracle or a value out of range is refused
//! here, naming the field, before any desktop starts.

use glovebox_model::{ElementQuery, KeyCombo, Role};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// Most bytes a spec file may hold: a person's page of TOML fits many times over.
pub const MAX_SPEC_BYTES: u64 = 1 << 20;

/// One episode, as written in its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Episode {
    /// What the agent is asked to do, in words (a model reads it; a script does not).
    pub instruction: String,
    /// The desktop the episode runs in: always a fresh private one.
    #[serde(default)]
    pub desktop: DesktopSpec,
    /// Files placed and applications started before the agent begins.
    #[serde(default)]
    pub setup: Setup,
    pub agent: AgentSpec,
    #[serde(default)]
    pub limits: Limits,
    /// How success is decided once the agent is done: every check must hold. At least one.
    pub oracle: Vec<Check>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DesktopKind {
    /// Xvfb, openbox and a private accessibility bus.
    #[default]
    X11,
    /// Headless sway and a private accessibility bus (semantic input only).
    Wayland,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DesktopSpec {
    #[serde(default)]
    pub kind: DesktopKind,
    /// Pixels, 640–3840.
    #[serde(default = "default_width")]
    #[schemars(range(min = 640, max = 3840))]
    pub width: u32,
    /// Pixels, 480–2160.
    #[serde(default = "default_height")]
    #[schemars(range(min = 480, max = 2160))]
    pub height: u32,
}

impl Default for DesktopSpec {
    fn default() -> Self {
        DesktopSpec { kind: DesktopKind::X11, width: default_width(), height: default_height() }
    }
}

fn default_width() -> u32 {
    1280
}

fn default_height() -> u32 {
    800
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    #[serde(default)]
    pub files: Vec<PlacedFile>,
    #[serde(default)]
    pub apps: Vec<StartedApp>,
}

/// A file written into the episode's own directory before anything starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacedFile {
    /// Relative to the episode's directory; no `..`.
    pub path: String,
    pub content: String,
}

/// An application started on the episode's desktop; the agent begins once its window shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartedApp {
    /// The program and its arguments; in them and in `env`, `{dir}` is the
    /// episode's directory and `{spec_dir}` the directory of the spec file.
    pub command: Vec<String>,
    /// Part of its window's title (case-insensitive) to wait for.
    pub window: String,
    /// How long its window may take to show, 1–120 s; past it the episode errors.
    #[serde(default = "default_window_secs")]
    #[schemars(range(min = 1.0, max = 120.0))]
    pub timeout_secs: f64,
    /// Environment variables it is started with.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

fn default_window_secs() -> f64 {
    30.0
}

/// Who does the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AgentSpec {
    /// The model bound in glovebox's configuration, through the loop.
    Model,
    /// A fixed list of steps, no model: for tests and baselines.
    Scripted { steps: Vec<Step> },
    /// A recording of a task done once (`glovebox trajectories` lists them),
    /// replayed with no model in the first setup app's window; a path
    /// relative to the spec's directory, signed by the user who runs the episode.
    Recorded { recording: String },
}

/// An element found by role and name in a fresh look at the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElementAddress {
    pub role: Option<Role>,
    /// Part of its name, case-insensitive.
    pub name: Option<String>,
}

impl ElementAddress {
    pub fn query(&self) -> ElementQuery {
        ElementQuery { role: self.role.map(|r| r.name().to_owned()), name: self.name.clone() }
    }
}

/// One scripted step, delivered through the same gate as a model's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Click {
        on: ElementAddress,
    },
    SetValue {
        on: ElementAddress,
        text: String,
    },
    Select {
        on: ElementAddress,
        option: String,
    },
    /// Typed at the focused field.
    Type {
        text: String,
    },
    Key {
        combo: KeyCombo,
    },
    /// Pause, 0.5–5 s (an app saving, a dialog opening).
    Wait {
        #[schemars(range(min = 0.5, max = 5.0))]
        seconds: f64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Agent steps, 1–500.
    #[serde(default = "default_steps")]
    #[schemars(range(min = 1, max = 500))]
    pub steps: u32,
    /// Wall-clock seconds for the whole episode (setup included), 5–3600.
    #[serde(default = "default_seconds")]
    #[schemars(range(min = 5.0, max = 3600.0))]
    pub seconds: f64,
    /// Input actions the agent's grant allows, 1–1000.
    #[serde(default = "default_budget")]
    #[schemars(range(min = 1, max = 1000))]
    pub budget: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { steps: default_steps(), seconds: default_seconds(), budget: default_budget() }
    }
}

fn default_steps() -> u32 {
    20
}

fn default_seconds() -> f64 {
    300.0
}

fn default_budget() -> u32 {
    50
}

/// What a text must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TextMatch {
    /// Exactly this (a file's trailing newline included).
    Equals(String),
    /// Contains this.
    Contains(String),
}

impl TextMatch {
    pub fn holds(&self, text: &str) -> bool {
        match self {
            TextMatch::Equals(want) => text == want,
            TextMatch::Contains(want) => text.contains(want.as_str()),
        }
    }
}

/// One check of the oracle, read from the application's world, never from glovebox's "ok".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// A file's contents (relative to the episode's directory, or absolute).
    File { path: String, text: TextMatch },
    /// A command run in the episode's directory on its desktop once the agent is done
    /// (`{dir}` and `{spec_dir}` as in a setup app's command).
    Command {
        run: Vec<String>,
        #[serde(default)]
        exit: i32,
        stdout: Option<TextMatch>,
    },
    /// How a setup application ended (by its index in `setup.apps`), within the time limit.
    AppExit {
        app: usize,
        #[serde(default)]
        exit: i32,
        stdout: Option<TextMatch>,
    },
    /// The text or value of an element at that address (any, when several are), read over the
    /// accessibility bus in the window whose title holds `window`.
    Accessible { window: String, on: ElementAddress, text: TextMatch },
}

/// Why a spec cannot run.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpecError {
    #[error("{0}")]
    Parse(String),
    #[error("{field}: {problem}")]
    Invalid { field: String, problem: String },
}

fn invalid(field: impl Into<String>, problem: impl Into<String>) -> SpecError {
    SpecError::Invalid { field: field.into(), problem: problem.into() }
}

impl Episode {
    /// Reads a spec from its text: TOML, or JSON when `json`.
    pub fn parse(text: &str, json: bool) -> Result<Episode, SpecError> {
        let episode: Episode = if json {
            serde_json::from_str(text).map_err(|e| SpecError::Parse(e.to_string()))?
        } else {
            toml::from_str(text)
                .map_err(|e| SpecError::Parse(e.to_string().trim_end().to_owned()))?
        };
        episode.validate()?;
        Ok(episode)
    }

    /// Reads the spec file at `path` (`.json` is JSON, anything else TOML):
    /// a regular file (a link to one is followed: the person named it) of
    /// at most [`MAX_SPEC_BYTES`], so a FIFO or a huge file is refused, not waited on or read.
    pub fn load(path: &Path) -> Result<Episode, SpecError> {
        use glovebox_platform::files::{read_regular_text, Links};
        let text = read_regular_text(path, MAX_SPEC_BYTES, Links::Follow)
            .map_err(|e| SpecError::Parse(format!("{}: {e}", path.display())))?;
        Episode::parse(&text, path.extension().is_some_and(|e| e == "json")).map_err(|e| match e {
            SpecError::Parse(message) => SpecError::Parse(format!("{}: {message}", path.display())),
            other => other,
        })
    }

    /// The checks serde cannot make: ranges, non-empty lists, paths, references.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.instruction.trim().is_empty() {
            return Err(invalid("instruction", "is empty"));
        }
        if !(640..=3840).contains(&self.desktop.width)
            || !(480..=2160).contains(&self.desktop.height)
        {
            return Err(invalid(
                "desktop",
                "width must lie in 640..=3840 and height in 480..=2160",
            ));
        }
        for (i, file) in self.setup.files.iter().enumerate() {
            relative_path(&file.path).map_err(|p| invalid(format!("setup.files[{i}].path"), p))?;
        }
        for (i, app) in self.setup.apps.iter().enumerate() {
            let field = |name: &str| format!("setup.apps[{i}].{name}");
            if app.command.first().is_none_or(|p| p.trim().is_empty()) {
                return Err(invalid(field("command"), "names no program"));
            }
            if app.window.trim().is_empty() {
                return Err(invalid(field("window"), "is empty: say which window to wait for"));
            }
            if !(app.timeout_secs.is_finite() && (1.0..=120.0).contains(&app.timeout_secs)) {
                return Err(invalid(field("timeout_secs"), "must lie in 1..=120"));
            }
        }
        if let AgentSpec::Recorded { recording } = &self.agent {
            if recording.trim().is_empty() {
                return Err(invalid("agent.recording", "is empty: name the recording to replay"));
            }
            if self.setup.apps.is_empty() {
                return Err(invalid(
                    "agent",
                    "a recorded agent needs a setup app whose window it replays in",
                ));
            }
        }
        if let AgentSpec::Scripted { steps } = &self.agent {
            if steps.is_empty() {
                return Err(invalid("agent.steps", "a scripted agent needs at least one step"));
            }
            if steps.len() as u32 > self.limits.steps {
                return Err(invalid(
                    "agent.steps",
                    format!("{} steps exceed limits.steps ({})", steps.len(), self.limits.steps),
                ));
            }
            for (i, step) in steps.iter().enumerate() {
                step.validate().map_err(|p| invalid(format!("agent.steps[{i}]"), p))?;
            }
        }
        let limits = &self.limits;
        if !(1..=500).contains(&limits.steps) {
            return Err(invalid("limits.steps", "must lie in 1..=500"));
        }
        if !(limits.seconds.is_finite() && (5.0..=3600.0).contains(&limits.seconds)) {
            return Err(invalid("limits.seconds", "must lie in 5..=3600"));
        }
        if !(1..=1000).contains(&limits.budget) {
            return Err(invalid("limits.budget", "must lie in 1..=1000"));
        }
        if self.oracle.is_empty() {
            return Err(invalid(
                "oracle",
                "at least one check is needed: success is decided outside glovebox",
            ));
        }
        for (i, check) in self.oracle.iter().enumerate() {
            let field = format!("oracle[{i}]");
            match check {
                Check::File { path, .. } if path.trim().is_empty() => {
                    return Err(invalid(field + ".path", "is empty"))
                }
                Check::Command { run, .. } if run.first().is_none_or(|p| p.trim().is_empty()) => {
                    return Err(invalid(field + ".run", "names no program"))
                }
                Check::AppExit { app, .. } if *app >= self.setup.apps.len() => {
                    return Err(invalid(
                        field + ".app",
                        format!(
                            "there is no setup.apps[{app}] ({} app(s) set up)",
                            self.setup.apps.len()
                        ),
                    ))
                }
                Check::Accessible { on, .. } => {
                    on.validate().map_err(|p| invalid(field + ".on", p))?
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl ElementAddress {
    fn validate(&self) -> Result<(), String> {
        if self.role.is_none() && self.name.as_deref().is_none_or(|n| n.trim().is_empty()) {
            return Err("names neither a role nor a name".into());
        }
        Ok(())
    }
}

impl Step {
    fn validate(&self) -> Result<(), String> {
        match self {
            Step::Click { on } | Step::SetValue { on, .. } | Step::Select { on, .. } => {
                on.validate().map_err(|p| format!("on: {p}"))
            }
            Step::Type { text } if text.is_empty() => Err("text: is empty".into()),
            Step::Wait { seconds } if !(seconds.is_finite() && (0.5..=5.0).contains(seconds)) => {
                Err("seconds: must lie in 0.5..=5".into())
            }
            _ => Ok(()),
        }
    }
}

/// `path` if it stays inside the directory it is relative to.
fn relative_path(path: &str) -> Result<&Path, String> {
    let p = Path::new(path);
    if path.trim().is_empty() {
        return Err("is empty".into());
    }
    if !p.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(format!("{path:?} must be relative to the episode's directory, without `..`"));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: &str = r#"
instruction = "Set the name to Ada and submit"

[[setup.apps]]
command = ["python3", "form.py", "--state", "{dir}/state.json"]
window = "demo form"

[agent]
kind = "scripted"
steps = [
  { do = "set_value", on = { role = "text", name = "Name" }, text = "Ada" },
  { do = "click", on = { role = "push button", name = "Submit" } },
  { do = "key", combo = "ctrl+s" },
]

[[oracle]]
kind = "file"
path = "state.json"
text = { contains = "\"name\": \"Ada\"" }
"#;

    #[test]
    fn a_scripted_form_episode_parses_with_its_defaults() {
        let episode = Episode::parse(FORM, false).unwrap();
        assert_eq!(episode.desktop, DesktopSpec::default());
        assert_eq!(episode.limits, Limits::default());
        assert_eq!(episode.setup.apps[0].timeout_secs, 30.0);
        let AgentSpec::Scripted { steps } = &episode.agent else { panic!("scripted") };
        assert_eq!(
            steps[0],
            Step::SetValue {
                on: ElementAddress { role: Some(Role::Text), name: Some("Name".into()) },
                text: "Ada".into()
            }
        );
        assert!(matches!(&steps[2], Step::Key { combo } if combo.to_string() == "ctrl+s"));
        assert!(matches!(&episode.oracle[0], Check::File { text: TextMatch::Contains(_), .. }));
        // The same spec as JSON reads the same.
        assert_eq!(
            Episode::parse(&serde_json::to_string(&episode).unwrap(), true).unwrap(),
            episode
        );
    }

    fn refused(text: &str) -> String {
        Episode::parse(text, false).unwrap_err().to_string()
    }

    #[test]
    fn unknown_fields_are_refused_by_name_at_every_level() {
        assert!(refused(&FORM.replace("instruction =", "instructions =")).contains("instructions"));
        assert!(refused(
            &FORM.replace("window = \"demo form\"", "window = \"demo form\"\nwait = 3")
        )
        .contains("wait"));
        assert!(refused(&FORM.replace("name = \"Name\" }, text", "nmae = \"Name\" }, text"))
            .contains("nmae"));
        assert!(refused(
            &FORM.replace("path = \"state.json\"", "path = \"state.json\"\nexpect = 1")
        )
        .contains("expect"));
        assert!(refused(&FORM.replace("role = \"push button\"", "role = \"pushbutton\""))
            .contains("pushbutton"));
        assert!(refused(&FORM.replace("do = \"click\"", "do = \"tap\"")).contains("tap"));
    }

    #[test]
    fn a_recorded_agent_names_its_recording_and_replays_in_a_setup_app() {
        let scripted = &FORM[FORM.find("[agent]").unwrap()..FORM.find("[[oracle]]").unwrap()];
        let recorded =
            FORM.replace(scripted, "[agent]\nkind = \"recorded\"\nrecording = \"form.jsonl\"\n\n");
        let episode = Episode::parse(&recorded, false).unwrap();
        assert_eq!(episode.agent, AgentSpec::Recorded { recording: "form.jsonl".into() });
        assert_eq!(
            refused(&recorded.replace("\"form.jsonl\"", "\" \"")),
            "agent.recording: is empty: name the recording to replay"
        );
        let apps_start = recorded.find("[[setup.apps]]").unwrap();
        let without_apps = format!(
            "{}{}",
            &recorded[..apps_start],
            &recorded[recorded.find("[agent]").unwrap()..]
        );
        assert_eq!(
            refused(&without_apps),
            "agent: a recorded agent needs a setup app whose window it replays in"
        );
    }

    #[test]
    fn an_episode_without_an_oracle_is_refused() {
        let without = &FORM[..FORM.find("[[oracle]]").unwrap()];
        assert!(refused(without).contains("oracle"), "{}", refused(without));
        let empty = format!("oracle = []\n{without}");
        assert_eq!(
            refused(&empty),
            "oracle: at least one check is needed: success is decided outside glovebox"
        );
    }

    #[test]
    fn values_out_of_range_and_paths_outside_the_directory_are_refused_naming_the_field() {
        let with_file = FORM.replace(
            "[[setup.apps]]",
            "[[setup.files]]\npath = \"../escape.txt\"\ncontent = \"x\"\n\n[[setup.apps]]",
        );
        assert!(refused(&with_file).starts_with("setup.files[0].path: "));
        let absolute = FORM.replace(
            "[[setup.apps]]",
            "[[setup.files]]\npath = \"/etc/passwd\"\ncontent = \"x\"\n\n[[setup.apps]]",
        );
        assert!(refused(&absolute).starts_with("setup.files[0].path: "));
        assert!(refused(
            &FORM.replace("window = \"demo form\"", "window = \"demo form\"\ntimeout_secs = 0")
        )
        .starts_with("setup.apps[0].timeout_secs"));
        assert!(refused(&format!("{FORM}\n[limits]\nsteps = 2\n"))
            .starts_with("agent.steps: 3 steps exceed limits.steps (2)"));
        assert!(
            refused(&format!("{FORM}\n[limits]\nseconds = 1e9\n")).starts_with("limits.seconds")
        );
        assert!(refused(&format!("{FORM}\n[desktop]\nwidth = 10\n")).starts_with("desktop:"));
        assert!(refused(&format!("{FORM}\n[[oracle]]\nkind = \"app_exit\"\napp = 4\n"))
            .starts_with("oracle[1].app: there is no setup.apps[4]"));
        assert!(refused(&FORM.replace(
            "{ do = \"key\", combo = \"ctrl+s\" }",
            "{ do = \"key\", combo = \"ctrl+nokey\" }"
        ))
        .contains("nokey"));
        assert!(refused(&FORM.replace("on = { role = \"text\", name = \"Name\" }", "on = {}"))
            .starts_with("agent.steps[0]: on: names neither"));
    }

    #[test]
    fn a_spec_that_is_a_fifo_or_huge_is_refused_without_waiting() {
        let dir = std::env::temp_dir().join(format!("glovebox-spec-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo (coreutils)");
        let huge = dir.join("huge.toml");
        std::fs::File::create(&huge).unwrap().set_len(300 << 20).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let paths = [fifo, huge];
        std::thread::spawn(move || {
            let _ = tx.send(paths.map(|p| Episode::load(&p).map(|_| ()).unwrap_err().to_string()));
        });
        let [fifo, huge] =
            rx.recv_timeout(std::time::Duration::from_secs(10)).expect("a FIFO spec hung");
        assert!(fifo.ends_with("fifo.toml: not a regular file"), "{fifo}");
        assert!(
            huge.ends_with(&format!("huge.toml: larger than {MAX_SPEC_BYTES} bytes")),
            "{huge}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
