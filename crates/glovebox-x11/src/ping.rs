//! `_NET_WM_PING` on a connection of its own: a client that answers a ping
//! sent after some input has read that input. The ping is sent and its
//! answer read here; which window to ask, and when, is for the input side
//! to say.

use crate::errors::{connect_error, connection_lost, reply_error};
use glovebox_platform::BackendError;
use std::time::{Duration, Instant};
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{
    ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, EventMask,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// The connection pings are sent and answered on.
pub(crate) struct Pinger {
    conn: RustConnection,
    root: u32,
    /// The last ping's number: each answer is matched to its ping.
    sent: u32,
}

/// The atoms a ping is made of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PingAtoms {
    pub protocols: u32,
    pub ping: u32,
}

impl Pinger {
    pub(crate) fn connect(display: Option<&str>) -> Result<Pinger, BackendError> {
        let (conn, screen) = x11rb::connect(display).map_err(|e| connect_error(display, e))?;
        let root = conn.setup().roots[screen].root;
        Ok(Pinger { conn, root, sent: 0 })
    }

    /// Pings client window `xid` and waits for its answer until `deadline`:
    /// how long after `started` it came, or `None` when it did not.
    pub(crate) fn ping(
        &mut self,
        xid: u32,
        atoms: PingAtoms,
        started: Instant,
        deadline: Instant,
    ) -> Result<Option<Duration>, BackendError> {
        self.sent = self.sent.wrapping_add(1).max(1);
        let (root, stamp) = (self.root, self.sent);
        let conn = &self.conn;
        // Answers go to the root window, to whoever listens to its substructure.
        let listen = |mask: EventMask| {
            conn.change_window_attributes(root, &ChangeWindowAttributesAux::new().event_mask(mask))
                .map_err(connection_lost)
        };
        listen(EventMask::SUBSTRUCTURE_NOTIFY)?;
        let message =
            ClientMessageEvent::new(32, xid, atoms.protocols, [atoms.ping, stamp, xid, 0, 0]);
        conn.send_event(false, xid, EventMask::NO_EVENT, message).map_err(connection_lost)?;
        conn.flush().map_err(connection_lost)?;
        let answered = loop {
            match conn.poll_for_event().map_err(connection_lost)? {
                Some(Event::ClientMessage(e))
                    if e.type_ == atoms.protocols
                        && e.data.as_data32()[..2] == [atoms.ping, stamp] =>
                {
                    break Some(started.elapsed())
                }
                Some(_) => continue,
                None if Instant::now() < deadline => std::thread::sleep(Duration::from_micros(200)),
                None => break None,
            }
        };
        listen(EventMask::NO_EVENT)?;
        // Whatever came while listening is of no use later.
        conn.get_input_focus()
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        while conn.poll_for_event().map_err(connection_lost)?.is_some() {}
        Ok(answered)
    }
}
