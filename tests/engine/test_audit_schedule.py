"""An audit is as short as its critical path: the checks that need no fuzz result run alongside
the fuzz calls, and the checks after the fuzz run side by side.

Ordering, not timing: each fake below lets one part of the audit finish only once another part
has begun (every wait bounded), so a sequential audit fails on any machine, however fast.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import pytest

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.checks.progress import CancelObservation, ProgressTrace
from mcprobe.core.checks.records import CheckResult, Verdict
from mcprobe.core.model import JSON, Finding, RawCall, RawKind
from mcprobe.core.target_protocol import Era
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import _audit_open, audit
from mcprobe.engine.request import AuditRequest
from tests.support.fake_target import (
    FAKE_SPEC,
    FakeTarget,
    audit_open,
    int_tool,
    ok_text,
    snapshot_of,
)
from tests.targets import TARGETS_DIR

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
        check = CHECKS["protocol.version_negotiation"].result(Verdict.PASS, "answered")
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


@dataclass
class _Beside(_RequestFake):
    """Records, in order, every fuzz call answered and every cancellation probe begun, and how
    many calls (the probe's included) were in flight at once. A probe waits (bounded) until a
    fuzz call was answered beside it, so one that starts early provably overlaps them."""

    log: list[str] = field(default_factory=list)
    in_flight: int = 0
    most: int = 0
    answered_beside: anyio.Event = field(default_factory=anyio.Event)
    probing: bool = False
    waits_beside: bool = True  # False: a probe answers at once (nothing to prove about overlap)

    async def call_tool(
        self, name: str, arguments: JSON, *, timeout: float | None = None
    ) -> RawCall:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            raw = await super().call_tool(name, arguments, timeout=timeout)
        finally:
            self.in_flight -= 1
        self.log.append(f"answered {name}")
        if self.probing:
            self.answered_beside.set()
        return raw

    async def observe_cancellation(
        self, name: str, arguments: JSON, *, by_progress: bool, expected: float, budget: float
    ) -> CancelObservation:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        self.log.append(f"cancellation of {name} begun")
        self.probing = True
        try:
            with anyio.move_on_after(_WAIT if self.waits_beside else 0):
                await self.answered_beside.wait()
        finally:
            self.probing = False
            self.in_flight -= 1
        return CancelObservation(None, reason=f"the fake observed {name} after {expected:g} s")


def _latency(slow: dict[str, float]) -> Callable[[str, JSON], Awaitable[RawCall]]:
    async def respond(name: str, arguments: JSON) -> RawCall:
        if name not in slow:
            return ok_text()
        return RawCall(
            kind=RawKind.RESULT,
            latency_ms=slow[name],
            result={"content": [{"type": "text", "text": "done"}], "isError": False},
        )

    return respond


_TOOLS = ("alpha", "beta", "gamma", "delta")


async def test_the_cancellation_probe_is_sent_before_the_last_fuzz_call_is_answered() -> None:
    target = _Beside(
        snapshot=snapshot_of(tuple(int_tool(name) for name in _TOOLS)),
        respond=_latency({"alpha": 1500.0}),  # the first tool's valid call is the slow one
    )
    with anyio.fail_after(10 * _WAIT):
        report = await audit_open(target, fuzz=True, call_timeout=_WAIT)
    begun = target.log.index("cancellation of alpha begun")
    last_answered = max(i for i, line in enumerate(target.log) if line.startswith("answered"))
    assert begun < last_answered, target.log
    assert target.answered_beside.is_set(), target.log
    assert target.log.count("cancellation of alpha begun") == 1, target.log
    assert report.surface is not None
    (cancellation,) = [c for c in report.surface.checks if c.check == "protocol.cancellation"]
    assert "the fake observed alpha after 1.5 s" in cancellation.message


async def test_the_cancellation_probe_beside_the_fuzz_calls_takes_one_of_their_slots() -> None:
    target = _Beside(
        snapshot=snapshot_of(tuple(int_tool(name) for name in _TOOLS)),
        respond=_latency({"alpha": 1500.0}),
    )
    with anyio.fail_after(10 * _WAIT):
        await audit_open(target, fuzz=True, call_timeout=_WAIT, concurrency=2)
    assert target.answered_beside.is_set(), target.log  # it ran beside the fuzz calls
    assert target.most == 2, target.log  # the probe and one fuzz call, never three


async def test_an_early_probe_of_a_call_the_finished_run_does_not_choose_is_not_its_verdict() -> (
    None
):
    # alpha's valid call is slow first, but gamma's is slower: the finished run's candidate (the
    # slowest valid call without progress) is gamma, as if the probe had waited for the run.
    target = _Beside(
        snapshot=snapshot_of(tuple(int_tool(name) for name in _TOOLS)),
        respond=_latency({"alpha": 1500.0, "gamma": 3000.0}),
        waits_beside=False,
    )
    with anyio.fail_after(10 * _WAIT):
        report = await audit_open(target, fuzz=True, call_timeout=_WAIT)
    probes = [line for line in target.log if line.startswith("cancellation")]
    assert probes == ["cancellation of alpha begun", "cancellation of gamma begun"], target.log
    assert report.surface is not None
    (cancellation,) = [c for c in report.surface.checks if c.check == "protocol.cancellation"]
    assert "the fake observed gamma after 3 s" in cancellation.message


async def test_a_real_slow_tool_is_cancelled_beside_the_fuzz_calls_with_the_same_verdict(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A real stdio target, one slow tool (1.2 s, progress, stops on cancellation) among fast
    # ones: the probe's phase starts before the fuzz calls' phase ends, and the server that
    # stops on notifications/cancelled passes, as it does when the probe follows the fuzz.
    caplog.set_level(logging.INFO, logger="mcprobe.engine")
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(TARGETS_DIR / "cli_target.py"), "--clean", "--slow-tool", "1200"),
        call_timeout=_WAIT,
    )
    with anyio.fail_after(12 * _WAIT):
        report = await audit(AuditRequest(spec, fuzz=True))
    timeline = [r.getMessage() for r in caplog.records if r.name == "mcprobe.engine"]
    beside = timeline.index(
        "the cancellation probe (beside the fuzz calls, in one of their slots): started"
    )
    fuzz_done = next(i for i, m in enumerate(timeline) if re.fullmatch(r"fuzz calls: [\d.]+ s", m))
    assert beside < fuzz_done, timeline
    assert report.surface is not None
    (cancellation,) = [c for c in report.surface.checks if c.check == "protocol.cancellation"]
    assert cancellation.verdict == "pass", cancellation.message
    assert "in flight by its progress notifications" in cancellation.message  # wait: progress
