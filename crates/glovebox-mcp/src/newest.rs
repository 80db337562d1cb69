//! The newest frame handed to each client: the frame its input tools act
//! against.

use glovebox_model::FrameId;

/// The newest frame of each client. Sessions and connections end without
/// telling the server, so the clients least recently handed a frame are
/// forgotten beyond [`NewestFrames::CLIENTS`] (such a client is asked to
/// observe again).
#[derive(Default)]
pub(crate) struct NewestFrames {
    pub(crate) frames: std::collections::HashMap<String, (FrameId, u64)>,
    handed: u64,
}

impl NewestFrames {
    const CLIENTS: usize = 256;

    pub(crate) fn remember(&mut self, client: &str, frame: FrameId) {
        self.handed += 1;
        self.frames.insert(client.to_owned(), (frame, self.handed));
        if self.frames.len() > Self::CLIENTS {
            if let Some(oldest) = self
                .frames
                .iter()
                .min_by_key(|(_, (_, handed))| *handed)
                .map(|(client, _)| client.clone())
            {
                self.frames.remove(&oldest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clients_least_recently_handed_a_frame_are_forgotten_first() {
        let mut newest = NewestFrames::default();
        for client in 0..NewestFrames::CLIENTS {
            newest.remember(&format!("c{client}"), FrameId(client as u64));
        }
        newest.remember("c0", FrameId(1000));
        newest.remember("new", FrameId(1001));
        assert_eq!(newest.frames.len(), NewestFrames::CLIENTS);
        assert!(!newest.frames.contains_key("c1"), "the least recent one went");
        assert_eq!(newest.frames["c0"].0, FrameId(1000), "a client handed a frame again stays");
        assert_eq!(newest.frames["new"].0, FrameId(1001));
    }
}
