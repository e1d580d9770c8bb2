"""A minimal Streamable HTTP MCP server (raw ASGI, JSON responses) with sessions it can lose.

``initialize`` opens a session (``Mcp-Session-Id: s1``, ``s2``, …); every other request must
carry a live session id, else it gets 404 (MCP: the client must then start a new session).
Tools (read-only, string ``x``): ``echo`` answers with its arguments; ``forget`` drops every
session, as a server restart would, and answers 404. ``SessionServer.opened`` counts sessions.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Receive, Scope, Send

from tests.targets.hostile_http import _lifespan, _respond


class SessionServer:
    def __init__(self) -> None:
        self.opened = 0
        self.live: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["method"] != "POST":
            await _respond(send, 405)
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        message: dict[str, Any] = json.loads(body)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        session = headers.get("mcp-session-id")
        method = message.get("method")
        if method == "initialize":
            self.opened += 1
            session = f"s{self.opened}"
            self.live.add(session)
        elif session not in self.live:
            await _respond(send, 404, b"session not found")
            return
        if "id" not in message:
            await _respond(send, 202)
            return
        params = message.get("params") or {}
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "initialize":
            reply["result"] = {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "sessions", "version": "1.0"},
            }
        elif method == "tools/list":
            schema = {
                "type": "object",
                "properties": {"x": {"type": "string", "description": "Any text."}},
                "required": ["x"],
                "additionalProperties": False,
            }
            reply["result"] = {
                "tools": [
                    {
                        "name": name,
                        "description": f"The {name} tool of the session server.",
                        "inputSchema": schema,
                        "annotations": {"readOnlyHint": True},
                    }
                    for name in ("forget", "echo")
                ]
            }
        elif method == "tools/call" and params.get("name") == "forget":
            self.live.clear()
            await _respond(send, 404, b"session not found")
            return
        elif method == "tools/call":
            args = params.get("arguments")
            ok = isinstance(args, dict) and set(args) == {"x"} and isinstance(args["x"], str)
            text = json.dumps(args) if ok else "invalid arguments"
            reply["result"] = {"content": [{"type": "text", "text": text}], "isError": not ok}
        else:
            reply["error"] = {"code": -32601, "message": f"no {method}"}
        out = [(b"content-type", b"application/json"), (b"mcp-session-id", session.encode())]
        await _respond(send, 200, json.dumps(reply).encode(), out)
