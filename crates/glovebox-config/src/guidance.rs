//! Guidance per application, read from TOML: the notes shipped with
//! glovebox (`guidance.toml` beside this file) and the user's own files,
//! `$XDG_CONFIG_HOME/glovebox/guidance/*.toml` (by file name), which come
//! first so that theirs win. A file that does not parse, or an entry past
//! the bounds, is named with its reason and left out; the rest load.
//!
//! ```toml
//! [[app]]
//! app = "gnome-calculator"          # the app as `glovebox windows` lists it
//! title_contains = "Calculator"     # optional
//! notes = ["Type the whole expression, then press Return."]
//! ```

use glovebox_model::GuidanceEntry;
use serde::Deserialize;
use std::path::{Path, PathBuf};

const SHIPPED: &str = include_str!("guidance.toml");

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
        match GuidanceEntry::new(&entry.app, entry.title_contains.as_deref(), entry.notes, source) {
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

/// Where the user's guidance files are: `$XDG_CONFIG_HOME/glovebox/guidance` (or `~/.config`).
pub fn user_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("glovebox").join("guidance"))
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
            let parsed = std::fs::read_to_string(&path)
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
}
