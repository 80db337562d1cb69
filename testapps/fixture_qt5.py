#!/usr/bin/python3
"""Qt 5 fixture app for glovebox's end-to-end tests (PyQt5), reporting the
same state document as the GTK fixtures so the action matrix judges every
toolkit alike: one JSON document rewritten atomically at
$GLOVEBOX_FIXTURE_STATE after every change; JSON-line commands from the FIFO
at $GLOVEBOX_FIXTURE_CONTROL:
  {"cmd": "set", "widget": "name|combo", "value": ...}
  {"cmd": "focus", "widget": "name|submit"}
  {"cmd": "present"}

usage: fixture_qt5.py --title T [--x X --y Y --width W --height H]
"""

import argparse
import json
import os
import sys
import tempfile
import threading

from PyQt5.QtCore import QObject, Qt, QTimer, pyqtSignal
from PyQt5.QtWidgets import QApplication, QComboBox, QGridLayout, QLabel, QLineEdit, QPushButton, QWidget

BUTTONS = {Qt.LeftButton: 1, Qt.MiddleButton: 2, Qt.RightButton: 3, Qt.BackButton: 8, Qt.ForwardButton: 9}


def modifiers(event):
    held = event.modifiers()
    return [name for name, flag in (("ctrl", Qt.ControlModifier), ("shift", Qt.ShiftModifier), ("alt", Qt.AltModifier), ("super", Qt.MetaModifier))
            if held & flag]


