//! Guidance per application, read from TOML: the notes shipped with
//! glovebox (`guidance.toml` beside this file) and the user's own files,
//! `guidance/*.toml` in [`crate::user_config_dir`] (by file name), which
//! come first so that theirs win. A file that does not parse, is not a
//! regular file (a FIFO would hang every command that reads it) or is past
//! [`MAX_FILE_BYTES`], and an entry past the bounds, is named with its
//! reason and left out; the rest load.
//!
//! ```toml
//! [[app]]
//! app = "gnome-calculator"          # the app as `glovebox windows` lists it
//! executables = ["gnome-calculator"] # optional: the program's file name(s)
//! title_contains = "Calculator"     # optional
//! notes = ["Type the whole expression, then press Return."]
//! ```

use glovebox_model::GuidanceEntry;
use glovebox_platform::files::{read_regular_text, Links};
use serde::Deserialize;
use std::path::{Path, PathBuf};

const SHIPPED: &str = include_str!("guidance.toml");

/// Most bytes one guidance file may hold: a few short notes per application fit many times over.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    app: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    app: String,
    executables: Option<Vec<String>>,
    title_contains: Option<String>,
    notes: Vec<String>,
}

/// Every entry that loaded, the user's first, and every file or entry that did not, with why.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    pub entries: Vec<GuidanceEntry>,
    pub problems: Vec<(PathBuf, String)>,
}

fn parse(text: &str, source: &str) -> Result<(Vec<GuidanceEntry>, Vec<String>), String> {
    let file: File = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    let mut entries = vec![];
    let mut problems = vec![];
    for entry in file.app {
        match GuidanceEntry::new(
            &entry.app,
            entry.executables.as_deref(),
            entry.title_contains.as_deref(),
            entry.notes,
            source,
        ) {
            Ok(entry) => entries.push(entry),
            Err(why) => problems.push(why),
        }
    }
    Ok((entries, problems))
}

/// The guidance shipped with glovebox.
pub fn shipped() -> Vec<GuidanceEntry> {
    parse(SHIPPED, "shipped with glovebox").map(|(entries, _)| entries).unwrap_or_default()
}

/// Where the user's guidance files are: `guidance` in [`crate::user_config_dir`].
pub fn user_dir() -> Option<PathBuf> {
    crate::user_config_dir().map(|dir| dir.join("guidance"))
}

/// The user's files in `dir` (none when it does not exist), then the shipped guidance.
pub fn load(dir: Option<&Path>) -> Loaded {
    let mut loaded = Loaded::default();
    if let Some(dir) = dir {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|read| read.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
        files.sort();
        for path in files {
            // Found in a directory: not through a link, and only a regular file under the bound.
            let parsed = read_regular_text(&path, MAX_FILE_BYTES, Links::Refuse)
                .map_err(|e| e.to_string())
                .and_then(|text| parse(&text, &path.display().to_string()));
            match parsed {
                Ok((entries, problems)) => {
                    loaded.entries.extend(entries);
                    loaded.problems.extend(problems.into_iter().map(|why| (path.clone(), why)));
                }
                Err(why) => loaded.problems.push((path, why)),
            }
        }
    }
    loaded.entries.extend(shipped());
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_guidance_parses_whole() {
        let (entries, problems) = parse(SHIPPED, "shipped with glovebox").unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert!(entries.iter().any(|e| e.app == "libreoffice-calc"));
    }

    #[test]
    fn a_broken_file_is_named_and_the_others_load() {
        let dir = std::env::temp_dir().join(format!("glovebox-guidance-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("a.toml"),
            "[[app]]\napp = \"gedit\"\nnotes = [\"Save with ctrl+s.\"]\n",
        )
        .unwrap();
        std::fs::write(dir.join("b.toml"), "[[app]\napp = broken").unwrap();
        std::fs::write(dir.join("c.toml"), "[[app]]\napp = \"x\"\nnotes = []\n").unwrap();
        std::fs::write(dir.join("notes.txt"), "not toml, not read").unwrap();
        let loaded = load(Some(&dir));
        assert_eq!(loaded.entries[0].app, "gedit");
        assert!(loaded.entries[0].source.ends_with("a.toml"));
        assert!(loaded.entries.iter().any(|e| e.source == "shipped with glovebox"));
        let named: Vec<_> =
            loaded.problems.iter().map(|(p, _)| p.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(named, ["b.toml", "c.toml"], "{:?}", loaded.problems);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_or_a_huge_file_is_named_and_skipped_without_waiting() {
        let dir =
            std::env::temp_dir().join(format!("glovebox-guidance-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("a.toml"),
            "[[app]]\napp = \"gedit\"\nexecutables = [\"gedit\", \"org.gnome.gedit\"]\nnotes = [\"Save with ctrl+s.\"]\n",
        )
        .unwrap();
        let made = std::process::Command::new("mkfifo").arg(dir.join("evil.toml")).status();
        assert!(made.unwrap().success(), "mkfifo (coreutils)");
        // Ten megabytes of comments: valid TOML, past the bound.
        std::fs::write(dir.join("huge.toml"), "#".repeat(10 << 20)).unwrap();
        std::os::unix::fs::symlink(dir.join("a.toml"), dir.join("linked.toml")).unwrap();
        std::fs::create_dir(dir.join("folder.toml")).unwrap();
        std::fs::write(dir.join("z.toml"), "[[app]]\napp = \"xterm\"\nnotes = [\"Mine.\"]\n")
            .unwrap();
        // On a thread: a read that waits for the FIFO's writer fails here rather than hangs.
        let (tx, rx) = std::sync::mpsc::channel();
        let read = dir.clone();
        std::thread::spawn(move || tx.send(load(Some(&read))));
        let loaded = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("loading the guidance hung on the FIFO");
        let problems: Vec<(&str, &str)> = loaded
            .problems
            .iter()
            .map(|(p, why)| (p.file_name().unwrap().to_str().unwrap(), why.as_str()))
            .collect();
        assert_eq!(
            problems,
            [
                ("evil.toml", "not a regular file"),
                ("folder.toml", "not a regular file"),
                ("huge.toml", "larger than 65536 bytes"),
                ("linked.toml", "a symbolic link, which is not followed here"),
            ],
        );
        assert_eq!(loaded.entries[0].executables, ["gedit", "org.gnome.gedit"]);
        assert_eq!(
            (loaded.entries[1].app.as_str(), loaded.entries[1].notes[0].as_str()),
            ("xterm", "Mine.")
        );
        assert_eq!(loaded.entries[1].executables, ["xterm"]);
        assert!(loaded.entries[2..].iter().all(|e| e.source == "shipped with glovebox"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shipped_entries_are_for_the_programs_the_tests_run() {
        let executables = |app: &str| {
            shipped().into_iter().find(|e| e.app == app).map(|e| e.executables).unwrap()
        };
        assert_eq!(executables("libreoffice-calc"), ["soffice.bin"]);
        assert_eq!(executables("Chromium"), ["chromium"]);
        assert_eq!(executables("XTerm"), ["xterm"]);
    }
}
