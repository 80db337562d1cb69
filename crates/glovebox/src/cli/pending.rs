//! `glovebox pending`: the native calls waiting for the user's answer
//! (`glovebox serve` with `"park": true`), and the user's answer to one.
//! Only the person at this terminal answers: the agent's bearer token can
//! poll and cancel a waiting batch, never approve it.

use super::exit::{refused, Failure};
use super::terminal;
use clap::{Args, Subcommand};
use glovebox_host::Answer;
use glovebox_mcp::pending::{Parked, Store};
use glovebox_model::{ErrorCode, Refusal};
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
        /// Approve without asking: you have read the questions (`glovebox pending`).
        #[arg(long)]
        yes: bool,
    },
    /// Decline a waiting call: neither it nor the calls after it in its batch run.
    Decline {
        /// The id `glovebox pending` lists (pnd-…).
        id: String,
    },
}

fn show(parked: &Parked) -> String {
    let mut text = format!(
        "{} ({}, round {}): calls {} waiting at call {} ({} delivered before it)\n",
        parked.id,
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

fn store_refusal(e: glovebox_mcp::pending::PendingError) -> Refusal {
    Refusal::invalid_argument(e.to_string())
}

pub fn pending(args: PendingArgs) -> Result<ExitCode, Failure> {
    let store = Store::new(Store::default_dir());
    let json = args.json;
    let print = |parked: &Parked, said: &str| {
        if json {
            println!("{}", serde_json::json!({"answered": said, "pending": parked.summary()}));
        } else {
            println!("{said} {}", parked.id);
        }
    };
    match args.action {
        None => {
            let all = store.list();
            if json {
                println!("{}", serde_json::Value::Array(all.iter().map(Parked::summary).collect()));
            } else if all.is_empty() {
                println!("nothing is waiting for your answer");
            } else {
                for parked in &all {
                    print!("{}", show(parked));
                }
            }
        }
        Some(PendingAction::Approve { id, yes }) => {
            let parked = store.load(&id).map_err(|e| refused(store_refusal(e), json))?;
            if !yes {
                let asked = format!("{}Approve all of this?", show(&parked));
                match terminal::ask(&asked) {
                    Answer::Approved => {}
                    Answer::Unavailable(why) => {
                        return Err(refused(
                            Refusal::new(ErrorCode::ApprovalRequired, format!("{why}; approve with --yes once you have read `glovebox pending`")),
                            json,
                        ))
                    }
                    Answer::Declined | Answer::Cancelled => {
                        return Err(refused(Refusal::new(ErrorCode::ApprovalDenied, "not approved; it keeps waiting (decline it to end it)"), json))
                    }
                }
            }
            let parked = store.answer(&id, parked.round, true).map_err(|e| refused(store_refusal(e), json))?;
            print(&parked, "approved");
        }
        Some(PendingAction::Decline { id }) => {
            let parked = store.load(&id).map_err(|e| refused(store_refusal(e), json))?;
            let parked = store.answer(&id, parked.round, false).map_err(|e| refused(store_refusal(e), json))?;
            print(&parked, "declined");
        }
    }
    Ok(ExitCode::SUCCESS)
}
