//! `glovebox-mcp-demo`: glovebox's main job in one command, with no API key.
//! Run inside a sandbox desktop (`glovebox sandbox -- glovebox-mcp-demo`, or
//! `glovebox sandbox --wayland -- glovebox-mcp-demo`),
//! it starts the GTK3 fixture app, starts `glovebox mcp` as a child over
//! stdio, and drives it with a scripted MCP client the way an agent would:
//! list windows, observe, set two fields, click Submit, observe again. Each
//! step is printed — including the approval prompts glovebox sends (the
//! default `write` mode asks before input), which the script answers as the
//! user — and the fixture's own state report is checked at the end (exit 1
//! when it does not show the work). Then it hands glovebox a whole task with
//! the `computer` tool, bound to the client's own model through MCP sampling;
//! here that model is a script that reads the prompt glovebox sends it.

#[cfg(target_os = "linux")]
mod mcp_demo_linux;
#[cfg(target_os = "linux")]
mod prompts;

#[cfg(target_os = "linux")]
fn main() -> anyhow::Result<()> {
    mcp_demo_linux::main()
}

/// The demo drives a GTK3 application on a Linux sandbox desktop; elsewhere
/// it says so and does nothing.
#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!(
        "glovebox-mcp-demo runs on Linux only (it drives a GTK3 application on a sandbox desktop)"
    );
    std::process::ExitCode::FAILURE
}
