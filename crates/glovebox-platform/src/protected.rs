//! The programs no agent may reach on a system, whatever the configuration
//! says: its credential software and prompts, and the surfaces where the
//! person gives or refuses consent (permission dialogs, the shell that
//! draws them, the lock screen). Which programs those are differs per
//! system, so each system's composition supplies its lists with its
//! [`crate::Backends`]; the host's denials match windows against them.

/// One system's protected programs, as lower-case names where `*` matches
/// any run of characters (an application's name, its instance, or its
/// executable's path or file name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtectedPrograms {
    /// Credential software and prompts: always denied as deny-list entries
    /// no setting removes.
    pub credentials: &'static [&'static str],
    /// Where the person gives or refuses consent: always denied, and said
    /// to be a consent surface.
    pub consent: &'static [&'static str],
}

/// Whether `text` matches `pattern`, where `*` matches any run of
/// characters: how every protected or configured entry is matched.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((prefix, rest)) => {
            let Some(mut remaining) = text.strip_prefix(prefix) else { return false };
            if rest.is_empty() {
                return true;
            }
            loop {
                if glob_match(rest, remaining) {
                    return true;
                }
                let mut chars = remaining.chars();
                if chars.next().is_none() {
                    return false;
                }
                remaining = chars.as_str();
            }
        }
    }
}
