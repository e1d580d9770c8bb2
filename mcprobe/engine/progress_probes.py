"""Progress and cancellation checks, made only when the tools were fuzzed (the user consented to
calling them) and only with calls the consent rules allowed.

Progress is judged from the fuzz run itself: every ``tools/call`` carried a progressToken, and
the session recorded each call's progress and response in wire order. Cancellation needs one
more call: a tool whose valid case succeeded and was observably long-running (it sent progress,
or took at least ``SLOW_MS``) is called again with the same arguments and cancelled in flight
(``target.cancel_probe``); a tool that sent more progress for one call than a trace keeps
(``core.progress.MAX_EVENTS``) is a flood, not a candidate. The judges are in ``core.progress``.

The probe's call need not wait for the fuzz run to end: ``CancellationProbe`` starts it beside
the remaining fuzz calls once a valid call has shown itself slow (its wait is most of an
audit's critical path), holding one of the run's ``concurrency`` slots, and ``progress_checks``
keeps that observation only when the finished run names the same candidate; otherwise it
observes the right one after the fuzz as before. Either way the candidate, its arguments and
its ``expected`` duration are the finished run's, so the verdict is too.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol, runtime_checkable

import anyio
import anyio.abc

from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.checks.progress import (
    CancelObservation,
    EventKind,
    ProgressTrace,
    judge_cancellation,
    judge_progress,
    judge_progress_total,
)
from mcprobe.core.checks.records import CheckResult
from mcprobe.core.model import JSON, CaseResult, FuzzRun, Outcome
from mcprobe.engine.timeline import phase

_Observing = Coroutine[Any, Any, CancelObservation]

__all__ = ["SLOW_MS", "CancellationProbe", "progress_checks", "traces_so_far"]

SLOW_MS = 1000.0
"""A valid call at least this slow can be cancelled at half its duration without progress."""
_BUDGET = 60.0
_BESIDE = "the cancellation probe (beside the fuzz calls, in one of their slots)"


@runtime_checkable
class ProgressTarget(Protocol):
    def progress_traces(self) -> tuple[ProgressTrace, ...]: ...

    def foreign_progress(self) -> tuple[int, str]: ...

    async def observe_cancellation(
        self, name: str, arguments: JSON, *, by_progress: bool, expected: float, budget: float
    ) -> CancelObservation: ...


def _sends_progress(traces: tuple[ProgressTrace, ...], tool: str) -> bool:
    for trace in traces:
        if trace.subject != tool or trace.dropped:  # a flood of progress is not called again
            continue
        kinds = [e.kind for e in trace.events]
        if EventKind.PROGRESS not in kinds or EventKind.RESPONSE not in kinds:
            continue
        if kinds.index(EventKind.PROGRESS) < kinds.index(EventKind.RESPONSE):
            return True
    return False


def _candidate(fuzz: FuzzRun, traces: tuple[ProgressTrace, ...]) -> tuple[CaseResult, bool] | None:
    """The valid call to cancel, and whether its progress shows it in flight: a tool that sends
    progress first, else the slowest valid call of at least ``SLOW_MS``."""
    valid = [
        r
        for r in fuzz.results
        if r.kind is CaseKind.VALID and r.outcome is Outcome.OK and r.inconclusive is None
    ]
    for result in valid:
        if _sends_progress(traces, result.tool):
            return result, True
    slow = [r for r in valid if r.latency_ms >= SLOW_MS]
    if slow:
        return max(slow, key=lambda r: r.latency_ms), False
    return None


def _same_call(one: CaseResult, other: CaseResult) -> bool:
    return (one.tool, one.label, one.arguments, one.latency_ms) == (
        other.tool,
        other.label,
        other.arguments,
        other.latency_ms,
    )


def _observe(target: ProgressTarget, result: CaseResult, by_progress: bool) -> _Observing:
    expected = result.latency_ms / 1000
    return target.observe_cancellation(
        result.tool,
        result.arguments,
        by_progress=by_progress,
        expected=expected,
        budget=min(_BUDGET, expected * 3 + 5),
    )


class CancellationProbe:
    """The cancellation probe started beside the fuzz calls: ``offer`` (the fuzz run's
    ``on_result`` hook) starts it in ``task_group`` on the first valid call that succeeded
    conclusively in ``SLOW_MS`` or more (by its progress if its tool sent progress first), and
    it holds one of ``slots`` (the run's limiter of ``concurrency`` tokens) while it runs, so it
    is one of the calls in flight, never one more. ``since``: as for ``progress_checks``."""

    def __init__(
        self,
        target: object,
        task_group: anyio.abc.TaskGroup,
        slots: anyio.CapacityLimiter,
        *,
        since: int = 0,
    ) -> None:
        self.target = target
        self.slots = slots
        self.chosen: tuple[CaseResult, bool] | None = None
        self.observation: CancelObservation | None = None
        self._task_group = task_group
        self._since = since
        self._closed = False
        self._done = anyio.Event()

    def offer(self, result: CaseResult) -> None:
        """A fuzz case finished: start the probe on it if it is the first fit."""
        if self._closed or self.chosen is not None or not isinstance(self.target, ProgressTarget):
            return
        if result.kind is not CaseKind.VALID or result.outcome is not Outcome.OK:
            return
        if result.inconclusive is not None or result.latency_ms < SLOW_MS:
            return
        traces = _judged(self.target, self._since)
        if any(t.subject == result.tool and t.dropped for t in traces):
            return  # a flood of progress is not called again
        self.chosen = (result, _sends_progress(traces, result.tool))
        self._task_group.start_soon(self._run, self.target, *self.chosen)

    async def _run(self, target: ProgressTarget, result: CaseResult, by_progress: bool) -> None:
        try:
            async with self.slots, phase(_BESIDE):
                self.observation = await _observe(target, result, by_progress)
        finally:
            self._done.set()

    async def settled(self, candidate: tuple[CaseResult, bool] | None) -> CancelObservation | None:
        """The early observation if it is of ``candidate`` (the finished run's), else None
        (no later offer starts one)."""
        self._closed = True
        if self.chosen is None:
            return None
        await self._done.wait()
        chosen, by_progress = self.chosen
        if candidate is None or candidate[1] != by_progress or not _same_call(candidate[0], chosen):
            return None
        return self.observation


def _judged(target: ProgressTarget, since: int) -> tuple[ProgressTrace, ...]:
    """The traces of this audit's fuzz calls: not earlier audits', not the probe's."""
    return tuple(
        t
        for t in target.progress_traces()[since:]
        if not t.probe and not any(e.kind is EventKind.CANCELLED for e in t.events)
    )


def traces_so_far(target: object) -> int:
    """How many calls the target's connection has traced: an audit judges only its own."""
    return len(target.progress_traces()) if isinstance(target, ProgressTarget) else 0


async def progress_checks(
    target: object,
    fuzz: FuzzRun | None,
    *,
    since: int = 0,
    early: CancellationProbe | None = None,
) -> list[CheckResult]:
    """``protocol.progress``, ``protocol.progress_total`` and ``protocol.cancellation`` after a
    fuzz run ([] without one: no tool was called, nothing to observe). ``since``: the traces
    of earlier audits on the same connection (``traces_so_far`` before this one) are left out,
    and so are the cancellation probe's calls. ``early``: the probe started beside the fuzz
    calls, whose observation is kept when it is of this run's candidate."""
    if fuzz is None or not isinstance(target, ProgressTarget):
        return []
    traces = _judged(target, since)
    count, first = target.foreign_progress()
    checks = judge_progress(traces, foreign=count, foreign_example=first)
    checks.extend(judge_progress_total(traces))
    candidate = _candidate(fuzz, traces)
    settled = await early.settled(candidate) if early is not None else None
    if settled is not None:
        observation = settled
    elif candidate is None:
        observation = CancelObservation(
            None,
            reason="no call mcprobe may make could be seen in flight: no consented tool sent "
            f"progress or took {SLOW_MS / 1000:g} s or more in its valid call",
        )
    else:
        observation = await _observe(target, *candidate)
    checks.append(judge_cancellation(observation))
    return checks
