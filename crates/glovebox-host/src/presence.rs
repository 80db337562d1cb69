//! What the user sees of the agent (DESIGN.md §7): the drawn cursor moved
//! to each target before delivery and pressed after it, hidden with the
//! grant; and the view the indicator page shows — the grant, the bound
//! window, the last actions with their results. Drawing never blocks or
//! replaces an action; reading the view never waits for a call in flight.

use crate::grant::State;
use crate::Host;
use glovebox_model::{CaptureLimits, Desktop, GrantView, Point, Refusal, WindowInfo};
use glovebox_platform::sync::LockRecovered as _;
use serde::Serialize;
use std::collections::VecDeque;

/// How many recent actions the view keeps.
const RECENT: usize = 8;

/// One action as the indicator lists it: what, on what, and how it ended.
/// Typed text appears as its length only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecentAction {
    /// When it was delivered or refused, in Unix milliseconds.
    pub at_ms: u64,
    /// The action in words ([`crate::describe_action`]).
    pub action: String,
    /// The element's role and name (`push button "OK"`), when it was
    /// delivered to a known element.
    pub target: Option<String>,
    /// `delivered by …` or the refusal's code.
    pub result: String,
}

/// Everything the indicator shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PresenceView {
    /// The active grant; `None` without one.
    pub grant: Option<GrantView>,
    /// The bound window's title, when there is one.
    pub window_title: Option<String>,
    /// The last few actions, oldest first.
    pub recent: Vec<RecentAction>,
    /// Stop was pressed and the cooldown has not ended.
    pub stopped: bool,
    /// The agent display runs (the page then shows it live).
    pub agent_display: bool,
    /// The person has taken the agent display over; the agent's calls are paused.
    pub taken_over: bool,
    /// The agent's question waiting for the person's answer on the page, when one is.
    pub question: Option<PageQuestion>,
}

/// The agent's question as the page shows it, with the id its answer names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageQuestion {
    /// The id `POST /answer` names.
    pub id: u64,
    /// The question.
    pub text: String,
    /// The choices, when the answer is one of them.
    pub choices: Vec<String>,
}

#[derive(Default)]
pub(crate) struct PresenceState {
    recent: VecDeque<RecentAction>,
    /// The last view read with the state free, for readers during a call.
    last: Option<PresenceView>,
    indicator_url: Option<String>,
    /// The question shown on the page, and the person's answer to it once given.
    question: Option<(u64, glovebox_model::Question)>,
    answer: Option<(u64, crate::person::Answer)>,
    questions_asked: u64,
}

