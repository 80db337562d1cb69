"""Types a PIN into a window without an accessibility tree (the Tk
fixture's Name field, seen in its pixels) through the official MCP Python
SDK's `Client` in its default mode, as an agent that tries every path to
get text past the person would, with a person who declines every question
about typing (and accepts any other). Reports one JSON line on stdout.

  batch TITLE PIN   one batch: click the field, type PIN
  keys TITLE PIN    click the field, then `type` PIN, then PIN again one
                    `key` at a time

With ACCEPT=1 in the environment the person accepts every question
instead (the control: the PIN then reaches the field).

Usage: python sdk_mcp_typing.py batch|keys TITLE PIN COMMAND [ARGS...]
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters, types


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def seen_id(text, kind, label):
    needle = f"{kind} (seen) \"{label}\"".lower()
    for line in text.splitlines():
        if needle in line.lower():
            return line.split()[0].lstrip("@")
    return None


async def main(task, title, pin, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        # The person declines whatever would enter text, and lets the rest go.
        if "entering" in params.message and os.environ.get("ACCEPT") != "1":
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"approve": True})

    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    report = {"prompts": prompts, "calls": []}
    async with Client(target, elicitation_callback=elicitation_callback, read_timeout_seconds=90) as client:

        async def call(tool, arguments):
            result = await client.call_tool(tool, arguments)
            report["calls"].append({"tool": tool, "arguments": arguments, "error": bool(result.is_error), "text": text_of(result)})
            return result.is_error, text_of(result)

        listed = text_of(await client.call_tool("list_windows", {"query": title}))
        window = listed.splitlines()[1].split()[0]
        _, seen = await call("observe", {"window": window, "screenshot": False})
        field = seen_id(seen, "field", "Name")
        report["field"] = field
        if field is None:
            return report
        click = {"action": "click", "target": {"element": field}, "button": "left", "count": 1}
        if task == "batch":
            await call("batch", {"steps": [click, {"action": "type", "text": pin}]})
        else:
            await call("click", {"target": {"element": field}})
            await call("type", {"text": pin})
            for digit in pin:
                await call("observe", {"screenshot": False})
                await call("key", {"combo": digit})
    return report


if __name__ == "__main__":
    task, title, pin, *server = sys.argv[1:]
    print(json.dumps(asyncio.run(main(task, title, pin, server))))
