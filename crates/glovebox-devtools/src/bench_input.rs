//! Benchmark rows for the host's input path on the GTK3 fixture: a gated
//! click with and without the agent's cursor, a click and the look after
//! it, typing and keys in the background, beside xdotool; and one step of
//! the loop with an instant model.

use super::*;

/// A host on the bench's desktop, every approval class allowed (prompts
/// have tests of their own), under a runtime root of its own so two can
/// hold grants side by side.
pub(crate) fn bench_host(
    sandbox: &Sandbox,
    root: &str,
    overlay: bool,
) -> Result<glovebox_host::Host> {
    let mut config = glovebox_host::HostConfig::new(sandbox.display());
    config.approvals = glovebox_host::Approvals::allow_all();
    config.runtime_root = sandbox.runtime_dir().join(root);
    config.audit_path = sandbox.runtime_dir().join("bench-audit.jsonl");
    config.budget = 10_000;
    let options = glovebox_linux::Options { overlay, ..Default::default() };
    let backends = glovebox_linux::backends_with(
        Some(sandbox.display()),
        Some(sandbox.bus_address()),
        &options,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    anyhow::ensure!(
        !overlay || backends.presence.is_some(),
        "the agent's cursor cannot be drawn here"
    );
    glovebox_host::Host::open(backends, config).map_err(|r| anyhow::anyhow!("{r}"))
}

/// The gated click again on a host that draws the agent's cursor (it aims
/// before and shows the press after each delivery): drawing must stay off
/// the action's path.
/// Both hosts take turns, so the machine's drift falls on both alike.
fn bench_click_with_overlay(
    sandbox: &Sandbox,
    runs: usize,
    plain: &glovebox_host::Host,
    reference: &WindowRef,
) -> Result<(Duration, Duration)> {
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let host = bench_host(sandbox, "glovebox-bench-overlay", true)?;
    let seen = host.observe(Some(reference), false).map_err(fail)?;
    let click = click_on(&seen, "Submit")?;
    let plain_seen = plain.observe(Some(reference), false).map_err(fail)?;
    let plain_click = click_on(&plain_seen, "Submit")?;
    let (mut off, mut on) = (vec![], vec![]);
    for _ in 0..=runs {
        let frame = plain.observe(None, false).map_err(fail)?.frame.id;
        let start = Instant::now();
        plain
            .perform(ActRequest::new(frame, plain_click.clone()).look(LookAfter::Nothing))
            .map_err(fail)?;
        off.push(start.elapsed());
        let frame = host.observe(None, false).map_err(fail)?.frame.id;
        let start = Instant::now();
        host.perform(ActRequest::new(frame, click.clone()).look(LookAfter::Nothing))
            .map_err(fail)?;
        on.push(start.elapsed());
    }
    off.remove(0);
    on.remove(0);
    Ok((median(off), median(on)))
}

/// `runs` gated background deliveries of `click` after one warm-up, each
/// on a fresh frame. Timed: the host's checks and the delivery; the
/// observation that makes each frame is not.
pub(crate) fn gated_clicks(
    host: &glovebox_host::Host,
    click: &glovebox_model::Action,
    runs: usize,
) -> Result<Vec<Duration>> {
    let mut samples = vec![];
    for _ in 0..=runs {
        let frame = host.observe(None, false).map_err(|r| anyhow::anyhow!("{r}"))?.frame.id;
        let start = Instant::now();
        host.perform(ActRequest::new(frame, click.clone()).look(LookAfter::Nothing))
            .map_err(|r| anyhow::anyhow!("{r}"))?;
        samples.push(start.elapsed());
    }
    samples.remove(0);
    Ok(samples)
}

/// Input rows: gated clicks and background typing through the host, next to
/// the xdotool commands a user would otherwise script.
pub(crate) fn bench_input(sandbox: &Sandbox, runs: usize, window: &WindowInfo) -> Result<()> {
    use glovebox_model::{Action, Target};
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let host = bench_host(sandbox, "glovebox-bench", false)?;
    let reference = WindowRef::Id(window.id);
    let seen = host.observe(Some(&reference), false).map_err(fail)?;
    let click = click_on(&seen, "Submit")?;
    let unobserved = gated_clicks(&host, &click, runs)?;
    // Submit again and again: after the first, the status already says so
    // and nothing changes. Details shows or hides a panel each time.
    let unchanging = clicks_with_their_looks(&host, &click, runs, Reaction::None)?;
    let details = click_on(&seen, "Details")?;
    let changing = clicks_with_their_looks(&host, &details, runs, Reaction::Some)?;
    let text: String = "The quick brown fox jumps over the lazy dog 0123456789 "
        .chars()
        .cycle()
        .take(100)
        .collect();
    let name = seen
        .tree
        .root
        .as_ref()
        .and_then(|r| {
            r.walk().find(|e| e.name == "Name" && e.has(glovebox_model::ElementState::Editable))
        })
        .map(|e| e.id)
        .context("no Name field")?;
    let mut typing = vec![];
    for _ in 0..=runs.min(10) {
        let frame = host.observe(None, false).map_err(fail)?.frame.id;
        host.perform(
            ActRequest::new(
                frame,
                Action::SetValue { target: Target::Element(name), text: String::new() },
            )
            .look(LookAfter::Nothing),
        )
        .map_err(fail)?;
        let frame = host.observe(None, false).map_err(fail)?.frame.id;
        let start = Instant::now();
        let route = host
            .perform(
                ActRequest::new(frame, Action::Type { text: text.clone() })
                    .look(LookAfter::Nothing),
            )
            .map_err(fail)?
            .delivery
            .route;
        typing.push((start.elapsed(), route));
    }
    typing.remove(0);
    let route = typing[0].1.clone();
    let typing = median(typing.into_iter().map(|(d, _)| d).collect());
    // A key by X11 events: the route checks where keys would land first.
    let mut keys = vec![];
    for _ in 0..=runs.min(10) {
        let frame = host.observe(None, false).map_err(fail)?.frame.id;
        let start = Instant::now();
        let sent = host
            .perform(
                ActRequest::new(
                    frame,
                    Action::Key { combo: "shift".parse().map_err(fail)?, repeat: 1 },
                )
                .look(LookAfter::Nothing),
            )
            .map(|done| done.delivery);
        keys.push((start.elapsed(), sent.map(|d| d.route).map_err(|r| r.to_string())));
    }
    let _warm_up = keys.remove(0);
    let key_route = keys[0].1.clone();
    let key = median(keys.into_iter().map(|(d, _)| d).collect());
    println!();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{:<58} {:>9.2} ms",
        "host: gated element click, no follow-up observation",
        ms(median(unobserved))
    );
    let (without, with_cursor) = bench_click_with_overlay(sandbox, runs, &host, &reference)?;
    println!(
        "{:<58} {:>9.2} ms",
        "host: gated click, cursor off (interleaved with the next)",
        ms(without)
    );
    println!("{:<58} {:>9.2} ms", "host: gated click, the agent's cursor drawn", ms(with_cursor));
    println!(
        "{:<58} {:>9.2} ms",
        "host: gated click + next look, the click changes nothing",
        ms(unchanging)
    );
    println!(
        "{:<58} {:>9.2} ms",
        "host: gated click + next look, a panel shown or hidden",
        ms(changing)
    );
    println!(
        "{:<58} {:>9.2} ms",
        format!("host: type 100 characters, background ({route})"),
        ms(typing)
    );
    match key_route {
        Ok(route) => {
            println!("{:<58} {:>9.2} ms", format!("host: key shift, background ({route})"), ms(key))
        }
        Err(refused) => println!("(host: key shift, background: refused: {refused})"),
    }
    // Before the xdotool rows: their foreground typing leaves keys queued in the fixture.
    use bench_tokens::{click as press, set_field};
    use glovebox_model::Role;
    let form: Vec<bench_tokens::ScriptedStep> = vec![
        set_field("Name", "Ada Lovelace"),
        set_field("Email", "ada@example.org"),
        press(Role::CheckBox, "Subscribe"),
        press(Role::PushButton, "Details"),
        press(Role::PushButton, "Submit"),
    ];
    bench_tokens::five_steps(&host, &reference, "fixture form", &form)?;
    let (diff, elements) = bench_tokens::diff_time(&host, &reference, runs)?;
    println!(
        "{:<58} {:>9.3} ms",
        format!("diff of two looks at the fixture ({elements} elements)"),
        ms(diff)
    );
    match which("xdotool") {
        Some(xdotool) => {
            let (x, y) = (window.geometry.x + 100, window.geometry.y + 100);
            let (xs, ys) = (x.to_string(), y.to_string());
            let moved = measure(runs, || {
                run_tool(sandbox, &xdotool, &["mousemove", &xs, &ys, "click", "1"])
            })?;
            println!("{:<58} {:>9.2} ms", "xdotool mousemove X Y click 1 (foreground)", ms(moved));
            let typed = measure(runs.min(5), || run_tool(sandbox, &xdotool, &["type", &text]))?;
            println!(
                "{:<58} {:>9.2} ms",
                "xdotool type (100 characters, default 12 ms delay)",
                ms(typed)
            );
            let fast = measure(runs.min(10), || {
                run_tool(sandbox, &xdotool, &["type", "--delay", "0", &text])
            })?;
            println!("{:<58} {:>9.2} ms", "xdotool type --delay 0 (100 characters)", ms(fast));
        }
        None => println!("(skipping xdotool rows: install xdotool)"),
    }
    bench_loop(&host, runs, window)
}

