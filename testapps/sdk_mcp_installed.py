"""Starts glovebox the way an MCP client configured with a package starts
it (`uvx glovebox-mcp mcp`, `npx -y glovebox-mcp mcp`, or an installed
command), through the official MCP Python SDK's `Client` in its default
mode, lists the tools and observes the window titled TITLE. Reports what
happened as one JSON line on stdout.

Usage: python sdk_mcp_installed.py TITLE COMMAND [ARGS...]
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def main(title, server):
    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    report = {}
    async with Client(target, read_timeout_seconds=120) as client:
        report["server"] = client.server_info.name if getattr(client, "server_info", None) else None
        tools = await client.list_tools()
        report["tools"] = sorted(t.name for t in tools.tools)
        listed = await client.call_tool("list_windows", {"query": title})
        report["listed"] = text_of(listed)
        window = report["listed"].splitlines()[1].split()[0]
        observed = await client.call_tool("observe", {"window": window, "screenshot": False})
        report["observe_error"] = bool(observed.is_error)
        report["observed"] = text_of(observed)
    print(json.dumps(report))


asyncio.run(main(sys.argv[1], sys.argv[2:]))
