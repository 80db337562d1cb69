//! The terminal as a prompt channel: the host's question on the
//! controlling terminal, answered y or n. No terminal: no one to ask, and
//! the host fails closed.

use glovebox_host::{Answer, ApprovalRequest, Approver};
use std::io::{BufRead as _, Write as _};

pub struct Terminal;

impl Approver for Terminal {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        ask(&request.question())
    }
}

/// `question` on the controlling terminal, answered y or n.
pub fn ask(question: &str) -> Answer {
    let Ok(mut tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
        return Answer::Unavailable("there is no terminal to ask on".into());
    };
    // The host made the question visible; a question carried from elsewhere (a warm host) is
    // made so again: nothing in it acts on the terminal.
    let question = glovebox_model::visible(question);
    if tty.write_all(format!("{question} [y/N] ").as_bytes()).is_err() {
        return Answer::Unavailable("the terminal cannot be written".into());
    }
    let mut answer = String::new();
    match std::io::BufReader::new(&tty).read_line(&mut answer) {
        Ok(0) => Answer::Cancelled,
        Ok(_) if matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") => Answer::Approved,
        Ok(_) => Answer::Declined,
        Err(_) => Answer::Unavailable("the terminal cannot be read".into()),
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
pub fn ask_question(question: &glovebox_model::Question) -> glovebox_host::Said {
    use glovebox_host::Said;
    let Some(answer) = ask_text(&format!("{}\nYour answer (empty to decline):", question.shown()))
    else {
        return Said::Unavailable("there is no terminal to ask on".into());
    };
    if answer.trim().is_empty() {
        return Said::Declined;
    }
    let private = matches!(ask("Keep this answer out of glovebox's log?"), Answer::Approved);
    Said::Answer { text: answer, private }
}
