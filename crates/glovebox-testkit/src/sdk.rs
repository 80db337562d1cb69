//! The official SDK clients the tests check glovebox against (PyPI, in the
//! virtual environment `.ci/install-deps` makes), and the check of wire
//! values against those SDKs' own types (`testapps/sdk_types.py`).

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The SDKs' interpreter.
pub fn python() -> PathBuf {
    let python = repo().join("target/sdk-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash .ci/install-deps` (it installs the pinned SDK clients)",
        python.display()
    );
    python
}

/// The report a client script prints as its last line of standard
/// output, once the script succeeded (its output and errors shown when it
/// did not, or when the line is not JSON).
pub fn report_of(out: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Runs `testapps/sdk_types.py` on `checked` (written into `dir`); its report.
pub fn check_types(dir: &Path, checked: &Value) -> String {
    let file = dir.join("checked.json");
    std::fs::write(&file, checked.to_string()).unwrap();
    let out = std::process::Command::new(python())
        .arg(repo().join("testapps/sdk_types.py"))
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the SDK types refused a value:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
