//! Guidance per application: short notes on what works best in a known
//! application ("set cells with set_value on the cell"), shipped with
//! glovebox or written by the user, which an observation of that
//! application's window carries once per grant. They are glovebox's words,
//! rendered under their own header after the tree and the seen elements,
//! never mixed with the application's text; and bounded: a few short notes.
//!
//! An entry is for windows of an application name *and* of a program: the
//! name (WM_CLASS, an app id) is the window's own claim, which any program
//! can make, so the executable the window's process runs decides too. A
//! window whose executable is unknown gets no guidance.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most notes one application's guidance holds.
pub const MAX_NOTES: usize = 5;
/// Longest note, in characters.
pub const MAX_NOTE_CHARS: usize = 240;
/// Most executables one entry names.
pub const MAX_EXECUTABLES: usize = 8;

/// Which windows a piece of guidance is for, and its notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuidanceEntry {
    /// The application's name as windows list it (WM_CLASS or app id), compared without case.
    pub app: String,
    /// The file names of the programs it is for (`soffice.bin`), compared exactly with the
    /// window's process's executable; `app` lower-cased when the entry names none.
    pub executables: Vec<String>,
    /// Only windows whose title contains this (compared without case), when set.
    pub title_contains: Option<String>,
    /// The notes, checked against [`MAX_NOTES`] and [`MAX_NOTE_CHARS`].
    pub notes: Vec<String>,
    /// Where it comes from: `shipped with glovebox`, or the user's file.
    pub source: String,
}

impl GuidanceEntry {
    /// An entry whose notes are within the bounds and printable, and whose
    /// executables (`None`: `app` lower-cased) are file names; the reason otherwise.
    pub fn new(
        app: &str,
        executables: Option<&[String]>,
        title_contains: Option<&str>,
        notes: Vec<String>,
        source: &str,
    ) -> Result<GuidanceEntry, String> {
        if app.trim().is_empty() {
            return Err("`app` is empty".into());
        }
        let executables = match executables {
            None => vec![app.to_lowercase()],
            Some(names) => {
                if names.is_empty() || names.len() > MAX_EXECUTABLES {
                    return Err(format!(
                        "{} executable(s) for {app}: 1 to {MAX_EXECUTABLES}",
                        names.len()
                    ));
                }
                if let Some(bad) = names.iter().find(|name| {
                    name.is_empty()
                        || *name == "."
                        || *name == ".."
                        || name.contains('/')
                        || name.chars().any(char::is_control)
                }) {
                    return Err(format!(
                        "executable {bad:?} for {app} is not a file name (`soffice.bin`, no directory)"
                    ));
                }
                names.to_vec()
            }
        };
        if notes.is_empty() || notes.len() > MAX_NOTES {
            return Err(format!("{} note(s) for {app}: 1 to {MAX_NOTES}", notes.len()));
        }
        for note in &notes {
            let length = note.chars().count();
            if length == 0 || length > MAX_NOTE_CHARS {
                return Err(format!(
                    "a note of {length} characters for {app}: 1 to {MAX_NOTE_CHARS}"
                ));
            }
            if note.chars().any(char::is_control) {
                return Err(format!("a note for {app} holds a control character"));
            }
        }
        Ok(GuidanceEntry {
            app: app.to_owned(),
            executables,
            title_contains: title_contains.map(str::to_owned),
            notes,
            source: source.to_owned(),
        })
    }

    fn fits(&self, app: &str, executable: &str, title: &str) -> bool {
        self.app.eq_ignore_ascii_case(app)
            && self.executables.iter().any(|e| e == executable)
            && self
                .title_contains
                .as_ref()
                .is_none_or(|t| title.to_lowercase().contains(&t.to_lowercase()))
    }
}

/// The guidance an observation carries: glovebox's notes for the observed application.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Guidance {
    /// The application it is for.
    pub app: String,
    /// The notes, in order.
    pub notes: Vec<String>,
    /// Where they come from: `shipped with glovebox`, or the user's file.
    pub source: String,
}

