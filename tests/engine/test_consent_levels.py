"""Consent levels on a real stdio target that records every call it receives (SPEC §5 Safety).

By default only ``readOnlyHint: true`` tools are called; ``fuzz_writes`` adds the
``destructiveHint: false`` ones (additive writes); ``fuzz_destructive`` every tool.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from mcprobe import audit_stdio
from mcprobe.client.transports.sandbox import bwrap_problem
from mcprobe.core.cases.selection import (
    CALLED_ISOLATED,
    needs_destructive,
    needs_writes,
    skipped_by_user,
)
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

# The library's words: these audits go through mcprobe.audit_stdio.
NEEDS_WRITES, NEEDS_DESTRUCTIVE = needs_writes("library"), needs_destructive("library")
SKIPPED_BY_USER = skipped_by_user("library")

FRAGILE = str(TARGETS_DIR / "fragile.py")


def called(log: Path) -> set[str]:
    if not log.exists():
        return set()
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return {e["name"] for e in events if e["event"] == "call"}


async def audit_levels(
    tmp_path: Path, *, fuzz_writes: bool = False, fuzz_destructive: bool = False
) -> tuple[set[str], dict[str, str]]:
    log = tmp_path / "calls.jsonl"
    with anyio.fail_after(60):
        report = await audit_stdio(
            sys.executable,
            [FRAGILE, "tools=healthy_a,writer,wiper", f"log={log}"],
            fuzz=True,
            fuzz_writes=fuzz_writes,
            fuzz_destructive=fuzz_destructive,
            sandbox="off",  # the consent levels are the rule without isolation
        )
    assert report.coverage is not None
    skipped = {s.tool: s.reason for s in report.coverage.skipped}
    return called(log) - {"mcprobe_nonexistent_tool"}, skipped


async def test_a_default_run_calls_only_read_only_tools_and_names_the_others(
    tmp_path: Path,
) -> None:
    calls, skipped = await audit_levels(tmp_path)
    assert calls == {"healthy_a"}
    assert skipped == {"writer": NEEDS_WRITES, "wiper": NEEDS_DESTRUCTIVE}


async def test_fuzz_writes_also_calls_additive_write_tools_but_not_destructive_ones(
    tmp_path: Path,
) -> None:
    calls, skipped = await audit_levels(tmp_path, fuzz_writes=True)
    assert calls == {"healthy_a", "writer"}
    assert skipped == {"wiper": NEEDS_DESTRUCTIVE}


async def test_fuzz_destructive_calls_every_tool(tmp_path: Path) -> None:
    calls, skipped = await audit_levels(tmp_path, fuzz_destructive=True)
    assert calls == {"healthy_a", "writer", "wiper"}
    assert skipped == {}


async def test_an_isolated_run_calls_every_tool_without_any_consent_flag() -> None:
    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"needs the sandbox: {problem}")
    with anyio.fail_after(60):
        report = await audit_stdio(
            sys.executable, [FRAGILE, "tools=healthy_a,writer,wiper"], fuzz=True, sandbox="auto"
        )
    assert report.target is not None and report.target.isolation is not None
    assert report.target.isolation.isolated
    assert report.coverage is not None and report.coverage.skipped == []
    assert {c.tool: c.reason for c in report.coverage.called} == dict.fromkeys(
        ("healthy_a", "writer", "wiper"), CALLED_ISOLATED
    )
    assert {r.name for r in report.fuzz} == {"healthy_a", "writer", "wiper"}


async def test_skip_tools_keeps_a_tool_uncalled_even_isolated(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with anyio.fail_after(60):
        report = await audit_stdio(
            sys.executable,
            [FRAGILE, "tools=healthy_a,writer,wiper", f"log={log}"],
            fuzz=True,
            fuzz_destructive=True,
            skip_tools=["wiper"],
            sandbox="off",  # the log is read from the host
        )
    assert called(log) - {"mcprobe_nonexistent_tool"} == {"healthy_a", "writer"}
    assert report.coverage is not None
    assert {s.tool: s.reason for s in report.coverage.skipped} == {"wiper": SKIPPED_BY_USER}
