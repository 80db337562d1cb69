//! Why an application did not answer in time, from what the kernel says of
//! its process: still working (its threads use the CPU), stopped by a
//! signal, or idle without answering (hung, or waiting on something
//! else). A request that was sent to a working application is pending,
//! not lost.

use std::time::Duration;

/// How long the process's CPU time is watched.
const WATCH: Duration = Duration::from_millis(250);
/// CPU time (clock ticks, usually 10 ms) over [`WATCH`] that reads as
/// working: a fifth of one core.
const WORKING_TICKS: u64 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessState {
    /// Its threads used the CPU while it was watched.
    Working,
    /// Stopped by a signal or a debugger.
    Stopped,
    /// Neither working nor stopped.
    Idle,
    /// No such process (it exited, or it is not visible from here).
    Unknown,
}

impl ProcessState {
    /// Process `pid` as it is over a quarter of a second.
    pub fn watch(pid: u32) -> ProcessState {
        let Some((state, before)) = read_stat(pid) else { return ProcessState::Unknown };
        if matches!(state, 'T' | 't') {
            return ProcessState::Stopped;
        }
        std::thread::sleep(WATCH);
        match read_stat(pid) {
            None => ProcessState::Unknown,
            Some(('T' | 't', _)) => ProcessState::Stopped,
            Some((_, after)) if after.saturating_sub(before) >= WORKING_TICKS => {
                ProcessState::Working
            }
            Some(_) => ProcessState::Idle,
        }
    }

    /// The end of a sentence about an application that did not answer.
    pub fn why(self) -> &'static str {
        match self {
            ProcessState::Working => "it is busy (its process is using the CPU); what it was sent may still be running: observe again to see what happened",
            ProcessState::Stopped => "its process is stopped (by a signal or a debugger)",
            ProcessState::Idle => "its process is idle and not answering (hung, or waiting on something else)",
            ProcessState::Unknown => "its process could not be inspected",
        }
    }
}

/// The state letter and the CPU ticks (user + system, all threads) of `pid`.
fn read_stat(pid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&stat)
}

fn parse_stat(stat: &str) -> Option<(char, u64)> {
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    // Fields 14 and 15 of proc(5) (utime, stime) are the 12th and 13th after the name.
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some((state, ticks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_a_name_of_spaces_and_parentheses_parses() {
        let line = "4242 (soffice (x) bin) R 1 4242 4242 0 -1 4194560 100 0 0 0 731 269 0 0 20 0 5 0 100 1000 10 18446744073709551615";
        assert_eq!(parse_stat(line), Some(('R', 1000)));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1"), None);
    }

    #[test]
    fn this_process_is_seen_and_a_missing_one_is_unknown() {
        let me = std::process::id();
        assert!(read_stat(me).is_some());
        // A busy thread of this process reads as working.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinning = stop.clone();
        let spinner =
            std::thread::spawn(
                move || while !spinning.load(std::sync::atomic::Ordering::Relaxed) {},
            );
        assert_eq!(ProcessState::watch(me), ProcessState::Working);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinner.join().unwrap();
        assert_eq!(ProcessState::watch(u32::MAX), ProcessState::Unknown);
    }
}
