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
    // The batch at a glance: a row and a test case per episode, all passed.
    let read = junit(&out.join("junit.xml"));
    assert_eq!(
        read["declared"],
        serde_json::json!({"tests": episodes.len(), "failures": 0, "errors": 0})
    );
    assert_eq!(read["counted"]["passed"].as_u64(), Some(episodes.len() as u64));
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(page.matches("data-verdict=\"passed\"").count(), episodes.len(), "{page}");
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
        document["summary"]["not_started"], 1,
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
    // The agent's script outlasts the episode's time limit. The limit leaves
    // the dialog's start (seconds on a loaded 2-core machine) time to end
    // before it, so the time runs out in the agent's turn.
    std::fs::write(
        specs.join("out-of-time.toml"),
        dialog.replace("seconds = 60", "seconds = 12").replace("steps = 5", "steps = 8").replace(
            "{ do = \"set_value\"",
            &format!("{}{{ do = \"set_value\"", "{ do = \"wait\", seconds = 5 },\n  ".repeat(4)),
        ),
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
    assert!(late["seconds"].as_f64().unwrap() < 18.0, "{late}");

    assert_eq!(status, Some(8), "an errored episode makes the batch errored");
    assert!(started.elapsed().as_secs() < 90);
    std::fs::remove_dir_all(&specs).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

/// `glovebox episode summarize ARGS... --json`: its exit status and document.
fn summarize(args: &[&Path]) -> (Option<i32>, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(["episode", "summarize", "--json"])
        .args(args)
        .output()
        .unwrap();
    let document = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code(), document)
}

