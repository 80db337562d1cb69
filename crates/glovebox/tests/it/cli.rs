//! The `glovebox` binary end to end in a sandbox desktop: outputs, exit
//! codes, refusal codes, and that a failed screenshot leaves no file.
#![cfg(target_os = "linux")]

use glovebox_platform::RgbImage;
use glovebox_sandbox::fixture::{wait_until, Fixture};
use glovebox_sandbox::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn glovebox(sandbox: &Sandbox, home: &Path) -> Command {
    let mut command = sandbox.command(env!("CARGO_BIN_EXE_glovebox"));
    command
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(home)
        .stdin(Stdio::null())
        .env("GLOVEBOX_ENABLED", "true");
    command
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command) -> (i32, Value, String) {
    let Output { status, stdout, stderr } = command.output().unwrap();
    let json = serde_json::from_slice(&stdout).unwrap_or(Value::Null);
    (status.code().unwrap_or(-1), json, String::from_utf8_lossy(&stderr).into_owned())
}

/// Starts the fixture and returns it with its window id as `glovebox windows` lists it.
fn fixture(sandbox: &Sandbox, home: &Path, title: &str) -> (Fixture, String) {
    let fixture = Fixture::launch(sandbox, title, &[]);
    let id = wait_until("fixture listed", || {
        let (_, page, _) =
            run(glovebox(sandbox, home).args(["windows", "--json", "--query", title]));
        page["windows"]
            .as_array()
            .and_then(|w| w.first())
            .map(|w| w["id"].as_str().unwrap().to_owned())
    });
    assert_eq!(id.split('/').next().unwrap(), fixture.pid().to_string());
    (fixture, id)
}

