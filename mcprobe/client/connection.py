"""Open one target and speak raw JSON-RPC to it: ``open_target(spec)``.

Connect sequence (all bounded by the connect timeout): start the transport; raw ``initialize``
offering ``LATEST_HANDSHAKE_VERSION`` with the declared client capabilities;
``notifications/initialized``;
every ``tools/list`` page raw (``nextCursor`` followed, page cap, repeated-cursor detection); and
the ``prompts/list`` / ``resources/list`` counts when those capabilities are advertised. The
snapshot is built from the raw dicts, so one malformed tool never hides the others.

Everything that goes wrong while connecting becomes one ``ConnectFailed`` with a precise message
(never an ``ExceptionGroup``); once connected, ``TargetConnection.call_tool`` never raises for
anything the target does.
"""

from __future__ import annotations

import logging
import math
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    INVALID_REQUEST,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION
from pydantic import BaseModel, ValidationError

from mcprobe.client.cancel_probe import observe_cancellation
from mcprobe.client.modern_http import header_maps
from mcprobe.client.raw_session import (
    NOTIFICATION_FLOOD,
    RawSession,
    RequestFailed,
    open_raw_session,
)
from mcprobe.client.streams import ReadStream, WriteStream
from mcprobe.client.transports.http import HttpKind, HttpLog, open_http, status_phrase
from mcprobe.client.transports.sandbox import bwrap_problem, stopped_by
from mcprobe.client.transports.stdio import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_STDERR_TAIL_BYTES,
    StdioProcess,
    discard_started,
    open_stdio,
)
from mcprobe.core.calls.result_shape import version_problem
from mcprobe.core.checks.progress import CancelObservation, ProgressTrace
from mcprobe.core.client_capabilities import wire_capabilities
from mcprobe.core.errors import ConnectFailed, UsageError
from mcprobe.core.isolation import NOT_STARTED, Isolation
from mcprobe.core.model import (
    JSON,
    Finding,
    Location,
    RawCall,
    RawKind,
    RestartAttempt,
    ServerSnapshot,
    Severity,
)
from mcprobe.core.security.proofs import CanarySighting
from mcprobe.core.target_protocol import Era
from mcprobe.core.target_spec import TRANSPORTS_BY_NAME, TargetSpec, Wire, scrub
from mcprobe.core.version import __version__

__all__ = [
    "DEFAULT_PAGE_CAP",
    "PROGRESS_CEILING",
    "TOOLS_LIST_CHANGED",
    "WIRES",
    "TargetConnection",
    "WireProtocol",
    "first_wire",
    "open_target",
    "wire_protocol",
]

logger = logging.getLogger(__name__)

DEFAULT_PAGE_CAP = 100
TOOLS_LIST_CHANGED = "notifications/tools/list_changed"
PROGRESS_CEILING = 4
"""A ``tools/call`` carries a progressToken; each progress notification for it restarts its
per-call timeout, but the call never waits longer than this many per-call timeouts."""
_STDERR_QUOTE = 600

Phase = Literal["start", "initialize", "listing"]
Protocol = Literal["auto", "handshake", "modern"]


class _InitializeRefused(ConnectFailed):
    """initialize got a JSON-RPC error: with ``protocol="auto"``, worth trying 2026-07-28."""


class _NotStreamable(ConnectFailed):
    """The server refused Streamable HTTP at this URL (404/405 on POST): worth trying SSE."""


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


