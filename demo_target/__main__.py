"""Run the demo target: ``python -m demo_target`` serves MCP over stdio.

``--http PORT`` serves Streamable HTTP at ``http://127.0.0.1:PORT/mcp`` and ``--sse PORT``
legacy SSE at ``http://127.0.0.1:PORT/sse``; port 0 picks a free port. In both HTTP modes the
server prints ``READY <url>`` on stdout once it listens, so tests can wait for it.
``--bearer-token-env NAME`` requires ``Authorization: Bearer <value of $NAME>`` (401 otherwise).
``--hazards`` adds the ``explode`` and ``hang`` tools. Logs go to stderr only.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from demo_target.server import build_server


class _RequireBearer:
    """ASGI wrapper: every HTTP request must carry the expected bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers", []))
            if headers.get(b"authorization") != self._expected:
                response = Response(
                    "unauthorized",
                    status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="demo-target"'},
                )
                await response(scope, receive, send)
                return
        await self._app(scope, receive, send)


def _sse_app(server: Server[Any]) -> Starlette:
    sse = SseServerTransport("/messages/")

    async def handle_sse(request: Request) -> Response:
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
        return Response()

    return Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=sse.handle_post_message),
        ]
    )


async def _serve_http(app: ASGIApp, port: int, path: str) -> None:
    import uvicorn

    # Bind and listen ourselves so the port is known (port 0 = any free one) before serving;
    # clients that connect early wait in the backlog until uvicorn accepts.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    print(f"READY http://127.0.0.1:{sock.getsockname()[1]}{path}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="demo_target", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    mode.add_argument("--sse", type=int, metavar="PORT", help="serve legacy SSE")
    parser.add_argument("--bearer-token-env", metavar="NAME", help="require this bearer token")
    parser.add_argument("--hazards", action="store_true", help="add the explode and hang tools")
    ns = parser.parse_args(argv)

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    server = build_server(hazards=ns.hazards)
    if ns.http is None and ns.sse is None:
        anyio.run(_serve_stdio, server)
        return

    token = os.environ.get(ns.bearer_token_env, "") if ns.bearer_token_env else None
    if ns.bearer_token_env and not token:
        parser.error(f"environment variable {ns.bearer_token_env} is empty or unset")
    app: ASGIApp
    if ns.http is not None:
        app, port, path = server.streamable_http_app(host="127.0.0.1"), ns.http, "/mcp"
    else:
        app, port, path = _sse_app(server), ns.sse, "/sse"
    if token:
        app = _RequireBearer(app, token)
    anyio.run(_serve_http, app, port, path)


if __name__ == "__main__":
    main()
