//! glovebox.exe, built here for Windows (`.ci/windows-build`), run under
//! Wine 10 on a private X11 desktop and driven through the official MCP
//! Python SDK's `Client` in its default mode, with a user who accepts every
//! approval. The windows it acts in are Win32 programs glovebox did not
//! draw: the mingw form fixture (`testapps/windows/fixture.c`), which
//! writes its own state to a file, and Wine's notepad in front of it.
//!
//! Oracles outside glovebox: the fixture's state file (the name it holds,
//! the name it had when Submit was pressed, the box ticked, the colour
//! chosen, the password's length), and the probe (`testapps/windows/probe.c`):
//! the foreground window, the same before and after; and the X server's
//! pointer, unmoved.
//!
//! What this proves is what Wine implements (docs/windows.md): window
//! listing, the pixels of a visible window, standard controls and MSAA,
//! window messages. UI Automation's children and patterns and the pixels
//! of covered windows are not implemented by Wine 10 and are not claimed.
#![cfg(target_os = "linux")]

mod matrix;

use glovebox_sandbox::{Sandbox, SandboxOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = "/var/cache/glovebox/trixie-rust";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Wine's own start is slow (a prefix is made in about 10 s here).
fn wait_for<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Held by a test while its Wine runs: two glovebox.exe servers under Wine
/// at once, beside the other tests' load, once ended in a panic inside the
/// MCP runtime (noted in docs/windows.md; not yet understood), so the Wine
/// tests take turns.
static WINE_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This test's turn at Wine.
fn wine_turn() -> std::sync::MutexGuard<'static, ()> {
    WINE_TURN.lock().unwrap_or_else(|p| p.into_inner())
}

/// A Wine prefix of this test's own, on the sandbox's display, its
/// programs' processes ended with it.
struct Wine {
    dir: PathBuf,
    display: String,
    children: Vec<Child>,
}

impl Wine {
    fn start(sandbox: &Sandbox) -> Wine {
        // One prefix per test: the tests of this binary run at once, and two
        // sharing one would share a wineserver and glovebox's grant lock.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("glovebox-wine-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["prefix", "tmp", "files"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let wine = Wine { dir, display: sandbox.display().to_owned(), children: vec![] };
        let out = wine.command(&["wineboot", "--init"]).output().unwrap();
        assert!(out.status.success(), "wineboot: {}", String::from_utf8_lossy(&out.stderr));
        wine
    }