@dataclass
class _Attempt:
    """What one connection attempt learned, for error messages."""

    spec: TargetSpec
    kind: Wire
    budget: float
    phase: Phase = "start"
    process: StdioProcess | None = None
    http: HttpLog = field(default_factory=HttpLog)
    started: subprocess.Popen[bytes] | None = None
    offer: str = LATEST_HANDSHAKE_VERSION  # the protocolVersion initialize offers
    era: Era = "handshake"
    # The user chose protocol handshake (not a probe's own second connection): a refused
    # initialize then says how to reach a server that speaks only 2026-07-28.
    suggest_auto: bool = False

    @property
    def secrets(self) -> tuple[str, ...]:
        return self.spec.secret_values()

    def where(self) -> str:
        if wire_protocol(self.kind).has_process:
            return f"`{self.spec.command}`"
        return scrub(self.spec.url or "", self.secrets)

    def stderr_quote(self) -> str:
        if self.process is None:
            return ""
        tail = self.process.stderr_tail().strip()
        if not tail:
            return ""
        if len(tail) > _STDERR_QUOTE:
            tail = "…" + tail[-_STDERR_QUOTE:]
        return f"; stderr: {tail}"

    def fail(self, message: str, *, fallback: bool = False, refused: bool = False) -> ConnectFailed:
        cls = _NotStreamable if fallback else _InitializeRefused if refused else ConnectFailed
        tail = self.process.stderr_tail() if self.process is not None else ""
        return cls(scrub(message, self.secrets), stderr_tail=tail)

    def http_failure(self) -> ConnectFailed | None:
        failure = self.http.first_failure()
        if failure is None:
            redirect = self.http.last_redirect()
            if redirect is None:
                return None
            redirects = sum(1 for s in self.http.statuses if 300 <= s.status < 400)
            target = redirect.location or "?"
            if redirects > 1:
                return self.fail(
                    f"too many redirects from {self.where()} ({redirects}, the last to {target}): "
                    "probably a redirect loop"
                )
            return self.fail(
                f"HTTP {status_phrase(redirect.status)} from {self.where()} to {target} was not "
                "followed (only same-origin redirects that keep the method are); use that URL"
            )
        text = f"HTTP {status_phrase(failure.status)} from {self.where()}"
        if failure.status in (401, 403):
            scheme = failure.auth_scheme
            challenge = f" (WWW-Authenticate: {scheme} …)" if scheme else ""
            hint = "; check the bearer token or headers" if failure.status == 401 else ""
            return self.fail(f"{text}{challenge}: authentication failed{hint}")
        if self.era == "modern" and self.phase == "initialize" and 400 <= failure.status < 500:
            # The opening server/discover was refused at the HTTP level: a 2025 server answers
            # a request outside its sessions (or with a version header it does not know) so.
            return self.fail(
                f"{text} to server/discover: the server does not seem to speak 2026-07-28 "
                "(--protocol auto or handshake audits it in the handshake era)"
            )
        fallback = wire_protocol(self.kind).falls_back and self.http.rejects_streamable()
        return self.fail(text, fallback=fallback)

    def timed_out(self) -> ConnectFailed:
        seconds = f"{self.budget:.1f} s"
        if self.phase == "initialize":
            return self.fail(f"no answer to initialize within {seconds}{self.stderr_quote()}")
        if self.phase == "listing":
            return self.fail(f"no answer to tools/list within {seconds}{self.stderr_quote()}")
        return self.fail(f"no answer from {self.where()} within {seconds}")

    def translate(self, leaves: list[BaseException]) -> ConnectFailed:
        for leaf in leaves:
            if isinstance(leaf, ConnectFailed):
                return leaf
        http = self.http_failure()
        if http is not None:
            return http
        import httpx2  # loaded with any HTTP target; a stdio target pays it on failure only

        for leaf in leaves:
            if isinstance(leaf, httpx2.ConnectError):
                return self.fail(f"could not connect to {self.where()}: {leaf}")
            if isinstance(leaf, httpx2.TooManyRedirects):
                return self.fail(f"too many redirects from {self.where()}")
            if isinstance(leaf, httpx2.TimeoutException):
                return self.fail(f"HTTP timeout talking to {self.where()}")
            if isinstance(leaf, httpx2.HTTPError):
                return self.fail(f"HTTP error from {self.where()}: {type(leaf).__name__}: {leaf}")
        first = leaves[0] if leaves else None
        detail = f"{type(first).__name__}: {first}" if first is not None else "unknown error"
        return self.fail(f"could not connect to {self.where()}: {detail}{self.stderr_quote()}")


