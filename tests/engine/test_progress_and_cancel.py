"""Progress-aware timeouts and spec-correct cancellation, on a real stdio target
(``tests/targets/fragile.py``): SPEC §3 "bounded everything", MCP progress and cancellation.

Every ``tools/call`` carries a ``progressToken``; a progress notification for it gives the call
its per-call timeout again, up to 4 × that timeout; a call mcprobe gives up on gets a
``notifications/cancelled``. Outcomes only: no timed assertions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from mcprobe.client.connection import PROGRESS_CEILING, open_target
from mcprobe.core.model import RawKind
from mcprobe.core.target_spec import TargetSpec
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

FRAGILE = str(TARGETS_DIR / "fragile.py")


def spec(*argv: str, call_timeout: float) -> TargetSpec:
    return TargetSpec(
        "stdio", command=sys.executable, args=(FRAGILE, *argv), call_timeout=call_timeout
    )


def events(log: Path, kind: str) -> list[dict[str, object]]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == kind]


async def test_a_tool_reporting_progress_past_the_timeout_but_within_the_ceiling_is_ok(
    tmp_path: Path,
) -> None:
    # 3 s of work with progress every 0.2 s: over the 2 s timeout, under the 8 s ceiling. The
    # slack (1.8 s between notifications, 5 s to the ceiling) is for a loaded machine: with a 1 s
    # timeout and a 4 s ceiling, a stalled target or test process turned this into a timeout.
    log = tmp_path / "log.jsonl"
    target = spec("tools=slow_progress", "work=3", "step=0.2", f"log={log}", call_timeout=2.0)
    with anyio.fail_after(60):
        async with open_target(target) as connection:
            raw = await connection.call_tool("slow_progress", {})
    assert raw.kind is RawKind.RESULT, raw.detail
    assert raw.result is not None and "done after" in str(raw.result)
    assert len(events(log, "call")) == 1  # one call, extended by progress, not retried
    assert PROGRESS_CEILING == 4


async def test_progress_does_not_extend_a_call_past_the_ceiling(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    # Progress every 0.1 s for 30 s; the ceiling is 4 x 2 s. A 2 s timeout leaves 1.9 s between
    # notifications, so on a loaded machine too the call ends at the ceiling, not a plain timeout.
    target = spec("tools=slow_progress", "work=30", "step=0.1", f"log={log}", call_timeout=2.0)
    with anyio.fail_after(60):
        async with open_target(target) as connection:
            raw = await connection.call_tool("slow_progress", {})
    assert raw.kind is RawKind.TIMEOUT
    assert "progress" in (raw.detail or "") and "ceiling" in (raw.detail or "")


async def test_a_silent_long_call_still_times_out_and_the_target_is_told_it_was_cancelled(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    target = spec("tools=slow_silent", "work=30", f"log={log}", call_timeout=0.5)
    with anyio.fail_after(30):
        async with open_target(target) as connection:
            raw = await connection.call_tool("slow_silent", {})
            # The cancel is written before the call returns; give the target time to log it.
            with anyio.move_on_after(20):
                while not events(log, "cancelled"):  # noqa: ASYNC110 (polling a file)
                    await anyio.sleep(0.05)
    assert raw.kind is RawKind.TIMEOUT
    assert "progress" not in (raw.detail or "")
    cancelled = events(log, "cancelled")
    assert len(cancelled) == 1
    assert isinstance(cancelled[0]["requestId"], int)


async def test_a_call_cut_short_by_the_audit_deadline_is_cancelled_on_the_wire(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.jsonl"
    target = spec("tools=slow_silent", "work=30", f"log={log}", call_timeout=30)
    with anyio.fail_after(30):
        async with open_target(target) as connection:
            with anyio.move_on_after(0.5):
                await connection.call_tool("slow_silent", {})
            with anyio.move_on_after(20):
                while not events(log, "cancelled"):  # noqa: ASYNC110 (polling a file)
                    await anyio.sleep(0.05)
    assert len(events(log, "cancelled")) == 1
