"""Negotiates MCP 2025-03-26 and, after ``initialize``, sends everything as JSON-RPC batches.

    python batch_replies.py [rawserver words and keys ...]

One behaviour (issue 22, class 2). 2025-03-26 says implementations MUST support receiving
batches, so every later message the client reads is an array: each reply comes as
``[notifications/message, ping request, the response]``. The tool ``pongs`` answers with how
many of those pings the client has answered so far (its replies come back one by one), and
``strict`` accepts a string ``x`` and rejects anything else with ``isError``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from tests.targets.rawserver import RawServer, _text


class BatchReplies(RawServer):
    def __init__(self, argv: list[str]) -> None:
        super().__init__(["protocol=2025-03-26", *argv])
        self.batching = False
        self.pongs = 0

    def send(self, message: dict[str, Any]) -> None:
        if not self.batching or "method" in message:
            super().send(message)
            return
        self.next_id += 1
        log = {"level": "info", "data": "about to answer"}
        batch = [
            {"jsonrpc": "2.0", "method": "notifications/message", "params": log},
            {"jsonrpc": "2.0", "id": f"ping-{self.next_id}", "method": "ping"},
            message,
        ]
        self.out.write(json.dumps(batch).encode() + b"\n")
        self.out.flush()

    def on_initialize(self, rid: Any, params: dict[str, Any]) -> None:
        super().on_initialize(rid, params)
        self.batching = True

    def run(self) -> None:
        """``RawServer.run``, but the client's answers to our pings (responses) are counted."""
        pidfile = self.keys.get("pidfile")
        if pidfile:
            with open(pidfile, "w") as f:
                f.write(str(os.getpid()))
        for line in sys.stdin.buffer:
            message = json.loads(line) if line.strip() else {}
            method = message.get("method")
            if method is None:
                answered = str(message.get("id", "")).startswith("ping-") and "result" in message
                self.pongs += answered
            elif "id" in message:
                handler = getattr(self, "on_" + method.replace("/", "_"), None)
                if handler is None:
                    self.error(message["id"], -32601, "Method not found", method)
                else:
                    handler(message["id"], message.get("params") or {})

    def listed_tools(self) -> list[Any]:
        schema = {
            "type": "object",
            "properties": {"x": {"type": "string"}},
            "required": ["x"],
            "additionalProperties": False,
        }
        return [
            {"name": "strict", "description": "Accept a string x.", "inputSchema": schema},
            {
                "name": "pongs",
                "description": "Count answered pings.",
                "inputSchema": {"type": "object"},
            },
        ]

    def on_tools_call(self, rid: Any, params: dict[str, Any]) -> None:
        args = params.get("arguments")
        if params.get("name") == "pongs":
            self.reply(rid, _text(f"pongs={self.pongs}"))
            return
        if params.get("name") != "strict":
            self.error(rid, -32602, f"Unknown tool: {params.get('name')}")
            return
        x = args.get("x") if isinstance(args, dict) and set(args) == {"x"} else None
        if isinstance(x, str):
            self.reply(rid, _text(f"accepted {x}"))
        else:
            self.reply(rid, _text("x must be a string", is_error=True))


if __name__ == "__main__":
    BatchReplies(sys.argv[1:]).run()
