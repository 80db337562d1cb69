#!/usr/bin/python3
"""Asks the desktop portal for remote control of the keyboard, as any
program may (org.freedesktop.portal.RemoteDesktop: CreateSession,
SelectDevices, Start), and prints each answer as one JSON line as it
comes. On GNOME, Start shows xdg-desktop-portal-gnome's consent dialog and
waits for the person: the test checks that glovebox never acts on it, so
no "Start" line is ever printed. Debian's /usr/bin/python3 (PyGObject).
"""
import json
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

bus = Gio.bus_get_sync(Gio.BusType.SESSION)
sender = bus.get_unique_name()[1:].replace(".", "_")
loop = GLib.MainLoop()
counter = [0]


def request(method, body):
    counter[0] += 1
    token = f"portaltest{counter[0]}"
    path = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
    answer = {}

    def on_response(_conn, _sender, _path, _iface, _signal, params):
        answer["response"] = params.unpack()
        loop.quit()

    bus.signal_subscribe(None, "org.freedesktop.portal.Request", "Response", path, None, 0, on_response)
    bus.call_sync("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                  "org.freedesktop.portal.RemoteDesktop", method, body(token), None, 0, 60000, None)
    loop.run()
    code, results = answer["response"]
    print(json.dumps({"method": method, "response": code}), flush=True)
    return results


def options(token, **more):
    return {"handle_token": GLib.Variant("s", token), **more}


created = request("CreateSession", lambda t: GLib.Variant("(a{sv})", (options(t, session_handle_token=GLib.Variant("s", "portaltest")),)))
session = created["session_handle"]
request("SelectDevices", lambda t: GLib.Variant("(oa{sv})", (session, options(t, types=GLib.Variant("u", 1)))))
request("Start", lambda t: GLib.Variant("(osa{sv})", (session, "", options(t))))
sys.exit(0)
