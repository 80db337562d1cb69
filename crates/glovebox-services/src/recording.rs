//! Recordings: the actions a grant delivered, as an element-addressed script
//! that outlives the session. A window is addressed by its application and
//! title, an element by its role, its name and the names of its named
//! ancestors — never by ids, which die with the session — and each step
//! carries what it changed in the tree (without ids) as the expectation a
//! replay checks. Typed text is kept only when the user allowed it; otherwise
//! only its length is, and such a step cannot be replayed without asking.
//!
//! One file per grant, JSON lines: a header, then one line per step, then a
//! closing line ([`Trailer`]). Every line carries an HMAC-SHA256 over the
//! line before it and itself, under this user's key ([`crate::signing`]), so
//! an edited, reordered or truncated-in-the-middle recording is refused. The
//! closing line carries the number of steps and is chained to the last one,
//! so a recording cut short at its end (its last lines removed) has none and
//! is refused as incomplete. It is rewritten with each step (the file is cut
//! back to before it, and the step and a new closing line appended), so a
//! recording is complete as far as it goes at every moment, also while its
//! grant is still acting and after a glovebox that stopped without ending
//! it: such a closing line says `"finished": false`; the one written when
//! the grant (or its host) ends says `true`.

use crate::signing::Key;
use glovebox_model::{
    Action, Change, ElementId, ElementState, Point, Refusal, Role, Target, TextRecording, TreeDiff,
};
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The recording format's version, in each header (2: recordings end with a [`Trailer`]).
pub const FORMAT: u32 = 2;
/// The largest recording read back.
const MAX_BYTES: u64 = 16 << 20;
/// Recordings kept: starting one beyond this removes the oldest.
pub const KEPT: usize = 500;

/// Removes the oldest recordings of `dir` (by their start time, the start
/// of each name) so that `keep` remain.
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort_by_key(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.split('-').next()?.parse::<u64>().ok())
            .unwrap_or(0)
    });
    let excess = files.len().saturating_sub(keep);
    for old in &files[..excess] {
        let _ = std::fs::remove_file(old);
    }
}

/// A named element around the target, outermost first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    /// Its role.
    pub role: Role,
    /// Its accessible name, never empty.
    pub name: String,
}

/// An element as a later session can find it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementAddress {
    /// The element's role.
    pub role: Role,
    /// The element's accessible name (may be empty).
    pub name: String,
    /// Its named ancestors, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ancestors: Vec<Named>,
}

/// One target of a recorded step, as a later session can find it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecordedTarget {
    /// An element, by its address.
    Element(ElementAddress),
    /// A point in the frame's image pixels, as it was given (a window that looks the same again).
    Point {
        /// The point, in the recording frame's image pixels.
        point: Point,
    },
}

/// The window a step acted in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowAddress {
    /// The window's application (its class).
    pub app: String,
    /// The window's title when the step was delivered.
    pub title: String,
}

/// The first line of a recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The format version ([`FORMAT`]).
    pub glovebox_recording: u32,
    /// The id of the grant recorded.
    pub grant: String,
    /// Unix milliseconds.
    pub started: u64,
    /// Whether typed text is kept or only its length.
    pub text: TextRecording,
    /// The line's signature, the first of the chain.
    pub mac: String,
}

/// One delivered action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Its place in the recording, from 1.
    pub index: u32,
    /// The window it acted in.
    pub window: WindowAddress,
    /// The action as delivered; its element ids are the recording session's,
    /// and its text is empty when `withheld_text` is set.
    pub action: Action,
    /// One per target of `action`, in order.
    pub targets: Vec<RecordedTarget>,
    /// The length of typed text that was not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld_text: Option<usize>,
    /// What the step changed, without ids; absent when nothing looked after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<String>>,
    /// The line's signature, chained to the line before.
    pub mac: String,
}

/// The last line of a recording: how many steps it holds, chained to the
/// last of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trailer {
    /// The number of steps before this line.
    pub glovebox_recording_end: u32,
    /// Whether the recording ended (its grant or host did); `false` while
    /// it is still being written, or when its glovebox stopped before.
    pub finished: bool,
    /// The line's signature, chained to the last step (or the header).
    pub mac: String,
}

/// A recording read back and verified.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its first line.
    pub header: Header,
    /// Its steps, in order.
    pub steps: Vec<Step>,
    /// Whether its recorder ended it ([`Trailer::finished`]).
    pub finished: bool,
}

