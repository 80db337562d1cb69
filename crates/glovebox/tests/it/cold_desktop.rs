//! A desktop as a person has it: accessibility left as the bus starts it
//! (`org.a11y.Status.IsEnabled` off), programs started by plain commands
//! with no accessibility variable or switch. Programs started before
//! glovebox (Chromium, a Tk program, xterm) are named with why they have no
//! tree and the one fix, by `inspect` and by the doctor; `glovebox
//! setup accessibility` makes browsers started later expose their pages,
//! and `--undo` puts every value back. Oracles outside glovebox: pyatspi
//! on the desktop's bus, the files and the GSettings value themselves, the
//! accessibility bus's own properties and the process table (no screen
//! reader ever runs).

use glovebox_sandbox::fixture::{unique_title, wait_until};
use glovebox_sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-cold-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `program` on the desktop with a home of its own. The desktop's
/// configuration directory and runtime directory stay: GNOME's settings
/// service, started by the desktop's bus, reads and writes there, and a
/// client must look where it writes.
fn in_home(sandbox: &Sandbox, home: &Path, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = sandbox.command(program);
    command
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .current_dir(home)
        .stdin(Stdio::null());
    command
}

fn glovebox(sandbox: &Sandbox, home: &Path) -> Command {
    let mut command = in_home(sandbox, home, env!("CARGO_BIN_EXE_glovebox"));
    command.env("GLOVEBOX_ENABLED", "true");
    command
}

fn run(mut command: Command) -> Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}\n{}",
        command,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A local page with a labelled field and a button, as a file.
fn page(dir: &Path, title: &str) -> String {
    let path = dir.join("page.html");
    std::fs::write(&path, format!("<!doctype html><html><head><title>{title}</title></head><body><label for=n>Name</label><input id=n><button>Send</button></body></html>")).unwrap();
    format!("file://{}", path.display())
}

/// The role names of every accessible of process `pid`, read by pyatspi on
/// the desktop's bus (empty when it registered nothing).
fn roles_of(sandbox: &Sandbox, pid: u32) -> Vec<String> {
    let script = r#"
import pyatspi, sys
pid = int(sys.argv[1])
def roles(acc, out, depth=0):
    if depth > 60 or len(out) > 5000: return out
    try: out.append(acc.getRoleName())
    except Exception: return out
    for child in acc: roles(child, out, depth + 1)
    return out
for app in pyatspi.Registry.getDesktop(0):
    try:
        if app.get_process_id() != pid: continue
    except Exception: continue
    print('\n'.join(roles(app, [])))
"#;
    let out = glovebox_testkit::pyatspi(sandbox, script, pid);
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

/// A property of `org.a11y.Status` (`IsEnabled`, `ScreenReaderEnabled`) as the bus says it.
fn status(sandbox: &Sandbox, property: &str) -> bool {
    let out = sandbox
        .command("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.a11y.Bus",
            "/org/a11y/bus",
            "org.freedesktop.DBus.Properties.Get",
            "string:org.a11y.Status",
            &format!("string:{property}"),
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("boolean"), "{property}: {said}{}", String::from_utf8_lossy(&out.stderr));
    said.contains("boolean true")
}

/// No screen reader runs anywhere on this machine.
fn assert_no_screen_reader() {
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        assert_ne!(comm.trim(), "orca", "a screen reader runs: pid {:?}", entry.file_name());
    }
}

