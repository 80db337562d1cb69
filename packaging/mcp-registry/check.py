#!/usr/bin/python3
"""Checks server.json (or FILE) against the MCP Registry's schema kept
beside it (server.schema.json, whose $id the entry's $schema must name),
offline, with Debian's python3-jsonschema:

    /usr/bin/python3 packaging/mcp-registry/check.py [FILE]

Prints `ok FILE` or one `error FILE: PATH: MESSAGE` line per fault; exits 1
on any.
"""

import json
import sys
from pathlib import Path

import jsonschema

HERE = Path(__file__).resolve().parent


def main(argv):
    path = Path(argv[0]) if argv else HERE / "server.json"
    schema = json.loads((HERE / "server.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        print(f"error {path}: cannot read: {e}")
        return 1
    faults = []
    if isinstance(entry, dict) and entry.get("$schema") != schema["$id"]:
        faults.append(f"$schema: {entry.get('$schema')!r} is not the schema kept here ({schema['$id']})")
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    for error in sorted(validator.iter_errors(entry), key=lambda e: list(map(str, e.absolute_path))):
        if error.context:
            error = jsonschema.exceptions.best_match(error.context)
        where = ".".join(map(str, error.absolute_path)) or "(top level)"
        faults.append(f"{where}: {error.message}")
    for fault in faults:
        print(f"error {path}: {fault}")
    if not faults:
        print(f"ok {path}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
