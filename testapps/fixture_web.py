#!/usr/bin/python3
"""Web fixture for glovebox's end-to-end tests: a local page shown in a real
browser (Chromium or Firefox ESR), reporting the same state document as the
GTK fixtures so the action matrix judges every toolkit alike.

It serves the page on 127.0.0.1, starts the browser on it, and keeps the
page's newest report (the page POSTs its state, numbered, after every
change) at $GLOVEBOX_FIXTURE_STATE. Commands written to the FIFO at
$GLOVEBOX_FIXTURE_CONTROL are handed to the page, which polls for them:
  {"cmd": "set", "widget": "name|combo", "value": ...}
  {"cmd": "focus", "widget": "name|submit"}
  {"cmd": "present"}   (not supported: browsers cannot be asked to activate)
The state carries "commands_sent" and "commands_done": equal once the page
has carried out every command.

usage: fixture_web.py --title T --browser chromium|firefox [--x X --y Y --width W --height H]
                     [--accessibility on|off]
"""

import argparse
import ctypes
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>%(title)s</title>
<style>body{font:14px sans-serif;margin:12px} #pad{width:360px;height:140px;background:#ccd;margin-top:10px;text-align:center;line-height:140px;user-select:none}</style></head><body>
<label for="name">Name</label> <input id="name" type="text" autocomplete="off"><br><br>
<label for="combo">Colour</label> <select id="combo"><option>Red</option><option>Green</option><option>Blue</option></select><br><br>
<button id="submit" type="button">Submit</button>
<div id="pad" role="group" aria-label="Pad">%(pad_text)s</div>
<script>
const el = id => document.getElementById(id);
let seq = 0, ready = false, pressAt = null, commandsDone = 0;
const clicks = {submit: 0};
const pad = {presses: [], hover: null, scrolls: {up: 0, down: 0, left: 0, right: 0}, drags: [], motions: 0};
const keys = [];
function mods(e) { return [['ctrl', e.ctrlKey], ['shift', e.shiftKey], ['alt', e.altKey], ['super', e.metaKey]].filter(m => m[1]).map(m => m[0]); }
function held(e, what) { const m = mods(e); if (m.length) (pad.held = pad.held || []).push({event: what, modifiers: m}); }
function report() {
  const focus = document.activeElement && document.activeElement.id ? document.activeElement.id : null;
  fetch('/state', {method: 'POST', body: JSON.stringify({seq: ++seq, page_ready: ready, screen: [window.screenX, window.screenY], title: document.title, window_active: document.hasFocus(), focus,
    values: {name: el('name').value, combo: el('combo').value}, clicks, pad, keys: keys.slice(-50), commands_done: commandsDone})});
}
el('submit').addEventListener('click', () => { clicks.submit++; report(); });
for (const ev of ['input', 'change', 'focusin']) document.addEventListener(ev, report, true);
document.addEventListener('keydown', e => { keys.push({key: e.key.length === 1 ? e.key.toLowerCase() : e.key, mods: mods(e), focus: document.activeElement.id || null}); report(); }, true);
const p = el('pad');
p.addEventListener('mousedown', e => {
  const button = [1, 2, 3, 8, 9][e.button];
  held(e, 'press ' + button);
  if (e.detail >= 2 && pad.presses.length && pad.presses[pad.presses.length - 1].button === button) pad.presses[pad.presses.length - 1].count = e.detail;
  else pad.presses.push({button, count: 1});
  if (button === 1) pressAt = [e.offsetX, e.offsetY];
  report();
});
p.addEventListener('mouseup', e => {
  const button = [1, 2, 3, 8, 9][e.button];
  held(e, 'release ' + button);
  if (button === 1 && pressAt) { if (Math.abs(e.offsetX - pressAt[0]) + Math.abs(e.offsetY - pressAt[1]) > 8) pad.drags.push([pressAt[0], pressAt[1], e.offsetX, e.offsetY]); pressAt = null; }
  report();
});
p.addEventListener('mousemove', e => { pad.motions++; if (!(e.buttons & 1)) pad.hover = [e.offsetX, e.offsetY]; report(); });
p.addEventListener('wheel', e => {
  e.preventDefault(); held(e, 'scroll');
  if (e.deltaY) pad.scrolls[e.deltaY > 0 ? 'down' : 'up']++;
  if (e.deltaX) pad.scrolls[e.deltaX > 0 ? 'right' : 'left']++;
  report();
}, {passive: false});
p.addEventListener('contextmenu', e => e.preventDefault());
async function poll() {
  try {
    const commands = await (await fetch('/control')).json();
    for (const c of commands) {
      if (c.cmd === 'set') { el(c.widget).value = c.value; }
      if (c.cmd === 'focus') { el(c.widget).focus(); }
      commandsDone++;
    }
    if (commands.length) report();
  } catch (e) {}
  setTimeout(poll, 100);
}
// Gecko's accessible `select` on an option changes the value without a change
// event: the page also reports a value that changed unannounced.
let lastValues = '';
setInterval(() => { const now = [el('name').value, el('combo').value, window.screenX, window.screenY].join('\u0000'); if (now !== lastValues) { lastValues = now; report(); } }, 250);
window.addEventListener('load', () => { ready = true; report(); poll(); });
</script></body></html>"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--title", required=True)
    parser.add_argument("--browser", choices=["chromium", "firefox"], required=True)
    parser.add_argument("--x", type=int, default=0)
    parser.add_argument("--y", type=int, default=0)
    parser.add_argument("--width", type=int, default=900)
    parser.add_argument("--height", type=int, default=640)
    # off: started as a person's browser with its accessibility off (Chromium
    # without its switch; Firefox with "Prevent accessibility services" ticked).
    parser.add_argument("--accessibility", choices=["on", "off"], default="on")
    args = parser.parse_args()
    state_path = os.environ["GLOVEBOX_FIXTURE_STATE"]
    control_path = os.environ.get("GLOVEBOX_FIXTURE_CONTROL")
    lock = threading.Lock()
    newest = {"seq": 0}
    pending = []
    sent = {"count": 0, "state": None}
    placed = threading.Event()

    def write_state(state):
        # Callers hold the lock. The state says how many commands the page was sent,
        # so a test waits for the page to have carried them all out.
        state["commands_sent"] = sent["count"]
        # Ready once the page has loaded and knows its window is where it was
        # asked to be (a browser tells its content of a move a little later;
        # until then its accessible positions are the old ones).
        screen = state.get("screen") or [None, None]
        arrived = all(isinstance(v, int) and abs(v - want) <= 60 for v, want in zip(screen, (args.x, args.y)))
        state["ready"] = bool(state.get("page_ready")) and placed.is_set() and arrived
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(state_path))
        with os.fdopen(fd, "w") as f:
            json.dump(state, f)
        os.replace(tmp, state_path)
        sent["state"] = state

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/control":
                with lock:
                    body = json.dumps(pending).encode()
                    pending.clear()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
            else:
                # Without accessibility the pad is found by what it shows.
                pad_text = "" if args.accessibility == "on" else "Pad"
                body = (PAGE % {"title": args.title, "pad_text": pad_text}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(204)
            self.end_headers()
            try:
                state = json.loads(data)
            except ValueError:
                return
            with lock:
                # Posts may arrive out of order; the page numbers them.
                if state.get("seq", 0) <= newest["seq"]:
                    return
                newest["seq"] = state["seq"]
                state["browser"] = args.browser
                write_state(state)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % server.server_address[1]
    profile = os.path.join(os.path.dirname(state_path), "profile")
    os.makedirs(profile, exist_ok=True)
    if args.browser == "chromium":
        switch = ["--force-renderer-accessibility"] if args.accessibility == "on" else []
        argv = ["chromium", "--no-sandbox", *switch, "--no-first-run", "--no-default-browser-check", "--disable-gpu",
                "--window-position=%d,%d" % (args.x, args.y), "--window-size=%d,%d" % (args.width, args.height), "--user-data-dir=" + profile, url]
    else:
        # The page is the oracle: Firefox must not throttle its timers while
        # the window is in the background, nor open first-run pages over it.
        with open(os.path.join(profile, "user.js"), "w") as prefs:
            for key, value in (("dom.min_background_timeout_value", 10), ("dom.timeout.enable_budget_timer_throttling", False),
                               ("dom.suspend_inactive.enabled", False), ("datareporting.policy.dataSubmissionEnabled", False),
                               ("browser.shell.checkDefaultBrowser", False), ("browser.aboutwelcome.enabled", False),
                               ("browser.startup.homepage_override.mstone", "ignore"), ("trailhead.firstrun.didSeeAboutWelcome", True)):
                prefs.write("user_pref(%s, %s);\n" % (json.dumps(key), json.dumps(value)))
            if args.accessibility == "off":
                prefs.write('user_pref("accessibility.force_disabled", 1);\n')
        argv = ["firefox-esr", "--no-remote", "--new-instance", "--profile", profile, "--width", str(args.width), "--height", str(args.height), url]
    log = open(os.path.join(os.path.dirname(state_path), "browser.log"), "w")
    def die_with_fixture():
        # PR_SET_PDEATHSIG: the tests end the fixture with SIGKILL; the browser goes with it.
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)

    browser = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=die_with_fixture,
                               env=dict(os.environ, HOME=os.path.dirname(state_path)))

    def place():
        # Firefox takes no position on its command line; the window manager
        # would put it wherever there is room, under or over other windows.
        subprocess.run(["xdotool", "search", "--sync", "--limit", "1", "--name", args.title, "windowmove", "--sync", str(args.x), str(args.y)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30, check=False)
        with lock:
            placed.set()
            if sent["state"] is not None:
                write_state(dict(sent["state"]))

    threading.Thread(target=place, daemon=True).start()

    def stop(*_):
        browser.terminate()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    if control_path:
        if not os.path.exists(control_path):
            os.mkfifo(control_path)
        while True:
            with open(control_path) as fifo:
                for line in fifo:
                    line = line.strip()
                    if line:
                        with lock:
                            pending.append(json.loads(line))
                            sent["count"] += 1
                            if sent["state"] is not None:
                                write_state(dict(sent["state"]))
    browser.wait()


if __name__ == "__main__":
    main()
