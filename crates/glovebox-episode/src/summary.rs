//! Many records at a glance: the counts by verdict, an HTML page with one
//! row per episode (verdict, time, steps, the first check that did not
//! hold, the first refusal, a link to its report, filters by verdict) and
//! JUnit XML as CI systems read it (one test case per episode; a failed
//! verdict is a `<failure>`, an errored one an `<error>`). Written by
//! `glovebox episode batch` and `glovebox episode summarize`; this module
//! only renders, the binary finds the records and writes the files.

use crate::record::{EpisodeRecord, Verdict};
use glovebox_model::markup::escape as markup;
use std::fmt::Write as _;

/// One episode's row: its record and where its directory is, relative to
/// the page (`None` when the page cannot link to it).
#[derive(Debug, Clone)]
pub struct Row {
    /// The record as the run wrote it.
    pub record: EpisodeRecord,
    /// The group it belongs to: the batch or Job directory it was found in.
    pub group: String,
    /// The episode's directory from the summary's own directory, with `/`
    /// separators (`form`, `../other-batch/3`).
    pub link: Option<String>,
}

/// The counts by verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Episodes whose every check held.
    pub passed: usize,
    /// Episodes whose task was not done.
    pub failed: usize,
    /// Episodes that could not be judged.
    pub errored: usize,
    /// Episodes not run here, each with its reason (OSWorld-format tasks this machine cannot carry).
    pub not_run: usize,
}

impl Counts {
    /// The counts of these records.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a EpisodeRecord>) -> Counts {
        let mut counts = Counts::default();
        for record in records {
            match record.verdict {
                Verdict::Passed => counts.passed += 1,
                Verdict::Failed => counts.failed += 1,
                Verdict::Errored => counts.errored += 1,
                Verdict::NotRun => counts.not_run += 1,
            }
        }
        counts
    }

    /// Every episode counted.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.errored + self.not_run
    }
}

/// The word a verdict is shown and filtered by.
pub fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "passed",
        Verdict::Failed => "failed",
        Verdict::Errored => "errored",
        Verdict::NotRun => "not_run",
    }
}

/// The group a row is shown and counted in: its directory, and an OSWorld task's domain in it.
pub fn group_of(row: &Row) -> String {
    match &row.record.domain {
        Some(domain) => format!("{}/{domain}", row.group),
        None => row.group.clone(),
    }
}

/// The first check that did not hold, in words with what was seen.
pub fn failed_check(record: &EpisodeRecord) -> Option<String> {
    record.checks.iter().find(|c| !c.held).map(|c| format!("{} — saw {}", c.check, c.saw))
}

