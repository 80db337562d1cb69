//! glovebox installed the way MCP servers are installed: the PyPI wheel and
//! the npm packages `packaging/` builds around this binary (not published),
//! installed into a fresh virtual environment and a fresh npm prefix, run by
//! `uvx` (uv from PyPI) and `npx` as a client's one-line configuration runs
//! them, with the official MCP Python SDK listing the tools and observing a
//! window on a sandbox desktop through each; a platform without a binary
//! named, not crashed into; and the MCP Registry's `server.json`, validated
//! against the registry's schema and held to the packages' names.
#![cfg(target_os = "linux")]

use glovebox_sandbox::fixture::{unique_title, Fixture};
use glovebox_sandbox::Sandbox;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-packages-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command) -> Output {
    let output = command.stdin(Stdio::null()).output().unwrap();
    assert!(
        output.status.success(),
        "{command:?}: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The venv holding the pinned SDKs, uv and hatchling (`.ci/install-deps`).
fn sdk_bin(name: &str) -> PathBuf {
    glovebox_testkit::sdk::python().with_file_name(name)
}

/// `packaging/build-wheel` around this binary: the wheel's path.
fn wheel(out: &Path) -> PathBuf {
    let built = run(Command::new(repo().join("packaging/build-wheel"))
        .arg(env!("CARGO_BIN_EXE_glovebox"))
        .arg(out)
        .arg(glovebox_testkit::sdk::python()));
    PathBuf::from(stdout(&built).trim())
}

/// `packaging/build-npm` around this binary: the platform's tarball and glovebox-mcp's.
fn npm_tarballs(out: &Path) -> (PathBuf, PathBuf) {
    let built = run(Command::new(repo().join("packaging/build-npm"))
        .arg(env!("CARGO_BIN_EXE_glovebox"))
        .arg(out));
    let paths: Vec<PathBuf> = stdout(&built).lines().map(PathBuf::from).collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    (paths[0].clone(), paths[1].clone())
}

fn version() -> String {
    let printed = stdout(&run(Command::new(env!("CARGO_BIN_EXE_glovebox")).arg("--version")));
    printed.split_whitespace().nth(1).unwrap().to_owned()
}

/// The SDK client against `server` (the command a client's configuration names), on the
/// sandbox: its report.
fn client(sandbox: &Sandbox, home: &Path, title: &str, server: &[&std::ffi::OsStr]) -> Value {
    let mut command = sandbox.command_in_home(glovebox_testkit::sdk::python(), home);
    command
        .arg(repo().join("testapps/sdk_mcp_installed.py"))
        .arg(title)
        .args(server)
        .env("GLOVEBOX_ENABLED", "true")
        // uv's and npm's caches in the test's home, and uv on the system's Python.
        .env("UV_CACHE_DIR", home.join("uv-cache"))
        .env("UV_PYTHON", "/usr/bin/python3")
        .env("npm_config_cache", home.join("npm-cache"))
        .env("npm_config_update_notifier", "false");
    let output = run(&mut command);
    let printed = stdout(&output);
    serde_json::from_str(printed.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {printed}"))
}

fn assert_served(report: &Value, title: &str, how: &str) {
    let tools: Vec<&str> =
        report["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    for tool in ["list_windows", "observe", "click", "type", "set_value"] {
        assert!(tools.contains(&tool), "{how}: no {tool} in {tools:?}");
    }
    assert!(report["listed"].as_str().unwrap().contains(title), "{how}: {report}");
    assert_eq!(report["observe_error"], false, "{how}: {report}");
    let observed = report["observed"].as_str().unwrap();
    assert!(observed.contains("\"Name\"") && observed.contains("\"Submit\""), "{how}: {observed}");
}

#[test]
fn the_wheel_and_the_npm_packages_start_glovebox_for_an_mcp_client() {
    // Packing and unpacking an 80 MB debug binary three ways takes both cores for a while.
    let _heavy = glovebox_testkit::heavy_turn();
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let base = scratch("installed");
    let title = unique_title("installed package");
    let _fixture = Fixture::launch(sandbox, &title, &["--no-password", "--x", "60", "--y", "60"]);
    let version = version();

    // PyPI: the wheel, into a fresh virtual environment of the system's Python.
    let wheel = wheel(&base.join("wheel"));
    let name = wheel.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with(&format!("glovebox_mcp-{version}-py3-none-manylinux_2_"))
            && name.ends_with("_x86_64.whl"),
        "{name}"
    );
    let venv = base.join("venv");
    run(Command::new("/usr/bin/python3").args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--no-index", "--disable-pip-version-check"])
        .arg(&wheel));
    for command in ["glovebox", "glovebox-mcp"] {
        let printed = stdout(&run(Command::new(venv.join("bin").join(command)).arg("--version")));
        assert_eq!(printed.trim(), format!("glovebox {version}"), "{command}");
    }
    let home = scratch("installed-home");
    let report = client(
        sandbox,
        &home,
        &title,
        &[venv.join("bin/glovebox-mcp").as_os_str(), "mcp".as_ref()],
    );
    assert_served(&report, &title, "pip install");
    // uvx, as a client's `{"command": "uvx", "args": ["glovebox-mcp", "mcp"]}` runs it, from the
    // local wheel instead of PyPI (nothing is published), offline.
    let report = client(
        sandbox,
        &home,
        &title,
        &[
            sdk_bin("uvx").as_os_str(),
            "--offline".as_ref(),
            "--from".as_ref(),
            wheel.as_os_str(),
            "glovebox-mcp".as_ref(),
            "mcp".as_ref(),
        ],
    );
    assert_served(&report, &title, "uvx");

    // npm: both tarballs into a fresh prefix, then npx as `npx -y glovebox-mcp mcp` runs it.
    let (platform, main) = npm_tarballs(&base.join("npm"));
    assert!(platform.ends_with(format!("glovebox-mcp-linux-x64-{version}.tgz")), "{platform:?}");
    let prefix = base.join("prefix");
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg(&platform)
        .arg(&main)
        .env("npm_config_cache", home.join("npm-cache")));
    let printed =
        stdout(&run(Command::new(prefix.join("node_modules/.bin/glovebox-mcp")).arg("--version")));
    assert_eq!(printed.trim(), format!("glovebox {version}"));
    let report = client(
        sandbox,
        &home,
        &title,
        &[
            "npx".as_ref(),
            "-y".as_ref(),
            "--package".as_ref(),
            platform.as_os_str(),
            "--package".as_ref(),
            main.as_os_str(),
            "glovebox-mcp".as_ref(),
            "mcp".as_ref(),
        ],
    );
    assert_served(&report, &title, "npx");
    std::fs::remove_dir_all(&base).unwrap();
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn a_platform_without_a_binary_is_named_and_nothing_crashes() {
    let _heavy = glovebox_testkit::heavy_turn();
    let base = scratch("unsupported");
    // pip refuses the wheel for another platform, naming the wheel.
    let wheel = wheel(&base.join("wheel"));
    let refused = Command::new(glovebox_testkit::sdk::python())
        .args(["-m", "pip", "install", "--quiet", "--no-index", "--disable-pip-version-check"])
        .args(["--platform", "macosx_14_0_arm64", "--only-binary=:all:", "--target"])
        .arg(base.join("target"))
        .arg(&wheel)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(said.contains("is not a supported wheel on this platform"), "{said}");
    // The wheel's launcher, asked on another platform (its answer to platform.system() and
    // machine() replaced), names what it found and exits 4 without starting anything.
    let venv = base.join("venv");
    run(Command::new("/usr/bin/python3").args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--no-index", "--disable-pip-version-check"])
        .arg(&wheel));
    let elsewhere = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import platform; platform.system = lambda: 'Darwin'; \
             platform.machine = lambda: 'arm64'; import glovebox_mcp; glovebox_mcp.main()",
            "--version",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&elsewhere.stderr);
    assert_eq!(elsewhere.status.code(), Some(4), "{said}");
    assert!(said.contains("no glovebox binary for Darwin arm64"), "{said}");
    assert!(elsewhere.stdout.is_empty(), "the binary did not start");
    // npm's launcher on another platform, and without its binary's package (npm skips an
    // optional dependency with --omit=optional, or on musl).
    let (_, main) = npm_tarballs(&base.join("npm"));
    let prefix = base.join("prefix");
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--omit=optional", "--prefix"])
        .arg(&prefix)
        .arg(&main)
        .env("npm_config_cache", base.join("npm-cache")));
    let launcher = prefix.join("node_modules/glovebox-mcp/bin/glovebox-mcp.js");
    let elsewhere = Command::new("node")
        .args(["-e", "Object.defineProperty(process, 'platform', {value: 'darwin'}); require(process.argv[1])"])
        .arg(&launcher)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&elsewhere.stderr);
    assert_eq!(elsewhere.status.code(), Some(4), "{said}");
    assert!(said.contains("no glovebox binary for darwin x64"), "{said}");
    let missing = Command::new(&launcher).arg("--version").output().unwrap();
    let said = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(4), "{said}");
    assert!(said.contains("glovebox-mcp-linux-x64 is not installed"), "{said}");
    std::fs::remove_dir_all(&base).unwrap();
}

