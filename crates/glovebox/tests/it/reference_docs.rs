//! The generated reference under `docs/reference/` matches the code:
//! error codes, exit statuses, configuration keys, MCP tools (rendered by
//! `glovebox::reference`) and every command's `--help`. A page that drifted
//! fails here; `GLOVEBOX_WRITE_REFERENCE=1` writes the pages instead.

use std::path::{Path, PathBuf};
use std::process::Command;

fn page(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference").join(name)
}

fn in_sync(name: &str, rendered: &str) {
    let path = page(name);
    if std::env::var_os("GLOVEBOX_WRITE_REFERENCE").is_some() {
        std::fs::write(&path, rendered).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == rendered,
        "docs/reference/{name} does not match the code; run `GLOVEBOX_WRITE_REFERENCE=1 cargo test -p glovebox-cli --test it reference_docs::` and commit the page"
    );
}

#[test]
fn error_codes_page_matches_the_registry() {
    in_sync("error-codes.md", &glovebox::reference::error_codes());
}

#[test]
fn every_error_code_is_documented_with_its_meaning() {
    let page = std::fs::read_to_string(page("error-codes.md")).unwrap();
    for code in glovebox_model::ErrorCode::ALL {
        let row = format!("| `{}` | {} |", code.as_str(), code.meaning());
        assert!(page.contains(&row), "docs/reference/error-codes.md lacks {row}");
    }
}

#[test]
fn exit_codes_page_matches_the_statuses() {
    in_sync("exit-codes.md", &glovebox::reference::exit_codes());
}

#[test]
fn configuration_page_matches_the_fields() {
    in_sync("configuration.md", &glovebox::reference::configuration());
}

#[test]
fn tools_page_matches_tools_list() {
    in_sync("tools.md", &glovebox::reference::tools());
}

fn help(command: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .args(command)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{command:?} --help: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a help text lists under `Commands:` (clap's own `help` aside).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

fn document(command: &mut Vec<String>, out: &mut String) {
    let args: Vec<&str> = command.iter().map(String::as_str).collect();
    let text = help(&args);
    let title = if command.is_empty() {
        "glovebox".to_owned()
    } else {
        format!("glovebox {}", command.join(" "))
    };
    out.push_str(&format!("\n## `{title}`\n\n```text\n{}\n```\n", text.trim_end()));
    for sub in subcommands(&text) {
        command.push(sub);
        document(command, out);
        command.pop();
    }
}

#[test]
fn cli_page_matches_every_commands_help() {
    let mut out = String::from(
        "# Command-line reference\n\n<!-- Generated from the code by `GLOVEBOX_WRITE_REFERENCE=1 cargo test -p glovebox-cli --test it reference_docs::`; edit the code, not this file. -->\n\nEvery command's `--help`, as the binary prints it ([../cli.md](../cli.md) says more about each).\n",
    );
    document(&mut vec![], &mut out);
    in_sync("cli.md", &out);
}
