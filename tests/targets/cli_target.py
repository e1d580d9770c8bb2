"""A tiny raw JSON-RPC MCP server over stdio for the CLI tests and ``scripts/bench_cli.py``.

No SDK import, so it starts in tens of milliseconds. Run as ``python tests/targets/cli_target.py
[options]``:

``--clean``              the ``echo`` tool validates its input and rejects bad calls with isError
                         (default: it accepts anything, so fuzzing finds silent accepts)
``--slow MS``            every ``tools/call`` answers after MS milliseconds; calls are served
                         concurrently (one thread each), like a real I/O-bound server
``--hang-initialize``    never answer ``initialize`` and ignore EOF and SIGTERM
``--spawn-child FILE``   start a grandchild in the same process group and write
                         "<own pid> <child pid>" to FILE (for orphan checks)
``--echo-env NAME``      (repeatable) ``whereami`` also answers ``NAME=<raw value>`` and the
                         target writes the same to stderr at start (redaction tests)
``--extra-tools N``      also list ``echo_1`` … ``echo_N``, copies of ``echo`` (benchmark load)
``--slow-tool MS``       also list ``wait`` (like ``echo``): a valid call works MS milliseconds
                         in 4 steps, sending progress after each when asked, and stops without
                         answering on ``notifications/cancelled`` (one slow tool among fast ones)
``--fail-start TEXT``    write TEXT (and ``$CLI_TARGET_SECRET``, to test scrubbing) to stderr and
                         exit 3 before reading anything

Tools: ``echo`` (``x: integer``, required, read-only), ``whereami`` (read-only: reports its cwd
and the reverse of ``$CLI_TARGET_SECRET``, so tests can see env reached it without the secret
itself appearing).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

_READ_ONLY = {"readOnlyHint": True, "destructiveHint": False}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Echo the integer x back to the caller.",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"type": "integer", "description": "The number to echo."}},
            "required": ["x"],
            "additionalProperties": False,
        },
        "annotations": _READ_ONLY,
    },
    {
        "name": "whereami",
        "description": "Report the working directory and a digest of the test secret.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": _READ_ONLY,
    },
]

_write_lock = threading.Lock()


def _send(message: dict[str, Any]) -> None:
    line = json.dumps(message) + "\n"
    with _write_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


_ECHO_ENV: list[str] = []


def _call(params: Any, clean: bool) -> dict[str, Any]:
    name = params.get("name") if isinstance(params, dict) else None
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if name == "whereami":
        if clean and arguments != {}:
            return _text("whereami takes no arguments", error=True)
        secret = os.environ.get("CLI_TARGET_SECRET", "")
        echoed = "".join(f" {n}={os.environ.get(n, '')}" for n in _ECHO_ENV)
        return _text(f"cwd={os.getcwd()} reversed-secret={secret[::-1]}{echoed}")
    if not isinstance(name, str) or not (name in ("echo", "wait") or name.startswith("echo_")):
        return _text(f"unknown tool: {name}", error=True)
    if clean:
        valid = (
            isinstance(arguments, dict)
            and set(arguments) == {"x"}
            and isinstance(arguments["x"], int)
            and not isinstance(arguments["x"], bool)
        )
        if not valid:
            return _text("x must be an integer and the only argument", error=True)
    x = arguments.get("x") if isinstance(arguments, dict) else None
    return _text(f"echo {x!r}")


_CANCELLED: set[Any] = set()


def _answer_call(
    request_id: Any, params: Any, clean: bool, slow_ms: int, slow_tool_ms: int = 0
) -> None:
    if slow_ms:
        time.sleep(slow_ms / 1000)
    result = _call(params, clean)
    if isinstance(params, dict) and params.get("name") == "wait" and not result["isError"]:
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        for step in range(1, 5):
            time.sleep(slow_tool_ms / 4000)
            if request_id in _CANCELLED:
                return
            if token is not None:
                progress = {"progressToken": token, "progress": step, "total": 4}
                _send({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
    _send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clean", action="store_true")
    parser.add_argument("--slow", type=int, default=0)
    parser.add_argument("--hang-initialize", action="store_true")
    parser.add_argument("--spawn-child")
    parser.add_argument("--fail-start")
    parser.add_argument("--extra-tools", type=int, default=0)
    parser.add_argument("--slow-tool", type=int, default=0)
    parser.add_argument("--echo-env", action="append", default=[])
    ns = parser.parse_args()
    _ECHO_ENV.extend(ns.echo_env)
    for name in ns.echo_env:
        sys.stderr.write(f"{name}={os.environ.get(name, '')}\n")

    if ns.fail_start is not None:
        sys.stderr.write(ns.fail_start + "\n")
        if os.environ.get("CLI_TARGET_SECRET"):
            sys.stderr.write(f"leaking {os.environ['CLI_TARGET_SECRET']}\n")
        sys.exit(3)
    if ns.spawn_child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        with open(ns.spawn_child, "w") as f:
            f.write(f"{os.getpid()} {child.pid}")
    if ns.hang_initialize:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(3600)

    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if message.get("method") == "notifications/cancelled":
            cancelled = message.get("params")
            if isinstance(cancelled, dict):
                _CANCELLED.add(cancelled.get("requestId"))
        if "id" not in message:
            continue  # notifications
        request_id, method, params = message["id"], message.get("method"), message.get("params")
        if method == "initialize":
            offered = params.get("protocolVersion") if isinstance(params, dict) else None
            result: dict[str, Any] = {
                "protocolVersion": offered or "2025-11-25",
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "cli-target", "title": "CLI test target", "version": "1.0"},
                "instructions": "A test target for mcprobe's CLI.",
            }
            _send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/list":
            extra = [{**TOOLS[0], "name": f"echo_{i}"} for i in range(1, ns.extra_tools + 1)]
            if ns.slow_tool:
                extra.append({**TOOLS[0], "name": "wait", "description": "Wait, then echo x."})
            _send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS + extra}})
        elif method == "tools/call":
            threading.Thread(
                target=_answer_call,
                args=(request_id, params, ns.clean, ns.slow, ns.slow_tool),
                daemon=True,
            ).start()
        elif method == "ping":
            _send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            _send({"jsonrpc": "2.0", "id": request_id, "error": error})


if __name__ == "__main__":
    main()
