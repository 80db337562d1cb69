//! A scripted agent: each step looks at the window afresh, finds its element
//! by role and name, and goes through the host like a model's action would.
//! It stops at the first step the host refuses or whose element is not there;
//! the oracle then says whether the task got done.

use glovebox_episode::spec::Step;
use glovebox_host::Host;
use glovebox_model::{Action, Button, ElementId, Target, WindowId, WindowRef};
use std::time::Duration;

pub struct Ran {
    pub steps: u32,
    pub refusals: Vec<String>,
}

pub fn run(host: &Host, window: &WindowId, steps: &[Step]) -> Ran {
    let mut ran = Ran { steps: 0, refusals: vec![] };
    for (index, step) in steps.iter().enumerate() {
        ran.steps += 1;
        if let Err(why) = one(host, window, step) {
            ran.refusals.push(format!("agent.steps[{index}]: {why}"));
            break;
        }
    }
    ran
}

fn one(host: &Host, window: &WindowId, step: &Step) -> Result<(), String> {
    if let Step::Wait { seconds } = step {
        std::thread::sleep(Duration::from_secs_f64(*seconds));
        return Ok(());
    }
    let seen = host.observe(Some(&WindowRef::Id(*window)), false).map_err(|r| format!("{}: {}", r.code.as_str(), r.message))?;
    let element = |on: &glovebox_episode::spec::ElementAddress| -> Result<Target, String> {
        let query = on.query();
        let found: Option<ElementId> = seen.tree.root.iter().flat_map(|r| r.walk()).find(|e| query.matches(e)).map(|e| e.id);
        found.map(Target::Element).ok_or_else(|| format!("no element matches {on:?} in the window"))
    };
    let action = match step {
        Step::Click { on } => Action::Click { target: element(on)?, button: Button::Left, count: 1, modifiers: vec![] },
        Step::SetValue { on, text } => Action::SetValue { target: element(on)?, text: text.clone() },
        Step::Select { on, option } => Action::Select { target: element(on)?, option: option.clone() },
        Step::Type { text } => Action::Type { text: text.clone() },
        Step::Key { combo } => Action::Key { combo: *combo, repeat: 1 },
        Step::Wait { .. } => return Ok(()),
    };
    host.act(seen.frame.id, action).map(|_| ()).map_err(|r| format!("{}: {}", r.code.as_str(), r.message))
}