/// GNOME's switch, as `gsettings` reads it on this desktop.
fn toolkit_accessibility(sandbox: &Sandbox, home: &Path) -> String {
    let out = run({
        let mut c = in_home(sandbox, home, "gsettings");
        c.args(["get", "org.gnome.desktop.interface", "toolkit-accessibility"]);
        c
    });
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Chromium started from `words` (a launcher's command line) as a person
/// would, with a profile of its own; as root it needs `--no-sandbox`,
/// which is no accessibility switch.
fn chromium(sandbox: &Sandbox, home: &Path, words: &[String], url: &str) -> Child {
    let mut command = in_home(sandbox, home, &words[0]);
    command.args(&words[1..]).args([
        &format!("--user-data-dir={}", home.join("chromium-profile").display()),
        "--no-first-run",
        "--disable-gpu",
    ]);
    if std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0 {
        command.arg("--no-sandbox");
    }
    command.arg(url).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("chromium")
}

/// The id (`pid/0xXID`) of the one window whose title contains `title`.
fn window_id(sandbox: &Sandbox, home: &Path, title: &str) -> String {
    wait_until(&format!("a window titled {title}"), || {
        let out =
            glovebox(sandbox, home).args(["windows", "--json", "--query", title]).output().ok()?;
        let page: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        page["windows"].as_array()?.first()?["id"].as_str().map(str::to_owned)
    })
}

fn inspect(sandbox: &Sandbox, home: &Path, id: &str) -> String {
    let out = run({
        let mut c = glovebox(sandbox, home);
        c.args(["inspect", "--window", id]);
        c
    });
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn programs_started_before_glovebox_are_named_with_why_they_have_no_tree_and_the_fix() {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = glovebox_testkit::cold_desktop();
    let home = scratch("before");
    assert!(!status(&sandbox, "IsEnabled"), "a cold desktop starts with IsEnabled off");

    // The person's browser and a Tk program, started before any agent.
    let title = unique_title("cold page");
    let url = page(&home, &title);
    let mut browser = chromium(&sandbox, &home, &["chromium".into()], &url);
    let tk_title = unique_title("cold tk");
    let script = home.join("form.tcl");
    std::fs::write(&script, format!("wm title . {{{tk_title}}}\nlabel .l -text Name\nentry .e\nbutton .b -text Send\npack .l .e .b\n")).unwrap();
    let mut tk = in_home(&sandbox, &home, "wish").arg(&script).spawn().expect("wish (tk)");
    let xterm_title = unique_title("cold xterm");
    let mut xterm =
        in_home(&sandbox, &home, "xterm").args(["-T", &xterm_title]).spawn().expect("xterm");

    // Chromium registers nothing, or (once glovebox's first look has set
    // IsEnabled) its bare frame: either way the page is missing and said so.
    const CHROMIUM_WHY: &str =
        "Chromium and Electron build a page's tree only when started with it on; quit";
    let page_window = window_id(&sandbox, &home, &title);
    let seen = inspect(&sandbox, &home, &page_window);
    assert!(seen.contains("fidelity none") || seen.contains("fidelity partial"), "{seen}");
    assert!(seen.contains(CHROMIUM_WHY), "{seen}");
    assert!(seen.contains("--force-renderer-accessibility"), "{seen}");
    // What glovebox says matches what another client reads: no page.
    assert!(!roles_of(&sandbox, browser.id()).iter().any(|r| r == "document web"));

    // A second Chromium started now, with IsEnabled on: its frame registers, its page does not.
    let late_title = unique_title("late page");
    let late_home = scratch("late");
    let late_url = page(&late_home, &late_title);
    let mut late = chromium(&sandbox, &late_home, &["chromium".into()], &late_url);
    let late_window = window_id(&sandbox, &home, &late_title);
    let seen = wait_until("the late Chromium's frame on the bus", || {
        let seen = inspect(&sandbox, &home, &late_window);
        seen.contains("fidelity partial").then_some(seen)
    });
    assert!(seen.contains("shows its frame but no page: Chromium and Electron"), "{seen}");
    assert!(!roles_of(&sandbox, late.id()).iter().any(|r| r == "document web"));
    assert!(!roles_of(&sandbox, late.id()).is_empty(), "pyatspi reads its frame");

    let tk_window = window_id(&sandbox, &home, &tk_title);
    let seen = inspect(&sandbox, &home, &tk_window);
    assert!(
        seen.contains("fidelity none")
            && seen.contains("Tk has no AT-SPI support, so only its pixels can be read"),
        "{seen}"
    );
    assert!(roles_of(&sandbox, tk.id()).is_empty(), "Tk registered on the bus");

    let xterm_window = window_id(&sandbox, &home, &xterm_title);
    let seen = inspect(&sandbox, &home, &xterm_window);
    assert!(seen.contains("the X Athena widgets have no AT-SPI support"), "{seen}");

    // The doctor names each, with the same reasons.
    let out = glovebox(&sandbox, &home).args(["doctor", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trees = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "windows' trees")
        .unwrap_or_else(|| panic!("no check of the windows' trees: {report:#}"))
        .clone();
    assert_eq!(trees["status"], "warning", "{trees:#}");
    let detail = trees["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("(pid {}) shows its frame but no page: Chromium", late.id())),
        "{detail}"
    );
    assert!(detail.contains(&format!("(pid {})", browser.id())), "{detail}");
    assert!(
        detail.contains(&format!(
            "(pid {}) exposes no accessibility: Tk has no AT-SPI support",
            tk.id()
        )),
        "{detail}"
    );

    // glovebox switched on what is safe at run time, and never a screen reader.
    assert!(status(&sandbox, "IsEnabled"));
    assert!(!status(&sandbox, "ScreenReaderEnabled"));
    assert_no_screen_reader();
    let _ = (browser.kill(), late.kill(), tk.kill(), xterm.kill());
    let _ = (browser.wait(), late.wait(), tk.wait(), xterm.wait());
}

/// The command line of a desktop entry's main `Exec`, field codes dropped.
fn exec_words(entry: &str) -> Vec<String> {
    let exec = entry.lines().find_map(|l| l.strip_prefix("Exec=")).expect("an Exec line");
    exec.split_whitespace().filter(|w| !w.starts_with('%')).map(str::to_owned).collect()
}

#[test]
fn setup_accessibility_makes_browsers_started_later_expose_their_pages_and_undo_puts_everything_back(
) {
    let _heavy = glovebox_testkit::heavy_turn();
    let sandbox = glovebox_testkit::cold_desktop();
    let home = scratch("setup");
    // The desktop's configuration directory (`XDG_CONFIG_HOME`), as a session's is.
    let config_home = sandbox.runtime_dir().join("config");
    let environment_file = config_home.join("environment.d/60-glovebox-accessibility.conf");
    let chromium_entry = home.join(".local/share/applications/chromium.desktop");
    assert_eq!(toolkit_accessibility(&sandbox, &home), "false");

    // Without a terminal to ask on and without --yes, nothing changes.
    // setsid: a session of its own, so no controlling terminal (as under an agent).
    let asked = in_home(&sandbox, &home, "setsid")
        .args(["-w", env!("CARGO_BIN_EXE_glovebox"), "setup", "accessibility"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    // The setup's own question, unanswered: nothing changed, said without a gate's code.
    assert_eq!(asked.status.code(), Some(5), "{asked:?}");
    let said = String::from_utf8_lossy(&asked.stderr);
    assert!(said.contains("nothing changed") && !said.contains("COMPUTER_"), "{said}");
    let shown = String::from_utf8_lossy(&asked.stdout);
    assert!(shown.contains(&environment_file.display().to_string()), "{shown}");
    assert!(
        shown.contains("set org.gnome.desktop.interface toolkit-accessibility: false → true"),
        "{shown}"
    );
    assert!(!environment_file.exists() && !chromium_entry.exists());
    assert_eq!(toolkit_accessibility(&sandbox, &home), "false");

    let made = run({
        let mut c = glovebox(&sandbox, &home);
        c.args(["setup", "accessibility", "--yes"]);
        c
    });
    assert!(String::from_utf8_lossy(&made.stdout).contains("made 3 change(s)"), "{made:?}");
    let environment = std::fs::read_to_string(&environment_file).unwrap();
    assert!(environment.lines().any(|l| l == "GNOME_ACCESSIBILITY=1"), "{environment}");
    assert_eq!(toolkit_accessibility(&sandbox, &home), "true");

    // Chromium started from its launcher, as the menu would now start it.
    let title = unique_title("later page");
    let url = page(&home, &title);
    let entry = std::fs::read_to_string(&chromium_entry).unwrap();
    let mut browser = chromium(&sandbox, &home, &exec_words(&entry), &url);
    // Firefox started in the environment a new login gives (systemd's own generator reads environment.d).
    let login = run({
        let mut c = Command::new(
            "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator",
        );
        c.env_clear().env("HOME", &home).env("XDG_CONFIG_HOME", &config_home);
        c
    });
    let login: Vec<(String, String)> = String::from_utf8_lossy(&login.stdout)
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())))
        .collect();
    assert!(login.iter().any(|(k, v)| k == "GNOME_ACCESSIBILITY" && v == "1"), "{login:?}");
    let profile = home.join("firefox-profile");
    std::fs::create_dir_all(&profile).unwrap();
    let mut firefox = in_home(&sandbox, &home, "firefox-esr")
        .envs(login)
        .args(["--no-remote", "--new-instance", "--profile"])
        .arg(&profile)
        .arg(&url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("firefox-esr");
    for (name, pid) in [("Chromium", browser.id()), ("Firefox", firefox.id())] {
        // Chromium's launcher script execs it: the pid is the browser's.
        wait_until(&format!("{name}'s page in its tree"), || {
            roles_of(&sandbox, pid).iter().any(|r| r == "document web").then_some(())
        });
    }
    let _ = (browser.kill(), firefox.kill());
    let _ = (browser.wait(), firefox.wait());

    let undone = run({
        let mut c = glovebox(&sandbox, &home);
        c.args(["setup", "accessibility", "--undo", "--yes"]);
        c
    });
    assert!(String::from_utf8_lossy(&undone.stdout).contains("put back 3 value(s)"), "{undone:?}");
    assert!(!environment_file.exists() && !chromium_entry.exists());
    assert_eq!(toolkit_accessibility(&sandbox, &home), "false");
    let again = run({
        let mut c = glovebox(&sandbox, &home);
        c.args(["setup", "accessibility", "--undo", "--yes"]);
        c
    });
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("nothing to undo"), "{again:?}");
    assert!(!status(&sandbox, "ScreenReaderEnabled"));
    assert_no_screen_reader();
}
