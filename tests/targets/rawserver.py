"""A hand-written JSON-RPC stdio server whose (mis)behaviour is chosen on the command line.

    python rawserver.py [BEHAVIOUR ...] [key=value ...]

Standard library only, so it starts in milliseconds. Extend it by adding a tool to ``TOOLS``
(called as ``tools/call``) or a behaviour name checked in ``RawServer``; document it below.

Behaviours (argv words):
  silent          never answer anything (not even initialize)
  exit_at_start   write a fatal message to stderr and exit with code 3 before reading stdin
  banner          print two non-JSON lines on stdout before the first answer
  malformed_tool  tools/list also returns a non-object tool and a tool without inputSchema
  pages3          tools/list is split over three pages (cursors "p2", "p3")
  cursor_repeat   page 2 returns the cursor of page 1 again (a pagination loop)
  cursor_endless  every page returns a new cursor, forever
  ignore_term     ignore SIGTERM and stdin EOF; start a child (same process group) that does
                  the same; write both pids to ``pidfile=PATH``
  stderr_flood    write 1 MiB to stderr at start (nobody must block on it)
  elicit_first    ask the client for elicitation/create before answering initialize
  no_version      serverInfo without "version" (breaks the MCP schema; a raw client copes)
  leak_env_exit   write "token=$PROBE_VAR" to stderr and exit with code 4 at start
Keys:
  pidfile=PATH    where ``ignore_term`` writes "<pid> <child pid>"
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

Json = Any


def _text(text: str, *, is_error: bool = False) -> dict[str, Json]:
    result: dict[str, Json] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


class RawServer:
    def __init__(self, argv: list[str]) -> None:
        self.flags = {a for a in argv if "=" not in a}
        self.keys = dict(a.split("=", 1) for a in argv if "=" in a)
        self.out = sys.stdout.buffer
        self.next_id = 1000

    # ------------------------------------------------------------------ wire

    def send(self, message: dict[str, Json]) -> None:
        self.out.write(json.dumps(message).encode() + b"\n")
        self.out.flush()

    def send_raw(self, data: bytes) -> None:
        self.out.write(data + b"\n")
        self.out.flush()

    def reply(self, rid: Json, result: dict[str, Json]) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid: Json, code: int, message: str, data: Json = None) -> None:
        err: dict[str, Json] = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        self.send({"jsonrpc": "2.0", "id": rid, "error": err})

    # ------------------------------------------------------------------ main loop

    def run(self) -> None:
        if "exit_at_start" in self.flags:
            sys.stderr.write("fatal: config file /etc/target.toml missing\n")
            sys.stderr.flush()
            sys.exit(3)
        if "leak_env_exit" in self.flags:
            sys.stderr.write(f"token={os.environ.get('PROBE_VAR')}\n")
            sys.stderr.flush()
            sys.exit(4)
        if "stderr_flood" in self.flags:
            sys.stderr.write("x" * (1024 * 1024) + "\nflood done\n")
            sys.stderr.flush()
        if "ignore_term" in self.flags:
            self.ignore_term()
        if "banner" in self.flags:
            self.send_raw(b"Starting raw server v1 ...")
            self.send_raw(b"\x00\xffnot json at all")
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            message = json.loads(line)
            if "silent" in self.flags:
                continue
            method = message.get("method")
            if method is None:
                continue  # a response to one of our own requests
            handler = getattr(self, "on_" + method.replace("/", "_"), None)
            if "id" not in message:
                continue  # notifications are ignored
            if handler is None:
                self.error(message["id"], -32601, "Method not found", method)
            else:
                handler(message["id"], message.get("params") or {})
        if "ignore_term" in self.flags:
            while True:
                time.sleep(1)

    def ignore_term(self) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import signal,time\n"
                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        pidfile = self.keys.get("pidfile")
        if pidfile:
            with open(pidfile, "w") as f:
                f.write(f"{os.getpid()} {child.pid}")

    # ------------------------------------------------------------------ methods

    def on_initialize(self, rid: Json, params: dict[str, Json]) -> None:
        if "elicit_first" in self.flags:
            self.next_id += 1
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": self.next_id,
                    "method": "elicitation/create",
                    "params": {"message": "password?", "requestedSchema": {"type": "object"}},
                }
            )
        self.reply(
            rid,
            {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}, "prompts": {}},
                "serverInfo": (
                    {"name": "raw", "x-vendor": "kept"}
                    if "no_version" in self.flags
                    else {"name": "raw", "version": "1.0", "x-vendor": "kept"}
                ),
                "instructions": "raw test server",
                "clientSeen": params.get("clientInfo"),
            },
        )

    def on_ping(self, rid: Json, params: dict[str, Json]) -> None:
        self.reply(rid, {})

    def on_prompts_list(self, rid: Json, params: dict[str, Json]) -> None:
        self.reply(rid, {"prompts": [{"name": "p1"}, {"name": "p2"}]})

    def on_tools_list(self, rid: Json, params: dict[str, Json]) -> None:
        tools: list[Json] = [_tool(name, fn.__doc__ or "") for name, fn in TOOLS.items()]
        if "malformed_tool" in self.flags:
            tools.insert(1, "not-an-object")
            tools.insert(2, {"name": "no_schema", "description": "lacks inputSchema"})
        cursor = params.get("cursor")
        if "pages3" in self.flags:
            pages = {None: (tools[:1], "p2"), "p2": (tools[1:2], "p3"), "p3": (tools[2:], None)}
            page, next_cursor = pages[cursor]
        elif "cursor_repeat" in self.flags:
            page, next_cursor = ([tools[0]], "same") if cursor is None else ([tools[1]], "same")
        elif "cursor_endless" in self.flags:
            n = int(cursor or "0") + 1
            page, next_cursor = [{**tools[0], "name": f"t{n}"}], str(n)
        else:
            page, next_cursor = tools, None
        result: dict[str, Json] = {"tools": page}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        self.reply(rid, result)

    def on_tools_call(self, rid: Json, params: dict[str, Json]) -> None:
        name = params.get("name")
        tool = TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            self.error(rid, -32602, f"Unknown tool: {name}")
            return
        tool(self, rid, params.get("arguments"))


def _tool(name: str, doc: str) -> dict[str, Json]:
    tool: dict[str, Json] = {
        "name": name,
        "description": doc.strip() or name,
        "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
    }
    if name == "weird":
        tool["outputSchema"] = {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        }
    return tool


# ---------------------------------------------------------------------- tools


def echo(server: RawServer, rid: Json, args: Json) -> None:
    """Echo the arguments back as JSON text."""
    server.reply(rid, _text(json.dumps(args)))


def fail(server: RawServer, rid: Json, args: Json) -> None:
    """Always reject with isError."""
    server.reply(rid, _text("bad input", is_error=True))


def rpc_error(server: RawServer, rid: Json, args: Json) -> None:
    """Reject with a JSON-RPC error."""
    server.error(rid, -32602, "x must be a number", {"field": "x"})


def fake_closed(server: RawServer, rid: Json, args: Json) -> None:
    """Send a genuine -32000 error reply while staying alive."""
    server.error(rid, -32000, "Connection closed")


def hang(server: RawServer, rid: Json, args: Json) -> None:
    """Never answer."""


def die(server: RawServer, rid: Json, args: Json) -> None:
    """Exit with code 7 mid-call."""
    os._exit(7)


def weird(server: RawServer, rid: Json, args: Json) -> None:
    """Answer with an unknown field and structuredContent that violates outputSchema."""
    server.reply(
        rid,
        {**_text("weird"), "x-unknown": {"a": 1}, "structuredContent": {"n": "not an int"}},
    )


def huge(server: RawServer, rid: Json, args: Json) -> None:
    """Answer with a 30 MB line."""
    blob = "A" * (30 * 1024 * 1024)
    server.reply(rid, _text(blob))


def invalid_reply(server: RawServer, rid: Json, args: Json) -> None:
    """Answer with a reply whose result is a list (not valid JSON-RPC for MCP)."""
    server.send({"jsonrpc": "2.0", "id": rid, "result": [1, 2, 3]})


def noisy(server: RawServer, rid: Json, args: Json) -> None:
    """Print a log line on stdout, then answer."""
    server.send_raw(b"DEBUG: handling noisy call")
    server.reply(rid, _text("ok"))


def env(server: RawServer, rid: Json, args: Json) -> None:
    """Report PROBE_VAR, whether HOME_SECRET leaked in, and the cwd."""
    server.reply(
        rid,
        {
            "content": [],
            "structuredContent": {
                "probeVar": os.environ.get("PROBE_VAR"),
                "parentSecret": os.environ.get("MCPROBE_TEST_PARENT_SECRET"),
                "cwd": os.getcwd(),
            },
        },
    )


TOOLS: dict[str, Callable[[RawServer, Json, Json], None]] = {
    f.__name__: f
    for f in (echo, fail, rpc_error, fake_closed, hang, die, weird, huge, invalid_reply, noisy, env)
}


if __name__ == "__main__":
    RawServer(sys.argv[1:]).run()
