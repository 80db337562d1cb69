//! The host of this process: this system's desktop (`glovebox-desktop`)
//! behind one [`Host`], configured from `glovebox-config`.

use glovebox_config::Config;
use glovebox_host::{Approvals, Host, HostConfig};
use glovebox_model::{Refusal, TreeBudget};
use std::time::Duration;

/// The display this process's grant lock is per, for the backend the
/// configuration layers choose (with `--config`'s file when given; auto
/// when they cannot be read, so `glovebox stop` works with a broken file
/// too) — the display the host registered its holder under.
pub fn display_name(explicit: Option<std::path::PathBuf>) -> String {
    let backend = glovebox_config::Layered::load(&glovebox_config::Sources::standard(explicit))
        .map(|l| l.config.backend)
        .unwrap_or_default();
    glovebox_desktop::display_name(backend)
}

/// Host settings from the configuration.
pub fn host_config(config: &Config, display: &str) -> Result<HostConfig, Refusal> {
    let mut host = HostConfig::new(display);
    host.enabled = config.enabled;
    host.budget = config.grant.budget;
    host.idle_expiry = Duration::from_secs(config.grant.idle_expiry_secs);
    host.capture = config.grant.capture;
    host.read_only = config.read_only;
    host.deny = config.deny.apps.clone();
    host.ancestor_rule = config.deny.ancestors;
    host.capture_limits = config.capture_limits()?;
    host.tree_budget = TreeBudget::default();
    host.allow_foreground = config.input.foreground;
    host.allow_local_urls = config.input.local_urls;
    host.screenshot_after_input = config.observe.screenshot_after_input;
    host.text_budget = config.text_budget()?;
    let a = &config.approval;
    host.approvals = Approvals::new(a.mode, [a.observe, a.input, a.foreground], &a.consequential);
    host.answer_wait = Duration::from_secs(a.answer_wait_secs);
    host.recording = match config.recording.enabled {
        true => glovebox_host::Recording::On {
            dir: glovebox_services::recording::default_dir(),
            text: config.recording.text,
        },
        false => glovebox_host::Recording::Off,
    };
    // A file that does not parse is left out here; `glovebox doctor` names it.
    host.guidance =
        glovebox_config::guidance::load(glovebox_config::guidance::user_dir().as_deref()).entries;
    Ok(host)
}

/// The host of this process on `$DISPLAY`, configured from `config`. Off
/// in the configuration, nothing of the desktop is opened.
pub fn open_host(config: &Config) -> Result<Host, Refusal> {
    let host_config = host_config(config, &glovebox_desktop::display_name(config.backend))?;
    host_config.check_enabled()?;
    let agent_browser = match config.input.local_urls {
        true => glovebox_platform::BrowserPages::Any,
        false => glovebox_platform::BrowserPages::Web,
    };
    let options = glovebox_desktop::DesktopOptions {
        overlay: config.overlay,
        backend: config.backend,
        agent_browser,
    };
    Host::open(glovebox_desktop::open(&options).map_err(glovebox_host::refusal_of)?, host_config)
}

/// Serves the indicator page of `host` (this process shows what its grant
/// holds); where it cannot be served, says so on stderr and goes on.
pub fn serve_indicator(host: &Host) {
    if let Err(e) = glovebox_indicator::serve(host.clone()) {
        eprintln!("glovebox: the indicator page could not be served: {e}");
    }
}
