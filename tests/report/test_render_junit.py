"""JUnit XML output: well-formed despite hostile target text, one test case per check."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mcprobe.report.render.junit import render_junit, xml_safe
from tests.support.report_samples import HOSTILE, clean_report, sample_report


def _suite(xml: str) -> ET.Element:
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    return suites[0]


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    matches = [
        c
        for c in suite.iter("testcase")
        if c.get("classname") == classname and c.get("name") == name
    ]
    assert len(matches) == 1, (classname, name)
    return matches[0]


def test_hostile_target_text_still_parses_as_xml() -> None:
    suite = _suite(render_junit(sample_report()))
    accepted = _case(suite, "mcprobe.demo.divide", "fuzz wrong_type:a")
    failure = accepted.find("failure")
    assert failure is not None and failure.text is not None
    assert "<b>&\"'</b>" in failure.text  # escaped on the way out, intact on the way back
    assert "\\x00" in failure.text and "\\x1b" in failure.text and "\\ud800" in failure.text


def test_xml_safe_replaces_every_character_xml_forbids() -> None:
    assert xml_safe(HOSTILE).startswith("bad\\x00\\x1b[31m")
    assert xml_safe("tab\tnewline\nreturn\r é 😀") == "tab\tnewline\nreturn\r é 😀"
    assert xml_safe("\ufffe\x7f") == "\\ufffe\x7f"


def test_suite_counts_match_its_test_cases() -> None:
    suite = _suite(render_junit(sample_report()))
    cases = suite.findall("testcase")
    assert suite.get("tests") == str(len(cases))
    assert suite.get("failures") == str(sum(c.find("failure") is not None for c in cases))
    assert suite.get("skipped") == str(sum(c.find("skipped") is not None for c in cases))
    assert suite.get("failures") == "10"
    assert suite.get("skipped") == "2"


def test_lint_errors_and_warnings_fail_but_info_only_is_reported() -> None:
    suite = _suite(render_junit(sample_report()))
    greet = _case(suite, "mcprobe.demo.greet", "lint")
    failure = greet.find("failure")
    assert failure is not None and failure.get("type") == "tool.missing_description"
    out = greet.find("system-out")
    assert out is not None and out.text is not None and "tool.no_annotations" in out.text
    assert _case(suite, "mcprobe.demo.well_behaved", "lint").find("failure") is None
    assert _case(suite, "mcprobe.demo", "server lint").find("failure") is not None


def test_critical_behaviours_fail_and_clean_rejections_pass() -> None:
    suite = _suite(render_junit(sample_report()))
    for classname, name, rule in [
        ("mcprobe.demo.divide", "fuzz wrong_type:a", "behavior.silently_accepted"),
        ("mcprobe.demo.greet", "fuzz valid", "behavior.empty_success"),
        ("mcprobe.demo.greet", "fuzz valid_output", "behavior.output_schema_violation"),
        ("mcprobe.demo.greet", "fuzz null_value:name", "behavior.protocol_crash"),
        ("mcprobe.demo.well_behaved", "fuzz valid", "behavior.timeout"),
        ("mcprobe.demo", "fuzz unknown_tool", "behavior.unknown_tool_accepted"),
    ]:
        failure = _case(suite, classname, name).find("failure")
        assert failure is not None and failure.get("type") == rule
    rejected = _case(suite, "mcprobe.demo.well_behaved", "fuzz wrong_type:x")
    assert rejected.find("failure") is None and rejected.find("skipped") is None


def test_failures_quote_the_reproducing_arguments() -> None:
    suite = _suite(render_junit(sample_report()))
    failure = _case(suite, "mcprobe.demo.divide", "fuzz wrong_type:a").find("failure")
    assert failure is not None and failure.text is not None
    assert 'arguments: {"a":"x","b":2}' in failure.text


def test_skipped_tools_and_not_run_cases_are_skipped_with_a_reason() -> None:
    suite = _suite(render_junit(sample_report()))
    skipped_tool = _case(suite, "mcprobe.demo.delete_all", "fuzz").find("skipped")
    assert skipped_tool is not None and skipped_tool.get("message") == "may be destructive"
    not_run = _case(suite, "mcprobe.demo.well_behaved", "fuzz extra_garbage").find("skipped")
    assert not_run is not None and not_run.get("message") == "target died"


def test_a_clean_server_has_no_failures() -> None:
    suite = _suite(render_junit(clean_report()))
    assert suite.get("failures") == "0"
    assert suite.get("tests") == "4"  # server lint, ok_tool lint, two fuzz cases
