"""Progress well-formedness and cancellation: a real stdio target (tests/targets/
progress_server.py) whose one read-only tool reports progress, conforming by default and with
one defect per mode; the pure judges in both directions; and the wire order the stdio reader
keeps between progress and responses."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from mcp.shared.message import SessionMessage

from mcprobe.client.transports.stdio import _LineSplitter
from mcprobe.client.wire_events import ProgressSeen
from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.checks.progress import (
    CancelObservation,
    EventKind,
    ProgressEvent,
    ProgressTrace,
    judge_cancellation,
    judge_progress,
    judge_progress_total,
)
from mcprobe.core.checks.records import Level, Verdict
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.support.paths import TARGETS

SERVER = TARGETS / "progress_server.py"
_CHECKS = ("protocol.progress", "protocol.progress_total", "protocol.cancellation")


async def _audit(*modes: str, fuzz: bool = True, surface: bool = True) -> ConformanceReport:
    spec = TargetSpec(
        transport="stdio",
        command=sys.executable,
        args=(str(SERVER), *modes),
        connect_timeout=20,
        call_timeout=10,
    )
    with anyio.fail_after(90):
        return await audit(AuditRequest(spec, fuzz=fuzz, overall_timeout=80, surface=surface))


def _verdicts(report: ConformanceReport) -> dict[str, str]:
    assert report.surface is not None
    return {c.check: c.verdict for c in report.surface.checks if c.check in _CHECKS}


# --------------------------------------------------------------------------- real target


@pytest.mark.anyio
async def test_well_formed_progress_and_an_honoured_cancellation_pass() -> None:
    report = await _audit()
    assert _verdicts(report) == {
        "protocol.progress": "pass",
        "protocol.progress_total": "pass",
        "protocol.cancellation": "pass",
    }
    cancel = next(c for c in report.surface.checks if c.check == "protocol.cancellation")  # type: ignore[union-attr]
    assert cancel.subject == "work" and cancel.observed is not None
    assert "cancelled, barrier" in cancel.observed  # nothing came after the barrier


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("mode", "check", "words"),
    [
        ("decreasing", "protocol.progress", "did not increase: 2 then 1"),
        ("after_response", "protocol.progress", "after the response"),
        ("foreign_token", "protocol.progress", '"not-yours"'),
        ("non_numeric", "protocol.progress", "'half' is not a number"),
        ("beyond_total", "protocol.progress_total", "beyond total 3"),
        ("ignore_cancel", "protocol.cancellation", "went on after the cancellation"),
        ("error_on_cancel", "protocol.cancellation", "answered the call after"),
        ("silent_continue", "protocol.cancellation", "went on after the cancellation"),
    ],
)
async def test_each_defect_fails_its_own_check(mode: str, check: str, words: str) -> None:
    report = await _audit(mode)
    assert report.surface is not None
    failed = [c for c in report.surface.checks if c.verdict == "fail" and c.check in _CHECKS]
    assert [c.check for c in failed] == [check]
    assert words in failed[0].message


@pytest.mark.anyio
async def test_a_must_failure_costs_a_protocol_point_and_the_advice_ones_do_not() -> None:
    clean, broken, ignoring, beyond = (
        await _audit(),
        await _audit("decreasing"),
        await _audit("ignore_cancel"),
        await _audit("beyond_total"),
    )

    def metadata(report: ConformanceReport) -> float | None:
        return next(d.score for d in report.dimensions if d.key == "metadata")

    assert metadata(broken) == (metadata(clean) or 0) - 1
    assert metadata(ignoring) == metadata(beyond) == metadata(clean)
    assert CHECKS["protocol.cancellation"].level is Level.SHOULD
    assert CHECKS["protocol.progress_total"].level is Level.SHOULD


@pytest.mark.anyio
async def test_nothing_observable_makes_progress_not_applicable_and_cancellation_inconclusive() -> (
    None
):
    report = await _audit("no_progress")
    verdicts = _verdicts(report)
    assert verdicts["protocol.progress"] == "notApplicable"  # a server MAY send no progress
    assert verdicts["protocol.cancellation"] == "inconclusive"


@pytest.mark.anyio
async def test_a_slow_tool_without_progress_is_cancelled_at_half_its_duration() -> None:
    report = await _audit("slow_quiet")
    assert report.surface is not None
    cancel = next(c for c in report.surface.checks if c.check == "protocol.cancellation")
    assert cancel.verdict == "pass"
    assert "half its usual duration" in cancel.message


@pytest.mark.anyio
async def test_without_fuzz_or_with_no_surface_no_tool_is_called_for_these_checks() -> None:
    assert _verdicts(await _audit(fuzz=False)) == {}
    tools_only = await _audit(surface=False)
    assert tools_only.surface is None


# --------------------------------------------------------------------------- pure judges


def _progress(value: object, total: object = None, *, has_total: bool = False) -> ProgressEvent:
    return ProgressEvent(EventKind.PROGRESS, progress=value, total=total, has_total=has_total)


RESPONSE = ProgressEvent(EventKind.RESPONSE)


def _trace(*events: ProgressEvent, ordered: bool = True) -> ProgressTrace:
    return ProgressTrace("work", 7, events, ordered)


def test_progress_after_the_response_fails_on_stdio_but_is_not_judged_across_http_streams() -> None:
    late = (_progress(1), RESPONSE, _progress(2))
    [stdio] = judge_progress([_trace(*late)])
    [http] = judge_progress([_trace(*late, ordered=False)])
    assert stdio.verdict is Verdict.FAIL
    assert http.verdict is Verdict.PASS and "not judged" in http.message


def test_equal_progress_fails_and_floats_and_a_missing_total_pass() -> None:
    [same] = judge_progress([_trace(_progress(1), _progress(1), RESPONSE)])
    [floats] = judge_progress([_trace(_progress(0.25), _progress(0.5), RESPONSE)])
    assert same.verdict is Verdict.FAIL and floats.verdict is Verdict.PASS
    assert judge_progress_total([_trace(_progress(0.25), RESPONSE)]) == []
    [bad_total] = judge_progress([_trace(_progress(1, True, has_total=True), RESPONSE)])
    assert bad_total.verdict is Verdict.FAIL and "total True is not a number" in bad_total.message
    [none] = judge_progress([_trace(RESPONSE)])  # no progress: nothing to judge
    assert none.verdict is Verdict.NOT_APPLICABLE
    assert judge_progress([]) == []  # no call at all


def _observed(*events: ProgressEvent, waited: float = 3.0) -> CancelObservation:
    return CancelObservation(_trace(*events), waited=waited, expected=1.0, trigger="progress")


CANCELLED, BARRIER = ProgressEvent(EventKind.CANCELLED), ProgressEvent(EventKind.BARRIER)


def test_a_response_before_the_barrier_may_have_crossed_the_cancellation() -> None:
    crossed = judge_cancellation(_observed(_progress(1), CANCELLED, RESPONSE, BARRIER))
    after = judge_cancellation(_observed(_progress(1), CANCELLED, BARRIER, RESPONSE))
    assert crossed.verdict is Verdict.INCONCLUSIVE
    assert after.verdict is Verdict.FAIL


def test_silence_shorter_than_the_calls_own_duration_proves_nothing() -> None:
    short = judge_cancellation(_observed(_progress(1), CANCELLED, BARRIER, waited=0.5))
    enough = judge_cancellation(_observed(_progress(1), CANCELLED, BARRIER, waited=2.5))
    unanswered = judge_cancellation(_observed(_progress(1), CANCELLED))
    assert short.verdict is Verdict.INCONCLUSIVE
    assert enough.verdict is Verdict.PASS
    assert unanswered.verdict is Verdict.INCONCLUSIVE
    assert judge_cancellation(CancelObservation(None, reason="HTTP")).verdict is (
        Verdict.INCONCLUSIVE
    )


# --------------------------------------------------------------------------- wire order


def _line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _order(chunk: bytes) -> list[str]:
    out = _LineSplitter(1 << 20).feed(chunk)
    order: list[str] = []
    for item in out:
        if isinstance(item, ProgressSeen):
            order += [f"progress {params['progress']}" for _, params in item.records]
        elif isinstance(item, SessionMessage):
            order.append("response")
    return order


def test_the_stdio_reader_keeps_progress_and_responses_in_wire_order() -> None:
    def progress(value: int) -> bytes:
        params = {"progressToken": 1, "progress": value}
        return _line({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    response = _line({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})
    assert _order(progress(1) + response + progress(2)) == ["progress 1", "response", "progress 2"]
    assert _order(progress(1) + progress(2) + response) == ["progress 1", "progress 2", "response"]


# --------------------------------------------------------------------------- the SDK's own server


@pytest.mark.anyio
async def test_the_python_sdks_progress_passes_over_stdio_and_http_and_cancels_on_stdio() -> None:
    from tests.targets.hostile_http import serve
    from tests.targets.sdk_progress_server import build_server

    stdio = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(TARGETS / "sdk_progress_server.py"),),
        connect_timeout=20,
        call_timeout=10,
    )
    with anyio.fail_after(150):
        over_stdio = await audit(AuditRequest(stdio, fuzz=True, overall_timeout=60))
        async with serve(build_server().streamable_http_app()) as base:
            http = TargetSpec("http", url=f"{base}/mcp", connect_timeout=10, call_timeout=10)
            over_http = await audit(AuditRequest(http, fuzz=True, overall_timeout=60))
    assert _verdicts(over_stdio) == {
        "protocol.progress": "pass",
        "protocol.progress_total": "pass",
        "protocol.cancellation": "pass",
    }
    # Over HTTP the progress comes on the call's own SSE stream and is judged the same way; the
    # cancellation cannot be ordered against it there.
    assert _verdicts(over_http) == {
        "protocol.progress": "pass",
        "protocol.progress_total": "pass",
        "protocol.cancellation": "inconclusive",
    }
