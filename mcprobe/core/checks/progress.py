"""Progress and cancellation, judged from what the wire showed around mcprobe's own tool calls
(pure).

Every ``tools/call`` mcprobe sends carries a ``progressToken`` (its request id). The session
(``target.raw_session``) records, per call and in wire order, each ``notifications/progress``
naming that token and the moment its response arrived: a ``ProgressTrace``. These judges turn
traces into ``CheckResult``s:

- ``judge_progress``: the notifications a call got are well-formed. MUSTs of 2025-11-25
  basic/utilities/progress: the token is the one the request carried ("MUST only reference
  tokens that were provided in an active request"), ``progress`` increases with each
  notification, ``progress``/``total`` are numbers (the schema), and "Progress notifications
  MUST stop after completion" (none after the response; judged only where the transport orders
  the two: one stdio stream, not Streamable HTTP's separate streams).
- ``judge_progress_total``: advice only: ``progress`` beyond a ``total`` the same call announced
  (the schema: total = "total number of items to process (or total progress required)").
- ``judge_cancellation``: advice only (every receiver clause of basic/utilities/cancellation is
  a SHOULD or a MAY): after ``notifications/cancelled`` and a barrier request the server
  answered, a response or further progress for the cancelled call.

Numbers come from the target: a ``bool`` is not a number, NaN/inf cannot be on the JSON wire.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from mcprobe.core.checks.records import SPEC, Area, CheckResult, CheckSpec, Level, Verdict
from mcprobe.core.model import JSON

__all__ = [
    "PROTOCOL_CANCELLATION",
    "PROTOCOL_PROGRESS",
    "PROTOCOL_PROGRESS_TOTAL",
    "SPECS",
    "CancelObservation",
    "EventKind",
    "ProgressEvent",
    "ProgressTrace",
    "judge_cancellation",
    "judge_progress",
    "judge_progress_total",
]

PROTOCOL_PROGRESS = CheckSpec(
    "protocol.progress",
    Area.PROTOCOL,
    "Progress notifications are well-formed",
    f"{SPEC}/basic/utilities/progress (the progress value MUST increase with each "
    "notification; progress notifications MUST only reference tokens provided in an active "
    "request, and MUST stop after completion)",
    Level.MUST,
    "metadata",
    "send notifications/progress only with the request's own progressToken, with a "
    "numeric progress that increases every time, and none after the response",
)


PROTOCOL_PROGRESS_TOTAL = CheckSpec(
    "protocol.progress_total",
    Area.PROTOCOL,
    "Progress stays within its total",
    f"{SPEC}/basic/utilities/progress and the schema's ProgressNotification.total (\"total "
    'number of items to process (or total progress required), if known"; not a MUST)',
    Level.SHOULD,
    "metadata",
    "announce a total no smaller than the progress you will report, or omit total when it "
    "is unknown",
)


PROTOCOL_CANCELLATION = CheckSpec(
    "protocol.cancellation",
    Area.PROTOCOL,
    "A cancelled call stops (notifications/cancelled)",
    f"{SPEC}/basic/utilities/cancellation#behavior-requirements (receivers SHOULD stop "
    "processing the cancelled request and not send a response for it; they MAY ignore it)",
    Level.SHOULD,
    "metadata",
    "on notifications/cancelled for a request in flight, stop its work and send no "
    "response for it (the SDKs: honour the request's cancellation signal / abort signal "
    "inside long-running tools)",
)


SPECS: tuple[CheckSpec, ...] = (
    PROTOCOL_PROGRESS,
    PROTOCOL_PROGRESS_TOTAL,
    PROTOCOL_CANCELLATION,
)
"""This module's checks, in report order (``catalogue.CHECKS`` gathers them)."""


MAX_EVENTS = 200
"""Events kept per call; later ones are counted (``ProgressTrace.dropped``), not kept."""


class EventKind(StrEnum):
    PROGRESS = "progress"
    RESPONSE = "response"
    CANCELLED = "cancelled"  # mcprobe sent notifications/cancelled (the cancellation probe)
    BARRIER = "barrier"  # the server answered the request sent after the cancellation


@dataclass(frozen=True)
class ProgressEvent:
    """One thing that happened to a call, in wire order. For ``PROGRESS``: the raw
    ``progress`` and ``total`` (``has_total`` says whether the key was there) and the token
    exactly as the server wrote it."""

    kind: EventKind
    progress: JSON = None
    total: JSON = None
    has_total: bool = False
    token: JSON = None


