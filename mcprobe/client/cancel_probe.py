"""The cancellation probe's I/O: call a tool, cancel it while it is provably in flight, and
watch what the server does next (judged by ``core.progress.judge_cancellation``).

The order on the wire is the evidence, so this runs on stdio only (one ordered stream each
way): the call goes out with a progressToken; once the server has sent progress for it (or,
for a slow tool that sends none, half its usual duration has passed without a response),
mcprobe abandons it, which makes the dispatcher send ``notifications/cancelled``; then a
barrier request (``ping``; in 2026-07-28, which has no ping, ``tools/list``). A server reads
its stdin in order, so when the barrier's answer arrives it has read the cancellation: a
response or progress for the call written after that answer was written after the server knew
the call was cancelled; the first such event ends the watch, silence lasts 1.5 × the call's usual
duration + 1 s. Everything waits within ``budget`` seconds. The probe's call is told apart by
its own trace (``request(on_trace=…)``), never by being the latest traced call, so fuzz calls
may be in flight beside it; its trace is marked ``probe`` and never judged as theirs.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import anyio

from mcprobe.client.raw_session import CallTrace, RawSession, RequestFailed
from mcprobe.core.checks.progress import CancelObservation, EventKind
from mcprobe.core.model import JSON

__all__ = ["observe_cancellation"]


async def observe_cancellation(
    session: RawSession,
    name: str,
    arguments: JSON,
    *,
    by_progress: bool,
    expected: float,
    budget: float,
    modern: bool,
) -> CancelObservation:
    """Call ``name`` with ``arguments`` (a call the consent rules allow and that succeeded
    before, taking ``expected`` seconds), cancel it in flight, send the barrier and watch for
    up to 1.5 × ``expected`` + 1 s after it (never past ``budget``)."""
    end = anyio.current_time() + budget

    def left(most: float) -> float:
        return max(0.0, min(most, end - anyio.current_time()))

    traced: list[CallTrace] = []
    trace_started = anyio.Event()

    def own(trace: CallTrace) -> None:  # this call's trace, whatever else is in flight
        trace.probe = True
        traced.append(trace)
        trace_started.set()

    async def call() -> None:
        with suppress(RequestFailed):
            await session.request(
                "tools/call",
                {"name": name, "arguments": arguments},
                seconds=max(budget, 1.0),
                progress_ceiling=max(budget, 1.0),
                on_trace=own,
            )

    started = anyio.current_time()
    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        with anyio.move_on_after(left(2.0)):
            await trace_started.wait()
        if not traced:
            tg.cancel_scope.cancel()
            return CancelObservation(None, reason="the call could not be traced")
        trace = traced[0]
        if by_progress:  # in flight once it has sent progress and no response yet
            with anyio.move_on_after(left(expected * 2 + 1)):
                await trace.until(EventKind.PROGRESS, EventKind.RESPONSE)
        else:  # a slow tool without progress: half its usual duration without a response
            with anyio.move_on_after(left(started + expected / 2 - anyio.current_time())):
                await trace.until(EventKind.RESPONSE)
        answered = trace.has(EventKind.RESPONSE)
        in_flight = not answered and (trace.has(EventKind.PROGRESS) or not by_progress)
        tg.cancel_scope.cancel()  # the dispatcher's courtesy notifications/cancelled goes out
    assert trace is not None  # (a task group may swallow exceptions: mypy forgets the return)
    if not in_flight:
        return CancelObservation(
            session.frozen_trace(trace),
            expected=expected,
            reason="the call answered before it could be seen in flight"
            if answered
            else "no progress came for the call within its usual duration",
        )
    session.mark(trace.token, EventKind.CANCELLED)
    barrier: tuple[str, dict[str, Any] | None] = ("tools/list", {}) if modern else ("ping", None)
    with suppress(RequestFailed):
        await session.request(
            barrier[0],
            barrier[1],
            seconds=max(0.1, min(10.0, end - anyio.current_time())),
            barrier_for=trace.token,
        )
    if not trace.has(EventKind.BARRIER):
        return CancelObservation(
            session.frozen_trace(trace),
            expected=expected,
            reason=f"{barrier[0]} after the cancellation was not answered",
        )
    watch_from = anyio.current_time()
    window = max(0.0, min(expected * 1.5 + 1.0, end - watch_from))
    with anyio.move_on_after(window):
        # The first thing for the call after the barrier settles it (a response or more
        # progress: the server went on), so the watch ends there.
        await trace.beyond(len(trace.events) + trace.dropped)
    return CancelObservation(
        session.frozen_trace(trace),
        waited=anyio.current_time() - watch_from,
        expected=expected,
        trigger="its progress notifications" if by_progress else "half its usual duration",
    )
