//! Results at a glance: `OUT/index.html` and `OUT/junit.xml` for a batch
//! (written by `batch.rs` when it ends) and for the records of many runs
//! (`glovebox episode summarize DIR...`: the directories of batches, or a
//! Kubernetes Job's `/records/JOB` whose pods each wrote `N/record.json`).
//! An episode directory that holds no readable record is an errored row,
//! never a missing one; a record that is not a regular file (a FIFO, a
//! link) or is past [`MAX_RECORD_BYTES`] is one too, unread.

use super::super::exit::Failure;
use anyhow::Context as _;
use clap::Args;
use glovebox_episode::record::MAX_RECORD_BYTES;
use glovebox_episode::summary::{self, Counts, Row};
use glovebox_episode::{EpisodeRecord, Verdict};
use glovebox_platform::files::{read_regular, Links};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct SummarizeArgs {
    /// Directories holding episode records: an episode's own directory, a batch's `--out`, a
    /// Job's `/records/JOB`, or a directory of those.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where `index.html` and `junit.xml` go (default: the one DIR given).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the counts and every record as one JSON document on stdout.
    #[arg(long)]
    json: bool,
}

/// How deep below a given directory records are looked for: `/records` → `JOB` → `N`.
const DEPTH: usize = 3;
const RECORD: &str = "record.json";
pub const INDEX: &str = "index.html";
pub const JUNIT: &str = "junit.xml";

pub fn summarize(args: SummarizeArgs) -> Result<ExitCode, Failure> {
    let out = match (&args.out, args.dirs.as_slice()) {
        (Some(out), _) => out.clone(),
        (None, [one]) => one.clone(),
        (None, _) => {
            return Err(anyhow::anyhow!(
                "{} directories given: say where index.html and junit.xml go with --out DIR",
                args.dirs.len()
            )
            .into())
        }
    };
    let mut found = Vec::new();
    for dir in &args.dirs {
        if !dir.is_dir() {
            return Err(anyhow::anyhow!("{}: not a directory", dir.display()).into());
        }
        episode_dirs(dir, DEPTH, &mut found);
    }
    if found.is_empty() {
        return Err(anyhow::anyhow!(
            "no episode directory (one holding {RECORD}, or an episode's work/) in {}",
            args.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        )
        .into());
    }
    found.sort();
    found.dedup();
    // Made first: the links from the page to each episode are worked out from where it is.
    glovebox_platform::files::make_dirs(&out)
        .with_context(|| format!("creating {}", out.display()))?;
    let rows: Vec<Row> = found.iter().map(|dir| row(dir, &out)).collect();
    let title = format!(
        "glovebox episodes: {}",
        args.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    write(&out, &title, &rows)?;
    let counts = Counts::of(rows.iter().map(|r| &r.record));
    if args.json {
        let records: Vec<&EpisodeRecord> = rows.iter().map(|r| &r.record).collect();
        println!(
            "{}",
            serde_json::json!({
                "episodes": records,
                "summary": {"passed": counts.passed, "failed": counts.failed, "errored": counts.errored},
                "index": out.join(INDEX),
                "junit": out.join(JUNIT),
            })
        );
    } else {
        println!(
            "{} passed, {} failed, {} errored of {}: {} and {}",
            counts.passed,
            counts.failed,
            counts.errored,
            counts.total(),
            out.join(INDEX).display(),
            out.join(JUNIT).display()
        );
    }
    Ok(ExitCode::from(worst(counts).exit_status()))
}

/// The verdict a set of episodes exits with: any errored, else any failed, else passed, unless
/// none ran here at all (not run).
pub fn worst(counts: Counts) -> Verdict {
    if counts.errored > 0 {
        Verdict::Errored
    } else if counts.failed > 0 {
        Verdict::Failed
    } else if counts.not_run > 0 && counts.passed == 0 {
        // Nothing ran here: that is not a pass.
        Verdict::NotRun
    } else {
        Verdict::Passed
    }
}

/// Writes the page and the JUnit file into `out` (created if need be), readable by this user
/// alone: both carry what the checks read and the refusals, as the records do.
pub fn write(out: &Path, title: &str, rows: &[Row]) -> Result<(), Failure> {
    glovebox_platform::files::make_dirs(out)
        .with_context(|| format!("creating {}", out.display()))?;
    for (name, text) in
        [(INDEX, summary::index_html(title, rows)), (JUNIT, summary::junit_xml("glovebox", rows))]
    {
        let path = out.join(name);
        glovebox_platform::files::write_private(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// A batch's row for one record: the episode's directory is `out/NAME`.
pub fn batch_row(record: EpisodeRecord, out: &Path, group: &str) -> Row {
    let link = Some(record.episode.clone()).filter(|name| out.join(name).is_dir());
    Row { record, group: group.to_owned(), link }
}

/// Episode directories at or below `dir`: those holding a record, or an episode's `work/`
/// (a run that never wrote its record).
fn episode_dirs(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    // Anything named as the record counts (not only a regular file): its row says what it is.
    if std::fs::symlink_metadata(dir.join(RECORD)).is_ok() || dir.join("work").is_dir() {
        found.push(dir.to_path_buf());
        return;
    }
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        // Not through links: a planted one could lead the walk anywhere.
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            episode_dirs(&path, depth - 1, found);
        }
    }
}

fn row(dir: &Path, out: &Path) -> Row {
    let group = dir
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let path = dir.join(RECORD);
    // A directory without a readable record is an errored row, as a run that could not be judged.
    let unreadable = |reason: String| super::errored(&name, reason, std::time::Instant::now());
    let record = match read_regular(&path, MAX_RECORD_BYTES, Links::Refuse) {
        Ok(bytes) => serde_json::from_slice::<EpisodeRecord>(&bytes)
            .unwrap_or_else(|e| unreadable(format!("{} is not a record: {e}", path.display()))),
        Err(e) if e.is_not_found() => unreadable(format!(
            "{} holds no {RECORD}: its run never finished writing it",
            dir.display()
        )),
        Err(e) => unreadable(format!("{} could not be read: {e}", path.display())),
    };
    Row { record, group, link: relative(out, dir) }
}

/// `to` as a path from the directory `from`, with `/` separators, when both resolve.
fn relative(from: &Path, to: &Path) -> Option<String> {
    let from = std::fs::canonicalize(from).ok()?;
    let to = std::fs::canonicalize(to).ok()?;
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> =
        std::iter::repeat_n("..".to_owned(), from.len() - shared).collect();
    parts.extend(to[shared..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    Some(if parts.is_empty() { ".".to_owned() } else { parts.join("/") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_goes_up_and_down_from_the_page() {
        let base = std::env::temp_dir().join(format!("glovebox-summarize-{}", std::process::id()));
        for dir in ["a/out", "b/job/3"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        assert_eq!(relative(&base.join("a/out"), &base.join("b/job/3")).unwrap(), "../../b/job/3");
        assert_eq!(relative(&base.join("b"), &base.join("b/job/3")).unwrap(), "job/3");
        assert_eq!(relative(&base.join("b"), &base.join("b")).unwrap(), ".");
        assert_eq!(relative(&base.join("b"), &base.join("missing")), None);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
