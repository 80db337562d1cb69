#!/usr/bin/python3
"""Terminal fixture for glovebox's end-to-end tests: run inside xterm
(`xterm -e python3 fixture_term.py`). It turns on xterm's mouse reporting
(any-event tracking, SGR encoding), reads the terminal raw, and reports what
arrived — mouse presses, wheel steps, motion, and typed keys — as JSON,
rewritten atomically at $GLOVEBOX_FIXTURE_STATE. The state keys follow the
GTK fixtures where they mean the same thing (`pad` is the whole terminal).
"""

import json
import os
import re
import select
import sys
import termios
import tty

SGR_MOUSE = re.compile(rb"\x1b\[<(\d+);(\d+);(\d+)([Mm])")


def main():
    state_path = os.environ.get("GLOVEBOX_FIXTURE_STATE")
    state = {
        "pid": os.getpid(),
        "ready": True,
        "typed": "",
        "keys_raw": [],
        "pad": {"presses": [], "hover": None, "scrolls": {"up": 0, "down": 0, "left": 0, "right": 0}, "drags": [], "motions": 0},
    }
    press_at = None

    def report():
        if not state_path:
            return
        tmp = state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f)
        os.replace(tmp, state_path)

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    # 1003: report every motion; 1006: SGR coordinates.
    sys.stdout.write("\x1b[?1003h\x1b[?1006h glovebox terminal fixture\r\n")
    sys.stdout.flush()
    report()
    buffer = b""
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buffer += chunk
            while buffer:
                match = SGR_MOUSE.match(buffer)
                if match:
                    code, x, y, kind = int(match.group(1)), int(match.group(2)), int(match.group(3)), match.group(4)
                    buffer = buffer[match.end():]
                    pad = state["pad"]
                    base = code & ~(4 | 8 | 16)
                    # xterm encodes shift, meta and control as 4, 8 and 16.
                    mods = [name for bit, name in ((16, "ctrl"), (4, "shift"), (8, "alt")) if code & bit]
                    if mods and not code & 32:
                        what = "scroll" if code & 64 else ("press %d" if kind == b"M" else "release %d") % ((base & 3) + 1)
                        pad.setdefault("held", []).append({"event": what, "modifiers": mods})
                    if code & 64:
                        direction = {64: "up", 65: "down", 66: "left", 67: "right"}.get(base)
                        if direction and kind == b"M":
                            pad["scrolls"][direction] += 1
                    elif code & 32:
                        pad["motions"] += 1
                        if base & 3 == 3:
                            pad["hover"] = [x, y]
                    elif kind == b"M":
                        pad["presses"].append({"button": (base & 3) + 1, "count": 1, "cell": [x, y]})
                        if base & 3 == 0:
                            press_at = (x, y)
                    elif kind == b"m" and press_at is not None:
                        if (x, y) != press_at:
                            pad["drags"].append([press_at[0], press_at[1], x, y])
                        press_at = None
                    continue
                if buffer.startswith(b"\x1b[<") and len(buffer) < 32:
                    break  # an incomplete mouse report: wait for the rest
                # Anything else is keyboard input.
                text = buffer.decode("utf-8", errors="replace")
                state["typed"] += text
                state["keys_raw"].append(text)
                state["keys_raw"] = state["keys_raw"][-50:]
                buffer = b""
            report()
    finally:
        sys.stdout.write("\x1b[?1003l\x1b[?1006l")
        sys.stdout.flush()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    sys.exit(main())
