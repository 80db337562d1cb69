//! OSWorld-format tasks as glovebox episodes, written for glovebox in OSWorld's
//! format (`examples/osworld`, not copied from OSWorld): a Calc cell edit, a Writer document
//! change and a file in the home directory, run by `glovebox episode batch`
//! with a scripted model through the loop, and scored by `desktop-env`'s own
//! metric functions (`compare_table` with `check_accessibility_tree`,
//! `compare_docx_files`, `check_include_exclude`) on what OSWorld's own
//! getters read from the episode (files, a command's output, the desktop's
//! accessibility tree). A run that makes the wrong edit fails; a task whose getter this
//! host does not serve, or whose file is on the network, is `not_run` with
//! its reason; the JUnit and page group by OSWorld's domain.
#![cfg(target_os = "linux")]

use glovebox_testkit::model::{id_on_line, model_server_by_prompt, turn_of};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python with desktop-env that `.ci/install-deps` makes.
fn osworld_python() -> PathBuf {
    let python = repo().join("target/osworld-venv/bin/python");
    assert!(python.exists(), "{} is missing: run .ci/install-deps", python.display());
    python
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-osworld-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `code` in the evaluator's Python (openpyxl, python-docx) in `dir`; its stdout.
fn python(dir: &Path, code: &str) -> String {
    let out = Command::new(osworld_python()).args(["-c", code]).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write_task(dir: &Path, name: &str, task: Value) {
    std::fs::write(dir.join(format!("{name}.json")), serde_json::to_vec_pretty(&task).unwrap())
        .unwrap();
}

/// `examples/osworld` (a Calc cell edit, a Writer document change, a file in the home
/// directory, with the files they start from and are scored against) and beside them: the
/// Calc task again for a wrong hand, a task whose getter this host does not serve, and one
/// whose file is on the network.
fn tasks(dir: &Path) {
    let examples = repo().join("examples/osworld");
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let mut wrong: Value =
        serde_json::from_slice(&std::fs::read(examples.join("calc-cell.json")).unwrap()).unwrap();
    // The same task; the scripted model below gets it wrong.
    wrong["instruction"] =
        json!("Set the count of Apples (cell B2) to 42 and save the file, second hand.");
    write_task(dir, "calc-wrong", wrong);
    // OSWorld's Chrome is launched as `google-chrome`; here it is Debian's Chromium with its
    // profile where Chrome keeps one, which OSWorld's own getter reads once the browser closed.
    write_task(
        dir,
        "chrome-font",
        json!({
            "id": "glovebox-chrome-font", "snapshot": "chrome", "related_apps": ["chrome"],
            "instruction": "Make the text on web pages larger: set the browser's font size to Large.",
            "config": [
                {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337", "about:blank"]}},
                {"type": "activate_window", "parameters": {"window_name": "Chromium"}}
            ],
            "evaluator": {
                "postconfig": [
                    {"type": "close_window", "parameters": {"window_name": "Chromium"}},
                    {"type": "sleep", "parameters": {"seconds": 2}}
                ],
                "func": "check_font_size",
                "result": {"type": "chrome_font_size"},
                "expected": {"type": "rule", "rules": {"type": "value", "value": 20}}
            }
        }),
    );
    write_task(
        dir,
        "open-tabs",
        json!({
            "id": "glovebox-open-tabs", "snapshot": "chrome", "related_apps": ["chrome"],
            "instruction": "Open the project's page in a new tab.",
            "config": [],
            "evaluator": {
                "func": "is_expected_tabs",
                "result": {"type": "open_tabs_info"},
                "expected": {"type": "rule", "rules": {"type": "url", "urls": ["https://example.com/"]}}
            }
        }),
    );
    write_task(
        dir,
        "network-file",
        json!({
            "id": "glovebox-network-file", "snapshot": "libreoffice_calc", "related_apps": ["libreoffice_calc"],
            "instruction": "Sum the column.",
            "config": [{"type": "download", "parameters": {"files": [{"url": "https://example.com/sheet.xlsx", "path": "/home/user/sheet.xlsx"}]}}],
            "evaluator": {"func": "compare_table", "result": {"type": "vm_file", "path": "/home/user/sheet.xlsx", "dest": "sheet.xlsx"}}
        }),
    );
}

/// The scripted model: reads the instruction, the steps so far and the tree from its prompt,
/// as a model would, and does each task in three turns: the edit, the app's save shortcut, done.
fn model(prompt: &str) -> Value {
    let act = |action: Value| json!({"decision": {"kind": "action", "action": action}});
    // Not found: the model gives up (a panic here would stop the server for every episode).
    let set = |needle: &str, text: &str| match id_on_line(prompt, needle) {
        Some(element) => {
            act(json!({"action": "set_value", "target": {"element": element}, "text": text}))
        }
        None => json!({"decision": {"kind": "done", "claim": format!("no {needle} in the tree")}}),
    };
    let instruction = prompt.lines().next().unwrap_or_default();
    if instruction.contains("font size to Large") {
        return browser(prompt);
    }
    match turn_of(prompt) {
        0 if instruction.contains("second hand") => set("\"B2\"", "24"),
        0 if instruction.contains("cell B2") => set("\"B2\"", "42"),
        // Writer shows its paragraph without its text in the line: the focused one under the document.
        0 if instruction.contains("Grace") => set("paragraph [focused", "Dear Grace,"),
        // FeatherPad's editor: its focused text (the tree gives a text's value on request).
        0 if instruction.contains("notes.txt") => {
            set("text [focused, has value]", "draft\nshipped\n")
        }
        1 => act(json!({"action": "key", "combo": "ctrl+s", "repeat": 1})),
        _ => json!({"decision": {"kind": "done", "claim": "Done and saved."}}),
    }
}

/// The browser's settings as a person reaches them: the address bar, which takes keys from
/// the real keyboard alone (so these ask for the foreground), then the font size's list in
/// the page, in the background; each step read off the tree the prompt carries.
fn browser(prompt: &str) -> Value {
    let act = |action: Value, delivery: Value| json!({"decision": {"kind": "action", "action": action, "delivery": delivery}});
    let history = prompt.split("Steps left:").next().unwrap_or_default();
    let foreground = json!("foreground");
    // Chosen, or refused in the background: glovebox says Chromium's page lists take no
    // background choice, so the choice is asked again for the foreground.
    let refused = history.contains("COMPUTER_BACKGROUND_UNAVAILABLE");
    if history.contains("select") && !(refused && history.matches("select").count() == 1) {
        return json!({"decision": {"kind": "done", "claim": "The font size is Large."}});
    }
    if let Some(list) = id_on_line(prompt, "combo box \"Font size\"") {
        let choose = json!({"action": "select", "target": {"element": list}, "option": "Large"});
        return act(choose, if refused { foreground } else { Value::Null });
    }
    match turn_of(prompt) {
        0 => act(json!({"action": "key", "combo": "ctrl+l", "repeat": 1}), foreground),
        1 => act(json!({"action": "type", "text": "chrome://settings/appearance"}), foreground),
        2 => act(json!({"action": "key", "combo": "Return", "repeat": 1}), foreground),
        // The page is still loading: a second's thought, then look again (a switch to the same
        // window does no work); a loaded machine may take a while.
        3..30 => match window_id(prompt, "Settings") {
            Some(window) => {
                std::thread::sleep(std::time::Duration::from_secs(1));
                json!({"decision": {"kind": "switch", "window": window}})
            }
            None => json!({"decision": {"kind": "done", "claim": "no settings window"}}),
        },
        _ => json!({"decision": {"kind": "done", "claim": "no Font size in the tree"}}),
    }
}

/// The `pid/0x…` id of the listed window whose line holds `title`.
fn window_id(prompt: &str, title: &str) -> Option<String> {
    let windows = prompt.split("Windows (frontmost first):").nth(1)?;
    let line = windows.lines().find(|l| l.contains(title))?;
    line.split_whitespace().find(|w| w.contains("/0x")).map(str::to_owned)
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
fn osworld_tasks_run_as_a_batch_and_are_scored_by_osworlds_own_metrics() {
    let _heavy = glovebox_testkit::heavy_turn();
    let dir = scratch("tasks");
    let out = scratch("out");
    tasks(&dir);
    let (base, asked) = model_server_by_prompt(model);
    let output = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(["episode", "batch"])
        .arg(&dir)
        .args(["--parallel", "2", "--json", "--out"])
        .arg(&out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("GLOVEBOX_EPISODE_OSWORLD_PYTHON", osworld_python())
        .env("GLOVEBOX_MODEL_PROVIDER", "openai-compatible")
        .env("GLOVEBOX_MODEL_MODEL", "scripted")
        .env("GLOVEBOX_MODEL_BASE_URL", &base)
        // A model with a long context: Writer's document comes after its toolbars in the tree.
        .env("GLOVEBOX_OBSERVE_MAX_TOKENS", "40000")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));

    for (name, domain) in [
        ("calc-cell", "libreoffice_calc"),
        ("writer-line", "libreoffice_writer"),
        ("home-file", "os"),
        ("chrome-font", "chrome"),
    ] {
        let record = record(&document, name);
        assert_eq!(
            (&record["verdict"], &record["score"], &record["domain"]),
            (&json!("passed"), &json!(1.0), &json!(domain)),
            "{record}"
        );
    }
    // Both of the Calc task's metrics held: the saved file's and the cell Calc shows in its tree.
    assert_eq!(
        record(&document, "calc-cell")["checks"][0]["check"],
        "OSWorld's compare_table, check_accessibility_tree scores the task 1"
    );
    // The app's own file, read apart from OSWorld's metric: the saved cell.
    let saved = python(
        &out,
        "import openpyxl\n\
         for name in ['calc-cell', 'calc-wrong']:\n\
         \x20   print(openpyxl.load_workbook(name + '/home/fruit.xlsx').active['B2'].value)\n",
    );
    assert_eq!(saved, "42\n24\n");
    let wrong = record(&document, "calc-wrong");
    assert_eq!((&wrong["verdict"], &wrong["score"]), (&json!("failed"), &json!(0.0)), "{wrong}");
    assert!(
        wrong["reason"]
            .as_str()
            .unwrap()
            .contains("compare_table, check_accessibility_tree scored it 0"),
        "{wrong}"
    );
    let notes = std::fs::read_to_string(out.join("home-file/home/notes.txt")).unwrap();
    assert_eq!(notes, "draft\nshipped\n");
    // The browser's own profile, read apart from OSWorld's getter. Its address bar took keys
    // from the foreground alone; its page's list, refused a background choice, took the
    // foreground's (the option's name padded with spaces, as Chromium names them).
    let preferences: Value = serde_json::from_slice(
        &std::fs::read(out.join("chrome-font/home/.config/google-chrome/Default/Preferences"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(preferences["webkit"]["webprefs"]["default_font_size"], 20);
    let report = std::fs::read_to_string(out.join("chrome-font/report.html")).unwrap();
    assert!(
        report.contains("COMPUTER_BACKGROUND_UNAVAILABLE"),
        "the list refused in the background"
    );
    assert_eq!(
        report.matches("delivered via x11:XTest").count(),
        3,
        "the address bar's three keys"
    );
    assert!(
        report.contains("select &quot;Large&quot; in combo box &quot;Font size&quot;"),
        "the list's choice"
    );
    let tabs = record(&document, "open-tabs");
    assert_eq!(tabs["verdict"], "not_run", "{tabs}");
    assert!(
        tabs["reason"].as_str().unwrap().contains("the getter `open_tabs_info` is not served"),
        "{tabs}"
    );
    let network = record(&document, "network-file");
    assert_eq!(network["verdict"], "not_run", "{network}");
    assert!(
        network["reason"]
            .as_str()
            .unwrap()
            .contains("config[0] (download): \"https://example.com/sheet.xlsx\" needs the network"),
        "{network}"
    );
    // Nothing started for a task not run here, and the model was never asked about it.
    assert!(!out.join("open-tabs/home").exists() && !out.join("network-file/home").exists());
    let prompts: Vec<String> = asked.lock().unwrap().iter().map(|r| r.to_string()).collect();
    assert!(!prompts.iter().any(|p| p.contains("Sum the column") || p.contains("project's page")));

    let summary = &document["summary"];
    assert_eq!(
        [&summary["passed"], &summary["failed"], &summary["errored"], &summary["not_run"]],
        [&json!(4), &json!(1), &json!(0), &json!(2)],
        "{summary}"
    );
    assert_eq!(output.status.code(), Some(7), "a failed task fails the batch");
    // Grouped by OSWorld's domain; a task not run is skipped, never passed or failed.
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    let suite = |domain: &str| {
        junit
            .lines()
            .find(|l| l.contains("<testsuite ") && l.contains(&format!("/{domain}\"")))
            .unwrap_or_else(|| panic!("no suite for {domain}: {junit}"))
            .to_owned()
    };
    assert!(
        suite("libreoffice_calc").contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""),
        "{junit}"
    );
    assert!(
        suite("chrome").contains("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\""),
        "{junit}"
    );
    assert_eq!(junit.matches("<skipped ").count(), 2, "{junit}");
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(page.matches("data-verdict=\"not_run\"").count(), 2, "{page}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}

/// The VM's side of OSWorld's wire runs commands, on loopback, while the evaluator scores:
/// it answers this user's processes and refuses another local user's (here `nobody`).
#[test]
fn the_evaluators_wire_answers_this_user_alone() {
    const PROBE: &str = r#"
import subprocess, sys, requests
sys.path.insert(0, sys.argv[1])
import osworld_evaluate as evaluator
port = evaluator.serve(evaluator.Vm(sys.argv[2]), (1, 1)).server_address[1]
url = f"http://127.0.0.1:{port}/execute"
print(requests.post(url, json={"command": ["id", "-u"]}).json()["output"].strip())
other = (
    "import sys, urllib.request as u\n"
    "try: u.urlopen(u.Request(sys.argv[1], data=b'{\"command\": [\"id\"]}')); print('answered')\n"
    "except Exception as e: print(e)"
)
ran = subprocess.run(
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", other, url],
    capture_output=True, text=True,
)
print(ran.stdout.strip() or ran.stderr.strip())
"#;
    let home = scratch("wire-home");
    let out = Command::new(osworld_python())
        .args(["-c", PROBE])
        .arg(repo().join("crates/glovebox/src/cli/episode"))
        .arg(&home)
        .output()
        .unwrap();
    let me = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{me}\nHTTP Error 403: Forbidden\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&home).unwrap();
}

/// Decided before any desktop starts: a task whose evaluator OSWorld's code cannot read is
/// errored (it cannot be judged), and with no Python that has desktop-env every task is not
/// run here, saying which setting names it.
#[test]
fn a_task_the_evaluator_cannot_read_errs_and_one_it_cannot_score_here_is_not_run() {
    let dir = scratch("unreadable");
    write_task(
        &dir,
        "no-getter-type",
        json!({"id": "t", "instruction": "Do it.", "config": [],
            "evaluator": {"func": "exact_match", "result": {"path": "/home/user/x"}}}),
    );
    let run = |task: &str, python: &Path| {
        let out = dir.join(format!("out-{task}"));
        let ran = Command::new(env!("CARGO_BIN_EXE_glovebox"))
            .args(["episode", "run"])
            .arg(dir.join(format!("{task}.json")))
            .arg("--out")
            .arg(&out)
            .arg("--json")
            .env("GLOVEBOX_EPISODE_OSWORLD_PYTHON", python)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let record: Value = serde_json::from_slice(&ran.stdout).unwrap();
        assert!(!out.join("home").exists() && !out.join("work").exists(), "nothing started");
        (ran.status.code(), record)
    };
    let (status, record) = run("no-getter-type", &osworld_python());
    assert_eq!((status, &record["verdict"]), (Some(8), &json!("errored")), "{record}");
    assert!(
        record["reason"].as_str().unwrap().contains("cannot read its evaluator: KeyError"),
        "{record}"
    );
    std::fs::copy(repo().join("examples/osworld/home-file.json"), dir.join("home-file.json"))
        .unwrap();
    let (status, record) = run("home-file", Path::new("/nonexistent/python3"));
    assert_eq!((status, &record["verdict"]), (Some(9), &json!("not_run")), "{record}");
    assert!(
        record["reason"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/python3 is not there (episode.osworld_python)"),
        "{record}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
