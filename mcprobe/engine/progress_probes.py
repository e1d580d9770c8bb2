"""Progress and cancellation checks, made only when the tools were fuzzed (the user consented to
calling them) and only with calls the consent rules allowed.

Progress is judged from the fuzz run itself: every ``tools/call`` carried a progressToken, and
the session recorded each call's progress and response in wire order. Cancellation needs one
more call: a tool whose valid case succeeded and was observably long-running (it sent progress,
or took at least ``SLOW_MS``) is called again with the same arguments and cancelled in flight
(``target.cancel_probe``); a tool that sent more progress for one call than a trace keeps
(``core.progress.MAX_EVENTS``) is a flood, not a candidate. The judges are in ``core.progress``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mcprobe.core.checks.catalogue import CheckResult
from mcprobe.core.checks.progress import (
    CancelObservation,
    EventKind,
    ProgressTrace,
    judge_cancellation,
    judge_progress,
    judge_progress_total,
)
from mcprobe.core.model import JSON, CaseKind, CaseResult, FuzzRun, Outcome

__all__ = ["SLOW_MS", "progress_checks", "traces_so_far"]

SLOW_MS = 1000.0
"""A valid call at least this slow can be cancelled at half its duration without progress."""
_BUDGET = 60.0


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


def traces_so_far(target: object) -> int:
    """How many calls the target's connection has traced: an audit judges only its own."""
    return len(target.progress_traces()) if isinstance(target, ProgressTarget) else 0


async def progress_checks(
    target: object, fuzz: FuzzRun | None, *, since: int = 0
) -> list[CheckResult]:
    """``protocol.progress``, ``protocol.progress_total`` and ``protocol.cancellation`` after a
    fuzz run ([] without one: no tool was called, nothing to observe). ``since``: the traces
    of earlier audits on the same connection (``traces_so_far`` before this one) are left out,
    and so are cancelled calls (the cancellation check's own)."""
    if fuzz is None or not isinstance(target, ProgressTarget):
        return []
    traces = tuple(
        t
        for t in target.progress_traces()[since:]
        if not any(e.kind is EventKind.CANCELLED for e in t.events)
    )
    count, first = target.foreign_progress()
    checks = judge_progress(traces, foreign=count, foreign_example=first)
    checks.extend(judge_progress_total(traces))
    candidate = _candidate(fuzz, traces)
    if candidate is None:
        observation = CancelObservation(
            None,
            reason="no call mcprobe may make could be seen in flight: no consented tool sent "
            f"progress or took {SLOW_MS / 1000:g} s or more in its valid call",
        )
    else:
        result, by_progress = candidate
        expected = result.latency_ms / 1000
        observation = await target.observe_cancellation(
            result.tool,
            result.arguments,
            by_progress=by_progress,
            expected=expected,
            budget=min(_BUDGET, expected * 3 + 5),
        )
    checks.append(judge_cancellation(observation))
    return checks
