//! `glovebox episode` as an evaluator runs it: the example episodes as one
//! batch, each in its own desktop, judged by the applications' own state
//! (a state file, zenity's output), with nothing left running or on disk;
//! and bad episodes — a spec with an unknown field or no oracle, an app that
//! never shows its window, an agent out of time — each ending for its own
//! reason while the good one beside them passes.
#![cfg(target_os = "linux")]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One batch at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-episodes-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glovebox episode batch DIR --json` in its own corner: its exit status,
/// its document and its session.
fn batch(dir: &Path, out: &Path, parallel: u32, corner: &Corner) -> (Option<i32>, Value, u32) {
    // Under the umask most users have (022), which makes a plainly written file 0644.
    let child = corner
        .command("sh")
        .args(["-c", "umask 022 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_glovebox")])
        .args(["episode", "batch"])
        .arg(dir)
        .args(["--parallel", &parallel.to_string(), "--json", "--out"])
        .arg(out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let session = child.id();
    let output = child.wait_with_output().unwrap();
    let document = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code(), document, session)
}

/// A batch's own corner of the machine, so that what it leaves is told
/// apart from the desktops other suites of this test binary run meanwhile:
/// its temporary directory (where its desktops' runtime directories are
/// made) and its session (a batch started by `setsid`; what it starts stays
/// in that session, or carries the directory in its environment).
struct Corner {
    tmp: PathBuf,
}

impl Corner {
    fn new(name: &str) -> Corner {
        Corner { tmp: scratch(&format!("{name}-tmp")) }
    }

    /// `program` started by `setsid` (which execs it: the child's id is the
    /// session's) with this corner's temporary directory.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new("setsid");
        command.arg(program).env("TMPDIR", &self.tmp);
        command
    }

    /// The sandbox runtime directories left in the corner's temporary
    /// directory, and its desktop processes still running.
    fn leftovers(&self, session: u32) -> (BTreeSet<String>, BTreeSet<u32>) {
        let dirs = std::fs::read_dir(&self.tmp)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with("glovebox-sandbox-"))
            .collect();
        let marker = format!("TMPDIR={}\0", self.tmp.display()).into_bytes();
        let servers = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| matches!(c.trim(), "Xvfb" | "sway" | "zenity" | "openbox"))
            })
            .filter(|pid| {
                // An exited process its parent has not reaped yet runs nothing.
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                    return false;
                };
                let Some((_, rest)) = stat.rsplit_once(") ") else { return false };
                // state, ppid, process group, session
                let fields: Vec<&str> = rest.split(' ').collect();
                let in_session = fields.get(3).and_then(|s| s.parse::<u32>().ok()) == Some(session);
                let marked = std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.windows(marker.len()).any(|w| w == marker));
                !rest.starts_with('Z') && (in_session || marked)
            })
            .collect();
        (dirs, servers)
    }

    /// No runtime directory or desktop process of the batch whose session
    /// was `session` is left; a process the desktop's end signalled may take
    /// a moment to be gone.
    fn nothing_left(&self, session: u32) {
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        let nothing = (BTreeSet::new(), BTreeSet::new());
        while self.leftovers(session) != nothing && Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        let after = self.leftovers(session);
        let described: Vec<String> = after
            .1
            .iter()
            .map(|pid| {
                let read = |f: &str| {
                    std::fs::read_to_string(format!("/proc/{pid}/{f}"))
                        .unwrap_or_default()
                        .replace('\0', " ")
                };
                format!("{pid}: {} | {}", read("stat"), read("cmdline"))
            })
            .collect();
        assert!(after.0.is_empty(), "a runtime directory outlived its episode: {:?}", after.0);
        assert!(described.is_empty(), "processes outlived their episodes: {described:?}");
    }
}

impl Drop for Corner {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

fn record<'a>(document: &'a Value, name: &str) -> &'a Value {
    document["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["episode"] == name)
        .unwrap_or_else(|| panic!("no record of {name}: {document}"))
}

