"""glovebox and a peer computer-use driver (cua-driver, from its PyPI wheel)
side by side through the official MCP Python SDK, as an agent meets them:
the same windows of one desktop, calls interleaved (the order alternates
every round), medians. Prints one JSON object per row on stdout.

Usage: python bench_peer_mcp.py RUNS GLOVEBOX CUA_DRIVER TARGETS
  TARGETS  a JSON list of windows to read, each {"label", "pid", "title",
           "clicks": [{"button", "changes"}]}: the buttons both click (by
           element) with their results; a click that `changes` nothing must
           be told so by glovebox (after the warm-up round), one that
           changes must not
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
    targets = json.loads(targets)
    home = tempfile.mkdtemp(prefix="bench-peer-")
    ours = StdioServerParameters(command=glovebox, args=["mcp"], env=dict(os.environ, HOME=home, GLOVEBOX_ENABLED="true", GLOVEBOX_APPROVAL_MODE="yolo"))
    theirs = StdioServerParameters(command=cua, args=["mcp", "--no-overlay"], env=dict(os.environ, HOME=home))
    async with Client(ours, read_timeout_seconds=60) as g, Client(theirs, read_timeout_seconds=60) as c:
        print(json.dumps({"protocols": [g.protocol_version, c.protocol_version]}), flush=True)
        for target in targets:
            label, pid, title = target["label"], target["pid"], target["title"]
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
                    lambda: c.call_tool("get_window_state", {**at, "include_screenshot": False, "max_elements": 20000, "timeout_ms": 20000}),
                ),
                "tree + screenshot": (
                    lambda: g.call_tool("observe", {"window": window, "screenshot": True}),
                    lambda: c.call_tool("get_window_state", at),
                ),
            }
            for click in target["clicks"]:
                name, changes = click["button"], click["changes"]

                def ours_click(name=name, changes=changes):
                    async def call(warm):
                        seen = text_of(await g.call_tool("observe", {"window": window, "screenshot": False}))
                        result, ms = await timed(g.call_tool("click", {"target": {"element": glovebox_id(seen, name)}}))
                        said_nothing = "no change:" in text_of(result)
                        if not warm and said_nothing == changes:
                            raise SystemExit(f"glovebox's click on {name} said {text_of(result)[-200:]!r}")
                        return result, ms
                    return call

                def theirs_click(name=name):
                    async def call(warm):
                        state = text_of(await c.call_tool("get_window_state", {**at, "include_screenshot": False}))
                        return await timed(c.call_tool("click", {"pid": pid, "element_token": cua_token(state, name)}))
                    return call

                effect = "it changes" if changes else "no change"
                rows[f"click {name} ({effect})"] = (ours_click(), theirs_click())
            for row, (ours_call, theirs_call) in rows.items():
                samples = {"glovebox": [], "peer": []}
                sizes = {"glovebox": 0, "peer": 0}
                chars = {"glovebox": 0, "peer": 0}
                for round_ in range(runs + 1):
                    order = [("glovebox", ours_call), ("peer", theirs_call)]
                    for who, call in order if round_ % 2 == 0 else reversed(order):
                        if row.startswith("click"):
                            result, ms = await call(round_ == 0)
                        else:
                            result, ms = await timed(call())
                        if round_ > 0:  # the first round warms both up
                            samples[who].append(ms)
                        sizes[who] = image_bytes(result)
                        chars[who] = len(text_of(result))
                report = {"window": label, "row": row, **{f"{who}_ms": statistics.median(s) for who, s in samples.items()}}
                if row in ("tree only", "complete tree"):
                    report.update({f"{who}_chars": n for who, n in chars.items()})
                if row == "tree + screenshot":
                    report.update({f"{who}_png_bytes": size for who, size in sizes.items()})
                print(json.dumps(report), flush=True)


asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]))
