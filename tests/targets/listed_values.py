"""mcprobe's own MCP server (stdio, raw JSON-RPC) that accepts only values it lists itself —
written for issue 24 item 4, not copied from any published server.

    python listed_values.py           # query_table refuses 'example' and lists its tables;
                                      # get_report's description lists its formats
    python listed_values.py silent    # the look-alike: the same refusals, listing nothing
    python listed_values.py shell     # query_table checks only the name's start, then runs a
                                      # shell with it (an injection behind the listed value)

Both tools refuse every value but the ones they serve, so a placeholder's valid call is a
refusal, which proves nothing; a call with a listed value works.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

TABLES = {"users": [{"id": 1, "name": "Ada"}], "orders": [{"id": 7, "total": 12.5}]}
FORMATS = ("summary", "detailed")
RO = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}


def _tools(silent: bool) -> list[dict[str, Any]]:
    listed = "" if silent else " One of: summary, detailed."
    return [
        {
            "name": "query_table",
            "description": "Returns the rows of one table of the shop database.",
            "inputSchema": {
                "type": "object",
                "properties": {"table": {"type": "string", "description": "Table name."}},
                "required": ["table"],
                "additionalProperties": False,
            },
            "annotations": RO,
        },
        {
            "name": "get_report",
            "description": "Returns the sales report.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "format": {"type": "string", "description": "Report format." + listed}
                },
                "required": ["format"],
                "additionalProperties": False,
            },
            "annotations": RO,
        },
    ]


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def _call(name: str, args: dict[str, Any], mode: str) -> dict[str, Any]:
    silent = mode == "silent"
    if name == "query_table":
        table = args.get("table")
        if not isinstance(table, str) or set(args) != {"table"}:
            return _text("table must be a string and the only argument", error=True)
        if mode == "shell" and table.startswith(tuple(TABLES)):
            command = f"printf '%s\\n' rows of {table}"  # the bug under test
            done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=10)
            return _text(done.stdout + done.stderr)
        if table not in TABLES:
            listing = "" if silent else f"; tables: {', '.join(TABLES)}"
            return _text(f"unknown table '{table}'{listing}", error=True)
        return _text(json.dumps(TABLES[table]))
    fmt = args.get("format")
    if not isinstance(fmt, str) or set(args) != {"format"}:
        return _text("format must be a string and the only argument", error=True)
    if fmt not in FORMATS:
        return _text(f"unsupported report format '{fmt}'", error=True)
    return _text(f"{fmt} report: 2 orders, 12.50 total")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "listed"
    for line in sys.stdin:
        msg = json.loads(line)
        method, msg_id = msg.get("method"), msg.get("id")
        if msg_id is None:
            continue
        if method == "initialize":
            result: Any = {
                "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "listed-values", "version": "1.0.0"},
            }
        elif method == "tools/list":
            result = {"tools": _tools(mode == "silent")}
        elif method == "tools/call":
            params = msg.get("params") or {}
            args = params.get("arguments")
            result = _call(str(params.get("name")), args if isinstance(args, dict) else {}, mode)
        else:
            error = {"code": -32601, "message": "Method not found"}
            print(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": error}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}), flush=True)


if __name__ == "__main__":
    main()