/// Why the episode did not pass, in one line: its reason and its first failed check.
pub fn why(record: &EpisodeRecord) -> String {
    match (&record.reason, failed_check(record)) {
        (Some(reason), Some(check)) => format!("{reason}: {check}"),
        (Some(reason), None) => reason.clone(),
        (None, check) => check.unwrap_or_default(),
    }
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:2em}\
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.35em .5em;\
text-align:left;vertical-align:top}th{background:#f4f4f4}td.n{text-align:right;white-space:nowrap}\
tr.passed td.v{color:#0a6a0a}tr.failed td.v{color:#a00;font-weight:bold}\
tr.errored td.v{color:#8a5a00;font-weight:bold}nav a{margin-right:1em}nav a.on{font-weight:bold}\
.why{max-width:40em;overflow-wrap:anywhere}";

/// Rows are hidden by verdict from the address's fragment (`index.html#failed`), so a filtered
/// view can be linked to; without script every row shows.
const SCRIPT: &str = "function show(){var f=location.hash.slice(1);\
if(['passed','failed','errored','not_run'].indexOf(f)<0)f='all';\
document.querySelectorAll('tbody tr').forEach(function(r){r.hidden=f!=='all'&&r.dataset.verdict!==f;});\
document.querySelectorAll('nav a').forEach(function(a){a.className=a.hash.slice(1)===f?'on':'';});}\
addEventListener('hashchange',show);addEventListener('DOMContentLoaded',show);";

/// The page: counts, filters, one row per episode in the order given.
pub fn index_html(title: &str, rows: &[Row]) -> String {
    let counts = Counts::of(rows.iter().map(|r| &r.record));
    let seconds: f64 = rows.iter().map(|r| r.record.seconds).sum();
    let mut page = String::new();
    let _ = write!(
        page,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>{STYLE}</style><script>{SCRIPT}</script></head><body><h1>{title}</h1>\
         <p id=\"counts\">{} passed, {} failed, {} errored, {} not run of {} ({seconds:.1} s of episodes)</p>\
         <nav><a href=\"#all\">all ({})</a><a href=\"#passed\">passed ({})</a>\
         <a href=\"#failed\">failed ({})</a><a href=\"#errored\">errored ({})</a>\
         <a href=\"#not_run\">not run ({})</a></nav>\
         <table><thead><tr><th>episode</th><th>group</th><th>verdict</th><th>time (s)</th>\
         <th>steps</th><th>why it did not pass</th><th>refusals</th><th>report</th></tr></thead><tbody>",
        counts.passed,
        counts.failed,
        counts.errored,
        counts.not_run,
        counts.total(),
        counts.total(),
        counts.passed,
        counts.failed,
        counts.errored,
        counts.not_run,
        title = markup(title),
    );
    for row in rows {
        let record = &row.record;
        let verdict = verdict_word(record.verdict);
        let refusals = match record.refusals.as_slice() {
            [] => String::new(),
            [one] => markup(one),
            [first, rest @ ..] => format!("{} (and {} more)", markup(first), rest.len()),
        };
        let report = match (&row.link, &record.report) {
            (Some(link), Some(_)) => {
                format!("<a href=\"{}/report.html\">report</a>", markup(&url_path(link)))
            }
            (Some(link), None) => {
                format!("<a href=\"{}/record.json\">record</a>", markup(&url_path(link)))
            }
            (None, _) => String::new(),
        };
        let _ = write!(
            page,
            "<tr class=\"{verdict}\" data-verdict=\"{verdict}\"><td>{}</td><td>{}</td>\
             <td class=\"v\">{verdict}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td>\
             <td class=\"why\">{}</td><td class=\"why\">{refusals}</td><td>{report}</td></tr>",
            markup(&record.episode),
            markup(&group_of(row)),
            record.seconds,
            record.steps,
            if record.verdict == Verdict::Passed { String::new() } else { markup(&why(record)) },
        );
    }
    page.push_str("</tbody></table></body></html>\n");
    page
}

/// JUnit XML: one `<testsuite>` per group, one `<testcase>` per episode.
pub fn junit_xml(suite: &str, rows: &[Row]) -> String {
    let counts = Counts::of(rows.iter().map(|r| &r.record));
    let seconds: f64 = rows.iter().map(|r| r.record.seconds).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" \
         time=\"{seconds:.3}\">",
        markup(suite),
        counts.total(),
        counts.failed,
        counts.errored,
        counts.not_run,
    );
    let mut groups: Vec<String> = Vec::new();
    for row in rows {
        let group = group_of(row);
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    for group in groups {
        let members: Vec<&Row> = rows.iter().filter(|r| group_of(r) == group).collect();
        let counts = Counts::of(members.iter().map(|r| &r.record));
        let time: f64 = members.iter().map(|r| r.record.seconds).sum();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" \
             time=\"{time:.3}\">",
            markup(&group),
            counts.total(),
            counts.failed,
            counts.errored,
            counts.not_run,
        );
        for row in members {
            let record = &row.record;
            let _ = write!(
                xml,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                markup(&format!("{suite}.{group}")),
                markup(&record.episode),
                record.seconds,
            );
            let element = match record.verdict {
                Verdict::Passed => {
                    xml.push_str("/>\n");
                    continue;
                }
                Verdict::Failed => "failure",
                Verdict::Errored => "error",
                Verdict::NotRun => "skipped",
            };
            let why = why(record);
            let mut detail = String::new();
            for check in &record.checks {
                let _ = writeln!(
                    detail,
                    "[{}] {} — saw {}",
                    if check.held { "ok" } else { "no" },
                    check.check,
                    check.saw
                );
            }
            for refusal in &record.refusals {
                let _ = writeln!(detail, "refused: {refusal}");
            }
            let _ = write!(
                xml,
                ">\n      <{element} message=\"{}\" type=\"{}\">{}</{element}>\n",
                markup(&why),
                verdict_word(record.verdict),
                markup(&detail),
            );
            if let Some(link) = &row.link {
                let _ = writeln!(
                    xml,
                    "      <system-out>{}</system-out>",
                    markup(&format!("{link}/record.json"))
                );
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// A relative link's path with each segment percent-encoded where a URL needs it.
fn url_path(link: &str) -> String {
    let mut out = String::with_capacity(link.len());
    for byte in link.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            other => {
                let _ = write!(out, "%{other:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::CheckReading;

    fn record(episode: &str, verdict: Verdict) -> EpisodeRecord {
        EpisodeRecord {
            episode: episode.into(),
            verdict,
            reason: (verdict == Verdict::Errored).then(|| "the desktop did not start".into()),
            steps: 3,
            refusals: if verdict == Verdict::Failed {
                vec!["COMPUTER_SECURE_INPUT: a <password> field".into(), "second".into()]
            } else {
                vec![]
            },
            checks: vec![CheckReading {
                check: "file state.json contains \"Ada\"".into(),
                held: verdict == Verdict::Passed,
                saw: "{\"name\": \"\u{1}Bob & co\"}".into(),
            }],
            seconds: 1.25,
            model_tokens: None,
            score: None,
            domain: None,
            report: Some("/records/x/report.html".into()),
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            Row {
                record: record("form", Verdict::Passed),
                group: "b1".into(),
                link: Some("form".into()),
            },
            Row {
                record: record("web form", Verdict::Failed),
                group: "b1".into(),
                link: Some("web form".into()),
            },
            Row { record: record("calc", Verdict::Errored), group: "b2".into(), link: None },
            Row {
                record: EpisodeRecord {
                    reason: Some("the getter `open_tabs_info` is not served here".into()),
                    domain: Some("chrome".into()),
                    checks: vec![],
                    ..record("tabs", Verdict::NotRun)
                },
                group: "b2".into(),
                link: None,
            },
        ]
    }

    #[test]
    fn the_page_has_a_row_per_episode_with_its_why_and_link_escaped() {
        let page = index_html("episodes <b1>", &rows());
        assert_eq!(page.matches("<tr class=").count(), 4);
        assert!(page.contains("1 passed, 1 failed, 1 errored, 1 not run of 4"));
        // A task not run shows why, in its domain's group.
        assert!(page.contains("<td>b2/chrome</td><td class=\"v\">not_run</td>"), "{page}");
        assert!(page.contains("the getter `open_tabs_info` is not served here"));
        assert!(page.contains("<title>episodes &lt;b1&gt;</title>"));
        assert!(page.contains("<a href=\"web%20form/report.html\">report</a>"));
        assert!(page.contains("file state.json contains &quot;Ada&quot; — saw {&quot;name&quot;: &quot;Bob &amp; co&quot;}"));
        assert!(page.contains("COMPUTER_SECURE_INPUT: a &lt;password&gt; field (and 1 more)"));
        assert!(page.contains("the desktop did not start"));
        assert!(!page.contains('\u{1}'));
    }

    #[test]
    fn junit_counts_failures_and_errors_per_group_and_in_all() {
        let xml = junit_xml("glovebox", &rows());
        assert!(xml.contains(
            "<testsuites name=\"glovebox\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""
        ));
        assert!(xml.contains("<testsuite name=\"b1\" tests=\"2\" failures=\"1\" errors=\"0\""));
        assert!(xml.contains("<testsuite name=\"b2\" tests=\"1\" failures=\"0\" errors=\"1\""));
        // An OSWorld task's domain is a suite of its own; not run is skipped, neither failed nor errored.
        assert!(xml.contains("<testsuite name=\"b2/chrome\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""), "{xml}");
        assert!(xml.contains("<skipped message=\"the getter `open_tabs_info` is not served here\" type=\"not_run\">"), "{xml}");
        assert!(xml.contains("<testcase classname=\"glovebox.b1\" name=\"form\" time=\"1.250\"/>"));
        assert!(xml.contains("<failure message=\"file state.json contains &quot;Ada&quot;"));
        assert!(xml.contains("<error message=\"the desktop did not start: file state.json"));
        assert!(!xml.contains('\u{1}'));
    }
}
