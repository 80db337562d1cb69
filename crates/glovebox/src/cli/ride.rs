//! One-shot commands ridden over the display's warm host.
//!
//! `windows`, `screenshot`, `inspect` and `observe` are each one process
//! that would open the desktop, read once and close it again: connecting to
//! the accessibility bus, a first capture's shared memory and the memo of
//! every tree are most of their time. When a glovebox host already serves
//! this display (an MCP server, `glovebox serve`, the resident `glovebox
//! host`), the call is carried out there, over `glovebox_services::warm`'s
//! socket: same user only (both ends check the kernel's credentials), with
//! the CLI's own configuration, grant, prompts (asked back on the CLI's
//! terminal) and audit identity (its pid), on the host's warm connections.
//! The host prints into a [`Printed`] as the CLI would and the CLI prints
//! that: the output is the same either way.
//!
//! No host, a stale socket, another user's, one of another version or
//! environment, or one that does not greet within [`GREETING`]: the CLI
//! does the work itself. A host that ends or stalls once it has the call
//! is the call's failure, with its code: nothing is retried twice.
// The wire to a warm host is a Unix socket; elsewhere its protocol types
// stand unused until a named-pipe transport exists.
#![cfg_attr(not(unix), allow(dead_code))]

use super::desktop::{self, InspectArgs, ObserveArgs, ScreenshotArgs, WindowsArgs};
use super::exit::Printed;
use glovebox::exit_status::Exit;
use glovebox_config::Config;
use glovebox_host::Host;
use glovebox_model::Refusal;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Opens the host a call reads through: the CLI's own, or the warm host's
/// connections under the CLI's settings.
pub type Opener<'a> = &'a dyn Fn(&Config) -> Result<Host, Refusal>;

/// How long a CLI waits for a warm host's greeting before doing the work itself.
pub const GREETING: Duration = Duration::from_secs(1);

/// How long a warm host may take over a call beyond the call's own deadline.
const CALL_BOUND: Duration = Duration::from_secs(30);

/// This build's version; a host of another one is not ridden.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+ride1");

/// A one-shot command, as its arguments.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Call {
    Windows(WindowsArgs),
    Screenshot(ScreenshotArgs),
    Inspect(InspectArgs),
    Observe(ObserveArgs),
}

impl Call {
    /// Whether a refusal is printed as JSON on stdout too.
    fn json(&self) -> bool {
        match self {
            Call::Windows(a) => a.json,
            Call::Screenshot(_) => true,
            Call::Inspect(a) => a.json,
            Call::Observe(a) => a.json,
        }
    }

    /// The command's name.
    fn name(&self) -> &'static str {
        match self {
            Call::Windows(_) => "windows",
            Call::Screenshot(_) => "screenshot",
            Call::Inspect(_) => "inspect",
            Call::Observe(_) => "observe",
        }
    }

    /// The file the call writes, if any: the only one a host's answer may carry.
    fn file(&self) -> Option<&std::path::Path> {
        match self {
            Call::Screenshot(a) if a.output != std::path::Path::new("-") => Some(&a.output),
            Call::Observe(a) => a.screenshot.as_deref(),
            _ => None,
        }
    }

    /// The longest a warm host may take: the call's own deadline and then some.
    fn bound(&self) -> Duration {
        match self {
            Call::Inspect(a) => CALL_BOUND + Duration::from_millis(a.deadline_ms),
            _ => CALL_BOUND,
        }
    }

    /// Carries the call out through the host `open` gives, printing into `out`.
    pub fn run(self, config: &Config, open: Opener, out: &mut Printed) -> Exit {
        let result = match self {
            Call::Windows(args) => desktop::list_windows(config, args, open, out),
            Call::Screenshot(args) => desktop::take_screenshot(config, args, open, out),
            Call::Inspect(args) => desktop::read_tree(config, args, open, out),
            Call::Observe(args) => desktop::observe_once(config, args, open, out),
        };
        match result {
            Ok(()) => Exit::Success,
            Err(failure) => {
                *out = Printed::default();
                failure.render(out)
            }
        }
    }
}

