"""An audit is as short as its critical path: the checks that need no fuzz result run alongside
the fuzz calls, and the checks after the fuzz run side by side.

Ordering, not timing: each fake below lets one part of the audit finish only once another part
has begun (every wait bounded), so a sequential audit fails on any machine, however fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import pytest

from mcprobe.core.checks.catalogue import CheckResult, Verdict, check_result
from mcprobe.core.checks.progress import CancelObservation, ProgressTrace
from mcprobe.core.model import JSON, Finding, RawCall, RawKind
from mcprobe.core.target_protocol import Era
from mcprobe.engine.audit import _audit_open
from mcprobe.engine.request import AuditRequest
from tests.support.fake_target import FAKE_SPEC, FakeTarget, audit_open, int_tool, snapshot_of

pytestmark = pytest.mark.anyio

_WAIT = 5.0  # how long one part waits for the other before giving up (a sequential audit)


@dataclass
class _RequestFake(FakeTarget):
    """A fake that also takes raw requests (the resource/prompt/protocol checks) and can be
    asked to cancel a call (the progress checks): ``RequestTarget`` and ``ProgressTarget``."""

    requests: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    cancelling: anyio.Event = field(default_factory=anyio.Event)
    surface_may_answer_after_cancel_began: bool = False

    @property
    def era(self) -> str:
        return "handshake"

    async def request(self, method: str, params: JSON, *, timeout: float | None = None) -> RawCall:
        self.requests.append(method)
        if self.surface_may_answer_after_cancel_began:
            with anyio.move_on_after(_WAIT):
                await self.cancelling.wait()
            self.order.append(f"answered {method} (cancellation begun: {self.cancelling.is_set()})")
        return RawCall(kind=RawKind.JSONRPC_ERROR, latency_ms=1.0, error_code=-32601)

    async def list_all(
        self, method: str, key: str, *, page_cap: int = 100
    ) -> tuple[list[JSON] | None, tuple[Finding, ...]]:
        return None, ()

    def served_requests(self) -> dict[str, int]:
        return {}

    def progress_traces(self) -> tuple[ProgressTrace, ...]:
        return ()

    def foreign_progress(self) -> tuple[int, str]:
        return 0, ""

    async def observe_cancellation(
        self, name: str, arguments: JSON, *, by_progress: bool, expected: float, budget: float
    ) -> CancelObservation:
        self.order.append(f"cancellation of {name} begun")
        self.cancelling.set()
        await anyio.sleep(0.01)
        return CancelObservation(None, reason="a fake cannot be cancelled")


async def _slow_ok(name: str, arguments: JSON) -> RawCall:
    return RawCall(
        kind=RawKind.RESULT,
        latency_ms=1500.0,  # a slow valid call: the cancellation probe's candidate
        result={"content": [{"type": "text", "text": "done"}], "isError": False},
    )


async def test_the_fresh_connection_checks_wait_for_the_fuzz_calls_then_run_beside_the_rest() -> (
    None
):
    began = anyio.Event()
    order: list[str] = []

    async def respond(name: str, arguments: JSON) -> RawCall:
        order.append(f"answered {name}")
        return await _slow_ok(name, arguments)

    async def second_connection(era: Era) -> tuple[list[CheckResult], list[Era]]:
        order.append("second connection begun")
        began.set()
        await anyio.sleep(0.05)
        check = check_result("protocol.version_negotiation", Verdict.PASS, "answered")
        return [check], [era]

    class Waiting(_RequestFake):
        async def observe_cancellation(
            self, name: str, arguments: JSON, *, by_progress: bool, expected: float, budget: float
        ) -> CancelObservation:
            with anyio.move_on_after(_WAIT):
                await began.wait()  # the cancellation probe goes on only beside the second
            order.append(f"cancellation beside the second connection: {began.is_set()}")
            return CancelObservation(None, reason="a fake cannot be cancelled")

    target = Waiting(snapshot=snapshot_of((int_tool("alpha"),)), respond=respond)
    with anyio.fail_after(4 * _WAIT):
        # The engine's open-target step, given a fake maker of the fresh-connection checks.
        request = AuditRequest(FAKE_SPEC, fuzz=True)
        report = await _audit_open(target, request, second_connection=second_connection)
    # Every fuzz call was answered before the second process started (their latencies are
    # scored); then the second connection and the cancellation probe ran side by side.
    first_second = order.index("second connection begun")
    assert all(line.startswith("answered") for line in order[:first_second]), order
    assert first_second == len(target.calls), order
    assert "cancellation beside the second connection: True" in order, order
    assert report.surface is not None
    checks = [c.check for c in report.surface.checks]
    assert "protocol.version_negotiation" in checks


async def test_the_surface_checks_and_the_cancellation_probe_run_side_by_side() -> None:
    target = _RequestFake(
        snapshot=snapshot_of((int_tool("alpha"),)),
        respond=_slow_ok,
        surface_may_answer_after_cancel_began=True,
    )
    with anyio.fail_after(10 * _WAIT):
        report = await audit_open(target, fuzz=True, call_timeout=_WAIT)
    assert target.order[0] == "cancellation of alpha begun", target.order
    assert target.requests, "the surface checks sent nothing"
    assert all("cancellation begun: True" in line for line in target.order[1:]), target.order
    assert report.surface is not None
    assert "protocol.cancellation" in [c.check for c in report.surface.checks]