impl Host {
    fn presence_state(&self) -> std::sync::MutexGuard<'_, PresenceState> {
        self.inner.presence.lock_recovered()
    }

    pub(crate) fn record_recent(&self, action: String, target: Option<String>, result: String) {
        let mut presence = self.presence_state();
        if presence.recent.len() == RECENT {
            presence.recent.pop_front();
        }
        presence.recent.push_back(RecentAction {
            at_ms: glovebox_platform::now_ms(),
            action,
            target,
            result,
        });
    }

    /// The agent's cursor on `window`, where a grant's first look (or a
    /// rebinding) puts it: just inside the top-left corner.
    pub(crate) fn show_cursor_on(&self, state: &mut State, window: &WindowInfo, revision: u64) {
        if state.cursor_revision == Some(revision) {
            return;
        }
        state.cursor_revision = Some(revision);
        self.aim_cursor(Point { x: window.geometry.x + 16, y: window.geometry.y + 16 });
    }

    pub(crate) fn aim_cursor(&self, at: Point) {
        if let Some(presence) = &self.inner.backends.presence {
            presence.aim(at);
        }
    }

    pub(crate) fn press_cursor(&self) {
        if let Some(presence) = &self.inner.backends.presence {
            presence.press();
        }
    }

    pub(crate) fn hide_cursor(&self, state: &mut State) {
        state.cursor_revision = None;
        if let Some(presence) = &self.inner.backends.presence {
            presence.hide();
        }
    }

    /// What the indicator shows now. Text an application or the agent
    /// wrote reaches the page made visible ([`glovebox_model::visible`]). Never waits for a call in flight (an
    /// open approval prompt, say): it then answers the last view it read.
    pub fn presence_view(&self) -> PresenceView {
        let stopped = self.inner.display_dir.cooldown_left().is_some();
        let recent: Vec<RecentAction> = self.presence_state().recent.iter().cloned().collect();
        let fresh = match self.inner.state.try_lock() {
            Ok(state) => Some(state.grant.as_ref().map(|g| self.page_view(g))),
            Err(std::sync::TryLockError::Poisoned(p)) => {
                Some(p.into_inner().grant.as_ref().map(|g| self.page_view(g)))
            }
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        let agent_display = self.inner.backends.agent_display.as_ref().is_some_and(|a| a.running());
        let taken_over = self.taken_over();
        let question = self.presence_state().question.as_ref().map(|(id, q)| PageQuestion {
            id: *id,
            text: shown(&q.text),
            choices: q.choices.iter().map(|c| shown(c)).collect(),
        });
        let mut presence = self.presence_state();
        let view = match fresh {
            Some(grant) => {
                let (grant, window_title) =
                    grant.map(|(g, t)| (Some(g), t)).unwrap_or((None, None));
                PresenceView {
                    grant,
                    window_title,
                    recent,
                    stopped,
                    agent_display,
                    taken_over,
                    question,
                }
            }
            None => match &presence.last {
                Some(last) => PresenceView {
                    recent,
                    stopped,
                    agent_display,
                    taken_over,
                    question,
                    ..last.clone()
                },
                None => PresenceView {
                    grant: None,
                    window_title: None,
                    recent,
                    stopped,
                    agent_display,
                    taken_over,
                    question,
                },
            },
        };
        presence.last = Some(view.clone());
        view
    }

    /// A grant as the page shows it, with its window's title.
    fn page_view(&self, grant: &crate::grant::Grant) -> (GrantView, Option<String>) {
        let mut view = self.view(grant);
        view.target_app = view.target_app.map(|app| shown(&app));
        (view, grant.target.as_ref().map(|w| shown(&w.title)))
    }

    /// The agent display's screen as a PNG for the indicator page, at most
    /// `max_width` wide; `None` while no agent display runs. Denied windows
    /// there are black, and nothing is shown while any keyboard is held by
    /// a password or authentication prompt.
    pub fn agent_display_png(&self, max_width: u32) -> Option<Result<Vec<u8>, Refusal>> {
        use crate::backend::Gated;
        let b = &self.inner.backends;
        let screen = b.agent_display.as_ref()?;
        let shown = || -> Result<Option<Vec<u8>>, Refusal> {
            crate::decide::check_secure_input(
                self.secure_input_now(None)?,
                crate::decide::Guarded::AgentDisplayView,
            )?;
            let windows = b.windows.list_windows().gated()?;
            let hidden: Vec<_> = windows
                .iter()
                .filter(|w| w.desktop == Desktop::Agent && self.denial_of(w).is_some())
                .map(|w| w.id)
                .collect();
            let limits = CaptureLimits { max_width: max_width.clamp(1, 4096), max_height: 4096 };
            match screen.view(limits, &hidden) {
                None => Ok(None),
                Some(capture) => Ok(Some(capture.gated()?.image.encode_png()?)),
            }
        };
        shown().transpose()
    }

    /// Shows `question` on the page; its id.
    pub(crate) fn put_on_page(&self, question: glovebox_model::Question) -> u64 {
        let mut presence = self.presence_state();
        presence.questions_asked += 1;
        let id = presence.questions_asked;
        presence.question = Some((id, question));
        presence.answer = None;
        id
    }

    /// The person's answer to question `id`, once the page gave it.
    pub(crate) fn take_page_answer(&self, id: u64) -> Option<crate::person::Answer> {
        let mut presence = self.presence_state();
        match presence.answer.take() {
            Some((answered, said)) if answered == id => Some(said),
            other => {
                presence.answer = other;
                None
            }
        }
    }

    /// Takes question `id` off the page.
    pub(crate) fn withdraw_from_page(&self, id: u64) {
        let mut presence = self.presence_state();
        if presence.question.as_ref().is_some_and(|(shown, _)| *shown == id) {
            presence.question = None;
        }
    }

    /// The person's answer from the page to the question `id` it shows.
    pub fn answer_on_page(&self, id: u64, said: crate::person::Answer) -> Result<(), Refusal> {
        let mut presence = self.presence_state();
        if presence.question.as_ref().is_none_or(|(shown, _)| *shown != id) {
            return Err(crate::decide::session::no_such_question_on_page(id));
        }
        presence.question = None;
        presence.answer = Some((id, said));
        Ok(())
    }

    /// Where this process serves the indicator page (its URL carries the
    /// token); the control socket hands it to `glovebox indicator`.
    pub fn set_indicator_url(&self, url: String) {
        self.presence_state().indicator_url = Some(url);
    }

    pub(crate) fn indicator_url(&self) -> Option<String> {
        self.presence_state().indicator_url.clone()
    }

    /// The indicator of the process holding this display's grant (another
    /// process), through its control socket.
    pub fn remote_indicator(
        runtime_root: &std::path::Path,
        display: &str,
    ) -> Result<glovebox_services::control::ControlReply, glovebox_model::Refusal> {
        use crate::backend::Gated as _;
        glovebox_services::control::DisplayDir::new(runtime_root, display)
            .and_then(|dir| dir.send(glovebox_services::control::ControlRequest::Indicator))
            .gated()
    }
}

/// An application's or the agent's text as the page shows it.
fn shown(text: &str) -> String {
    glovebox_model::visible(text).into_owned()
}