#[test]
fn the_example_episodes_pass_as_a_batch_and_leave_nothing_behind() {
    // Four episodes at once, among them a spreadsheet and a browser.
    let _heavy = glovebox_testkit::heavy_turn();
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let corner = Corner::new("examples");
    let out = scratch("examples");
    let (status, document, session) = batch(&repo().join("examples/episodes"), &out, 4, &corner);
    let episodes = document["episodes"].as_array().unwrap();
    assert!(episodes.len() >= 2, "{document}");
    for record in episodes {
        assert_eq!(record["verdict"], "passed", "{record}");
        assert!(record["checks"].as_array().unwrap().iter().all(|c| c["held"] == true), "{record}");
        // Each ran in its own directory with its own record.
        let dir = out.join(record["episode"].as_str().unwrap());
        let written: Value =
            serde_json::from_slice(&std::fs::read(dir.join("record.json")).unwrap()).unwrap();
        assert_eq!(written["verdict"], "passed");
        // The scripted agent's trajectory report: each step, what the host did with it.
        assert_eq!(
            record["report"].as_str().map(PathBuf::from),
            Some(std::path::absolute(dir.join("report.html")).unwrap()),
            "{record}"
        );
        let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(
            report.contains("<h2>Step 1</h2>") && report.contains("delivered"),
            "{}: {report:.2000}",
            record["episode"]
        );
        assert!(report.contains("scripted (no model)"), "{report:.2000}");
        // The report shows what was typed: readable by this user alone, as is the episode's directory.
        let mode = |p: &Path| {
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
                & 0o777
        };
        assert_eq!(
            (mode(&dir), mode(&dir.join("report.html")), mode(&dir.join("record.json"))),
            (0o700, 0o600, 0o600),
            "{}",
            dir.display()
        );
    }
    assert_eq!(status, Some(0), "{document}");
    assert_eq!(document["summary"]["passed"].as_u64(), Some(episodes.len() as u64));
    // The form's own state file says what the agent did.
    let state: Value =
        serde_json::from_slice(&std::fs::read(out.join("form/work/state.json")).unwrap()).unwrap();
    assert_eq!(state["values"]["name"], "Ada Lovelace");
    assert_eq!(state["clicks"]["submit"], 1);
    corner.nothing_left(session);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_terminated_batch_ends_every_episode_it_started_and_records_them_as_interrupted() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let corner = Corner::new("slow");
    let specs = scratch("slow-specs");
    let dialog = std::fs::read_to_string(repo().join("examples/episodes/dialog.toml")).unwrap();
    let slow = dialog
        .replace(
            "{ do = \"set_value\"",
            &format!("{}{{ do = \"set_value\"", "{ do = \"wait\", seconds = 5 },\n  ".repeat(10)),
        )
        .replace("steps = 5", "steps = 20");
    for name in ["slow-a", "slow-b", "slow-c"] {
        std::fs::write(specs.join(format!("{name}.toml")), &slow).unwrap();
    }
    let out = scratch("slow-out");
    let mut batch = corner
        .command(env!("CARGO_BIN_EXE_glovebox"))
        .args(["episode", "batch"])
        .arg(&specs)
        .args(["--parallel", "2", "--json", "--out"])
        .arg(&out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let batch_id = batch.id();
    // Both running episodes are in their agent's turn, each in its desktop with its dialog.
    let deadline = Instant::now() + std::time::Duration::from_secs(60);
    let working = |name: &str| {
        std::fs::read_to_string(out.join(name).join("phase")).is_ok_and(|p| p == "agent")
    };
    while !(working("slow-a") && working("slow-b")) {
        assert!(Instant::now() < deadline, "the episodes did not reach their agent's turn");
        assert!(
            batch.try_wait().unwrap().is_none(),
            "the batch ended early: {:?}",
            batch.wait_with_output()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // SIGTERM to the batch alone, as a job runner or `kill` sends it (not the terminal's group).
    let terminated = Instant::now();
    assert!(Command::new("kill")
        .args(["-TERM", &batch.id().to_string()])
        .status()
        .unwrap()
        .success());
    let output = batch.wait_with_output().unwrap();
    assert!(
        terminated.elapsed().as_secs() < 20,
        "the batch took {:?} to end",
        terminated.elapsed()
    );
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(8), "{document}");
    for name in ["slow-a", "slow-b"] {
        let record = record(&document, name);
        assert_eq!(record["verdict"], "errored", "{record}");
        assert_eq!(record["reason"], "interrupted", "{record}");
    }
    assert_eq!(
        document["summary"]["not_run"], 1,
        "no episode starts after the interrupt: {document}"
    );
    assert!(!out.join("slow-c").exists());
    corner.nothing_left(batch_id);
    std::fs::remove_dir_all(&specs).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn run_with_an_index_runs_that_spec_of_a_directory_in_batch_order() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let specs = scratch("indexed-specs");
    let dialog = std::fs::read_to_string(repo().join("examples/episodes/dialog.toml")).unwrap();
    std::fs::write(specs.join("a-broken.toml"), "instruction = 3").unwrap();
    std::fs::write(specs.join("b-dialog.toml"), &dialog).unwrap();
    std::fs::write(specs.join("notes.txt"), "not a spec").unwrap();
    let out = scratch("indexed-out");
    let run = |index: &str| {
        Command::new(env!("CARGO_BIN_EXE_glovebox"))
            .args(["episode", "run"])
            .arg(&specs)
            .args(["--index", index, "--json", "--out"])
            .arg(out.join(index))
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let second = run("1");
    let record: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(
        (second.status.code(), &record["episode"], &record["verdict"]),
        (Some(0), &Value::from("b-dialog"), &Value::from("passed")),
        "{record}"
    );
    let first = run("0");
    let record: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(
        (first.status.code(), &record["episode"], &record["verdict"]),
        (Some(8), &Value::from("a-broken"), &Value::from("errored")),
        "{record}"
    );
    let past = run("2");
    assert_eq!(past.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&past.stderr).contains("--index 2 is past the 2 spec(s)"),
        "{}",
        String::from_utf8_lossy(&past.stderr)
    );
    assert!(!out.join("2").exists(), "nothing starts for an index past the specs");
    std::fs::remove_dir_all(&specs).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bad_episodes_end_for_their_own_reason_and_the_good_one_beside_them_passes() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let specs = scratch("bad-specs");
    std::fs::copy(repo().join("examples/episodes/dialog.toml"), specs.join("good.toml")).unwrap();
    let dialog = std::fs::read_to_string(specs.join("good.toml")).unwrap();
    std::fs::write(
        specs.join("unknown-field.toml"),
        dialog.replace("[limits]", "[limits]\nsecond = 3"),
    )
    .unwrap();
    std::fs::write(specs.join("no-oracle.toml"), &dialog[..dialog.find("[[oracle]]").unwrap()])
        .unwrap();
    std::fs::write(specs.join("not-a-spec.txt"), "ignored: not *.toml or *.json").unwrap();
    std::fs::write(
        specs.join("no-window.toml"),
        r#"instruction = "Use the app"
[[setup.apps]]
command = ["sleep", "60"]
window = "a window that never shows"
timeout_secs = 2
[agent]
kind = "scripted"
steps = [{ do = "key", combo = "Enter" }]
[[oracle]]
kind = "app_exit"
app = 0
"#,
    )
    .unwrap();
    // The agent's script outlasts the episode's time limit.
    std::fs::write(
        specs.join("out-of-time.toml"),
        dialog
            .replace("seconds = 60", "seconds = 6")
            .replace("{ do = \"set_value\"", "{ do = \"wait\", seconds = 5 },\n  { do = \"wait\", seconds = 5 },\n  { do = \"set_value\""),
    )
    .unwrap();
    let out = scratch("bad-out");
    let started = Instant::now();
    let corner = Corner::new("bad");
    let (status, document, _) = batch(&specs, &out, 2, &corner);
    assert_eq!(document["episodes"].as_array().unwrap().len(), 5, "{document}");
    assert_eq!(record(&document, "good")["verdict"], "passed", "{document}");

    let unknown = record(&document, "unknown-field");
    assert_eq!(unknown["verdict"], "errored");
    assert!(unknown["reason"].as_str().unwrap().contains("second"), "{unknown}");
    assert!(!out.join("unknown-field/work").exists(), "nothing starts for a refused spec");
    let no_oracle = record(&document, "no-oracle");
    assert_eq!(no_oracle["verdict"], "errored");
    assert!(no_oracle["reason"].as_str().unwrap().contains("oracle"), "{no_oracle}");

    let no_window = record(&document, "no-window");
    assert_eq!(no_window["verdict"], "errored", "the app's fault, not the agent's: {no_window}");
    assert!(no_window["reason"].as_str().unwrap().contains("showed no window"), "{no_window}");
    assert!(no_window["seconds"].as_f64().unwrap() < 20.0, "{no_window}");

    let late = record(&document, "out-of-time");
    assert_eq!(late["verdict"], "failed", "{late}");
    assert!(late["reason"].as_str().unwrap().contains("limits.seconds"), "{late}");
    assert!(late["seconds"].as_f64().unwrap() < 15.0, "{late}");

    assert_eq!(status, Some(8), "an errored episode makes the batch errored");
    assert!(started.elapsed().as_secs() < 90);
    std::fs::remove_dir_all(&specs).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}
