#!/usr/bin/python3
"""Baseline for glovebox-bench: a full pyatspi walk of one application's
window, reading for every node what glovebox reads (role, name,
description, states, interfaces, extents, actions). Prints the node count
and the median walk time in milliseconds over --runs walks.

usage: pyatspi_walk.py --pid PID --title TITLE [--runs N]
"""

import argparse
import statistics
import sys
import time

import pyatspi


def find_window(pid, title):
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is None:
            continue
        try:
            if app.get_process_id() != pid:
                continue
        except Exception:
            continue
        windows = [w for w in app if w is not None]
        for window in windows:
            if window.name == title:
                return window
        # Some toolkits leave the window's accessible unnamed (gtk3-widget-factory).
        if len(windows) == 1:
            return windows[0]
    return None


def walk(node):
    count = 1
    node.getRole()
    node.name
    node.description
    node.getState()
    interfaces = pyatspi.listInterfaces(node)
    if "Component" in interfaces:
        node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    if "Action" in interfaces:
        action = node.queryAction()
        for i in range(action.nActions):
            action.getName(i)
    # A spreadsheet's table manages two billion cells: a full walk would never end.
    if node.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS) and node.childCount > 5000:
        return count
    for child in node:
        if child is not None:
            count += walk(child)
    return count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--title", required=True)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    window = find_window(args.pid, args.title)
    if window is None:
        print("window not found", file=sys.stderr)
        return 1
    times, count = [], 0
    for _ in range(args.runs + 1):
        start = time.perf_counter()
        count = walk(window)
        times.append((time.perf_counter() - start) * 1000)
    print("%d %.2f" % (count, statistics.median(times[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
