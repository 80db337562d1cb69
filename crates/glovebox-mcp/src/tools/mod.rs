//! The tools' bodies, one file per group: [`look`] (list_windows, observe,
//! zoom, wait), [`input`] (click … batch), [`apps`] (open_app, open_url),
//! [`replay`], [`session`] (switch_window, grant_status) and [`delegate`]
//! (computer) and [`ask`] (ask_user). Each group is a router of its own; [`router`] joins them.
//! Which tools exist, in which order and which are input tools is declared
//! once, in [`crate::TOOLS`].

mod apps;
pub(crate) mod ask;
mod delegate;
mod input;
mod look;
mod replay;
mod session;

use crate::GloveboxServer;
use glovebox_model::{Refusal, WindowRef};
use rmcp::handler::server::router::tool::ToolRouter;

/// Every tool, every group's router joined.
pub(crate) fn router() -> ToolRouter<GloveboxServer> {
    GloveboxServer::look_router()
        + GloveboxServer::input_router()
        + GloveboxServer::apps_router()
        + GloveboxServer::replay_router()
        + GloveboxServer::session_router()
        + GloveboxServer::delegate_router()
        + GloveboxServer::ask_router()
}

fn window_ref(text: &str) -> Result<WindowRef, Refusal> {
    text.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_routers_serve_exactly_the_declared_tools() {
        let mut served: Vec<String> =
            router().list_all().into_iter().map(|t| t.name.to_string()).collect();
        let mut declared: Vec<String> = crate::TOOLS.iter().map(|t| t.name.to_owned()).collect();
        served.sort();
        declared.sort();
        assert_eq!(served, declared);
    }

    #[test]
    fn the_input_tools_are_those_the_table_marks() {
        assert_eq!(crate::TOOL_ORDER, crate::TOOLS.iter().map(|t| t.name).collect::<Vec<_>>());
        assert_eq!(
            crate::INPUT_TOOLS,
            crate::TOOLS.iter().filter(|t| t.input).map(|t| t.name).collect::<Vec<_>>()
        );
    }
}
