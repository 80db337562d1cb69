"""Asks glovebox's MCP `replay` tool to run a recording again, through the
official MCP Python SDK's `Client` in its default mode, answering the
approval prompt as a user would; reports one JSON line on stdout: whether
the call was an error, its text, and the prompts the user saw.

Usage: python sdk_mcp_replay.py ANSWER RECORDING COMMAND [ARGS...]
  ANSWER     accept | decline
  RECORDING  the recording's path (as `glovebox trajectories` lists it)
  COMMAND    the MCP server to start, over stdio
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters, types


async def main(answer, recording, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action=answer)

    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    async with Client(target, elicitation_callback=elicitation_callback, read_timeout_seconds=60) as client:
        result = await client.call_tool("replay", {"recording": recording})
        text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
        print(json.dumps({"error": bool(result.is_error), "text": text, "prompts": prompts}))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
