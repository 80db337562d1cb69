"""Loads glovebox's MCP tools the way agents built on the official SDKs do,
and reports what each SDK made of them as one JSON line on stdout.

- OpenAI Agents SDK: an Agent with the server in `mcp_servers` and
  `convert_schemas_to_strict`; a tool whose schema the SDK could not make
  strict falls back to non-strict, which is reported as a failure here.
- Google GenAI: the SDK's own MCP-to-Gemini conversion (what passing an MCP
  session as a tool to `generate_content` runs), tool by tool.
- The official MCP Python SDK is the client for both.

Usage: python sdk_mcp_tools.py COMMAND [ARGS...]   (the MCP server to start)
"""
import asyncio
import json
import os
import sys


async def main(command, args):
    from agents import Agent, RunContextWrapper
    from agents.mcp import MCPServerStdio
    from google.genai import _mcp_utils

    report = {"strict": {}, "gemini": {}}
    params = {"command": command, "args": args, "env": dict(os.environ)}
    async with MCPServerStdio(params=params, cache_tools_list=True, client_session_timeout_seconds=60) as server:
        listed = await server.list_tools()
        report["tools"] = sorted(t.name for t in listed)
        report["bytes"] = len(json.dumps({"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]}, separators=(",", ":")))
        agent = Agent(name="glovebox-client", mcp_servers=[server], mcp_config={"convert_schemas_to_strict": True})
        for tool in await agent.get_all_tools(RunContextWrapper(context=None)):
            report["strict"][tool.name] = "strict" if getattr(tool, "strict_json_schema", False) else "not strict"
        for tool in listed:
            try:
                converted = _mcp_utils.mcp_to_gemini_tool(tool)
                declaration = converted.function_declarations[0]
                report["gemini"][tool.name] = "ok" if declaration.name == tool.name and declaration.parameters is not None else "no parameters"
            except Exception as e:  # the converter's own failure, reported by name
                report["gemini"][tool.name] = f"{type(e).__name__}: {e}"
    print(json.dumps(report))


asyncio.run(main(sys.argv[1], sys.argv[2:]))
