"""Raw JSON-RPC over any transport's stream pair, with everything odd the target does recorded.

``RawSession`` drives the SDK's ``JSONRPCDispatcher`` directly: every request we audit goes through
``send_raw_request``, so the JSON the target sent comes back untouched (unknown fields, schema
violations and all). It answers the target's own requests (``ping`` yes; sampling, elicitation,
roots and anything else no, with a JSON-RPC error, because mcprobe declares no client
capabilities), and turns the wire events a transport reports (garbage lines, invalid or oversize
replies) into session findings.

Why not ``ClientSession(dispatcher=...)``: mcprobe never uses the typed layer, and the session's
request handler answers unknown or invalid server requests before we can see them. Running the
dispatcher with our own handlers shows us every request the target makes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
from mcp import MCPError
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.dispatcher import CallOptions, DispatchContext
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import CONNECTION_CLOSED, METHOD_NOT_FOUND, RequestId

from mcprobe.model import Finding, Location, Severity
from mcprobe.target_spec import scrub
from mcprobe.wire_events import InvalidReply, OversizeReply, StdoutNoise

__all__ = ["RawSession", "RequestFailed", "open_raw_session"]

logger = logging.getLogger(__name__)

_MAX_ANOMALIES = 1024


class RequestFailed(Exception):
    """A raw request did not produce a result. ``kind`` is ``"timeout"``, ``"lost"`` (transport
    closed, process died, invalid reply), ``"oversize"`` or ``"error"`` (a JSON-RPC error reply,
    with ``code``/``message``/``data``)."""

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        code: int | None = None,
        message: str | None = None,
        data: Any = None,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.code = code
        self.message = message
        self.data = data


@dataclass
class _Count:
    count: int = 0
    first: str = ""


class RawSession:
    """One JSON-RPC conversation with a target. Build it with ``open_raw_session``."""

    def __init__(self, dispatcher: JSONRPCDispatcher[Any], *, secrets: tuple[str, ...]) -> None:
        self._dispatcher = dispatcher
        self._secrets = secrets
        self._next_id = 0
        self._anomalies: dict[RequestId, RequestFailed] = {}
        self._noise = _Count()
        self._unexpected: dict[str, int] = {}
        self._invalid = _Count()
        self._oversize = _Count()
        self.stream_closed = False
        self.protocol_version: str | None = None
        self.send_version_header = False
        # Post-hoc size cap, for transports that cannot check sizes while reading.
        self.max_result_bytes: int | None = None

    # ---------------------------------------------------------------- requests

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        *,
        seconds: float | None = None,
        cancel_on_abandon: bool = True,
    ) -> dict[str, Any]:
        """Send one raw request; return the raw result dict or raise ``RequestFailed``."""
        self._next_id += 1
        rid = self._next_id
        opts: CallOptions = {"request_id": rid, "cancel_on_abandon": cancel_on_abandon}
        if self.send_version_header and self.protocol_version:
            opts["headers"] = {"mcp-protocol-version": self.protocol_version}
        result: dict[str, Any] | None = None
        with anyio.move_on_after(seconds if seconds is not None else float("inf")):
            try:
                result = await self._dispatcher.send_raw_request(method, params, opts)
            except MCPError as exc:
                anomaly = self._anomalies.pop(rid, None)
                if anomaly is not None:
                    raise anomaly from None
                if exc.code == CONNECTION_CLOSED and self.stream_closed:
                    raise RequestFailed("lost", "connection closed") from None
                raise RequestFailed(
                    "error",
                    f"JSON-RPC error {exc.code}",
                    code=exc.code,
                    message=scrub(str(exc.message), self._secrets),
                    data=exc.data,
                ) from None
        if result is None:
            if self.stream_closed:
                raise RequestFailed("lost", "connection closed")
            raise RequestFailed("timeout", f"no answer to {method} within {seconds} s")
        anomaly = self._anomalies.pop(rid, None)
        if anomaly is not None:
            raise anomaly
        if self.max_result_bytes is not None:
            size = len(json.dumps(result, separators=(",", ":"), default=str))
            if size > self.max_result_bytes:
                self._note_oversize(size, self.max_result_bytes)
                limit = self.max_result_bytes
                raise RequestFailed(
                    "oversize", f"response of {size} bytes exceeds the {limit}-byte cap"
                )
        return result

    async def notify(self, method: str, params: Mapping[str, Any] | None) -> None:
        opts: CallOptions = {}
        if self.send_version_header and self.protocol_version:
            opts["headers"] = {"mcp-protocol-version": self.protocol_version}
        await self._dispatcher.notify(method, params, opts)

    # ---------------------------------------------------------------- the target's side

    async def _on_request(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if method == "ping":
            return {}
        key = method[:100]
        if key in self._unexpected or len(self._unexpected) < 20:
            self._unexpected[key] = self._unexpected.get(key, 0) + 1
        raise MCPError(
            code=METHOD_NOT_FOUND,
            message=f"mcprobe declares no client capabilities; {key!r} is not supported",
        )

    async def _on_notify(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> None:
        await anyio.lowlevel.checkpoint()

    async def _on_stream_exception(self, exc: Exception) -> None:
        if isinstance(exc, StdoutNoise):
            self._bump(self._noise, exc.excerpt)
        elif isinstance(exc, InvalidReply):
            self._bump(self._invalid, exc.reason)
            self._note_anomaly(exc.request_id, RequestFailed("lost", exc.reason))
        elif isinstance(exc, OversizeReply):
            self._note_oversize(exc.size, exc.limit)
            if exc.request_id is not None:
                self._note_anomaly(exc.request_id, RequestFailed("oversize", str(exc)))
        else:
            # Transports other than ours report undecodable messages as plain exceptions.
            self._bump(self._invalid, f"{type(exc).__name__}: {exc}")

    def _note_anomaly(self, request_id: RequestId, failure: RequestFailed) -> None:
        # Bounded: a hostile target could name ids we never issued, forever.
        if len(self._anomalies) < _MAX_ANOMALIES:
            self._anomalies[request_id] = failure

    def _note_oversize(self, size: int, limit: int) -> None:
        self._bump(self._oversize, f"{size} bytes (cap {limit})")

    def _bump(self, counter: _Count, text: str) -> None:
        counter.count += 1
        if not counter.first:
            counter.first = scrub(text[:200], self._secrets)

    # ---------------------------------------------------------------- findings

    def findings(self) -> tuple[Finding, ...]:
        """Server-level findings observed so far, secrets scrubbed, in a stable order."""
        out: list[Finding] = []
        if self._noise.count:
            out.append(
                Finding(
                    "server.stdout_noise",
                    Severity.WARNING,
                    f"the target wrote {self._noise.count} non-JSON-RPC line(s) on stdout "
                    f"(first: {self._noise.first!r})",
                    Location(),
                    "write logs to stderr; stdout is reserved for JSON-RPC messages on stdio",
                )
            )
        for method, count in sorted(self._unexpected.items()):
            out.append(
                Finding(
                    "server.unexpected_request",
                    Severity.WARNING,
                    f"the target sent {count} {method!r} request(s) although the client declared "
                    "no capabilities; declined with a JSON-RPC error",
                    Location(),
                    "only send sampling, elicitation or roots requests to clients that declare "
                    "the capability in initialize",
                )
            )
        if self._invalid.count:
            out.append(
                Finding(
                    "server.invalid_message",
                    Severity.ERROR,
                    f"the target sent {self._invalid.count} invalid JSON-RPC message(s) "
                    f"(first: {self._invalid.first})",
                    Location(),
                    "every reply must be a JSON-RPC 2.0 response with an object result or an "
                    "error {code, message}",
                )
            )
        if self._oversize.count:
            out.append(
                Finding(
                    "server.oversize_message",
                    Severity.WARNING,
                    f"the target sent {self._oversize.count} message(s) over the size cap "
                    f"(first: {self._oversize.first}); they were dropped unread",
                    Location(),
                    "keep tool results small; page or summarise large data",
                )
            )
        return tuple(out)


async def _forward(
    source: ReadStream[SessionMessage | Exception],
    sink: anyio.abc.ObjectSendStream[SessionMessage | Exception],
    session: RawSession,
) -> None:
    """Copy the transport's read stream to the dispatcher's, noting when it ends: a closed stream
    tells a genuine -32000 error reply apart from the dispatcher's own "connection closed"."""
    try:
        async with sink:
            async for item in source:
                await sink.send(item)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        session.stream_closed = True


@asynccontextmanager
async def open_raw_session(
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
    *,
    secrets: tuple[str, ...],
) -> AsyncIterator[RawSession]:
    """Run a dispatcher over a transport's streams for the duration of the context."""
    sink, dispatcher_read = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(dispatcher_read, write_stream)
    session = RawSession(dispatcher, secrets=secrets)
    dispatcher.on_stream_exception = session._on_stream_exception
    async with anyio.create_task_group() as tg:
        tg.start_soon(_forward, read_stream, sink, session)
        await tg.start(dispatcher.run, session._on_request, session._on_notify)
        try:
            yield session
        finally:
            tg.cancel_scope.cancel()
