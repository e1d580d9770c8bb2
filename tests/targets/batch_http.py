"""A Streamable HTTP MCP server (raw ASGI) that negotiates MCP 2025-03-26 and answers in batches.

One behaviour (issue 22, class 2, over HTTP): 2025-03-26 says implementations MUST support
receiving JSON-RPC batches, so after ``initialize`` every answer to a POSTed request is a JSON
array: ``tools/list`` a one-element array ``[the response]``, every other request
``[notifications/message, a ping request, the response, notifications/message]`` (the ping's id
is ``"ping-<n>"``; the client POSTs its answer back, which is counted). ``batch_server(sse=False)``
sends the array as an ``application/json`` body, ``sse=True`` as the ``data`` of one event of a
``text/event-stream`` answer. Tools (read-only): ``strict`` accepts a string ``x`` and rejects
anything else with ``isError``; ``pongs`` answers with how many pings were answered so far.
Serve it with ``hostile_http.serve``.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.targets.hostile_http import _lifespan, _respond
from tests.targets.non_jsonrpc_http import _body

_SCHEMA = {
    "type": "object",
    "properties": {"x": {"type": "string"}},
    "required": ["x"],
    "additionalProperties": False,
}
TOOLS = [
    {
        "name": "strict",
        "description": "Accept a string x.",
        "inputSchema": _SCHEMA,
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "pongs",
        "description": "Count the answered pings.",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    },
]


def _text(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


class BatchServer:
    def __init__(self, *, sse: bool, version: str = "2025-03-26") -> None:
        self.sse = sse
        self.version = version
        self.pings = 0
        self.pongs = 0
        self._pong: anyio.Event | None = None

    def heard(self, message: dict[str, Any]) -> None:
        """A message without a method: the client's answer to one of our pings, or not."""
        if str(message.get("id")).startswith("ping-") and "result" in message:
            self.pongs += 1
            if self._pong is not None:
                self._pong.set()

    async def until_pongs(self, count: int) -> None:
        """Wait until ``count`` pings were answered (bound it with a timeout)."""
        while self.pongs < count:
            self._pong = anyio.Event()
            await self._pong.wait()

    def answer(self, method: object, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return {
                "result": {
                    "protocolVersion": self.version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "batch-http", "version": "1.0"},
                }
            }
        if method == "tools/list":
            return {"result": {"tools": TOOLS}}
        if method == "tools/call" and params.get("name") == "pongs":
            return {"result": _text(f"pongs={self.pongs}")}
        if method == "tools/call" and params.get("name") == "strict":
            args = params.get("arguments")
            x = args.get("x") if isinstance(args, dict) and set(args) == {"x"} else None
            if isinstance(x, str):
                return {"result": _text(f"accepted {x}")}
            return {"result": _text("x must be a string", is_error=True)}
        return {"error": {"code": -32601, "message": f"no {method}"}}

    def batch(self, method: object, reply: dict[str, Any]) -> Any:
        if method == "initialize":
            return reply
        if method == "tools/list":
            return [reply]
        self.pings += 1
        log = {"jsonrpc": "2.0", "method": "notifications/message"}
        return [
            {**log, "params": {"level": "info", "data": "about to answer"}},
            {"jsonrpc": "2.0", "id": f"ping-{self.pings}", "method": "ping"},
            reply,
            {**log, "params": {"level": "info", "data": "answered"}},
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["method"] != "POST":
            await _respond(send, 405)
            return
        message: dict[str, Any] = json.loads(await _body(receive))
        method = message.get("method")
        if method is None:
            self.heard(message)
        if "id" not in message or method is None:
            await _respond(send, 202)
            return
        reply = {
            "jsonrpc": "2.0",
            "id": message["id"],
            **self.answer(method, message.get("params") or {}),
        }
        body = json.dumps(self.batch(method, reply)).encode()
        if self.sse:
            body = b"event: message\ndata: " + body + b"\n\n"
        kind = b"text/event-stream" if self.sse else b"application/json"
        await _respond(send, 200, body, [(b"content-type", kind)])


def batch_server(*, sse: bool = False, version: str = "2025-03-26") -> ASGIApp:
    """``version``: the protocol version it answers ``initialize`` with (batches stay)."""
    return BatchServer(sse=sse, version=version)
