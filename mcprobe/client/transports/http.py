"""Streamable HTTP and legacy SSE transports, with the real HTTP status codes kept.

The SDK collapses most HTTP failures into ``-32603 "Server returned an error response"``; an httpx2
response hook records every ``(method, status, WWW-Authenticate)`` so connect errors can name the
status ("HTTP 401 Unauthorized ...") and so ``transport="http"`` can tell a server that does not
speak Streamable HTTP (404/405 on POST) and fall back to SSE. Header values and the bearer token
travel only on the ``httpx2.AsyncClient``; nothing here puts them in a message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Literal

import anyio
from mcp.shared.message import SessionMessage

from mcprobe.client.streams import ReadStream, WriteStream
from mcprobe.client.transports.http_batch import BatchRelay
from mcprobe.client.wire_events import OversizeReply

if TYPE_CHECKING:
    import httpx2

# httpx2 (and ``http_cap``, built on it) load when an HTTP target is audited: a stdio audit's
# start-up never pays for them (issue 21).

__all__ = ["HttpLog", "HttpStatus", "open_http", "status_phrase"]

HttpKind = Literal["http", "sse"]  # Streamable HTTP, or the legacy HTTP+SSE transport

_SSE_READ_TIMEOUT = 300.0


@dataclass(frozen=True)
class HttpStatus:
    method: str
    status: int
    auth_scheme: str | None  # the scheme word of WWW-Authenticate only, never its parameters
    location: str | None = None  # where a 3xx pointed


@dataclass
class HttpLog:
    """Every HTTP response status seen on one connection attempt, in order."""

    statuses: list[HttpStatus] = field(default_factory=list)
    on_oversize: Callable[[OversizeReply], None] | None = None
    """Set by the connection once its session exists: hears of every body cut at the cap."""
    not_jsonrpc: dict[int, str] = field(default_factory=dict)
    """Request id → why the HTTP reply to it was no JSON-RPC message (``reply_fault``)."""

    def oversize(self, event: OversizeReply) -> None:
        if self.on_oversize is not None:
            self.on_oversize(event)

    async def hook(self, response: httpx2.Response) -> None:
        challenge = response.headers.get("www-authenticate")
        scheme = challenge.split(None, 1)[0][:40] if challenge and challenge.strip() else None
        location = response.headers.get("location") if 300 <= response.status_code < 400 else None
        self.statuses.append(
            HttpStatus(response.request.method, response.status_code, scheme, location)
        )
        rid = _request_id(response.request)
        if rid is not None:
            fault = await _not_jsonrpc(response)
            if fault is not None and len(self.not_jsonrpc) < _MAX_FAULTS:
                self.not_jsonrpc[rid] = fault

    def reply_fault(self, request_id: object) -> str | None:
        """Why the HTTP reply to ``request_id`` was not a JSON-RPC message, if it was not (the
        SDK then hands the caller an error code of its own making: -32600 for an unexpected
        content type, -32700 for an unparseable body, -32603 for an error page)."""
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return None
        return self.not_jsonrpc.pop(request_id, None)

    def first_failure(self) -> HttpStatus | None:
        return next((s for s in self.statuses if s.status >= 400), None)

    def last_redirect(self) -> HttpStatus | None:
        return next((s for s in reversed(self.statuses) if 300 <= s.status < 400), None)

    def rejects_streamable(self) -> bool:
        """The server answered our POST with 404 or 405: it does not speak
        Streamable HTTP at this URL (the fallback to legacy SSE is worth a try)."""
        failure = self.first_failure()
        return failure is not None and failure.method == "POST" and failure.status in (404, 405)


_MAX_FAULTS = 1024
_JSON = "application/json"
_SSE = "text/event-stream"


def _request_id(request: httpx2.Request) -> int | None:
    """The JSON-RPC id of one of mcprobe's POSTed requests (its ids are integers), else None."""
    if request.method != "POST":
        return None
    import httpx2

    try:
        sent = json.loads(request.content)
    except (ValueError, RecursionError, httpx2.RequestNotRead):
        return None
    rid = sent.get("id") if isinstance(sent, dict) and "method" in sent else None
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


