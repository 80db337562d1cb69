"""Drives glovebox.exe under Wine through the official MCP Python SDK's
`Client` in its default mode, as an agent would on Windows, accepting every
approval prompt as a user would, and reports what happened as one JSON
line on stdout (the test reads the fixture's own state file for the rest).

Steps: list the windows; observe the fixture with a screenshot (its PNG is
reported, base64); set the Name field; tick Subscribe; choose Green in the
Colour list; click Submit; try to set the Password field (refused: a
password field is never typed into); observe again.

Usage: python sdk_mcp_wine.py TITLE NAME COMMAND [ARGS...]
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters, types


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def image_of(result):
    return next((c.data for c in result.content if getattr(c, "type", None) == "image"), None)


def id_on_line(text, needle):
    for line in text.splitlines():
        if needle in line and "@e" in line:
            return next(w for w in line.split() if w.startswith("@e"))[1:]
    raise SystemExit(f"no element line with {needle!r} in:\n{text}")


async def main(title, name, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    target = StdioServerParameters(command=server[0], args=server[1:])
    report = {"prompts": prompts, "calls": {}}
    async with Client(target, elicitation_callback=elicitation_callback, read_timeout_seconds=120) as client:
        listed = text_of(await client.call_tool("list_windows", {"query": title}))
        report["listed"] = listed
        window = listed.splitlines()[1].split()[0]
        seen = await client.call_tool("observe", {"window": window, "screenshot": True})
        report["tree"] = text_of(seen)
        report["png"] = image_of(seen)
        tree = report["tree"]
        steps = [
            ("set_value", {"target": {"element": id_on_line(tree, 'entry "Name"')}, "text": name}),
            ("click", {"target": {"element": id_on_line(tree, 'check box "Subscribe"')}}),
            ("select", {"target": {"element": id_on_line(tree, 'list "Colour"')}, "option": "Green"}),
            ("click", {"target": {"element": id_on_line(tree, 'push button "Submit"')}}),
            ("set_value", {"target": {"element": id_on_line(tree, 'password text "Password"')}, "text": "hunter2"}),
        ]
        for n, (tool, arguments) in enumerate(steps):
            result = await client.call_tool(tool, arguments)
            report["calls"][f"{n}:{tool}"] = {"error": bool(result.is_error), "text": text_of(result)}
        report["after"] = text_of(await client.call_tool("observe", {"window": window, "screenshot": False}))
    print(json.dumps(report))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