class Pad(QWidget):
    def __init__(self, fixture):
        super().__init__()
        self.fixture = fixture
        self.setObjectName("pad")
        self.setAccessibleName("Pad")
        self.setMinimumSize(360, 140)
        self.setMouseTracking(True)
        self.setStyleSheet("background: #ccd")
        self.setAttribute(Qt.WA_StyledBackground, True)
        self.state = {"presses": [], "hover": None, "scrolls": {"up": 0, "down": 0, "left": 0, "right": 0}, "drags": [], "motions": 0}
        self.press_at = None

    def held(self, event, what):
        mods = modifiers(event)
        if mods:
            self.state.setdefault("held", []).append({"event": what, "modifiers": mods})

    def mousePressEvent(self, event):
        button = BUTTONS.get(event.button(), 0)
        self.held(event, "press %d" % button)
        self.state["presses"].append({"button": button, "count": 1})
        if button == 1:
            self.press_at = (event.x(), event.y())
        self.fixture.report()

    def mouseDoubleClickEvent(self, event):
        button = BUTTONS.get(event.button(), 0)
        self.held(event, "press %d" % button)
        if self.state["presses"] and self.state["presses"][-1]["button"] == button:
            self.state["presses"][-1]["count"] = 2
        else:
            self.state["presses"].append({"button": button, "count": 2})
        self.fixture.report()

    def mouseReleaseEvent(self, event):
        button = BUTTONS.get(event.button(), 0)
        self.held(event, "release %d" % button)
        if button == 1 and self.press_at is not None:
            start, end = self.press_at, (event.x(), event.y())
            if abs(end[0] - start[0]) + abs(end[1] - start[1]) > 8:
                self.state["drags"].append([start[0], start[1], end[0], end[1]])
            self.press_at = None
        self.fixture.report()

    def enterEvent(self, event):
        # Qt sends no move for a pointer arriving where it last was; the
        # arrival itself is what the application saw of the hover.
        self.state["motions"] += 1
        self.fixture.report()

    def mouseMoveEvent(self, event):
        self.state["motions"] += 1
        if not event.buttons() & Qt.LeftButton:
            self.state["hover"] = [event.x(), event.y()]
        self.fixture.report()

    def wheelEvent(self, event):
        self.held(event, "scroll")
        delta = event.angleDelta()
        for value, neg, pos in ((-delta.y(), "up", "down"), (delta.x(), "left", "right")):
            if value:
                self.state["scrolls"][pos if value > 0 else neg] += max(1, abs(value) // 120)
        self.fixture.report()


class Commands(QObject):
    arrived = pyqtSignal(dict)


class Fixture(QObject):
    def __init__(self, args):
        super().__init__()
        self.state_path = os.environ["GLOVEBOX_FIXTURE_STATE"]
        self.ready = False
        self.clicks = {"submit": 0}
        self.keys = []
        self.window = QWidget()
        self.window.setWindowTitle(args.title)
        grid = QGridLayout(self.window)
        self.name = QLineEdit()
        self.name.setObjectName("name")
        name_label = QLabel("&Name")
        name_label.setBuddy(self.name)
        self.combo = QComboBox()
        self.combo.setObjectName("combo")
        self.combo.addItems(["Red", "Green", "Blue"])
        combo_label = QLabel("&Colour")
        combo_label.setBuddy(self.combo)
        self.submit = QPushButton("Submit")
        self.submit.setObjectName("submit")
        self.pad = Pad(self)
        grid.addWidget(name_label, 0, 0)
        grid.addWidget(self.name, 0, 1)
        grid.addWidget(combo_label, 1, 0)
        grid.addWidget(self.combo, 1, 1)
        grid.addWidget(self.submit, 2, 1)
        grid.addWidget(self.pad, 3, 0, 1, 2)
        self.widgets = {"name": self.name, "combo": self.combo, "submit": self.submit, "pad": self.pad}
        self.name.textChanged.connect(self.report)
        self.combo.currentTextChanged.connect(self.report)
        self.submit.clicked.connect(self.on_submit)
        QApplication.instance().focusChanged.connect(lambda *_: self.report())
        QApplication.instance().installEventFilter(self)
        self.window.resize(args.width, args.height)
        self.window.move(args.x, args.y)
        self.commands = Commands()
        self.commands.arrived.connect(self.run)
        control = os.environ.get("GLOVEBOX_FIXTURE_CONTROL")
        if control:
            if not os.path.exists(control):
                os.mkfifo(control)
            threading.Thread(target=self.read_commands, args=(control,), daemon=True).start()
        self.window.show()
        QTimer.singleShot(300, self.on_ready)

    def on_ready(self):
        self.ready = True
        self.report()

    def on_submit(self):
        self.clicks["submit"] += 1
        self.report()

    def eventFilter(self, obj, event):
        if event.type() == event.KeyPress and obj is self.window.focusWidget():
            text = event.text()
            key = text.lower() if text and text.isprintable() and not event.modifiers() & Qt.ControlModifier else None
            if key is None:
                names = {Qt.Key_Return: "Return", Qt.Key_Enter: "Return", Qt.Key_Tab: "Tab", Qt.Key_Escape: "Escape", Qt.Key_Backspace: "BackSpace"}
                key = names.get(event.key()) or (chr(event.key()).lower() if 0x20 < event.key() < 0x7f else str(event.key()))
            focus = self.window.focusWidget()
            self.keys.append({"key": key, "mods": modifiers(event), "focus": focus.objectName() if focus else None})
            self.keys = self.keys[-50:]
            QTimer.singleShot(0, self.report)
        return False

    def read_commands(self, path):
        while True:
            with open(path) as fifo:
                for line in fifo:
                    if line.strip():
                        self.commands.arrived.emit(json.loads(line))

    def run(self, command):
        cmd = command.get("cmd")
        if cmd == "set" and command["widget"] == "name":
            self.name.setText(command["value"])
        elif cmd == "set" and command["widget"] == "combo":
            self.combo.setCurrentText(command["value"])
        elif cmd == "focus":
            self.widgets[command["widget"]].setFocus()
        elif cmd == "present":
            self.window.raise_()
            self.window.activateWindow()
        self.report()

    def allocation(self, widget):
        point = widget.mapTo(self.window, widget.rect().topLeft())
        return [point.x(), point.y(), widget.width(), widget.height()]

    def report(self, *_):
        # The window's focus widget: the application's is none while the window is inactive.
        focus = self.window.focusWidget()
        state = {
            "pid": os.getpid(),
            "title": self.window.windowTitle(),
            "ready": self.ready,
            "window_active": self.window.isActiveWindow(),
            "focus": focus.objectName() if focus else None,
            "values": {"name": self.name.text(), "combo": self.combo.currentText()},
            "clicks": self.clicks,
            "allocations": {k: self.allocation(w) for k, w in self.widgets.items()},
            "pad": self.pad.state,
            "keys": self.keys,
        }
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(self.state_path))
        with os.fdopen(fd, "w") as f:
            json.dump(state, f)
        os.replace(tmp, self.state_path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--title", required=True)
    parser.add_argument("--x", type=int, default=0)
    parser.add_argument("--y", type=int, default=0)
    parser.add_argument("--width", type=int, default=520)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--no-password", action="store_true", help="accepted for symmetry with the GTK fixtures (there is none)")
    args = parser.parse_args()
    app = QApplication(sys.argv)
    fixture = Fixture(args)
    sys.exit(app.exec_())


if __name__ == "__main__":
    main()
