//! `glovebox setup` as a script runs it (`--yes`) and as a person without a
//! terminal meets it, on a sandbox desktop with a home of its own: the file
//! system is the oracle — computer use on in the user's configuration, the
//! chosen clients' files holding glovebox beside what they held, and every
//! other file as it was.
#![cfg(target_os = "linux")]

use glovebox_sandbox::Sandbox;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("glovebox-setup-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file below `dir` (not the runtime directory), by its path from `dir`: contents and mode.
fn files(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if relative == "run" {
                continue;
            }
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
                found.insert(relative, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    found
}

fn a_home(base: &Path) -> PathBuf {
    let home = base.join("home");
    for dir in [".cursor", ".codex", ".vscode", ".config/other", "project"] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    let cursor = home.join(".cursor/mcp.json");
    std::fs::write(
        &cursor,
        r#"{"mcpServers": {"other": {"command": "other-server", "env": {"API_KEY": "k"}}}}"#,
    )
    .unwrap();
    std::fs::set_permissions(&cursor, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(home.join(".codex/config.toml"), "# my settings\nmodel = \"o4\"\n").unwrap();
    std::fs::write(home.join(".bashrc"), "export EDITOR=vi\n").unwrap();
    std::fs::write(home.join(".config/other/settings.ini"), "[a]\nb = 1\n").unwrap();
    home
}

#[test]
fn setup_with_yes_turns_glovebox_on_and_adds_it_to_the_chosen_clients_only() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let base = scratch("yes");
    let home = a_home(&base);
    let before = files(&home);
    let output = sandbox
        .command_in_home(env!("CARGO_BIN_EXE_glovebox"), &home)
        .args(["setup", "--yes", "--clients", "cursor,codex"])
        .current_dir(home.join("project"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}\n{}", String::from_utf8_lossy(&output.stderr));
    for step in [
        "1/5 Computer use",
        "2/5 The desktop",
        "3/5 Accessibility",
        "4/5 MCP clients",
        "5/5 Try it",
    ] {
        assert!(printed.contains(step), "{step}: {printed}");
    }
    // Each step's progress, and the private desktop it started and ended.
    assert!(printed.contains("checking… done in"), "{printed}");
    assert!(printed.contains("starting a private desktop… done in"), "{printed}");
    assert!(printed.contains("found VS Code"), "{printed}");
    let after = files(&home);

    let config = String::from_utf8(after[".config/glovebox/config.toml"].0.clone()).unwrap();
    assert!(config.lines().any(|l| l.trim() == "enabled = true"), "{config}");
    let cursor: serde_json::Value = serde_json::from_slice(&after[".cursor/mcp.json"].0).unwrap();
    assert_eq!(cursor["mcpServers"]["other"]["env"]["API_KEY"], "k", "{cursor}");
    assert_eq!(cursor["mcpServers"]["glovebox"]["args"], serde_json::json!(["mcp"]));
    assert_eq!(
        cursor["mcpServers"]["glovebox"]["command"].as_str(),
        Some(std::fs::canonicalize(env!("CARGO_BIN_EXE_glovebox")).unwrap().to_str().unwrap())
    );
    assert_eq!(after[".cursor/mcp.json"].1, 0o600, "a file that may hold keys stays 0600");
    let codex = String::from_utf8(after[".codex/config.toml"].0.clone()).unwrap();
    assert!(codex.starts_with("# my settings\nmodel = \"o4\"\n"), "{codex}");
    assert!(codex.contains("[mcp_servers.glovebox]"), "{codex}");

    // Nothing else changed: VS Code was found, not chosen; the accessibility step's own files
    // are the only other new ones.
    let allowed_new = [
        ".config/glovebox/config.toml",
        ".config/environment.d/60-glovebox-accessibility.conf",
        ".local/share/applications/chromium.desktop",
        "state/glovebox/accessibility-setup.json",
        ".config/dconf/user",
    ];
    for (path, content) in &before {
        if path == ".cursor/mcp.json" || path == ".codex/config.toml" {
            continue;
        }
        assert_eq!(after.get(path), Some(content), "{path} changed");
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        assert!(allowed_new.contains(&path.as_str()), "{path} is new: {printed}");
    }
    assert!(!home.join(".vscode/mcp.json").exists() && !home.join("project/.vscode").exists());
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn setup_without_a_terminal_or_yes_changes_nothing_and_says_why() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let base = scratch("no-terminal");
    let home = a_home(&base);
    let before = files(&home);
    // setsid: no controlling terminal, as under a CI runner or a client's subprocess.
    let mut command = sandbox.command_in_home("setsid", &home);
    let output = command
        .args([env!("CARGO_BIN_EXE_glovebox"), "setup"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(5), "{said}");
    assert!(said.contains("no terminal to ask on") && !said.contains("COMPUTER_"), "{said}");
    assert!(output.stdout.is_empty(), "no step ran: {}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(files(&home), before);
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_client_file_in_another_shape_is_left_alone_and_said_the_rest_is_done() {
    let (sandbox, _turn) = Sandbox::shared_turn(module_path!());
    let base = scratch("bad-client");
    let home = a_home(&base);
    std::fs::write(home.join(".cursor/mcp.json"), "[\"not\", \"an object\"]").unwrap();
    let before = files(&home);
    let output = sandbox
        .command_in_home(env!("CARGO_BIN_EXE_glovebox"), &home)
        .args(["setup", "--yes", "--clients", "cursor,codex"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("COMPUTER_INVALID_ARGUMENT")
            && said.contains("glovebox was not added to this client: Cursor")
            && said.contains("nothing was written to it"),
        "{said}"
    );
    let after = files(&home);
    assert_eq!(after[".cursor/mcp.json"], before[".cursor/mcp.json"]);
    let codex = String::from_utf8(after[".codex/config.toml"].0.clone()).unwrap();
    assert!(codex.contains("[mcp_servers.glovebox]"), "the other client is still added: {codex}");
    std::fs::remove_dir_all(&base).unwrap();
}