async def _not_jsonrpc(response: httpx2.Response) -> str | None:
    """Why this reply to a request is no JSON-RPC message, or None when it is one (or may be:
    an event stream, which the SDK reads event by event). A 404 is left to the SDK (the HTTP
    spelling of "session terminated" or "method not found"), and a body over the size cap to
    ``http_cap`` (an oversize reply)."""
    status = response.status_code
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    shown = kind[:60] or "none"
    where = f"HTTP {status_phrase(status)}, Content-Type {shown}"
    if status == 404 or 300 <= status < 400:
        return None
    if status == 202:
        return f"not a JSON-RPC reply: {where} with no response to the request"
    if kind == _SSE and status < 300:
        return None
    if kind != _JSON:
        return f"not a JSON-RPC reply: {where}"
    import httpx2

    try:
        body = await response.aread()
    except httpx2.HTTPError:
        return None
    try:
        decoded = json.loads(body)
    except RecursionError:
        return None  # valid JSON nested too deep: the depth checks name it
    except ValueError:
        return f"not a JSON-RPC reply: {where}, a body that is not JSON"
    # A non-empty array in a 2xx answer is a batch, relayed (``http_batch``): the body read here
    # is then its notice. An empty array, or one in an error answer, holds no reply.
    if isinstance(decoded, list):
        return f"not a JSON-RPC reply: {where}, a JSON array where one response object belongs"
    shaped = isinstance(decoded, dict) and decoded.get("jsonrpc") == "2.0"
    if not (shaped and any(key in decoded for key in ("result", "error", "method"))):
        return f"not a JSON-RPC reply: {where}, JSON that is no JSON-RPC message"
    return None


def status_phrase(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _headers(spec_headers: dict[str, str], bearer: str | None) -> dict[str, str]:
    from mcprobe.client.transports.http_cap import ACCEPT_ENCODING

    # Only the codings http_cap decodes itself (streamed, capped on the decoded size).
    headers = {"Accept-Encoding": ACCEPT_ENCODING, **spec_headers}
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    return headers


@asynccontextmanager
async def open_http(
    kind: HttpKind,
    url: str,
    *,
    headers: dict[str, str],
    bearer: str | None,
    http_timeout: float,
    log: HttpLog,
    max_response_bytes: int,
) -> AsyncIterator[tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]]:
    """Open one HTTP transport. ``http_timeout`` bounds each HTTP operation (connect, write, pool);
    the overall connect deadline is the caller's cancel scope. Every response body is capped at
    ``max_response_bytes`` after decompression (``http_cap``), and the messages of a JSON-RPC
    batch reach the read stream one by one (``http_batch``)."""
    import httpx2

    from mcprobe.client.transports.http_cap import CappedTransport

    all_headers = _headers(headers, bearer)
    hooks: dict[str, list[Any]] = {"response": [log.hook]}
    relay = BatchRelay(max_response_bytes, log.not_jsonrpc)

    def capped() -> CappedTransport:
        transport = CappedTransport(httpx2.AsyncHTTPTransport(), max_response_bytes)
        transport.report = log.oversize
        transport.relay = relay
        return transport

    # The SDK's client package imports its server too: loaded only when an HTTP target is audited.
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    if kind == "http":
        async with (
            httpx2.AsyncClient(
                headers=all_headers,
                timeout=httpx2.Timeout(http_timeout, read=_SSE_READ_TIMEOUT),
                event_hooks=hooks,
                transport=capped(),
            ) as http,
            streamable_http_client(url, http_client=http, terminate_on_close=True) as (read, write),
            _relayed(read, relay) as expanded,
        ):
            yield expanded, write
        return

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            headers=headers, timeout=timeout, auth=auth, event_hooks=hooks, transport=capped()
        )

    async with (
        sse_client(
            url,
            headers=all_headers,
            timeout=http_timeout,
            sse_read_timeout=_SSE_READ_TIMEOUT,
            httpx_client_factory=factory,
        ) as (read, write),
        _relayed(read, relay) as expanded,
    ):
        yield expanded, write


@asynccontextmanager
async def _relayed(
    read: ReadStream[SessionMessage | Exception], relay: BatchRelay
) -> AsyncIterator[ReadStream[SessionMessage | Exception]]:
    """The SDK's read stream with each relayed batch's notice replaced by its messages."""
    sink, expanded = anyio.create_memory_object_stream[SessionMessage | Exception](0)

    async def pump() -> None:
        try:
            async with sink:
                async for item in read:
                    for out in relay.expand(item):
                        await sink.send(out)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            async with expanded:
                yield expanded
        finally:
            tg.cancel_scope.cancel()
