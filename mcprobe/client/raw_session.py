"""Raw JSON-RPC over any transport's stream pair, with everything odd the target does recorded.

``RawSession`` drives the SDK's ``JSONRPCDispatcher`` directly: every request we audit goes through
``send_raw_request``, so the JSON the target sent comes back untouched (unknown fields, schema
violations and all). It answers the target's own requests (``ping`` yes; roots, elicitation and
sampling as ``core.client_capabilities`` says when mcprobe declared that capability; anything
else no, with a JSON-RPC error), and turns the wire events a transport reports (garbage lines,
invalid or oversize replies) into session findings.

Why not ``ClientSession(dispatcher=...)``: mcprobe never uses the typed layer, and the session's
request handler answers unknown or invalid server requests before we can see them. Running the
dispatcher with our own handlers shows us every request the target makes.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
from mcp.shared.dispatcher import CallOptions, DispatchContext, coerce_request_id
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    CONNECTION_CLOSED,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCResponse,
    RequestId,
)

from mcprobe.client.modern_http import HeaderMaps, routing_headers
from mcprobe.client.streams import ReadStream, WriteStream
from mcprobe.client.wire_events import (
    BatchSeen,
    DeepMessage,
    InvalidReply,
    NotificationsSeen,
    OversizeReply,
    ProgressSeen,
    StdoutNoise,
    Unsendable,
)
from mcprobe.core.checks.progress import MAX_EVENTS, EventKind, ProgressEvent, ProgressTrace
from mcprobe.core.client_capabilities import SAMPLING_ERROR, answer_for, capability_of
from mcprobe.core.model import Finding, Location, Severity
from mcprobe.core.schema.json_depth import MAX_JSON_DEPTH, format_path, too_deep
from mcprobe.core.target_spec import scrub

__all__ = ["CallTrace", "RawSession", "RequestFailed", "open_raw_session"]

logger = logging.getLogger(__name__)

_MAX_ANOMALIES = 1024
_SDK_TOO_DEEP = "recursion limit exceeded"  # in the SDK's "Failed to parse JSON response: …"
BATCH_VERSION = "2025-03-26"
"""The one MCP revision that has JSON-RPC batches (added in it, removed in 2025-06-18)."""
NOTIFICATION_FLOOD = 10_000
"""More notifications than this in one session is a finding (nobody asked for them)."""


class RequestFailed(Exception):
    """A raw request did not produce a result. ``kind`` is ``"timeout"``, ``"lost"`` (transport
    closed, process died, invalid reply), ``"oversize"``, ``"too_deep"`` (nested beyond
    ``MAX_JSON_DEPTH``), ``"unsent"`` (mcprobe could not encode the request: nothing was sent),
    ``"not_jsonrpc"`` (HTTP: the reply was no JSON-RPC message, e.g. an HTML page) or
    ``"error"`` (a JSON-RPC error reply,
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


def _stamped(params: Mapping[str, Any] | None, envelope: Mapping[str, Any]) -> dict[str, Any]:
    stamped = dict(params or {})
    meta = stamped.get("_meta")
    stamped["_meta"] = {**envelope, **meta} if isinstance(meta, Mapping) else dict(envelope)
    return stamped


@dataclass
class _Count:
    count: int = 0
    first: str = ""


@dataclass
class _Waiting:
    """A request whose timeout progress may extend: each progress notification for its token
    moves the deadline to ``seconds`` from then, never past ``ceiling`` (absolute)."""

    scope: anyio.CancelScope
    seconds: float
    ceiling: float
    progressed: int = 0

    def extend(self) -> None:
        self.progressed += 1
        self.scope.deadline = min(self.ceiling, anyio.current_time() + self.seconds)


MAX_TRACES = 4096
"""Calls whose progress is recorded per session (a fuzz run makes far fewer)."""


@dataclass
class CallTrace:
    """The wire history of one call that carried a progressToken (``core.progress``)."""

    subject: str
    token: int
    events: list[ProgressEvent]
    dropped: int = 0
    wake: anyio.Event | None = None  # set on each event (the cancellation probe waits on it)
    probe: bool = False  # the cancellation probe's own call (never judged as a fuzz call's)

    def add(self, event: ProgressEvent) -> None:
        if self.wake is not None:
            self.wake.set()
        if event.kind is EventKind.PROGRESS and len(self.events) >= MAX_EVENTS:
            self.dropped += 1
            return
        self.events.append(event)

    async def beyond(self, count: int) -> None:
        """Wait until more than ``count`` events happened (bound it with a cancel scope)."""
        while len(self.events) + self.dropped <= count:
            self.wake = anyio.Event()
            await self.wake.wait()

    async def until(self, *kinds: EventKind) -> None:
        """Wait until one of ``kinds`` is among the events (bound it with a cancel scope)."""
        while not any(self.has(kind) for kind in kinds):
            self.wake = anyio.Event()
            await self.wake.wait()

    def has(self, kind: EventKind) -> bool:
        return any(e.kind is kind for e in self.events)


def _timeout_detail(
    method: str, seconds: float | None, waiting: _Waiting | None, started: float
) -> str:
    if waiting is None or not waiting.progressed:
        return f"no answer to {method} within {seconds} s"
    waited = anyio.current_time() - started
    ceiling = waiting.ceiling - started
    why = (
        f"the ceiling of {ceiling:g} s"
        if waiting.scope.deadline >= waiting.ceiling
        else (f"{seconds} s without progress")
    )
    return (
        f"no answer to {method} within {waited:.1f} s ({waiting.progressed} progress "
        f"notification(s) extended the {seconds} s timeout until {why})"
    )


class RawSession:
    """One JSON-RPC conversation with a target. Build it with ``open_raw_session``."""

    def __init__(
        self,
        dispatcher: JSONRPCDispatcher[Any],
        *,
        secrets: tuple[str, ...],
        declared: tuple[str, ...] = (),
    ) -> None:
        self._dispatcher = dispatcher
        self._secrets = secrets
        self._declared = declared
        self.served: dict[str, int] = {}  # requests of declared capabilities, answered
        self._next_id = 0
        self._anomalies: dict[RequestId, RequestFailed] = {}
        self._noise = _Count()
        self._unexpected: dict[str, int] = {}
        self._invalid = _Count()
        self._oversize = _Count()
        self._deep = _Count()
        self._batches = _Count()
        # Reply-id bookkeeping: which ids are awaiting an answer, which were answered, and the
        # replies that matched neither (an id never issued, or a second answer to one id).
        self._waiting: set[RequestId] = set()
        self._answered: set[RequestId] = set()
        self._unknown_id = _Count()
        self._duplicate = _Count()
        self._notifications: dict[str, int] = {}
        self._progress: dict[RequestId, _Waiting] = {}
        self._traces: dict[RequestId, CallTrace] = {}
        self._barriers: dict[RequestId, RequestId] = {}  # request id → the trace it marks
        self.foreign_progress = _Count()  # progress naming a token no request carried
        self.ordered = False  # one ordered stream for replies and notifications (stdio)
        self.stream_closed = False
        self.protocol_version: str | None = None
        self.send_version_header = False
        # 2026-07-28 (modern era): the per-request `_meta` envelope stamped on every request;
        # keys a caller already put in `params._meta` win (the unsupported-version check).
        self.envelope: dict[str, Any] | None = None
        # 2026-07-28 over HTTP: every POST carries routing headers (``target.modern_http``);
        # ``modern_headers`` is set by the connection for that era, with the tools' maps.
        self.modern_headers = False
        self.header_maps: HeaderMaps = {}
        # Post-hoc size cap, for transports that cannot check sizes while reading.
        self.max_result_bytes: int | None = None
        # HTTP: why the reply to a request id was no JSON-RPC message (``HttpLog.reply_fault``);
        # the SDK hands such a call an error code nobody sent, which must not be taken for one.
        self.reply_fault: Callable[[RequestId], str | None] | None = None

    # ---------------------------------------------------------------- requests

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        *,
        seconds: float | None = None,
        cancel_on_abandon: bool = True,
        progress_ceiling: float | None = None,
        barrier_for: int | None = None,
        on_trace: Callable[[CallTrace], None] | None = None,
    ) -> dict[str, Any]:
        """Send one raw request; return the raw result dict or raise ``RequestFailed``.

        With ``progress_ceiling`` (seconds from now, at least ``seconds``) the request carries a
        ``progressToken`` (its id), and each ``notifications/progress`` for that token gives it
        ``seconds`` more from then, never past the ceiling (the SDKs' reset-timeout-on-progress
        with a hard maximum). Giving up on a request (its timeout, or the caller's cancellation)
        sends ``notifications/cancelled`` for it (the dispatcher's courtesy cancel), unless
        ``cancel_on_abandon`` is False (``initialize`` must not be cancelled). Such a request's
        progress and response are recorded in wire order (``progress_traces``); the answer to a
        request sent with ``barrier_for`` (the token of such a call) is marked in that call's
        trace as the barrier of the cancellation probe. ``on_trace`` gets this request's own
        trace when it is made (other calls may be traced at the same time)."""
        self._next_id += 1
        rid = self._next_id
        if barrier_for is not None:
            self._barriers[rid] = barrier_for
        opts: CallOptions = {"request_id": rid, "cancel_on_abandon": cancel_on_abandon}
        if self.envelope is not None:
            params = _stamped(params, self.envelope)
        if self.send_version_header and self.protocol_version:
            opts["headers"] = {"mcp-protocol-version": self.protocol_version}
            if self.modern_headers:
                opts["headers"] = routing_headers(
                    method, params, self.protocol_version, self.header_maps
                )
        result: dict[str, Any] | None = None
        self._waiting.add(rid)
        started = anyio.current_time()
        scope = anyio.CancelScope(deadline=started + (math.inf if seconds is None else seconds))
        waiting: _Waiting | None = None
        if progress_ceiling is not None and seconds is not None:
            meta = (params or {}).get("_meta")
            meta = dict(meta) if isinstance(meta, Mapping) else {}  # keep a 2026-07-28 envelope
            params = {**(params or {}), "_meta": {**meta, "progressToken": rid}}
            waiting = _Waiting(scope, seconds, started + max(seconds, progress_ceiling))
            self._progress[rid] = waiting
            if len(self._traces) < MAX_TRACES:
                name = params.get("name")
                subject = name[:100] if isinstance(name, str) else method
                trace = self._traces[rid] = CallTrace(subject, rid, [])
                if on_trace is not None:
                    on_trace(trace)
        try:
            with scope:
                result = await self._send(rid, method, params, opts)
        finally:
            self._progress.pop(rid, None)
            self._waiting.discard(rid)
        if result is None:
            if self.stream_closed:
                raise RequestFailed("lost", "connection closed")
            raise RequestFailed("timeout", _timeout_detail(method, seconds, waiting, started))
        anomaly = self._anomalies.pop(rid, None)
        if anomaly is not None:
            raise anomaly
        if self.max_result_bytes is not None:
            # Transports that parse for us (HTTP: the SDK) get the same depth limit after the
            # fact; stdio checks it on the bytes. Before ``json.dumps``, which recurses.
            path = too_deep(result, MAX_JSON_DEPTH - 1)
            if path is not None:
                where = format_path(("result", *path))
                self._note_deep(where)
                raise RequestFailed(
                    "too_deep", f"message nests deeper than {MAX_JSON_DEPTH} levels at {where}"
                )
            size = len(json.dumps(result, separators=(",", ":"), default=str))
            if size > self.max_result_bytes:
                self._note_oversize(size, self.max_result_bytes)
                limit = self.max_result_bytes
                raise RequestFailed(
                    "oversize", f"response of {size} bytes exceeds the {limit}-byte cap"
                )
        return result

    async def _send(
        self, rid: int, method: str, params: Mapping[str, Any] | None, opts: CallOptions
    ) -> dict[str, Any]:
        try:
            return await self._dispatcher.send_raw_request(method, params, opts)
        except MCPError as exc:
            anomaly = self._anomalies.pop(rid, None)
            if anomaly is not None:
                raise anomaly from None
            if exc.code == CONNECTION_CLOSED and self.stream_closed:
                raise RequestFailed("lost", "connection closed") from None
            if exc.code == PARSE_ERROR and _SDK_TOO_DEEP in str(exc.message):
                # The SDK's HTTP client could not parse the reply: jiter's own depth limit.
                where = "a level beyond the SDK parser's limit (about 200)"
                self._note_deep(where)
                raise RequestFailed(
                    "too_deep", f"message nests deeper than {MAX_JSON_DEPTH} levels ({where})"
                ) from None
            fault = self.reply_fault(rid) if self.reply_fault is not None else None
            if fault is not None:  # the SDK's stand-in for a reply that was no JSON-RPC at all
                raise RequestFailed("not_jsonrpc", scrub(fault, self._secrets)) from None
            raise RequestFailed(
                "error",
                f"JSON-RPC error {exc.code}",
                code=exc.code,
                message=scrub(str(exc.message), self._secrets),
                data=exc.data,
            ) from None

    def trace_progress(self, token: object, params: Mapping[str, Any]) -> None:
        """A ``notifications/progress``, in wire order: an event of the call it names, or a
        token no request of ours carried."""
        trace = None
        if not isinstance(token, bool) and isinstance(token, str | int):
            trace = self._traces.get(coerce_request_id(token))
        if trace is None:
            self._bump(self.foreign_progress, json.dumps(token, default=str)[:40])
            return
        trace.add(
            ProgressEvent(
                EventKind.PROGRESS,
                progress=params.get("progress"),
                total=params.get("total"),
                has_total="total" in params,
                token=token,
            )
        )

    def mark(self, token: RequestId, kind: EventKind) -> None:
        trace = self._traces.get(token)
        if trace is not None:
            trace.add(ProgressEvent(kind))

    def progress_traces(self) -> tuple[ProgressTrace, ...]:
        return tuple(self.frozen_trace(t) for t in self._traces.values())

    def frozen_trace(self, trace: CallTrace) -> ProgressTrace:
        return ProgressTrace(
            trace.subject,
            trace.token,
            tuple(trace.events),
            self.ordered,
            trace.dropped,
            probe=trace.probe,
        )

    def _progressed(self, token: object) -> None:
        """A ``notifications/progress`` named ``token``: extend the request it belongs to."""
        if isinstance(token, bool) or not isinstance(token, str | int):
            return
        waiting = self._progress.get(coerce_request_id(token))
        if waiting is not None:
            waiting.extend()

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
        capability = capability_of(method)
        if capability is not None and capability in self._declared:
            self.served[method] = self.served.get(method, 0) + 1
            answer = answer_for(method)
            if answer is None:
                raise MCPError(code=SAMPLING_ERROR[0], message=SAMPLING_ERROR[1])
            return answer
        key = method[:100]
        if key in self._unexpected or len(self._unexpected) < 20:
            self._unexpected[key] = self._unexpected.get(key, 0) + 1
        raise MCPError(
            code=METHOD_NOT_FOUND,
            message=f"mcprobe did not declare a client capability for {key!r}",
        )

    async def _on_notify(
        self, dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> None:
        self._count_notifications({method[:100]: 1})
        if method == "notifications/progress" and params is not None:
            self._progressed(params.get("progressToken"))
        await anyio.lowlevel.checkpoint()

    def notifications_total(self) -> int:
        return sum(self._notifications.values())

    def notifications_seen(self, method: str) -> int:
        """How many ``method`` notifications the target sent in this session so far."""
        return self._notifications.get(method, 0)

    def _count_notifications(self, counts: Mapping[str, int]) -> None:
        for method, count in counts.items():
            if method in self._notifications or len(self._notifications) < 50:
                self._notifications[method] = self._notifications.get(method, 0) + count

    async def _on_stream_exception(self, exc: Exception) -> None:
        if isinstance(exc, NotificationsSeen):
            self._count_notifications(exc.counts)
        elif isinstance(exc, ProgressSeen):
            for token in exc.tokens:
                self._progressed(token)
        elif isinstance(exc, BatchSeen):
            self._bump(self._batches, f"{exc.size} message(s)")
        elif isinstance(exc, StdoutNoise):
            self._bump(self._noise, exc.excerpt)
        elif isinstance(exc, InvalidReply):
            self._bump(self._invalid, exc.reason)
            self._note_anomaly(exc.request_id, RequestFailed("lost", exc.reason))
        elif isinstance(exc, DeepMessage):
            self._note_deep(exc.where)
            if exc.request_id is not None:
                self._note_anomaly(exc.request_id, RequestFailed("too_deep", f"{exc}; dropped"))
        elif isinstance(exc, OversizeReply):
            self.record_oversize(exc)
        elif isinstance(exc, Unsendable):
            self._note_anomaly(exc.request_id, RequestFailed("unsent", exc.reason))
        else:
            # Transports other than ours report undecodable messages as plain exceptions.
            self._bump(self._invalid, f"{type(exc).__name__}: {exc}")

    def record_oversize(self, exc: OversizeReply) -> None:
        """A reply over the size cap (stdio: on the wire; HTTP: ``http_cap``, after
        decompression): a finding, and the outcome of the request it answers."""
        self._note_oversize(exc.size, exc.limit)
        if exc.request_id is not None:
            self._note_anomaly(exc.request_id, RequestFailed("oversize", str(exc)))

    def observe_reply(self, request_id: RequestId | None) -> bool:
        """Called for every reply on the wire before the dispatcher matches it; True when it
        answers a request still waiting, by the exact id (value *and* type: mcprobe's ids are
        integers, so ``"7"`` never answers request ``7``, although the SDK's dispatcher would
        coerce it). Every other reply is counted (an id never issued, a second answer to one id)
        and must not reach the dispatcher. Late answers to abandoned requests are fine."""
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            if request_id is not None:
                self._bump(self._unknown_id, f"id {json.dumps(request_id)[:40]}")
            return False
        self.mark(request_id, EventKind.RESPONSE)  # a call with a trace (even if abandoned)
        barrier = self._barriers.pop(request_id, None)
        if barrier is not None:
            self.mark(barrier, EventKind.BARRIER)
        if request_id in self._waiting:
            self._waiting.discard(request_id)
            if len(self._answered) < 100_000:
                self._answered.add(request_id)
            return True
        if request_id in self._answered:
            self._bump(self._duplicate, f"id {json.dumps(request_id)[:40]}")
        elif not 0 < request_id <= self._next_id:
            self._bump(self._unknown_id, f"id {json.dumps(request_id)[:40]}")
        return False

    def _note_anomaly(self, request_id: RequestId, failure: RequestFailed) -> None:
        # Bounded: a hostile target could name ids we never issued, forever.
        if len(self._anomalies) < _MAX_ANOMALIES:
            self._anomalies[request_id] = failure

    def _note_deep(self, where: str) -> None:
        self._bump(self._deep, where)

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
                    f"the target sent {count} {method!r} request(s) although the client did not "
                    "declare the capability it needs; declined with a JSON-RPC error",
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
        if self._unknown_id.count:
            out.append(
                Finding(
                    "server.unknown_reply_id",
                    Severity.ERROR,
                    f"the target sent {self._unknown_id.count} reply(ies) with an id mcprobe "
                    f"never used (first: {self._unknown_id.first}); the request they were meant "
                    "for could only time out",
                    Location(),
                    "echo the request's id exactly (same value and type) in its response",
                )
            )
        if self._duplicate.count:
            out.append(
                Finding(
                    "server.duplicate_reply",
                    Severity.ERROR,
                    f"the target answered {self._duplicate.count} request(s) more than once "
                    f"(first: {self._duplicate.first}); the extra replies were ignored",
                    Location(),
                    "send exactly one response per request",
                )
            )
        if self._batches.count and self.protocol_version != BATCH_VERSION:
            out.append(
                Finding(
                    "server.jsonrpc_batch",
                    Severity.WARNING,
                    f"the target sent {self._batches.count} JSON-RPC batch(es) (first: "
                    f"{self._batches.first}) under protocol version "
                    f"{scrub(str(self.protocol_version), self._secrets)[:40]}, which does not "
                    f"allow them (only {BATCH_VERSION} did); mcprobe handled each message",
                    Location(),
                    "send one JSON-RPC message per line; batches exist only in MCP 2025-03-26",
                )
            )
        total = sum(self._notifications.values())
        if total > NOTIFICATION_FLOOD:
            top = sorted(self._notifications.items(), key=lambda item: (-item[1], item[0]))[:3]
            methods = ", ".join(f"{scrub(m, self._secrets)!r}: {n}" for m, n in top)
            out.append(
                Finding(
                    "server.notification_flood",
                    Severity.WARNING,
                    f"the target sent {total} notifications although mcprobe asked for none "
                    f"but progress on its own calls ({methods})",
                    Location(),
                    "send progress only for requests that carry a progressToken, and log "
                    "messages only at the level the client set (logging/setLevel)",
                )
            )
        if self._deep.count:
            out.append(
                Finding(
                    "server.deep_nesting",
                    Severity.ERROR,
                    f"the target sent {self._deep.count} message(s) nested deeper than "
                    f"{MAX_JSON_DEPTH} levels (first at {self._deep.first}); they were dropped "
                    "and the session went on",
                    Location(),
                    "keep JSON shallow: no real tool, schema or result needs that many levels; "
                    "look for a recursive structure serialised without a bound",
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
                if isinstance(item, ProgressSeen):
                    for token, params in item.records:
                        session.trace_progress(token, params)
                elif isinstance(item, Exception):
                    pass
                elif isinstance(item.message, JSONRPCResponse | JSONRPCError):
                    if not session.observe_reply(item.message.id):
                        continue  # answers no waiting request: never a call's answer
                elif (
                    isinstance(item.message, JSONRPCNotification)
                    and item.message.method == "notifications/progress"
                    and isinstance(item.message.params, dict)
                ):
                    params = item.message.params
                    session.trace_progress(params.get("progressToken"), params)
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
    declared: tuple[str, ...] = (),
) -> AsyncIterator[RawSession]:
    """Run a dispatcher over a transport's streams for the duration of the context;
    ``declared`` are the client capabilities mcprobe declared (their requests are answered)."""
    sink, dispatcher_read = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(dispatcher_read, write_stream)
    session = RawSession(dispatcher, secrets=secrets, declared=declared)
    dispatcher.on_stream_exception = session._on_stream_exception
    async with anyio.create_task_group() as tg:
        tg.start_soon(_forward, read_stream, sink, session)
        await tg.start(dispatcher.run, session._on_request, session._on_notify)
        try:
            yield session
        finally:
            tg.cancel_scope.cancel()