class TargetConnection:
    """A live, handshaken target. Satisfies ``mcprobe.core.target_protocol.RestartableTarget``.

    ``restart`` starts a fresh generation (process or HTTP session) from the same spec in the
    task group of the first one (so every generation is owned by a task that enters and leaves
    its own contexts) and swaps it in; the snapshot stays the one taken at connect time."""

    def __init__(
        self,
        spec: TargetSpec,
        session: RawSession,
        snapshot: ServerSnapshot,
        process: StdioProcess | None,
        *,
        transport: Wire,
        deadline: float | None,
        close_requested: anyio.Event | None = None,
        http_log: HttpLog | None = None,
        page_cap: int = DEFAULT_PAGE_CAP,
    ) -> None:
        self.spec = spec
        self.transport = transport
        self.era: Era = "modern" if session.envelope is not None else "handshake"
        self._session = session
        self._snapshot = snapshot
        self._process = process
        self._deadline = deadline
        self._close_requested = close_requested or anyio.Event()
        self._reopen: Callable[[], Awaitable[TargetConnection]] | None = None
        self._retired_findings: list[Finding] = []
        self._http_log = http_log
        # How the first generation ran (core/isolation.py); an HTTP target is never isolated.
        self.isolation: Isolation = (
            process.isolation
            if process is not None and process.isolation is not None
            else Isolation(spec.sandbox, False, reason=NOT_STARTED if process is None else "")
        )
        self._session_lost = False  # HTTP: the server no longer knows our session id
        self._page_cap = page_cap
        self._retired_notices: dict[str, int] = {}
        self._retired_traces: list[ProgressTrace] = []
        self._retired_foreign: tuple[int, str] = (0, "")
        self._retired_sightings: tuple[CanarySighting, ...] = ()

    async def restart(self) -> RestartAttempt:
        """Stop what is left of this generation (its owner kills the whole process group) and
        start a new one from the same spec; a failed start is reported, never raised."""
        started = anyio.current_time()
        if self._reopen is None:
            return RestartAttempt(0.0, error="this connection cannot be restarted")
        self._retired_findings.extend(self._session.findings())
        self._retired_traces.extend(self._session.progress_traces())
        count, first = self.foreign_progress()
        self._retired_foreign = (count, first)
        # Counted across generations: a list_changed before a crash still happened.
        count = self._session.notifications_seen(TOOLS_LIST_CHANGED)
        self._retired_notices[TOOLS_LIST_CHANGED] = (
            self._retired_notices.get(TOOLS_LIST_CHANGED, 0) + count
        )
        self._retired_sightings = self.canary_sightings()
        self._close_requested.set()
        try:
            fresh = await self._reopen()
        except ConnectFailed as failure:
            seconds = anyio.current_time() - started
            return RestartAttempt(seconds, error=str(failure), stderr_tail=failure.stderr_tail)
        self._session, self._process = fresh._session, fresh._process
        self._close_requested = fresh._close_requested
        self._http_log, self._session_lost = fresh._http_log, False
        return RestartAttempt(anyio.current_time() - started)

    def _close(self) -> None:
        self._close_requested.set()

    def close_soon(self, eof_grace: float) -> None:
        """Nothing more is wanted from the target (the report is complete): on close, give a
        stdio target only ``eof_grace`` seconds to exit on stdin EOF before SIGTERM (the group
        is still killed whatever it does, so nothing is left running)."""
        if self._process is not None:
            self._process.eof_grace = min(self._process.eof_grace, eof_grace)

    @property
    def snapshot(self) -> ServerSnapshot:
        return self._snapshot

    @property
    def pid(self) -> int | None:
        """The target process id (= its process group id), stdio only."""
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        if self._process is not None and not self._process.alive:
            return False
        return not self._session.stream_closed and not self._session_lost

    def session_findings(self) -> tuple[Finding, ...]:
        return (*self._retired_findings, *self._session.findings())

    def stderr_tail(self) -> str:
        return self._process.stderr_tail() if self._process is not None else ""

    def canary_sightings(self) -> tuple[CanarySighting, ...]:
        """Where the transport saw the canary outside tool answers (stdio; every generation)."""
        current = self._process.canary.sightings if self._process is not None else ()
        return tuple(dict.fromkeys((*self._retired_sightings, *current)))

    def notifications_seen(self, method: str) -> int:
        """``method`` notifications received so far, from every generation of the target."""
        return self._retired_notices.get(method, 0) + self._session.notifications_seen(method)

    def progress_traces(self) -> tuple[ProgressTrace, ...]:
        """The wire history (progress, response) of every tools/call so far, every generation."""
        return (*self._retired_traces, *self._session.progress_traces())

    def foreign_progress(self) -> tuple[int, str]:
        """Progress notifications naming a token no request carried: how many, the first."""
        count, first = self._retired_foreign
        seen = self._session.foreign_progress
        return count + seen.count, first or seen.first

    async def observe_cancellation(
        self, name: str, arguments: JSON, *, by_progress: bool, expected: float, budget: float
    ) -> CancelObservation:
        """Cancel a call to ``name`` in flight and watch (``target.cancel_probe``); stdio only."""
        if self._deadline is not None:
            budget = min(budget, self._deadline - anyio.current_time())
        flood = self._session.notifications_total()
        if not wire_protocol(self.transport).ordered:
            why = (
                "over HTTP the cancellation and the call's stream are separate connections, so "
                "their order cannot be shown"
            )
        elif flood > NOTIFICATION_FLOOD:
            why = f"the target sent {flood} notifications; mcprobe does not call it again"
        elif not self.alive or budget <= 1.0:
            why = "no time or no connection left for it"
        else:
            why = ""
        if why:
            return CancelObservation(None, reason=why)
        return await observe_cancellation(
            self._session,
            name,
            arguments,
            by_progress=by_progress,
            expected=expected,
            budget=budget,
            modern=self.era == "modern",
        )

    async def relist_tools(self) -> tuple[Any, ...] | None:
        """Every ``tools/list`` page again, raw, with the page cap of the first listing (for the
        rug-pull diff); None when the target is gone, the list fails or the call limit passes."""
        limit = self.spec.call_timeout
        if self._deadline is not None:
            limit = min(limit, self._deadline - anyio.current_time())
        if not self.alive or limit <= 0:
            return None
        with anyio.move_on_after(limit):
            try:
                tools = await _list_all(self._session, "tools/list", "tools", self._page_cap, [])
            except RequestFailed:
                return None
            return tuple(tools) if tools is not None else None
        return None

    def served_requests(self) -> dict[str, int]:
        """Requests of declared client capabilities the target made, answered (method: count)."""
        return dict(self._session.served)

    def _lost(self) -> str:
        if self._process is not None and self._process.returncode is not None:
            code = self._process.returncode
            why = stopped_by(code, self.isolation, self._process.stderr_tail())
            return f"target exited with code {code}{why}"
        return "connection closed"

    async def request(self, method: str, params: JSON, *, timeout: float | None = None) -> RawCall:
        """Send any raw request (resources, prompts, protocol probes) and report what happened
        as a ``RawCall``; like ``call_tool``, never raises for anything the target does."""
        limit = self.spec.call_timeout if timeout is None else timeout
        if self._deadline is not None:
            remaining = self._deadline - anyio.current_time()
            if remaining <= 0:
                return RawCall(RawKind.NOT_RUN, detail="the audit deadline was reached")
            limit = min(limit, remaining)
        if not self.alive:
            return RawCall(RawKind.NOT_RUN, detail=f"not sent: {self._lost()}")
        started = anyio.current_time()
        try:
            result = await self._session.request(method, params, seconds=limit)
        except RequestFailed as failure:
            latency = (anyio.current_time() - started) * 1000
            if failure.kind == "lost" and self._process is not None:
                await self._process.wait_exit(0.3)
            return self._failed_call(failure, latency)
        except Exception as exc:  # a transport fault the SDK let through: the session is gone
            latency = (anyio.current_time() - started) * 1000
            detail = scrub(f"{type(exc).__name__}: {exc}", self.spec.secret_values())
            return RawCall(RawKind.TRANSPORT_LOST, latency_ms=latency, detail=detail)
        latency = (anyio.current_time() - started) * 1000
        return RawCall(RawKind.RESULT, latency_ms=latency, result=result)

    async def list_all(
        self, method: str, key: str, *, page_cap: int = DEFAULT_PAGE_CAP
    ) -> tuple[list[JSON] | None, tuple[Finding, ...]]:
        """Every page of a paginated list with the same caps and cursor checks as tools/list:
        the raw items (None when the first page failed) and the findings about the paging."""
        findings: list[Finding] = []
        budget = self.spec.call_timeout * 3  # the whole listing; one page is usually instant
        if self._deadline is not None:
            budget = min(budget, max(0.0, self._deadline - anyio.current_time()))
        items: list[JSON] | None = None
        with anyio.move_on_after(budget) as scope:
            try:
                items = await _list_all(self._session, method, key, page_cap, findings)
            except RequestFailed:
                return None, tuple(findings)
        if scope.cancelled_caught:
            findings.append(
                _finding(
                    "server.invalid_list_page",
                    Severity.ERROR,
                    f"{method} did not finish within {budget:.1f} s",
                    f"answer every {method} page promptly",
                )
            )
            return None, tuple(findings)
        return items, tuple(findings)

    async def call_tool(  # the Target protocol names the per-call limit `timeout`
        self,
        name: str,
        arguments: JSON,
        *,
        timeout: float | None = None,
    ) -> RawCall:
        limit = self.spec.call_timeout if timeout is None else timeout
        ceiling = PROGRESS_CEILING * limit  # progress may extend the call this far, no further
        if self._deadline is not None:
            remaining = self._deadline - anyio.current_time()
            if remaining <= 0:
                return RawCall(RawKind.NOT_RUN, detail="the audit deadline was reached")
            limit, ceiling = min(limit, remaining), min(ceiling, remaining)
        if not self.alive:
            return RawCall(RawKind.TRANSPORT_LOST, detail=f"not sent: {self._lost()}")
        started = anyio.current_time()
        try:
            result = await self._session.request(
                "tools/call",
                {"name": name, "arguments": arguments},
                seconds=limit,
                progress_ceiling=ceiling,
            )
        except RequestFailed as failure:
            latency = (anyio.current_time() - started) * 1000
            process = self._process
            # stdout EOF usually beats the exit status by a few ms; wait for it to name it, and
            # for the rest of its stderr (the reason it died, to be quoted).
            if failure.kind == "lost" and process is not None and await process.wait_exit(0.3):
                await process.wait_stderr(0.3)
            return self._failed_call(failure, latency)
        except Exception as exc:  # a transport fault the SDK let through: the session is gone
            latency = (anyio.current_time() - started) * 1000
            detail = scrub(f"{type(exc).__name__}: {exc}", self.spec.secret_values())
            return RawCall(RawKind.TRANSPORT_LOST, latency_ms=latency, detail=detail)
        latency = (anyio.current_time() - started) * 1000
        return RawCall(RawKind.RESULT, latency_ms=latency, result=result)

    def _lost_session(self, failure: RequestFailed) -> bool:
        """The SDK's HTTP client turns a 404 to a request that carries a session id into a
        JSON-RPC error -32600 "Session terminated" (MCP: the client must start a new session).
        It is the session that is gone, not a rejection of the call; a server that merely sends
        such an error (with no 404 on the wire) is not mistaken for it."""
        return (
            self._http_log is not None
            and failure.code == INVALID_REQUEST
            and failure.message == "Session terminated"
            and any(s.method == "POST" and s.status == 404 for s in self._http_log.statuses)
        )

    def _failed_call(self, failure: RequestFailed, latency: float) -> RawCall:
        if failure.kind == "timeout":
            if not self.alive:
                return RawCall(RawKind.TRANSPORT_LOST, latency_ms=latency, detail=self._lost())
            return RawCall(RawKind.TIMEOUT, latency_ms=latency, detail=failure.detail)
        if failure.kind == "lost":
            detail = self._lost() if failure.detail == "connection closed" else failure.detail
            return RawCall(RawKind.TRANSPORT_LOST, latency_ms=latency, detail=detail)
        if failure.kind == "not_jsonrpc":  # a protocol fault of this call, no error code
            return RawCall(RawKind.JSONRPC_ERROR, latency_ms=latency, detail=failure.detail)
        if failure.kind == "unsent":  # mcprobe's own encoding failure: never the target's fault
            return RawCall(RawKind.NOT_RUN, latency_ms=latency, detail=failure.detail)
        if failure.kind in ("oversize", "too_deep"):
            # The reply arrived but was too large (or too deep) to keep; deliberately dropped.
            return RawCall(RawKind.RESULT, latency_ms=latency, result=None, detail=failure.detail)
        if self._lost_session(failure):
            self._session_lost = True
            detail = "HTTP session lost: the server answered 404 to its session id"
            return RawCall(RawKind.TRANSPORT_LOST, latency_ms=latency, detail=detail)
        return RawCall(
            RawKind.JSONRPC_ERROR,
            latency_ms=latency,
            error_code=failure.code,
            error_message=failure.message,
            error_data=failure.data,
        )