/// What a CLI sends on a warm host's connection.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Request {
    /// Carry out a call with these settings.
    Call {
        version: String,
        /// The variables that say which desktop, bus, files and settings a
        /// process has; a host whose differ is not this CLI's to ride.
        environment: Vec<(String, String)>,
        config: Box<Config>,
        call: Call,
    },
    /// End, if the host is the resident one (`glovebox stop`).
    End,
}

/// What a warm host answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum HostSays {
    /// Not carried out: the CLI does it itself.
    Declined { why: String },
    /// A question for the person at the CLI's terminal.
    Ask { question: String },
    /// Done; `stdout`, `stderr` and the file's bytes follow in that order.
    Finished { status: u8, stdout: usize, stderr: usize, file: Option<(PathBuf, usize)> },
    /// The resident host ends.
    Ended,
}

/// The person's answer, sent back to the host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Said {
    Approved,
    Declined,
    Cancelled,
    Unavailable { why: String },
}

/// The variables a ridden call must share with its host.
fn environment() -> Vec<(String, String)> {
    const NAMED: &[&str] = &[
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "SWAYSOCK",
        "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
        "XDG_RUNTIME_DIR",
        "XDG_STATE_HOME",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_CURRENT_DESKTOP",
        "HOME",
    ];
    let mut vars: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| NAMED.contains(&k.as_str()) || k.starts_with("GLOVEBOX_"))
        .collect();
    vars.sort();
    vars
}

/// The warm files of the display `config`'s backend uses.
#[cfg(unix)]
fn warm_dir(config: &Config) -> Option<glovebox_services::warm::WarmDir> {
    let display = glovebox_desktop::display_name(config.backend);
    let dir = glovebox_services::control::DisplayDir::new(
        &glovebox_services::control::DisplayDir::default_root(),
        &display,
    );
    dir.ok().map(|d| d.warm())
}

/// Runs `call`: on the display's warm host when one serves it, here otherwise.
pub fn run(config: &Config, call: Call) -> ExitCode {
    let mut out = Printed::default();
    let call = match ride(config, call, &mut out) {
        Ridden::Done(status) => return out.emit(status),
        Ridden::Here(call) => call,
    };
    let exit = call.run(config, &super::open_reader, &mut out);
    out.emit(exit.status())
}

enum Ridden {
    /// The host carried the call out (or failed it); `out` holds what to print.
    Done(u8),
    /// Do it here.
    Here(Call),
}

/// Without Unix sockets there is no warm host to ride.
#[cfg(not(unix))]
fn ride(_: &Config, call: Call, _: &mut Printed) -> Ridden {
    Ridden::Here(call)
}

#[cfg(unix)]
fn ride(config: &Config, call: Call, out: &mut Printed) -> Ridden {
    use glovebox_services::warm::Reached;
    let Some(dir) = warm_dir(config) else { return Ridden::Here(call) };
    let (mut link, pid) = match dir.reach(GREETING) {
        Reached::Ready { link, pid, version } if version == VERSION => (link, pid),
        Reached::Foreign { uid } => {
            eprintln!(
                "glovebox: {} is served by uid {uid}, not this user's: not used, the work is done here",
                dir.socket().display()
            );
            return Ridden::Here(call);
        }
        _ => return Ridden::Here(call),
    };
    let (json, bound) = (call.json(), call.bound());
    let request = Request::Call {
        version: VERSION.into(),
        environment: environment(),
        config: Box::new(config.clone()),
        call: call.clone(),
    };
    if link.send(&request).is_err() || link.set_timeout(Some(bound)).is_err() {
        return Ridden::Here(call);
    }
    match carry(&mut link, &call, bound, out) {
        Ok(Some(status)) => Ridden::Done(status),
        Ok(None) => Ridden::Here(call),
        Err(lost) => {
            *out = Printed::default();
            Ridden::Done(
                super::exit::refused(glovebox_host::refusal_of_lost_call(lost, pid), json)
                    .render(out)
                    .status(),
            )
        }
    }
}

