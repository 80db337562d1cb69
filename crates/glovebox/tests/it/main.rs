//! The integration tests of glovebox-cli, one binary: each module was a test
//! binary of its own, and each keeps its own private desktop
//! (`Sandbox::shared(module_path!())`).

mod action_matrix;
mod agent_display_x11;
mod cli;
mod cold_desktop;
mod computer_x11;
mod deploy;
mod episodes;
mod faults_x11;
mod gtk4_routes_x11;
mod host_x11;
mod input_x11;
mod lent_keys_x11;
mod libreoffice_matrix;
mod main_job;
mod mcp_config;
mod mcp_current;
mod mcp_stdio;
mod memo_agrees_x11;
mod observations_x11;
mod packaging;
mod presence_x11;
mod published_packages;
mod real_apps_x11;
mod reference_docs;
mod replay;
mod resume;
mod sdk_clients;
mod secure_input_x11;
mod seen_pixels;
mod settle_x11;
mod setup_guided;
mod tools_x11;
mod wayland;
mod wire_x11;