# --------------------------------------------------------------------------- handshake


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _finding(code: str, severity: Severity, message: str, hint: str) -> Finding:
    return Finding(code, severity, message, Location(), hint)


async def _list_all(
    session: RawSession, method: str, key: str, page_cap: int, findings: list[Finding] | None
) -> list[Any] | None:
    """Every page of a paginated list, raw. ``findings`` is None for the counted lists (prompts,
    resources), whose problems are tolerated silently. Returns None if the first page failed."""
    items: list[Any] = []
    seen: set[str] = set()
    cursor: str | None = None
    pages = 0
    while True:
        if pages >= page_cap:
            if findings is not None:
                findings.append(
                    _finding(
                        "server.pagination_cap",
                        Severity.WARNING,
                        f"{method} was still returning nextCursor after {page_cap} pages; "
                        f"stopped listing with {len(items)} items",
                        "end pagination: omit nextCursor on the last page",
                    )
                )
            return items
        try:
            page = await session.request(method, {"cursor": cursor} if cursor is not None else {})
        except RequestFailed as failure:
            if failure.kind == "lost":
                raise
            if findings is not None and (pages > 0 or failure.kind != "error"):
                findings.append(
                    _finding(
                        "server.invalid_list_page",
                        Severity.ERROR,
                        f"{method} page {pages + 1} failed: {failure.detail}"
                        + (f" ({failure.message})" if failure.message else ""),
                        f"answer every {method} page with a valid result",
                    )
                )
            return items if pages else None
        pages += 1
        page_items = page.get(key)
        if not isinstance(page_items, list):
            if findings is not None:
                findings.append(
                    _finding(
                        "server.invalid_list_page",
                        Severity.ERROR,
                        f"{method} page {pages} has no {key!r} array",
                        f"return {{{key!r}: [...]}} from {method}",
                    )
                )
            return items
        items.extend(page_items)
        next_cursor = page.get("nextCursor")
        if next_cursor is None:
            return items
        if not isinstance(next_cursor, str):
            if findings is not None:
                findings.append(
                    _finding(
                        "server.invalid_list_page",
                        Severity.ERROR,
                        f"{method} page {pages} has a nextCursor that is not a string",
                        "nextCursor must be an opaque string, or absent on the last page",
                    )
                )
            return items
        if next_cursor in seen or next_cursor == cursor:
            if findings is not None:
                findings.append(
                    _finding(
                        "server.pagination_loop",
                        Severity.ERROR,
                        f"{method} returned a cursor it had already returned (page {pages}); "
                        f"stopped listing with {len(items)} items",
                        "every nextCursor must lead to a new page; omit it on the last page",
                    )
                )
            return items
        seen.add(next_cursor)
        cursor = next_cursor


