"""A Streamable HTTP MCP server (raw ASGI, JSON responses) whose tool calls are answered with
something that is not JSON-RPC at all.

One behaviour (issue 22, class 6): ``initialize``, ``tools/list`` and everything else are
well-formed, but every ``tools/call`` gets, depending on the tool:

- ``html``: 200 with ``Content-Type: text/html`` (a login or captive-portal page);
- ``gateway``: 502 with an HTML proxy error page;
- ``garbled``: 200 ``application/json`` whose body is not JSON;
- ``stray``: 200 ``application/json`` holding a JSON object that is no JSON-RPC message.

The SDK's client answers each of these with a JSON-RPC error code of its own making (-32600,
-32603, -32700); none was sent by the server. Serve it with ``hostile_http.serve``.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Receive, Scope, Send

from tests.targets.hostile_http import _lifespan, _respond

TOOLS = ("html", "gateway", "garbled", "stray")
_PAGE = b"<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"


async def _body(receive: Receive) -> bytes:
    body = b""
    while True:
        event = await receive()
        chunk: bytes = event.get("body", b"")
        body += chunk
        if not event.get("more_body"):
            return body


async def non_jsonrpc(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["method"] != "POST":
        await _respond(send, 405)
        return
    message: dict[str, Any] = json.loads(await _body(receive))
    if "id" not in message:
        await _respond(send, 202)
        return
    method, params = message.get("method"), message.get("params") or {}
    html = [(b"content-type", b"text/html; charset=utf-8")]
    as_json = [(b"content-type", b"application/json")]
    if method == "tools/call":
        name = params.get("name")
        if name == "gateway":
            await _respond(send, 502, _PAGE, html)
        elif name == "garbled":
            await _respond(send, 200, b'{"jsonrpc": "2.0", "id": ', as_json)
        elif name == "stray":
            await _respond(send, 200, b'{"status": "ok", "data": [1, 2, 3]}', as_json)
        else:
            await _respond(send, 200, _PAGE.replace(b"502 Bad Gateway", b"Sign in"), html)
        return
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "non-jsonrpc", "version": "1.0"},
        }
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
        reply["result"] = {
            "tools": [
                {
                    "name": name,
                    "description": f"the {name} tool",
                    "inputSchema": schema,
                    "annotations": {"readOnlyHint": True},
                }
                for name in TOOLS
            ]
        }
    else:
        reply["error"] = {"code": -32601, "message": f"no {method}"}
    await _respond(send, 200, json.dumps(reply).encode(), as_json)