/// A model that answers at once: it clicks Cancel, found in the prompt's tree.
struct InstantModel;

impl glovebox_agent::Model for InstantModel {
    fn name(&self) -> String {
        "bench/instant".into()
    }
    fn accepts_images(&self) -> bool {
        true
    }
    fn decide(
        &mut self,
        request: &glovebox_agent::DecideRequest,
    ) -> Result<glovebox_agent::Reply, glovebox_agent::ModelError> {
        let id = request
            .user
            .lines()
            .find(|l| l.contains("\"Cancel\"") && l.contains('@'))
            .and_then(|l| l.split_whitespace().find(|w| w.starts_with("@e")));
        let id = id.ok_or_else(|| {
            glovebox_agent::ModelError::InvalidResponse("no Cancel in the tree".into())
        })?;
        let decision = serde_json::json!({"decision": {"kind": "action", "action": {"action": "click", "target": {"element": id}, "button": "left", "count": 1}}});
        Ok(glovebox_agent::Reply { decision: decision.to_string(), usage: None })
    }
}

/// The loop's own cost per step (observe with screenshot, prompt, checks,
/// delivery; the model answers at once), and one OpenAI GA executor batch
/// (click at a pixel, then the one screenshot it returns).
fn bench_loop(host: &glovebox_host::Host, runs: usize, window: &WindowInfo) -> Result<()> {
    use glovebox_agent::Task;
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let steps = runs.clamp(2, 50) as u32;
    let task = Task {
        max_steps: steps,
        window: Some(WindowRef::Id(window.id)),
        ..Task::new("press Cancel")
    };
    let start = Instant::now();
    let outcome = glovebox_agent::run(host, &mut InstantModel, &task, &mut |_| {}).map_err(fail)?;
    let elapsed = start.elapsed();
    anyhow::ensure!(
        outcome.summary.delivered.len() as u32 == steps,
        "the loop delivered {} of {steps} clicks: {:?}",
        outcome.summary.delivered.len(),
        outcome.summary.stop
    );
    let settle = Duration::from_millis(150) * steps;
    let per_step = (elapsed.saturating_sub(settle)) / steps;
    println!(
        "{:<58} {:>9.2} ms",
        format!("loop: one step, instant model ({steps} steps, 150 ms settle excluded)"),
        per_step.as_secs_f64() * 1000.0
    );

    let openai = glovebox_wire::OpenAiExecutor::new(
        host.clone(),
        glovebox_wire::ExecutorOptions {
            window: Some(WindowRef::Id(window.id)),
            ..Default::default()
        },
    );
    // Cancel's centre in the screenshot's pixels (the window at scale 1 within the limits).
    let seen = host.observe(Some(&WindowRef::Id(window.id)), false).map_err(fail)?;
    let cancel = seen
        .tree
        .root
        .as_ref()
        .and_then(|r| r.walk().find(|e| e.name == "Cancel"))
        .and_then(|e| e.screen_bounds)
        .context("no Cancel button")?;
    let g = seen.frame.geometry;
    let (x, y) =
        (cancel.x - g.x + cancel.width as i32 / 2, cancel.y - g.y + cancel.height as i32 / 2);
    let click = serde_json::json!({"type": "computer_call", "call_id": "bench", "actions": [{"type": "click", "button": "left", "x": x, "y": y}]});
    let first = serde_json::json!({"type": "computer_call", "call_id": "bench-0", "actions": [{"type": "screenshot"}]});
    openai.execute(&first).map_err(|e| anyhow::anyhow!("{}", e.refusal))?;
    let batch = measure(runs, || {
        openai.execute(&click).map(|_| ()).map_err(|e| anyhow::anyhow!("{}", e.refusal))
    })?;
    println!(
        "{:<58} {:>9.2} ms",
        "wire: OpenAI GA batch (click at a pixel + screenshot PNG)",
        batch.as_secs_f64() * 1000.0
    );
    Ok(())
}