async def _discover(session: RawSession, attempt: _Attempt) -> tuple[dict[str, Any], list[Finding]]:
    """The 2026-07-28 opening: ``server/discover`` under the per-request ``_meta`` envelope
    (protocol version, client info, no client capabilities: a modern server answers what it
    needs with an error instead of asking), which then goes on every request. Returns the
    result reshaped like an initialize result (capabilities, instructions, serverInfo from the
    ``_meta`` stamp), and the findings about its shape."""
    attempt.phase = "initialize"
    envelope = {
        PROTOCOL_VERSION_META_KEY: LATEST_MODERN_VERSION,
        CLIENT_INFO_META_KEY: {"name": "mcprobe", "version": __version__},
        CLIENT_CAPABILITIES_META_KEY: {},
    }
    # Over HTTP the version goes in the MCP-Protocol-Version header of every request, this one
    # included: the SDK's server routes a request without it (or with a handshake version) to
    # its 2025 session handler, which answers a server/discover outside a session with 400.
    session.protocol_version = LATEST_MODERN_VERSION
    session.modern_headers = True
    try:
        result = await session.request(
            "server/discover", {"_meta": envelope}, cancel_on_abandon=False
        )
    except RequestFailed as failure:
        session.protocol_version, session.modern_headers = None, False
        raise await _initialize_failed(attempt, failure) from None
    session.envelope = envelope
    findings = _shape_findings(
        types.DiscoverResult,
        result,
        "server.invalid_discover",
        "the server/discover result does not match the 2026-07-28 schema",
        "return supportedVersions, capabilities, ttlMs, cacheScope and resultType",
    )
    meta = result.get("_meta")
    info = meta.get(SERVER_INFO_META_KEY) if isinstance(meta, dict) else None
    shaped: dict[str, Any] = {
        "protocolVersion": LATEST_MODERN_VERSION,
        "capabilities": result.get("capabilities"),
        "serverInfo": info if isinstance(info, dict) else {},
        "instructions": result.get("instructions"),
    }
    return shaped, findings


def _shape_findings(
    model: type[BaseModel], result: Any, code: str, what: str, hint: str
) -> list[Finding]:
    """One error finding naming the first three schema problems of ``result`` (none if valid)."""
    try:
        model.model_validate(result)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'/'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()[:3]
        )
        return [_finding(code, Severity.ERROR, f"{what} ({problems})", hint)]
    return []


async def _handshake(session: RawSession, attempt: _Attempt, page_cap: int) -> ServerSnapshot:
    if attempt.era == "modern":
        shaped, discover_findings = await _discover(session, attempt)
        return await _listing(session, attempt, page_cap, shaped, discover_findings)
    attempt.phase = "initialize"
    params = {
        "protocolVersion": attempt.offer,
        "capabilities": wire_capabilities(attempt.spec.client_capabilities),
        "clientInfo": {"name": "mcprobe", "version": __version__},
    }
    try:
        init = await session.request("initialize", params, cancel_on_abandon=False)
    except RequestFailed as failure:
        raise await _initialize_failed(attempt, failure) from None
    findings = _shape_findings(
        types.InitializeResult,
        init,
        "server.invalid_initialize",
        "the initialize result does not match the MCP schema",
        "return protocolVersion, capabilities and serverInfo {name, version}",
    )
    protocol_version = _text(init.get("protocolVersion"))
    session.protocol_version = protocol_version
    findings.extend(_version_findings(protocol_version))
    await session.notify("notifications/initialized", None)
    return await _listing(session, attempt, page_cap, init, findings)


