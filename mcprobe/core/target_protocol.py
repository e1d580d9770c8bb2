"""The seam between the audit pipeline and a live target.

``target_client.open_target`` yields an object satisfying ``Target``; the fuzz runner and the
audit orchestration only ever see this Protocol, so they can be tested with in-memory fakes.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from mcprobe.core.isolation import Isolation
from mcprobe.core.model import JSON, Finding, RawCall, RestartAttempt, ServerSnapshot
from mcprobe.core.security.proofs import CanarySighting

Era = Literal["handshake", "modern"]
"""A protocol era: ``handshake`` (initialize, up to 2025-11-25) or ``modern`` (2026-07-28)."""


class Target(Protocol):
    @property
    def snapshot(self) -> ServerSnapshot:
        """What the target said at connect time (``initialize`` + every ``tools/list`` page)."""
        ...

    @property
    def alive(self) -> bool:
        """False once the transport closed or the process exited."""
        ...

    async def call_tool(
        self, name: str, arguments: JSON, *, timeout: float | None = None
    ) -> RawCall:
        """Send one raw ``tools/call`` and report what happened. Never raises for anything the
        target does (errors, hangs, death, garbage): that is all described by the ``RawCall``.
        ``timeout`` defaults to the spec's per-call timeout."""
        ...

    def session_findings(self) -> tuple[Finding, ...]:
        """Server-level findings observed since connect (garbage on stdout, server-initiated
        requests that were declined, invalid replies, ...), secrets scrubbed."""
        ...

    def stderr_tail(self) -> str:
        """The last few KiB of the target's stderr (stdio only; "" otherwise), secrets scrubbed."""
        ...


@runtime_checkable
class RestartableTarget(Target, Protocol):
    """A target that can be started again with the same spec after it died (a stdio process
    spawned anew, an HTTP session opened anew). The fuzz runner restarts a dead target only
    through this, within its budget; a target without it just stops the run at a death."""

    async def restart(self) -> RestartAttempt:
        """Shut what is left of the current target down and start it again. Never raises for
        anything the target does: a failed start is a ``RestartAttempt`` with its ``error``.
        Findings seen on the wire before the restart stay in ``session_findings``."""
        ...


@runtime_checkable
class RelistableTarget(Target, Protocol):
    """A target whose tools can be listed again in the same session (the rug-pull check of
    ``core/security/rug_pull.py``); in-memory fakes without it simply skip that check."""

    async def relist_tools(self) -> tuple[Any, ...] | None:
        """Every ``tools/list`` page again, raw, with the first listing's page cap; None when
        the second listing could not be taken (target gone, list failed, call limit)."""
        ...

    def notifications_seen(self, method: str) -> int:
        """How many ``method`` notifications the target sent since connect."""


@runtime_checkable
class RequestTarget(Target, Protocol):
    """A target that also takes any raw request: the resource, prompt and protocol checks need
    it (``TargetConnection`` is one; simple fakes of ``Target`` need not be)."""

    @property
    def era(self) -> Era:
        """``handshake`` (initialize) or ``modern`` (2026-07-28)."""
        ...

    async def request(self, method: str, params: JSON, *, timeout: float | None = None) -> RawCall:
        """Send one raw request; never raises for anything the target does."""
        ...

    async def list_all(
        self, method: str, key: str, *, page_cap: int = ...
    ) -> tuple[list[JSON] | None, tuple[Finding, ...]]:
        """Every page of a paginated list (None when the first page failed) and the findings
        about the paging (caps, loops, malformed pages)."""
        ...

    def served_requests(self) -> dict[str, int]:
        """Requests of declared client capabilities the target made (method: count)."""
        ...


@runtime_checkable
class WireWatchedTarget(Target, Protocol):
    """A target whose transport searched everything it wrote for the canary
    (``client/canary_watch.py``; mcprobe's stdio transport)."""

    def canary_sightings(self) -> tuple[CanarySighting, ...]:
        """Where the canary value was seen outside tool answers, in order, deduplicated."""
        ...


@runtime_checkable
class IsolatedTarget(Target, Protocol):
    """A target that knows how it runs (``core/isolation.py``): a started stdio process, in a
    sandbox or not; in-memory fakes without it are reported as not recorded."""

    @property
    def isolation(self) -> Isolation: ...

    @property
    def pid(self) -> int | None:
        """The running process (None: not running), e.g. to reach its network namespace."""
        ...
