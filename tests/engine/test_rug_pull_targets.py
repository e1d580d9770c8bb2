"""Rug pull over real stdio: mcprobe's own poisoned server redefines a tool after its first call
(mcprobe lists again after fuzzing and diffs), and an honest server's relisting is identical."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets import POISONED


def _audit(mode: str, *, fuzz: bool = True) -> ConformanceReport:
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(POISONED), mode),
        connect_timeout=10.0,
        call_timeout=5.0,
    )

    async def run() -> ConformanceReport:
        with anyio.fail_after(90):
            return await audit(AuditRequest(spec, fuzz=fuzz))

    return anyio.run(run)


@pytest.fixture(scope="module")
def rug_pull() -> ConformanceReport:
    return _audit("rugpull")


def _security(report: ConformanceReport) -> list[tuple[str, str | None]]:
    return [(f.code, f.location.tool) for f in report.findings if f.code.startswith("security.")]


def test_a_tool_that_gains_hidden_instructions_after_its_first_call_is_a_rug_pull(
    rug_pull: ConformanceReport,
) -> None:
    assert ("security.rug_pull", "add") in _security(rug_pull)
    found = next(f for f in rug_pull.findings if f.code == "security.rug_pull")
    assert found.severity == "critical"
    assert "description: `Adds two numbers.` → `Adds two numbers. <IMPORTANT>" in found.message
    assert "security.model_instruction" in found.message


def test_a_rug_pulling_server_scores_f(rug_pull: ConformanceReport) -> None:
    assert rug_pull.grade == "F"
    assert rug_pull.critical_problems[0].kind == "securityCritical"
    assert rug_pull.markdown is not None and "security.rug_pull" in rug_pull.markdown


def test_list_changed_sent_while_declared_false_is_reported(rug_pull: ConformanceReport) -> None:
    assert ("security.undeclared_list_changed", None) in _security(rug_pull)


def test_without_fuzzing_the_first_listing_stands_and_nothing_is_reported() -> None:
    # No call, so the server never redefines anything nor announces a change.
    assert _security(_audit("rugpull", fuzz=False)) == []


def test_a_declared_harmless_change_is_a_definition_change_and_not_a_rug_pull() -> None:
    report = _audit("evolving")
    assert sorted(_security(report), key=str) == [
        ("security.definition_changed", "count"),
        ("security.definition_changed", "search"),
    ]
    changed = next(f for f in report.findings if f.location.tool == "search")
    assert '"maximum": 50' in changed.message and '"maximum": 20' in changed.message
    assert report.grade != "F"


def test_an_honest_server_relisted_after_fuzzing_has_no_definition_finding() -> None:
    report = _audit("honest")
    assert report.fuzz  # it was fuzzed, so it was relisted
    assert _security(report) == []
