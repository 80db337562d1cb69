"""A click that changes nothing, through the official MCP Python SDK with
glovebox alone (no peer registered for events): the GTK3 fixture's button
clicked six times by element with its result; after the first, the
fixture's status already says so. Prints each click's time and the
result's verdict.

Usage (on a private desktop):
  glovebox sandbox -- target/sdk-venv/bin/python testapps/bench_no_change_mcp.py GLOVEBOX [BUTTON]
"""
import asyncio
import os
import subprocess
import sys
import tempfile
import time

from mcp import Client, StdioServerParameters


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def main(glovebox, button):
    state = os.path.join(tempfile.mkdtemp(), "state.json")
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture_gtk3.py")
    app = subprocess.Popen(["/usr/bin/python3", fixture, "--title", "no change fixture"], env=dict(os.environ, GLOVEBOX_FIXTURE_STATE=state))
    time.sleep(2.5)
    home = tempfile.mkdtemp()
    server = StdioServerParameters(command=glovebox, args=["mcp"], env=dict(os.environ, HOME=home, GLOVEBOX_ENABLED="true", GLOVEBOX_APPROVAL_MODE="yolo"))
    try:
        async with Client(server, read_timeout_seconds=60) as g:
            listed = text_of(await g.call_tool("list_windows", {"query": "no change fixture"}))
            window = listed.splitlines()[1].split()[0]
            for i in range(6):
                seen = text_of(await g.call_tool("observe", {"window": window, "screenshot": False}))
                element = next(next(w for w in line.split() if w.startswith("@e"))[1:] for line in seen.splitlines() if f'push button "{button}"' in line and "@e" in line)
                start = time.perf_counter()
                result = text_of(await g.call_tool("click", {"target": {"element": element}}))
                ms = (time.perf_counter() - start) * 1000
                verdict = next((line for line in result.splitlines() if line.startswith(("no change", "changes:"))), "?")
                print(f"{button} #{i}: {ms:.1f} ms: {verdict}")
    finally:
        app.kill()


asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "Cancel"))