/// `packaging/mcp-registry/check.py` on `file`: its exit status and output.
fn registry_check(file: &Path) -> (Option<i32>, String) {
    let output = Command::new("/usr/bin/python3")
        .arg(repo().join("packaging/mcp-registry/check.py"))
        .arg(file)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), printed)
}

#[test]
fn the_registry_entry_validates_and_names_both_packages() {
    let file = repo().join("packaging/mcp-registry/server.json");
    let (status, printed) = registry_check(&file);
    assert_eq!(status, Some(0), "{printed}");
    let entry: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(entry["version"].as_str(), Some(version().as_str()));
    let packages: Vec<(&str, &str, &str)> = entry["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["registryType"].as_str().unwrap(),
                p["identifier"].as_str().unwrap(),
                p["transport"]["type"].as_str().unwrap(),
            )
        })
        .collect();
    let name = glovebox::mcp_config::PACKAGE_NAME;
    assert_eq!(packages, [("pypi", name, "stdio"), ("npm", name, "stdio")]);
    // The registry checks ownership through the packages: PyPI's README carries the server's
    // name, npm's package.json its `mcpName`; and the packages' own names are PACKAGE_NAME.
    let server = entry["name"].as_str().unwrap();
    let readme = std::fs::read_to_string(repo().join("packaging/python/README.md")).unwrap();
    assert!(readme.contains(&format!("mcp-name: {server}")));
    let npm: Value = serde_json::from_slice(
        &std::fs::read(repo().join("packaging/npm/glovebox-mcp/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!((npm["name"].as_str(), npm["mcpName"].as_str()), (Some(name), Some(server)));
    let pyproject: toml::Table = toml::from_str(
        &std::fs::read_to_string(repo().join("packaging/python/pyproject.toml")).unwrap(),
    )
    .unwrap();
    assert_eq!(pyproject["project"]["name"].as_str(), Some(name));
    // A broken entry fails the same check, naming what is wrong.
    let dir = scratch("registry");
    let text = std::fs::read_to_string(&file).unwrap();
    for (broken, expected) in [
        (text.replacen(&format!("\"{server}\""), "\"glovebox\"", 1), "does not match"),
        (
            text.replacen(&format!("\"version\": \"{}\"", version()), "\"version\": \"latest\"", 2),
            "latest",
        ),
        (text.replacen("\"stdio\"", "\"pipe\"", 1), "transport"),
    ] {
        assert_ne!(broken, text);
        let path = dir.join("server.json");
        std::fs::write(&path, broken).unwrap();
        let (status, printed) = registry_check(&path);
        assert_eq!(status, Some(1), "{printed}");
        assert!(printed.contains(expected), "expected {expected:?} in {printed}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
