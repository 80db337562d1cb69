"""Drives glovebox through the official MCP Python SDK's `Client` as an
agent built on it would, answering approval prompts as a user would, and
reports what happened as one JSON line on stdout.

The client asks the window named TITLE for its Name field and its Submit
button (another label in SUBMIT_BUTTON: a real application's OK), waits
2.5 s with a progress callback (the notifications it got are reported), sets
the name, and clicks the button. Every approval prompt the
server puts to the user reaches `elicitation_callback` (through elicitation
requests on handshake-era connections, through input-required results and
retries on 2026-07-28); the callback answers ANSWER and records the text.

Usage: python sdk_mcp_approvals.py MODE ANSWER TITLE NAME COMMAND [ARGS...]
  MODE    auto | 2026-07-28 | legacy   (the SDK's connect modes)
  ANSWER  accept | decline | cancel    (what the user answers), or
          adversary: the rounds driven by hand (`allow_input_required`) with
          answers for another call, replayed, forged, malformed, after the
          frame went stale; each click of Cancel it reports is one the
          server should have refused
  NAME    the text to set in the Name field
  COMMAND the MCP server to start, over stdio; or an http:// URL, with the
          bearer token in GLOVEBOX_TOKEN
"""
import asyncio
import json
import os
import sys

import httpx2 as httpx
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def id_on_line(text, needle):
    for line in text.splitlines():
        if needle in line and "@e" in line:
            return next(w for w in line.split() if w.startswith("@e"))[1:]
    raise SystemExit(f"no element line with {needle!r} in:\n{text}")


async def main(mode, answer, title, name, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        if answer in ("accept", "adversary"):
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action=answer)

    if server[0].startswith("http://"):
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {os.environ['GLOVEBOX_TOKEN']}"}, timeout=60)
        target = streamable_http_client(server[0], http_client=http)
    else:
        target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    report = {"prompts": prompts, "calls": {}}
    async with Client(target, mode=mode, elicitation_callback=elicitation_callback, read_timeout_seconds=60) as client:
        report["protocol"] = client.protocol_version
        listed = text_of(await client.call_tool("list_windows", {"query": title}))
        window = listed.splitlines()[1].split()[0]
        text_of(await client.call_tool("observe", {"window": window, "screenshot": False}))
        # A call that takes a while, watched as a client shows progress.
        progress = []

        async def progress_callback(value, total, message):
            progress.append({"progress": value, "message": message})

        await client.call_tool("wait", {"wait": {"seconds": 2.5}}, progress_callback=progress_callback)
        report["progress"] = progress
        seen = text_of(await client.call_tool("observe", {"window": window, "screenshot": False}))
        field, submit = id_on_line(seen, '"Name"'), id_on_line(seen, f'push button "{os.environ.get("SUBMIT_BUTTON", "Submit")}"')
        for tool, arguments in [
            ("set_value", {"target": {"element": field}, "text": name}),
            ("click", {"target": {"element": submit}}),
        ]:
            result = await client.call_tool(tool, arguments)
            report["calls"][tool] = {"error": bool(result.is_error), "text": text_of(result)}
        if answer == "adversary":
            report["adversary"] = await adversary(client.session, id_on_line(seen, '"Cancel"'))
    print(json.dumps(report))


async def adversary(session, cancel):
    """Every way a retry can be wrong; the text each answer got, by case."""
    accept = {"action": "accept", "content": {"approve": True}}
    click = {"target": {"element": cancel}}

    async def ask(arguments):
        asked = await session.call_tool("click", arguments, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult), asked
        (token,) = asked.input_requests.keys()
        return token, asked.request_state

    async def retry(arguments, responses, state):
        result = await session.call_tool("click", arguments, input_responses=responses, request_state=state, allow_input_required=True)
        return text_of(result) if isinstance(result, types.CallToolResult) else "input required again"

    cases = {}
    token, state = await ask(click)
    cases["other arguments"] = await retry({**click, "count": 2}, {token: accept}, state)
    token, state = await ask(click)
    cases["malformed response"] = await retry(click, {token: {"action": "accept", "content": {"ok": "yes"}}}, state)
    cases["forged state"] = await retry(click, {"f" * 32: accept}, "f" * 32)
    cases["garbage state"] = await retry(click, {}, "not a state")
    token, state = await ask(click)
    cases["answered"] = await retry(click, {token: accept}, state)
    cases["replayed"] = await retry(click, {token: accept}, state)
    token, state = await ask(click)
    text_of(await session.call_tool("observe", {"screenshot": False}))
    cases["stale frame"] = await retry(click, {token: accept}, state)
    return cases


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
