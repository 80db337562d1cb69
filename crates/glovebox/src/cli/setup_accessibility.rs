//! `glovebox setup accessibility`: shows what would change for applications
//! started later, asks on the terminal (or takes `--yes`), makes it, and
//! puts it all back with `--undo`. The changes themselves are
//! [`glovebox_linux::accessibility_setup`]'s.

use super::exit::{refused, Failure};
use super::terminal;
use anyhow::Context as _;
use clap::Subcommand;
use glovebox_host::Answer;
use glovebox_linux::accessibility_setup as changes;
use glovebox_model::{ErrorCode, Refusal};
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
}

pub fn setup(what: SetupWhat) -> Result<ExitCode, Failure> {
    match what {
        SetupWhat::Accessibility { undo, yes } => accessibility(undo, yes),
    }
}

fn accessibility(undo: bool, yes: bool) -> Result<ExitCode, Failure> {
    let places = changes::Places::of_this_user().context("setup accessibility")?;
    let planned = if undo { changes::undo_plan(&places) } else { changes::plan(&places) }
        .context("reading what is set now")?;
    if planned.is_empty() {
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
    let mut shown = String::from(if undo {
        "glovebox setup accessibility --undo puts back:\n"
    } else {
        "glovebox setup accessibility would make these changes (no screen reader is started or announced):\n"
    });
    for (number, change) in planned.iter().enumerate() {
        shown.push_str(&format!("{}. {}", number + 1, change.describe()));
    }
    if !undo {
        shown.push_str("Applications already running keep what they started with: quit them and start them again (or log in again).\n");
    }
    print!("{shown}");
    if !yes {
        match terminal::ask("Make these changes?") {
            Answer::Approved => {}
            Answer::Unavailable(why) => {
                return Err(refused(
                    Refusal::new(
                        ErrorCode::ApprovalRequired,
                        format!("{why}; nothing changed (run again with --yes once you have read the changes)"),
                    ),
                    false,
                ))
            }
            Answer::Declined | Answer::Cancelled => {
                return Err(refused(Refusal::new(ErrorCode::ApprovalDenied, "nothing changed"), false))
            }
        }
    }
    if undo {
        changes::undo(&places, &planned).context("putting the values back")?;
        println!("put back {} value(s)", planned.len());
    } else {
        changes::apply(&places, &planned).context("making the changes")?;
        println!(
            "made {} change(s); undo with `glovebox setup accessibility --undo`",
            planned.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
