//! What a `wait` call waits for: a fixed time, or a condition on the bound
//! window's accessibility tree (an element query appearing, disappearing or
//! changing). A wait that times out proves nothing either way and says so.

use crate::a11y::{AccessibilityTree, Element};
use crate::error::Refusal;
use serde::{Deserialize, Serialize};

/// Shortest and longest wait, in seconds.
pub const WAIT_SECONDS: std::ops::RangeInclusive<f64> = 0.5..=5.0;

/// Elements by role and name: role compared case-insensitively and whole,
/// name as a case-insensitive substring. At least one must be given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
// The `wait` tool's schema embeds this, and models read it in every turn:
// `#[schemars(description = "")]` keeps the field rustdoc out.
pub struct ElementQuery {
    /// A role as trees write it (`push button`), compared whole and
    /// case-insensitively.
    #[schemars(description = "")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Part of the name, compared case-insensitively.
    #[schemars(description = "")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ElementQuery {
    /// Whether `e` fits the query; a part not given matches anything.
    pub fn matches(&self, e: &Element) -> bool {
        self.role.as_ref().is_none_or(|r| e.role.name().eq_ignore_ascii_case(r.trim()))
            && self.name.as_ref().is_none_or(|n| e.name.to_lowercase().contains(&n.to_lowercase()))
    }

    /// A fingerprint of every matching element (role, name, states, order),
    /// so a change of any of them can be noticed.
    pub fn fingerprint(&self, tree: &AccessibilityTree) -> Vec<String> {
        tree.root
            .iter()
            .flat_map(|r| r.walk())
            .filter(|e| self.matches(e))
            .map(|e| format!("{}|{}|{:?}|{}", e.role, e.name, e.states, e.has_value))
            .collect()
    }
}

/// What a condition wait waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WaitCondition {
    /// Some element matches the query.
    Appear,
    /// No element matches the query.
    Disappear,
    /// The matching elements differ from when the wait began (in number, role,
    /// name, states or value presence).
    Change,
}

/// One wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
// As for `ElementQuery`: the `wait` tool's schema, read in every turn,
// carries only the descriptions written for it.
pub enum WaitFor {
    /// Wait this long (0.5–5 s), then observe.
    Seconds(#[schemars(range(min = 0.5, max = 5.0))] f64),
    /// Observe until the condition holds or `timeout_secs` (0.5–5) pass.
    Until {
        /// What must become true.
        #[schemars(description = "")]
        condition: WaitCondition,
        /// The elements the condition is about.
        #[schemars(description = "")]
        query: ElementQuery,
        /// Seconds to keep observing before giving up (0.5–5).
        #[schemars(description = "")]
        #[schemars(range(min = 0.5, max = 5.0))]
        timeout_secs: f64,
    },
}

impl WaitFor {
    /// Checks the seconds lie in 0.5..=5 and the query names a role or a
    /// name; nothing is clamped.
    pub fn validate(&self) -> Result<(), Refusal> {
        let check = |what: &str, secs: f64| {
            if secs.is_finite() && WAIT_SECONDS.contains(&secs) {
                Ok(())
            } else {
                Err(Refusal::invalid_argument(format!("{what} {secs} s lies outside 0.5..=5 s")))
            }
        };
        match self {
            WaitFor::Seconds(s) => check("a wait of", *s),
            WaitFor::Until { query, timeout_secs, .. } => {
                check("a timeout of", *timeout_secs)?;
                let blank = |s: &Option<String>| s.as_ref().is_none_or(|s| s.trim().is_empty());
                if blank(&query.role) && blank(&query.name) {
                    return Err(Refusal::invalid_argument(
                        "an element query needs a role or a name",
                    ));
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn waits_are_bounded_and_queries_not_empty() {
        assert!(WaitFor::Seconds(0.5).validate().is_ok());
        for bad in [0.4, 5.1, f64::NAN, -1.0] {
            assert_eq!(
                WaitFor::Seconds(bad).validate().unwrap_err().code,
                ErrorCode::InvalidArgument
            );
        }
        let empty = ElementQuery { role: None, name: Some("  ".into()) };
        let until =
            WaitFor::Until { condition: WaitCondition::Appear, query: empty, timeout_secs: 2.0 };
        assert_eq!(until.validate().unwrap_err().code, ErrorCode::InvalidArgument);
    }
}
