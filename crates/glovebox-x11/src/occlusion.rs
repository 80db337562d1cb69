//! What other windows cover, from the server's own stacking of the root's
//! children (the window manager's frames, override-redirect menus, tooltips,
//! glovebox's overlay). A window capture reads the root, so every part of it
//! a window above covers is painted black instead of showing that window;
//! the capturing application's own popups (override-redirect windows made
//! by the same X client) belong to it and are kept.

use crate::connection::X11Backend;
use crate::errors::{connection_lost, reply_error};
use glovebox_model::{Rect, WindowId, WindowInfo};
use glovebox_platform::sync::LockRecovered as _;
use glovebox_platform::BackendError;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, MapState, Window};

/// One viewable child of the root.
struct Layer {
    window: Window,
    /// Its outer rectangle (border included), root coordinates.
    rect: Rect,
    override_redirect: bool,
}

impl X11Backend {
    /// The X client a resource belongs to: the id without its per-resource bits.
    fn client_of(&self, xid: Window) -> u32 {
        xid & !self.conn.setup().resource_id_mask
    }

    /// The viewable children of the root, frontmost first.
    fn root_layers(&self) -> Result<Vec<Layer>, BackendError> {
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(connection_lost)?
            .reply()
            .map_err(|e| reply_error(e, None))?;
        let pending: Vec<_> = tree
            .children
            .iter()
            .map(|&w| Ok((w, self.conn.get_window_attributes(w)?, self.conn.get_geometry(w)?)))
            .collect::<Result<_, x11rb::errors::ConnectionError>>()
            .map_err(connection_lost)?;
        let mut layers = vec![];
        // A child that vanished meanwhile covers nothing.
        for (window, attributes, geometry) in pending {
            let (Ok(a), Ok(g)) = (attributes.reply(), geometry.reply()) else { continue };
            if a.map_state != MapState::VIEWABLE {
                continue;
            }
            let border = 2 * u32::from(g.border_width);
            layers.push(Layer {
                window,
                rect: Rect::new(
                    g.x.into(),
                    g.y.into(),
                    u32::from(g.width) + border,
                    u32::from(g.height) + border,
                ),
                override_redirect: a.override_redirect,
            });
        }
        layers.reverse();
        Ok(layers)
    }

    /// The child of the root that holds `window` (its frame, under a
    /// reparenting window manager).
    fn top_level_of(&self, window: Window) -> Result<Window, BackendError> {
        let mut current = window;
        for _ in 0..32 {
            let tree = self
                .conn
                .query_tree(current)
                .map_err(connection_lost)?
                .reply()
                .map_err(|e| reply_error(e, Some(&current)))?;
            if tree.parent == self.root || tree.parent == x11rb::NONE {
                return Ok(current);
            }
            current = tree.parent;
        }
        Ok(current)
    }

    /// The parts of `window`'s client area that windows above it cover.
    pub(crate) fn covering(&self, window: &WindowInfo) -> Result<Vec<Rect>, BackendError> {
        let top = self.top_level_of(window.id.handle)?;
        let client = self.client_of(window.id.handle);
        let layers = self.root_layers()?;
        let above = layers
            .iter()
            .take_while(|l| l.window != top)
            .filter(|l| !(l.override_redirect && self.client_of(l.window) == client))
            .map(|l| l.rect);
        Ok(glovebox_platform::compose::covering(window.geometry, above))
    }

    /// Where the `hidden` windows (and the override-redirect windows of
    /// their clients) show on the screen now.
    pub(crate) fn hidden_parts(&self, hidden: &[WindowId]) -> Result<Vec<Rect>, BackendError> {
        let own = self.own_windows.lock_recovered().clone();
        if hidden.is_empty() && own.is_empty() {
            return Ok(vec![]);
        }
        let mut frames = own;
        for id in hidden {
            // A hidden window that closed meanwhile shows nowhere.
            if let Ok(top) = self.top_level_of(id.handle) {
                frames.push(top);
            }
        }
        let clients: Vec<u32> = hidden.iter().map(|id| self.client_of(id.handle)).collect();
        let stacking: Vec<(Rect, bool)> = self
            .root_layers()?
            .iter()
            .map(|l| {
                (
                    l.rect,
                    frames.contains(&l.window)
                        || (l.override_redirect && clients.contains(&self.client_of(l.window))),
                )
            })
            .collect();
        Ok(glovebox_platform::compose::visible_parts_of_hidden(&stacking))
    }
}
