"""Drives a window that has no accessibility tree (or only a bare frame)
through the official MCP Python SDK's `Client` in its default mode, by the
elements glovebox sees in its pixels, answering every approval prompt as a
user who accepts would. Reports what happened as one JSON line on stdout.

  form TITLE TEXT   observes, finds `field (seen) "Name"` and
                    `button (seen) "Send"`, clicks the field, types TEXT,
                    clicks the button (all by their ids)
  type TITLE TEXT   observes, clicks the first seen element, types TEXT
                    (a command with its Enter), then observes until
                    WAIT_FOR (an environment variable) is read in the
                    pixels, at most 20 s
  rename TITLE OLD=NEW
                    observes (again, up to 20 s) until a seen element
                    reads OLD (a file in a file manager's view), clicks it,
                    presses F2, selects all of the name, types NEW and
                    presses Enter

With DELIVERY set (`foreground`), clicks and typing ask for that delivery.
With CWD_FILE set, the file of that name in the program's working directory
is read before the session ends and reported. With OPEN_APP set, the program is first started on glovebox's own display
(the agent display) and its window driven; CLICK_ON names the seen text to
click before typing (empty: click nothing).

Usage: python sdk_mcp_seen.py form|type TITLE TEXT COMMAND [ARGS...]
"""
import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters, types


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def seen_id(text, kind, label):
    """The id of the seen element of KIND whose text is LABEL (OCR may
    read a capital small: compared without case)."""
    needle = f"{kind} (seen) \"{label}\"".lower()
    for line in text.splitlines():
        if needle in line.lower():
            return line.split()[0].lstrip("@")
    return None


async def main(task, title, text, server):
    prompts = []

    async def elicitation_callback(context, params):
        prompts.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    report = {"prompts": prompts, "calls": []}
    async with Client(target, elicitation_callback=elicitation_callback, read_timeout_seconds=90) as client:

        async def call(tool, arguments):
            started = time.monotonic()
            result = await client.call_tool(tool, arguments)
            said = text_of(result)
            report["calls"].append({
                "tool": tool,
                "arguments": arguments,
                "error": bool(result.is_error),
                "text": said,
                "ms": round((time.monotonic() - started) * 1000),
            })
            return result.is_error, said

        delivery = {"delivery": os.environ["DELIVERY"]} if os.environ.get("DELIVERY") else {}

        if os.environ.get("OPEN_APP"):
            # Started on glovebox's own display: the window it answers is the one to drive.
            _, opened = await call("open_app", {"name": os.environ["OPEN_APP"], "desktop": "agent"})
            window = next(w for w in opened.replace(",", " ").split() if "/0x" in w).strip("().")
        else:
            listed = text_of(await client.call_tool("list_windows", {"query": title}))
            window = listed.splitlines()[1].split()[0]
        report["window"] = window
        _, seen = await call("observe", {"window": window, "screenshot": False})
        report["observed"] = seen
        if task == "rename":
            old, new = text.split("=", 1)
            deadline = time.monotonic() + 20
            while (found := seen_id(seen, "text", old)) is None and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
                _, seen = await call("observe", {"window": window, "screenshot": False})
            report["observed"] = seen
            report["ids"] = {"file": found}
            if found is None:
                return report
            steps = [
                ("click", {"target": {"element": found}}),
                ("key", {"combo": "F2"}),
                ("key", {"combo": "ctrl+a"}),
                ("type", {"text": new}),
                ("key", {"combo": "Enter"}),
            ]
            for tool, arguments in steps:
                failed, _ = await call(tool, arguments)
                if failed:
                    break
                # The rename dialog takes a moment to take the keys.
                await asyncio.sleep(0.5 if tool == "key" else 0)
        elif task == "form":
            field, button = seen_id(seen, "field", "Name"), seen_id(seen, "button", "Send")
            report["ids"] = {"field": field, "button": button}
            if field is None or button is None:
                return report
            failed, _ = await call("click", {"target": {"element": field}, **delivery})
            if not failed:
                failed, _ = await call("type", {"text": text, **delivery})
            if not failed:
                # Typing changed the pixels: the button's id is read again.
                _, seen = await call("observe", {"screenshot": False})
                button = seen_id(seen, "button", "Send") or button
                failed, said = await call("click", {"target": {"element": button}, **delivery})
                if failed and "COMPUTER_STALE_REF" in said:
                    # The window still repainting (its focus went back): look again, as asked.
                    _, seen = await call("observe", {"screenshot": False})
                    button = seen_id(seen, "button", "Send") or button
                    await call("click", {"target": {"element": button}, **delivery})
        else:
            # The seen element whose text holds CLICK_ON, else the first one; an
            # empty CLICK_ON clicks nothing (the caret already waits at a prompt).
            lines = [l.strip() for l in seen.splitlines() if "(seen)" in l]
            click_on = os.environ.get("CLICK_ON")
            wanted_line = [] if click_on == "" else [l for l in lines if (click_on or "") in l] or lines
            first = wanted_line[0].split()[0].lstrip("@") if wanted_line else None
            report["ids"] = {"first": first}
            # A terminal with nothing read yet (an empty prompt) takes the keys where they go.
            failed = False
            if first is not None:
                failed, _ = await call("click", {"target": {"element": first}})
            if not failed:
                await call("type", {"text": text})
            wanted = os.environ.get("WAIT_FOR", "")
            deadline = time.monotonic() + 20
            while True:
                _, seen = await call("observe", {"screenshot": False})
                if wanted in seen or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.5)
            report["read_back"] = seen
            # What the typed command wrote, read from the program's working
            # directory while it still runs (a program on the agent display
            # ends with the session).
            if os.environ.get("CWD_FILE"):
                pid = window.split("/")[0]
                try:
                    with open(f"/proc/{pid}/cwd/{os.environ['CWD_FILE']}") as f:
                        report["cwd_file"] = f.read()
                except OSError as e:
                    report["cwd_file_error"] = str(e)
    return report


if __name__ == "__main__":
    task, title, text, *server = sys.argv[1:]
    print(json.dumps(asyncio.run(main(task, title, text, server))))
