//! Who may never be a target: glovebox's own windows and its launcher's
//! (self-target), credential software and the configured deny list, and
//! windows of other users' processes. Secure input is checked separately,
//! right before each capture and synthesis, since it changes from moment to
//! moment.

use crate::process::{ancestors, ProcessTable};
use glovebox_model::{Denial, WindowInfo};
use glovebox_platform::protected::glob_match;
use glovebox_platform::ProtectedPrograms;

pub use glovebox_model::AncestorRule;

/// The static rules, evaluated against a window and its process.
pub struct Denials {
    own_pid: u32,
    ancestors: Vec<u32>,
    rule: AncestorRule,
    uid: u32,
    entries: Vec<(String, bool)>,
    consent: &'static [&'static str],
}

impl Denials {
    /// The rules of glovebox process `own_pid` running as `uid`: its
    /// ancestors are read from `table` now, and `configured` deny-list
    /// entries (lower-cased, blanks dropped) join the system's `protected`
    /// credential software; its consent surfaces are denied before either.
    pub fn new(
        table: &dyn ProcessTable,
        own_pid: u32,
        uid: u32,
        rule: AncestorRule,
        configured: &[String],
        protected: ProtectedPrograms,
    ) -> Denials {
        let mut entries: Vec<(String, bool)> =
            protected.credentials.iter().map(|e| (e.to_string(), true)).collect();
        entries.extend(
            configured
                .iter()
                .map(|e| e.trim().to_lowercase())
                .filter(|e| !e.is_empty())
                .map(|e| (e, false)),
        );
        let consent = protected.consent;
        Denials { own_pid, ancestors: ancestors(table, own_pid), rule, uid, entries, consent }
    }

    /// The deny-list entry matching any of `names` (lower-cased), if one does.
    pub fn denylisted(&self, names: &[String]) -> Option<Denial> {
        let named = |entry: &str| names.iter().any(|n| !n.is_empty() && glob_match(entry, n));
        if let Some(entry) = self.consent.iter().find(|e| named(e)) {
            return Some(Denial::ConsentSurface { entry: entry.to_string() });
        }
        self.entries
            .iter()
            .find(|(entry, _)| names.iter().any(|n| !n.is_empty() && glob_match(entry, n)))
            .map(|(entry, built_in)| Denial::Denylisted {
                entry: entry.clone(),
                built_in: *built_in,
            })
    }

    /// The first rule that denies `window`, in order of absoluteness.
    pub fn check(&self, table: &dyn ProcessTable, window: &WindowInfo) -> Option<Denial> {
        let pid = window.id.pid;
        if pid == self.own_pid {
            return Some(Denial::SelfTarget {
                detail: "the window belongs to this glovebox process".into(),
            });
        }
        if pid != 0 && self.ancestors.contains(&pid) {
            return Some(Denial::SelfTarget {
                detail: format!("pid {pid} launched glovebox (an ancestor process)"),
            });
        }
        if self.rule == AncestorRule::AncestorsAndTheirChildren && pid != 0 {
            if let Some(parent) =
                table.parent(pid).filter(|p| *p == self.own_pid || self.ancestors.contains(p))
            {
                if parent != self.own_pid {
                    return Some(Denial::SelfTarget {
                        detail: format!(
                            "pid {pid} is a child of pid {parent}, which launched glovebox"
                        ),
                    });
                }
            }
        }
        let executable = table.executable(pid);
        let mut names = vec![window.app.to_lowercase(), window.instance.to_lowercase()];
        if let Some(exe) = &executable {
            names.push(exe.to_string_lossy().to_lowercase());
            if let Some(base) = exe.file_name() {
                names.push(base.to_string_lossy().to_lowercase());
            }
        }
        if let Some(comm) = table.name(pid) {
            names.push(comm.to_lowercase());
        }
        if let Some(denied) = self.denylisted(&names) {
            return Some(denied);
        }
        match table.owner_uid(pid) {
            Some(uid) if pid != 0 && uid != self.uid => Some(Denial::Elevated { uid }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A system's lists as the rules see them (Linux's own are tested with them).
    const PROTECTED: ProtectedPrograms = ProtectedPrograms {
        credentials: &["pinentry*", "keepass*"],
        consent: &["xdg-desktop-portal*", "gnome-shell*", "kscreenlocker*", "swaylock"],
    };

    #[test]
    fn globs() {
        assert!(glob_match("pinentry*", "pinentry-gnome3"));
        assert!(glob_match("*polkit*agent*", "polkit-gnome-authentication-agent-1"));
        assert!(glob_match("keepassxc", "keepassxc"));
        assert!(!glob_match("keepassxc", "keepassxc2"));
        assert!(!glob_match("ssh-askpass*", "xssh-askpass"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn consent_surfaces_are_denied_by_any_of_their_names_and_say_so() {
        let table = glovebox_platform::process::DeclaredProcesses::new([(
            40,
            1,
            0,
            "/usr/libexec/xdg-desktop-portal-kde",
        )]);
        let denials = Denials::new(&table, 1, 0, AncestorRule::Ancestors, &[], PROTECTED);
        // The dialog's window says nothing of its process: the executable does.
        let dialog = WindowInfo {
            id: glovebox_model::WindowId { pid: 40, handle: 7 },
            app: "Share Screen".into(),
            instance: String::new(),
            title: "Screen Sharing".into(),
            pid_source: glovebox_model::PidSource::Server,
            geometry: glovebox_model::Rect::new(0, 0, 400, 300),
            focused: true,
            minimized: false,
            desktop: glovebox_model::Desktop::User,
        };
        assert_eq!(
            denials.check(&table, &dialog),
            Some(Denial::ConsentSurface { entry: "xdg-desktop-portal*".into() })
        );
        for name in ["xdg-desktop-portal-gnome", "gnome-shell", "kscreenlocker_greet", "swaylock"] {
            let denial = denials.denylisted(&[name.to_owned()]);
            assert!(matches!(denial, Some(Denial::ConsentSurface { .. })), "{name}: {denial:?}");
        }
        assert_eq!(
            denials.denylisted(&["pinentry-gnome3".into()]),
            Some(Denial::Denylisted { entry: "pinentry*".into(), built_in: true })
        );
        assert_eq!(denials.denylisted(&["gedit".into()]), None);
        // A configuration cannot open them: they are checked before the list.
        let sentence = Denial::ConsentSurface { entry: "xdg-desktop-portal*".into() }.sentence();
        assert!(sentence.contains("only the person answers it"), "{sentence}");
    }
}
