"""mcprobe's own MCP server (stdio, raw JSON-RPC) whose tools accept only values another of its
tools lists — written for issue 23 item 8 / issue 25 item 1, not copied from any published
server.

    python answer_lister.py          # list_tables answers ["users", "orders"]; list_files the
                                     # names in answer_lister_files/
    python answer_lister.py silent   # the honest look-alike: list_tables lists nothing and
                                     # list_files names files too long for read_file's schema

describe_table and read_file are listed before their listers (so the fuzz calls them first),
and refuse every value they do not serve ("no such table: example") without saying which ones
they do: only the listers' answers name the real values.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FILES = Path(__file__).resolve().parent / "answer_lister_files"
TABLES = {"users": ["id INTEGER", "name TEXT"], "orders": ["id INTEGER", "total REAL"]}
LONG_NAMES = ("quarterly-sales-figures-for-the-whole-year.txt", "an-archived-report-of-2019.txt")
RO = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}


def _tool(name: str, description: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": props,
            "required": list(props),
            "additionalProperties": False,
        },
        "annotations": RO,
    }


TOOLS = [
    _tool("describe_table", "Describes the columns of one table.", {"table": {"type": "string"}}),
    _tool("list_tables", "Lists the tables of the shop database.", {}),
    _tool(
        "read_file",
        "Reads one of the shop's files.",
        {"name": {"type": "string", "maxLength": 16, "description": "File name."}},
    ),
    _tool("list_files", "Lists the shop's files.", {}),
]


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def _files(silent: bool) -> list[str]:
    return list(LONG_NAMES) if silent else sorted(p.name for p in FILES.iterdir())


def _call(name: str, args: dict[str, Any], silent: bool) -> dict[str, Any]:
    expected = {p for t in TOOLS if t["name"] == name for p in t["inputSchema"]["properties"]}
    if set(args) != expected or not all(isinstance(v, str) for v in args.values()):
        return _text(f"expected exactly the string arguments {sorted(expected)}", error=True)
    if name == "list_tables":
        return _text(json.dumps([] if silent else list(TABLES)))
    if name == "list_files":
        return _text("\n".join(_files(silent)))
    if name == "describe_table":
        table = args["table"]
        if silent or table not in TABLES:
            return _text(f"no such table: {table}", error=True)
        return _text(f"{table}: " + ", ".join(TABLES[table]))
    if name == "read_file":
        file = args["name"]
        if file not in _files(silent) or len(file) > 16:
            return _text(f"no such file: {file}", error=True)
        return _text((FILES / file).read_text(encoding="utf-8"))
    return _text(f"unknown tool {name}", error=True)


def main() -> None:
    silent = len(sys.argv) > 1 and sys.argv[1] == "silent"
    for line in sys.stdin:
        msg = json.loads(line)
        method, msg_id = msg.get("method"), msg.get("id")
        if msg_id is None:
            continue
        if method == "initialize":
            result: Any = {
                "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "answer-lister", "version": "1.0.0"},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            params = msg.get("params") or {}
            args = params.get("arguments")
            result = _call(str(params.get("name")), args if isinstance(args, dict) else {}, silent)
        else:
            error = {"code": -32601, "message": "Method not found"}
            print(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": error}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}), flush=True)


if __name__ == "__main__":
    main()
