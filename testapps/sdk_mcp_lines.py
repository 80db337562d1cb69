"""An MCP client on standard input: the official MCP Python SDK's `Client`
in its default mode, started on the server COMMAND, accepting every
approval prompt as a user would. Each line read is one tool call,
`{"tool": NAME, "arguments": {...}}`; each answer is one line,
`{"error": bool, "text": ..., "prompts": N}` (N: approval prompts so far).
Ends at the end of its input. The test driving it judges each answer by
the application's own state.

Usage: python sdk_mcp_lines.py COMMAND [ARGS...]
"""
import asyncio
import json
import sys

from mcp import Client, StdioServerParameters, types


async def main(server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    target = StdioServerParameters(command=server[0], args=server[1:])
    loop = asyncio.get_running_loop()
    async with Client(target, elicitation_callback=elicitation_callback, read_timeout_seconds=120) as client:
        print(json.dumps({"ready": True}), flush=True)
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            call = json.loads(line)
            result = await client.call_tool(call["tool"], call.get("arguments", {}))
            text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
            print(json.dumps({"error": bool(result.is_error), "text": text, "prompts": len(prompts)}), flush=True)


asyncio.run(main(sys.argv[1:]))
