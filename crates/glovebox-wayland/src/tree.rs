//! The compositor's window tree (sway's `get_tree`) read as glovebox's
//! windows: each view with a process, its content rectangle in global
//! coordinates, and a stacking order, frontmost first.

use glovebox_model::{Monitor, PidSource, Rect, WindowId, WindowInfo};
use serde_json::Value;

/// One native Wayland window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toplevel {
    /// The compositor's container id: stable while the window lives.
    pub con_id: u32,
    /// From the client's socket credentials (the compositor's record).
    pub pid: u32,
    pub app_id: String,
    pub title: String,
    /// The client's surface, global coordinates, without borders.
    pub content: Rect,
    pub focused: bool,
    /// On a workspace shown on an output (not the scratchpad, not hidden).
    pub visible: bool,
}

impl Toplevel {
    pub fn id(&self) -> WindowId {
        WindowId { pid: self.pid, handle: self.con_id }
    }

    pub fn info(&self) -> WindowInfo {
        WindowInfo {
            id: self.id(),
            app: self.app_id.clone(),
            instance: self.app_id.clone(),
            title: self.title.clone(),
            pid_source: PidSource::Server,
            geometry: self.content,
            focused: self.focused,
            // A window on a hidden workspace or in the scratchpad has no
            // pixels until shown, and showing it changes the user's desktop.
            minimized: !self.visible,
            desktop: glovebox_model::Desktop::User,
        }
    }
}

/// The desktop as the compositor reports it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Desktop {
    pub outputs: Vec<Rect>,
    /// Frontmost first: floating windows above tiled ones, the most
    /// recently raised floating window first; hidden windows last.
    pub windows: Vec<Toplevel>,
}

fn rect_of(value: Option<&Value>) -> Option<Rect> {
    let v = value?;
    let int = |k: &str| v.get(k).and_then(Value::as_i64);
    let (x, y, w, h) = (int("x")?, int("y")?, int("width")?, int("height")?);
    let fits = |n: i64| i32::try_from(n).is_ok();
    (fits(x) && fits(y) && w > 0 && h > 0 && fits(w) && fits(h))
        .then(|| Rect::new(x as i32, y as i32, w as u32, h as u32))
}

struct Walker {
    windows: Vec<(Toplevel, (bool, bool, usize))>,
    order: usize,
}

impl Walker {
    /// Views are the leaves that have a process; `floating` says whether
    /// they sit in a workspace's floating list (stacked above the tiles).
    fn visit(&mut self, node: &Value, floating: bool) {
        let children =
            |key: &str| node.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        let tiled = children("nodes");
        let floats = children("floating_nodes");
        if tiled.is_empty() && floats.is_empty() {
            self.view(node, floating);
            return;
        }
        for child in &tiled {
            self.visit(child, floating);
        }
        for child in &floats {
            self.visit(child, true);
        }
    }

    fn view(&mut self, node: &Value, floating: bool) {
        let Some(pid) = node
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok())
            .filter(|&p| p > 0)
        else {
            return;
        };
        let Some(con_id) =
            node.get("id").and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok())
        else {
            return;
        };
        // XWayland windows belong to the X11 backend.
        if node.get("shell").and_then(Value::as_str).is_some_and(|s| s != "xdg_shell") {
            return;
        }
        let Some(outer) = rect_of(node.get("rect")) else { return };
        let content = match rect_of(node.get("window_rect")) {
            Some(inner) => {
                Rect::new(outer.x + inner.x, outer.y + inner.y, inner.width, inner.height)
            }
            None => outer,
        };
        let text = |k: &str| node.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
        let top = Toplevel {
            con_id,
            pid,
            app_id: text("app_id"),
            title: text("name"),
            content,
            focused: node.get("focused").and_then(Value::as_bool).unwrap_or(false),
            visible: node.get("visible").and_then(Value::as_bool).unwrap_or(false),
        };
        let key = (top.visible, floating, self.order);
        self.order += 1;
        self.windows.push((top, key));
    }
}