/// Why a recording cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RecordingError {
    /// The file or the key could not be read, or the file is not a regular
    /// one of a readable size; what happened, in words.
    #[error("reading the recording: {0}")]
    Io(String),
    /// A line that does not parse as the line expected there.
    #[error("line {line} is not a recording line: {why}")]
    Malformed {
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A line whose signature does not match.
    #[error("line {line} does not carry this user's signature: the recording was changed after it was made (or made by another user)")]
    Tampered {
        /// The line's number, from 1.
        line: usize,
    },
    /// A header of another format version; the version it names.
    #[error("recording format {0} is not one this glovebox reads (it reads {FORMAT})")]
    Format(u32),
    /// No closing line after the steps.
    #[error(
        "the recording is incomplete: it has no closing line after its {steps} step(s), so it was cut short (its last lines removed) or torn while a line was written; it is not replayed"
    )]
    Incomplete {
        /// The steps read before the end.
        steps: usize,
    },
}

impl RecordingError {
    /// The refusal a caller replaying it answers (`COMPUTER_INVALID_ARGUMENT`).
    pub fn to_refusal(&self) -> Refusal {
        Refusal::invalid_argument(self.to_string())
    }
}

/// Where recordings go, and the user's signing key with them: `recordings`
/// in glovebox's state directory ([`crate::os::state_dir`]; on Linux
/// `$XDG_STATE_HOME/glovebox/recordings`, default `~/.local/state`).
pub fn default_dir() -> PathBuf {
    crate::os::state_dir().join("recordings")
}

/// A line's mac: over the mac of the line before it, a newline, and the line with an empty `mac`.
fn line_mac(key: &Key, previous: &str, unsigned: &str) -> String {
    key.mac(&[previous.as_bytes(), b"\n", unsigned.as_bytes()])
}

/// A line's JSON with an empty `mac`: what the mac is computed over.
fn unsigned(value: &serde_json::Value) -> String {
    let mut value = value.clone();
    value["mac"] = serde_json::Value::String(String::new());
    value.to_string()
}

/// Appends a grant's steps as they are delivered.
pub struct Recorder {
    path: PathBuf,
    /// The file's length without its closing line: where the next step goes.
    body: u64,
    finished: bool,
    key: Key,
    last_mac: String,
    next_index: u32,
    text: TextRecording,
    /// A step delivered with no look after it, and the tree it acted on:
    /// written once the next look at its window shows what it changed.
    held: Option<Held>,
}

struct Held {
    step: Step,
    before: glovebox_model::AccessibilityTree,
    withheld: Option<String>,
}

/// An expectation without the lines that show text the recording does not keep.
fn expectation_keeping(diff: &TreeDiff, withheld: Option<&str>) -> Vec<String> {
    let mut lines = expectation(diff);
    if let Some(text) = withheld.filter(|t| !t.trim().is_empty()) {
        lines.retain(|line| !line.contains(text));
    }
    lines
}

impl Recorder {
    /// Starts the recording of `grant` in `dir`.
    pub fn start(dir: &Path, grant: &str, text: TextRecording) -> std::io::Result<Recorder> {
        // Recordings hold typed text: 0600 files in a 0700 directory.
        glovebox_platform::files::private_dir(dir)?;
        let key = Key::load(dir)?;
        prune(dir, KEPT - 1);
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default();
        let safe: String = grant
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        let path = dir.join(format!("{started}-{safe}.jsonl"));
        let mut header = serde_json::to_value(Header {
            glovebox_recording: FORMAT,
            grant: grant.to_owned(),
            started,
            text,
            mac: String::new(),
        })
        .map_err(std::io::Error::other)?;
        let mac = line_mac(&key, "", &unsigned(&header));
        header["mac"] = mac.clone().into();
        let header = format!("{header}\n");
        glovebox_platform::files::open_private(
            &path,
            std::fs::OpenOptions::new().write(true).create_new(true),
        )?
        .write_all(header.as_bytes())?;
        let mut recorder = Recorder {
            path,
            body: header.len() as u64,
            finished: false,
            key,
            last_mac: mac,
            next_index: 1,
            text,
            held: None,
        };
        recorder.append(None)?;
        Ok(recorder)
    }

