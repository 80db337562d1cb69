#![cfg(target_os = "linux")]
use glovebox_host::{Host, HostConfig};
use glovebox_model::{Desktop, WindowRef};
use glovebox_sandbox::fixture::wait_until;
use glovebox_sandbox::Sandbox;
#[test]
fn explore() {
    let (sandbox, _turn) = Sandbox::shared_turn();
    let mut config = HostConfig::new(sandbox.display());
    config.approvals = glovebox_host::Approvals::allow_all();
    config.runtime_root = sandbox.runtime_dir().join("g-explore");
    config.audit_path = sandbox.runtime_dir().join("a-explore.jsonl");
    let host = Host::open(glovebox_linux::backends(Some(sandbox.display()), Some(sandbox.bus_address())).unwrap(), config).unwrap();
    let opened = host.open_app("gtk4-widget-factory", Desktop::User, false).unwrap();
    let seen = wait_until("tree", || host.observe(Some(&WindowRef::Id(opened.window.id)), false).ok().filter(|o| o.tree.node_count > 50));
    for e in seen.tree.root.as_ref().unwrap().walk() {
        if !e.actions.is_empty() || e.role.contains("slider") || e.role.contains("spin") || e.role.contains("list") || e.role.contains("switch") {
            println!("EXPLORE {} {:?} {:?} {:?} bounds={:?}", e.role, e.name, e.actions, e.states, e.bounds.is_some());
        }
    }
}
