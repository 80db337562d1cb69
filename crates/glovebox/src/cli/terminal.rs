//! The terminal as a way to reach the person: the host's requests on the
//! controlling terminal — an approval or an acknowledgement answered y or n,
//! the agent's question answered with a line. No terminal: no one to ask,
//! and the host fails closed (the agent's question then goes to the
//! indicator page, when one is served). The setup wizard and `glovebox
//! pending` ask their own questions here too, and read what was [`Heard`]
//! as their own answer, not the host's.

use glovebox_host::{Answer, PersonChannel, Request};
use std::io::{BufRead as _, Write as _};

/// The terminal as the person's channel, with an optional spinner held while they answer.
#[derive(Default)]
pub struct Terminal(pub Option<indicatif::ProgressBar>);

impl PersonChannel for Terminal {
    fn put(&self, request: Request<'_>) -> Answer {
        let put = || match request {
            Request::Approve(_) | Request::Acknowledge(_) => match ask(&request.shown()) {
                Heard::Yes => Answer::Approved,
                Heard::No => Answer::Declined,
                Heard::Ended => Answer::Cancelled,
                Heard::NoTerminal(why) => Answer::Unavailable(why),
            },
            Request::Ask(question) => ask_question(question),
        };
        match &self.0 {
            Some(bar) => bar.suspend(put),
            None => put(),
        }
    }
}

/// What the terminal heard to a yes-or-no question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    Yes,
    No,
    /// The input ended before an answer.
    Ended,
    /// No terminal to ask on, or it failed; said why.
    NoTerminal(String),
}

/// `question` on the controlling terminal, answered y or n.
pub fn ask(question: &str) -> Heard {
    let Ok(mut tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        return Heard::NoTerminal("there is no terminal to ask on".into());
    };
    // The host made the question visible; a question carried from elsewhere (a warm host) is
    // made so again: nothing in it acts on the terminal.
    let question = glovebox_model::visible(question);
    if tty.write_all(format!("{question} [y/N] ").as_bytes()).is_err() {
        return Heard::NoTerminal("the terminal cannot be written".into());
    }
    let mut answer = String::new();
    match std::io::BufReader::new(&tty).read_line(&mut answer) {
        Ok(0) => Heard::Ended,
        Ok(_) if matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") => Heard::Yes,
        Ok(_) => Heard::No,
        Err(_) => Heard::NoTerminal("the terminal cannot be read".into()),
    }
}

/// `question` on the controlling terminal, answered with a line of text
/// (its newline dropped); `None` with no terminal or at end of input.
pub fn ask_text(question: &str) -> Option<String> {
    let mut tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").ok()?;
    tty.write_all(format!("{question} ").as_bytes()).ok()?;
    let mut answer = String::new();
    match std::io::BufReader::new(&tty).read_line(&mut answer) {
        Ok(n) if n > 0 => Some(answer.trim_end_matches(['\n', '\r']).to_owned()),
        _ => None,
    }
}

/// The agent's question on the controlling terminal: the answer as a line (empty declines),
/// then whether to keep it out of the log.
fn ask_question(question: &glovebox_model::Question) -> Answer {
    let Some(answer) = ask_text(&format!("{}\nYour answer (empty to decline):", question.shown()))
    else {
        return Answer::Unavailable("there is no terminal to ask on".into());
    };
    if answer.trim().is_empty() {
        return Answer::Declined;
    }
    let private = ask("Keep this answer out of glovebox's log?") == Heard::Yes;
    Answer::Given { text: answer, private }
}

/// Asks `question` on the terminal unless `yes`; a refusal when not approved.
/// (Only Linux's `setup` changes things on the person's say-so yet.)
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(super) fn confirm(question: &str, yes: bool) -> Result<(), super::exit::Failure> {
    if yes {
        return Ok(());
    }
    match ask(question) {
        Heard::Yes => Ok(()),
        Heard::NoTerminal(why) => Err(super::exit::Failure::NotAgreed(format!(
            "{why}; nothing changed (run again with --yes once you have read the changes)"
        ))),
        Heard::No | Heard::Ended => {
            Err(super::exit::Failure::NotAgreed("you said no; nothing changed".into()))
        }
    }
}
