//! The agent display belongs to this user alone: another local account
//! (`nobody`, uid 65534) can neither list its windows, read its pixels
//! nor type into it — the X server refuses it, with or without the cookie
//! file's path — while this user's own programs reach it as before.

use super::*;
use std::process::{Command, Output};

/// `program args` run as uid and gid 65534 with no supplementary groups,
/// on `display`, pointed at `authority` for a cookie.
fn as_nobody(display: &str, authority: &std::path::Path, program: &str, args: &[&str]) -> Output {
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg("env")
        .arg(format!("DISPLAY={display}"))
        .arg(format!("XAUTHORITY={}", authority.display()))
        .arg(program)
        .args(args)
        .current_dir("/")
        .output()
        .expect("setpriv (util-linux) runs")
}

#[test]
fn another_local_user_cannot_reach_the_agent_display() {
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let (host, desktops) = glovebox_testkit::host(sandbox, "agent-other-user")
        .configure(|c| c.approvals = glovebox_host::Approvals::allow_all())
        .open_with_agent_display();
    let opened = host.open_app("xterm", Desktop::Agent, false).expect("xterm on the agent display");
    let agent = desktops.running_agent().expect("the agent display runs");
    let display = agent.sandbox().display().to_owned();
    let authority = agent.sandbox().runtime_dir().join("xauthority");
    let xid = format!("{:#x}", opened.window.id.handle);

    // This user reaches it, by its cookie and by its uid alone.
    let mine = Command::new("xwininfo")
        .args(["-root", "-tree", "-display", &display])
        .env("XAUTHORITY", "/nonexistent")
        .output()
        .unwrap();
    assert!(mine.status.success(), "{}", String::from_utf8_lossy(&mine.stderr));
    assert!(String::from_utf8_lossy(&mine.stdout).contains(&xid), "the terminal is listed");

    let picture = std::env::temp_dir().join(format!("glovebox-nobody-{}.png", std::process::id()));
    let _ = std::fs::remove_file(&picture);
    // In /tmp, where nobody may write: ImageMagick makes it if it reads the screen.
    for authority in [authority.as_path(), std::path::Path::new("/nonexistent")] {
        for (program, args) in [
            ("xwininfo", vec!["-root", "-tree"]),
            ("xdotool", vec!["search", "--name", "."]),
            ("xdotool", vec!["type", "--window", xid.as_str(), "INJECTED-BY-NOBODY"]),
            ("import", vec!["-window", "root", picture.to_str().unwrap()]),
        ] {
            let out = as_nobody(&display, authority, program, &args);
            let said = String::from_utf8_lossy(&out.stderr).into_owned()
                + &String::from_utf8_lossy(&out.stdout);
            assert!(
                !out.status.success() || said.to_lowercase().contains("can't open display"),
                "{program} {args:?} as nobody (XAUTHORITY={}) reached the agent display: {said}",
                authority.display()
            );
            assert!(
                !said.contains(&xid) && !said.contains(&opened.window.title),
                "{program} as nobody listed the agent's windows: {said}"
            );
        }
    }
    assert!(!picture.exists(), "nobody read the agent display's pixels");
    // The refusal is the X server's own: the connection is turned away for want of an authorization.
    let refused = as_nobody(&display, &authority, "xwininfo", &["-root"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("Authorization required") || said.contains("unable to open display"),
        "{said}"
    );
    // Nothing of the agent's display was handed out: its cookie is this user's file alone.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&authority).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the cookie file is private");
}
