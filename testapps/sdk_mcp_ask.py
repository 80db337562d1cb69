"""The agent's question to the person (`ask_user`) through the official MCP
Python SDK's `Client` in MODE, the person answering through the client's
elicitation callback as a user would. Reports one JSON line: what the tool
answered, whether it was an error, and the prompts the person saw.

Usage: python sdk_mcp_ask.py MODE REPLY QUESTION CHOICES COMMAND [ARGS...]
  MODE      auto | 2026-07-28 | legacy
  REPLY     answer:TEXT | private:TEXT | decline | cancel
  CHOICES   comma-separated choices, or - for none
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters, types


async def main(mode, reply, question, choices, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        kind, _, text = reply.partition(":")
        if kind in ("answer", "private"):
            return types.ElicitResult(action="accept", content={"answer": text, "private": kind == "private"})
        return types.ElicitResult(action=kind)

    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    async with Client(target, mode=mode, elicitation_callback=elicitation_callback, read_timeout_seconds=60) as client:
        arguments = {"question": question}
        if choices != "-":
            arguments["choices"] = choices.split(",")
        result = await client.call_tool("ask_user", arguments)
        text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
        print(json.dumps({"text": text, "error": bool(result.is_error), "prompts": prompts}))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
