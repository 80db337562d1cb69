//! `glovebox setup accessibility`: shows what would change for applications
//! started later, asks on the terminal (or takes `--yes`), makes it, and
//! puts it all back with `--undo`. The changes themselves are
//! [`glovebox_linux::accessibility_setup`]'s.

use super::exit::Failure;
use super::terminal::confirm;
use anyhow::Context as _;
use clap::Subcommand;
use glovebox_linux::accessibility_setup as changes;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum SetupWhat {
    /// Turn accessibility on for the applications you start from now on
    /// (Chromium, Firefox, Qt; GNOME's switch): shows each change and asks
    /// first. Never starts or announces a screen reader.
    Accessibility {
        /// Put back every value an earlier setup changed (a value you changed since stays yours).
        #[arg(long)]
        undo: bool,
        /// Make the changes without asking (once you have read them).
        #[arg(long)]
        yes: bool,
    },
    /// Let this glovebox take screenshots on KDE Plasma (Wayland): writes
    /// the desktop file KWin reads to allow org.kde.KWin.ScreenShot2 for
    /// this program (the .deb installs one for /usr/bin/glovebox); shows
    /// it and asks first.
    KdeScreenshots {
        /// Remove the desktop file an earlier run wrote.
        #[arg(long)]
        undo: bool,
        /// Write it without asking (once you have read it).
        #[arg(long)]
        yes: bool,
    },
    /// Let this glovebox list windows and read pixels on GNOME (Wayland):
    /// installs glovebox's GNOME Shell extension for you, answering only
    /// this program, and enables it (loaded at your next login); shows each
    /// change and asks first.
    GnomeExtension {
        /// Remove the extension and take it out of the enabled list.
        #[arg(long)]
        undo: bool,
        /// Make the changes without asking (once you have read them).
        #[arg(long)]
        yes: bool,
    },
}

pub fn setup(what: SetupWhat) -> Result<ExitCode, Failure> {
    match what {
        SetupWhat::Accessibility { undo, yes } => accessibility(undo, yes),
        SetupWhat::KdeScreenshots { undo, yes } => {
            super::setup_compositor::kde_screenshots(undo, yes)
        }
        SetupWhat::GnomeExtension { undo, yes } => {
            super::setup_compositor::gnome_extension(undo, yes)
        }
    }
}

/// What `setup accessibility` (or its `--undo`) would change now, with the text that shows it.
pub struct Plan {
    places: changes::Places,
    planned: Vec<changes::Change>,
    undo: bool,
}

impl Plan {
    pub fn read(undo: bool) -> Result<Plan, Failure> {
        let places = changes::Places::of_this_user().context("setup accessibility")?;
        let planned = if undo { changes::undo_plan(&places) } else { changes::plan(&places) }
            .context("reading what is set now")?;
        Ok(Plan { places, planned, undo })
    }

    pub fn is_empty(&self) -> bool {
        self.planned.is_empty()
    }

    /// The changes, numbered, for the person to read before they are made.
    pub fn shown(&self) -> String {
        let mut shown = String::new();
        for (number, change) in self.planned.iter().enumerate() {
            shown.push_str(&format!("{}. {}", number + 1, change.describe()));
        }
        if !self.undo {
            shown.push_str("Applications already running keep what they started with: quit them and start them again (or log in again).\n");
        }
        shown
    }

    /// Makes the changes; what was done, in one line.
    pub fn make(self) -> Result<String, Failure> {
        if self.undo {
            changes::undo(&self.places, &self.planned).context("putting the values back")?;
            Ok(format!("put back {} value(s)", self.planned.len()))
        } else {
            changes::apply(&self.places, &self.planned).context("making the changes")?;
            Ok(format!(
                "made {} change(s); undo with `glovebox setup accessibility --undo`",
                self.planned.len()
            ))
        }
    }
}

fn accessibility(undo: bool, yes: bool) -> Result<ExitCode, Failure> {
    let plan = Plan::read(undo)?;
    if plan.is_empty() {
        println!(
            "{}",
            if undo {
                "nothing to undo: no value glovebox set is still as it set it"
            } else {
                "accessibility already holds for applications started later; nothing to change"
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!(
        "{}{}",
        if undo {
            "glovebox setup accessibility --undo puts back:\n"
        } else {
            "glovebox setup accessibility would make these changes (no screen reader is started or announced):\n"
        },
        plan.shown()
    );
    confirm("Make these changes?", yes)?;
    println!("{}", plan.make()?);
    Ok(ExitCode::SUCCESS)
}
