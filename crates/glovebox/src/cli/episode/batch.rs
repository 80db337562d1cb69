//! `glovebox episode batch DIR --parallel N`: every spec of a directory, each
//! as its own `glovebox episode run` process (its own desktop), at most N at
//! once. A spec that is refused or a run that crashes is one errored record;
//! the others run. Ctrl-C or SIGTERM stops starting new ones and ends the
//! running ones, each of which ends its own desktop. At the end it writes
//! `OUT/index.html` and `OUT/junit.xml` (`summarize.rs`).

use super::super::exit::Failure;
use super::summarize;
use anyhow::Context as _;
use clap::Args;
use glovebox_episode::summary::Counts;
use glovebox_episode::{EpisodeRecord, Verdict};
use std::collections::VecDeque;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct BatchArgs {
    /// A directory of specs (`*.toml`, `*.json`).
    dir: PathBuf,
    /// Episodes at once (1–64), each in its own desktop.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    parallel: u16,
    /// Where each episode's directory goes (`OUT/NAME`; default `episodes`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print every record and the summary as one JSON document on stdout.
    #[arg(long)]
    json: bool,
}

pub fn batch(config: Option<PathBuf>, args: BatchArgs) -> Result<ExitCode, Failure> {
    super::on_interrupt();
    let started = Instant::now();
    let specs = super::specs_in(&args.dir)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("episodes"));
    let exe = std::env::current_exe().context("finding this program")?;
    let queue = Arc::new(Mutex::new(specs.iter().cloned().enumerate().collect::<VecDeque<_>>()));
    let records = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..args.parallel.min(specs.len() as u16))
        .map(|_| {
            let (queue, records, out, exe, config) =
                (queue.clone(), records.clone(), out.clone(), exe.clone(), config.clone());
            let json = args.json;
            std::thread::spawn(move || {
                while let Some((index, spec)) = next(&queue) {
                    let record = run_one(&exe, config.as_deref(), &spec, &out);
                    if !json {
                        print!("{}", super::render(&record));
                    }
                    records.lock().unwrap_or_else(|p| p.into_inner()).push((index, record));
                }
            })
        })
        .collect();
    for worker in workers {
        let _ = worker.join();
    }
    let mut records = std::mem::take(&mut *records.lock().unwrap_or_else(|p| p.into_inner()));
    records.sort_by_key(|(index, _)| *index);
    let records: Vec<EpisodeRecord> = records.into_iter().map(|(_, r)| r).collect();
    let counts = Counts::of(&records);
    let (passed, failed, errored) = (counts.passed, counts.failed, counts.errored);
    // Specs an interrupt kept from starting; apart from tasks run and found not runnable here.
    let not_started = specs.len() - records.len();
    let not_run = counts.not_run;
    let seconds = started.elapsed().as_secs_f64();
    let group = std::path::absolute(&out)
        .ok()
        .and_then(|o| o.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "episodes".into());
    let rows: Vec<_> =
        records.iter().map(|r| summarize::batch_row(r.clone(), &out, &group)).collect();
    summarize::write(&out, &format!("glovebox episodes: {}", args.dir.display()), &rows)?;
    if args.json {
        let summary = serde_json::json!({"passed": passed, "failed": failed, "errored": errored, "not_run": not_run, "not_started": not_started, "seconds": seconds, "parallel": args.parallel, "index": out.join(summarize::INDEX), "junit": out.join(summarize::JUNIT)});
        println!("{}", serde_json::json!({"episodes": records, "summary": summary}));
    } else {
        println!(
            "{passed} passed, {failed} failed, {errored} errored{}{} of {} in {seconds:.1} s",
            if not_run > 0 { format!(", {not_run} not run here") } else { String::new() },
            if not_started > 0 { format!(", {not_started} not started") } else { String::new() },
            specs.len()
        );
    }
    let worst = if not_started > 0 { Verdict::Errored } else { summarize::worst(counts) };
    Ok(ExitCode::from(worst.exit_status()))
}

/// The next spec, unless the batch was interrupted.
fn next(queue: &Mutex<VecDeque<(usize, PathBuf)>>) -> Option<(usize, PathBuf)> {
    if super::interrupted() {
        return None;
    }
    queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front()
}

/// One episode as a `glovebox episode run` of its own; its record, or an errored one when it gave none.
/// An interrupt of the batch (Ctrl-C, or a SIGTERM that reached the batch alone) is passed on as
/// SIGTERM, on which the run ends its desktop and records the episode as interrupted.
fn run_one(exe: &Path, config: Option<&Path>, spec: &Path, out: &Path) -> EpisodeRecord {
    let started = Instant::now();
    let name = super::episode_name(spec);
    let mut command = Command::new(exe);
    if let Some(config) = config {
        command.arg("--config").arg(config);
    }
    command.args(["episode", "run"]).arg(spec).arg("--out").arg(out.join(&name)).arg("--json");
    let mut child = match command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return super::errored(&name, format!("its run did not start: {e}"), started),
    };
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut stdout) = stdout {
            let _ = stdout.read_to_end(&mut bytes);
        }
        bytes
    });
    let mut passed_on = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Err(e) => break Err(e),
            Ok(None) => {}
        }
        if super::interrupted() && !passed_on {
            passed_on = true;
            if let Ok(pid) = i32::try_from(child.id()) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGTERM,
                );
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = reader.join().unwrap_or_default();
    match status {
        Ok(status) => match serde_json::from_slice::<EpisodeRecord>(&stdout) {
            Ok(record) if Verdict::of_exit_status(status.code()) == record.verdict => record,
            Ok(record) => super::errored(
                &name,
                format!("its run exited {status} but recorded {:?}", record.verdict),
                started,
            ),
            Err(_) => {
                super::errored(&name, format!("its run ended ({status}) without a record"), started)
            }
        },
        Err(e) => super::errored(&name, format!("waiting for its run: {e}"), started),
    }
}
