"""The deep pass end to end over real stdio (issue 25 "Done means"): ``--deep`` on
tests/targets/deep_defects.py finds each defect of its ``DEFECTS`` table, with its oracle, on its
tool and nothing else, and its honest look-alike tests/targets/deep_clean.py gives no deep finding
at all. Each target is audited once per module (``fuzz_writes``: ``save_note`` writes), in a
private data directory, outside the sandbox (the targets are ours)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcprobe import audit_stdio
from mcprobe.report.model import ConformanceReport
from tests.targets import DEEP_CLEAN, DEEP_DEFECTS
from tests.targets.deep_defects import DEFECTS


def _deep_audit(script: Path, data_dir: Path) -> ConformanceReport:
    async def run() -> ConformanceReport:
        return await audit_stdio(
            sys.executable,
            [str(script)],
            env={"DEEP_TARGET_DIR": str(data_dir)},
            cwd=data_dir,
            deep=True,
            fuzz_writes=True,
            sandbox="off",
        )

    return anyio.run(run)


def _found(report: ConformanceReport) -> set[tuple[str, str]]:
    assert report.deep is not None
    return {(t.tool, f.oracle) for t in report.deep.tools for f in t.findings}


@pytest.fixture(scope="module")
def defects_report(tmp_path_factory: pytest.TempPathFactory) -> ConformanceReport:
    return _deep_audit(DEEP_DEFECTS, tmp_path_factory.mktemp("deep-defects"))


@pytest.fixture(scope="module")
def clean_report(tmp_path_factory: pytest.TempPathFactory) -> ConformanceReport:
    return _deep_audit(DEEP_CLEAN, tmp_path_factory.mktemp("deep-clean"))


def test_deep_finds_every_defect_of_the_defects_target_with_its_oracle_and_nothing_else(
    defects_report: ConformanceReport,
) -> None:
    expected = {(tool, oracle) for tool, (oracle, _) in DEFECTS.items()}
    assert _found(defects_report) == expected
    deep = defects_report.deep
    assert deep is not None and deep.seed == 0 and not deep.budget_hit
    for tool in deep.tools:
        for finding in tool.findings:
            assert finding.base == tool.base and finding.arguments != tool.base
            assert finding.label == f"deep:{finding.field}:{finding.edge}"


def test_a_non_ascii_note_that_breaks_read_notes_is_a_corruption_of_save_note(
    defects_report: ConformanceReport,
) -> None:
    assert ("save_note", "corruption") in _found(defects_report)


def test_the_honest_look_alike_gives_no_deep_finding_on_any_tool(
    clean_report: ConformanceReport,
) -> None:
    deep = clean_report.deep
    assert deep is not None and deep.sent > 0
    assert {t.tool for t in deep.tools} >= set(DEFECTS)
    assert _found(clean_report) == set()