#[test]
fn screenshot_of_a_window_writes_the_png_and_prints_its_frame() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("window");
    let (_app, id) = fixture(sandbox, &home, "cli-window");
    let (code, record, stderr) =
        run(glovebox(sandbox, &home).args(["screenshot", "--window", &id, "-o", "w.png"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(record["frame"]["subject"]["kind"], "window");
    assert_eq!(record["frame"]["subject"]["window"], id.as_str());
    let image = RgbImage::decode_png(&std::fs::read(home.join("w.png")).unwrap()).unwrap();
    assert_eq!(
        image.width as u64,
        record["frame"]["subject"]["geometry"]["width"].as_u64().unwrap()
    );
    assert_eq!(image.width as u64, record["frame"]["image"]["width"].as_u64().unwrap());

    let (code, record, stderr) = run(glovebox(sandbox, &home).args([
        "screenshot",
        "-o",
        "d.png",
        "--max-width",
        "960",
        "--max-height",
        "960",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(record["frame"]["image"], serde_json::json!({"width": 960, "height": 540}));
    let image = RgbImage::decode_png(&std::fs::read(home.join("d.png")).unwrap()).unwrap();
    assert_eq!((image.width, image.height), (960, 540));
}

#[test]
fn bad_screenshot_input_exits_with_its_code_and_leaves_no_file() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("bad");
    let cases: [(&[&str], i32, &str); 7] = [
        (&["--window", "1/0x7ffffff"], 3, "COMPUTER_TARGET_GONE"),
        (&["--window", "not-an-id"], 2, "COMPUTER_INVALID_ARGUMENT"),
        (&["--window", "/0x5"], 2, "COMPUTER_INVALID_ARGUMENT"),
        (&["--display", "9"], 2, "COMPUTER_INVALID_ARGUMENT"),
        (&["--display", "left"], 2, "COMPUTER_INVALID_ARGUMENT"),
        (&["--max-width", "0"], 2, "COMPUTER_INVALID_ARGUMENT"),
        (&["--max-height", "999999"], 2, "COMPUTER_INVALID_ARGUMENT"),
    ];
    for (args, expected_exit, expected_code) in cases {
        let (code, json, stderr) =
            run(glovebox(sandbox, &home).arg("screenshot").args(args).args(["-o", "out.png"]));
        assert_eq!(code, expected_exit, "{args:?}: {stderr}");
        assert_eq!(json["error"]["code"], expected_code, "{args:?}");
        assert!(stderr.contains(expected_code), "{args:?}: {stderr}");
        assert!(!home.join("out.png").exists(), "{args:?} left a file");
    }
    // The audit trail of the refusals lives under ~/.local/state; nothing else may be left.
    let left: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != ".local")
        .collect();
    assert!(left.is_empty(), "no temporary files either: {left:?}");

    let (app, id) = fixture(sandbox, &home, "cli-minimised");
    app.send(serde_json::json!({"cmd": "minimize"}));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "window never minimised");
        let (code, json, _) =
            run(glovebox(sandbox, &home).args(["screenshot", "--window", &id, "-o", "min.png"]));
        // Minimised while being captured: refused as stale, so try again.
        if json["error"]["code"] == "COMPUTER_STALE_BASIS" {
            assert!(!home.join("min.png").exists());
            continue;
        }
        if code != 0 {
            assert_eq!(
                (code, json["error"]["code"].as_str()),
                (4, Some("COMPUTER_BACKGROUND_UNAVAILABLE"))
            );
            break;
        }
        std::fs::remove_file(home.join("min.png")).unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!home.join("min.png").exists());

    let (code, _, stderr) =
        run(glovebox(sandbox, &home).args(["screenshot", "-o", "missing-dir/out.png"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(!home.join("missing-dir").exists());
}

#[test]
fn without_a_display_every_operation_is_backend_unavailable() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("nodisplay");
    for args in [
        &["windows"][..],
        &["screenshot", "-o", "x.png"],
        &["screenshot", "--window", "1/0x5", "-o", "x.png"],
    ] {
        let (code, _, stderr) = run(glovebox(sandbox, &home).env_remove("DISPLAY").args(args));
        assert_eq!(code, 4, "{args:?}: {stderr}");
        assert!(
            stderr.contains("COMPUTER_BACKEND_UNAVAILABLE") && stderr.contains("DISPLAY"),
            "{stderr}"
        );
    }
    let (code, _, stderr) = run(glovebox(sandbox, &home)
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", "wayland-0")
        .arg("windows"));
    assert_eq!(code, 4);
    assert!(stderr.contains("Wayland"), "{stderr}");
    let (code, report, _) =
        run(glovebox(sandbox, &home).env_remove("DISPLAY").args(["doctor", "--json"]));
    assert_eq!(code, 4);
    assert_eq!(report["session"], "none");
    assert_eq!(report["checks"][0]["status"], "missing");
    assert!(!home.join("x.png").exists());
}

#[test]
fn doctor_finds_everything_in_the_sandbox() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("doctor");
    let (code, report, stderr) = run(glovebox(sandbox, &home).args(["doctor", "--json"]));
    assert_eq!(code, 0, "{stderr} {report:#}");
    assert_eq!(report["session"], "x11");
    let names: Vec<_> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    for expected in [
        "display",
        "XTest",
        "capture",
        "RandR",
        "Composite",
        "Shape",
        "X-Resource",
        "window manager",
        "accessibility bus",
    ] {
        assert!(names.contains(&(expected, "ok")), "{expected} in {names:?}");
    }
    let caps = &report["capabilities"];
    for capability in ["window_listing", "window_capture", "desktop_capture", "accessibility"] {
        assert_eq!(caps[capability]["status"], "available", "{capability}: {caps}");
    }
}

#[test]
fn windows_paging_arguments_are_checked() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("paging");
    let (code, json, _) = run(glovebox(sandbox, &home).args(["windows", "--json", "--page", "0"]));
    assert_eq!((code, json["error"]["code"].as_str()), (2, Some("COMPUTER_INVALID_ARGUMENT")));
    let (code, json, _) =
        run(glovebox(sandbox, &home).args(["windows", "--json", "--page", "500"]));
    assert_eq!((code, json["error"]["code"].as_str()), (2, Some("COMPUTER_INVALID_ARGUMENT")));
    let (code, json, _) = run(glovebox(sandbox, &home).args([
        "windows",
        "--json",
        "--query",
        "no window is called this",
    ]));
    assert_eq!(code, 0);
    assert_eq!(json["total"], 0);
}

#[test]
fn config_set_get_and_refusals() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("config");
    let (code, _, stderr) =
        run(glovebox(sandbox, &home).args(["config", "set", "enabled", "true"]));
    assert_eq!(code, 0, "{stderr}");
    let out = glovebox(sandbox, &home)
        .env_remove("GLOVEBOX_ENABLED")
        .args(["config", "get", "enabled"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("true") && text.contains(".config/glovebox/config.toml"), "{text}");
    let (code, _, stderr) =
        run(glovebox(sandbox, &home).args(["config", "set", "capture.max_width", "0"]));
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = run(glovebox(sandbox, &home).args(["config", "get", "no.such.key"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("known keys"), "{stderr}");
    // The environment layer wins, and a bad value there is refused, not ignored.
    let out = glovebox(sandbox, &home)
        .env("GLOVEBOX_CAPTURE_MAX_WIDTH", "640")
        .args(["config", "get", "capture.max_width"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("640"));
    let (code, _, _) = run(glovebox(sandbox, &home)
        .env("GLOVEBOX_CAPTURE_MAX_WIDTH", "wide")
        .args(["screenshot", "-o", "c.png"]));
    assert_eq!(code, 2);
    assert!(!home.join("c.png").exists());
}

#[test]
fn sandbox_runs_a_command_inside_and_tears_down() {
    let home = scratch("sandbox");
    // The person's configuration turns computer use on; the glovebox run inside keeps it,
    // though the desktop has a configuration directory (XDG_CONFIG_HOME) of its own.
    std::fs::create_dir_all(home.join(".config/glovebox")).unwrap();
    // So do its approval mode and deny list (the glovebox inside prints them, with their file).
    std::fs::write(
        home.join(".config/glovebox/config.toml"),
        "enabled = true\n[approval]\nmode = \"always-ask\"\n[deny]\napps = [\"keep-out-*\"]\n",
    )
    .unwrap();
    // Listing windows asks under always-ask, and no one can answer here: refused as
    // approval required, not as disabled.
    let inside =
        "echo \"$DISPLAY\"; \"$0\" config get approval.mode >&2; \"$0\" config get deny.apps >&2; \
                  \"$0\" windows --json >/dev/null; exit 7";
    let out = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(["sandbox", "--", "sh", "-c", inside, env!("CARGO_BIN_EXE_glovebox")])
        .current_dir(&home)
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("GLOVEBOX_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{said}");
    assert!(
        said.contains("COMPUTER_APPROVAL_REQUIRED") && !said.contains("COMPUTER_DISABLED"),
        "{said}"
    );
    let file = home.join(".config/glovebox/config.toml");
    for value in ["always-ask", "keep-out-*"] {
        assert!(
            said.lines().any(|l| l.contains(value) && l.contains(&file.display().to_string())),
            "the person's {value} did not apply inside: {said}"
        );
    }
    let display = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let number = display.strip_prefix(':').expect("a display was printed");
    let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while socket.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!socket.exists(), "Xvfb of {display} still running");
}

#[test]
fn the_sandbox_shows_its_start_on_a_terminal_and_nothing_in_a_pipe() {
    let home = scratch("sandbox-progress");
    let glovebox = env!("CARGO_BIN_EXE_glovebox");
    let piped = Command::new(glovebox)
        .args(["sandbox", "--", "true"])
        .current_dir(&home)
        .env("HOME", &home)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(piped.status.success(), "{}", String::from_utf8_lossy(&piped.stderr));
    assert_eq!(String::from_utf8_lossy(&piped.stderr), "", "a pipe gets no progress");
    // util-linux's `script` gives the command a terminal and copies what it drew.
    let on_terminal = Command::new("script")
        .args([
            "--quiet",
            "--return",
            "--command",
            &format!("{glovebox} sandbox -- true"),
            "/dev/null",
        ])
        .current_dir(&home)
        .env("HOME", &home)
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(on_terminal.status.success(), "{}", String::from_utf8_lossy(&on_terminal.stderr));
    let drawn = String::from_utf8_lossy(&on_terminal.stdout);
    assert!(
        drawn
            .contains("starting a private desktop (Xvfb, session bus, accessibility bus, openbox)"),
        "{drawn:?}"
    );
}

#[test]
fn inspect_prints_the_tree_as_text_or_json_and_refuses_bad_input() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("inspect");
    let (_app, id) = fixture(sandbox, &home, "cli-inspect");
    let text = wait_until("a full tree", || {
        let out = glovebox(sandbox, &home).args(["inspect", "--window", &id]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.success() && text.contains("fidelity full")).then_some(text)
    });
    assert!(text.contains("push button \"Submit\""), "{text}");
    let (code, tree, stderr) =
        run(glovebox(sandbox, &home).args(["inspect", "--json", "--window", &id]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(tree["window"], id.as_str());
    assert_eq!(tree["root"]["role"], "frame");

    let (code, tree, _) = run(glovebox(sandbox, &home).args([
        "inspect",
        "--json",
        "--max-nodes",
        "5",
        "--window",
        &id,
    ]));
    assert_eq!((code, tree["node_count"].as_u64()), (0, Some(5)));
    assert_eq!(tree["truncated"]["by"]["budget"], "nodes");

    for (args, exit, code) in [
        (vec!["--max-nodes", "0"], 2, "COMPUTER_INVALID_ARGUMENT"),
        (vec!["--deadline-ms", "0"], 2, "COMPUTER_INVALID_ARGUMENT"),
    ] {
        let (status, json, stderr) =
            run(glovebox(sandbox, &home).args(["inspect", "--json", "--window", &id]).args(&args));
        assert_eq!(
            (status, json["error"]["code"].as_str()),
            (exit, Some(code)),
            "{args:?} {stderr}"
        );
    }
    let (status, json, _) =
        run(glovebox(sandbox, &home).args(["inspect", "--json", "--window", "1/0x7ffffff"]));
    assert_eq!((status, json["error"]["code"].as_str()), (3, Some("COMPUTER_TARGET_GONE")));

    // No accessibility bus: declared as fidelity none with the reason, not an empty tree.
    let (status, tree, stderr) = run(glovebox(sandbox, &home)
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/glovebox-test-bus")
        .args(["inspect", "--json", "--window", &id]));
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(tree["fidelity"]["level"], "none");
    assert!(tree["fidelity"]["reason"].as_str().unwrap().contains("accessibility bus unavailable"));
    assert!(tree.get("root").is_none());
    let (status, report, _) = run(glovebox(sandbox, &home)
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
        .args(["doctor", "--json"]));
    assert_eq!(status, 4);
    let a11y = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "accessibility bus")
        .unwrap()
        .clone();
    assert_eq!(a11y["status"], "missing");
}

#[test]
fn schemas_are_published_for_every_output() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("schema");
    for output in ["window-page", "frame", "accessibility-tree", "error"] {
        let (code, schema, stderr) = run(glovebox(sandbox, &home).args(["schema", output]));
        assert_eq!(code, 0, "{stderr}");
        assert!(
            schema["properties"].is_object() || schema["oneOf"].is_array(),
            "{output}: {schema}"
        );
    }
}

#[test]
fn screenshot_and_inspect_refuse_denied_windows() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("denied");
    let fixture = Fixture::launch(sandbox, "cli-keepass", &["--wm-class", "KeePassXC"]);
    let id = wait_until("listed", || {
        let (_, page, _) =
            run(glovebox(sandbox, &home).args(["windows", "--json", "--query", "cli-keepass"]));
        page["windows"]
            .as_array()
            .and_then(|w| w.first())
            .map(|w| w["id"].as_str().unwrap().to_owned())
    });
    let (code, json, _) =
        run(glovebox(sandbox, &home).args(["screenshot", "--window", &id, "-o", "k.png"]));
    assert_eq!((code, json["error"]["code"].as_str()), (5, Some("COMPUTER_TARGET_DENYLISTED")));
    assert!(!home.join("k.png").exists());
    let (code, json, _) =
        run(glovebox(sandbox, &home).args(["inspect", "--json", "--window", &id]));
    assert_eq!((code, json["error"]["code"].as_str()), (5, Some("COMPUTER_TARGET_DENYLISTED")));
    drop(fixture);
}

#[test]
fn sandbox_simulates_two_displays() {
    let home = scratch("monitors");
    let out = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args([
            "sandbox",
            "--width",
            "2560",
            "--height",
            "1080",
            "--monitor",
            "1280x1024+0+0",
            "--monitor",
            "1280x800+1280+0",
            "--",
        ])
        .args([env!("CARGO_BIN_EXE_glovebox"), "screenshot", "-o", "two.png"])
        .current_dir(&home)
        .env("HOME", &home)
        .env("GLOVEBOX_ENABLED", "true")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    let displays = record["frame"]["subject"]["displays"].as_array().unwrap();
    assert_eq!(displays.len(), 2);
    assert_eq!(
        displays[1]["logical"],
        serde_json::json!({"x": 1280, "y": 0, "width": 1280, "height": 800})
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(["sandbox", "--monitor", "wide", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("COMPUTER_INVALID_ARGUMENT"));
}

#[test]
fn every_read_refuses_while_computer_use_is_off() {
    let sandbox = Sandbox::shared(module_path!());
    let home = scratch("disabled");
    let (_fixture, id) = fixture(sandbox, &home, "cli-disabled");
    for args in [
        &["windows", "--json"][..],
        &["screenshot", "--window", &id, "-o", "off.png"],
        &["inspect", "--json", "--window", &id],
        &["observe", "--json"],
    ] {
        let (code, json, stderr) =
            run(glovebox(sandbox, &home).env("GLOVEBOX_ENABLED", "false").args(args));
        assert_eq!(
            (code, json["error"]["code"].as_str()),
            (5, Some("COMPUTER_DISABLED")),
            "{args:?}: {stderr}"
        );
    }
    assert!(!home.join("off.png").exists());
}

/// Colours no fixture or sandbox pixel has: the fixture's swatches and
/// window backgrounds are other colours.
const DENIED_COVER: [u8; 3] = [0xd1, 0x2b, 0xe7];
const PLAIN_COVER: [u8; 3] = [0x17, 0xc9, 0x5a];

fn png_colours(
    path: &Path,
    within: Option<(i64, i64, i64, i64)>,
) -> std::collections::HashSet<[u8; 3]> {
    let image = RgbImage::decode_png(&std::fs::read(path).unwrap()).unwrap();
    let (x0, y0, w, h) = within.unwrap_or((0, 0, image.width as i64, image.height as i64));
    let mut out = std::collections::HashSet::new();
    for y in y0.max(0)..(y0 + h).min(image.height as i64) {
        for x in x0.max(0)..(x0 + w).min(image.width as i64) {
            out.insert(image.pixel(x as u32, y as u32));
        }
    }
    out
}

#[test]
fn a_window_screenshot_shows_its_own_pixels_under_the_windows_lying_over_it_never_theirs() {
    // A desktop of its own: no other test's window may land between the covers and the bound window.
    let private = Sandbox::start(glovebox_sandbox::SandboxOptions::default()).unwrap();
    let sandbox = &private;
    let home = scratch("occluded");
    let (bound, id) = fixture(sandbox, &home, "cli-occluded-bound");
    bound.send(serde_json::json!({"cmd": "move", "x": 40, "y": 40}));
    std::thread::sleep(Duration::from_millis(500));
    // The window as it looks uncovered, to hold the covered picture against.
    let (code, _, stderr) =
        run(glovebox(sandbox, &home).args(["screenshot", "--window", &id, "-o", "uncovered.png"]));
    assert_eq!(code, 0, "{stderr}");
    let fill = |c: [u8; 3]| format!("{},{},{}", c[0], c[1], c[2]);
    // A deny-listed window and an ordinary one, each one flat colour, over parts of the bound window.
    let denied = Fixture::launch(
        sandbox,
        "cli-occluder-denied",
        &[
            "--wm-class",
            "KeePassXC",
            "--fill",
            &fill(DENIED_COVER),
            "--x",
            "140",
            "--y",
            "140",
            "--width",
            "200",
            "--height",
            "200",
        ],
    );
    let plain = Fixture::launch(
        sandbox,
        "cli-occluder-plain",
        &[
            "--fill",
            &fill(PLAIN_COVER),
            "--x",
            "300",
            "--y",
            "420",
            "--width",
            "300",
            "--height",
            "200",
        ],
    );
    let _ = (denied.state(), plain.state());
    std::thread::sleep(Duration::from_millis(800));
    let (code, record, stderr) =
        run(glovebox(sandbox, &home).args(["screenshot", "--window", &id, "-o", "bound.png"]));
    assert_eq!(code, 0, "{stderr}");
    let g = &record["frame"]["subject"]["geometry"];
    let rect = (
        g["x"].as_i64().unwrap(),
        g["y"].as_i64().unwrap(),
        g["width"].as_i64().unwrap(),
        g["height"].as_i64().unwrap(),
    );
    // The outside oracle: ImageMagick reading the root sees both covers over the bound window.
    let root = home.join("root.png");
    assert!(sandbox
        .command("import")
        .args(["-window", "root", root.to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let on_screen = png_colours(&root, Some(rect));
    assert!(
        on_screen.contains(&DENIED_COVER) && on_screen.contains(&PLAIN_COVER),
        "the covers really lie over the bound window"
    );
    let shot = png_colours(&home.join("bound.png"), None);
    assert!(
        !shot.contains(&DENIED_COVER),
        "the deny-listed cover reached the bound window's screenshot"
    );
    assert!(!shot.contains(&PLAIN_COVER), "another window reached the bound window's screenshot");
    assert!(shot.len() > 8, "the bound window's own pixels are there");
    // Read from the window's own pixmap: nothing black, the picture as it was uncovered.
    let occluded = record["frame"]["occluded"].as_array();
    assert!(occluded.is_none_or(Vec::is_empty), "{record}");
    let read = |name: &str| RgbImage::decode_png(&std::fs::read(home.join(name)).unwrap()).unwrap();
    let (covered, uncovered) = (read("bound.png"), read("uncovered.png"));
    assert_eq!(covered.size(), uncovered.size());
    let differing = covered
        .data
        .chunks_exact(3)
        .zip(uncovered.data.chunks_exact(3))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 24))
        .count();
    // Focus moved to the covers: the focused field's ring and caret may differ, nothing more.
    let share = differing as f64 / (covered.width * covered.height) as f64;
    assert!(
        share < 0.03,
        "{:.1}% of the covered picture differs from the uncovered one",
        share * 100.0
    );
    // The desktop image blacks the deny-listed window out and shows the ordinary one.
    let (code, _, stderr) = run(glovebox(sandbox, &home).args(["screenshot", "-o", "desk.png"]));
    assert_eq!(code, 0, "{stderr}");
    let desk = png_colours(&home.join("desk.png"), None);
    assert!(!desk.contains(&DENIED_COVER), "the deny-listed window shows in the desktop image");
    assert!(desk.contains(&PLAIN_COVER), "an allowed window shows in the desktop image");
    drop((denied, plain, bound));
    private.shutdown();
}

#[test]
fn reads_refuse_secure_input_while_a_password_field_has_focus() {
    // A desktop of its own: no other test's window may take the focus meanwhile.
    let private = Sandbox::start(glovebox_sandbox::SandboxOptions::default()).unwrap();
    let sandbox = &private;
    let home = scratch("secure");
    let (fixture, id) = fixture(sandbox, &home, "cli-secure");
    fixture
        .send(serde_json::json!({"cmd": "set", "widget": "password", "value": "hunter2-secret"}));
    fixture.send(serde_json::json!({"cmd": "focus", "widget": "password"}));
    fixture.wait_state("password focused", |s| s["focus"] == "password");
    std::thread::sleep(Duration::from_millis(300));
    for args in [
        &["screenshot", "--window", &id, "-o", "pw.png"][..],
        &["inspect", "--json", "--window", &id],
        &["observe", "--json", "--window", &id],
    ] {
        let (code, json, stderr) = run(glovebox(sandbox, &home).args(args));
        assert_eq!(
            json["error"]["code"].as_str(),
            Some("COMPUTER_SECURE_INPUT"),
            "{args:?}: {code} {json} {stderr}"
        );
        assert!(!stderr.contains("hunter2") && !json.to_string().contains("hunter2"));
    }
    assert!(!home.join("pw.png").exists());
    fixture.send(serde_json::json!({"cmd": "focus", "widget": "name"}));
    fixture.wait_state("name focused", |s| s["focus"] == "name");
    std::thread::sleep(Duration::from_millis(300));
    let (code, _, stderr) =
        run(glovebox(sandbox, &home).args(["screenshot", "--window", &id, "-o", "pw.png"]));
    assert_eq!(code, 0, "works again once focus leaves the field: {stderr}");
    let (code, json, stderr) =
        run(glovebox(sandbox, &home).args(["inspect", "--json", "--window", &id]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!json.to_string().contains("hunter2"), "the field's value appears nowhere");
    drop(fixture);
    private.shutdown();
}

#[test]
fn a_users_guidance_file_adds_notes_to_an_observation_and_a_broken_one_is_named_by_doctor() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let home = scratch("guidance");
    let title = glovebox_sandbox::fixture::unique_title("Guidance");
    let (_fixture, id) = fixture(sandbox, &home, &title);
    let (_, page, _) = run(glovebox(sandbox, &home).args(["windows", "--json", "--query", &title]));
    let app = page["windows"][0]["app"].as_str().unwrap().to_owned();
    let dir = home.join(".config/glovebox/guidance");
    std::fs::create_dir_all(&dir).unwrap();
    let note = "Submit sends the form; the Name field takes set_value.";
    // The fixture is a Python program: its window's app name is its own claim, its executable
    // the interpreter's file name. An entry for the name alone (the executable `app`
    // lower-cased) is not for it; one naming the interpreter is.
    let pid = id.split('/').next().unwrap();
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
    let exe = exe.file_name().unwrap().to_str().unwrap().to_owned();
    let entry = |executables: &str| {
        format!("[[app]]\napp = {:?}\n{executables}notes = [{note:?}]\n", app.to_uppercase())
    };
    std::fs::write(dir.join("mine.toml"), entry("")).unwrap();
    let (code, json, said) =
        run(glovebox(sandbox, &home).args(["observe", "--json", "--window", &id]));
    assert_eq!(code, 0, "{said}");
    assert!(json["tree"]["guidance"].is_null(), "a name claimed by {exe} is not enough: {json}");
    std::fs::write(dir.join("mine.toml"), entry(&format!("executables = [{exe:?}]\n"))).unwrap();
    std::fs::write(dir.join("broken.toml"), "[[app]\napp = ").unwrap();

    let text = String::from_utf8(
        glovebox(sandbox, &home).args(["observe", "--window", &id]).output().unwrap().stdout,
    )
    .unwrap();
    let header = format!("glovebox guidance for {} (glovebox's notes, ", app.to_uppercase());
    let at = text.find(&header).unwrap_or_else(|| panic!("no guidance in:\n{text}"));
    assert!(text[at..].contains(&format!("  - {note}")), "{text}");
    assert!(text[at..].contains("mine.toml"), "the note says whose it is: {text}");
    let (code, json, said) =
        run(glovebox(sandbox, &home).args(["observe", "--json", "--window", &id]));
    assert_eq!(code, 0, "{said}");
    assert_eq!(json["tree"]["guidance"]["notes"][0], note, "{json}");

    // The broken file is named by the doctor, with the rest still loaded.
    let doctor = glovebox(sandbox, &home).arg("doctor").output().unwrap();
    let report = String::from_utf8_lossy(&doctor.stdout);
    let line = report.lines().find(|l| l.contains("guidance")).unwrap_or_default();
    assert!(line.starts_with("[warn]") && line.contains("broken.toml"), "{report}");
    assert!(line.contains("1 of yours"), "{line}");
    std::fs::remove_dir_all(&home).unwrap();
}
