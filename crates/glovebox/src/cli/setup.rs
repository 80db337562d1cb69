//! Setting up and checking: `schema`, `doctor`, `config`, and the shell
//! completions and manual pages generated from the command definition.

use super::exit::{refused, Failure};
use anyhow::Context;
use clap::Subcommand;
use glovebox_config::{Layered, Sources};
use glovebox_model::Refusal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SchemaOutput {
    WindowPage,
    Frame,
    AccessibilityTree,
    Error,
    /// An episode spec (`glovebox episode run`).
    Episode,
    /// The record of one episode.
    EpisodeRecord,
}

pub fn schema(output: SchemaOutput) -> Result<ExitCode, Failure> {
    let schema = match output {
        SchemaOutput::WindowPage => schemars::schema_for!(glovebox_model::WindowPage),
        SchemaOutput::Frame => schemars::schema_for!(glovebox_model::Frame),
        SchemaOutput::AccessibilityTree => schemars::schema_for!(glovebox_model::AccessibilityTree),
        SchemaOutput::Error => schemars::schema_for!(glovebox_model::Refusal),
        SchemaOutput::Episode => schemars::schema_for!(glovebox_episode::Episode),
        SchemaOutput::EpisodeRecord => schemars::schema_for!(glovebox_episode::EpisodeRecord),
    };
    println!("{}", serde_json::to_string_pretty(&schema).context("serialising the schema")?);
    Ok(ExitCode::SUCCESS)
}

pub fn doctor(config: Option<PathBuf>, json: bool) -> Result<ExitCode, Failure> {
    let mut report = glovebox_desktop::doctor();
    let served = glovebox_host::Host::remote_indicator(
        &glovebox_services::control::DisplayDir::default_root(),
        &glovebox::platform::display_name(config),
    );
    report.checks.push(glovebox_platform::doctor::Check::ok(
        "indicator",
        match served {
            // The address only: the token stays with `glovebox indicator`.
            Ok(glovebox_services::control::ControlReply::Indicator { url }) => format!(
                "served by this display's grant holder at {}/ (`glovebox indicator` prints the URL with its token)",
                url.split("/?").next().unwrap_or_default()
            ),
            _ => "served on 127.0.0.1 by whichever glovebox process holds this display's grant; none holds one now".into(),
        },
    ));
    report.checks.push(guidance_check());
    if json {
        let mut value = serde_json::to_value(&report).context("serialising the report")?;
        value["capabilities"] = serde_json::to_value(glovebox_desktop::capabilities())
            .context("serialising the capabilities")?;
        println!("{}", serde_json::to_string_pretty(&value).context("serialising the report")?);
    } else {
        print!("{}", report.render_text());
    }
    Ok(if report.healthy() {
        ExitCode::SUCCESS
    } else {
        glovebox::exit_status::Exit::Unavailable.into()
    })
}

/// Guidance per application: how many entries load, and every user file that did not, by name.
fn guidance_check() -> glovebox_platform::doctor::Check {
    use glovebox_config::guidance;
    let dir = guidance::user_dir();
    let loaded = guidance::load(dir.as_deref());
    let shipped = guidance::shipped().len();
    let from_user = loaded.entries.len() - shipped;
    let place =
        dir.map(|d| d.display().to_string()).unwrap_or_else(|| "(no config directory)".into());
    if loaded.problems.is_empty() {
        return glovebox_platform::doctor::Check::ok(
            "guidance",
            format!("{shipped} shipped application(s), {from_user} of yours from {place}"),
        );
    }
    let problems: Vec<String> =
        loaded.problems.iter().map(|(path, why)| format!("{}: {why}", path.display())).collect();
    glovebox_platform::doctor::Check::warning(
        "guidance",
        format!(
            "left out, the rest load ({shipped} shipped, {from_user} of yours): {}",
            problems.join("; ")
        ),
        &["the guidance in those files"],
    )
}

#[derive(Subcommand, Debug)]
pub enum ConfigAction {
    /// Print a key's effective value and the layer it came from.
    Get { key: String },
    /// Set a key in the user configuration file (or `--project`'s ./.glovebox.toml).
    Set {
        key: String,
        value: String,
        #[arg(long)]
        project: bool,
    },
    /// Print every key with its effective value and origin.
    List,
}

pub fn config(explicit: Option<PathBuf>, action: ConfigAction) -> Result<ExitCode, Failure> {
    let sources = Sources::standard(explicit);
    match action {
        ConfigAction::Get { key } => {
            let layered = Layered::load(&sources).map_err(|e| refused(e.into(), false))?;
            let (value, origin) = layered.get(&key).map_err(|e| refused(e.into(), false))?;
            println!("{value}\t# {origin}");
        }
        ConfigAction::Set { key, value, project } => {
            let file =
                if project { sources.project_file.clone() } else { sources.user_file.clone() }
                    .ok_or_else(|| {
                        refused(
                            Refusal::invalid_argument(
                                "no configuration directory: set HOME or XDG_CONFIG_HOME",
                            ),
                            false,
                        )
                    })?;
            glovebox_config::set_in_file(&file, &key, &value)
                .map_err(|e| refused(e.into(), false))?;
            println!("{key} = {value}\t# written to {}", file.display());
        }
        ConfigAction::List => {
            let layered = Layered::load(&sources).map_err(|e| refused(e.into(), false))?;
            for (key, _) in glovebox_config::keys() {
                let (value, origin) = layered.get(&key).map_err(|e| refused(e.into(), false))?;
                println!("{key} = {value}\t# {origin}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The completion script for `shell`, on standard output.
pub fn completions(
    mut command: clap::Command,
    shell: clap_complete::Shell,
) -> Result<ExitCode, Failure> {
    clap_complete::generate(shell, &mut command, "glovebox", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// One roff page per command: `glovebox.1`, `glovebox-windows.1`, `glovebox-grant-hold.1`, …
pub fn man(command: clap::Command, dir: &std::path::Path) -> Result<ExitCode, Failure> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    clap_mangen::generate_to(command, dir)
        .with_context(|| format!("writing the manual pages into {}", dir.display()))?;
    Ok(ExitCode::SUCCESS)
}
