"""A report that is not graded (no tool of a server with tools was called) reads "not graded",
with its reason, in every format and consumer; a graded one never does."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from mcprobe import render_report
from mcprobe.cli.many import _Row, summary_table
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.badge import render_badge
from mcprobe.report.render.step_summary import render_step_summary
from mcprobe.report.render.terminal import render_terminal
from tests.support.report_samples import sample_report

REASON = (
    "no tool was called (the audit ran without fuzz), so Error Handling and Liveness of the "
    "tools were not measured; run with --fuzz"
)


def _ungraded() -> ConformanceReport:
    return sample_report().model_copy(
        update={"overall": None, "grade": "-", "not_graded": REASON, "coverage": None}
    )


def _texts(report: ConformanceReport) -> dict[str, str]:
    return {
        "md": render_report(report, "md"),
        "html": render_report(report, "html"),
        "terminal": render_terminal(report, colour=False),
        "step": render_step_summary(report),
        "table": summary_table([_Row("srv", 0, report=report)]),
        "badge": render_badge(report.overall, report.grade),
    }


@pytest.mark.parametrize("kind", ["md", "html", "terminal", "step", "table", "badge"])
def test_every_human_format_says_not_graded_only_when_the_report_is_not_graded(kind: str) -> None:
    assert "not graded" in _texts(_ungraded())[kind].lower()
    assert "not graded" not in _texts(sample_report())[kind].lower()


@pytest.mark.parametrize("kind", ["md", "html", "terminal", "step"])
def test_the_human_formats_give_the_reason(kind: str) -> None:
    text = _texts(_ungraded())[kind].replace("\\_", "_")
    assert "no tool was called (the audit ran without fuzz)" in text
    assert "run with --fuzz" in text


def test_json_sarif_and_junit_carry_the_reason_as_data() -> None:
    report = _ungraded()
    data = json.loads(render_report(report, "json"))
    assert (data["overall"], data["grade"], data["notGraded"]) == (None, "-", REASON)
    sarif = json.loads(render_report(report, "sarif"))
    props = sarif["runs"][0]["properties"]
    assert (props["overall"], props["grade"], props["notGraded"]) == (None, "-", REASON)
    junit = ET.fromstring(render_report(report, "junit"))
    values = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert (values["overall"], values["grade"], values["notGraded"]) == ("", "-", REASON)
    graded = json.loads(render_report(sample_report(), "sarif"))["runs"][0]["properties"]
    assert graded["notGraded"] is None and graded["overall"] is not None
