"""Races one approval's answer against a copy of it through the official MCP
Python SDK on 2026-07-28: every call that asks is answered by a retry with the
user's answer and, at the same time on another task, a retry echoing the same
request state without an answer (the attack of issue 38: one approval, two
deliveries). Reports one JSON line on stdout: each case's final result and
what its copies got.

Usage: python sdk_mcp_race.py TITLE COMMAND [ARGS...]
  TITLE      the fixture window's title
  COMMAND    the MCP server to start, over stdio (`COMMAND trajectories
             --json` lists the recordings)

First it clicks Submit three times, approved: the recording to replay. It
prints {"recorded": ...} and waits for a line on stdin, {"pad": [X, Y]} (the test closes that
window and opens a fresh copy of the form meanwhile; the recording is still
this server's, so it is read though its grant may not have ended). Then the
cases, in order, on the window with TITLE: replay the recording, computer
(the bound model clicks Submit once), click Submit, batch [click Submit,
type "b"], type "t", key Home, scroll the Pad one step down, set_value
Email to "v", move over the Pad; the report is the second line.
"""
import asyncio
import json
import os
import subprocess
import sys

from mcp import Client, StdioServerParameters, types

ACCEPT = {"action": "accept", "content": {"approve": True}}


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def id_on_line(text, needle):
    for line in text.splitlines():
        if needle in line and "@e" in line:
            return next(w for w in line.split() if w.startswith("@e"))[1:]
    raise SystemExit(f"no element line with {needle!r} in:\n{text}")


def outcome(result):
    if isinstance(result, types.InputRequiredResult):
        return "input required again"
    if isinstance(result, types.CallToolResult):
        return ("error: " if result.is_error else "delivered: ") + text_of(result)[:300]
    return f"other: {type(result).__name__}"


async def raced(session, tool, arguments):
    """The call, every round answered while a copy of its state races it."""
    result = await session.call_tool(tool, arguments, allow_input_required=True)
    copies, rounds = [], 0
    while isinstance(result, types.InputRequiredResult) and rounds < 4:
        rounds += 1
        state = result.request_state
        answers = {token: ACCEPT for token in result.input_requests}
        answered = session.call_tool(tool, arguments, input_responses=answers, request_state=state, allow_input_required=True)
        copy = session.call_tool(tool, arguments, request_state=state, allow_input_required=True)
        result, copied = await asyncio.gather(answered, copy)
        copies.append(outcome(copied))
    return {"result": outcome(result), "rounds": rounds, "copies": copies}


async def approved(session, tool, arguments):
    result = await session.call_tool(tool, arguments, allow_input_required=True)
    while isinstance(result, types.InputRequiredResult):
        answers = {token: ACCEPT for token in result.input_requests}
        result = await session.call_tool(tool, arguments, input_responses=answers, request_state=result.request_state, allow_input_required=True)
    return outcome(result)


async def main(title, server):
    async def elicitation_callback(context, params):
        return types.ElicitResult(action="accept", content={"approve": True})

    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    report = {}
    async with Client(target, mode="2026-07-28", elicitation_callback=elicitation_callback, read_timeout_seconds=120) as client:
        session = client.session
        report["protocol"] = client.protocol_version
        async def window_and_submit():
            listed = text_of(await client.call_tool("list_windows", {"query": title}))
            window = listed.splitlines()[1].split()[0]
            seen = text_of(await session.call_tool("observe", {"window": window, "screenshot": False}))
            return window, id_on_line(seen, 'push button "Submit"'), seen

        window, submit, _ = await window_and_submit()
        recorded = [await approved(session, "click", {"target": {"element": submit}}) for _ in range(3)]
        print(json.dumps({"recorded": recorded}), flush=True)
        # The test's go-ahead says where the Pad (a surface with no id) is, in window pixels.
        pad_x, pad_y = json.loads(await asyncio.to_thread(sys.stdin.readline))["pad"]
        pad = {"point": {"x": pad_x, "y": pad_y}}
        listed = subprocess.run([server[0], "trajectories", "--json"], capture_output=True, text=True, check=True)
        recording = json.loads(listed.stdout)[0]["file"]
        window, submit, seen = await window_and_submit()
        email = id_on_line(seen, 'text "Email"')
        cases = [
            ("replay", {"recording": recording, "window": window}),
            ("computer", {"instruction": "Press Submit once.", "max_steps": 4, "window": window}),
            ("click", {"target": {"element": submit}}),
            ("batch", {"steps": [{"action": "click", "target": {"element": submit}, "button": "left", "count": 1}, {"action": "type", "text": "b"}]}),
            ("type", {"text": "t"}),
            ("key", {"combo": "Home"}),
            ("scroll", {"target": pad, "dy": 1}),
            ("set_value", {"target": {"element": email}, "text": "v"}),
            ("move", {"target": pad}),
        ]
        for tool, arguments in cases:
            await session.call_tool("observe", {"window": window, "screenshot": False})
            report[tool] = await raced(session, tool, arguments)
    print(json.dumps(report))


asyncio.run(main(sys.argv[1], sys.argv[2:]))