/// The page as a browser has it once its script ran: headless Chromium's DOM of `url`.
fn rendered(url: &str, profile: &Path) -> String {
    let output = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// JUnit XML as junitparser (PyPI) reads it: the declared and the counted totals, and the cases.
fn junit(path: &Path) -> Value {
    let output = Command::new(glovebox_testkit::sdk::python())
        .arg(repo().join("testapps/junit_counts.py"))
        .arg(path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn batches_are_read_at_a_glance_and_summarize_merges_them() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let base = scratch("glance");
    let dialog = std::fs::read_to_string(repo().join("examples/episodes/dialog.toml")).unwrap();
    // Batch one: a pass and a failure (the oracle wants another name than the one typed).
    let one = base.join("specs-one");
    std::fs::create_dir_all(&one).unwrap();
    std::fs::write(one.join("pass.toml"), &dialog).unwrap();
    let wrong =
        dialog.replace("equals = \"Grace Hopper\\n\"", "equals = \"Ada <Lovelace> & co\\n\"");
    assert_ne!(wrong, dialog);
    std::fs::write(one.join("fail.toml"), wrong).unwrap();
    // Batch two: a pass and a spec refused before anything starts.
    let two = base.join("specs-two");
    std::fs::create_dir_all(&two).unwrap();
    std::fs::write(two.join("pass.toml"), &dialog).unwrap();
    std::fs::write(two.join("refused.toml"), dialog.replace("[limits]", "[limits]\nsecond = 3"))
        .unwrap();
    let corner = Corner::new("glance");
    let (out_one, out_two) = (base.join("batch-one"), base.join("batch-two"));
    let (status_one, document_one, _) = batch(&one, &out_one, 2, &corner);
    assert_eq!(status_one, Some(7), "{document_one}");
    let (status_two, document_two, _) = batch(&two, &out_two, 2, &corner);
    assert_eq!(status_two, Some(8), "{document_two}");

    // Each batch's own page and JUnit file, beside its episodes, private as the records are.
    let mode = |p: &Path| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
            & 0o777
    };
    for out in [&out_one, &out_two] {
        assert_eq!((mode(&out.join("index.html")), mode(&out.join("junit.xml"))), (0o600, 0o600));
    }
    let read = junit(&out_one.join("junit.xml"));
    assert_eq!(read["declared"], serde_json::json!({"tests": 2, "failures": 1, "errors": 0}));
    assert_eq!(read["counted"]["passed"], 1, "{read}");
    let failed = read["cases"].as_array().unwrap().iter().find(|c| c["name"] == "fail").unwrap();
    assert!(
        failed["message"].as_str().unwrap().contains("equals \"Ada <Lovelace> & co\\n\""),
        "the failed check's sentence, unescaped by the parser: {failed}"
    );

    // The first batch's page, filtered to its failures in a browser: every row is there, the
    // passed one hidden, and the failed one links to a report that exists.
    let profile = base.join("chromium");
    let page =
        rendered(&format!("file://{}#failed", out_one.join("index.html").display()), &profile);
    let rows: Vec<&str> = page.split("<tr class=").skip(1).collect();
    assert_eq!(rows.len(), 2, "{page}");
    let passed = rows.iter().find(|r| r.contains("data-verdict=\"passed\"")).unwrap();
    let fail = rows.iter().find(|r| r.contains("data-verdict=\"failed\"")).unwrap();
    assert!(passed.contains("hidden"), "the filter hides what did not fail: {passed}");
    assert!(!fail.contains("hidden"), "{fail}");
    assert!(fail.contains("Ada &lt;Lovelace&gt; &amp; co"), "why it failed: {fail}");
    let href = fail.split("href=\"").nth(1).unwrap().split('"').next().unwrap();
    assert_eq!(href, "fail/report.html");
    assert!(out_one.join(href).is_file());
    assert!(page.contains("1 passed, 1 failed, 0 errored, 0 not run of 2"), "{page}");

    // A pod that never wrote its record (its directory, no record.json) is a row too.
    std::fs::create_dir_all(out_two.join("lost/work")).unwrap();
    let merged = base.join("merged");
    let (status, document) = summarize(&[&out_one, &out_two, Path::new("--out"), &merged]);
    assert_eq!(status, Some(8), "{document}");
    assert_eq!(
        document["summary"],
        serde_json::json!({"passed": 2, "failed": 1, "errored": 2}),
        "{document}"
    );
    let lost = record(&document, "lost");
    assert!(lost["reason"].as_str().unwrap().contains("never finished"), "{lost}");
    let read = junit(&merged.join("junit.xml"));
    assert_eq!(read["declared"], serde_json::json!({"tests": 5, "failures": 1, "errors": 2}));
    assert_eq!(read["counted"]["failures"], 1);
    assert_eq!(read["counted"]["errors"], 2);
    assert_eq!(read["counted"]["passed"], 2);
    let suites: BTreeSet<&str> =
        read["cases"].as_array().unwrap().iter().map(|c| c["suite"].as_str().unwrap()).collect();
    assert_eq!(suites, BTreeSet::from(["batch-one", "batch-two"]));
    // The merged page links across to each batch's episodes.
    let page = std::fs::read_to_string(merged.join("index.html")).unwrap();
    assert!(page.contains("href=\"../batch-one/fail/report.html\""), "{page}");
    assert!(merged.join("../batch-one/fail/report.html").is_file());
    // One directory: the page goes into it.
    let (status, document) = summarize(&[&out_one]);
    assert_eq!((status, &document["summary"]["failed"]), (Some(7), &Value::from(1)));
    assert!(out_one.join("index.html").is_file());
    // Two directories and nowhere named: nothing written, the reason said.
    let output = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(["episode", "summarize"])
        .args([&out_one, &out_two])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--out"), "{output:?}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_huge_or_fifo_record_is_an_errored_row_read_neither_whole_nor_waited_on() {
    let base = scratch("odd-records");
    let records = base.join("records");
    for name in ["ok", "huge", "fifo/work", "linked"] {
        std::fs::create_dir_all(records.join(name)).unwrap();
    }
    let ok = r#"{"episode": "ok", "verdict": "passed", "steps": 1, "refusals": [], "checks": [], "seconds": 1.0}"#;
    std::fs::write(records.join("ok/record.json"), ok).unwrap();
    // 300 MB that cost no disk: a sparse file, refused by its size before a byte is read.
    let huge = std::fs::File::create(records.join("huge/record.json")).unwrap();
    huge.set_len(300 << 20).unwrap();
    let made = Command::new("mkfifo").arg(records.join("fifo/record.json")).status();
    assert!(made.unwrap().success(), "mkfifo (coreutils)");
    std::os::unix::fs::symlink(records.join("ok/record.json"), records.join("linked/record.json"))
        .unwrap();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(["episode", "summarize", "--json"])
        .arg(&records)
        .arg("--out")
        .arg(base.join("page"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its output is small (a few rows): waiting before reading the pipes cannot fill them.
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() > 60 {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("summarize hung on a record: {output:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(8), "{document}");
    assert_eq!(
        document["summary"],
        serde_json::json!({"passed": 1, "failed": 0, "errored": 3}),
        "{document}"
    );
    for (name, why) in [
        ("huge", "record.json could not be read: larger than 4194304 bytes"),
        ("fifo", "record.json could not be read: not a regular file"),
        ("linked", "record.json could not be read: a symbolic link, which is not followed here"),
    ] {
        let row = record(&document, name);
        assert_eq!(row["verdict"], "errored", "{row}");
        assert!(row["reason"].as_str().unwrap().ends_with(why), "{row}");
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_record_that_cannot_be_written_is_an_errored_run_on_stdout() {
    // A records volume this user cannot write, as on a root-squashed NFS share or a volume
    // without fsGroup: the run says so on stdout (which a Job's logs keep) and exits errored.
    let base = scratch("unwritable");
    let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&base, mode).unwrap();
    let output = Command::new("setpriv")
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_glovebox"))
        .args(["episode", "run"])
        .arg(repo().join("examples/episodes/dialog.toml"))
        .arg("--out")
        .arg(base.join("dialog"))
        .arg("--json")
        .env("HOME", &base)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let record: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(8), "{record}");
    assert_eq!(record["verdict"], "errored");
    let reason = record["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("{}", base.join("dialog").display()))
            && reason.contains("no record is kept there")
            && reason.contains("Permission denied"),
        "{reason}"
    );
    assert!(!base.join("dialog").exists());
    std::fs::remove_dir_all(&base).unwrap();
}
