"""A legacy HTTP+SSE MCP server (raw ASGI) that negotiates MCP 2025-03-26 and answers in batches.

One behaviour (issue 22, class 2, over the legacy SSE transport): ``GET /sse`` opens the event
stream (its first event names ``/messages?session_id=<n>`` as the endpoint, one session per
stream), every POST there is answered 202, and its reply comes as one event on that stream, a
batch after ``initialize``: the same batches as ``batch_http.BatchServer`` (``tools/list`` as
``[the response]``, everything else as ``[notifications/message, a ping request, the response,
notifications/message]``), with the same tools ``strict`` and ``pongs``. Serve it with
``hostile_http.serve``.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.abc
from starlette.types import Receive, Scope, Send

from tests.targets.batch_http import BatchServer
from tests.targets.hostile_http import _lifespan, _respond
from tests.targets.non_jsonrpc_http import _body


class LegacyBatchServer(BatchServer):
    def __init__(self) -> None:
        super().__init__(sse=False)
        self.sessions: dict[bytes, anyio.abc.ObjectSendStream[bytes]] = {}

    async def stream(self, receive: Receive, send: Send) -> None:
        session = str(len(self.sessions) + 1).encode()
        self.sessions[session], events = anyio.create_memory_object_stream[bytes](64)
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        endpoint = b"event: endpoint\ndata: /messages?session_id=" + session + b"\n\n"
        await send({"type": "http.response.body", "body": endpoint, "more_body": True})
        async with anyio.create_task_group() as tg:

            async def until_disconnected() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                tg.cancel_scope.cancel()

            tg.start_soon(until_disconnected)
            async for data in events:
                event = b"event: message\ndata: " + data + b"\n\n"
                await send({"type": "http.response.body", "body": event, "more_body": True})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["method"] == "GET" and scope["path"] == "/sse":
            await self.stream(receive, send)
            return
        if scope["method"] != "POST" or scope["path"] != "/messages":
            await _respond(send, 404)
            return
        message: dict[str, Any] = json.loads(await _body(receive))
        await _respond(send, 202)
        method = message.get("method")
        if method is None:
            self.heard(message)
            return
        if "id" in message:
            answer = self.answer(method, message.get("params") or {})
            reply = {"jsonrpc": "2.0", "id": message["id"], **answer}
            session = scope["query_string"].partition(b"session_id=")[2]
            await self.sessions[session].send(json.dumps(self.batch(method, reply)).encode())
