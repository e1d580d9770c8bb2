"""A stdio MCP server whose valid calls need what the sandbox takes away (issue 20, item 3).

- ``save_note`` (``text``: string) writes the note next to this file: outside every path the
  target is started with, so in the sandbox the write meets the read-only host filesystem
  (``[Errno 30] Read-only file system``);
- ``fetch_status`` (``url``: string) connects to 203.0.113.1:80 (TEST-NET-3): in the sandbox
  (and in any loopback-only namespace) ``[Errno 101] Network is unreachable``.

With the argument ``big`` it lists one tool instead, ``write_big`` (``text``: string), which
writes 300 MiB to ``/tmp/sandbox-denied-big``: past the sandbox's file-size limit (256 MiB) the
kernel kills it with SIGXFSZ (restored to its default, as in a C or Node server).

With the argument ``hog`` it lists ``allocate_big`` (``text``: string), which allocates 3 GiB:
past the sandbox's memory limit (2 GiB) the allocation fails, and the uncaught ``MemoryError``
ends the process (exit code 1, a traceback on stderr), as in a server that does not handle it.
Only ever started inside the sandbox (outside it the allocation would succeed).

Each failure is answered with ``isError`` and the OS error's text, as many real servers do; an
argument of the wrong type or a missing one is refused with a validation message. Raw
newline-delimited JSON-RPC on stdio, standard library only.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

NOTE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox-denied-note.txt")


def _save_note(arguments: dict[str, object]) -> str:
    with open(NOTE, "w", encoding="utf-8") as out:
        out.write(str(arguments["text"]) + "\n")
    return f"saved to {NOTE}"


def _fetch_status(arguments: dict[str, object]) -> str:
    with socket.create_connection(("203.0.113.1", 80), timeout=2):
        return "connected"


def _write_big(arguments: dict[str, object]) -> str:
    chunk = b"x" * (1024 * 1024)
    with open("/tmp/sandbox-denied-big", "wb") as out:
        for _ in range(300):
            out.write(chunk)
    return "wrote 300 MiB"


def _allocate_big(arguments: dict[str, object]) -> str:
    block = bytearray(3 * 1024 * 1024 * 1024)  # past RLIMIT_DATA: MemoryError, uncaught
    return f"allocated {len(block)} bytes"


ACTIONS = {"save_note": (_save_note, "text"), "fetch_status": (_fetch_status, "url")}
if sys.argv[1:] == ["hog"]:
    ACTIONS = {"allocate_big": (_allocate_big, "text")}
if sys.argv[1:] == ["big"]:
    ACTIONS = {"write_big": (_write_big, "text")}
    # CPython ignores SIGXFSZ (the write then fails with EFBIG); a C or Node server dies of it.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)


def _call(name: object, arguments: object) -> dict[str, object]:
    if not isinstance(name, str) or name not in ACTIONS:
        raise LookupError(name)
    action, key = ACTIONS[name]
    if not isinstance(arguments, dict) or set(arguments) != {key}:
        return _error(f"invalid arguments: exactly one property {key!r} is required")
    if not isinstance(arguments[key], str):
        return _error(f"invalid arguments: {key!r} must be a string")
    try:
        return {"content": [{"type": "text", "text": action(arguments)}]}
    except OSError as exc:
        return _error(f"OSError: {exc}")


def _error(text: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _tool(name: str, key: str) -> dict[str, object]:
    schema = {
        "type": "object",
        "properties": {key: {"type": "string"}},
        "required": [key],
        "additionalProperties": False,
    }
    return {"name": name, "description": f"Needs the machine: {name}.", "inputSchema": schema}


def _answer(message: dict[str, object]) -> dict[str, object] | None:
    method = message.get("method")
    rid = message.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result: object = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "sandbox-denied", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [_tool(name, key) for name, (_, key) in ACTIONS.items()]}
    elif method == "tools/call":
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        try:
            result = _call(params.get("name"), params.get("arguments"))
        except LookupError:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no tool"}}
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
