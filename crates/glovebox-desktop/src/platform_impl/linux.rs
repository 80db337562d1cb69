//! Linux: glovebox-linux's composition (X11 or Wayland, AT-SPI, the agent
//! display), run and tested on this system.

use glovebox_platform::{doctor::DoctorReport, BackendError, Backends};

pub(crate) use glovebox_linux::{capabilities, display_name, PROTECTED};

pub(crate) fn open(options: &glovebox_platform::DesktopOptions) -> Result<Backends, BackendError> {
    glovebox_linux::backends_with(None, None, options)
}

pub(crate) fn doctor() -> DoctorReport {
    glovebox_linux::doctor()
}
