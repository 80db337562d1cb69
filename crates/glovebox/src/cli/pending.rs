//! `glovebox pending`: the native calls waiting for the user's answer
//! (`glovebox serve` with `"park": true`), and the user's answer to one.
//! Only the person at this terminal answers: the agent's bearer token can
//! poll and cancel a waiting batch, never approve it. An approval holds for
//! the record the person read: `glovebox pending` prints each one's digest,
//! and `approve --yes` takes it back (`--digest`); asked on the terminal, the
//! question shows the digest of the record it approves.

use super::exit::{refused, Failure};
use super::terminal;
use super::terminal::Heard;
use clap::{Args, Subcommand};
use glovebox_mcp::pending::{Parked, Store};
use glovebox_model::Refusal;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct PendingArgs {
    #[command(subcommand)]
    action: Option<PendingAction>,
    /// Print as JSON.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum PendingAction {
    /// Show a waiting call's questions and approve them (asks y/N on the terminal unless --yes).
    Approve {
        /// The id `glovebox pending` lists (pnd-…).
        id: String,
        /// The digest `glovebox pending` showed for it: nothing is approved unless the call is still that record.
        #[arg(long, value_name = "HEX")]
        digest: Option<String>,
        /// Approve without asking: you have read the questions (`glovebox pending`); needs --digest.
        #[arg(long, requires = "digest")]
        yes: bool,
    },
    /// Decline a waiting call: neither it nor the calls after it in its batch run (an unsigned record is removed).
    Decline {
        /// The id `glovebox pending` lists (pnd-…).
        id: String,
    },
}

fn show(parked: &Parked) -> String {
    let mut text = format!(
        "{} (digest {}; {}, round {}): calls {} waiting at call {} ({} delivered before it)\n",
        parked.id,
        parked.digest(),
        parked.provider.name(),
        parked.round,
        parked.call_ids().join(", "),
        parked.next,
        parked.delivered.len()
    );
    for question in &parked.questions {
        text.push_str(&format!("  - {}\n", question.text()));
    }
    text
}

/// A waiting batch as `--json` lists it: what the agent is told, and the digest the person approves by.
fn listed(parked: &Parked) -> serde_json::Value {
    let mut summary = parked.summary();
    summary["digest"] = parked.digest().into();
    summary
}

fn store_refusal(e: glovebox_mcp::pending::PendingError) -> Refusal {
    Refusal::invalid_argument(e.to_string())
}

pub fn pending(args: PendingArgs) -> Result<ExitCode, Failure> {
    let store = Store::new(Store::default_dir());
    let json = args.json;
    let print = |id: &str, said: &str| {
        if json {
            println!("{}", serde_json::json!({"answered": said, "id": id}));
        } else {
            println!("{said} {id}");
        }
    };
    match args.action {
        None => {
            let (all, unsigned) = store.entries();
            for (_, why) in &unsigned {
                eprintln!("refused: {why}");
            }
            if json {
                println!("{}", serde_json::Value::Array(all.iter().map(listed).collect()));
            } else if all.is_empty() {
                println!("nothing is waiting for your answer");
            } else {
                for parked in &all {
                    print!("{}", show(parked));
                }
            }
        }
        Some(PendingAction::Approve { id, digest, yes }) => {
            let parked = store.load(&id).map_err(|e| refused(store_refusal(e), json))?;
            let read = parked.digest();
            if let Some(given) = digest.as_deref().filter(|d| !d.eq_ignore_ascii_case(&read)) {
                let changed = glovebox_mcp::pending::PendingError::Changed {
                    id: id.clone(),
                    read: given.to_owned(),
                    now: read,
                };
                return Err(refused(store_refusal(changed), json));
            }
            if !yes {
                let asked = format!("{}Approve all of this?", show(&parked));
                match terminal::ask(&asked) {
                    Heard::Yes => {}
                    Heard::NoTerminal(why) => {
                        let why = format!(
                            "{why}; approve with --yes once you have read `glovebox pending`"
                        );
                        return Err(refused(
                            glovebox_host::refusals::approval_unanswered(&why),
                            json,
                        ));
                    }
                    Heard::No | Heard::Ended => {
                        return Err(refused(
                            glovebox_host::refusals::approval_not_given(
                                "it keeps waiting (decline it to end it)",
                            ),
                            json,
                        ));
                    }
                }
            }
            // What was shown (and its digest checked), not what the file holds by now.
            store.approve(&id, &read).map_err(|e| refused(store_refusal(e), json))?;
            print(&id, "approved");
        }
        Some(PendingAction::Decline { id }) => {
            match store.decline(&id).map_err(|e| refused(store_refusal(e), json))? {
                Some(_) => print(&id, "declined"),
                None => print(&id, "removed the unsigned record"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