/// What a click in [`clicks_with_their_looks`] must be said to have done.
#[derive(PartialEq)]
enum Reaction {
    None,
    Some,
}

/// The median of `click` with its next look (settled by the app's events),
/// each checked to have done what `reaction` says: a row that claims "no
/// change" must be told no change.
fn clicks_with_their_looks(
    host: &glovebox_host::Host,
    click: &glovebox_model::Action,
    runs: usize,
    reaction: Reaction,
) -> Result<Duration> {
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let mut frame = host.observe(None, false).map_err(fail)?.frame.id;
    let mut warm = true;
    measure(runs, || {
        let done = host.act(frame, click.clone()).map_err(fail)?;
        let unchanged = done.changes.as_ref().is_some_and(|c| c.is_empty());
        anyhow::ensure!(
            warm || unchanged == (reaction == Reaction::None),
            "the click was said to change {}",
            if unchanged { "nothing" } else { "something" }
        );
        warm = false;
        frame = done.next.map_err(fail)?.frame.id;
        Ok(())
    })
}

/// A left click on the button named `name` in `seen`.
fn click_on(seen: &glovebox_host::Observation, name: &str) -> Result<glovebox_model::Action> {
    use glovebox_model::{Action, Button, Target};
    let button = seen
        .tree
        .root
        .as_ref()
        .and_then(|r| r.walk().find(|e| e.name == name))
        .map(|e| e.id)
        .with_context(|| format!("no {name} button"))?;
    Ok(Action::Click {
        target: Target::Element(button),
        button: Button::Left,
        count: 1,
        modifiers: vec![],
    })
}
