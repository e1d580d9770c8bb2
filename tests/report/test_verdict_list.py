"""One verdict list per call: detected when the call is classified, stored on the result
(``verdicts``), and read by the score, the report, every renderer, ``-v`` and ``probe_fuzz``.

Each renderer test here failed before the list existed: the renderers kept their own flag lists
and disagreed (the HTML blamed inconclusive calls; HTML, ``-v`` and ``probe_fuzz`` left out
``failureAsSuccess``)."""

from __future__ import annotations

import io
import itertools
import json
import tokenize
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mcprobe.cli.console import call_lines
from mcprobe.core.model import CaseResult, Coverage, FuzzRun, Outcome
from mcprobe.core.score.dimensions import liveness_dimension, score_server
from mcprobe.core.verdicts import FLAG_KEYS, VERDICTS, call_verdicts, verdict
from mcprobe.report.baseline import BaselineReport, compare
from mcprobe.report.build import build_report, summarise_fuzz
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.html import render_html
from mcprobe.report.render.json_report import render_json
from mcprobe.report.render.markdown import render_markdown
from mcprobe.report.render.sarif import render_sarif
from mcprobe.server.app import _summary_text
from tests.support.builders import case_result, snapshot, tool
from tests.support.paths import REPO_ROOT


def _report(*results: CaseResult) -> ConformanceReport:
    names = list(dict.fromkeys(r.tool for r in results))
    snap = snapshot([tool(n) for n in names])
    fuzz = FuzzRun(
        results=results,
        coverage=Coverage(total_tools=len(names), fuzzed_tools=tuple(names), skipped=()),
    )
    return build_report(snap, (), score_server(snap, (), fuzz), fuzz, mcprobe_version="0")


def _dressed_failure() -> CaseResult:
    return case_result("backup", "valid", Outcome.OK, message="Error: no backup service",
                       flags={"failureAsSuccess"})  # fmt: skip


def _refused_sample() -> CaseResult:
    # A valid call built from mcprobe's placeholders and refused: it proves nothing.
    return case_result("repo", "valid", Outcome.TOOL_ERROR, message="not a git repository",
                       inconclusive="the tool refused mcprobe's sample")  # fmt: skip


def _rows(page: str) -> list[str]:
    body = page.split('<table class="sortable" id="fuzz">', 1)[1].split("</table>", 1)[0]
    return body.split("<tr")[2:]  # after the header row


def test_the_html_report_gives_an_inconclusive_call_no_failing_row_and_no_reproducer() -> None:
    page = render_html(_report(_refused_sample()))
    (row,) = _rows(page)
    assert 'class="fail"' not in row and "reproduce" not in row and "inconclusive" in row
    assert "Reproducers (0)" in page and 'class="repro"' not in page


def test_the_html_report_flags_a_failure_reported_as_success_and_links_its_reproducer() -> None:
    page = render_html(_report(_dressed_failure()))
    (row,) = _rows(page)
    assert 'class="fail"' in row and "failureAsSuccess" in row and "reproduce" in row
    assert 'id="repro-0"' in page


def test_verbose_call_lines_flag_a_failure_reported_as_success() -> None:
    (line,) = call_lines(_report(_dressed_failure()), latency=False)
    assert line == "mcprobe: call backup valid → ok (failure as success)"


def test_the_probe_fuzz_summary_counts_failures_reported_as_success() -> None:
    summary = _report(_dressed_failure()).fuzz_summary
    assert summary is not None
    assert "failureAsSuccess 1" in _summary_text(summary)


def _one_flag(key: str) -> CaseResult:
    """A call whose stored verdicts are exactly ``key`` (what ``classify`` would store)."""
    return replace(case_result("t", "valid", Outcome.OK), verdicts=(key,))


@pytest.mark.parametrize("key", FLAG_KEYS)
def test_every_per_call_flag_reaches_every_renderer_from_the_stored_list(key: str) -> None:
    """A verdict with a ``flag`` needs no renderer edit: each reads the stored list."""
    kind = verdict(key)
    report = _report(_one_flag(key))
    assert f"| ok | {key} |" in render_markdown(report)
    assert f"<td>{key}</td>" in _rows(render_html(report))[0]  # as the Markdown shows it
    assert call_lines(report, latency=False) == [f"mcprobe: call t valid → ok ({kind.flag})"]
    assert report.fuzz_summary is not None
    assert f"{key} 1" in _summary_text(report.fuzz_summary)
    if kind.sarif_id is not None:
        assert kind.sarif_id in render_sarif(report)