async def _listing(
    session: RawSession,
    attempt: _Attempt,
    page_cap: int,
    init: dict[str, Any],
    findings: list[Finding],
) -> ServerSnapshot:
    protocol_version = _text(init.get("protocolVersion"))
    attempt.phase = "listing"
    raw_caps = init.get("capabilities")
    capabilities: dict[str, Any] = raw_caps if isinstance(raw_caps, dict) else {}
    tool_findings: list[Finding] = []
    try:
        tools = await _list_all(session, "tools/list", "tools", page_cap, tool_findings)
        if session.modern_headers:
            session.header_maps = header_maps(tools or ())
        prompts = resources = None
        if "prompts" in capabilities:
            prompts = await _list_all(session, "prompts/list", "prompts", page_cap, None)
        if "resources" in capabilities:
            resources = await _list_all(session, "resources/list", "resources", page_cap, None)
    except RequestFailed as failure:
        raise await _lost_while(attempt, "listing tools", failure) from None
    if tools is None and "tools" in capabilities:
        tool_findings.append(
            _finding(
                "server.invalid_list_page",
                Severity.ERROR,
                "the server advertises tools but tools/list failed",
                "answer tools/list with {tools: [...]}",
            )
        )
    findings.extend(tool_findings)
    raw_info = init.get("serverInfo")
    server_info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    return ServerSnapshot(
        name=_text(server_info.get("name")),
        version=_text(server_info.get("version")),
        title=_text(server_info.get("title")),
        protocol_version=protocol_version,
        instructions=_text(init.get("instructions")),
        capabilities=capabilities,
        tools=tuple(tools or ()),
        resources_count=len(resources) if resources is not None else None,
        prompts_count=len(prompts) if prompts is not None else None,
        server_info=server_info,
        listing_findings=tuple(findings),
        era=attempt.era,
    )


def _version_findings(protocol_version: str | None) -> list[Finding]:
    """Version honesty: an unsupported negotiated version is named; the audit goes on (see
    docs/checks.md, ``server.unsupported_protocol_version``)."""
    problem = version_problem(protocol_version)
    if problem is None:
        return []
    return [
        _finding(
            "server.unsupported_protocol_version",
            Severity.WARNING,
            problem,
            "answer initialize with the client's protocolVersion when you support it, else with "
            "the newest version you support; the SDKs negotiate this for you",
        )
    ]


async def _lost_while(attempt: _Attempt, doing: str, failure: RequestFailed) -> ConnectFailed:
    process = attempt.process
    if process is not None:
        await process.wait_exit(0.5)
        if process.returncode is not None:
            return attempt.fail(
                f"target exited with code {process.returncode} before {doing}"
                f"{attempt.stderr_quote()}"
            )
        return attempt.fail(f"target closed its stdout before {doing}{attempt.stderr_quote()}")
    http = attempt.http_failure()
    if http is not None:
        return http
    return attempt.fail(f"connection to {attempt.where()} closed before {doing} ({failure.detail})")


_AUTO_HINT = (
    "; protocol handshake tries nothing else: if the server speaks only 2026-07-28, use protocol"
    " auto (CLI: --protocol auto), which falls back to it"
)
"""Front-end neutral: the same words serve ``--protocol``, ``probe_connect`` and the library."""


async def _initialize_failed(attempt: _Attempt, failure: RequestFailed) -> ConnectFailed:
    http = attempt.http_failure()
    if http is not None:
        return http
    if failure.kind == "lost" and failure.detail == "connection closed":
        return await _lost_while(attempt, "answering initialize", failure)
    if failure.kind == "error":
        method = "server/discover" if attempt.era == "modern" else "initialize"
        hint = _AUTO_HINT if attempt.suggest_auto and attempt.era == "handshake" else ""
        return attempt.fail(
            f"{method} was rejected with JSON-RPC error {failure.code}: {failure.message}"
            f"{hint}{attempt.stderr_quote()}",
            refused=attempt.era == "handshake",
        )
    return attempt.fail(f"initialize failed: {failure.detail}{attempt.stderr_quote()}")


# --------------------------------------------------------------------------- opening


_Streams = tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]


@asynccontextmanager
async def _open_stdio_wire(attempt: _Attempt, max_message_bytes: int) -> AsyncIterator[_Streams]:
    spec = attempt.spec
    if not spec.command:
        raise attempt.fail("a stdio target needs a command")
    async with open_stdio(
        spec.command,
        spec.args,
        env=spec.env,
        cwd=spec.cwd,
        secrets=attempt.secrets,
        max_message_bytes=max_message_bytes,
        stderr_tail_bytes=DEFAULT_STDERR_TAIL_BYTES,
        started=attempt.started,
        sandbox=spec.sandbox,
        paths=spec.example_paths,
    ) as (process, read, write):
        attempt.process = process
        yield read, write


@asynccontextmanager
async def _open_http_wire(
    mode: HttpKind, attempt: _Attempt, max_message_bytes: int
) -> AsyncIterator[_Streams]:
    spec = attempt.spec
    if not spec.url:
        raise attempt.fail("an HTTP target needs a url")
    async with open_http(
        mode,
        spec.url,
        headers=spec.headers,
        bearer=spec.bearer,
        http_timeout=attempt.budget,
        log=attempt.http,
        max_response_bytes=max_message_bytes,
    ) as (read, write):
        yield read, write


