#!/usr/bin/python3
"""GTK4 fixture app for glovebox's end-to-end tests (the action matrix).

Like fixture_gtk3.py it reports its own state as JSON, rewritten atomically at
$GLOVEBOX_FIXTURE_STATE after every change, and takes JSON-line commands on
the FIFO at $GLOVEBOX_FIXTURE_CONTROL: {"cmd": "set"|"focus"|"present"|"quit"}.
State keys match the GTK3 fixture where the widgets match.
"""

import argparse
import json
import os
import sys
import time

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

COMBO_OPTIONS = ["Red", "Green", "Blue"]


class Fixture:
    def __init__(self, app, args):
        self.args = args
        self.state_path = os.environ.get("GLOVEBOX_FIXTURE_STATE")
        self.ready = False
        self.clicks = {"submit": 0}
        self.keys = []
        self.pad_state = {"presses": [], "hover": None, "scrolls": {"up": 0, "down": 0, "left": 0, "right": 0}, "drags": [], "motions": 0}

        self.window = Gtk.ApplicationWindow(application=app, title=args.title)
        self.window.set_default_size(args.width, args.height)
        self.window.connect("notify::is-active", lambda *a: self.report())
        self.window.connect("notify::focus-widget", lambda *a: self.report())

        grid = Gtk.Grid(column_spacing=8, row_spacing=6, margin_start=8, margin_end=8, margin_top=8, margin_bottom=8)
        self.window.set_child(grid)

        self.name = self.labelled(grid, 0, "Name", Gtk.Entry())
        self.password = self.labelled(grid, 1, "Password", Gtk.PasswordEntry())
        if args.no_password:
            grid.remove(self.password)
        for entry in (self.name, self.password):
            entry.connect("changed", lambda *a: self.report())

        self.combo = self.labelled(grid, 2, "Colour", Gtk.DropDown.new_from_strings(COMBO_OPTIONS))
        self.combo.connect("notify::selected", lambda *a: self.report())

        self.subscribe = Gtk.CheckButton(label="Subscribe")
        self.subscribe.set_name("subscribe")
        self.subscribe.connect("toggled", lambda *a: self.report())
        grid.attach(self.subscribe, 1, 3, 1, 1)

        self.slider = self.labelled(grid, 4, "Volume", Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1))
        self.slider.set_value(50)
        self.slider.set_hexpand(True)
        self.slider.connect("value-changed", lambda *a: self.report())

        self.submit = Gtk.Button(label="Submit")
        self.submit.set_name("submit")
        self.submit.connect("clicked", self.on_click)
        grid.attach(self.submit, 1, 5, 1, 1)

        # An image role: GTK 4.18 leaves a generic drawing area out of the
        # accessibility tree; the pad must be found by name on every version.
        self.pad = Gtk.DrawingArea(accessible_role=Gtk.AccessibleRole.IMG)
        self.pad.set_name("pad")
        self.pad.set_size_request(200, 60)
        self.pad.set_focusable(False)
        self.pad.update_property([Gtk.AccessibleProperty.LABEL], ["Pad"])
        click = Gtk.GestureClick(button=0)
        click.connect("pressed", self.on_pad_press)
        self.pad.add_controller(click)
        motion = Gtk.EventControllerMotion()
        motion.connect("motion", self.on_pad_motion)
        self.pad.add_controller(motion)
        scroll = Gtk.EventControllerScroll(flags=Gtk.EventControllerScrollFlags.BOTH_AXES | Gtk.EventControllerScrollFlags.DISCRETE)
        scroll.connect("scroll", self.on_pad_scroll)
        self.pad.add_controller(scroll)
        drag = Gtk.GestureDrag()
        drag.connect("drag-end", self.on_pad_drag_end)
        self.pad.add_controller(drag)
        grid.attach(self.pad, 1, 6, 1, 1)

        keys = Gtk.EventControllerKey()
        keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
        keys.connect("key-pressed", self.on_key)
        self.window.add_controller(keys)

        self.widgets = {"name": self.name, "password": self.password, "combo": self.combo, "subscribe": self.subscribe,
                        "slider": self.slider, "submit": self.submit, "pad": self.pad}

        control = os.environ.get("GLOVEBOX_FIXTURE_CONTROL")
        if control:
            if not os.path.exists(control):
                os.mkfifo(control)
            fd = os.open(control, os.O_RDWR | os.O_NONBLOCK)
            self.control_buffer = b""
            GLib.io_add_watch(fd, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN, self.on_control)

        self.window.present()
        GLib.timeout_add(400, self.on_ready)

    def labelled(self, grid, row, label, widget):
        grid.attach(Gtk.Label(label=label), 0, row, 1, 1)
        widget.set_name(label.lower() if label != "Colour" else "combo")
        if label == "Volume":
            widget.set_name("slider")
        widget.update_property([Gtk.AccessibleProperty.LABEL], [label])
        grid.attach(widget, 1, row, 1, 1)
        return widget

    def on_ready(self):
        self.ready = True
        self.report()
        return False

    def on_click(self, _button):
        self.clicks["submit"] += 1
        self.report()

    def held(self, controller, what):
        """Records which modifier keys the event on the pad carried, when any."""
        state = controller.get_current_event_state()
        mods = [name for name, mask in (("ctrl", Gdk.ModifierType.CONTROL_MASK), ("shift", Gdk.ModifierType.SHIFT_MASK),
                                         ("alt", Gdk.ModifierType.ALT_MASK), ("super", Gdk.ModifierType.SUPER_MASK)) if state & mask]
        if mods:
            self.pad_state.setdefault("held", []).append({"event": what, "modifiers": mods})

    def on_pad_press(self, gesture, n_press, _x, _y):
        button = gesture.get_current_button()
        self.held(gesture, "press %d" % button)
        if n_press > 1 and self.pad_state["presses"]:
            self.pad_state["presses"][-1]["count"] = n_press
        else:
            self.pad_state["presses"].append({"button": button, "count": 1})
        self.report()

    def on_pad_motion(self, _controller, x, y):
        self.pad_state["motions"] += 1
        self.pad_state["hover"] = [int(x), int(y)]
        self.report()

    def on_pad_scroll(self, controller, dx, dy):
        self.held(controller, "scroll")
        for value, neg, pos in ((dy, "up", "down"), (dx, "left", "right")):
            if value:
                self.pad_state["scrolls"][pos if value > 0 else neg] += int(round(abs(value))) or 1
        self.report()
        return True

    def on_pad_drag_end(self, gesture, dx, dy):
        self.held(gesture, "release 1")
        ok, x, y = gesture.get_start_point()
        if ok and abs(dx) + abs(dy) > 8:
            self.pad_state["drags"].append([int(x), int(y), int(x + dx), int(y + dy)])
        self.report()

    def on_key(self, _controller, keyval, _keycode, state):
        mods = [name for name, mask in (("ctrl", Gdk.ModifierType.CONTROL_MASK), ("shift", Gdk.ModifierType.SHIFT_MASK),
                                        ("alt", Gdk.ModifierType.ALT_MASK), ("super", Gdk.ModifierType.SUPER_MASK)) if state & mask]
        self.keys.append({"key": Gdk.keyval_name(keyval), "mods": mods, "focus": self.focused_widget()})
        self.keys = self.keys[-50:]
        self.report()
        return False

    def focused_widget(self):
        widget = self.window.get_focus()
        while widget is not None:
            if widget.get_name() in self.widgets:
                return widget.get_name()
            widget = widget.get_parent()
        return None

    def allocation(self, widget):
        ok, bounds = widget.compute_bounds(self.window)
        if not ok:
            return None
        return [int(bounds.origin.x), int(bounds.origin.y), int(bounds.size.width), int(bounds.size.height)]

    def state(self):
        surface = self.window.get_surface()
        return {
            "pid": os.getpid(),
            "title": self.window.get_title(),
            "ready": self.ready,
            "window_active": self.window.is_active(),
            "xid": surface.get_xid() if surface is not None and hasattr(surface, "get_xid") else None,
            "focus": self.focused_widget(),
            "values": {
                "name": self.name.get_text(),
                "password_length": len(self.password.get_text()),
                "combo": COMBO_OPTIONS[self.combo.get_selected()] if self.combo.get_selected() < len(COMBO_OPTIONS) else None,
                "subscribe": self.subscribe.get_active(),
                "slider": self.slider.get_value(),
            },
            "clicks": self.clicks,
            "allocations": {k: self.allocation(w) for k, w in self.widgets.items()},
            "pad": self.pad_state,
            "keys": self.keys,
        }

    def report(self):
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
            if not line.strip():
                continue
            try:
                command = json.loads(line)
                cmd = command["cmd"]
                if cmd == "set" and command["widget"] == "name":
                    self.name.set_text(command["value"])
                elif cmd == "set" and command["widget"] == "password":
                    self.password.set_text(command["value"])
                elif cmd == "focus":
                    self.widgets[command["widget"]].grab_focus()
                elif cmd == "present":
                    self.window.present()
                elif cmd == "quit":
                    self.window.get_application().quit()
            except Exception as e:  # a bad command must not kill the fixture
                print("fixture command failed:", e, file=sys.stderr)
            self.report()
        return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--title", default="glovebox gtk4 fixture")
    parser.add_argument("--width", type=int, default=420)
    parser.add_argument("--height", type=int, default=420)
    parser.add_argument("--no-password", action="store_true", help="leave the password field out")
    args, _ = parser.parse_known_args()
    app = Gtk.Application(application_id=None)
    holder = {}
    app.connect("activate", lambda a: holder.setdefault("fixture", Fixture(a, args)))
    return app.run([sys.argv[0]])


if __name__ == "__main__":
    sys.exit(main())
