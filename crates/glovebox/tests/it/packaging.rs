//! What the Debian package ships is what the code says: the man pages and
//! shell completions in `dist/` are the ones `glovebox man` and `glovebox
//! completions` generate now (`GLOVEBOX_WRITE_REFERENCE=1` rewrites them),
//! they parse, and the package's Depends and Recommends are the runtime
//! packages `glovebox doctor` checks. Building and installing the package
//! itself is `.ci/deb-check`.

use glovebox_linux::packages::RUNTIME_PACKAGES;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dist() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("dist")
}

fn glovebox(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_glovebox")).args(args).output().unwrap();
    assert!(out.status.success(), "glovebox {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn writing() -> bool {
    std::env::var_os("GLOVEBOX_WRITE_REFERENCE").is_some()
}

fn in_sync(path: &Path, generated: &[u8]) {
    if writing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, generated).unwrap();
        return;
    }
    let committed = std::fs::read(path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is not what the command line generates now; run `GLOVEBOX_WRITE_REFERENCE=1 cargo test -p glovebox-cli --test it packaging::` and commit it",
        path.display()
    );
}

const COMPLETIONS: &[(&str, &str)] =
    &[("bash", "glovebox.bash"), ("zsh", "_glovebox"), ("fish", "glovebox.fish")];

#[test]
fn the_shipped_completions_are_generated_from_the_command_line() {
    for (shell, file) in COMPLETIONS {
        in_sync(&dist().join("completions").join(file), &glovebox(&["completions", shell]));
    }
}

#[test]
fn the_bash_completion_parses_and_completes_subcommands() {
    let script = dist().join("completions/glovebox.bash");
    let check = format!(
        "source {}; COMP_WORDS=(glovebox mcp-c); COMP_CWORD=1; _glovebox glovebox mcp-c glovebox; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = Command::new("bash").args(["--norc", "-c", &check]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "mcp-config");
}

#[test]
fn the_shipped_man_pages_are_generated_from_the_command_line() {
    let generated = tempdir("man");
    glovebox(&["man", "--dir", generated.to_str().unwrap()]);
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let shipped = dist().join("man");
    if writing() {
        let _ = std::fs::remove_dir_all(&shipped);
    }
    let pages = names(&generated);
    assert!(
        pages.contains(&"glovebox.1".to_owned())
            && pages.contains(&"glovebox-mcp-config.1".to_owned()),
        "{pages:?}"
    );
    for page in &pages {
        in_sync(&shipped.join(page), &std::fs::read(generated.join(page)).unwrap());
    }
    assert_eq!(names(&shipped), pages, "dist/man holds a page no command has any more");
    std::fs::remove_dir_all(&generated).unwrap();
}

#[test]
fn the_main_man_page_renders_with_every_command() {
    // `-k`: through preconv, as man-db renders pages (the help text is UTF-8).
    let out = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww"])
        .arg(dist().join("man/glovebox.1"))
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "groff: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout)
        .replace(|c: char| !c.is_ascii_graphic() && c != ' ' && c != '\n', "");
    for command in ["windows", "observe", "mcp-config", "doctor", "sandbox", "completions"] {
        assert!(
            text.contains(&format!("glovebox-{command}(1)")),
            "glovebox.1 does not point at glovebox-{command}(1)"
        );
    }
}

/// The `[package.metadata.deb]` field `key` of this crate's manifest.
fn deb_field(key: &str) -> String {
    let manifest: toml::Table =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
    manifest["package"]["metadata"]["deb"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in [package.metadata.deb]"))
        .to_owned()
}

#[test]
fn the_package_depends_on_what_the_doctor_needs_and_recommends_the_rest() {
    let needed: Vec<&str> =
        RUNTIME_PACKAGES.iter().filter(|p| !p.recommended).map(|p| p.package).collect();
    let wanted: Vec<&str> =
        RUNTIME_PACKAGES.iter().filter(|p| p.recommended).map(|p| p.package).collect();
    // `$auto`: the shared libraries the binary links, found by dpkg-shlibdeps.
    assert_eq!(deb_field("depends"), format!("$auto, {}", needed.join(", ")));
    assert_eq!(deb_field("recommends"), wanted.join(", "));
}

fn tempdir(label: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-packaging-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