@dataclass(frozen=True)
class WireProtocol:
    """One wire protocol of ``core.target_spec.TRANSPORTS`` (a transport's ``attempts``): its
    opener and the traits the connection branches on, so no code asks for a transport by name.

    - ``ordered``: one pipe carries every message in the order sent, so the cancellation probe
      can show a notification arriving before or after a result (stdio);
    - ``has_process``: a local process mcprobe starts (named by its command in messages; a
      process started early for ``--lock`` is handed to the first attempt);
    - ``http_log``: HTTP statuses are recorded (``HttpLog``), the session sends the
      ``MCP-Protocol-Version`` header and caps results, the log reaches the HTTP probes;
    - ``falls_back``: a server refusing it (404/405 on POST) is tried with the next attempt;
    - ``streamable``: Streamable HTTP, the transport the HTTP checks (``engine/http_probes``) test.

    To add one: a record here with its opener module in ``client/transports/``, its name in
    ``Wire`` and a ``TransportKind`` that attempts it (``core/target_spec.py``), a line in
    docs/cli.md "Transports", a test against a real server."""

    name: Wire
    open: Callable[[_Attempt, int], AbstractAsyncContextManager[_Streams]]
    ordered: bool = False
    has_process: bool = False
    http_log: bool = False
    falls_back: bool = False
    streamable: bool = False


WIRES: tuple[WireProtocol, ...] = (
    WireProtocol("stdio", _open_stdio_wire, ordered=True, has_process=True),
    WireProtocol(
        "http",
        partial(_open_http_wire, "http"),
        http_log=True,
        falls_back=True,
        streamable=True,
    ),
    WireProtocol("sse", partial(_open_http_wire, "sse"), http_log=True),
)


def wire_protocol(name: Wire) -> WireProtocol:
    """The record of wire protocol ``name`` (a ``StopIteration`` names an unregistered one)."""
    return next(w for w in WIRES if w.name == name)


def first_wire(spec: TargetSpec) -> WireProtocol:
    """The wire protocol ``spec``'s transport tries first."""
    return wire_protocol(TRANSPORTS_BY_NAME[spec.transport].attempts[0])


def _wire(attempt: _Attempt, max_message_bytes: int) -> AbstractAsyncContextManager[_Streams]:
    return wire_protocol(attempt.kind).open(attempt, max_message_bytes)


