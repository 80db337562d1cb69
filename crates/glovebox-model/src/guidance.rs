//! Guidance per application: short notes on what works best in a known
//! application ("set cells with set_value on the cell"), shipped with
//! glovebox or written by the user, which an observation of that
//! application's window carries once per grant. They are glovebox's words,
//! rendered under their own header after the tree and the seen elements,
//! never mixed with the application's text; and bounded: a few short notes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most notes one application's guidance holds.
pub const MAX_NOTES: usize = 5;
/// Longest note, in characters.
pub const MAX_NOTE_CHARS: usize = 240;

/// Which windows a piece of guidance is for, and its notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuidanceEntry {
    /// The application's name as windows list it (WM_CLASS or app id), compared without case.
    pub app: String,
    /// Only windows whose title contains this (compared without case), when set.
    pub title_contains: Option<String>,
    /// The notes, checked against [`MAX_NOTES`] and [`MAX_NOTE_CHARS`].
    pub notes: Vec<String>,
    /// Where it comes from: `shipped with glovebox`, or the user's file.
    pub source: String,
}

impl GuidanceEntry {
    /// An entry whose notes are within the bounds and printable; the reason otherwise.
    pub fn new(
        app: &str,
        title_contains: Option<&str>,
        notes: Vec<String>,
        source: &str,
    ) -> Result<GuidanceEntry, String> {
        if app.trim().is_empty() {
            return Err("`app` is empty".into());
        }
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
            title_contains: title_contains.map(str::to_owned),
            notes,
            source: source.to_owned(),
        })
    }

    fn fits(&self, app: &str, title: &str) -> bool {
        self.app.eq_ignore_ascii_case(app)
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
    /// The first entry of `entries` for a window of `app` titled `title` (list the user's before
    /// the shipped ones, so that theirs win).
    pub fn for_window(entries: &[GuidanceEntry], app: &str, title: &str) -> Option<Guidance> {
        entries.iter().find(|e| e.fits(app, title)).map(|e| Guidance {
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
        let entries = vec![
            GuidanceEntry::new("soffice", Some("Calc"), vec!["mine".into()], "~/g.toml").unwrap(),
            GuidanceEntry::new("Soffice", None, vec!["shipped".into()], "shipped with glovebox")
                .unwrap(),
        ];
        let calc = Guidance::for_window(&entries, "soffice", "fruit.ods - LibreOffice Calc");
        assert_eq!(calc.unwrap().notes, ["mine"]);
        let writer = Guidance::for_window(&entries, "SOFFICE", "letter - LibreOffice Writer");
        assert_eq!(writer.as_ref().unwrap().notes, ["shipped"]);
        assert!(writer.unwrap().section().starts_with("glovebox guidance for Soffice (glovebox's notes, shipped with glovebox; not the application's text):\n  - shipped\n"));
        assert_eq!(Guidance::for_window(&entries, "gedit", "x"), None);
    }

    #[test]
    fn notes_past_the_bounds_are_refused() {
        assert!(GuidanceEntry::new("a", None, vec![], "f").is_err());
        assert!(GuidanceEntry::new("a", None, vec!["n".into(); MAX_NOTES + 1], "f").is_err());
        assert!(GuidanceEntry::new("a", None, vec!["x".repeat(MAX_NOTE_CHARS + 1)], "f").is_err());
        assert!(GuidanceEntry::new("a", None, vec!["line\nbreak".into()], "f").is_err());
        assert!(GuidanceEntry::new(" ", None, vec!["n".into()], "f").is_err());
    }
}
