"""mcprobe badge REPORT.json: a shields-style SVG that parses, says the score and grade, and is
coloured by the grade."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mcprobe.cli.commands import run
from mcprobe.report.render.badge import render_badge

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("overall", "grade", "colour"), [(95, "A", "#4c1"), (65, "C", "#dfb317"), (10, "F", "#e05d44")]
)
def test_the_badge_shows_score_and_grade_in_the_grade_colour(
    overall: int, grade: str, colour: str
) -> None:
    svg = render_badge(overall, grade)
    assert f"{overall}/100 {grade}" in _texts(svg)
    assert f'fill="{colour}"' in svg


def test_an_ungraded_report_gets_a_grey_not_graded_badge() -> None:
    svg = render_badge(None, "-")
    assert "not graded" in _texts(svg) and 'fill="#9f9f9f"' in svg
    assert "not graded" not in _texts(render_badge(71, "C"))


def test_the_command_gives_a_report_with_no_tool_called_a_not_graded_badge(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    ungraded: dict[str, object] = {
        "overall": None,
        "grade": "-",
        "notGraded": "no tool was called",
        "dimensions": [],
    }
    report.write_text(json.dumps(ungraded))
    out, err = io.StringIO(), io.StringIO()
    assert run(["badge", str(report)], out, err) == 0, err.getvalue()
    assert "not graded" in _texts(out.getvalue())


def test_a_label_is_xml_escaped() -> None:
    svg = render_badge(80, "B", label="<a&b>")
    ET.fromstring(svg)  # still well-formed
    assert "<a&b>" in _texts(svg)


def test_the_command_reads_a_json_report_and_prints_the_svg(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"overall": 71, "grade": "C", "dimensions": []}))
    out, err = io.StringIO(), io.StringIO()
    assert run(["badge", str(report), "--label", "MCP audit"], out, err) == 0
    assert _texts(out.getvalue())[:2] == ["MCP audit", "MCP audit"]
    assert "71/100 C" in _texts(out.getvalue())


def test_a_file_that_is_not_a_report_is_a_one_line_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"overall": "lots", "dimensions": []}')
    out, err = io.StringIO(), io.StringIO()
    assert run(["badge", str(bad)], out, err) == 1
    assert "overall" in err.getvalue() and len(err.getvalue().splitlines()) == 1
    assert out.getvalue() == ""
