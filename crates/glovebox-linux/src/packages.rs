//! The Debian packages glovebox uses at run time (not the tests' tools):
//! what each provides, what stops working without it, and whether it is
//! installed here. `glovebox doctor` reports them; the README's install
//! line is [`apt_install_line`], checked against this table by a test.

use glovebox_platform::doctor::Check;
use std::path::{Path, PathBuf};

/// One package glovebox runs with.
#[derive(Debug, Clone, Copy)]
pub struct RuntimePackage {
    /// The Debian 12 package (`a | b`: either will do).
    pub package: &'static str,
    /// Programs it installs, by name on PATH or by absolute path; any one found is enough.
    pub provides: &'static [&'static str],
    /// What does not work without it.
    pub without: &'static str,
    /// Wanted by most users rather than needed for the main job.
    pub recommended: bool,
}

pub const RUNTIME_PACKAGES: &[RuntimePackage] = &[
    RuntimePackage { package: "xvfb", provides: &["Xvfb"], without: "`glovebox sandbox` and the agent display (a private X server)", recommended: false },
    RuntimePackage {
        package: "openbox",
        provides: &["openbox"],
        without: "a window manager on the sandbox and the agent display (focus and stacking)",
        recommended: false,
    },
    RuntimePackage {
        package: "dbus-daemon",
        provides: &["dbus-run-session", "dbus-daemon"],
        without: "the sandbox's own session and accessibility buses",
        recommended: false,
    },
    RuntimePackage {
        package: "at-spi2-core",
        provides: &["/usr/libexec/at-spi-bus-launcher", "at-spi-bus-launcher"],
        without: "accessibility trees and semantic input (the accessibility bus)",
        recommended: false,
    },
    RuntimePackage { package: "sway", provides: &["sway"], without: "the Wayland sandbox (`glovebox sandbox --wayland`)", recommended: true },
    RuntimePackage { package: "grim", provides: &["grim"], without: "screenshots on Wayland", recommended: true },
    RuntimePackage {
        package: "bubblewrap",
        provides: &["bwrap"],
        without: "applications on the agent display (each runs boxed in bubblewrap, away from the user's display, buses and files)",
        recommended: true,
    },
    RuntimePackage {
        package: "libtesseract5",
        provides: &[
            "/usr/lib/x86_64-linux-gnu/libtesseract.so.5",
            "/usr/lib/aarch64-linux-gnu/libtesseract.so.5",
        ],
        without: "elements seen in the pixels of windows without an accessibility tree (OCR)",
        recommended: true,
    },
    RuntimePackage {
        package: "tesseract-ocr-eng",
        provides: &[
            "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata",
            "/usr/share/tesseract-ocr/4.00/tessdata/eng.traineddata",
        ],
        without: "reading English text in the pixels of windows without an accessibility tree",
        recommended: true,
    },
    RuntimePackage {
        package: "chromium | firefox-esr",
        provides: &["chromium", "firefox-esr", "firefox"],
        without: "open_url (a browser of its own on the agent display)",
        recommended: true,
    },
];

/// The one command that installs what glovebox needs at run time.
pub fn apt_install_line() -> String {
    let needed: Vec<&str> =
        RUNTIME_PACKAGES.iter().filter(|p| !p.recommended).map(|p| p.package).collect();
    format!("sudo apt-get install --no-install-recommends {}", needed.join(" "))
}

/// The packages most users want as well (the first of each alternative).
pub fn apt_recommends_line() -> String {
    let wanted: Vec<&str> = RUNTIME_PACKAGES
        .iter()
        .filter(|p| p.recommended)
        .map(|p| p.package.split(" | ").next().unwrap_or(p.package))
        .collect();
    format!("sudo apt-get install {}", wanted.join(" "))
}

/// Where `program` is: itself when absolute and present, else the first
/// match on `path` (a PATH value).
fn find(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    let program = Path::new(program);
    if program.is_absolute() {
        return program.is_file().then(|| program.to_path_buf());
    }
    std::env::split_paths(path).map(|dir| dir.join(program)).find(|candidate| candidate.is_file())
}

/// The doctor's check of one package, looked up on `path`.
pub fn check(package: &RuntimePackage, path: &std::ffi::OsStr) -> Check {
    let first = package.package.split(" | ").next().unwrap_or(package.package);
    let name = format!("package {first}");
    let or = package.package.strip_prefix(first).unwrap_or_default();
    match package.provides.iter().find_map(|program| find(program, path)) {
        Some(found) => Check::ok(&name, format!("{} is installed", found.display())),
        None => Check::warning(
            &name,
            format!("not installed (`sudo apt-get install {first}`{or})"),
            &[package.without],
        ),
    }
}

/// Every runtime package, as the doctor reports them.
pub fn checks() -> Vec<Check> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    RUNTIME_PACKAGES.iter().map(|package| check(package, &path)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glovebox_platform::doctor::CheckStatus;

    #[test]
    fn a_package_is_found_by_any_program_it_provides_and_a_missing_one_says_what_it_disables() {
        let dir = std::env::temp_dir().join(format!("glovebox-packages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("firefox-esr"), "").unwrap();
        let path = dir.as_os_str();
        let browser = RUNTIME_PACKAGES.iter().find(|p| p.package.contains("firefox")).unwrap();
        assert_eq!(check(browser, path).status, CheckStatus::Ok);
        let sway = RUNTIME_PACKAGES.iter().find(|p| p.package == "sway").unwrap();
        let missing = check(sway, path);
        assert_eq!(missing.status, CheckStatus::Warning);
        assert!(
            missing.detail.contains("apt-get install sway")
                && missing.disables[0].contains("Wayland sandbox"),
            "{missing:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_install_lines_name_the_needed_and_the_wanted_packages() {
        assert_eq!(
            apt_install_line(),
            "sudo apt-get install --no-install-recommends xvfb openbox dbus-daemon at-spi2-core"
        );
        assert_eq!(
            apt_recommends_line(),
            "sudo apt-get install sway grim bubblewrap libtesseract5 tesseract-ocr-eng chromium"
        );
    }
}
