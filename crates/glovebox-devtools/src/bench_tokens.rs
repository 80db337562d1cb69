//! Benchmark rows for what an agent reads: the text a scripted five-step
//! task sends to the model when every input result carries the whole next
//! tree, against results that carry what changed (the MCP tools' own
//! rendering, tokens estimated at four characters each), and the time a
//! diff takes on a window of a few hundred elements.

use anyhow::{Context, Result};
use glovebox_host::{Host, Observation};
use glovebox_model::{
    estimate_tokens, Action, Button, ElementId, Role, Target, TreeDiff, WindowRef,
};
use std::time::{Duration, Instant};

/// One step of a scripted task: the action, made on the frame it sees.
pub type ScriptedStep = Box<dyn Fn(&Observation) -> Result<Action>>;

pub fn element(seen: &Observation, role: Role, name: &str) -> Result<ElementId> {
    let root = seen.tree.root.as_ref().context("no tree")?;
    root.walk()
        .find(|e| e.role == role && e.name == name)
        .map(|e| e.id)
        .with_context(|| format!("no {role} {name:?}"))
}

/// set_value on the editable element named `name`, whatever its role.
pub fn set_field(name: &'static str, text: &'static str) -> ScriptedStep {
    Box::new(move |seen| {
        let root = seen.tree.root.as_ref().context("no tree")?;
        let field = root
            .walk()
            .find(|e| e.name == name && e.has(glovebox_model::ElementState::Editable))
            .with_context(|| format!("no field {name:?}"))?;
        Ok(Action::SetValue { target: Target::Element(field.id), text: text.into() })
    })
}

pub fn click(role: Role, name: &'static str) -> ScriptedStep {
    Box::new(move |seen| {
        Ok(Action::Click {
            target: Target::Element(element(seen, role, name)?),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        })
    })
}

/// Runs `steps` on `window` and prints the text tokens per step both ways.
pub fn five_steps(
    host: &Host,
    window: &WindowRef,
    label: &str,
    steps: &[ScriptedStep],
) -> Result<()> {
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let budget = host.text_budget();
    let mut seen = host.observe(Some(window), false).map_err(fail)?;
    let first = estimate_tokens(&glovebox_mcp::render::observation(&seen, budget));
    let (mut full, mut diffs) = (0usize, 0usize);
    for (i, step) in steps.iter().enumerate() {
        let action = step(&seen)?;
        let done = host
            .act(seen.frame.id, action.clone())
            .map_err(fail)
            .with_context(|| format!("{label} step {}: {action:?}", i + 1))?;
        let next = done.next.clone().map_err(fail)?;
        // Whole-tree results: the route line, then the next observation in full.
        full += estimate_tokens(&format!(
            "delivered by {}\n{}",
            done.delivery.route,
            glovebox_mcp::render::observation(&next, budget)
        ));
        diffs += estimate_tokens(&glovebox_mcp::render::acted(&done, budget));
        seen = next;
    }
    let n = steps.len();
    println!(
        "{:<58} {:>6} → {:>5} tokens/step ({:.1}x fewer; first look {first})",
        format!("tokens per input result, {label}: whole tree → changes"),
        full / n,
        diffs / n,
        full as f64 / diffs.max(1) as f64
    );
    Ok(())
}

/// The median time of one diff between two looks at `window`, and its size.
pub fn diff_time(host: &Host, window: &WindowRef, runs: usize) -> Result<(Duration, usize)> {
    let fail = |r: glovebox_model::Refusal| anyhow::anyhow!("{r}");
    let before = host.observe(Some(window), false).map_err(fail)?.tree;
    let after = host.observe(Some(window), false).map_err(fail)?.tree;
    let mut samples = vec![];
    for _ in 0..runs.max(10) {
        let start = Instant::now();
        std::hint::black_box(TreeDiff::between(&before, &after));
        samples.push(start.elapsed());
    }
    samples.sort();
    Ok((samples[samples.len() / 2], after.node_count))
}