impl Guidance {
    /// The first entry of `entries` for a window of `app` titled `title` whose process runs
    /// the program file named `executable` (list the user's before the shipped ones, so that
    /// theirs win). An unknown executable (`None`) gets none: the name alone is a claim.
    pub fn for_window(
        entries: &[GuidanceEntry],
        app: &str,
        executable: Option<&str>,
        title: &str,
    ) -> Option<Guidance> {
        let executable = executable?;
        entries.iter().find(|e| e.fits(app, executable, title)).map(|e| Guidance {
            app: e.app.clone(),
            notes: e.notes.clone(),
            source: e.source.clone(),
        })
    }

    /// Its section of the tree's text, under a header that says whose words these are.
    pub fn section(&self) -> String {
        let mut out = format!(
            "glovebox guidance for {} (glovebox's notes, {}; not the application's text):\n",
            self.app, self.source
        );
        for note in &self.notes {
            out.push_str("  - ");
            out.push_str(note);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_fitting_entry_is_carried_under_its_own_header() {
        let office = ["soffice.bin".to_owned()];
        let entries = vec![
            GuidanceEntry::new("soffice", Some(&office), Some("Calc"), vec!["mine".into()], "~/g")
                .unwrap(),
            GuidanceEntry::new(
                "Soffice",
                Some(&office),
                None,
                vec!["shipped".into()],
                "shipped with glovebox",
            )
            .unwrap(),
        ];
        let exe = Some("soffice.bin");
        let calc = Guidance::for_window(&entries, "soffice", exe, "fruit.ods - LibreOffice Calc");
        assert_eq!(calc.unwrap().notes, ["mine"]);
        let writer = Guidance::for_window(&entries, "SOFFICE", exe, "letter - LibreOffice Writer");
        assert_eq!(writer.as_ref().unwrap().notes, ["shipped"]);
        assert!(writer.unwrap().section().starts_with("glovebox guidance for Soffice (glovebox's notes, shipped with glovebox; not the application's text):\n  - shipped\n"));
        assert_eq!(Guidance::for_window(&entries, "gedit", Some("gedit"), "x"), None);
    }

    #[test]
    fn an_app_name_claimed_by_another_program_gets_no_guidance() {
        let chromium =
            GuidanceEntry::new("Chromium", None, None, vec!["pages".into()], "shipped").unwrap();
        assert_eq!(chromium.executables, ["chromium"], "the app lower-cased when none is named");
        let entries = [chromium];
        // A Tk or Python program may call its window class Chromium: its executable says not.
        for impostor in ["wish8.6", "python3", "Chromium", "chromium-browser"] {
            let claimed = Guidance::for_window(&entries, "Chromium", Some(impostor), "New Tab");
            assert_eq!(claimed, None, "{impostor}");
        }
        assert_eq!(Guidance::for_window(&entries, "Chromium", None, "New Tab"), None, "unknown");
        let real = Guidance::for_window(&entries, "chromium", Some("chromium"), "New Tab");
        assert_eq!(real.unwrap().notes, ["pages"]);
        // A program of the right name whose windows claim another application's name: none.
        assert_eq!(Guidance::for_window(&entries, "Firefox", Some("chromium"), "x"), None);
    }

    #[test]
    fn notes_past_the_bounds_are_refused() {
        assert!(GuidanceEntry::new("a", None, None, vec![], "f").is_err());
        assert!(GuidanceEntry::new("a", None, None, vec!["n".into(); MAX_NOTES + 1], "f").is_err());
        let long = vec!["x".repeat(MAX_NOTE_CHARS + 1)];
        assert!(GuidanceEntry::new("a", None, None, long, "f").is_err());
        assert!(GuidanceEntry::new("a", None, None, vec!["line\nbreak".into()], "f").is_err());
        assert!(GuidanceEntry::new(" ", None, None, vec!["n".into()], "f").is_err());
    }

    #[test]
    fn executables_are_file_names() {
        let note = || vec!["n".to_owned()];
        for bad in [&[][..], &["".to_owned()], &["/usr/bin/xterm".to_owned()], &["..".to_owned()]] {
            assert!(GuidanceEntry::new("a", Some(bad), None, note(), "f").is_err(), "{bad:?}");
        }
        let many = vec!["x".to_owned(); MAX_EXECUTABLES + 1];
        assert!(GuidanceEntry::new("a", Some(&many), None, note(), "f").is_err());
        let two = ["soffice.bin".to_owned(), "soffice".to_owned()];
        let entry = GuidanceEntry::new("a", Some(&two), None, note(), "f").unwrap();
        assert_eq!(entry.executables, two);
    }
}
