//! What a program will run, found before it runs: `open_app`'s deny list
//! must not be passed by a name that leads to a denied program. Symbolic
//! links are followed (Debian's alternatives: `x-terminal-emulator` →
//! `/etc/alternatives/…` → `lxterm`), and a script's text is read for the
//! programs it names (`lxterm` runs `uxterm`, `koi8rxterm` or `xterm`;
//! `uxterm` sets `XTERM_PROGRAM=xterm`). A script may pick among them at
//! run time, so every program it names counts: this errs on the side of
//! refusing.

use std::path::{Path, PathBuf};

/// How many scripts deep a wrapper is followed.
const MAX_DEPTH: usize = 4;
/// How much of a script is read: wrappers are short, and a long file
/// names every tool it uses anyway.
const MAX_SCRIPT_BYTES: u64 = 256 * 1024;
/// How many programs one plan may name before the rest are ignored.
const MAX_PROGRAMS: usize = 256;

/// `program` itself, its canonical target, and every executable that a
/// script among them names (recursively), each once, `program` first.
pub fn programs_run_by(program: &Path, path_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = vec![program.to_path_buf()];
    let mut next = vec![(program.to_path_buf(), 0)];
    while let Some((current, depth)) = next.pop() {
        if found.len() >= MAX_PROGRAMS {
            break;
        }
        let add = |p: PathBuf, found: &mut Vec<PathBuf>, next: &mut Vec<(PathBuf, usize)>| {
            if !found.contains(&p) && found.len() < MAX_PROGRAMS {
                found.push(p.clone());
                next.push((p, depth + 1));
            }
        };
        if let Ok(target) = std::fs::canonicalize(&current) {
            add(target, &mut found, &mut next);
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        for named in script_programs(&current, path_dirs) {
            add(named, &mut found, &mut next);
        }
    }
    found
}

/// The executables a script (a file starting `#!`) names: its interpreter
/// and every word of its text that is an absolute path to an executable or
/// the name of one on `path_dirs`. Empty for anything else.
fn script_programs(file: &Path, path_dirs: &[PathBuf]) -> Vec<PathBuf> {
    use std::io::Read as _;
    let Ok(opened) = std::fs::File::open(file) else { return vec![] };
    let mut text = Vec::new();
    if opened.take(MAX_SCRIPT_BYTES).read_to_end(&mut text).is_err() || !text.starts_with(b"#!") {
        return vec![];
    }
    let text = String::from_utf8_lossy(&text);
    let mut programs: Vec<PathBuf> = vec![];
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || "._/+-".contains(c))) {
        if word.is_empty() || programs.len() >= MAX_PROGRAMS {
            continue;
        }
        let candidate = if word.starts_with('/') {
            Some(PathBuf::from(word)).filter(|p| is_executable(p))
        } else if !word.contains('/') {
            path_dirs.iter().map(|d| d.join(word)).find(|p| is_executable(p))
        } else {
            None
        };
        if let Some(p) = candidate.filter(|p| !programs.contains(p)) {
            programs.push(p);
        }
    }
    programs
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn executable(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn links_and_wrapper_scripts_lead_to_what_they_run() {
        let dir = std::env::temp_dir().join(format!("glovebox-resolve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let term = executable(&dir, "realterm", "\x7fELF not a script");
        // A wrapper that names its program in a variable, as uxterm does.
        let wrapper = executable(
            &dir,
            "uterm",
            "#!/bin/sh\n: \"${TERM_PROGRAM=realterm}\"\nexec $TERM_PROGRAM \"$@\"\n",
        );
        let picker = executable(
            &dir,
            "pickterm",
            "#!/bin/sh\ncase x in y) T=uterm;; *) T=realterm;; esac\nexec \"$T\"\n",
        );
        let alternative = dir.join("x-term");
        std::os::unix::fs::symlink(&picker, &alternative).unwrap();
        let dirs = vec![dir.clone()];
        let runs = programs_run_by(&alternative, &dirs);
        assert_eq!(runs[0], alternative);
        for wanted in [&picker, &wrapper, &term] {
            assert!(
                runs.iter().any(|p| p.file_name() == wanted.file_name()),
                "{wanted:?} not in {runs:?}"
            );
        }
        // A binary names nothing; a word that is no executable is no program.
        assert!(
            programs_run_by(&term, &dirs).iter().all(|p| p.file_name() == term.file_name()),
            "itself and its canonical path only"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_script_that_runs_itself_ends() {
        let dir =
            std::env::temp_dir().join(format!("glovebox-resolve-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let a = executable(&dir, "loopa", "#!/bin/sh\nexec loopb\n");
        executable(&dir, "loopb", "#!/bin/sh\nexec loopa\n");
        let runs = programs_run_by(&a, std::slice::from_ref(&dir));
        assert!(runs.len() <= 6, "{runs:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
