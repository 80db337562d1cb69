"""Opens a web address through glovebox with the official MCP Python SDK's
`Client` in its default mode, as an agent would, answering the approval
prompt as a user who reads it would (accepting only a prompt that names the
address), then types TEXT into the page's "Full name" field. Reports what
happened as one JSON line on stdout.

Usage: python sdk_mcp_open_url.py URL TEXT COMMAND [ARGS...]   (the MCP server, over stdio)
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters, types


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def field_id(text):
    for line in text.splitlines():
        if '"Full name"' in line and "@e" in line and ("entry" in line or "text" in line):
            return next(w for w in line.split() if w.startswith("@e"))[1:]
    return None


async def main(url, typed, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        if url in params.message or "open_url" not in params.message:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    report = {"prompts": prompts, "calls": {}}
    async with Client(target, elicitation_callback=elicitation_callback, read_timeout_seconds=90) as client:
        opened = await client.call_tool("open_url", {"url": url})
        report["calls"]["open_url"] = {"error": bool(opened.is_error), "text": text_of(opened).splitlines()[0]}
        # A browser's first start on a loaded machine can take most of a minute.
        field, seen = None, ""
        for _ in range(180):
            seen = text_of(await client.call_tool("observe", {"screenshot": False}))
            field = field_id(seen)
            if field:
                break
            await asyncio.sleep(0.5)
        report["field"] = field
        if not field:
            report["last_observation"] = seen.splitlines()
        if field:
            for tool, arguments in [("click", {"target": {"element": field}}), ("type", {"text": typed})]:
                result = await client.call_tool(tool, arguments)
                report["calls"][tool] = {"error": bool(result.is_error), "text": text_of(result).splitlines()[0]}
                if tool == "click":
                    text_of(await client.call_tool("observe", {"screenshot": False}))
    print(json.dumps(report))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
