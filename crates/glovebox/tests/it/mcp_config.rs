//! `glovebox mcp-config` as a user runs it: each client's entry parsed in
//! that client's format, `--write` adding it to a client's real file beside
//! the servers already there, and a file in another shape left untouched.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-mcp-config-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    dir
}

/// `glovebox mcp-config ARGS` with `home` as HOME and its `project` as the working directory.
fn mcp_config(home: &Path, args: &[&str]) -> (i32, String, String) {
    let Output { status, stdout, stderr } = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .arg("mcp-config")
        .args(args)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .current_dir(home.join("project"))
        .output()
        .unwrap();
    (
        status.code().unwrap_or(-1),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

fn binary() -> String {
    Path::new(env!("CARGO_BIN_EXE_glovebox")).canonicalize().unwrap().display().to_string()
}

#[test]
fn each_client_gets_an_entry_in_its_own_format_naming_this_binary() {
    let home = scratch("print");
    let (code, out, err) = mcp_config(&home, &["claude-code"]);
    assert_eq!(code, 0, "{err}");
    let claude: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        claude["mcpServers"]["glovebox"],
        json!({"type": "stdio", "command": binary(), "args": ["mcp"]})
    );
    assert!(
        err.contains(".mcp.json")
            && err.contains(&format!("claude mcp add --scope user glovebox -- {} mcp", binary())),
        "{err}"
    );

    let (code, out, _) = mcp_config(&home, &["cursor", "--read-only"]);
    assert_eq!(code, 0);
    let cursor: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        cursor["mcpServers"]["glovebox"],
        json!({"command": binary(), "args": ["mcp", "--read-only"]})
    );

    let (code, out, _) = mcp_config(&home, &["vscode"]);
    assert_eq!(code, 0);
    let vscode: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        vscode["servers"]["glovebox"],
        json!({"type": "stdio", "command": binary(), "args": ["mcp"]})
    );

    let (code, out, err) = mcp_config(&home, &["codex"]);
    assert_eq!(code, 0);
    let codex: toml::Table = toml::from_str(&out).unwrap();
    assert_eq!(codex["mcp_servers"]["glovebox"]["command"].as_str(), Some(binary().as_str()));
    assert!(
        err.contains(".codex/config.toml") && err.contains("codex mcp add glovebox --"),
        "{err}"
    );

    // Printing writes nothing; an unknown client is a usage error.
    assert!(!home.join("project/.mcp.json").exists() && !home.join(".cursor").exists());
    assert_eq!(mcp_config(&home, &["emacs"]).0, 2);
}

#[test]
fn write_adds_the_entry_beside_every_other_server() {
    let home = scratch("write");
    let other = json!({"command": "other-server", "args": ["--port", "1"]});
    std::fs::create_dir_all(home.join(".cursor")).unwrap();
    std::fs::write(
        home.join(".cursor/mcp.json"),
        json!({"mcpServers": {"other": other}}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::write(
        home.join(".codex/config.toml"),
        "# mine\nmodel = \"o4\"\n\n[mcp_servers.other]\ncommand = \"other-server\"\n",
    )
    .unwrap();

    for client in ["claude-code", "cursor", "vscode", "codex"] {
        let (code, out, err) = mcp_config(&home, &[client, "--write"]);
        assert_eq!(code, 0, "{client}: {err}");
        assert!(err.contains("every other server stays"), "{client}: {err}");
        assert!(out.contains("glovebox"), "the change is shown: {out}");
    }
    let cursor: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".cursor/mcp.json")).unwrap())
            .unwrap();
    assert_eq!(cursor["mcpServers"]["other"], other);
    assert_eq!(cursor["mcpServers"]["glovebox"]["command"], binary());
    let claude: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("project/.mcp.json")).unwrap())
            .unwrap();
    assert_eq!(claude["mcpServers"]["glovebox"]["type"], "stdio");
    let vscode: Value = serde_json::from_str(
        &std::fs::read_to_string(home.join("project/.vscode/mcp.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(vscode["servers"]["glovebox"]["args"], json!(["mcp"]));
    let codex_text = std::fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    assert!(codex_text.starts_with("# mine\nmodel = \"o4\"\n"), "{codex_text}");
    let codex: toml::Table = toml::from_str(&codex_text).unwrap();
    assert_eq!(codex["mcp_servers"]["other"]["command"].as_str(), Some("other-server"));
    assert_eq!(
        codex["mcp_servers"]["glovebox"]["args"].as_array().unwrap()[0].as_str(),
        Some("mcp")
    );

    // Again, read-only: glovebox's entry is replaced, the others kept; the same again changes nothing.
    assert_eq!(mcp_config(&home, &["cursor", "--write", "--read-only"]).0, 0);
    let cursor: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".cursor/mcp.json")).unwrap())
            .unwrap();
    assert_eq!(cursor["mcpServers"].as_object().unwrap().len(), 2);
    assert_eq!(cursor["mcpServers"]["glovebox"]["args"], json!(["mcp", "--read-only"]));
    let (code, _, err) = mcp_config(&home, &["cursor", "--write", "--read-only"]);
    assert!(code == 0 && err.contains("nothing changed"), "{err}");
}

/// `glovebox mcp-config ARGS` as [`mcp_config`], under the common umask 022,
/// which makes a plainly written file 0644.
fn mcp_config_umask_022(home: &Path, args: &[&str]) -> (i32, String) {
    let Output { status, stderr, .. } = Command::new("sh")
        .args(["-c", "umask 022 && exec \"$0\" mcp-config \"$@\"", env!("CARGO_BIN_EXE_glovebox")])
        .args(args)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .current_dir(home.join("project"))
        .output()
        .unwrap();
    (status.code().unwrap_or(-1), String::from_utf8_lossy(&stderr).into_owned())
}

