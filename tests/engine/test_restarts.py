"""Restart and continue, exact culprits, flaky deaths and the restart budget, on real stdio
targets (``tests/targets/fragile.py``) through the library: SPEC §5.1."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcprobe import audit_stdio
from mcprobe.report.model import ConformanceReport
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

FRAGILE = str(TARGETS_DIR / "fragile.py")
FRAGILE_FIRST = "tools=fragile,healthy_a,healthy_b,healthy_c"


async def audit(*argv: str, concurrency: int = 4) -> ConformanceReport:
    with anyio.fail_after(90):
        return await audit_stdio(
            sys.executable,
            [FRAGILE, *argv],
            fuzz=True,
            concurrency=concurrency,
            timeout=10,
            sandbox="off",  # some fragile.py behaviours keep state in files the host reads
        )


def verdicts(report: ConformanceReport) -> list[tuple[str, str, str, bool, bool]]:
    return [(r.name, r.case, r.outcome, r.silently_accepted, r.leak) for r in report.fuzz]


def notes(report: ConformanceReport) -> str:
    return "\n".join(report.notes)


@pytest.mark.slow
async def test_a_tool_that_kills_the_server_on_one_case_is_the_only_crash_and_the_rest_is_judged(
    tmp_path: Path,
) -> None:
    four = await audit(FRAGILE_FIRST, concurrency=4)
    crashes = [(r.name, r.case) for r in four.fuzz if r.outcome == "protocolCrash"]
    assert crashes == [("fragile", "wrong_type:n")]
    healthy = [r for r in four.fuzz if r.name.startswith("healthy_")]
    assert {r.name for r in healthy} == {"healthy_a", "healthy_b", "healthy_c"}
    assert all(r.outcome in ("ok", "toolError") for r in healthy)
    assert not any(r.outcome == "notRun" for r in four.fuzz)
    assert four.unknown_tool_probe is not None
    text = notes(four)
    assert "restarted 2 times;" in text  # after the death, and after its reproducing replay
    culprit = "replaying `fragile wrong_type:n` alone killed it again (target exited with code 9)"
    assert culprit in text
    assert "fatal: fragile could not handle n=" in text  # the stderr tail of the death
    assert "protocolCrash" in (four.markdown or "")
    # The same as data: two deaths, each followed by a restart, the second death the replay
    # that reproduced the first, sent before anything new.
    assert [(d.replay, d.verdict) for d in four.deaths] == [(False, None), (True, "crash")]
    assert "fragile wrong_type:n" in four.deaths[0].cases
    assert [len(d.restarts) for d in four.deaths] == [1, 1]
    assert four.fuzz_stopped is None


@pytest.mark.slow
async def test_concurrency_one_and_four_give_identical_verdicts_on_a_real_target() -> None:
    one = await audit(FRAGILE_FIRST, concurrency=1)
    four = await audit(FRAGILE_FIRST, concurrency=4)
    assert verdicts(one) == verdicts(four)
    crashes = [(r.name, r.case) for r in four.fuzz if r.outcome == "protocolCrash"]
    assert crashes == [("fragile", "wrong_type:n")]  # the same single culprit either way


@pytest.mark.slow
async def test_a_target_that_dies_at_random_is_reported_flaky_and_no_tool_is_blamed(
    tmp_path: Path,
) -> None:
    report = await audit("tools=healthy_a,healthy_b", "die_once", "once=3", f"state={tmp_path}")
    assert not any(r.outcome in ("protocolCrash", "notRun") for r in report.fuzz)
    text = notes(report)
    assert "a flaky crash" in text and "no tool is blamed" in text
    assert "died once, at random" in text  # its stderr tail
    assert [d.verdict for d in report.deaths] == ["flakyCrash"]
    assert not report.critical  # a flaky death blames no tool and is not critical


@pytest.mark.slow
async def test_a_target_that_dies_on_every_call_stops_after_the_restart_budget(
    tmp_path: Path,
) -> None:
    report = await audit("tools=healthy_a,healthy_b", "die_always")
    crashes = [r for r in report.fuzz if r.outcome == "protocolCrash"]
    # Each tool's first case died and, replayed alone at once, died again: one culprit a tool.
    assert [(r.name, r.case) for r in crashes] == [("healthy_a", "valid"), ("healthy_b", "valid")]
    assert all("killed the target again" in (r.note or "") for r in crashes)
    assert all(r.outcome == "notRun" for r in report.fuzz if r not in crashes)
    text = notes(report)
    assert "The target died 4 times during the fuzz run and was restarted 3 times" in text
    assert "The fuzz run stopped: the target died 4 times and the restart budget (3 per" in text
    assert "every call kills me" in text
    assert report.fuzz_stopped is not None and "restart budget" in report.fuzz_stopped
    assert any(line.startswith("the fuzz run stopped: ") for line in report.critical)


@pytest.mark.slow
async def test_a_target_that_cannot_start_again_stops_with_each_start_failure_quoted(
    tmp_path: Path,
) -> None:
    report = await audit("tools=healthy_a", "die_always", "boot_once", f"state={tmp_path}")
    text = notes(report)
    assert "restarted 0 times (3 restart attempts failed)" in text
    assert text.count("a restart failed after") == 3
    assert "The fuzz run stopped: the target could not be started again (" in text
    assert "lock file held by a previous run" in text
    assert all(r.outcome == "notRun" for r in report.fuzz)
