"""--baseline / --fail-on-regression: two real audits of a server that changed between them, and
the pure comparison on hand-made reports (every kind of change, both directions)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, run
from mcprobe.report.baseline import BaselineError, BaselineReport, compare, load_baseline
from mcprobe.report.render.baseline_text import render_baseline
from tests.support.demo_golden import normalise_canary, normalise_markdown
from tests.support.paths import CLI_TARGET

PY = sys.executable
CLI_TARGET = CLI_TARGET


def _audit(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def _report_of(tmp_path: Path, name: str, *target: str) -> Path:
    path = tmp_path / name
    code, _, err = _audit(
        "--fuzz", "-q", "--json", "--output", str(path), "--", PY, CLI_TARGET, *target
    )
    assert code == EXIT_OK, err
    return path


@pytest.mark.slow
def test_a_server_that_got_worse_fails_with_exit_7_and_names_what_regressed(tmp_path: Path) -> None:
    before = _report_of(tmp_path, "clean.json", "--clean")
    code, _, err = _audit(
        "--fuzz", "--json", "--output", str(tmp_path / "now.json"),
        "--baseline", str(before), "--fail-on-regression", "--", PY, CLI_TARGET,
    )  # fmt: skip
    assert code == EXIT_REGRESSION, err
    assert "mcprobe: vs baseline: overall" in err
    assert "worse: Error Handling" in err
    assert "new failure: echo" in err and "silentlyAccepted" in err
    assert "worse than --baseline" in err


@pytest.mark.slow
def test_the_same_change_in_the_other_direction_is_reported_as_fixed_and_passes(
    tmp_path: Path,
) -> None:
    before = _report_of(tmp_path, "flawed.json")
    code, _, err = _audit(
        "--fuzz", "--json", "--output", str(tmp_path / "now.json"),
        "--baseline", str(before), "--fail-on-regression", "--", PY, CLI_TARGET, "--clean",
    )  # fmt: skip
    assert code == EXIT_OK, err
    assert "better: Error Handling" in err
    assert "fixed: echo" in err
    assert "worse" not in err


@pytest.mark.slow
def test_two_runs_of_an_unchanged_server_compare_clean_and_latencies_are_whole_ms(
    tmp_path: Path,
) -> None:
    first = _report_of(tmp_path, "a.json", "--slow", "3")
    second = _report_of(tmp_path, "b.json", "--slow", "3")
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    latencies = [r["latencyMs"] for r in a["fuzz"] + b["fuzz"]]
    assert latencies and all(value == int(value) for value in latencies)
    for doc in (a, b):  # apart from latencies (and the random canary) the documents are identical
        for result in doc["fuzz"]:
            result["latencyMs"] = 0
        doc["unknownToolProbe"]["latencyMs"] = 0
        if doc.get("nonObjectProbe"):
            doc["nonObjectProbe"]["latencyMs"] = 0
        doc["markdown"] = normalise_markdown(doc["markdown"])
        doc["notes"] = [normalise_canary(n) for n in doc["notes"]]
    assert a == b
    code, _, err = _audit(
        "--fuzz", "--baseline", str(first), "--fail-on-regression", "--", PY, CLI_TARGET,
        "--slow", "3",
    )  # fmt: skip
    assert code == EXIT_OK
    assert "vs baseline: no change" in err


@pytest.mark.slow
def test_a_new_tool_is_listed_as_new(tmp_path: Path) -> None:
    before = _report_of(tmp_path, "one.json", "--clean")
    code, _, err = _audit(
        "--fuzz", "--baseline", str(before), "--", PY, CLI_TARGET, "--clean", "--extra-tools", "1"
    )
    assert code == EXIT_OK
    assert "new tool: echo_1" in err


def test_a_baseline_that_is_not_a_report_is_a_one_line_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    for content, reason in (
        ("not json", "is not JSON"),
        ('{"hello": 1}', "not an mcprobe JSON report"),
        ('{"dimensions": [{"key": 1}]}', "dimensions.0"),
    ):
        bad.write_text(content)
        code, _, err = _audit("--baseline", str(bad), "http://127.0.0.1:1/mcp")
        assert code == EXIT_USAGE
        assert reason in err and len(err.splitlines()) == 1


# --------------------------------------------------------------------------- pure comparison


def _doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "overall": 80,
        "grade": "B",
        "dimensions": [
            {"key": "metadata", "name": "Metadata", "score": 8.0},
            {"key": "errorHandling", "name": "Error Handling", "score": 8.0},
        ],
        "findings": [
            {"code": "tool.missing_description", "severity": "error", "location": {"tool": "a"}}
        ],
        "fuzz": [
            {"name": "a", "case": "valid", "outcome": "ok", "latencyMs": 3.0},
            {"name": "a", "case": "wrong_type:x", "outcome": "toolError", "latencyMs": 1.0},
        ],
        "coverage": {"fuzzed": ["a"], "skipped": [{"tool": "b", "reason": "destructive"}]},
        "unknownField": "ignored",
    }
    doc.update(changes)
    return doc


def test_identical_reports_differ_in_nothing_even_with_other_latencies() -> None:
    other = _doc()
    other["fuzz"][0]["latencyMs"] = 999.0
    diff = compare(load_baseline(_doc()), load_baseline(other))
    assert diff.unchanged and diff.regressions == ()
    assert render_baseline(diff) == [
        "vs baseline: no change (scores, findings, verdicts and tools are the same)"
    ]


def test_a_lower_dimension_a_new_warning_and_a_new_failure_are_regressions() -> None:
    worse = _doc(overall=70, grade="C")
    worse["dimensions"][1]["score"] = 6.0
    worse["findings"].append(
        {"code": "param.untyped", "severity": "warning", "location": {"tool": "a", "param": "x"}}
    )
    worse["fuzz"][1] = {
        "name": "a",
        "case": "wrong_type:x",
        "outcome": "ok",
        "silentlyAccepted": True,
    }
    diff = compare(load_baseline(_doc()), load_baseline(worse))
    assert diff.regressions == (
        "overall score 80 → 70",
        "Error Handling 8 → 6",
        "new warning finding param.untyped (a.x)",
        "new failure a wrong_type:x: ok [silentlyAccepted]",
    )
    assert diff.fixed_findings == () and diff.fixed_failures == ()


def test_the_reverse_change_is_all_fixes_and_no_regression() -> None:
    worse = _doc(overall=70)
    worse["fuzz"][1] = {"name": "a", "case": "wrong_type:x", "outcome": "timeout"}
    diff = compare(load_baseline(worse), load_baseline(_doc()))
    assert diff.regressions == ()
    assert [(v.tool, v.case) for v in diff.fixed_failures] == [("a", "wrong_type:x")]


def test_a_new_info_finding_is_reported_but_not_a_regression() -> None:
    more = _doc()
    more["findings"].append(
        {"code": "tool.no_title", "severity": "info", "location": {"tool": "a"}}
    )
    diff = compare(load_baseline(_doc()), load_baseline(more))
    assert [f.code for f in diff.new_findings] == ["tool.no_title"]
    assert diff.regressions == ()


def test_added_and_removed_tools_are_named_and_a_removed_tools_cases_are_not_fixes() -> None:
    changed = _doc()
    changed["coverage"] = {"fuzzed": ["c"], "skipped": []}
    changed["findings"] = []
    changed["fuzz"] = [{"name": "c", "case": "valid", "outcome": "ok"}]
    diff = compare(load_baseline(_doc()), load_baseline(changed))
    assert diff.new_tools == ("c",)
    assert diff.removed_tools == ("a", "b")
    assert diff.fixed_failures == () and diff.new_failures == ()


def test_a_dimension_no_longer_measured_is_worse() -> None:
    unmeasured = _doc()
    unmeasured["dimensions"][1]["score"] = None
    diff = compare(load_baseline(_doc()), load_baseline(unmeasured))
    assert diff.regressions == ("Error Handling 8 → not measured",)


def test_target_text_in_the_comparison_lines_cannot_steer_a_terminal() -> None:
    hostile = _doc()
    hostile["coverage"] = {"fuzzed": ["a", "evil\x1b[2J\nname"], "skipped": [{"tool": "b"}]}
    lines = render_baseline(compare(load_baseline(_doc()), load_baseline(hostile)))
    assert any("new tool: evil" in line for line in lines)
    assert all("\x1b" not in line and "\n" not in line for line in lines)


def test_load_baseline_rejects_what_is_not_a_report() -> None:
    with pytest.raises(BaselineError, match="no 'dimensions'"):
        load_baseline([1, 2])
    assert isinstance(load_baseline(_doc()), BaselineReport)


def test_a_report_that_lost_its_grade_is_a_regression_and_one_that_gained_it_is_not() -> None:
    ungraded = _doc(overall=None, grade="-", notGraded="no tool was called (…)")
    lost = compare(load_baseline(_doc()), load_baseline(ungraded))
    assert "overall score 80 → not graded" in lost.regressions
    assert render_baseline(lost)[0] == "vs baseline: overall 80 → not graded, grade B → -"
    gained = compare(load_baseline(ungraded), load_baseline(_doc()))
    assert not any(line.startswith("overall") for line in gained.regressions)
    assert render_baseline(gained)[0] == "vs baseline: overall not graded → 80, grade - → B"
