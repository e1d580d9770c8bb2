"""An in-memory ``Target`` for the fuzz runner and audit tests: scripted answers, observed
concurrency, scripted death. No sockets, no processes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import anyio.lowlevel

from mcprobe.core.model import JSON, Finding, RawCall, RawKind, RestartAttempt, ServerSnapshot
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import Opened, audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.support import builders

Responder = Callable[[str, JSON], Awaitable[RawCall]]
Killer = Callable[[str, JSON], bool]


def ok_text(text: str = "fine") -> RawCall:
    return RawCall(
        kind=RawKind.RESULT,
        latency_ms=1.0,
        result={"content": [{"type": "text", "text": text}], "isError": False},
    )


def tool_error(text: str = "invalid input") -> RawCall:
    return RawCall(
        kind=RawKind.RESULT,
        latency_ms=1.0,
        result={"content": [{"type": "text", "text": text}], "isError": True},
    )


def invalid_params(message: str = "Invalid params") -> RawCall:
    return RawCall(
        kind=RawKind.JSONRPC_ERROR, latency_ms=1.0, error_code=-32602, error_message=message
    )


def int_tool(name: str, *, annotations: JSON = None) -> dict[str, JSON]:
    """A tool with one required integer parameter and a closed schema (several malformed cases)."""
    tool: dict[str, JSON] = {
        "name": name,
        "description": f"The {name} tool, for tests.",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1, "description": "A number."}},
            "required": ["n"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True} if annotations is None else annotations,
    }
    return tool


def snapshot_of(tools: tuple[JSON, ...], **overrides: JSON) -> ServerSnapshot:
    fields: dict[str, JSON] = {
        "name": "fake",
        "title": "Fake server",
        "instructions": "A fake server for tests.",
        "capabilities": {"tools": {"listChanged": False}},
    }
    fields.update(overrides)
    return builders.snapshot(tools, **fields)


@dataclass
class FakeTarget:
    """Answers every call through ``respond`` (default: ``ok_text()``).

    ``dies_on`` names a tool whose call kills the target (``kills(name, arguments)`` decides it
    call by call): that call and every call in flight at that moment come back
    ``TRANSPORT_LOST``, later calls too. ``steps`` checkpoints are taken inside each call so
    concurrent calls overlap observably; with ``dies_late`` a killing call dies after its steps
    (as a real server crashes while working on a request), else as soon as it arrives.
    """

    snapshot: ServerSnapshot
    respond: Responder | None = None
    dies_on: str | None = None
    kills: Killer | None = None
    dies_late: bool = False
    steps: int = 5
    calls: list[tuple[str, JSON]] = field(default_factory=list)
    timeouts: list[float | None] = field(default_factory=list)
    max_in_flight: int = 0
    findings: tuple[Finding, ...] = ()
    _alive: bool = True
    _in_flight: int = 0

    @property
    def alive(self) -> bool:
        return self._alive

    async def call_tool(
        self,
        name: str,
        arguments: JSON,
        *,
        timeout: float | None = None,
    ) -> RawCall:
        if not self._alive:
            return RawCall(kind=RawKind.TRANSPORT_LOST, detail="connection closed")
        self.calls.append((name, arguments))
        self.timeouts.append(timeout)
        self._in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            killer = name == self.dies_on or (
                self.kills is not None and self.kills(name, arguments)
            )
            if killer and not self.dies_late:
                self._alive = False
            for _ in range(self.steps):
                await anyio.lowlevel.checkpoint()
            if killer:
                self._alive = False
            if not self._alive:
                return RawCall(kind=RawKind.TRANSPORT_LOST, detail="process exited")
            if self.respond is not None:
                return await self.respond(name, arguments)
            return ok_text()
        finally:
            self._in_flight -= 1

    def session_findings(self) -> tuple[Finding, ...]:
        return self.findings

    def stderr_tail(self) -> str:
        return ""


@dataclass
class RestartableFake(FakeTarget):
    """A ``FakeTarget`` that satisfies ``RestartableTarget``: ``restart()`` brings it back to
    life, except for the first ``failing_restarts`` attempts, which fail."""

    failing_restarts: int = 0
    restarts: int = 0

    async def restart(self) -> RestartAttempt:
        self.restarts += 1
        await anyio.lowlevel.checkpoint()
        if self.restarts <= self.failing_restarts:
            return RestartAttempt(0.01, error="could not start: boom", stderr_tail="boom\n")
        self._alive = True
        return RestartAttempt(0.01)


FAKE_SPEC = TargetSpec("stdio", command="fake-target")
"""What the report names as the target of an in-memory audit (nothing is started from it)."""


async def audit_open(
    target: object,
    *,
    spec: TargetSpec = FAKE_SPEC,
    connection_id: str | None = None,
    **knobs: object,
) -> ConformanceReport:
    """``engine.audit`` on a target already open (a fake, or one the test opened), with the
    request's knobs as keywords, as the MCP server audits its registry's connections."""
    request = AuditRequest(spec, **knobs)  # type: ignore[arg-type]
    return await audit(request, opened=Opened(target, connection_id))  # type: ignore[arg-type]
