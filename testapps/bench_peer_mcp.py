"""glovebox and a peer computer-use driver (cua-driver, from its PyPI wheel)
side by side through the official MCP Python SDK, as an agent meets them:
the same windows of one desktop, calls interleaved (the order alternates
every round), medians. Prints one JSON object per row on stdout.

Usage: python bench_peer_mcp.py RUNS GLOVEBOX CUA_DRIVER TARGET...
  TARGET  LABEL:PID:TITLE[:BUTTON]   a window to read; with BUTTON, the
          button both click (by element) with their results
"""
import asyncio
import base64
import json
import os
import statistics
import sys
import tempfile
import time

from mcp import Client, StdioServerParameters


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def image_bytes(result):
    return sum(len(base64.b64decode(c.data)) for c in result.content if getattr(c, "type", None) == "image")


def glovebox_id(observed, name):
    for line in observed.splitlines():
        if f'push button "{name}"' in line and "@e" in line:
            return next(w for w in line.split() if w.startswith("@e"))[1:]
    raise SystemExit(f"glovebox shows no button {name!r}")


def cua_token(state, name):
    header = state.splitlines()[0]
    snapshot = next(w.split("=", 1)[1] for w in header.split() if w.startswith("snapshot_id="))
    for line in state.splitlines():
        if f'push button "{name}"' in line and "[" in line:
            index = line.split("[", 1)[1].split("]", 1)[0]
            return f"{snapshot}:{index}"
    raise SystemExit(f"cua-driver shows no button {name!r}")


async def timed(call):
    start = time.perf_counter()
    result = await call
    if getattr(result, "is_error", False):
        raise SystemExit(f"a measured call failed: {text_of(result)[:300]}")
    return result, (time.perf_counter() - start) * 1000


async def main(runs, glovebox, cua, targets):
    home = tempfile.mkdtemp(prefix="bench-peer-")
    ours = StdioServerParameters(command=glovebox, args=["mcp"], env=dict(os.environ, HOME=home, GLOVEBOX_ENABLED="true", GLOVEBOX_APPROVAL_MODE="yolo"))
    theirs = StdioServerParameters(command=cua, args=["mcp", "--no-overlay"], env=dict(os.environ, HOME=home))
    async with Client(ours, read_timeout_seconds=60) as g, Client(theirs, read_timeout_seconds=60) as c:
        print(json.dumps({"protocols": [g.protocol_version, c.protocol_version]}), flush=True)
        for target in targets:
            label, pid, title, *button = target.split(":")
            pid = int(pid)
            listed = text_of(await g.call_tool("list_windows", {"query": title}))
            window = listed.splitlines()[1].split()[0]
            theirs_listed = await c.call_tool("list_windows", {"pid": pid})
            window_id = theirs_listed.structured_content["windows"][0]["window_id"]
            at = {"pid": pid, "window_id": window_id}
            rows = {
                "tree only": (
                    lambda: g.call_tool("observe", {"window": window, "screenshot": False}),
                    lambda: c.call_tool("get_window_state", {**at, "include_screenshot": False}),
                ),
                "complete tree": (
                    lambda: g.call_tool("observe", {"window": window, "screenshot": False, "max_tokens": 200000}),
                    lambda: c.call_tool("get_window_state", {**at, "include_screenshot": False, "max_elements": 5000, "timeout_ms": 10000}),
                ),
                "tree + screenshot": (
                    lambda: g.call_tool("observe", {"window": window, "screenshot": True}),
                    lambda: c.call_tool("get_window_state", at),
                ),
            }
            if button:
                name = button[0]

                async def ours_click():
                    seen = text_of(await g.call_tool("observe", {"window": window, "screenshot": False}))
                    return await timed(g.call_tool("click", {"target": {"element": glovebox_id(seen, name)}}))

                async def theirs_click():
                    state = text_of(await c.call_tool("get_window_state", {**at, "include_screenshot": False}))
                    return await timed(c.call_tool("click", {"pid": pid, "element_token": cua_token(state, name)}))

                rows[f"click {name} with its result"] = (ours_click, theirs_click)
            for row, (ours_call, theirs_call) in rows.items():
                samples = {"glovebox": [], "peer": []}
                sizes = {"glovebox": 0, "peer": 0}
                for round_ in range(runs + 1):
                    order = [("glovebox", ours_call), ("peer", theirs_call)]
                    for who, call in order if round_ % 2 == 0 else reversed(order):
                        if row.startswith("click"):
                            result, ms = await call()
                        else:
                            result, ms = await timed(call())
                        if round_ > 0:  # the first round warms both up
                            samples[who].append(ms)
                        sizes[who] = image_bytes(result)
                report = {"window": label, "row": row, **{f"{who}_ms": statistics.median(s) for who, s in samples.items()}}
                if row == "tree + screenshot":
                    report.update({f"{who}_png_bytes": size for who, size in sizes.items()})
                print(json.dumps(report), flush=True)


asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]))
