//! The trajectory report: one self-contained HTML file per run (no external
//! resources), with each step's screenshot when pixels were allowed, the
//! action's target drawn on it, the tree excerpt the model saw, the model's
//! decision, the host's verdict and timings. Every piece of screen or model
//! text is HTML-escaped: a report must not run what a window or a model wrote.

use crate::trajectory::{DecisionRecord, Step, Summary, Verdict};
use base64::Engine as _;
use glovebox_model::markup::escape;
use std::fmt::Write as _;

/// Where reports go by default: `runs/` beside the audit trail's directory
/// (`$XDG_STATE_HOME/glovebox/runs`), named `<prefix>-<unix ms>.html`.
pub fn default_path(prefix: &str) -> std::path::PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    default_dir().join(format!("{prefix}-{stamp}.html"))
}

fn default_dir() -> std::path::PathBuf {
    glovebox_services::os::state_dir().join("runs")
}

/// Writes a report to `path` as a private file (0600): it holds the run's
/// screenshots and the text typed. The default directory is glovebox's and
/// made private (0700, tightened if looser); a directory the user named
/// (`--report`, an episode's) only has its missing parts made, 0700.
pub fn write(path: &std::path::Path, page: &str) -> std::io::Result<()> {
    use glovebox_platform::files;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if dir == default_dir() {
            files::private_dir(dir)?;
        } else {
            files::make_dirs(dir)?;
        }
    }
    files::write_private(path, page.as_bytes())
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}\
h1{font-size:20px}section{border-top:1px solid #ccc;padding:1em 0}\
.shot{position:relative;display:inline-block;max-width:100%}.shot img{max-width:100%;display:block;border:1px solid #999}\
.shot svg{position:absolute;left:0;top:0;width:100%;height:100%}\
pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:24em;font-size:12px}\
.delivered{color:#0a6a0a}.refused{color:#a00}.meta{color:#555}";

/// The report of one run as an HTML document.
pub fn html(instruction: &str, summary: &Summary, steps: &[Step]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>glovebox run</title><style>{STYLE}</style></head><body>\
<h1>glovebox run</h1><p><b>Instruction:</b> {}</p><p class=\"meta\">model {} · {} of {} steps</p><pre>{}</pre>",
        escape(instruction),
        escape(&summary.model),
        summary.steps,
        summary.max_steps,
        escape(&summary.render())
    );
    for step in steps {
        step_html(&mut out, step);
    }
    out.push_str("</body></html>\n");
    out
}

fn step_html(out: &mut String, step: &Step) {
    let window = step.window.map(|w| w.to_string()).unwrap_or_default();
    let _ = write!(
        out,
        "<section><h2>Step {}</h2><p class=\"meta\">window {} {} · frame {}</p>",
        step.index,
        escape(&window),
        escape(&format!("{:?}", step.window_title)),
        step.frame.map(|f| f.to_string()).unwrap_or_default()
    );
    match (&step.screenshot, step.image) {
        (Some(png), Some(size)) => {
            let data = base64::engine::general_purpose::STANDARD.encode(&png.bytes);
            let _ = write!(out, "<div class=\"shot\"><img alt=\"screenshot of step {}\" src=\"data:image/png;base64,{data}\">", step.index);
            if let Some(p) = step.target_drawn {
                // The overlay shares the image's pixel space, so it scales with it.
                let r = (size.width.max(size.height) / 60).max(6);
                let _ = write!(
                    out,
                    "<svg viewBox=\"0 0 {} {}\" preserveAspectRatio=\"none\"><circle cx=\"{}\" cy=\"{}\" r=\"{r}\" fill=\"none\" stroke=\"#e00\" stroke-width=\"3\"/>\
<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e00\" stroke-width=\"2\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e00\" stroke-width=\"2\"/></svg>",
                    size.width,
                    size.height,
                    p.x,
                    p.y,
                    p.x - 2 * r as i32,
                    p.y,
                    p.x + 2 * r as i32,
                    p.y,
                    p.x,
                    p.y - 2 * r as i32,
                    p.x,
                    p.y + 2 * r as i32
                );
            }
            out.push_str("</div>");
        }
        _ => out.push_str(
            "<p class=\"meta\">no screenshot (the grant or the model took the tree alone)</p>",
        ),
    }
    if let Some(p) = step.target_drawn {
        let _ = write!(out, "<p class=\"meta\">target at image pixel ({}, {})</p>", p.x, p.y);
    }
    let decision = match &step.decision {
        DecisionRecord::Parsed { decision } => {
            serde_json::to_string_pretty(decision).unwrap_or_default()
        }
        DecisionRecord::Unparsed { excerpt } => format!("(outside the schema) {excerpt}"),
    };
    let _ = write!(
        out,
        "<p><b>Decision</b> ({} ms{})</p><pre>{}</pre>",
        step.model_ms,
        step.tokens.map(|(i, o)| format!(", {i} tokens in, {o} out")).unwrap_or_default(),
        escape(&decision)
    );
    let (class, verdict) = match &step.verdict {
        Verdict::Delivered { route } => ("delivered", format!("delivered via {route}")),
        Verdict::Refused { code, message } => ("refused", format!("refused {code}: {message}")),
        Verdict::Switched { window } => ("delivered", format!("bound to window {window}")),
        Verdict::Finished => ("meta", "finished".to_owned()),
        Verdict::Asked => ("meta", "asked the user".to_owned()),
        Verdict::Answered { answer: Some(answer), .. } => {
            ("meta", format!("the person answered {answer:?}"))
        }
        Verdict::Answered { answer: None, .. } => {
            ("meta", "the person answered (kept private)".to_owned())
        }
    };
    let _ = write!(
        out,
        "<p class=\"{class}\"><b>Host:</b> {} ({} ms)</p>",
        escape(&format!(
            "{}{verdict}",
            step.action.as_ref().map(|a| format!("{a} → ")).unwrap_or_default()
        )),
        step.act_ms
    );
    if let Some(changes) = &step.changes {
        let _ =
            write!(out, "<p class=\"meta\"><b>What changed:</b></p><pre>{}</pre>", escape(changes));
    }
    let _ = write!(
        out,
        "<details><summary>Tree excerpt the model saw</summary><pre>{}</pre></details></section>",
        escape(&step.tree_excerpt)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Png;
    use crate::trajectory::StopReason;
    use glovebox_model::{ErrorCode, FrameId, Point, Size, WindowId};

    fn step(index: u32, verdict: Verdict, screenshot: bool) -> Step {
        Step {
            index,
            window: Some(WindowId { pid: 7, handle: 0x40 }),
            window_title: "<script>alert(1)</script>".into(),
            frame: Some(FrameId(3)),
            image: Some(Size::new(200, 100)),
            tree_excerpt: "@e2 push button \"<b>OK</b>\"".into(),
            screenshot: screenshot.then(|| Png {
                bytes: b"\x89PNG fake".to_vec(),
                width: 200,
                height: 100,
            }),
            decision: DecisionRecord::Unparsed {
                excerpt: "</pre><img src=x onerror=alert(1)>".into(),
            },
            action: Some("click push button \"OK\"".into()),
            target_drawn: Some(Point { x: 50, y: 20 }),
            verdict,
            changes: None,
            model_ms: 12,
            act_ms: 3,
            tokens: None,
        }
    }

    #[test]
    fn report_is_self_contained_and_escapes_screen_and_model_text() {
        let steps = vec![
            step(1, Verdict::Delivered { route: "at-spi:DoAction".into() }, true),
            step(
                2,
                Verdict::Refused { code: ErrorCode::StaleRef, message: "observe again".into() },
                false,
            ),
        ];
        let summary = crate::trajectory::Summary::of(
            &steps,
            StopReason::Done,
            5,
            None,
            "scripted/test".into(),
        );
        let page = html("press <OK>", &summary, &steps);
        assert!(!page.contains("<script>") && !page.contains("<img src=x"), "{page}");
        assert!(page.contains("press &lt;OK&gt;"));
        assert!(page.contains("data:image/png;base64,"), "the screenshot is inline");
        assert!(page.contains("<circle cx=\"50\" cy=\"20\""), "the target is drawn");
        assert!(page.contains("COMPUTER_STALE_REF"));
        assert!(!page.contains("src=\"http"), "no external resources");
    }
}
