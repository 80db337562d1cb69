//! `glovebox mcp-config CLIENT`: the entry that client needs to start this
//! binary's MCP server, printed in the client's own format (stdout holds
//! only the document; where it goes is said on stderr), or with `--write`
//! added to the client's configuration file, every other server kept.

use super::exit::{refused, Failure};
use anyhow::Context;
use glovebox::exit_status::Exit;
use glovebox::mcp_config::{Client, Launch, Places, Via};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct McpConfigArgs {
    #[arg(value_enum)]
    client: Client,
    /// Start glovebox with every input tool refused and hidden.
    #[arg(long)]
    read_only: bool,
    /// Add the entry to the client's configuration file, keeping every other server.
    #[arg(long)]
    write: bool,
    /// The file to add it to, instead of the client's usual one.
    #[arg(long, value_name = "FILE", requires = "write")]
    file: Option<PathBuf>,
    /// How the client starts glovebox: this binary's path, or the published package through
    /// uvx (PyPI) or npx (npm).
    #[arg(long, value_enum, default_value_t = ViaArg::Path)]
    via: ViaArg,
}

/// `--via`'s values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViaArg {
    /// This binary, by its absolute path.
    Path,
    /// `uvx glovebox-mcp mcp`.
    Uvx,
    /// `npx -y glovebox-mcp mcp`.
    Npx,
}

impl ViaArg {
    /// The launch form; the binary's own path is looked up only for `path`.
    pub fn via(self) -> Result<Via, Failure> {
        Ok(match self {
            ViaArg::Path => Via::Path(without_verbatim_prefix(
                std::env::current_exe()
                    .and_then(|p| p.canonicalize())
                    .context("finding this binary's path")?,
            )),
            ViaArg::Uvx => Via::Uvx,
            ViaArg::Npx => Via::Npx,
        })
    }
}

/// Windows' canonical paths begin `\\?\` (`\\?\C:\Users\…`), which
/// not every client starts a program by: the plain drive path is the same file.
fn without_verbatim_prefix(path: PathBuf) -> PathBuf {
    match path.to_str().and_then(|p| p.strip_prefix(r"\\?\")) {
        Some(plain) if cfg!(windows) && !plain.starts_with("UNC\\") => PathBuf::from(plain),
        _ => path,
    }
}

pub fn mcp_config(args: McpConfigArgs) -> Result<ExitCode, Failure> {
    let launch = Launch { via: args.via.via()?, read_only: args.read_only };
    let project = std::env::current_dir().context("reading the current directory")?;
    let places = Places::here(project)
        .context("finding the home directory (HOME; USERPROFILE on Windows)")?;
    let file = args.file.unwrap_or_else(|| args.client.config_file(&places));
    if !args.write {
        print!("{}", args.client.render(&launch));
        eprintln!(
            "This goes in {}{}.",
            file.display(),
            args.client.add_command(&launch).map(|c| format!(", or run: {c}")).unwrap_or_default()
        );
        eprintln!(
            "`glovebox mcp-config {} --write` adds it there, keeping every other server.",
            client_name(args.client)
        );
        return Ok(Exit::Success.into());
    }
    match add_entry(args.client, &launch, &file)? {
        Added::Refused(refusal) => Err(refused(refusal, false)),
        Added::AlreadyThere => {
            eprintln!("{} already starts glovebox this way; nothing changed.", file.display());
            Ok(Exit::Success.into())
        }
        Added::Written => {
            eprintln!(
                "Added this entry to {} (every other server stays as it was):",
                file.display()
            );
            print!("{}", args.client.render(&launch));
            Ok(Exit::Success.into())
        }
    }
}

/// What adding glovebox's entry to a client's file came to.
pub enum Added {
    Written,
    AlreadyThere,
    /// The file is in a shape this cannot add to; it was left as it was.
    Refused(glovebox_model::Refusal),
}

/// Adds `launch`'s entry to `client`'s `file` (`mcp-config --write`, `setup`), every other
/// server kept. Written beside the file and renamed over it, so a client never reads half a
/// file, with the file's mode and owner: a client's configuration may hold API keys (`env`)
/// and be 0600.
pub fn add_entry(
    client: Client,
    launch: &Launch,
    file: &std::path::Path,
) -> Result<Added, Failure> {
    let existing = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!("reading {}", file.display())).into())
        }
    };
    let merged = match client.merge(&existing, launch, file) {
        Ok(merged) => merged,
        Err(refusal) => return Ok(Added::Refused(refusal)),
    };
    if merged == existing {
        return Ok(Added::AlreadyThere);
    }
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        glovebox_platform::files::make_dirs(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    glovebox_platform::files::replace_keeping_mode(file, merged.as_bytes())
        .with_context(|| format!("writing {}", file.display()))?;
    Ok(Added::Written)
}

fn client_name(client: Client) -> String {
    clap::ValueEnum::to_possible_value(&client).map(|v| v.get_name().to_owned()).unwrap_or_default()
}
