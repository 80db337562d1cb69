#!/usr/bin/python3
"""GTK3 fixture app for glovebox's end-to-end tests.

It reports its own state, the tests' external oracle, as one JSON document
rewritten atomically at $GLOVEBOX_FIXTURE_STATE after every change, and takes
JSON-line commands from the FIFO at $GLOVEBOX_FIXTURE_CONTROL (optional).

The password entry's text is never reported, only its length.

Commands (one JSON object per line):
  {"cmd": "set", "widget": "name|email|combo|subscribe|slider|row", "value": ...}
  {"cmd": "minimize"} / {"cmd": "restore"} / {"cmd": "present"}
  {"cmd": "move", "x": 10, "y": 20} / {"cmd": "resize", "width": 500, "height": 400}
  {"cmd": "title", "value": "new title"}
  {"cmd": "open_windows", "count": 35}   extra small top-level windows
  {"cmd": "focus", "widget": "name|email|password|submit|..."}
  {"cmd": "set", "widget": "password", "value": "..."}   (never reported back)
  {"cmd": "freeze", "seconds": 5}        block the main loop (unresponsive app)
  {"cmd": "spawn", "argv": [...], "stdout": "/path"}   run a child process of the fixture
  {"cmd": "quit"}
New widgets and commands are added by later work; keys of the state stay stable.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkX11", "3.0")
from gi.repository import Gdk, GdkX11, GLib, Gtk  # noqa: E402

SWATCHES = {"red": (1.0, 0.0, 0.0), "green": (0.0, 1.0, 0.0), "blue": (0.0, 0.0, 1.0)}
COMBO_OPTIONS = ["Red", "Green", "Blue"]


class Fixture:
    def __init__(self, args):
        self.args = args
        self.state_path = os.environ.get("GLOVEBOX_FIXTURE_STATE")
        self.clicks = {"submit": 0, "cancel": 0, "menu_new": 0, "details": 0}
        self.events = []
        self.extra_windows = []
        self.ready = False

        self.window = Gtk.Window(title=args.title)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            self.window.set_wmclass(args.wm_name, args.wm_class)
        self.window.set_default_size(args.width, args.height)
        self.window.connect("destroy", Gtk.main_quit)
        for signal in ("notify::is-active", "window-state-event", "configure-event"):
            self.window.connect(signal, lambda *a: self.report() or False)
        self.window.connect("set-focus", lambda *a: self.report())

        outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
        self.window.add(outer)
        outer.pack_start(self.build_menu(), False, False, 0)

        grid = Gtk.Grid(column_spacing=8, row_spacing=6, margin=8)
        outer.pack_start(grid, False, False, 0)

        self.name = self.labelled_entry(grid, 0, "Name", "name")
        self.email = self.labelled_entry(grid, 1, "Email", "email")
        self.password = self.labelled_entry(grid, 2, "Password", "password")
        self.password.set_visibility(False)
        if args.no_password:
            # Some tests need a window without any password field.
            self.password.set_no_show_all(True)
            self.password.get_parent().remove(self.password)

        grid.attach(Gtk.Label(label="Colour"), 0, 3, 1, 1)
        self.combo = Gtk.ComboBoxText()
        self.combo.set_name("combo")
        for option in COMBO_OPTIONS:
            self.combo.append_text(option)
        self.combo.set_active(0)
        self.combo.connect("changed", lambda *a: self.report())
        grid.attach(self.combo, 1, 3, 1, 1)

        self.subscribe = Gtk.CheckButton(label="Subscribe")
        self.subscribe.set_name("subscribe")
        self.subscribe.connect("toggled", lambda *a: self.report())
        grid.attach(self.subscribe, 1, 4, 1, 1)

        grid.attach(Gtk.Label(label="Volume"), 0, 5, 1, 1)
        self.slider = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
        self.slider.set_name("slider")
        self.slider.set_value(50)
        self.slider.set_hexpand(True)
        self.slider.connect("value-changed", lambda *a: self.report())
        grid.attach(self.slider, 1, 5, 1, 1)

        buttons = Gtk.Box(spacing=8)
        self.buttons = {}
        for label, key in ((self.args.submit_label, "submit"), ("Cancel", "cancel")):
            button = Gtk.Button(label=label)
            button.set_name(key)
            button.connect("clicked", self.on_click, key)
            buttons.pack_start(button, False, False, 0)
            self.buttons[key] = button
        grid.attach(buttons, 1, 6, 1, 1)
        # "Details" reveals a panel inside the window (a subtree that appears).
        details = Gtk.Button(label="Details")
        details.set_name("details")
        details.connect("clicked", self.on_details)
        buttons.pack_start(details, False, False, 0)
        self.details = Gtk.Box(spacing=8)
        self.details.set_name("details-panel")
        self.details.pack_start(Gtk.Label(label="Ships in 3 days"), False, False, 0)
        hide = Gtk.Button(label="Hide details")
        hide.connect("clicked", self.on_details)
        self.details.pack_start(hide, False, False, 0)
        self.details.set_no_show_all(True)
        for child in self.details.get_children():
            child.show()
        grid.attach(self.details, 1, 9, 1, 1)

        swatch_box = Gtk.Box(spacing=10)
        self.swatches = {}
        for key, rgb in SWATCHES.items():
            # Plain CSS colours: exact pixels without needing cairo bindings.
            area = Gtk.Box()
            area.set_size_request(60, 60)
            area.set_name("swatch-" + key)
            css = Gtk.CssProvider()
            css.load_from_data(("#swatch-%s { background-color: rgb(%d,%d,%d); }" % ((key,) + tuple(int(c * 255) for c in rgb))).encode())
            area.get_style_context().add_provider(css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
            swatch_box.pack_start(area, False, False, 0)
            self.swatches[key] = area
        grid.attach(swatch_box, 1, 7, 1, 1)

        # A plain drawing surface with no accessible actions: the target of
        # pointer routes (buttons, double clicks, hover, wheel, drags).
        self.pad_state = {"presses": [], "hover": None, "scrolls": {"up": 0, "down": 0, "left": 0, "right": 0}, "drags": [], "motions": 0}
        self.pad = Gtk.EventBox()
        self.pad.set_name("pad")
        self.pad.set_size_request(200, 60)
        self.pad.get_accessible().set_name("Pad")
        self.pad.add_events(Gdk.EventMask.BUTTON_PRESS_MASK | Gdk.EventMask.BUTTON_RELEASE_MASK | Gdk.EventMask.POINTER_MOTION_MASK
                            | Gdk.EventMask.SCROLL_MASK | Gdk.EventMask.ENTER_NOTIFY_MASK | Gdk.EventMask.LEAVE_NOTIFY_MASK)
        self.pad.connect("button-press-event", self.on_pad_press)
        self.pad.connect("button-release-event", self.on_pad_release)
        self.pad.connect("motion-notify-event", self.on_pad_motion)
        self.pad.connect("scroll-event", self.on_pad_scroll)
        self.pad_press_at = None
        grid.attach(self.pad, 1, 8, 1, 1)
        self.keys = []
        self.window.connect("key-press-event", self.on_key)

        store = Gtk.ListStore(str)
        for i in range(args.rows):
            store.append(["Row %d" % i])
        self.list = Gtk.TreeView(model=store)
        self.list.set_name("list")
        self.list.append_column(Gtk.TreeViewColumn("Item", Gtk.CellRendererText(), text=0))
        self.list.get_selection().connect("changed", lambda *a: self.report())
        scroller = Gtk.ScrolledWindow()
        scroller.set_vexpand(True)
        scroller.add(self.list)
        outer.pack_start(scroller, True, True, 0)

        if args.labels:
            # A large tree of plain widgets (all cached by the bridge), for budget
            # tests; grouped by 100 because GTK3 looks children up by index in
            # linear time, which makes one flat container of 20,000 quadratic.
            many = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
            many.set_name("many")
            for start in range(0, args.labels, 100):
                group = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                for i in range(start, min(start + 100, args.labels)):
                    group.pack_start(Gtk.Label(label="L%d" % i), False, False, 0)
                many.pack_start(group, False, False, 0)
            many_scroller = Gtk.ScrolledWindow()
            many_scroller.set_min_content_height(80)
            many_scroller.add(many)
            outer.pack_start(many_scroller, True, True, 0)

        self.status = Gtk.Label(label="Ready")
        self.status.set_name("status")
        outer.pack_start(self.status, False, False, 4)
        if args.flood_ms:
            # An animation: a label renamed every few milliseconds, forever.
            self.ticker = Gtk.Label(label="tick 0")
            self.ticks = 0
            outer.pack_start(self.ticker, False, False, 0)

            def tick():
                self.ticks += 1
                self.ticker.set_text("tick %d" % self.ticks)
                return True

            GLib.timeout_add(args.flood_ms, tick)

        self.widgets = {
            "name": self.name, "email": self.email, "password": self.password, "combo": self.combo,
            "subscribe": self.subscribe, "slider": self.slider, "list": self.list, "status": self.status, "pad": self.pad,
            **self.buttons,
        }

        if args.fill:
            # One flat colour over the whole client area: a window whose
            # pixels a test can recognise anywhere (its widgets stay, unseen).
            self.window.set_name("fill")
            rgb = tuple(int(c) for c in args.fill.split(","))
            css = Gtk.CssProvider()
            css.load_from_data(("#fill { background-color: rgb(%d,%d,%d); background-image: none; }" % rgb).encode())
            self.window.get_style_context().add_provider(css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
            outer.set_opacity(0.0)
        self.window.connect("map-event", self.on_mapped)
        self.window.show_all()
        if args.x is not None and args.y is not None:
            self.window.move(args.x, args.y)

        control = os.environ.get("GLOVEBOX_FIXTURE_CONTROL")
        if control:
            if not os.path.exists(control):
                os.mkfifo(control)
            # Opened read-write so the FIFO never reports end-of-file between writers.
            fd = os.open(control, os.O_RDWR | os.O_NONBLOCK)
            self.control_buffer = b""
            GLib.io_add_watch(fd, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN, self.on_control)

    def build_menu(self):
        # New is bound to Ctrl+N; Paste to Ctrl+V but disabled (nothing to paste).
        accelerators = Gtk.AccelGroup()
        self.window.add_accel_group(accelerators)
        bound = {"New": Gdk.KEY_n, "Paste": Gdk.KEY_v}
        bar = Gtk.MenuBar()
        for title, items in (("File", ("New", "Quit")), ("Edit", ("Copy", "Paste"))):
            top = Gtk.MenuItem(label=title)
            menu = Gtk.Menu()
            for item_label in items:
                item = Gtk.MenuItem(label=item_label)
                item.connect("activate", self.on_menu, item_label)
                if item_label in bound:
                    item.add_accelerator("activate", accelerators, bound[item_label], Gdk.ModifierType.CONTROL_MASK, Gtk.AccelFlags.VISIBLE)
                item.set_sensitive(item_label != "Paste")
                menu.append(item)
            top.set_submenu(menu)
            bar.append(top)
        return bar

    def labelled_entry(self, grid, row, label, name):
        grid.attach(Gtk.Label(label=label), 0, row, 1, 1)
        entry = Gtk.Entry()
        entry.set_name(name)
        entry.get_accessible().set_name(label)
        entry.connect("changed", lambda *a: self.report())
        grid.attach(entry, 1, row, 1, 1)
        return entry

    def held(self, event, what):
        """Records which modifier keys an event on the pad carried, when any."""
        mods = [name for name, mask in (("ctrl", Gdk.ModifierType.CONTROL_MASK), ("shift", Gdk.ModifierType.SHIFT_MASK),
                                         ("alt", Gdk.ModifierType.MOD1_MASK), ("super", Gdk.ModifierType.SUPER_MASK | Gdk.ModifierType.MOD4_MASK))
                if event.state & mask]
        if mods:
            self.pad_state.setdefault("held", []).append({"event": what, "modifiers": mods})

    def on_pad_press(self, _widget, event):
        if event.type == Gdk.EventType.BUTTON_PRESS:
            self.held(event, "press %d" % event.button)
            self.pad_state["presses"].append({"button": event.button, "count": 1})
            if event.button == 1:
                self.pad_press_at = (int(event.x), int(event.y))
        elif event.type in (Gdk.EventType._2BUTTON_PRESS, Gdk.EventType._3BUTTON_PRESS) and len(self.pad_state["presses"]) >= 2:
            # GTK3 reports the second press of a double click twice (plain, then 2BUTTON): fold it into the first.
            self.pad_state["presses"].pop()
            self.pad_state["presses"][-1]["count"] = 2 if event.type == Gdk.EventType._2BUTTON_PRESS else 3
        self.report()
        return True

    def on_pad_release(self, _widget, event):
        self.held(event, "release %d" % event.button)
        if event.button == 1 and self.pad_press_at is not None:
            start, end = self.pad_press_at, (int(event.x), int(event.y))
            if abs(end[0] - start[0]) + abs(end[1] - start[1]) > 8:
                self.pad_state["drags"].append([start[0], start[1], end[0], end[1]])
            self.pad_press_at = None
        self.report()
        return True

    def on_pad_motion(self, _widget, event):
        self.pad_state["motions"] += 1
        if not event.state & Gdk.ModifierType.BUTTON1_MASK:
            self.pad_state["hover"] = [int(event.x), int(event.y)]
        self.report()
        return True

    def on_pad_scroll(self, _widget, event):
        names = {Gdk.ScrollDirection.UP: "up", Gdk.ScrollDirection.DOWN: "down", Gdk.ScrollDirection.LEFT: "left", Gdk.ScrollDirection.RIGHT: "right"}
        self.held(event, "scroll")
        if event.direction in names:
            self.pad_state["scrolls"][names[event.direction]] += 1
        elif event.direction == Gdk.ScrollDirection.SMOOTH:
            _, dx, dy = event.get_scroll_deltas()
            for value, neg, pos in ((dy, "up", "down"), (dx, "left", "right")):
                if value:
                    self.pad_state["scrolls"][pos if value > 0 else neg] += int(round(abs(value))) or 1
        self.report()
        return True

    def on_key(self, _window, event):
        mods = [name for name, mask in (("ctrl", Gdk.ModifierType.CONTROL_MASK), ("shift", Gdk.ModifierType.SHIFT_MASK),
                                        ("alt", Gdk.ModifierType.MOD1_MASK), ("super", Gdk.ModifierType.MOD4_MASK)) if event.state & mask]
        self.keys.append({"key": Gdk.keyval_name(event.keyval), "mods": mods, "focus": self.focused_widget()})
        self.keys = self.keys[-50:]
        self.report()
        return False

    def on_click(self, _button, key):
        if key == "submit" and self.args.job_ms:
            # A long job on the main thread: busy on the CPU, answering nothing meanwhile.
            end = time.monotonic() + self.args.job_ms / 1000
            while time.monotonic() < end:
                pass
        self.clicks[key] += 1
        self.events.append({"event": "click", "widget": key})
        if self.args.react_ms:
            # The effect a while after the click, as a slow application shows it.
            GLib.timeout_add(self.args.react_ms, self.show_click, key)
        else:
            self.show_click(key)
        self.report()

    def show_click(self, key):
        self.status.set_text("%s clicked" % key.capitalize())
        if self.args.react_ms:
            self.events.append({"event": "shown", "widget": key})
        self.report()
        return False

    def on_details(self, _button):
        self.clicks["details"] += 1
        self.details.set_visible(not self.details.get_visible())
        self.report()

    def on_menu(self, _item, label):
        self.events.append({"event": "menu", "item": label})
        if label == "New":
            self.clicks["menu_new"] += 1
        if label == "Quit":
            Gtk.main_quit()
        self.report()

    def on_mapped(self, *_):
        # Report readiness once the first frame is drawn, so pixels are there.
        def after_draw():
            self.ready = True
            self.report()
            return False
        GLib.timeout_add(150, after_draw)
        return False

    def focused_widget(self):
        widget = self.window.get_focus()
        return widget.get_name() if widget is not None else None

    def allocation_in_window(self, widget):
        alloc = widget.get_allocation()
        x, y = widget.translate_coordinates(self.window, 0, 0) or (alloc.x, alloc.y)
        return [x, y, alloc.width, alloc.height]

    def state(self):
        model, rows = self.list.get_selection().get_selected_rows()
        gdk_window = self.window.get_window()
        return {
            "pid": os.getpid(),
            "title": self.window.get_title(),
            "ready": self.ready,
            "window_active": self.window.is_active(),
            # A native Wayland window has no X id.
            "xid": gdk_window.get_xid() if isinstance(gdk_window, GdkX11.X11Window) else None,
            "minimized": bool(gdk_window and gdk_window.get_state() & gi.repository.Gdk.WindowState.ICONIFIED),
            "focus": self.focused_widget(),
            "values": {
                "name": self.name.get_text(),
                "email": self.email.get_text(),
                "password_length": len(self.password.get_text()),
                "combo": self.combo.get_active_text(),
                "subscribe": self.subscribe.get_active(),
                "slider": self.slider.get_value(),
                "selected_row": rows[0].get_indices()[0] if rows else None,
            },
            "clicks": self.clicks,
            "status": self.status.get_text(),
            "details_shown": bool(getattr(self, "details", None) and self.details.get_visible()),
            "swatches": {k: self.allocation_in_window(a) for k, a in self.swatches.items()},
            "allocations": {k: self.allocation_in_window(w) for k, w in self.widgets.items()},
            "extra_windows": len(self.extra_windows),
            "pad": self.pad_state,
            "keys": self.keys,
            "events": self.events[-50:],
        }

    def report(self):
        # Nothing is reported until the window is up, so half-built state never leaks out.
        if not self.state_path or not self.ready:
            return
        tmp = self.state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state(), f)
        os.replace(tmp, self.state_path)

    def on_control(self, fd, _condition):
        try:
            self.control_buffer += os.read(fd, 65536)
        except BlockingIOError:
            return True
        while b"\n" in self.control_buffer:
            line, self.control_buffer = self.control_buffer.split(b"\n", 1)
            if line.strip():
                try:
                    self.run(json.loads(line))
                except Exception as e:  # a bad command must not kill the fixture
                    self.events.append({"event": "command-error", "error": str(e)})
                self.report()
        return True

    def run(self, command):
        cmd = command["cmd"]
        self.events.append({"event": "command", "cmd": cmd})
        if cmd == "set":
            widget, value = command["widget"], command["value"]
            if widget in ("name", "email", "password"):
                getattr(self, widget).set_text(value)
            elif widget == "combo":
                self.combo.set_active(COMBO_OPTIONS.index(value))
            elif widget == "subscribe":
                self.subscribe.set_active(bool(value))
            elif widget == "slider":
                self.slider.set_value(float(value))
            elif widget == "row":
                path = Gtk.TreePath(int(value))
                self.list.get_selection().select_path(path)
                self.list.scroll_to_cell(path, None, True, 0.5, 0.0)
        elif cmd == "focus":
            self.widgets[command["widget"]].grab_focus()
        elif cmd == "minimize":
            self.window.iconify()
        elif cmd == "restore":
            self.window.deiconify()
        elif cmd == "present":
            # The window manager weighs the request's time against the other
            # windows' last user time: the server's clock, not the process's.
            gdk_window = self.window.get_window()
            on_x11 = isinstance(gdk_window, GdkX11.X11Window)
            stamp = Gtk.get_current_event_time() or (GdkX11.x11_get_server_time(gdk_window) if on_x11 else 0)
            self.window.present_with_time(stamp)
        elif cmd == "move":
            self.window.move(command["x"], command["y"])
        elif cmd == "resize":
            self.window.resize(command["width"], command["height"])
        elif cmd == "title":
            self.window.set_title(command["value"])
        elif cmd == "open_windows":
            for i in range(int(command["count"])):
                extra = Gtk.Window(title="%s extra %d" % (self.args.title, i))
                extra.set_default_size(120, 60)
                extra.show_all()
                self.extra_windows.append(extra)
        elif cmd == "freeze":
            time.sleep(float(command["seconds"]))
        elif cmd == "spawn":
            out = open(command["stdout"], "wb")
            self.children = getattr(self, "children", [])
            self.children.append(subprocess.Popen(command["argv"], stdout=out, stderr=subprocess.STDOUT))
        elif cmd == "quit":
            Gtk.main_quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--title", default="glovebox fixture")
    parser.add_argument("--wm-name", default="glovebox-fixture", help="WM_CLASS instance")
    parser.add_argument("--wm-class", default="GloveboxFixture", help="WM_CLASS class")
    parser.add_argument("--width", type=int, default=480)
    parser.add_argument("--height", type=int, default=640)
    parser.add_argument("--x", type=int)
    parser.add_argument("--y", type=int)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--labels", type=int, default=0, help="extra labels, for large trees")
    parser.add_argument("--no-password", action="store_true", help="leave the password field out")
    parser.add_argument("--fill", help="R,G,B: show one flat colour instead of the widgets")
    parser.add_argument("--job-ms", type=int, default=0, help="Submit runs a job this long on the main thread before it counts")
    parser.add_argument("--submit-label", default="Submit", help="the label of the submitting button (a newer version of the app)")
    parser.add_argument("--react-ms", type=int, default=0, help="show a button's click in the status this long after it")
    parser.add_argument("--flood-ms", type=int, default=0, help="rename a ticker label this often, forever (an animation)")
    args = parser.parse_args()
    Fixture(args)
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
