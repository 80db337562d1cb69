//! `glovebox setup`: from nothing to a working MCP client in one command,
//! for a person at a terminal. Five steps, each showing what it would
//! change and asking first (`--yes` answers yes for scripts): computer use
//! on, the desktop checked (`doctor`'s findings and their fixes; nothing
//! changed), accessibility on for applications started later (`setup
//! accessibility`'s changes), glovebox added to the MCP clients found and
//! picked (`mcp-config --write`'s merge, every other server kept), and a
//! private desktop started to show it works, then how to try it. A step
//! declined is skipped, not the rest. With no terminal and no `--yes`
//! nothing is changed and the reason is the answer. A client's file in a
//! shape it cannot add to is left as it was, the other steps go on, and
//! setup ends with exit 2 naming it, as `mcp-config --write` does.

use super::exit::{refused, Failure};
use super::mcp_config::{add_entry, Added, ViaArg};
use super::setup_accessibility::Plan;
use super::terminal;
use super::terminal::Heard;
use anyhow::Context as _;
use glovebox::mcp_config::{Client, Launch};
use glovebox_model::Refusal;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct GuidedArgs {
    /// Make every change without asking (for scripts, once you have read what it does).
    #[arg(long)]
    yes: bool,
    /// The MCP clients to add glovebox to (default: every one found installed).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "CLIENT,...")]
    clients: Option<Vec<Client>>,
    /// How the clients start glovebox: this binary's path, or the published package by uvx or npx.
    #[arg(long, value_enum, default_value_t = ViaArg::Path)]
    via: ViaArg,
}

const STEPS: usize = 5;

