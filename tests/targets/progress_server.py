"""A raw JSON-RPC stdio server with one read-only tool, ``work``, that reports progress; how it
reports progress and how it treats ``notifications/cancelled`` is chosen on the command line.

    python progress_server.py [MODE ...]

Standard library only (starts in milliseconds). ``work`` takes no arguments (anything else is a
tool error) and, when the call carries a progressToken, sends progress 1/3, 2/3, 3/3 at
``STEP`` s intervals, then answers. A ``notifications/cancelled`` for it stops it: no more
progress, no response. Modes change one thing each:

  decreasing      progress 2 then 1 (MUST increase)
  after_response  one more progress after the response (MUST stop after completion)
  foreign_token   progress names the token "not-yours" instead of the request's
  non_numeric     progress "half" (the schema: a number)
  beyond_total    progress 5 of total 3 (advice only)
  ignore_cancel   ignores cancellation: keeps sending progress and answers
  silent_continue keeps sending progress after cancellation, but sends no response
  error_on_cancel stops on cancellation but answers the cancelled call with an error
  no_progress     never sends progress and answers at once (nothing to observe)
  slow_quiet      never sends progress; answers after 6 × STEP (cancellable)
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

STEP = 0.3
TOOL = {
    "name": "work",
    "description": "Do three steps of work, reporting progress after each.",
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "annotations": {"readOnlyHint": True},
}

_lock = threading.Lock()
_cancelled: set[Any] = set()


def send(message: dict[str, Any]) -> None:
    with _lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def progress(token: Any, value: Any, total: Any = 3) -> None:
    params: dict[str, Any] = {"progressToken": token, "progress": value}
    if total is not None:
        params["total"] = total
    send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})


def result(rid: Any, text: str, error: bool = False) -> None:
    content = [{"type": "text", "text": text}]
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": content, "isError": error}})


def work(rid: Any, token: Any, modes: set[str]) -> None:
    ignores = bool(modes & {"ignore_cancel", "silent_continue"})
    if "no_progress" in modes:
        result(rid, "done")
        return
    values: list[Any] = [1, 2, 3]
    totals: list[Any] = [3, 3, 3]
    if "decreasing" in modes:
        values = [2, 1, 3]
    if "non_numeric" in modes:
        values = [1, "half", 3]
    if "beyond_total" in modes:
        values = [1, 5, 6]
    step = STEP * 2 if "slow_quiet" in modes else STEP  # 1.8 s: slow enough to cancel
    for value, total in zip(values, totals, strict=True):
        time.sleep(step)
        if rid in _cancelled and "error_on_cancel" in modes:
            error = {"code": -32800, "message": "Request cancelled"}
            send({"jsonrpc": "2.0", "id": rid, "error": error})
            return
        if rid in _cancelled and not ignores:
            return
        if token is not None and "slow_quiet" not in modes:
            named = "not-yours" if "foreign_token" in modes else token
            progress(named, value, total)
    if rid in _cancelled and "silent_continue" in modes:
        return
    result(rid, "done")
    if "after_response" in modes and token is not None:
        progress(token, 4, None)


def main(modes: set[str]) -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, rid = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "notifications/cancelled":
            _cancelled.add(params.get("requestId"))
            continue
        if rid is None:
            continue
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "progress-server", "version": "1.0.0"},
                        "instructions": "One tool that reports progress.",
                    },
                }
            )
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
        elif method == "tools/call" and params.get("name") == "work":
            if params.get("arguments") not in ({}, None):
                result(rid, "work takes no arguments", error=True)
                continue
            token = (params.get("_meta") or {}).get("progressToken")
            threading.Thread(target=work, args=(rid, token, modes), daemon=True).start()
        elif method == "tools/call":
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no tool"}})
        else:
            error = {"code": -32601, "message": "Method not found"}
            send({"jsonrpc": "2.0", "id": rid, "error": error})


if __name__ == "__main__":
    main(set(sys.argv[1:]))