    /// `args` run inside the Debian 13 root with this prefix: the built
    /// programs under `/target`, this test's files under `/files` (`Z:\files`).
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("bwrap");
        let bind = |c: &mut Command, from: &Path, to: &str| {
            c.arg("--bind").arg(from).arg(to);
        };
        command.args(["--bind", ROOT, "/", "--dev", "/dev", "--proc", "/proc"]);
        bind(&mut command, &self.dir.join("tmp"), "/tmp");
        command.args(["--bind", "/tmp/.X11-unix", "/tmp/.X11-unix"]);
        bind(&mut command, &repo().join("target/windows"), "/target");
        bind(&mut command, &self.dir.join("prefix"), "/prefix");
        bind(&mut command, &self.dir.join("files"), "/files");
        command.args(["--chdir", "/files", "--die-with-parent", "env", "-i"]);
        command.args([
            "PATH=/usr/bin:/bin",
            "HOME=/prefix",
            "WINEPREFIX=/prefix/wine",
            "WINEDEBUG=-all",
            "WINEDLLOVERRIDES=mscoree,mshtml=",
            // The default approval mode: looking allowed, input asks.
            "GLOVEBOX_ENABLED=true",
        ]);
        command.arg(format!("DISPLAY={}", self.display));
        command.args(args);
        command
    }

    /// Starts a Win32 program, kept until the end of the test.
    fn spawn(&mut self, args: &[&str]) {
        let mut all = vec!["wine"];
        all.extend_from_slice(args);
        let child = self.command(&all).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        self.children.push(child);
    }

    /// The probe's report: the foreground window's title and the pointer.
    fn probe(&self) -> Value {
        let out = self.command(&["wine", "/target/probe.exe"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(text.lines().last().unwrap_or_default())
            .unwrap_or_else(|e| panic!("probe: {e}: {text}"))
    }

    /// The fixture's own state file, as `key=value` lines.
    fn state(&self) -> Option<std::collections::BTreeMap<String, String>> {
        let text = std::fs::read_to_string(self.dir.join("files/state.txt")).ok()?;
        Some(
            text.lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        )
    }
}

impl Drop for Wine {
    fn drop(&mut self) {
        let _ = self.command(&["wineserver", "-k"]).status();
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// glovebox.exe and the Win32 programs, built (or found current) by `.ci/windows-build`.
fn build() {
    let out = Command::new("bash").arg(repo().join(".ci/windows-build")).output().unwrap();
    assert!(
        out.status.success(),
        "glovebox.exe did not build:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The pixel at `(x, y)` of a base64 PNG.
fn pixel(png_base64: &str, x: u32, y: u32) -> [u8; 3] {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD.decode(png_base64).unwrap();
    glovebox_platform::RgbImage::decode_png(&bytes).unwrap().pixel(x, y)
}

#[test]
fn glovebox_exe_under_wine_fills_a_win32_form_in_the_background_through_the_python_sdk() {
    build();
    let _turn = wine_turn();
    let sandbox = Sandbox::start(SandboxOptions::default()).unwrap();
    let mut wine = Wine::start(&sandbox);
    wine.spawn(&["/target/fixture.exe", "Z:\\files\\state.txt"]);
    wait_for("the fixture's first state", Duration::from_secs(30), || wine.state());
    // Notepad in front, as the person's own window: it must stay there.
    wine.spawn(&["notepad"]);
    wait_for("notepad in front", Duration::from_secs(30), || {
        (wine.probe()["foreground"] == "Untitled - Notepad").then_some(())
    });
    // The X server's own pointer (Wine's answers 0,0 until it first hears of it).
    let pointer = sandbox.pointer().unwrap();

    let server: Vec<String> = {
        let command = wine.command(&["wine", "/target/glovebox.exe", "mcp"]);
        std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    };
    let out = Command::new(glovebox_testkit::sdk::python())
        .arg(repo().join("testapps/sdk_mcp_wine.py"))
        .args(["glovebox fixture", "Ada Lovelace"])
        .args(&server)
        .output()
        .unwrap();
    let report = glovebox_testkit::sdk::report_of(&out);

    // Listed with the fixture's own pid.
    let listed = report["listed"].as_str().unwrap();
    assert!(listed.contains("fixture.exe") && listed.contains("glovebox fixture"), "{listed}");
    // The controls named as the form labels them, read through the controls and MSAA.
    let tree = report["tree"].as_str().unwrap();
    for line in [
        "entry \"Name\"",
        "password text \"Password\"",
        "check box \"Subscribe\"",
        "list \"Colour\"",
        "push button \"Submit\"",
    ] {
        assert!(tree.contains(line), "{line} missing from:\n{tree}");
    }
    // The window's own pixels: the swatches it painted, where it painted them.
    let png = report["png"].as_str().expect("a screenshot");
    assert_eq!(pixel(png, 360, 35), [255, 0, 0], "the red swatch");
    assert_eq!(pixel(png, 360, 95), [0, 0, 255], "the blue swatch");

    // Every input delivered but the password, which is refused.
    let calls = report["calls"].as_object().unwrap();
    for (step, call) in calls {
        let refused = call["error"] == true;
        assert_eq!(
            refused,
            step.ends_with(":set_value") && step.starts_with("4:"),
            "{step}: {call}"
        );
    }
    let password = &calls["4:set_value"]["text"];
    assert!(password.as_str().unwrap().starts_with("COMPUTER_"), "{password}");
    assert_eq!(
        report["prompts"].as_array().unwrap().len(),
        4,
        "one approval per delivered input: {report}"
    );

    // The fixture's own account of it.
    let state = wait_for("the fixture's state after the input", Duration::from_secs(10), || {
        wine.state().filter(|s| s.get("submitted").map(String::as_str) == Some("1"))
    });
    assert_eq!(state["name"], "Ada Lovelace", "{state:?}");
    assert_eq!(
        state["submitted_name"], "Ada Lovelace",
        "the name was there when Submit was pressed"
    );
    assert_eq!(state["subscribed"], "1", "{state:?}");
    assert_eq!(state["colour"], "Green", "{state:?}");
    assert_eq!(state["password_length"], "0", "nothing reached the password field");
    assert_eq!(state["foreground"], "0", "the fixture was never brought to the front");
    // The person's window still in front, the pointer where it was.
    assert_eq!(wine.probe()["foreground"], "Untitled - Notepad", "the foreground window changed");
    assert_eq!(sandbox.pointer().unwrap(), pointer, "the pointer moved");
}

/// The npm and PyPI layouts of glovebox.exe: `glovebox-mcp-win32-x64`
/// (`os` win32, `cpu` x64, no `libc`) beside the launcher that names it,
/// and the `win_amd64` wheel, each carrying this very executable; both
/// launchers find it where Windows would run them (the platform faked).
#[test]
fn the_windows_packages_carry_glovebox_exe_and_the_launchers_find_it() {
    build();
    let exe = repo().join("target/windows/glovebox.exe");
    let out = std::env::temp_dir().join(format!("glovebox-win-packages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let version = env!("CARGO_PKG_VERSION");
    let run = |command: &mut Command| {
        let done = command.env("GLOVEBOX_VERSION", version).output().unwrap();
        assert!(done.status.success(), "{command:?}: {}", String::from_utf8_lossy(&done.stderr));
        String::from_utf8_lossy(&done.stdout).into_owned()
    };
    let tarballs = run(Command::new(repo().join("packaging/build-npm")).arg(&exe).arg(&out));
    let [platform, main] = &tarballs.lines().collect::<Vec<_>>()[..] else { panic!("{tarballs}") };
    assert!(platform.ends_with(&format!("glovebox-mcp-win32-x64-{version}.tgz")), "{platform}");
    let unpacked = out.join("npm");
    std::fs::create_dir_all(unpacked.join("node_modules/glovebox-mcp-win32-x64")).unwrap();
    std::fs::create_dir_all(unpacked.join("node_modules/glovebox-mcp")).unwrap();
    for (tarball, into) in [(platform, "glovebox-mcp-win32-x64"), (main, "glovebox-mcp")] {
        run(Command::new("tar")
            .args(["-xzf", tarball, "--strip-components=1", "-C"])
            .arg(unpacked.join("node_modules").join(into)));
    }
    let package: Value = serde_json::from_str(
        &std::fs::read_to_string(unpacked.join("node_modules/glovebox-mcp-win32-x64/package.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (&package["os"], &package["cpu"]),
        (&serde_json::json!(["win32"]), &serde_json::json!(["x64"]))
    );
    assert!(package.get("libc").is_none(), "{package}");
    let carried =
        std::fs::read(unpacked.join("node_modules/glovebox-mcp-win32-x64/bin/glovebox.exe"))
            .unwrap();
    assert!(
        carried == std::fs::read(&exe).unwrap(),
        "the npm package carries another glovebox.exe"
    );
    let launcher: Value = serde_json::from_str(
        &std::fs::read_to_string(unpacked.join("node_modules/glovebox-mcp/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(launcher["optionalDependencies"]["glovebox-mcp-win32-x64"], version);
    // The launcher as Windows would run it: it resolves the package's
    // glovebox.exe (which cannot start here, and says so with its path).
    let script = "Object.defineProperty(process, 'platform', {value: 'win32'}); \
                  Object.defineProperty(process, 'arch', {value: 'x64'}); \
                  require('./node_modules/glovebox-mcp/bin/glovebox-mcp.js');";
    let started =
        Command::new("node").args(["-e", script]).current_dir(&unpacked).output().unwrap();
    let said = String::from_utf8_lossy(&started.stderr);
    assert!(said.contains("glovebox-mcp-win32-x64/bin/glovebox.exe"), "{said}");

    let wheel = run(Command::new(repo().join("packaging/build-wheel"))
        .arg(&exe)
        .arg(&out)
        .arg(glovebox_testkit::sdk::python()));
    let wheel = wheel.trim();
    assert!(wheel.ends_with(&format!("glovebox_mcp-{version}-py3-none-win_amd64.whl")), "{wheel}");
    // The Python launcher as Windows would run it finds bin/glovebox.exe.
    let check = format!(
        "import platform, zipfile, os, sys, tempfile\n\
         d = tempfile.mkdtemp(); zipfile.ZipFile({wheel:?}).extractall(d)\n\
         exe = os.path.join(d, 'glovebox_mcp', 'bin', 'glovebox.exe'); os.chmod(exe, 0o755)\n\
         assert open(exe, 'rb').read() == open({exe:?}, 'rb').read(), 'another glovebox.exe'\n\
         platform.system = lambda: 'Windows'; platform.machine = lambda: 'AMD64'\n\
         sys.path.insert(0, d); import glovebox_mcp\n\
         path, reason = glovebox_mcp.binary(); print(path, reason)\n",
        exe = exe.display().to_string()
    );
    let found = run(Command::new(glovebox_testkit::sdk::python()).args(["-c", &check]));
    assert!(found.trim().ends_with("glovebox_mcp/bin/glovebox.exe None"), "{found}");
    let _ = std::fs::remove_dir_all(&out);
}