pub fn guided(config: Option<PathBuf>, args: GuidedArgs) -> Result<ExitCode, Failure> {
    // Nobody to ask and nobody said yes: nothing is changed, before anything is read.
    if !args.yes && std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").is_err() {
        return Err(Failure::NotAgreed(
            "glovebox setup asks before each change and there is no terminal to ask on; \
             nothing changed (run it in a terminal, or with --yes once you have read \
             `glovebox setup --help`)"
                .into(),
        ));
    }
    let ask = |question: &str| if args.yes { Heard::Yes } else { terminal::ask(question) };
    let mut done: Vec<String> = Vec::new();
    let mut not_added: Vec<String> = Vec::new();
    println!(
        "glovebox setup: {STEPS} steps; each shows what it would change and {}.\n",
        if args.yes { "makes it (--yes)" } else { "asks first" }
    );
    computer_use(config, &ask, &mut done)?;
    desktop();
    accessibility(&ask, &mut done)?;
    clients(&args, &ask, &mut done, &mut not_added)?;
    try_it(&ask)?;
    println!(
        "\nDone: {}.",
        if done.is_empty() { "nothing changed".to_owned() } else { done.join("; ") }
    );
    if !not_added.is_empty() {
        // As `mcp-config --write` answers a file it cannot add to: exit 2, nothing written there.
        return Err(refused(
            Refusal::invalid_argument(format!(
                "glovebox was not added to {}: {} (nothing was written to {})",
                if not_added.len() == 1 { "this client" } else { "these clients" },
                not_added.join("; "),
                if not_added.len() == 1 { "it" } else { "them" }
            )),
            false,
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn step(number: usize, title: &str) {
    println!("{number}/{STEPS} {title}");
}

/// Every line of `text` indented under its step.
fn indented(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// Whether the person said yes; a declined step is said and skipped.
fn agreed(answer: Heard) -> Result<bool, Failure> {
    match answer {
        Heard::Yes => Ok(true),
        Heard::No | Heard::Ended => {
            println!("    skipped");
            Ok(false)
        }
        Heard::NoTerminal(why) => Err(Failure::NotAgreed(format!("{why}; stopped here"))),
    }
}

fn computer_use(
    config: Option<PathBuf>,
    ask: &dyn Fn(&str) -> Heard,
    done: &mut Vec<String>,
) -> Result<(), Failure> {
    step(1, "Computer use");
    let sources = glovebox_config::Sources::standard(config);
    let layered = glovebox_config::Layered::load(&sources).map_err(|e| refused(e.into(), false))?;
    let (value, origin) = layered.get("enabled").map_err(|e| refused(e.into(), false))?;
    if value.to_string() == "true" {
        println!("    already on ({origin})");
        return Ok(());
    }
    let file = sources.user_file.clone().ok_or_else(|| {
        refused(
            Refusal::invalid_argument("no configuration directory: set HOME or XDG_CONFIG_HOME"),
            false,
        )
    })?;
    println!("    off ({origin}); turning it on sets `enabled = true` in {}", file.display());
    if agreed(ask("Turn computer use on?"))? {
        glovebox_config::set_in_file(&file, "enabled", "true")
            .map_err(|e| refused(e.into(), false))?;
        println!("    on");
        done.push(format!("computer use on ({})", file.display()));
    }
    Ok(())
}

fn desktop() {
    step(2, "The desktop");
    let progress = Progress::start("checking");
    let report = glovebox_desktop::doctor();
    progress.finish();
    print!("{}", indented(&report.render_text()));
    println!(
        "    {}",
        if report.healthy() {
            "nothing to change here; a [warn] line says what a missing package disables and how to add it"
        } else {
            "something glovebox needs is missing: the lines above say what and how to install it (setup goes on)"
        }
    );
}

fn accessibility(ask: &dyn Fn(&str) -> Heard, done: &mut Vec<String>) -> Result<(), Failure> {
    step(3, "Accessibility for the applications you start from now on");
    let plan = Plan::read(false)?;
    if plan.is_empty() {
        println!("    already on; nothing to change");
        return Ok(());
    }
    println!("    These changes (no screen reader is started or announced):");
    print!("{}", indented(&plan.shown()));
    if agreed(ask("Make these changes?"))? {
        let made = plan.make()?;
        println!("    {made}");
        done.push("accessibility on for applications started later".into());
    }
    Ok(())
}

fn clients(
    args: &GuidedArgs,
    ask: &dyn Fn(&str) -> Heard,
    done: &mut Vec<String>,
    not_added: &mut Vec<String>,
) -> Result<(), Failure> {
    step(4, "MCP clients");
    let project = std::env::current_dir().context("reading the current directory")?;
    let places = glovebox::mcp_config::Places::here(project).context("HOME is not set")?;
    let path: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    let found: Vec<(Client, String)> = Client::ALL
        .into_iter()
        .filter_map(|c| c.installed(&places, &path).map(|why| (c, why)))
        .collect();
    for (client, why) in &found {
        println!("    found {} ({why})", client.title());
    }
    let picked: Vec<Client> = match &args.clients {
        Some(named) => named.clone(),
        None => found.iter().map(|(c, _)| *c).collect(),
    };
    if picked.is_empty() {
        println!(
            "    no MCP client found (Claude Code, Cursor, VS Code, Codex); \
             `glovebox mcp-config CLIENT` prints the entry for one you install later"
        );
        return Ok(());
    }
    let launch = Launch { via: args.via.via()?, read_only: false };
    for client in picked {
        let file = client.config_file(&places);
        if !found.iter().any(|(c, _)| *c == client) {
            println!(
                "    {} was not found installed; its entry is added anyway (--clients)",
                client.title()
            );
        }
        println!(
            "    {}: add to {} (every other server there stays):",
            client.title(),
            file.display()
        );
        print!("{}", indented(&client.render(&launch)));
        if !agreed(ask(&format!("Add glovebox to {}?", client.title())))? {
            continue;
        }
        // A file in a shape it cannot add to is said and left as it is; the other clients go on.
        match add_entry(client, &launch, &file)? {
            Added::Written => {
                println!("    added");
                done.push(format!("{} starts glovebox ({})", client.title(), file.display()))
            }
            Added::AlreadyThere => println!("    already there; nothing changed"),
            Added::Refused(refusal) => {
                println!("    not added: {}", refusal.message);
                not_added.push(format!("{}: {}", client.title(), refusal.message))
            }
        }
    }
    Ok(())
}

fn try_it(ask: &dyn Fn(&str) -> Heard) -> Result<(), Failure> {
    step(5, "Try it");
    println!("    A private desktop (Xvfb, its own session and accessibility buses) started and ended shows glovebox can run its sandbox here; nothing is changed.");
    if agreed(ask("Start one now (a few seconds)?"))? {
        let progress = Progress::start("starting a private desktop");
        let started = glovebox_sandbox::Sandbox::start(glovebox_sandbox::SandboxOptions::default());
        progress.finish();
        match started {
            Ok(sandbox) => {
                println!("    it started on display {}; ending it", sandbox.display());
                sandbox.shutdown();
            }
            Err(e) => println!("    it did not start: {e} (step 2's lines say what is missing)"),
        }
    }
    println!(
        "    Then: restart your MCP client and ask it to list your windows, or from here:\n    \
         glovebox windows                      # what an agent would see\n    \
         glovebox sandbox -- glovebox-mcp-demo # a form filled in a private desktop"
    );
    Ok(())
}

/// A line saying what is under way; on a terminal the seconds count up until it ends.
struct Progress {
    what: String,
    started: Instant,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(what: &str) -> Progress {
        use std::io::IsTerminal as _;
        let started = Instant::now();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        print!("    {what}…");
        let _ = std::io::stdout().flush();
        let ticker = std::io::stdout().is_terminal().then(|| {
            let (stop, what) = (stop.clone(), what.to_owned());
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(250));
                    let seconds = started.elapsed().as_secs();
                    if seconds >= 1 {
                        print!("\r    {what}… {seconds} s");
                        let _ = std::io::stdout().flush();
                    }
                }
            })
        });
        Progress { what: what.to_owned(), started, stop, ticker }
    }

    fn finish(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
            print!("\r    {}…", self.what);
        }
        println!(" done in {:.1} s          ", self.started.elapsed().as_secs_f64());
    }
}
