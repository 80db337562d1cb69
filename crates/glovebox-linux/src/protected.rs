//! Linux's protected programs: the credential software and prompts, and
//! the surfaces where the person gives or refuses consent, that no grant
//! reaches on any Linux desktop ([`glovebox_platform::ProtectedPrograms`]).

use glovebox_platform::ProtectedPrograms;

/// Credential software: always denied, whatever the configuration says.
/// `*` matches any run of characters.
const CREDENTIALS: &[&str] = &[
    "keepassxc",
    "keepass*",
    "bitwarden",
    "1password",
    "gcr-prompter",
    "gcr-viewer",
    "gnome-keyring*",
    "seahorse",
    "polkit-*",
    "*polkit*agent*",
    "lxpolkit",
    "pinentry*",
    "ssh-askpass*",
    "ksshaskpass",
    "x11-ssh-askpass",
    "kwalletd*",
    "kwallet-query",
    "org.keepassxc.*",
];

/// Where the person gives or refuses consent: always denied, on every
/// desktop. The portals' dialogs (screen sharing, remote control,
/// screenshots), the compositors and shells that draw their own (GNOME
/// Shell's polkit and sharing prompts, KWin's), and the lock screens.
/// Polkit agents are among the credentials already, with the other
/// credential prompts.
const CONSENT: &[&str] = &[
    "xdg-desktop-portal*",
    "gnome-shell*",
    "org.gnome.shell*",
    "kwin_wayland*",
    "kwin_x11",
    "kscreenlocker*",
    "gnome-screensaver*",
    "cinnamon-screensaver*",
    "mate-screensaver*",
    "xfce4-screensaver*",
    "xscreensaver*",
    "light-locker",
    "swaylock",
    "hyprlock",
    "gtklock",
    "waylock",
    "i3lock*",
    "xsecurelock",
    "xlock*",
    "slock",
];

/// What every Linux composition hands the host with its backends.
pub const PROTECTED: ProtectedPrograms =
    ProtectedPrograms { credentials: CREDENTIALS, consent: CONSENT };

#[cfg(test)]
mod tests {
    use super::*;

    /// A name matches an entry as the host's denials match it.
    fn listed(list: &[&str], name: &str) -> bool {
        list.iter().any(|entry| glovebox_platform::protected::glob_match(entry, name))
    }

    #[test]
    fn linux_protects_its_portals_shells_lock_screens_and_credential_prompts() {
        for consent in [
            "xdg-desktop-portal-gnome",
            "gnome-shell",
            "kwin_wayland",
            "kscreenlocker_greet",
            "swaylock",
        ] {
            assert!(listed(PROTECTED.consent, consent), "{consent}");
        }
        for secret in
            ["keepassxc", "pinentry-gnome3", "polkit-gnome-authentication-agent-1", "seahorse"]
        {
            assert!(listed(PROTECTED.credentials, secret), "{secret}");
        }
        assert!(!listed(PROTECTED.credentials, "gedit") && !listed(PROTECTED.consent, "gedit"));
    }
}