impl Desktop {
    pub fn from_tree(root: &Value) -> Desktop {
        let outputs: Vec<Rect> = root
            .get("nodes")
            .and_then(Value::as_array)
            .map(|outputs| {
                outputs
                    .iter()
                    .filter(|o| o.get("name").and_then(Value::as_str) != Some("__i3"))
                    .filter_map(|o| rect_of(o.get("rect")))
                    .collect()
            })
            .unwrap_or_default();
        let mut walker = Walker { windows: vec![], order: 0 };
        walker.visit(root, false);
        // Floating windows are listed bottom to top.
        walker.windows.sort_by_key(|w| std::cmp::Reverse(w.1));
        Desktop { outputs, windows: walker.windows.into_iter().map(|(t, _)| t).collect() }
    }

    /// The rectangle holding every output.
    pub fn bounds(&self) -> Option<Rect> {
        let first = *self.outputs.first()?;
        Some(self.outputs.iter().skip(1).fold(first, |acc, r| {
            let (x0, y0) = (acc.x.min(r.x), acc.y.min(r.y));
            let x1 = (acc.x + acc.width as i32).max(r.x + r.width as i32);
            let y1 = (acc.y + acc.height as i32).max(r.y + r.height as i32);
            Rect::new(x0, y0, (x1 - x0) as u32, (y1 - y0) as u32)
        }))
    }
}

/// The active outputs of a `get_outputs` reply; the focused one is primary.
pub fn monitors(outputs: &Value) -> Vec<Monitor> {
    let list = outputs.as_array().map(Vec::as_slice).unwrap_or_default();
    let active: Vec<&Value> =
        list.iter().filter(|o| o.get("active").and_then(Value::as_bool).unwrap_or(false)).collect();
    let focused = active
        .iter()
        .position(|o| o.get("focused").and_then(Value::as_bool) == Some(true))
        .unwrap_or(0);
    active
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            let logical = rect_of(o.get("rect"))?;
            Some(Monitor {
                name: o.get("name").and_then(Value::as_str).unwrap_or("output").to_owned(),
                logical,
                primary: i == focused,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(id: u64, pid: u64, rect: (i64, i64, i64, i64), visible: bool) -> Value {
        serde_json::json!({
            "id": id, "pid": pid, "name": format!("w{id}"), "app_id": "app", "shell": "xdg_shell", "visible": visible, "focused": false,
            "rect": {"x": rect.0, "y": rect.1, "width": rect.2, "height": rect.3},
            "window_rect": {"x": 0, "y": 0, "width": rect.2, "height": rect.3},
            "nodes": [], "floating_nodes": []
        })
    }

    #[test]
    fn floating_windows_stack_above_tiles_the_last_raised_first_and_hidden_ones_last() {
        let tree = serde_json::json!({"nodes": [
            {"name": "__i3", "rect": {"x": 0, "y": 0, "width": 1920, "height": 1080}, "nodes": [{"nodes": [view(9, 90, (0, 0, 10, 10), false)]}]},
            {"name": "HEADLESS-1", "rect": {"x": 0, "y": 0, "width": 1920, "height": 1080}, "nodes": [
                {"type": "workspace", "nodes": [view(4, 40, (0, 0, 1920, 1080), true)],
                 "floating_nodes": [view(5, 50, (10, 10, 300, 200), true), view(6, 60, (100, 100, 300, 200), true)]}
            ]}
        ]});
        let desktop = Desktop::from_tree(&tree);
        let ids: Vec<u32> = desktop.windows.iter().map(|t| t.con_id).collect();
        assert_eq!(ids, vec![6, 5, 4, 9]);
        assert_eq!(desktop.outputs, vec![Rect::new(0, 0, 1920, 1080)]);
        assert!(desktop.windows[3].info().minimized);
        assert_eq!(desktop.windows[0].info().id, WindowId { pid: 60, handle: 6 });
    }

    #[test]
    fn xwayland_views_and_views_without_a_process_are_not_listed() {
        let mut x = view(7, 70, (0, 0, 10, 10), true);
        x["shell"] = "xwayland".into();
        let orphan = view(8, 0, (0, 0, 10, 10), true);
        let tree = serde_json::json!({"nodes": [{"name": "HEADLESS-1", "rect": {"x": 0, "y": 0, "width": 100, "height": 100}, "nodes": [x, orphan]}]});
        assert!(Desktop::from_tree(&tree).windows.is_empty());
    }
}
