//! `glovebox setup accessibility`: accessibility made to hold for the
//! applications a person starts later, where the toolkit decides as it
//! starts (Chromium, Firefox, Qt). What is already running keeps what it
//! started with; glovebox's own `IsEnabled` at first use covers the rest.
//!
//! Each change is data (where, what was there, what will be), shown before
//! it is made; a record of what was there lets `--undo` put every value
//! back. Nothing here starts or announces a screen reader
//! (`ScreenReaderEnabled` is never touched: GNOME starts Orca for it).

use crate::launcher::{is_chromium, ACCESSIBILITY_AT_START, CHROMIUM_ACCESSIBILITY_SWITCH};
use glovebox_platform::files;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment file every systemd user session (GNOME, KDE Plasma and
/// others started through systemd) reads at login.
const ENVIRONMENT_FILE: &str = "environment.d/60-glovebox-accessibility.conf";
/// GNOME's switch for toolkits' accessibility: the accessibility bus sets
/// `IsEnabled` from it as a session starts.
const GNOME_SCHEMA: &str = "org.gnome.desktop.interface";
const GNOME_KEY: &str = "toolkit-accessibility";
/// The desktop entries of Chromium builds whose launchers get the switch.
const CHROMIUM_ENTRIES: &[&str] = &["chromium.desktop", "google-chrome.desktop"];

/// A failure to read or make a change.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("no home directory: set HOME")]
    NoHome,
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("gsettings set {schema} {key} failed: {detail}")]
    GSettings { schema: String, key: String, detail: String },
    #[error("the record of the last setup ({path}) is unreadable: {detail}")]
    Record { path: PathBuf, detail: String },
    #[error("{0} is a symbolic link: setup neither reads nor writes through one")]
    Link(PathBuf),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SetupError + '_ {
    move |source| SetupError::Io { path: path.to_owned(), source }
}

/// Where one person's settings live.
#[derive(Debug, Clone)]
pub struct Places {
    config_home: PathBuf,
    data_home: PathBuf,
    data_dirs: Vec<PathBuf>,
    record: PathBuf,
}

impl Places {
    /// This user's, from `HOME` and the XDG variables.
    pub fn of_this_user() -> Result<Places, SetupError> {
        let home = std::env::var_os("HOME").map(PathBuf::from).ok_or(SetupError::NoHome)?;
        let xdg = |name: &str, default: &str| {
            std::env::var_os(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(default))
        };
        let data_dirs = std::env::var("XDG_DATA_DIRS")
            .ok()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        Ok(Places {
            config_home: xdg("XDG_CONFIG_HOME", ".config"),
            data_home: xdg("XDG_DATA_HOME", ".local/share"),
            data_dirs: data_dirs.split(':').map(PathBuf::from).collect(),
            record: xdg("XDG_STATE_HOME", ".local/state").join("glovebox/accessibility-setup.json"),
        })
    }
}

/// One change to a person's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// A file written whole (`None`: absent).
    File { path: PathBuf, before: Option<String>, after: Option<String> },
    /// A GSettings key, as `gsettings get` prints its value.
    GSetting { schema: String, key: String, before: String, after: String },
}

impl Change {
    /// What it does, for the person to read before it is made.
    pub fn describe(&self) -> String {
        match self {
            Change::File { path, after: Some(after), before } => {
                let verb = if before.is_some() { "rewrite" } else { "write" };
                let body: String = after.lines().map(|l| format!("    {l}\n")).collect();
                format!("{verb} {}:\n{body}", path.display())
            }
            Change::File { path, after: None, .. } => format!("remove {}\n", path.display()),
            Change::GSetting { schema, key, before, after } => {
                format!("set {schema} {key}: {before} → {after}\n")
            }
        }
    }

    /// The change that puts back what this one replaced.
    fn reversed(&self) -> Change {
        match self.clone() {
            Change::File { path, before, after } => {
                Change::File { path, before: after, after: before }
            }
            Change::GSetting { schema, key, before, after } => {
                Change::GSetting { schema, key, before: after, after: before }
            }
        }
    }

    /// Whether what is there now is what this change expects to replace.
    fn still_applies(&self) -> bool {
        match self {
            Change::File { path, before, .. } => read_optional(path).ok().as_ref() == Some(before),
            Change::GSetting { schema, key, before, .. } => {
                gsetting(schema, key).as_deref() == Some(before.as_str())
            }
        }
    }

