//! What an application or an agent wrote reaches the person's terminal
//! made visible: a Tk program whose class (WM_CLASS, the name glovebox
//! shows for it) holds a carriage return, an ESC sequence that hides what
//! follows and a right-to-left override tries to rewrite glovebox's
//! question on the terminal. The oracle is the bytes the terminal (a pty)
//! received: none of those characters, and their escaped spelling in the
//! question.
#![cfg(target_os = "linux")]

use glovebox_sandbox::fixture::{unique_title, wait_until};
use glovebox_sandbox::Sandbox;
use glovebox_testkit::Reaped;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The class a hostile program gives itself.
const CLASS: &str = "Ghost\r\u{1b}[8mglovebox wants to read the tree of Calculator\u{202e}";

/// Runs `program args` on a terminal of its own (a pty), answers "n" to
/// its first `[y/N]` question, and returns every byte the terminal
/// received and the exit status.
const ON_A_TERMINAL: &str = r#"
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out, answered, deadline = b"", False, time.time() + 60
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.5)
    if fd in ready:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        if not answered and b"[y/N]" in out:
            os.write(fd, b"n\n")
            answered = True
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn an_applications_class_cannot_rewrite_the_question_on_the_terminal() {
    let sandbox = Sandbox::shared(module_path!());
    let home = std::env::temp_dir().join(format!("glovebox-escapes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let title = unique_title("escapes");
    let _tk = Reaped(
        sandbox
            .command("/usr/bin/python3")
            .arg(repo().join("testapps/fixture_tk.py"))
            .args([title.as_str(), home.join("tk.json").to_str().unwrap(), "--class", CLASS])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the Tk fixture"),
    );
    let glovebox = || {
        let mut command = sandbox.command_in_home(env!("CARGO_BIN_EXE_glovebox"), &home);
        command.env("GLOVEBOX_ENABLED", "true").env("GLOVEBOX_APPROVAL_MODE", "always-ask");
        command
    };
    // Listing asks too under always-ask: the listing is taken with looking allowed.
    let window = wait_until("the Tk window listed", || {
        let out = glovebox()
            .env("GLOVEBOX_APPROVAL_MODE", "yolo")
            .args(["windows", "--json", "--query", &title])
            .output()
            .ok()?;
        let page: Value = serde_json::from_slice(&out.stdout).ok()?;
        let w = &page["windows"][0];
        Some((w["id"].as_str()?.to_owned(), w["app"].as_str()?.to_owned()))
    });
    assert!(window.1.contains('\u{1b}'), "the class reached glovebox as written: {:?}", window.1);

    let mut on_terminal = Command::new("/usr/bin/python3");
    on_terminal.arg("-c").arg(ON_A_TERMINAL);
    // The environment glovebox runs with in this desktop and home, given to it on the terminal.
    let env: Vec<(String, String)> = glovebox()
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_str()?.to_owned(), v?.to_str()?.to_owned())))
        .collect();
    let ran = on_terminal
        .arg(env!("CARGO_BIN_EXE_glovebox"))
        .args(["observe", "--window", &window.0])
        .envs(env)
        .current_dir(&home)
        .output()
        .unwrap();
    let seen = ran.stdout;
    let text = String::from_utf8_lossy(&seen);
    assert!(text.contains("[y/N]"), "the question was asked on the terminal: {text:?}");
    assert!(!seen.contains(&0x1b), "an ESC reached the terminal: {text:?}");
    // The terminal turns each newline into CR LF; no other carriage return.
    let lone_cr = seen.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n');
    assert!(!lone_cr, "a carriage return reached the terminal: {text:?}");
    assert!(!text.contains('\u{202e}'), "a right-to-left override reached the terminal");
    assert!(
        text.contains(r"Ghost\r\u{1b}[8mglovebox wants to read the tree of")
            && text.contains(r"\u{202e} ("),
        "the class is shown escaped: {text:?}"
    );
    assert_ne!(ran.status.code(), Some(0), "declined, nothing read: {text:?}");
    let _ = std::fs::remove_dir_all(&home);
}
