//! README's main-job commands, run as written: `glovebox sandbox` (X11,
//! and `--wayland`) around `glovebox-mcp-demo`, whose exit status is the
//! fixture's own report of the work (it exits 1 when the report does not
//! show every step the tools claimed).
#![cfg(target_os = "linux")]

use std::process::Command;

fn run_demo(sandbox_args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .arg("sandbox")
        .args(sandbox_args)
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_glovebox-mcp-demo"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("glovebox sandbox");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "the demo failed ({}):\n{text}", output.status);
    assert!(text.contains("verified: every step shows in the application's own state"), "{text}");
    text
}

#[test]
fn the_main_job_runs_in_the_x11_sandbox() {
    let text = run_demo(&[]);
    assert!(text.contains("delivered by at-spi:EditableText.SetTextContents"), "{text}");
}

#[test]
fn the_main_job_runs_in_the_wayland_sandbox() {
    let text = run_demo(&["--wayland"]);
    assert!(text.contains("delivered by at-spi:EditableText.SetTextContents"), "{text}");
}

#[test]
fn the_readme_installs_exactly_the_runtime_packages_the_doctor_checks() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    for line in [
        glovebox_linux::packages::apt_install_line(),
        glovebox_linux::packages::apt_recommends_line(),
    ] {
        assert!(readme.lines().any(|l| l == line), "README.md lacks the line `{line}`");
    }
}