    fn make(&self) -> Result<(), SetupError> {
        match self {
            Change::File { path, after: Some(after), .. } => {
                if let Some(parent) = path.parent() {
                    files::make_dirs(parent).map_err(io(parent))?;
                }
                // Replaced through a file beside it: a link planted at `path` is replaced, never followed.
                files::replace_keeping_mode(path, after.as_bytes()).map_err(io(path))
            }
            Change::File { path, after: None, .. } => match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
                _ => Ok(()),
            },
            Change::GSetting { schema, key, after, .. } => {
                let out = Command::new("gsettings").args(["set", schema, key, after]).output();
                match out {
                    Ok(out) if out.status.success() => Ok(()),
                    Ok(out) => Err(SetupError::GSettings {
                        schema: schema.clone(),
                        key: key.clone(),
                        detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                    }),
                    Err(e) => Err(SetupError::GSettings {
                        schema: schema.clone(),
                        key: key.clone(),
                        detail: e.to_string(),
                    }),
                }
            }
        }
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, SetupError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(SetupError::Link(path.to_owned()));
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// A GSettings value, or `None` where GSettings or the key is missing.
fn gsetting(schema: &str, key: &str) -> Option<String> {
    let out = Command::new("gsettings").args(["get", schema, key]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The environment file's text.
fn environment_text() -> String {
    let mut text = String::from(
        "# Written by `glovebox setup accessibility` (undo: `glovebox setup accessibility --undo`):\n\
         # applications that decide as they start turn their accessibility on.\n",
    );
    for (name, value) in ACCESSIBILITY_AT_START {
        text.push_str(&format!("{name}={value}\n"));
    }
    text
}

/// A desktop entry with Chromium's accessibility switch after the program
/// of each `Exec` line, or `None` when every line has it.
fn with_switch(entry: &str) -> Option<String> {
    let mut changed = false;
    let lines: Vec<String> = entry
        .lines()
        .map(|line| match line.strip_prefix("Exec=") {
            Some(exec) if !exec.contains(CHROMIUM_ACCESSIBILITY_SWITCH) => {
                let (program, rest) = exec.split_once(' ').unwrap_or((exec, ""));
                if !is_chromium(Path::new(program)) {
                    return line.to_owned();
                }
                changed = true;
                let rest = if rest.is_empty() { String::new() } else { format!(" {rest}") };
                format!("Exec={program} {CHROMIUM_ACCESSIBILITY_SWITCH}{rest}")
            }
            _ => line.to_owned(),
        })
        .collect();
    changed.then(|| lines.join("\n") + "\n")
}

/// What setup would change now; empty when everything already holds.
pub fn plan(places: &Places) -> Result<Vec<Change>, SetupError> {
    let mut changes = vec![];
    let environment = places.config_home.join(ENVIRONMENT_FILE);
    let before = read_optional(&environment)?;
    let after = environment_text();
    if before.as_deref() != Some(after.as_str()) {
        changes.push(Change::File { path: environment, before, after: Some(after) });
    }
    if let Some(before) = gsetting(GNOME_SCHEMA, GNOME_KEY).filter(|v| v != "true") {
        changes.push(Change::GSetting {
            schema: GNOME_SCHEMA.into(),
            key: GNOME_KEY.into(),
            before,
            after: "true".into(),
        });
    }
    for name in CHROMIUM_ENTRIES {
        // The person's own entry of that name wins over the system's, so it is the one changed.
        let own = places.data_home.join("applications").join(name);
        let before = read_optional(&own)?;
        let source = match &before {
            Some(text) => Some(text.clone()),
            None => places
                .data_dirs
                .iter()
                .find_map(|dir| std::fs::read_to_string(dir.join("applications").join(name)).ok()),
        };
        if let Some(after) = source.as_deref().and_then(with_switch) {
            changes.push(Change::File { path: own, before, after: Some(after) });
        }
    }
    Ok(changes)
}

/// What the last setups replaced, oldest first.
fn read_record(places: &Places) -> Result<Vec<Change>, SetupError> {
    match read_optional(&places.record)? {
        None => Ok(vec![]),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| SetupError::Record { path: places.record.clone(), detail: e.to_string() }),
    }
}

fn write_record(places: &Places, changes: &[Change]) -> Result<(), SetupError> {
    if changes.is_empty() {
        return Change::File { path: places.record.clone(), before: None, after: None }.make();
    }
    let text = serde_json::to_string_pretty(changes).expect("changes serialise");
    if let Some(dir) = places.record.parent() {
        files::private_dir(dir).map_err(io(dir))?;
    }
    files::write_private(&places.record, text.as_bytes()).map_err(io(&places.record))
}

/// Whether `change` touches one of the places setup manages. The record
/// is a file anyone with a shell as this user could rewrite: an entry
/// naming any other file or key is never undone.
fn managed(places: &Places, change: &Change) -> bool {
    match change {
        Change::File { path, .. } => {
            *path == places.config_home.join(ENVIRONMENT_FILE)
                || CHROMIUM_ENTRIES
                    .iter()
                    .any(|name| *path == places.data_home.join("applications").join(name))
        }
        Change::GSetting { schema, key, before, after } => {
            schema == GNOME_SCHEMA
                && key == GNOME_KEY
                && [before, after].iter().all(|v| *v == "true" || *v == "false")
        }
    }
}

/// Makes `changes`, recording first what each replaces (a value an earlier
/// setup already replaced keeps its first record, so undo goes back to
/// what the person had).
pub fn apply(places: &Places, changes: &[Change]) -> Result<(), SetupError> {
    let mut record = read_record(places)?;
    record.extend(changes.iter().cloned());
    write_record(places, &record)?;
    changes.iter().try_for_each(Change::make)
}

/// What undo would put back: the recorded changes reversed, newest first,
/// leaving out a value the person changed again since (it is theirs now).
pub fn undo_plan(places: &Places) -> Result<Vec<Change>, SetupError> {
    let reversed: Vec<Change> = read_record(places)?
        .iter()
        .rev()
        .filter(|change| managed(places, change))
        .map(Change::reversed)
        .collect();
    Ok(reversed.into_iter().filter(Change::still_applies).collect())
}

/// Makes `changes` (from [`undo_plan`]) and forgets the record.
pub fn undo(places: &Places, changes: &[Change]) -> Result<(), SetupError> {
    changes.iter().try_for_each(Change::make)?;
    write_record(places, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromiums_launchers_get_the_switch_once_and_nothing_else_changes() {
        let entry = "[Desktop Entry]\nName=Chromium\nExec=/usr/bin/chromium %U\n\n[Desktop Action new-window]\nExec=/usr/bin/chromium\nTryExec=chromium\n";
        let changed = with_switch(entry).expect("changed");
        assert_eq!(
            changed,
            "[Desktop Entry]\nName=Chromium\nExec=/usr/bin/chromium --force-renderer-accessibility %U\n\n[Desktop Action new-window]\nExec=/usr/bin/chromium --force-renderer-accessibility\nTryExec=chromium\n"
        );
        assert_eq!(with_switch(&changed), None);
        assert_eq!(with_switch("[Desktop Entry]\nExec=/usr/bin/firefox %u\n"), None);
    }

    #[test]
    fn the_environment_file_names_what_the_launcher_gives() {
        let text = environment_text();
        for (name, value) in ACCESSIBILITY_AT_START {
            assert!(text.lines().any(|l| l == format!("{name}={value}")), "{text}");
        }
        assert!(!text.contains("ScreenReader"));
    }

    fn places(root: &Path) -> Places {
        Places {
            config_home: root.join("config"),
            data_home: root.join("data"),
            data_dirs: vec![],
            record: root.join("state/glovebox/accessibility-setup.json"),
        }
    }

    #[test]
    fn undo_touches_only_what_setup_manages_and_never_through_a_link() {
        let root = std::env::temp_dir().join(format!("glovebox-a11y-setup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let places = places(&root);
        std::fs::create_dir_all(&root).unwrap();
        // A record rewritten by someone else: it names a file setup never writes.
        let elsewhere = root.join("bashrc");
        std::fs::write(&elsewhere, "mine\n").unwrap();
        let forged = Change::File {
            path: elsewhere.clone(),
            before: Some("planted\n".into()),
            after: Some("mine\n".into()),
        };
        let own = places.config_home.join(ENVIRONMENT_FILE);
        let real =
            Change::File { path: own.clone(), before: None, after: Some(environment_text()) };
        apply(&places, &[real]).unwrap();
        let mut record = read_record(&places).unwrap();
        record.push(forged);
        write_record(&places, &record).unwrap();
        let back = undo_plan(&places).unwrap();
        assert_eq!(
            back,
            vec![Change::File { path: own.clone(), before: Some(environment_text()), after: None }]
        );
        undo(&places, &back).unwrap();
        assert!(!own.exists());
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "mine\n");
        // A link planted where setup writes is refused, and its target left alone.
        std::fs::create_dir_all(own.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &own).unwrap();
        assert!(matches!(plan(&places), Err(SetupError::Link(_))));
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "mine\n");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_file_change_describes_itself_and_reverses() {
        let change =
            Change::File { path: "/h/x.conf".into(), before: None, after: Some("A=1\n".into()) };
        assert_eq!(change.describe(), "write /h/x.conf:\n    A=1\n");
        assert_eq!(change.reversed().describe(), "remove /h/x.conf\n");
        assert_eq!(change.reversed().reversed(), change);
    }
}
