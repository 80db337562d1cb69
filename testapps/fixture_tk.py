#!/usr/bin/python3
"""Tk fixture for glovebox's end-to-end tests: a window with a labelled
Name field and a Send button, drawn by Tk (no accessibility tree at all).
It writes its state as JSON to STATE after every change, the tests'
oracle:
  {"seq": N, "values": {"name": "..."}, "clicks": {"send": N},
   "sent": ["..."], "keys": N, "window_active": bool}

usage: fixture_tk.py TITLE STATE [--x X --y Y] [--class CLASS] [--relabel FILE]
(--class names the application as WM_CLASS does: any text, as a hostile
program may choose it; once FILE exists, the Send button reads its text)
"""
import argparse
import json
import os
import tkinter as tk

parser = argparse.ArgumentParser()
parser.add_argument("title")
parser.add_argument("state")
parser.add_argument("--x", type=int, default=60)
parser.add_argument("--y", type=int, default=60)
parser.add_argument("--class", dest="klass", default=None)
parser.add_argument("--relabel", default=None)
args = parser.parse_args()

root = tk.Tk(className=args.klass) if args.klass else tk.Tk()
root.title(args.title)
root.geometry(f"420x160+{args.x}+{args.y}")
state = {"seq": 0, "values": {"name": ""}, "clicks": {"send": 0}, "sent": [], "keys": 0, "window_active": False}


def report(*_):
    state["seq"] += 1
    state["values"]["name"] = name.get()
    state["window_active"] = root.focus_displayof() is not None
    tmp = args.state + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, args.state)


def send():
    state["clicks"]["send"] += 1
    state["sent"].append(name.get())
    report()


def key(_):
    state["keys"] += 1
    report()


tk.Label(root, text="Fill in your name and press Send.", font=("DejaVu Sans", 12)).pack(anchor="w", padx=12, pady=(12, 6))
row = tk.Frame(root)
row.pack(anchor="w", padx=12)
tk.Label(row, text="Name", font=("DejaVu Sans", 12)).pack(side="left")
name = tk.StringVar()
name.trace_add("write", report)
entry = tk.Entry(row, textvariable=name, width=20, font=("DejaVu Sans", 12))
entry.pack(side="left", padx=8)
entry.bind("<Key>", key)
button = tk.Button(row, text="Send", command=send, font=("DejaVu Sans", 12))
button.pack(side="left")


def relabel():
    try:
        with open(args.relabel) as f:
            button.configure(text=f.read().strip())
    except FileNotFoundError:
        root.after(100, relabel)


if args.relabel:
    root.after(100, relabel)
root.bind("<FocusIn>", report)
root.bind("<FocusOut>", report)
root.after(200, report)
root.mainloop()
