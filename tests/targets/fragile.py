"""A stdio MCP server that dies, reports progress and records what it was asked to do.

    python fragile.py [MODE ...] [key=value ...]

Standard library only (starts in milliseconds). Every ``tools/call`` is handled on its own
thread, so several calls can be in flight at once, as they are with ``--concurrency 4``.

Tools (listed in this order; ``tools=A,B`` lists only those):
  fragile       read-only; integer ``n``. A string ``n`` (the ``wrong_type:n`` case) kills the
                process (exit 9, once every call that arrived before it was answered and
                after a short pause so later calls are in flight); other bad input gets
                ``isError``
  healthy_a/b/c read-only; integer ``n``; bad input gets ``isError``; answers after ``delay=S``
                seconds (default 0.05)
  writer        ``destructiveHint: false`` only (an additive write)
  wiper         no annotations (may be destructive)
  slow_progress read-only; runs ``work=S`` seconds (default 3), sending a progress
                notification every ``step=S`` seconds (default 0.2) when the call carries a
                progressToken
  slow_silent   read-only; never answers (sleeps ``work`` seconds without progress)
Modes:
  die_once      the ``once=N``-th tools/call (default 3) counted over every start of this
                target (``state=DIR`` needed) kills the process; never again afterwards
  die_always    every tools/call kills the process, at every start
  boot_once     only the first start works (``state=DIR`` needed): every later start writes a
                fatal line to stderr and exits with code 3 before reading anything
  ignore_eof    keep running after stdin closes (like a server whose timers keep it alive),
                until SIGTERM
Keys:
  log=PATH      append one JSON line per event: ``{"event": "start", "pid"}``,
                ``{"event": "call", "name", "arguments", "pid"}``,
                ``{"event": "cancelled", "requestId", "pid"}``
  pidfile=PATH  write "<pid>" at start
  state=DIR     where ``die_once`` keeps its call counter
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

Json = Any

_INT_SCHEMA: dict[str, Json] = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 1, "description": "A number."}},
    "required": ["n"],
    "additionalProperties": False,
}
_EMPTY_SCHEMA: dict[str, Json] = {"type": "object", "properties": {}, "additionalProperties": False}
_READ_ONLY = {"readOnlyHint": True}

TOOLS: dict[str, dict[str, Json]] = {
    "fragile": {"inputSchema": _INT_SCHEMA, "annotations": _READ_ONLY},
    "healthy_a": {"inputSchema": _INT_SCHEMA, "annotations": _READ_ONLY},
    "healthy_b": {"inputSchema": _INT_SCHEMA, "annotations": _READ_ONLY},
    "healthy_c": {"inputSchema": _INT_SCHEMA, "annotations": _READ_ONLY},
    "writer": {"inputSchema": _INT_SCHEMA, "annotations": {"destructiveHint": False}},
    "wiper": {"inputSchema": _INT_SCHEMA},
    "slow_progress": {"inputSchema": _EMPTY_SCHEMA, "annotations": _READ_ONLY},
    "slow_silent": {"inputSchema": _EMPTY_SCHEMA, "annotations": _READ_ONLY},
}


class Fragile:
    def __init__(self, argv: list[str]) -> None:
        self.modes = {a for a in argv if "=" not in a}
        self.keys = dict(a.split("=", 1) for a in argv if "=" in a)
        self.lock = threading.Lock()
        # tools/call requests not yet answered: id → arrival number (see ``call``, fragile).
        self.unanswered: dict[Json, int] = {}
        self.arrivals = 0
        self.answered = threading.Condition()

    def log(self, event: dict[str, Json]) -> None:
        path = self.keys.get("log")
        if path:
            with self.lock, open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps({**event, "pid": os.getpid()}) + "\n")

    def send(self, message: dict[str, Json]) -> None:
        with self.lock:
            sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
            sys.stdout.buffer.flush()
        if "id" in message and ("result" in message or "error" in message):
            with self.answered:
                self.unanswered.pop(message["id"], None)
                self.answered.notify_all()

    def await_earlier_answers(self, rid: Json) -> None:
        """Block until every tools/call that arrived before ``rid`` has been answered (its
        answer written and flushed, so mcprobe reads it before the pipe closes)."""
        with self.answered:
            mine = self.unanswered.get(rid, self.arrivals)
            self.answered.wait_for(
                lambda: all(n >= mine for n in self.unanswered.values()), timeout=60
            )

    def reply(self, rid: Json, text: str, *, is_error: bool = False) -> None:
        result: dict[str, Json] = {"content": [{"type": "text", "text": text}]}
        if is_error:
            result["isError"] = True
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def die(self, why: str) -> None:
        sys.stderr.write(f"fatal: {why}\n")
        sys.stderr.flush()
        os._exit(9)

    def run(self) -> None:
        pidfile = self.keys.get("pidfile")
        if pidfile:
            Path(pidfile).write_text(str(os.getpid()))
        self.log({"event": "start"})
        if "boot_once" in self.modes:
            marker = Path(self.keys["state"]) / "booted"
            if marker.exists():
                sys.stderr.write("fatal: lock file held by a previous run\n")
                sys.stderr.flush()
                sys.exit(3)
            marker.write_text("1")
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            message = json.loads(line)
            method = message.get("method")
            if method == "notifications/cancelled":
                self.log({"event": "cancelled", "requestId": message["params"].get("requestId")})
            if method is None or "id" not in message:
                continue
            rid, params = message["id"], message.get("params") or {}
            if method == "initialize":
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "result": {
                            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                            "capabilities": {"tools": {}},
                            "serverInfo": {"name": "fragile", "version": "1.0"},
                        },
                    }
                )
            elif method == "tools/list":
                self.send({"jsonrpc": "2.0", "id": rid, "result": {"tools": self.listed()}})
            elif method == "tools/call":
                with self.answered:
                    self.unanswered[rid] = self.arrivals
                    self.arrivals += 1
                threading.Thread(target=self.call, args=(rid, params), daemon=True).start()
            else:
                self.send(
                    {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": method}}
                )
        if "ignore_eof" in self.modes:
            while True:
                time.sleep(1)

    def listed(self) -> list[Json]:
        wanted = self.keys.get("tools")
        names = wanted.split(",") if wanted else list(TOOLS)
        return [
            {"name": name, "description": f"The {name} tool of the fragile target.", **TOOLS[name]}
            for name in names
        ]

    def count_call(self, name: Json) -> None:
        """Count this call over every start; the ``once``-th dies. It dies holding the lock and
        the counter is replaced atomically, so no other thread's count is cut half-written."""
        path = Path(self.keys["state"]) / "calls"
        with self.lock:
            n = int(path.read_text()) + 1 if path.exists() else 1
            fresh = path.with_suffix(".new")
            fresh.write_text(str(n))
            os.replace(fresh, path)
            if n == int(self.keys.get("once", "3")):
                self.die(f"died once, at random, during {name}")

    def call(self, rid: Json, params: dict[str, Json]) -> None:
        name, args = params.get("name"), params.get("arguments")
        self.log({"event": "call", "name": name, "arguments": args})
        if "die_always" in self.modes:
            time.sleep(0.05)
            self.die(f"every call kills me (this one: {name})")
        if "die_once" in self.modes:
            self.count_call(name)
        if name in ("slow_progress", "slow_silent"):
            self.slow(rid, params, progress=name == "slow_progress")
            return
        if name not in TOOLS:
            self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no"}})
            return
        n = args.get("n") if isinstance(args, dict) else None
        if name == "fragile" and isinstance(n, str):
            # The calls that arrived before it are answered first, so the ones in flight at the
            # death were all sent after it (a crash while working on a request). An event, not a
            # fixed pause: on a loaded machine an earlier call can take longer than any pause.
            # The short pause after it leaves later calls in flight when it dies.
            self.await_earlier_answers(rid)
            time.sleep(0.2)
            self.die(f"fragile could not handle n={n!r}")
        time.sleep(float(self.keys.get("delay", "0.05")))
        if not isinstance(args, dict) or set(args) != {"n"} or type(n) is not int or n < 1:
            self.reply(rid, "invalid arguments: expected {n: integer >= 1}", is_error=True)
        else:
            self.reply(rid, f"{name} got {n}")

    def slow(self, rid: Json, params: dict[str, Json], *, progress: bool) -> None:
        work = float(self.keys.get("work", "3"))
        step = float(self.keys.get("step", "0.2"))
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        started = time.monotonic()
        while time.monotonic() - started < work:
            time.sleep(step)
            if progress and token is not None:
                done = min(work, time.monotonic() - started)
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": done, "total": work},
                    }
                )
        if progress:
            self.reply(rid, f"done after {work} s")


if __name__ == "__main__":
    Fragile(sys.argv[1:]).run()
