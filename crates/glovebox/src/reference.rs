//! The reference pages under `docs/reference/`, rendered from the code that
//! defines each thing (the error registry, the exit statuses, the
//! configuration's fields, the MCP tools), so a page cannot say something
//! the code does not. `tests/it/reference_docs.rs` fails when a page drifts.

use crate::exit_status::Exit;
use glovebox_model::ErrorCode;
use serde_json::Value;
use std::fmt::Write as _;

const GENERATED: &str =
    "<!-- Generated from the code by `GLOVEBOX_WRITE_REFERENCE=1 cargo test -p glovebox-cli --test it reference_docs::`; edit the code, not this file. -->";

/// `docs/reference/error-codes.md`.
pub fn error_codes() -> String {
    let mut out = format!("# Error codes\n\n{GENERATED}\n\nEvery refusal carries exactly one code and a sentence saying what to do; the CLI exits with the status shown ([exit-codes.md](exit-codes.md)).\n\n| code | meaning | exit status |\n| --- | --- | --- |\n");
    for code in ErrorCode::ALL {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            code.as_str(),
            code.meaning(),
            Exit::of(*code).status()
        );
    }
    out
}

/// `docs/reference/exit-codes.md`.
pub fn exit_codes() -> String {
    let mut out = format!(
        "# Exit codes\n\n{GENERATED}\n\nA refusal prints `error: COMPUTER_…: sentence` on stderr; `--json` commands (and `screenshot`) also print `{{\"error\": {{\"code\", \"message\"}}}}` on stdout. `glovebox sandbox -- CMD` exits with the command's own status.\n\n| status | meaning | refusals that end with it |\n| --- | --- | --- |\n"
    );
    for exit in Exit::ALL {
        let codes: Vec<String> = ErrorCode::ALL
            .iter()
            .filter(|c| Exit::of(**c) == exit)
            .map(|c| format!("`{}`", c.as_str()))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            exit.status(),
            exit.meaning(),
            if codes.is_empty() { "—".to_owned() } else { codes.join(", ") }
        );
    }
    out
}

/// `docs/reference/configuration.md`.
pub fn configuration() -> String {
    let mut out = format!(
        "# Configuration keys\n\n{GENERATED}\n\nTOML, layered: built-in defaults < `~/.config/glovebox/config.toml` < `./.glovebox.toml` < `--config FILE` < `GLOVEBOX_*` environment. Unknown keys and bad values are refused with the layer at fault, never ignored ([../configuration.md](../configuration.md)).\n\n| key | default | environment | meaning |\n| --- | --- | --- | --- |\n"
    );
    for key in glovebox_config::reference() {
        let default = match &key.default {
            toml::Value::Array(items) if items.len() > 4 => format!("{} words", items.len()),
            other => other.to_string(),
        };
        let _ = writeln!(
            out,
            "| `{}` | `{}` | `{}` | {} |",
            key.key,
            default,
            key.environment,
            cell(&key.meaning)
        );
    }
    out
}

/// `docs/reference/tools.md`: what tools/list hands a client.
pub fn tools() -> String {
    // A host that is off: the listing needs none.
    let mut config = glovebox_host::HostConfig::new(":0");
    config.enabled = false;
    let host = config.check_enabled().map(|()| unreachable!("a disabled configuration"));
    let options = glovebox_mcp::Options { read_only: false, screenshot_dir: None, model: Ok(None) };
    let server = glovebox_mcp::GloveboxServer::new(host, options);
    let mut out = format!("# MCP tools\n\n{GENERATED}\n\nThe tools `glovebox mcp` and `glovebox serve` list, in their order, with the arguments of each ([../mcp.md](../mcp.md)). In read-only mode the input tools are not listed.\n");
    for tool in server.tools() {
        let tool = serde_json::to_value(&tool).expect("a tool serialises");
        let name = tool["name"].as_str().unwrap_or_default();
        let _ =
            write!(out, "\n## `{name}`\n\n{}\n", tool["description"].as_str().unwrap_or_default());
        let hints: Vec<&str> = [
            ("readOnlyHint", "read-only"),
            ("destructiveHint", "destructive"),
            ("idempotentHint", "idempotent"),
            ("openWorldHint", "open world"),
        ]
        .into_iter()
        .filter(|(hint, _)| tool["annotations"][hint] == Value::Bool(true))
        .map(|(_, word)| word)
        .collect();
        if !hints.is_empty() {
            let _ = write!(out, "\nAnnotations: {}.\n", hints.join(", "));
        }
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = schema["properties"].as_object().filter(|p| !p.is_empty()) else {
            out.push_str("\nNo arguments.\n");
            continue;
        };
        out.push_str("\n| argument | type | required | meaning |\n| --- | --- | --- | --- |\n");
        for (argument, property) in properties {
            let required = if required.contains(&argument.as_str()) { "yes" } else { "no" };
            let meaning = property["description"].as_str().unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{argument}` | {} | {required} | {} |",
                type_of(property),
                cell(meaning)
            );
        }
    }
    out
}

/// A JSON schema's type in a few words: `string`, `integer`, one of its values, an array of something.
fn type_of(property: &Value) -> String {
    if let Some(values) = property["enum"].as_array() {
        return values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(" \\| ");
    }
    if let Some(variants) = property["anyOf"].as_array().or(property["oneOf"].as_array()) {
        return variants.iter().map(type_of).collect::<Vec<_>>().join(" or ");
    }
    match &property["type"] {
        Value::String(t) if t == "array" => format!("array of {}", type_of(&property["items"])),
        Value::String(t) => t.clone(),
        Value::Array(types) => {
            types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or ")
        }
        _ if property.get("const").is_some() => format!("`{}`", property["const"]),
        _ => "any".to_owned(),
    }
}

/// Text fit for one table cell.
fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}
