"""A stdio MCP server with one write tool that writes where it is told (issue 20): the sandbox
must give a path named only in the user's examples a private writable copy, so the write is
judged, and the real file is never touched.

- ``write_file`` (``path``: string, ``text``: string; no annotations, so possibly destructive)
  overwrites ``path`` with ``text`` and answers how many bytes it wrote; a write the OS refuses
  is answered with ``isError`` and the OS error's text (``[Errno 30] Read-only file system``),
  an argument of the wrong type or a missing one is refused with a validation message.

Raw newline-delimited JSON-RPC on stdio, standard library only.
"""

from __future__ import annotations

import json
import sys

_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
    "required": ["path", "text"],
    "additionalProperties": False,
}


def _error(text: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _write(arguments: object) -> dict[str, object]:
    if not isinstance(arguments, dict) or set(arguments) != {"path", "text"}:
        return _error("invalid arguments: exactly the properties 'path' and 'text' are required")
    path, text = arguments["path"], arguments["text"]
    if not isinstance(path, str) or not isinstance(text, str):
        return _error("invalid arguments: 'path' and 'text' must be strings")
    try:
        with open(path, "w", encoding="utf-8") as out:
            written = out.write(text)
    except OSError as exc:
        return _error(f"OSError: {exc}")
    return {"content": [{"type": "text", "text": f"wrote {written} characters to {path}"}]}


def _answer(message: dict[str, object]) -> dict[str, object] | None:
    method, rid = message.get("method"), message.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result: object = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "example-writer", "version": "1.0.0"},
        }
    elif method == "tools/list":
        tool = {"name": "write_file", "description": "Overwrite a file.", "inputSchema": _SCHEMA}
        result = {"tools": [tool]}
    elif method == "tools/call":
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if params.get("name") != "write_file":
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no tool"}}
        result = _write(params.get("arguments"))
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no method"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            reply = _answer(message)
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