async def _own_connection(
    attempt: _Attempt,
    close_requested: anyio.Event,
    *,
    deadline: float,
    call_deadline: float | None,
    page_cap: int,
    max_bytes: int,
    task_status: anyio.abc.TaskStatus[TargetConnection] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Enter the transport and session, handshake, hand the connection over, and hold it open
    until ``close_requested``. Runs in its own task so a transport that crashes later only closes
    the streams (calls then see TRANSPORT_LOST) instead of cancelling the caller's code."""
    connected = False
    scope = anyio.CancelScope(deadline=deadline)
    try:
        with scope:
            async with (
                _wire(attempt, max_bytes) as (read, write),
                open_raw_session(
                    read,
                    write,
                    secrets=attempt.secrets,
                    declared=attempt.spec.client_capabilities,
                ) as session,
            ):
                wire = wire_protocol(attempt.kind)
                session.ordered = wire.ordered
                if wire.http_log:
                    session.send_version_header = True
                    session.max_result_bytes = max_bytes
                    attempt.http.on_oversize = session.record_oversize
                    session.reply_fault = attempt.http.reply_fault
                snapshot = await _handshake(session, attempt, page_cap)
                connection = TargetConnection(
                    attempt.spec,
                    session,
                    snapshot,
                    attempt.process,
                    transport=attempt.kind,
                    deadline=call_deadline,
                    close_requested=close_requested,
                    http_log=attempt.http if wire.http_log else None,
                    page_cap=page_cap,
                )
                connected = True
                scope.deadline = math.inf
                task_status.started(connection)
                await close_requested.wait()
    except Exception as exc:  # groups of plain exceptions too; cancellation passes through
        if connected:
            # The transport died while open: its streams are closed, so every later call reports
            # TRANSPORT_LOST; nothing to raise into the caller's code.
            logger.debug("transport of an open connection failed: %r", exc)
            return
        raise attempt.translate(_leaves(exc)) from None
    if not connected:
        raise attempt.timed_out() if scope.cancelled_caught else attempt.fail("connect aborted")


async def _reopen(
    tg: anyio.abc.TaskGroup,
    first: _Attempt,
    call_deadline: float | None,
    *,
    page_cap: int,
    max_bytes: int,
) -> TargetConnection:
    """A new generation of ``first``'s target (same spec, same transport kind), owned by a task
    of ``tg``. Raises ``ConnectFailed`` like the first connect."""
    budget = first.spec.connect_timeout
    if call_deadline is not None:
        budget = max(0.0, min(budget, call_deadline - anyio.current_time()))
    attempt = _Attempt(first.spec, first.kind, budget)
    connection: TargetConnection = await tg.start(
        partial(
            _own_connection,
            attempt,
            anyio.Event(),
            deadline=anyio.current_time() + budget,
            call_deadline=call_deadline,
            page_cap=page_cap,
            max_bytes=max_bytes,
        )
    )
    return connection


@asynccontextmanager
async def _open_once(
    attempt: _Attempt,
    *,
    deadline: float,
    call_deadline: float | None,
    page_cap: int,
    max_bytes: int,
) -> AsyncIterator[TargetConnection]:
    close_requested = anyio.Event()
    body_error: BaseException | None = None
    try:
        async with anyio.create_task_group() as tg:
            connection: TargetConnection = await tg.start(
                partial(
                    _own_connection,
                    attempt,
                    close_requested,
                    deadline=deadline,
                    call_deadline=call_deadline,
                    page_cap=page_cap,
                    max_bytes=max_bytes,
                )
            )
            connection._reopen = partial(
                _reopen, tg, attempt, call_deadline, page_cap=page_cap, max_bytes=max_bytes
            )
            try:
                yield connection
            except BaseException as exc:
                body_error = exc
                raise
            finally:
                close_requested.set()
                connection._close()  # the current generation, if it was restarted
    except BaseExceptionGroup as group:
        # Never let a group escape: re-raise the caller's own exception, or the single failure.
        leaves = _leaves(group)
        if body_error is not None and body_error in leaves:
            raise body_error from None
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


@asynccontextmanager
async def open_target(
    spec: TargetSpec,
    *,
    deadline: float | None = None,
    max_response_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    page_cap: int = DEFAULT_PAGE_CAP,
    started: subprocess.Popen[bytes] | None = None,
    offer_version: str = LATEST_HANDSHAKE_VERSION,
    protocol: Protocol | None = None,
) -> AsyncIterator[TargetConnection]:
    """Connect to ``spec`` and yield a live ``TargetConnection``; close it (killing a stdio
    target's whole process group) on exit.

    ``started`` is a stdio target already started from ``spec`` by
    ``transports.stdio.spawn_target`` (the CLI starts it before its heavy imports, so the
    target boots meanwhile); it is adopted instead of starting another, and owned from here on:
    it is gone when this returns or raises, whatever happened. ``offer_version`` is the
    ``protocolVersion`` initialize offers (the version-negotiation check offers one no server
    knows). ``protocol`` (default: ``spec.protocol``) picks the era: ``handshake``
    (initialize), ``modern`` (2026-07-28: server/discover and the per-request ``_meta``
    envelope), or ``auto``: the handshake, and the modern era when initialize is refused with a
    JSON-RPC error.

    ``deadline`` is an absolute ``anyio.current_time()`` instant for the whole audit: it shortens
    the connect timeout, clips every call's timeout, and calls after it return ``notRun``.
    Raises ``ConnectFailed`` with a precise, secret-free message when the target cannot be
    started or reached, the handshake fails, or the connect timeout passes.
    """
    if first_wire(spec).has_process and spec.sandbox == "required" and started is None:
        problem = bwrap_problem()  # a usage error before anything starts, not a connect failure
        if problem is not None:
            raise UsageError(f"sandbox required, but no isolation is possible here: {problem}")
    budget = spec.connect_timeout
    if deadline is not None:
        budget = max(0.0, min(budget, deadline - anyio.current_time()))
    connect_deadline = anyio.current_time() + budget
    kinds = list(TRANSPORTS_BY_NAME[spec.transport].attempts)
    try:
        async with AsyncExitStack() as stack:
            connection = await _connect(
                stack,
                spec,
                kinds,
                budget,
                connect_deadline,
                deadline,
                started,
                page_cap=page_cap,
                max_response_bytes=max_response_bytes,
                offer_version=offer_version,
                protocol=spec.protocol if protocol is None else protocol,
                suggest_auto=protocol is None and spec.protocol == "handshake",
            )
            yield connection
    finally:
        if started is not None:
            discard_started(started)  # a no-op once the transport has stopped and reaped it


async def _connect(
    stack: AsyncExitStack,
    spec: TargetSpec,
    kinds: list[Wire],
    budget: float,
    connect_deadline: float,
    deadline: float | None,
    started: subprocess.Popen[bytes] | None,
    *,
    page_cap: int,
    max_response_bytes: int,
    offer_version: str = LATEST_HANDSHAKE_VERSION,
    protocol: Protocol = "auto",
    suggest_auto: bool = False,
) -> TargetConnection:
    eras: list[Era] = ["modern"] if protocol == "modern" else ["handshake"]
    if protocol == "auto":
        eras.append("modern")
    attempts = [(kind, era) for kind in kinds for era in eras]
    refused: ConnectFailed | None = None  # the handshake's refusal, if the modern try fails too
    for index, (kind, era) in enumerate(attempts):
        attempt = _Attempt(
            spec,
            kind,
            budget,
            started=started if wire_protocol(kind).has_process and index == 0 else None,
            offer=offer_version,
            era=era,
            suggest_auto=suggest_auto,
        )
        try:
            return await stack.enter_async_context(
                _open_once(
                    attempt,
                    deadline=connect_deadline,
                    call_deadline=deadline,
                    page_cap=page_cap,
                    max_bytes=max_response_bytes,
                )
            )
        except ConnectFailed as failure:
            later = attempts[index + 1 :]
            if isinstance(failure, _NotStreamable) and any(k != kind for k, _ in later):
                skip = next(i for i, (k, _) in enumerate(later) if k != kind)
                del attempts[index + 1 : index + 1 + skip]  # the next transport kind
                continue
            if isinstance(failure, _InitializeRefused) and later and later[0] == (kind, "modern"):
                refused = failure
                continue  # the same transport, in 2026-07-28
            if refused is not None and era == "modern":
                raise refused from None
            raise
    raise AssertionError("unreachable: the last attempt returns or raises")
