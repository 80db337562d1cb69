//! The person's take-over of the agent display and the agent's input in
//! flight: nothing the agent sent is delivered once the take-over took
//! effect, however long the input's last checks took.

use super::*;
use glovebox_platform::{AgentScreen, BackendError, Capture};
use std::sync::mpsc;

/// An agent display that runs, on the fake desktop.
struct Running(Backends);

impl AgentScreen for Running {
    fn running(&self) -> bool {
        true
    }
    fn view(
        &self,
        _: glovebox_model::CaptureLimits,
        _: &[WindowId],
    ) -> Option<Result<Capture, BackendError>> {
        None
    }
    fn person_input(&self, _: &glovebox_model::PersonInput) -> Option<Result<(), BackendError>> {
        Some(Ok(()))
    }
    fn persons_desktop(&self) -> Backends {
        self.0.clone()
    }
}

#[test]
fn no_agent_input_is_delivered_once_the_person_has_taken_over() {
    let world = World::new("takeover-in-flight");
    let processes: Arc<dyn glovebox_platform::process::ProcessTable> = Arc::new(World::processes());
    let mut backends =
        Backends::of_fake_desktop(world.desktop.clone(), processes.clone(), PROTECTED);
    let agent = Backends::of_fake_desktop(world.desktop.clone(), processes, PROTECTED);
    backends.agent_display = Some(Arc::new(Running(agent)));
    let host = Host::open(backends, world.config.clone()).unwrap();
    let seen = host.observe(None, false).unwrap();

    // The input's last look for a focused password field is slow; the person presses Take over meanwhile.
    let (probing, probe_runs) = mpsc::channel();
    let (go_on, held) = mpsc::channel();
    *world.desktop.probe_gate.lock().unwrap() = Some((probing, held));
    let person = host.clone();
    let desktop = world.desktop.clone();
    let pressing = std::thread::spawn(move || {
        probe_runs.recv_timeout(Duration::from_secs(10)).expect("the probe ran");
        // What had been delivered when the take-over took effect (it has once it returns).
        let presser = std::thread::spawn(move || {
            let answer = person.take_over();
            (answer, desktop.delivered.lock().unwrap().len())
        });
        std::thread::sleep(Duration::from_millis(200));
        go_on.send(()).unwrap();
        presser
    });
    let acted = host.act(seen.frame.id, Action::Type { text: "agent text".into() });
    let presser = pressing.join().unwrap();
    let (answer, delivered_when_taken) = presser.join().unwrap();
    assert_eq!(answer, Ok(true), "the person has the agent display");
    *world.desktop.probe_gate.lock().unwrap() = None;
    let delivered = world.desktop.delivered.lock().unwrap().len();
    // Either the input went out before the take-over took effect, or it was refused as paused.
    match acted {
        Ok(_) => assert_eq!(
            delivered_when_taken, delivered,
            "the agent's text was delivered after the person had taken over"
        ),
        Err(refusal) => {
            assert_eq!(refusal.code, ErrorCode::PausedByUser, "{refusal}");
            assert_eq!(delivered, 0);
        }
    }
    // From now on, nothing of the agent's is delivered.
    let before = world.desktop.delivered.lock().unwrap().len();
    assert_eq!(code(host.act(seen.frame.id, click(OK_BUTTON))), ErrorCode::PausedByUser);
    assert_eq!(world.desktop.delivered.lock().unwrap().len(), before);
}
