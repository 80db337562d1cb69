#!/usr/bin/python3
"""Tk fixture of the action matrix: the same widgets and the same state
document as the GTK fixtures (`testapps/fixture_gtk3.py` documents it), drawn
by Tk, which has no accessibility at all: glovebox reaches it only through
what it sees in the pixels. The pad is a canvas showing its name.

State (rewritten atomically at $GLOVEBOX_FIXTURE_STATE after every change):
  ready, title, focus, window_active, values {name, combo}, clicks {submit},
  pad {presses [{button, count}], hover, scrolls {up, down, left, right},
  drags, motions, held [{event, modifiers}]}, keys [{key, mods, focus}]
Control: one JSON command per line written to the FIFO at
$GLOVEBOX_FIXTURE_CONTROL: {"cmd": "set", "widget": "name|combo", "value": ...},
{"cmd": "focus", "widget": "name|submit"}.

usage: fixture_tk_matrix.py --title T [--x X --y Y]
"""
import argparse
import json
import os
import threading
import tkinter as tk

parser = argparse.ArgumentParser()
parser.add_argument("--title", required=True)
parser.add_argument("--x", type=int, default=0)
parser.add_argument("--y", type=int, default=0)
args = parser.parse_args()

STATE = os.environ["GLOVEBOX_FIXTURE_STATE"]
CONTROL = os.environ.get("GLOVEBOX_FIXTURE_CONTROL")
FONT = ("DejaVu Sans", 12)

root = tk.Tk()
root.title(args.title)
root.geometry("460x330+%d+%d" % (args.x, args.y))
pad = {"presses": [], "hover": None, "scrolls": {"up": 0, "down": 0, "left": 0, "right": 0}, "drags": [], "motions": 0, "held": []}
state = {"ready": False, "title": args.title, "focus": None, "window_active": False,
         "values": {"name": "", "combo": "Red"}, "clicks": {"submit": 0}, "pad": pad, "keys": []}
press_at = None


def report(*_):
    # The widget that has (or gets, once the window is active) the keyboard in this window.
    focused = root.focus_lastfor()
    state["focus"] = {str(entry): "name", str(submit): "submit"}.get(str(focused)) if focused else None
    state["values"]["name"] = name.get()
    state["values"]["combo"] = combo.get()
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, STATE)


def mods(event):
    held = [("ctrl", 0x4), ("shift", 0x1), ("alt", 0x8), ("super", 0x40)]
    return [name for name, bit in held if event.state & bit]


def held(event, what):
    if mods(event):
        pad["held"].append({"event": what, "modifiers": mods(event)})


row = tk.Frame(root)
row.pack(anchor="w", padx=12, pady=(12, 6))
tk.Label(row, text="Name", font=FONT).pack(side="left")
name = tk.StringVar()
entry = tk.Entry(row, textvariable=name, width=22, font=FONT)
entry.pack(side="left", padx=8)
row2 = tk.Frame(root)
row2.pack(anchor="w", padx=12, pady=6)
tk.Label(row2, text="Colour", font=FONT).pack(side="left")
combo = tk.StringVar(value="Red")
tk.OptionMenu(row2, combo, "Red", "Green", "Blue").pack(side="left", padx=8)


def on_submit():
    state["clicks"]["submit"] += 1
    report()


submit = tk.Button(root, text="Submit", command=on_submit, font=FONT)
submit.pack(anchor="w", padx=12, pady=6)
canvas = tk.Canvas(root, width=360, height=140, background="#ccccdd", highlightthickness=0)
canvas.pack(anchor="w", padx=12, pady=6)
canvas.create_text(180, 70, text="Pad", font=FONT)

BUTTONS = {1: 1, 2: 2, 3: 3, 8: 8, 9: 9}


def press(event):
    global press_at
    if event.num in (4, 5, 6, 7):
        held(event, "scroll")
        pad["scrolls"][{4: "up", 5: "down", 6: "left", 7: "right"}[event.num]] += 1
    else:
        held(event, "press %d" % event.num)
        pad["presses"].append({"button": event.num, "count": 1})
        if event.num == 1:
            press_at = (event.x, event.y)
    report()


def double(event):
    # Tk runs only the most specific binding: a second wheel step is a "double" press too.
    if event.num in (4, 5, 6, 7):
        return press(event)
    held(event, "press %d" % event.num)
    if pad["presses"] and pad["presses"][-1]["button"] == event.num:
        pad["presses"][-1]["count"] = 2
    report()


def release(event):
    global press_at
    if event.num in (4, 5, 6, 7):
        return
    held(event, "release %d" % event.num)
    if event.num == 1 and press_at:
        if abs(event.x - press_at[0]) + abs(event.y - press_at[1]) > 8:
            pad["drags"].append([press_at[0], press_at[1], event.x, event.y])
        press_at = None
    report()


def motion(event):
    pad["motions"] += 1
    if not event.state & 0x100:
        pad["hover"] = [event.x, event.y]
    report()


canvas.bind("<ButtonPress>", press)
canvas.bind("<Double-ButtonPress>", double)
canvas.bind("<ButtonRelease>", release)
canvas.bind("<Motion>", motion)


def key(event):
    key = event.keysym if len(event.keysym) > 1 else event.keysym.lower()
    if event.char and len(event.char) == 1 and event.char.isprintable():
        key = event.char.lower()
    state["keys"] = (state["keys"] + [{"key": key, "mods": mods(event), "focus": state["focus"]}])[-50:]
    root.after_idle(report)


root.bind_all("<KeyPress>", key)
name.trace_add("write", report)
combo.trace_add("write", report)


def active(value):
    state["window_active"] = value
    report()


root.bind("<FocusIn>", lambda e: e.widget is root and active(True))
root.bind("<FocusOut>", lambda e: e.widget is root and active(False))


def command(line):
    try:
        c = json.loads(line)
    except ValueError:
        return
    widget = {"name": entry, "submit": submit}.get(c.get("widget"))
    if c.get("cmd") == "set" and c.get("widget") == "name":
        name.set(c["value"])
    elif c.get("cmd") == "set" and c.get("widget") == "combo":
        combo.set(c["value"])
    elif c.get("cmd") == "focus" and widget is not None:
        widget.focus_set()
        root.after(50, report)
    report()


if CONTROL and not os.path.exists(CONTROL):
    os.mkfifo(CONTROL)


def listen():
    if not CONTROL:
        return
    while True:
        with open(CONTROL) as fifo:
            for line in fifo:
                root.after(0, command, line)


threading.Thread(target=listen, daemon=True).start()


def ready():
    state["ready"] = True
    report()


root.after(300, ready)
root.mainloop()
