"""Starts the glovebox binary this package carries, with the same arguments.

`uvx glovebox-mcp mcp`, `glovebox-mcp …` and `glovebox …` all come here and
are replaced by the binary (exec: its stdin and stdout are the MCP client's,
its exit status is theirs). Windows has no exec (Python's stand-in exits at
once, and a client would take that for the server's end), so there the
binary runs as a child on the same handles and its exit status is passed on. On a platform the package has no binary for,
it says which platform it found and exits 4 (glovebox's "not possible here").
"""

import os
import platform
import sys
from pathlib import Path

# (system, machine) -> the binary's name under bin/. aarch64 would add
# ("linux", "aarch64") with a wheel of its own (docs/packages.md).
BINARIES = {("linux", "x86_64"): "glovebox", ("windows", "x86_64"): "glovebox.exe"}
MACHINE_NAMES = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}
UNAVAILABLE = 4


def binary():
    """The carried binary for this platform, or the reason there is none."""
    system = platform.system().lower()
    machine = platform.machine().lower()
    machine = MACHINE_NAMES.get(machine, machine)
    name = BINARIES.get((system, machine))
    if name is None:
        return None, (
            f"glovebox-mcp has no glovebox binary for {platform.system()} {platform.machine()}: "
            "the wheels carry one for Linux x86_64 (glibc) and Windows x86_64 only; see "
            "https://github.com/glovebox-rs/glovebox for the other ways to install it."
        )
    path = Path(__file__).resolve().parent / "bin" / name
    if not os.access(path, os.X_OK):
        return None, f"glovebox-mcp: its binary {path} is missing or not executable; reinstall the package"
    return path, None


def main():
    path, reason = binary()
    if path is None:
        sys.stderr.write(reason + "\n")
        sys.exit(UNAVAILABLE)
    if os.name == "nt":
        import subprocess

        sys.exit(subprocess.call([str(path), *sys.argv[1:]]))
    os.execv(str(path), [str(path), *sys.argv[1:]])