@dataclass(frozen=True)
class ProgressTrace:
    """The wire history of one call that asked for progress. ``ordered``: the transport
    delivers notifications and responses on one ordered stream (stdio), so "after the
    response" is a fact, not a race between two HTTP streams."""

    subject: str  # the tool name
    token: int
    events: tuple[ProgressEvent, ...]
    ordered: bool
    dropped: int = 0
    probe: bool = False  # the cancellation probe's own call, not one of the fuzz calls

    @property
    def progress(self) -> tuple[ProgressEvent, ...]:
        return tuple(e for e in self.events if e.kind is EventKind.PROGRESS)

    def answered(self) -> bool:
        return any(e.kind is EventKind.RESPONSE for e in self.events)

    def progress_after_response(self) -> int:
        seen = False
        late = 0
        for event in self.events:
            if event.kind is EventKind.RESPONSE:
                seen = True
            elif event.kind is EventKind.PROGRESS and seen:
                late += 1
        return late


def _number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _show(value: JSON) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def trace_problems(trace: ProgressTrace) -> list[str]:
    """Every MUST the notifications of one call broke (empty: none)."""
    problems: list[str] = []
    previous: float | None = None
    shown: JSON = None
    for event in trace.progress:
        if not _number(event.progress):
            problems.append(f"progress {_show(event.progress)} is not a number")
            break
        if event.has_total and not _number(event.total):
            problems.append(f"total {_show(event.total)} is not a number")
            break
        value = float(event.progress)
        if previous is not None and value <= previous:
            problems.append(
                f"progress did not increase: {_show(shown)} then {_show(event.progress)}"
            )
            break
        previous, shown = value, event.progress
    late = trace.progress_after_response()
    if late and trace.ordered:
        problems.append(f"{late} progress notification(s) after the response")
    return problems


def judge_progress(
    traces: Sequence[ProgressTrace], *, foreign: int = 0, foreign_example: str = ""
) -> list[CheckResult]:
    """One ``protocol.progress`` result per tool whose calls got progress notifications, plus
    one for notifications naming tokens mcprobe never sent (``foreign``); not applicable when no
    call got any (a server MAY send none: nothing to judge)."""
    results: list[CheckResult] = []
    by_tool: dict[str, list[ProgressTrace]] = {}
    for trace in traces:
        if trace.progress:
            by_tool.setdefault(trace.subject, []).append(trace)
    for tool, calls in by_tool.items():
        count = sum(len(t.progress) + t.dropped for t in calls)
        request = f"tools/call {tool} with _meta.progressToken"
        for trace in calls:
            problems = trace_problems(trace)
            if problems:
                results.append(
                    PROTOCOL_PROGRESS.result(
                        Verdict.FAIL,
                        "; ".join(problems),
                        subject=tool,
                        request=f"{request} {trace.token}",
                        observed=_observed(trace),
                    )
                )
                break
        else:
            late_unordered = sum(t.progress_after_response() for t in calls if not t.ordered)
            message = f"{count} notification(s) over {len(calls)} call(s): token echoed, increasing"
            if late_unordered:
                message += (
                    f"; {late_unordered} arrived after the response on another HTTP stream "
                    "(not judged: the streams are not ordered with each other)"
                )
            results.append(
                PROTOCOL_PROGRESS.result(
                    Verdict.PASS,
                    message,
                    subject=tool,
                    request=request,
                    observed=_observed(calls[0]),
                )
            )
    if not by_tool and not foreign and traces:
        results.append(
            PROTOCOL_PROGRESS.result(
                Verdict.NOT_APPLICABLE,
                f"none of the {len(traces)} call(s) got progress notifications (a server MAY "
                "send none)",
            )
        )
    if foreign:
        results.append(
            PROTOCOL_PROGRESS.result(
                Verdict.FAIL,
                f"{foreign} progress notification(s) named a token no request of mcprobe carried "
                f"(first: {foreign_example})",
                subject="tokens never sent",
                request="tools/call with _meta.progressToken = the request id",
            )
        )
    return results


def _observed(trace: ProgressTrace) -> str:
    parts = []
    for event in trace.events[:6]:
        if event.kind is EventKind.PROGRESS:
            total = f"/{_show(event.total)}" if event.has_total else ""
            parts.append(f"progress {_show(event.progress)}{total}")
        else:
            parts.append(str(event.kind))
    more = len(trace.events) - 6 + trace.dropped
    return ", ".join(parts) + (f", … {more} more" if more > 0 else "")