def test_the_liveness_score_deducts_for_the_stored_verdict_not_a_flag() -> None:
    stored = replace(case_result("t", "valid", Outcome.OK), verdicts=("failureAsSuccess",))
    fuzz = FuzzRun(results=(stored,) * 3, coverage=Coverage(1, ("t",), ()))
    dim = liveness_dimension(fuzz)
    assert [d.cause for d in dim.deductions] == ["failureAsSuccess"]
    assert dim.score == 0


def test_a_call_both_empty_and_without_its_structured_content_is_deducted_once() -> None:
    both = case_result("t", "valid", Outcome.OK, flags={"emptySuccess", "outputSchemaViolation"})
    assert both.verdicts == ("outputSchemaViolation", "emptySuccess")
    fuzz = FuzzRun(results=(both,) * 3, coverage=Coverage(1, ("t",), ()))
    (deduction,) = liveness_dimension(fuzz).deductions
    assert deduction.cause == "outputSchemaViolation"  # the first in catalogue priority
    assert deduction.amount == 10


def _without_verdicts(report: ConformanceReport) -> Any:
    """``report`` as a schema-1.9 JSON report: no ``verdicts`` anywhere."""
    data = json.loads(render_json(report))
    for result in [*data["fuzz"], data["unknownToolProbe"], data["nonObjectProbe"]]:
        if result is not None:
            del result["verdicts"]
    del data["fuzzSummary"]["verdicts"]
    return data


def test_a_report_from_before_schema_1_10_gets_its_verdicts_derived_on_load() -> None:
    leak = case_result("t", "wrong_type:x", Outcome.TOOL_ERROR, flags={"leak"})
    built = _report(_dressed_failure(), _refused_sample(), leak)
    loaded = ConformanceReport.model_validate(_without_verdicts(built))
    assert [r.verdicts for r in loaded.fuzz] == [["failureAsSuccess"], [], ["leak"]]
    assert [r.verdicts for r in loaded.fuzz] == [r.verdicts for r in built.fuzz]
    assert render_html(loaded) == render_html(built)


def test_a_baseline_from_before_schema_1_10_compares_on_derived_verdicts() -> None:
    before = BaselineReport.model_validate(_without_verdicts(_report(_refused_sample())))
    now = _report(replace(_refused_sample(), inconclusive=None, verdicts=("rejectedValid",)))
    diff = compare(before, BaselineReport.model_validate(json.loads(render_json(now))))
    assert [(c.tool, c.case) for c in diff.new_failures] == [("repo", "valid")]


def test_a_crash_victim_keeps_its_outcome_but_loses_the_crash_verdict() -> None:
    killer = case_result("a", "wrong_type:x", Outcome.PROTOCOL_CRASH)
    victim = case_result("b", "valid", Outcome.PROTOCOL_CRASH)
    snap = snapshot([tool("a"), tool("b")])
    fuzz = FuzzRun(
        results=(killer, victim),
        coverage=Coverage(2, ("a", "b"), ()),
        crashed_by=("a", "wrong_type:x"),
    )
    report = build_report(snap, (), score_server(snap, (), fuzz), fuzz, mcprobe_version="0")
    assert [r.verdicts for r in report.fuzz] == [["crash"], []]
    data = _without_verdicts(report)
    assert [r.verdicts for r in ConformanceReport.model_validate(data).fuzz] == [["crash"], []]


def test_summary_counts_are_the_stored_verdicts() -> None:
    report = _report(_dressed_failure(), _refused_sample())
    summary = summarise_fuzz(report.fuzz)
    assert summary.verdicts == {"failureAsSuccess": 1}
    assert list(summary.verdicts) == [k.key for k in VERDICTS if k.key in summary.verdicts]


def test_detection_reads_a_loaded_result_like_a_classified_one() -> None:
    result = _dressed_failure()
    out = _report(result).fuzz[0]
    assert call_verdicts(out) == call_verdicts(result) == result.verdicts


def _internal_error_literals(path: Path) -> list[int]:
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
    return [
        tok.start[0]
        for before, tok in itertools.pairwise(tokens)
        if tok.type == tokenize.NUMBER and tok.string == "32603" and before.string == "-"
    ]


def test_the_internal_error_code_is_written_once_and_asked_through_one_predicate() -> None:
    found = {
        str(path.relative_to(REPO_ROOT)): lines
        for path in sorted((REPO_ROOT / "mcprobe").rglob("*.py"))
        if (lines := _internal_error_literals(path))
    }
    # model.INTERNAL_ERROR only (the sampling answer mcprobe sends names it too).
    assert list(found) == ["mcprobe/core/model.py"]
    assert len(found["mcprobe/core/model.py"]) == 1