/// Follows a call a warm host took: its questions, then its answer into
/// `out` and its exit status; `None` when it declined.
#[cfg(unix)]
fn carry(
    link: &mut glovebox_services::warm::Link,
    call: &Call,
    bound: Duration,
    out: &mut Printed,
) -> Result<Option<u8>, glovebox_services::warm::LostCall> {
    use glovebox_services::warm::LostCall;
    loop {
        match link.receive::<HostSays>().map_err(|e| LostCall::of_read(e, bound))? {
            HostSays::Declined { .. } => return Ok(None),
            HostSays::Ask { question } => {
                use super::terminal::Heard;
                let said = match super::terminal::ask(&question) {
                    Heard::Yes => Said::Approved,
                    Heard::No => Said::Declined,
                    Heard::Ended => Said::Cancelled,
                    Heard::NoTerminal(why) => Said::Unavailable { why },
                };
                link.send(&said).map_err(|_| LostCall::WhileAsking)?;
            }
            HostSays::Finished { status, stdout, stderr, file } => {
                // The CLI writes the file it was asked for and no other.
                if file.as_ref().is_some_and(|(path, _)| call.file() != Some(path.as_path())) {
                    return Err(LostCall::StrayFile);
                }
                let received = || -> std::io::Result<()> {
                    out.stdout = link.receive_bytes(stdout)?;
                    out.stderr = link.receive_bytes(stderr)?;
                    if let Some((path, len)) = file {
                        out.file = Some((path, link.receive_bytes(len)?));
                    }
                    Ok(())
                };
                received().map_err(LostCall::WhileAnswering)?;
                return Ok(Some(status));
            }
            HostSays::Ended => {
                let why = "a call answered with the host's end";
                return Err(LostCall::DuringTheCall(std::io::Error::other(why)));
            }
        }
    }
}

/// Ends the display's resident warm host, if one serves it; says which.
#[cfg(not(unix))]
pub fn end_resident(_: &Config) -> Option<String> {
    None
}

/// Ends the display's resident warm host, if one serves it; says which.
#[cfg(unix)]
pub fn end_resident(config: &Config) -> Option<String> {
    let dir = warm_dir(config)?;
    let glovebox_services::warm::Reached::Ready { mut link, pid, .. } = dir.reach(GREETING) else {
        return None;
    };
    link.send(&Request::End).ok()?;
    link.set_timeout(Some(GREETING)).ok()?;
    match link.receive::<HostSays>().ok()? {
        HostSays::Ended => Some(format!("the resident warm host (pid {pid}) ended")),
        _ => None,
    }
}

#[cfg(unix)]
pub use serving::{keep_warm, Role};

#[cfg(unix)]
mod serving {
    use super::*;
    use glovebox_host::{Answer, PersonChannel};
    use glovebox_platform::sync::LockRecovered as _;
    use glovebox_services::warm::{Link, WarmService, WhenHeld};
    use std::sync::{mpsc, Arc, Mutex};

    /// A ridden call's way to reach the person: the CLI's terminal, over the link. A CLI
    /// command puts no agent's question, so only approvals travel.
    struct AskTheCaller(Arc<Mutex<Link>>);

    impl PersonChannel for AskTheCaller {
        fn put(&self, request: glovebox_host::Request<'_>) -> Answer {
            if request.approval().is_none() {
                return Answer::Unavailable("a ridden CLI call puts no agent's question".into());
            }
            let mut link = self.0.lock_recovered();
            let question = HostSays::Ask { question: request.shown() };
            // The person takes the time they take; a CLI that goes away ends the read.
            if link.send(&question).and_then(|_| link.set_timeout(None)).is_err() {
                return Answer::Unavailable("the CLI that asked went away".into());
            }
            match link.receive::<Said>() {
                Ok(Said::Approved) => Answer::Approved,
                Ok(Said::Declined) => Answer::Declined,
                Ok(Said::Cancelled) => Answer::Cancelled,
                Ok(Said::Unavailable { why }) => Answer::Unavailable(why),
                Err(e) => Answer::Unavailable(format!("the CLI that asked went away ({e})")),
            }
        }
    }

    /// Which kind of host keeps the display warm.
    pub enum Role {
        /// An MCP server (`glovebox mcp`, `glovebox serve`): serves once no
        /// other host of the display does, quietly, and ends with its client.
        McpServer,
        /// `glovebox host`: the only one, refused when another serves; says
        /// each call it carries out on stderr, and tells `ended` the pid of
        /// a `glovebox stop` asking it to end. (Linux's only, so far.)
        #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
        Resident { ended: mpsc::Sender<u32> },
    }