def judge_progress_total(traces: Sequence[ProgressTrace]) -> list[CheckResult]:
    """Advice: a call whose ``progress`` went past the ``total`` it announced."""
    results: list[CheckResult] = []
    judged: set[str] = set()
    for trace in traces:
        if trace.subject in judged or not trace.progress:
            continue
        totals = [e for e in trace.progress if e.has_total]
        if not totals:
            continue
        judged.add(trace.subject)
        over = next(
            (
                e
                for e in totals
                if _number(e.progress) and _number(e.total) and e.progress > e.total
            ),
            None,
        )
        verdict = Verdict.PASS if over is None else Verdict.FAIL
        message = (
            "progress stayed within total"
            if over is None
            else f"progress {_show(over.progress)} is beyond total {_show(over.total)}"
        )
        results.append(
            PROTOCOL_PROGRESS_TOTAL.result(
                verdict,
                message,
                subject=trace.subject,
                request=f"tools/call {trace.subject} with _meta.progressToken {trace.token}",
                observed=_observed(trace),
            )
        )
    return results


@dataclass(frozen=True)
class CancelObservation:
    """What happened to one call mcprobe cancelled while it was provably in flight.

    ``trace`` holds, in wire order, the call's progress, ``CANCELLED`` (mcprobe sent
    ``notifications/cancelled``), ``BARRIER`` (the answer to the request sent right after it:
    a stdio server reads its input in order, so by then it had read the cancellation) and a
    ``RESPONSE`` if one came. ``waited`` is how long mcprobe watched after the barrier;
    ``expected`` how long the same call took uncancelled. ``reason`` (no trace): why no call
    could be observed."""

    trace: ProgressTrace | None
    waited: float = 0.0
    expected: float = 0.0
    trigger: str = ""  # what showed the call in flight: "progress" or "half its duration"
    reason: str = ""


def _after_barrier(trace: ProgressTrace) -> tuple[int, bool]:
    barrier = False
    late_progress = 0
    responded = False
    for event in trace.events:
        if event.kind is EventKind.BARRIER:
            barrier = True
        elif barrier and event.kind is EventKind.PROGRESS:
            late_progress += 1
        elif barrier and event.kind is EventKind.RESPONSE:
            responded = True
    return late_progress, responded


def judge_cancellation(observation: CancelObservation) -> CheckResult:
    """Advice (``should``): a server that got ``notifications/cancelled`` for a call in flight
    stops it and sends no response. Judged only after the barrier; a response before it may
    have crossed the cancellation ("Processing has already completed": the server MAY ignore
    it), which is inconclusive."""
    check = PROTOCOL_CANCELLATION
    trace = observation.trace
    if trace is None:
        return check.result(Verdict.INCONCLUSIVE, observation.reason)
    request = f"tools/call {trace.subject}, then notifications/cancelled for id {trace.token}"
    common = {"subject": trace.subject, "request": request, "observed": _observed(trace)}
    kinds = [e.kind for e in trace.events]
    if EventKind.BARRIER not in kinds:
        return check.result(
            Verdict.INCONCLUSIVE,
            observation.reason or "the request sent after the cancellation was not answered",
            **common,
        )
    barrier_at = kinds.index(EventKind.BARRIER)
    if EventKind.RESPONSE in kinds[:barrier_at]:
        return check.result(
            Verdict.INCONCLUSIVE,
            "the call finished before the server can be shown to have read the cancellation",
            **common,
        )
    late_progress, responded = _after_barrier(trace)
    if not responded and not late_progress and observation.waited < observation.expected:
        return check.result(
            Verdict.INCONCLUSIVE,
            f"nothing came in the {observation.waited:.1f} s mcprobe could watch, less than "
            f"the {observation.expected:.1f} s the call takes uncancelled",
            **common,
        )
    if responded:
        return check.result(
            Verdict.FAIL,
            "the server answered the call after it had read notifications/cancelled for it"
            + (f" ({late_progress} progress notification(s) before that)" if late_progress else ""),
            **common,
        )
    if late_progress:
        return check.result(
            Verdict.FAIL,
            f"the call went on after the cancellation: {late_progress} progress notification(s) "
            f"in the {observation.waited:.1f} s after the server had read it, no response",
            **common,
        )
    return check.result(
        Verdict.PASS,
        f"stopped: no response and no progress in {observation.waited:.1f} s after the "
        f"cancellation was read (the call took {observation.expected:.1f} s uncancelled; in "
        f"flight by {observation.trigger})",
        **common,
    )
