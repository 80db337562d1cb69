//! The environment report of `glovebox doctor`: each check, its outcome, and
//! what a missing item disables.

use serde::{Deserialize, Serialize};

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    /// Present and working.
    Ok,
    /// Present but degraded; the detail says how.
    Warning,
    /// Absent: what it disables does not work.
    Missing,
}

/// One item of the environment report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    /// What was checked, in a few words (`display`, `wayland capture`).
    pub name: String,
    /// The outcome.
    pub status: CheckStatus,
    /// What was found, or why it is missing.
    pub detail: String,
    /// What stops working without it; empty when the check passed.
    pub disables: Vec<String>,
}

impl Check {
    /// A check that passed.
    pub fn ok(name: &str, detail: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            status: CheckStatus::Ok,
            detail: detail.into(),
            disables: vec![],
        }
    }

    /// A check that found `name` degraded; `disables` is what stops working.
    pub fn warning(name: &str, detail: impl Into<String>, disables: &[&str]) -> Check {
        Check {
            name: name.into(),
            status: CheckStatus::Warning,
            detail: detail.into(),
            disables: disables.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// A check that found `name` absent; `disables` is what stops working.
    pub fn missing(name: &str, detail: impl Into<String>, disables: &[&str]) -> Check {
        Check {
            name: name.into(),
            status: CheckStatus::Missing,
            detail: detail.into(),
            disables: disables.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// How the graphical session is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SessionType {
    /// An X display whose root window can be read.
    X11,
    /// An X server rooted in a Wayland compositor without a readable root window.
    XwaylandRootless,
    /// A Wayland session with no X display to reach.
    Wayland,
    /// No graphical session could be reached.
    None,
    /// A Windows session's interactive desktop (`winsta0\Default`).
    Windows,
    /// Not Linux: no backend exists for this platform yet.
    Unsupported,
}

/// What `glovebox doctor` found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DoctorReport {
    /// The operating system, as `std::env::consts::OS` spells it (`linux`).
    pub platform: String,
    /// How the graphical session is run.
    pub session: SessionType,
    /// Every check, in the order it ran.
    pub checks: Vec<Check>,
}

impl DoctorReport {
    /// True when nothing is missing.
    pub fn healthy(&self) -> bool {
        self.checks.iter().all(|c| c.status != CheckStatus::Missing)
    }

    /// Plain text for a terminal.
    pub fn render_text(&self) -> String {
        let mut out = format!("platform: {}\nsession:  {:?}\n", self.platform, self.session);
        for check in &self.checks {
            let mark = match check.status {
                CheckStatus::Ok => "ok  ",
                CheckStatus::Warning => "warn",
                CheckStatus::Missing => "MISS",
            };
            out.push_str(&format!("[{mark}] {:<22} {}\n", check.name, check.detail));
            if !check.disables.is_empty() {
                out.push_str(&format!(
                    "       {:<22} disables: {}\n",
                    "",
                    check.disables.join("; ")
                ));
            }
        }
        out
    }
}
