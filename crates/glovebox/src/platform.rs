//! The platform backends of this build, composed for the host.

use glovebox_config::Config;
use glovebox_host::denials::AncestorRule;
use glovebox_host::{Backends, Host, HostConfig};
use glovebox_model::{CaptureMode, Refusal, TreeBudget};
use std::time::Duration;

/// The display the host's grant lock is per.
pub fn display_name() -> String {
    std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()).unwrap_or_else(|| "none".into())
}

/// Host settings from the configuration.
pub fn host_config(config: &Config, display: &str) -> Result<HostConfig, Refusal> {
    let mut host = HostConfig::new(display);
    host.budget = config.grant.budget;
    host.idle_expiry = Duration::from_secs(config.grant.idle_expiry_secs);
    host.capture = match config.grant.capture.as_str() {
        "a11y-only" => CaptureMode::A11yOnly,
        _ => CaptureMode::A11yAndPixels,
    };
    host.read_only = config.read_only;
    host.deny = config.deny.apps.clone();
    host.ancestor_rule = match config.deny.ancestors.as_str() {
        "ancestors-and-their-children" => AncestorRule::AncestorsAndTheirChildren,
        _ => AncestorRule::Ancestors,
    };
    host.capture_limits = config.capture_limits()?;
    host.tree_budget = TreeBudget::default();
    host.allow_foreground = config.input.foreground;
    Ok(host)
}

#[cfg(target_os = "linux")]
mod linux {
    use glovebox_atspi::AtspiBackend;
    use glovebox_host::process::ProcFs;
    use glovebox_host::Backends;
    use glovebox_model::{Refusal, WindowInfo};
    use glovebox_platform::SecureInputProbe;
    use glovebox_x11::X11Backend;
    use std::sync::Arc;

    /// Secure input on Linux: the X server's keyboard grabs and the focused
    /// element of the window's accessibility tree.
    pub struct LinuxSecureInput {
        pub x11: Arc<X11Backend>,
        pub atspi: Arc<AtspiBackend>,
    }

    impl SecureInputProbe for LinuxSecureInput {
        fn keyboard_grabbed(&self) -> Result<bool, Refusal> {
            self.x11.keyboard_grabbed_by_other()
        }

        fn focused_password(&self, window: &WindowInfo) -> Result<bool, Refusal> {
            self.atspi.focused_password(window)
        }
    }

    /// X11 for windows, capture, grabs and event input; AT-SPI for trees,
    /// password focus and semantic input (actions, text, values, selection).
    pub fn backends(display: Option<&str>, session_bus: Option<&str>) -> Result<Backends, Refusal> {
        let x11 = Arc::new(X11Backend::connect(display)?);
        let atspi = Arc::new(AtspiBackend::on_session_bus(session_bus)?);
        Ok(Backends {
            windows: x11.clone(),
            capture: x11.clone(),
            accessibility: atspi.clone(),
            input: Some(Arc::new(crate::routes::LinuxInput { x11: x11.clone(), atspi: atspi.clone() })),
            secure_input: Arc::new(LinuxSecureInput { x11, atspi }),
            processes: Arc::new(ProcFs),
            launcher: Some(Arc::new(crate::launcher::DesktopLauncher { display: display.map(str::to_owned), session_bus: session_bus.map(str::to_owned) })),
        })
    }
}

#[cfg(target_os = "linux")]
pub use linux::{backends, LinuxSecureInput};

/// Every operation refuses with `COMPUTER_PLATFORM_UNSUPPORTED`.
#[cfg(not(target_os = "linux"))]
pub fn backends(_display: Option<&str>, _session_bus: Option<&str>) -> Result<Backends, Refusal> {
    Err(glovebox_platform::unsupported::UnsupportedPlatform::current().refusal())
}

/// The host of this process on `$DISPLAY`, configured from `config`.
pub fn open_host(config: &Config) -> Result<Host, Refusal> {
    open_host_with_backends(config).map(|(host, _)| host)
}

/// The host and, for surfaces that read outside a grant after asking the
/// host (`screenshot`, `inspect`), the same backends it checks against.
pub fn open_host_with_backends(config: &Config) -> Result<(Host, Backends), Refusal> {
    let display = display_name();
    let backends = backends(None, None)?;
    let host = Host::open(backends.clone(), host_config(config, &display)?)?;
    Ok((host, backends))
}
