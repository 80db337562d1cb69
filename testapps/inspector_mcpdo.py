"""Drives glovebox through the MCP Inspector's command-line client (`mcpdo`,
from `@modelcontextprotocol/inspector`) as a person at a shell would, and
reports what happened as one JSON line on stdout (the report of
sdk_mcp_approvals.py).

mcpdo keeps connections in a daemon of its own (a private one here,
`mcpdo private`); an approval question comes back as `elicitationPending`
with the call parked on the daemon, and `elicitation/respond` answers it.

Usage: python3 inspector_mcpdo.py MCPDO ERA ANSWER TITLE NAME COMMAND [ARGS...]
  MCPDO   the mcpdo executable
  ERA     legacy | auto | modern   (mcpdo's connect eras)
  ANSWER  accept | decline | cancel
"""
import json
import os
import subprocess
import sys

mcpdo, era, answer, title, name, *server = sys.argv[1:]
env = dict(os.environ, MCP_INSPECTOR_SECRET_STORE="memory")
exports = subprocess.run([mcpdo, "private"], env=env, capture_output=True, text=True, check=True).stdout
for line in exports.splitlines():
    if line.startswith("export "):
        key, _, value = line[len("export "):].partition("=")
        env[key] = value.strip("'\"")


def run(*args):
    out = subprocess.run([mcpdo, "--format", "json", *args], env=env, capture_output=True, text=True, timeout=120)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"mcpdo {args[:2]} printed {out.stdout!r} {out.stderr!r}")


def text_of(result):
    return "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def id_on_line(text, needle):
    for line in text.splitlines():
        if needle in line and "@e" in line:
            return next(w for w in line.split() if w.startswith("@e"))[1:]
    raise SystemExit(f"no element line with {needle!r} in:\n{text}")


# The daemon starts the server with an environment of its own: the desktop's
# variables and glovebox's homes are handed over explicitly.
forwarded = ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "HOME", "GLOVEBOX_ENABLED"]
server_env = [arg for key in forwarded if key in os.environ for arg in ("-e", f"{key}={os.environ[key]}")]
connected = run("connect", "--era", era, *server_env, "--", *server)
conn = ["--conn", connected["name"]]
report = {"protocol": connected.get("protocolEra"), "prompts": [], "calls": {}}
try:
    report["tools"] = [t["name"] for t in run(*conn, "tools/list")["tools"]]
    listed = text_of(run(*conn, "tools/call", "list_windows", "--tool-args-json", json.dumps({"query": title})))
    window = listed.splitlines()[1].split()[0]
    seen = text_of(run(*conn, "tools/call", "observe", "--tool-args-json", json.dumps({"window": window, "screenshot": False})))
    field, submit = id_on_line(seen, '"Name"'), id_on_line(seen, '"Submit"')
    for tool, arguments in [("set_value", {"target": {"element": field}, "text": name}), ("click", {"target": {"element": submit}})]:
        result = run(*conn, "tools/call", tool, "--tool-args-json", json.dumps(arguments))
        while "elicitationPending" in json.dumps(result)[:200] or result.get("elicitationId"):
            pending = result.get("elicitationPending", result)
            report["prompts"].append(pending.get("message") or json.dumps(pending))
            flags = ["approve:=true"] if answer == "accept" else [f"--{answer}"]
            result = run(*conn, "elicitation/respond", pending["elicitationId"], *flags)
        if "error" in result and "content" not in result:
            report["calls"][tool] = {"error": True, "text": json.dumps(result["error"])}
        else:
            report["calls"][tool] = {"error": bool(result.get("isError")), "text": text_of(result)}
finally:
    subprocess.run([mcpdo, "daemon", "stop"], env=env, capture_output=True, timeout=60)
print(json.dumps(report))