/// A client's file may hold API keys (`env`) and be 0600 for that: adding
/// glovebox's entry keeps its mode, and its owner when root writes another
/// user's file; a file glovebox makes is 0600 in a 0700 directory.
#[test]
fn write_keeps_the_files_mode_and_owner() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let home = scratch("mode");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let keyed = json!({"mcpServers": {"other": {"command": "other-server", "env": {"API_KEY": "sk-secret"}}}});
    let cursor = home.join(".cursor/mcp.json");
    let codex = home.join(".codex/config.toml");
    for (file, text) in [
        (&cursor, keyed.to_string()),
        (
            &codex,
            "[mcp_servers.other]\ncommand = \"x\"\nenv = { API_KEY = \"sk-secret\" }\n".to_owned(),
        ),
    ] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // Another user's files, where this test may give them away (as root); otherwise ours.
    let root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let owner = if root {
        (54321, 54322)
    } else {
        (std::fs::metadata(&cursor).unwrap().uid(), std::fs::metadata(&cursor).unwrap().gid())
    };
    if root {
        std::os::unix::fs::chown(&cursor, Some(owner.0), Some(owner.1)).unwrap();
        std::os::unix::fs::chown(&codex, Some(owner.0), Some(owner.1)).unwrap();
    } else {
        eprintln!("not root: the owner part is checked only for this user's own files");
    }
    for (client, file) in [("cursor", &cursor), ("codex", &codex)] {
        let (code, err) = mcp_config_umask_022(&home, &[client, "--write"]);
        assert_eq!(code, 0, "{client}: {err}");
        assert!(
            std::fs::read_to_string(file).unwrap().contains("sk-secret"),
            "{client}: the other server is kept"
        );
        assert_eq!(mode(file), 0o600, "{client}: {} is readable by others", file.display());
        let meta = std::fs::metadata(file).unwrap();
        assert_eq!((meta.uid(), meta.gid()), owner, "{client}: the owner is kept");
    }
    // No temporary file is left beside them.
    assert_eq!(std::fs::read_dir(home.join(".cursor")).unwrap().count(), 1);
    // A file (and directory) glovebox makes: 0600 in 0700.
    let elsewhere = home.join("fresh/mcp.json");
    let (code, err) =
        mcp_config_umask_022(&home, &["cursor", "--write", "--file", elsewhere.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!((mode(&elsewhere), mode(&home.join("fresh"))), (0o600, 0o700));
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn a_file_in_another_shape_is_refused_and_left_as_it_was() {
    let home = scratch("refuse");
    let file = home.join("project/.vscode/mcp.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"servers\": [\"not\", \"an object\"]}").unwrap();
    let (code, out, err) = mcp_config(&home, &["vscode", "--write"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("COMPUTER_INVALID_ARGUMENT") && err.contains("nothing was written"),
        "{err}"
    );
    assert!(out.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"servers\": [\"not\", \"an object\"]}");
    // --file names another file to add to; without --write it is refused by the parser.
    let elsewhere = home.join("elsewhere.json");
    assert_eq!(
        mcp_config(&home, &["cursor", "--write", "--file", elsewhere.to_str().unwrap()]).0,
        0
    );
    assert!(elsewhere.exists());
    assert_eq!(mcp_config(&home, &["cursor", "--file", elsewhere.to_str().unwrap()]).0, 2);
}

/// The first `sh` block under README's heading `heading`: its command lines, comments cut.
fn readme_block(heading: &str) -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = readme
        .split(&format!("\n## {heading}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("README.md has no section {heading}"));
    let block =
        section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a sh block");
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_readme_lines_for_each_client_work_as_written() {
    let home = scratch("readme");
    // `glovebox` on PATH, as an installed one would be.
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_glovebox"), bin.join("glovebox")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let lines = readme_block("Connecting an MCP client");
    assert_eq!(lines.len(), 5, "{lines:?}");
    for line in &lines {
        let out = Command::new("sh")
            .args(["-c", line])
            .env("HOME", &home)
            .env("PATH", &path)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("GLOVEBOX_ENABLED")
            .current_dir(home.join("project"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "`{line}`: {}", String::from_utf8_lossy(&out.stderr));
    }
    let enabled: toml::Table = toml::from_str(
        &std::fs::read_to_string(home.join(".config/glovebox/config.toml")).unwrap(),
    )
    .unwrap();
    assert_eq!(enabled["enabled"].as_bool(), Some(true));
    for (file, servers) in [
        ("project/.mcp.json", "mcpServers"),
        (".cursor/mcp.json", "mcpServers"),
        ("project/.vscode/mcp.json", "servers"),
    ] {
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(home.join(file)).unwrap()).unwrap();
        assert_eq!(written[servers]["glovebox"]["command"], binary().as_str(), "{file}");
        assert_eq!(written[servers]["glovebox"]["args"], json!(["mcp"]), "{file}");
    }
    let codex: toml::Table =
        toml::from_str(&std::fs::read_to_string(home.join(".codex/config.toml")).unwrap()).unwrap();
    assert_eq!(codex["mcp_servers"]["glovebox"]["command"].as_str(), Some(binary().as_str()));
    std::fs::remove_dir_all(&home).unwrap();
}