    /// Serves `host`'s connections to this display's one-shot CLI calls.
    pub fn keep_warm(host: &Host, config: &Config, role: Role) -> Result<WarmService, Refusal> {
        let dir = warm_dir(config).ok_or_else(|| {
            Refusal::backend_unavailable("the runtime directory of the warm socket is unusable")
        })?;
        // A ridden call reaches what the CLI alone does: the person's desktop, never an agent
        // display this host runs (its windows are the agent's, paused while the person has it);
        // and draws nothing, as the CLI's reads never did.
        let desktop = host.persons_desktop();
        let backend = config.backend;
        let environment = environment();
        let when_held = match role {
            Role::McpServer => WhenHeld::Wait,
            Role::Resident { .. } => WhenHeld::Refuse,
        };
        let handle = move |link: Link| {
            serve_call(link, &desktop, backend, &environment, &role);
        };
        dir.serve(VERSION, when_held, Arc::new(handle)).map_err(glovebox_host::refusal_of_warm)
    }

    fn serve_call(
        mut link: Link,
        desktop: &glovebox_host::PersonsDesktop,
        backend: glovebox_model::DisplayBackend,
        environment: &[(String, String)],
        role: &Role,
    ) {
        let _ = link.set_timeout(Some(Duration::from_secs(10)));
        let request = match link.receive::<Request>() {
            Ok(request) => request,
            Err(e) => {
                let why = format!("the request could not be read ({e})");
                let _ = link.send(&HostSays::Declined { why });
                return;
            }
        };
        let (version, theirs, config, call) = match request {
            Request::End => {
                let answer = match role {
                    Role::Resident { ended } => {
                        ended.send(link.peer_pid).map(|_| HostSays::Ended).unwrap_or(
                            HostSays::Declined { why: "the resident host is ending".into() },
                        )
                    }
                    Role::McpServer => HostSays::Declined {
                        why: "an MCP server's warm host ends with its client".into(),
                    },
                };
                let _ = link.send(&answer);
                return;
            }
            Request::Call { version, environment, config, call } => {
                (version, environment, config, call)
            }
        };
        let declined = if version != VERSION {
            Some(format!("this host is glovebox {VERSION}, the caller {version}"))
        } else if theirs != environment {
            Some("the caller's desktop, bus or settings environment is not this host's".into())
        } else if config.backend != backend {
            Some(format!("this host's backend is {backend:?}, the caller's {:?}", config.backend))
        } else {
            None
        };
        if let Some(why) = declined {
            let _ = link.send(&HostSays::Declined { why });
            return;
        }
        let caller = link.peer_pid;
        let link = Arc::new(Mutex::new(link));
        let channel: Arc<dyn PersonChannel> = Arc::new(AskTheCaller(link.clone()));
        let open = |config: &Config| -> Result<Host, Refusal> {
            let display = glovebox_desktop::display_name(config.backend);
            let mut settings = glovebox::platform::host_config(config, &display)?;
            settings.acting_pid = caller;
            desktop.open(settings).map(|host| host.with_channel(channel.clone()))
        };
        let mut out = Printed::default();
        let started = std::time::Instant::now();
        let command = call.name();
        let status = call.run(&config, &open, &mut out).status();
        if matches!(role, Role::Resident { .. }) {
            eprintln!(
                "glovebox: {command} for pid {caller}: exit {status} in {:.1} ms",
                started.elapsed().as_secs_f64() * 1000.0
            );
        }
        let mut link = link.lock_recovered();
        let finished = HostSays::Finished {
            status,
            stdout: out.stdout.len(),
            stderr: out.stderr.len(),
            file: out.file.as_ref().map(|(path, bytes)| (path.clone(), bytes.len())),
        };
        let _ = link.send(&finished).and_then(|_| {
            link.send_bytes(&out.stdout)?;
            link.send_bytes(&out.stderr)?;
            match &out.file {
                Some((_, bytes)) => link.send_bytes(bytes),
                None => Ok(()),
            }
        });
    }
}