    /// The recording's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records one delivered action: `tree` is the frame it was made on,
    /// `changes` what it changed when that was looked at.
    pub fn record(
        &mut self,
        window: WindowAddress,
        action: &Action,
        tree: &glovebox_model::AccessibilityTree,
        changes: Option<&TreeDiff>,
    ) -> std::io::Result<()> {
        let targets = action
            .targets()
            .iter()
            .map(|t| match t {
                Target::Element(id) => address_of(tree, *id).map(RecordedTarget::Element),
                Target::Point(point) => Some(RecordedTarget::Point { point: *point }),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| std::io::Error::other("a target is not in the frame's tree"))?;
        let on_password = action.targets().iter().any(
            |t| matches!(t, Target::Element(id) if tree.find(*id).is_some_and(|e| e.is_password())),
        );
        let keep = self.text == TextRecording::Kept && !on_password && !tree.focused_password;
        let (recorded, withheld_text) = match action.text_length() {
            Some(length) if !keep => (action.without_text(), Some(length)),
            _ => (action.clone(), None),
        };
        // Text not kept stays out of the expectation too (an app may echo it in a label).
        let withheld = match (action, withheld_text) {
            (Action::Type { text } | Action::SetValue { text, .. }, Some(_)) => Some(text.clone()),
            _ => None,
        };
        self.flush()?;
        let expect = changes.map(|diff| expectation_keeping(diff, withheld.as_deref()));
        let step = Step {
            index: self.next_index,
            window,
            action: recorded,
            targets,
            withheld_text,
            expect,
            mac: String::new(),
        };
        self.next_index += 1;
        match changes {
            Some(_) => self.write(&step),
            None => {
                self.held = Some(Held { step, before: tree.clone(), withheld });
                Ok(())
            }
        }
    }

    /// A look at a window: the held step's expectation when it is the step's window.
    pub fn observed(&mut self, after: &glovebox_model::AccessibilityTree) -> std::io::Result<()> {
        match self.held.take() {
            Some(Held { mut step, before, withheld }) if before.window == after.window => {
                step.expect = Some(expectation_keeping(
                    &TreeDiff::between(&before, after),
                    withheld.as_deref(),
                ));
                self.write(&step)
            }
            held => {
                self.held = held;
                Ok(())
            }
        }
    }

    /// Writes a held step as it is, with no expectation.
    pub fn flush(&mut self) -> std::io::Result<()> {
        match self.held.take() {
            Some(held) => self.write(&held.step),
            None => Ok(()),
        }
    }

    fn write(&mut self, step: &Step) -> std::io::Result<()> {
        self.write_line(serde_json::to_value(step).map_err(std::io::Error::other)?)
    }

    fn write_line(&mut self, value: serde_json::Value) -> std::io::Result<()> {
        self.append(Some(value))
    }

    /// Replaces the closing line with `step` (when there is one) and a new
    /// closing line, in one write.
    fn append(&mut self, step: Option<serde_json::Value>) -> std::io::Result<()> {
        let mut lines = String::new();
        let mut last_mac = self.last_mac.clone();
        if let Some(mut value) = step {
            last_mac = line_mac(&self.key, &last_mac, &unsigned(&value));
            value["mac"] = last_mac.clone().into();
            lines = format!("{value}\n");
        }
        let steps = self.next_index - 1 - u32::from(self.held.is_some());
        let mut trailer = serde_json::to_value(Trailer {
            glovebox_recording_end: steps,
            finished: self.finished,
            mac: String::new(),
        })
        .map_err(std::io::Error::other)?;
        trailer["mac"] = line_mac(&self.key, &last_mac, &unsigned(&trailer)).into();
        let mut file = glovebox_platform::files::open_private(
            &self.path,
            std::fs::OpenOptions::new().append(true),
        )?;
        file.set_len(self.body)?;
        file.write_all(format!("{lines}{trailer}\n").as_bytes())?;
        self.body += lines.len() as u64;
        self.last_mac = last_mac;
        Ok(())
    }

    /// Writes the held step and the closing line that says the recording ended.
    fn finish(&mut self) -> std::io::Result<()> {
        self.flush()?;
        self.finished = true;
        self.append(None)
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Reads and verifies a recording made by this user (key in `key_dir`).
pub fn read(path: &Path, key_dir: &Path) -> Result<Recording, RecordingError> {
    // A path from a client may name anything: only a regular file of a sane size is read.
    let meta = std::fs::metadata(path)
        .map_err(|e| RecordingError::Io(format!("{}: {e}", path.display())))?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return Err(RecordingError::Io(format!(
            "{} is not a recording: not a regular file of at most {} MiB",
            path.display(),
            MAX_BYTES >> 20
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| RecordingError::Io(format!("{}: {e}", path.display())))?;
    let key = Key::load(key_dir).map_err(|e| RecordingError::Io(e.to_string()))?;
    let mut previous = String::new();
    let mut header = None;
    let mut steps: Vec<Step> = vec![];
    let mut trailer: Option<Trailer> = None;
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let number = i + 1;
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| RecordingError::Malformed { line: number, why: e.to_string() })?;
        let mac = value["mac"].as_str().unwrap_or_default().to_owned();
        if line_mac(&key, &previous, &unsigned(&value)) != mac {
            return Err(RecordingError::Tampered { line: number });
        }
        previous = mac;
        if trailer.is_some() {
            return Err(RecordingError::Malformed {
                line: number,
                why: "a line after the recording's closing line".into(),
            });
        }
        if header.is_some() && value.get("glovebox_recording_end").is_some() {
            let read: Trailer = serde_json::from_value(value)
                .map_err(|e| RecordingError::Malformed { line: number, why: e.to_string() })?;
            if read.glovebox_recording_end as usize != steps.len() {
                return Err(RecordingError::Malformed {
                    line: number,
                    why: format!(
                        "the closing line counts {} steps, not {}",
                        read.glovebox_recording_end,
                        steps.len()
                    ),
                });
            }
            trailer = Some(read);
        } else if header.is_none() {
            let read: Header = serde_json::from_value(value)
                .map_err(|e| RecordingError::Malformed { line: number, why: e.to_string() })?;
            if read.glovebox_recording != FORMAT {
                return Err(RecordingError::Format(read.glovebox_recording));
            }
            header = Some(read);
        } else {
            steps.push(
                serde_json::from_value(value)
                    .map_err(|e| RecordingError::Malformed { line: number, why: e.to_string() })?,
            );
        }
    }
    let header =
        header.ok_or(RecordingError::Malformed { line: 1, why: "the file is empty".into() })?;
    let finished = trailer.ok_or(RecordingError::Incomplete { steps: steps.len() })?.finished;
    Ok(Recording { path: path.to_owned(), header, steps, finished })
}

/// The element's role, name and named ancestors, from the tree it was seen in.
pub fn address_of(
    tree: &glovebox_model::AccessibilityTree,
    id: ElementId,
) -> Option<ElementAddress> {
    fn path<'a>(
        element: &'a glovebox_model::Element,
        id: ElementId,
        trail: &mut Vec<&'a glovebox_model::Element>,
    ) -> bool {
        trail.push(element);
        if element.id == id || element.children.iter().any(|c| path(c, id, trail)) {
            return true;
        }
        trail.pop();
        false
    }
    let mut trail = vec![];
    if !path(tree.root.as_ref()?, id, &mut trail) {
        return None;
    }
    let target = trail.pop()?;
    let ancestors = trail
        .iter()
        .filter(|e| !e.name.is_empty())
        .map(|e| Named { role: e.role, name: e.name.clone() })
        .collect();
    Some(ElementAddress { role: target.role, name: target.name.clone(), ancestors })
}

/// Where an address leads in a live tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Exactly one element answers to it.
    One(ElementId),
    /// No element answers to it.
    None,
    /// More than one element answers to it: acting on either would be a guess.
    Many(usize),
}

/// The elements with the address's role and name whose named ancestors are the address's.
pub fn find(tree: &glovebox_model::AccessibilityTree, address: &ElementAddress) -> Found {
    let matching: Vec<ElementId> = tree
        .root
        .iter()
        .flat_map(|r| r.walk())
        .filter(|e| e.role == address.role && e.name == address.name)
        .filter(|e| address_of(tree, e.id).is_some_and(|a| a.ancestors == address.ancestors))
        .map(|e| e.id)
        .collect();
    match matching.as_slice() {
        [] => Found::None,
        [one] => Found::One(*one),
        many => Found::Many(many.len()),
    }
}

/// What a diff says changed, without element ids and without what differs
/// from one run to the next anyway (geometry, focus): a replay's expectation.
pub fn expectation(diff: &TreeDiff) -> Vec<String> {
    let mut lines: Vec<String> = vec![];
    lines.extend(diff.added.iter().map(|a| format!("+ {}", subject(&a.line))));
    lines.extend(diff.removed.iter().map(|(r, _)| format!("- {}", subject(&r.line))));
    for changed in &diff.changed {
        for change in &changed.changes {
            if !matches!(
                change,
                Change::Moved { .. }
                    | Change::Gained(ElementState::Focused)
                    | Change::Lost(ElementState::Focused)
            ) {
                lines.push(format!("~ {}: {}", subject(&changed.line), change.describe()));
            }
        }
    }
    lines
}

/// An element's line as role and name: no id, no states, no hidden-children count.
fn subject(line: &str) -> String {
    let words: Vec<&str> = line
        .split(' ')
        .filter(|w| {
            !(w.len() > 2 && w.starts_with("@e") && w[2..].chars().all(|c| c.is_ascii_digit()))
        })
        .collect();
    let mut text = words.join(" ");
    for suffix_start in [" (+", " ["] {
        if let Some(at) = text.rfind(suffix_start).filter(|_| text.ends_with([')', ']'])) {
            text.truncate(at);
        }
    }
    text.trim().to_owned()
}

/// The expected changes a replay's diff did not show.
pub fn unmet(expected: &[String], diff: &TreeDiff) -> Vec<String> {
    let seen = expectation(diff);
    expected.iter().filter(|line| !seen.contains(line)).cloned().collect()
}

#[cfg(test)]
mod tests;
