"""Misbehaving HTTP targets (raw ASGI apps, no SDK) and a helper to serve them on 127.0.0.1.

- ``unauthorized``: 401 with a Bearer challenge on every request.
- ``server_error``: 500 on every request.
- ``redirect_loop``: ``/a`` redirects to ``/b`` and back, forever.
- ``echo_secrets``: a minimal Streamable HTTP MCP server (JSON responses) that echoes the
  ``Authorization`` and ``X-Api-Key`` headers it received in serverInfo, instructions, tool
  descriptions, tool results and error texts.
- ``bomb_server(decoded)``: a minimal Streamable HTTP MCP server (JSON responses) with a
  healthy ``echo`` tool, a ``bomb`` tool whose reply is gzip that inflates to ``decoded``
  bytes (1 GiB: about 1 MB on the wire), streamed without ever holding it inflated, and
  ``deep`` / ``abyss`` tools whose structuredContent nests 150 / 5,000 levels (past mcprobe's
  limit; past the SDK parser's too). ``surrogates=True``: half an emoji in serverInfo.name and
  in echo's reply.
- ``silent_socket()``: a socket that listens (the kernel accepts) but never answers.
"""

from __future__ import annotations

import json
import socket
import struct
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send


async def _lifespan(receive: Receive, send: Send) -> None:
    while (await receive())["type"] != "lifespan.shutdown":
        await send({"type": "lifespan.startup.complete"})
    await send({"type": "lifespan.shutdown.complete"})


async def _respond(
    send: Send, status: int, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    all_headers = [(b"content-length", str(len(body)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": body})


async def unauthorized(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    challenge = b'Bearer realm="mcp", error="invalid_token"'
    await _respond(send, 401, headers=[(b"www-authenticate", challenge)])


async def server_error(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    await _respond(send, 500, b"Internal Server Error", [(b"content-type", b"text/plain")])


async def redirect_loop(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    other = b"/b" if scope["path"] == "/a" else b"/a"
    await _respond(send, 307, headers=[(b"location", other)])


async def echo_secrets(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["method"] != "POST":
        await _respond(send, 405)
        return
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    heard = f"auth={headers.get('authorization')} key={headers.get('x-api-key')}"
    body = b""
    while True:
        event = await receive()
        body += event.get("body", b"")
        if not event.get("more_body"):
            break
    message: dict[str, Any] = json.loads(body)
    if "id" not in message:
        await _respond(send, 202)
        return
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    method = message.get("method")
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": f"echo {heard}", "version": heard},
            "instructions": heard,
        }
    elif method == "tools/list":
        reply["result"] = {
            "tools": [
                {
                    "name": "whoami",
                    "description": f"I heard {heard}",
                    "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
                    "annotations": {"readOnlyHint": True},
                }
            ]
        }
    elif method == "tools/call" and message["params"].get("arguments") == {}:
        reply["result"] = {"content": [{"type": "text", "text": heard}]}
    elif method == "tools/call":
        reply["result"] = {"content": [{"type": "text", "text": heard}], "isError": True}
    else:
        reply["error"] = {"code": -32601, "message": f"no {method}; {heard}", "data": heard}
    await _respond(send, 200, json.dumps(reply).encode(), [(b"content-type", b"application/json")])


_BLOCK = 1 << 20


def _full_flushed(compressor: Any, data: bytes) -> bytes:
    return bytes(compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH))


def gzip_bomb(prefix: bytes, decoded: int, suffix: bytes) -> Iterator[bytes]:
    """A gzip body that inflates to ``prefix`` + ``decoded`` bytes of "A" + ``suffix``, made
    in milliseconds: after a full flush a deflate stream starts afresh, so every 1 MiB block of
    "A" compresses to the same ~1 KiB, computed once; header and trailer are written by hand."""
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = b"A" * _BLOCK
    yield b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + _full_flushed(raw, prefix)
    blocks, rest = divmod(decoded, _BLOCK)
    packed = _full_flushed(raw, block) if blocks else b""
    crc = zlib.crc32(prefix)
    for _ in range(blocks):
        crc = zlib.crc32(block, crc)
        yield packed
    tail = b"A" * rest + suffix
    crc = zlib.crc32(tail, crc)
    size = len(prefix) + decoded + len(suffix)
    yield raw.compress(tail) + raw.flush() + struct.pack("<II", crc, size & 0xFFFFFFFF)


def _nested_reply(rid: Any, depth: int) -> bytes:
    nested = '{"a":' * depth + "1" + "}" * depth
    head = f'{{"jsonrpc":"2.0","id":{json.dumps(rid)},"result":{{"content":[],'
    return f'{head}"structuredContent":{nested}}}}}'.encode()


def bomb_server(decoded: int, *, surrogates: bool = False, sse: bool = False) -> ASGIApp:
    """See the module docstring; ``sse=True`` sends every reply as one SSE event
    (``text/event-stream``) instead of a JSON body, the bomb included."""
    kind = b"text/event-stream" if sse else b"application/json"
    before, after = (b"event: message\ndata: ", b"\n\n") if sse else (b"", b"")

    async def reply_with(send: Send, body: bytes) -> None:
        await _respond(send, 200, before + body + after, [(b"content-type", kind)])

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
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
        if "id" not in message:
            await _respond(send, 202)
            return
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            reply["result"] = {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "bomb\ud83d" if surrogates else "bomb", "version": "1.0"},
            }
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"x": {"type": "string"}}}
            reply["result"] = {
                "tools": [
                    {
                        "name": name,
                        "description": f"the {name} tool",
                        "inputSchema": schema,
                        "annotations": {"readOnlyHint": True},
                    }
                    for name in ("echo", "bomb", "deep", "abyss")
                ]
            }
        elif method == "tools/call" and params.get("name") == "bomb":
            head = (
                json.dumps(reply)[:-1].encode()
                + b', "result": {"content": [{"type": "text", "text": "'
            )
            headers = [
                (b"content-type", kind),
                (b"content-encoding", b"gzip"),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            for piece in gzip_bomb(before + head, decoded, b'"}]}}' + after):
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
            return
        elif method == "tools/call" and params.get("name") in ("deep", "abyss"):
            depth = 150 if params["name"] == "deep" else 5000
            await reply_with(send, _nested_reply(message["id"], depth))
            return
        elif method == "tools/call":
            text = json.dumps(params.get("arguments")) + (" \ud83d" if surrogates else "")
            reply["result"] = {"content": [{"type": "text", "text": text}]}
        else:
            reply["error"] = {"code": -32601, "message": f"no {method}"}
        await reply_with(send, json.dumps(reply).encode())

    return app


@asynccontextmanager
async def serve(app: ASGIApp) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free 127.0.0.1 port; yield its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
    sock.close()


@contextmanager
def silent_socket() -> Iterator[str]:
    """A URL whose server accepts connections (kernel backlog) but never reads or answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        yield f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
