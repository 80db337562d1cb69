//! Proof that a client has taken the input sent to it off its queue: an
//! EWMH `_NET_WM_PING` round trip. The client answers the ping from the
//! event loop that reads its input, so its answer comes after the events
//! sent before it. The pings go over a connection of their own, which
//! listens to the root window only while it waits for an answer.

use crate::connection::{connection_lost, reply_error, X11Backend};
use glovebox_model::WindowInfo;
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::BackendError;
use std::time::{Duration, Instant};
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, EventMask};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// The connection pings are sent and answered on.
pub(crate) struct Pinger {
    conn: RustConnection,
    root: u32,
    /// The last ping's number: each answer is matched to its ping.
    sent: u32,
}

impl X11Backend {
    fn pinger(&self) -> Result<&std::sync::Mutex<Pinger>, BackendError> {
        if let Some(pinger) = self.pinger.get() {
            return Ok(pinger);
        }
        let (conn, screen) = x11rb::connect(self.display.as_deref()).map_err(|e| crate::connection::connect_error(self.display.as_deref(), e))?;
        let root = conn.setup().roots[screen].root;
        Ok(self.pinger.get_or_init(|| std::sync::Mutex::new(Pinger { conn, root, sent: 0 })))
    }

    /// Waits until `window`'s client has read the input sent to it so far:
    /// a `_NET_WM_PING` after it, answered within `within`. `Ok(None)` when
    /// the client does not take part in the protocol or did not answer in
    /// time (a busy or frozen client), `Ok(Some(took))` once it answered.
    pub fn acknowledge(&self, window: &WindowInfo, within: Duration) -> Result<Option<Duration>, BackendError> {
        let started = Instant::now();
        let xid = window.id.xid;
        // The input went over the main connection: once the server answers
        // a request there, it has handled (and queued) everything before it.
        self.conn.get_input_focus().map_err(connection_lost)?.reply().map_err(|e| reply_error(e, None))?;
        let protocols = self
            .conn
            .get_property(false, xid, self.atoms.WM_PROTOCOLS, AtomEnum::ATOM, 0, 32)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, Some(&window.id)))?;
        if !protocols.value32().into_iter().flatten().any(|atom| atom == self.atoms._NET_WM_PING) {
            return Ok(None);
        }
        let mut pinger = self.pinger()?.lock_recovered();
        pinger.sent = pinger.sent.wrapping_add(1).max(1);
        let (root, stamp) = (pinger.root, pinger.sent);
        let conn = &pinger.conn;
        // Answers go to the root window, to whoever listens to its substructure.
        let listen = |mask: EventMask| conn.change_window_attributes(root, &ChangeWindowAttributesAux::new().event_mask(mask)).map_err(connection_lost);
        listen(EventMask::SUBSTRUCTURE_NOTIFY)?;
        let (ping, protocols_atom) = (self.atoms._NET_WM_PING, self.atoms.WM_PROTOCOLS);
        let message = ClientMessageEvent::new(32, xid, protocols_atom, [ping, stamp, xid, 0, 0]);
        conn.send_event(false, xid, EventMask::NO_EVENT, message).map_err(connection_lost)?;
        conn.flush().map_err(connection_lost)?;
        let deadline = started + within;
        let answered = loop {
            match conn.poll_for_event().map_err(connection_lost)? {
                Some(Event::ClientMessage(e)) if e.type_ == protocols_atom && e.data.as_data32()[..2] == [ping, stamp] => break Some(started.elapsed()),
                Some(_) => continue,
                None if Instant::now() < deadline => std::thread::sleep(Duration::from_micros(200)),
                None => break None,
            }
        };
        listen(EventMask::NO_EVENT)?;
        // Whatever came while listening is of no use later.
        conn.get_input_focus().map_err(connection_lost)?.reply().map_err(|e| reply_error(e, None))?;
        while conn.poll_for_event().map_err(connection_lost)?.is_some() {}
        Ok(answered)
    }
}
