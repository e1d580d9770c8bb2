"""The builder's records made without pydantic's validation (``model.trusted``) are the records
validation makes: same values, same field order, same fields set, target text as safe."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pydantic import ConfigDict

from mcprobe.core.model import CaseResult, CaseSource, Finding, Outcome, Severity
from mcprobe.core.schema.json_depth import MAX_JSON_DEPTH
from mcprobe.core.schema.safe_json import safe_value
from mcprobe.core.verdicts import bystander_verdicts
from mcprobe.report.build import _finding_out, to_result_out
from mcprobe.report.model import (
    FindingOut,
    FuzzResultOut,
    LocationOut,
    _already_safe,
    safe_field,
    trusted,
)
from tests.support.synthetic_audits import finding, result


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


VALUES: list[Any] = [
    {"a": 1, "b": [True, None, 2.5, "x"], "c": {"d": ()}},
    {"half": "\ud83d"},
    {"\udc00key": 1},
    {"é": "ünïcode", "list": ["fine…"]},
    [1.0, float("nan")],
    {"x": float("inf")},
    ("tuple", ["\ud800"]),
    {1: "int key", None: "none key"},
    nested(MAX_JSON_DEPTH - 1),
    nested(MAX_JSON_DEPTH),
    nested(MAX_JSON_DEPTH + 5),
    [],
    {},
]


@pytest.mark.parametrize("value", VALUES)
def test_already_safe_is_exactly_when_safe_value_changes_nothing(value: Any) -> None:
    made_safe = safe_value(value)
    assert _already_safe(value) == (made_safe is value)
    assert repr(safe_field(value)) == repr(made_safe)


def validated(r: CaseResult, crashed_by: str | None = None) -> FuzzResultOut:
    """The record as pydantic validation makes it (how the builder made every one before)."""
    return FuzzResultOut(
        name=r.tool,
        case=r.label,
        kind=str(r.kind),
        malformed=r.malformed,
        outcome=r.outcome.value,
        silently_accepted=r.silently_accepted,
        empty_success=r.empty_success,
        output_schema_violation=r.output_schema_violation,
        leak=r.leak,
        arguments=r.arguments,
        latency_ms=float(round(r.latency_ms)),
        error_code=r.error_code,
        message=r.message,
        note=r.note,
        source=r.source.value,
        failure_as_success=r.failure_as_success,
        environment=r.environment,
        inconclusive=r.inconclusive,
        validation_bypass=r.validation_bypass,
        verdicts=bystander_verdicts(r.verdicts, f"{r.tool} {r.label}", crashed_by),
    )


def same(made: Any, expected: Any) -> None:
    assert type(made) is type(expected)
    assert made == expected
    assert list(made.__dict__) == list(type(made).model_fields)
    assert made.model_fields_set == expected.model_fields_set
    assert made.model_dump_json(by_alias=True) == expected.model_dump_json(by_alias=True)


CASES: list[CaseResult] = [
    result("t", "valid", Outcome.OK, {"a": 1}),
    replace(
        result(
            "t\ud83d",
            "wrong_type:\udc00",
            Outcome.PROTOCOL_ERROR,
            {"\ud800": [float("nan"), "\udfff"]},
            error_code=-32602,
            message="half \ud83d emoji",
            note="n\ud800",
            environment="env \udbff",
            inconclusive="why \ud801",
            source=CaseSource.SCHEMA,
        ),
        verdicts=("crash", "leak"),
    ),
    result("t", "null_value:v", Outcome.OK, {"v": nested(MAX_JSON_DEPTH + 3)}, latency_ms=12.6),
    replace(result("t", "missing_required:k", Outcome.TIMEOUT, None), verdicts=("crash",)),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("crashed_by", [None, "t missing_required:k", "other case"])
def test_a_fuzz_record_is_the_validated_one(case: CaseResult, crashed_by: str | None) -> None:
    same(to_result_out(case, crashed_by), validated(case, crashed_by))


def test_a_result_off_its_declared_types_takes_the_validating_path() -> None:
    """A library caller's ``malformed=1`` is coerced by pydantic as it always was."""
    odd = replace(CASES[0], malformed=1)  # type: ignore[arg-type]
    out = to_result_out(odd)
    assert out.malformed is True
    same(out, validated(odd))
    with pytest.raises(ValueError, match="validation error"):
        to_result_out(replace(CASES[0], message=["not", "text"]))  # type: ignore[arg-type]


FINDINGS: list[Finding] = [
    finding("tool.x", Severity.ERROR, "Tool `t` is bad.", "Fix `t`.", "t", None),
    finding("param.y", Severity.WARNING, "half \ud83d", "hint \udc00", "t\ud800", "p\udbff"),
    finding("server.z", Severity.INFO, "server-wide", "h", None, None),
]


@pytest.mark.parametrize("item", FINDINGS)
def test_a_finding_record_is_the_validated_one(item: Finding) -> None:
    where = item.location
    expected = FindingOut(
        code=item.code,
        severity=item.severity.value,
        message=item.message,
        location=LocationOut(
            tool=where.tool,
            param=where.param,
            pointer=where.pointer,
            resource=where.resource,
            prompt=where.prompt,
        ),
        hint=item.hint,
    )
    made = _finding_out(item)
    same(made, expected)
    same(made.location, expected.location)


def test_trusted_refuses_a_model_that_is_not_frozen() -> None:
    class Loose(LocationOut):
        model_config = ConfigDict(**{**LocationOut.model_config, "frozen": False})

    with pytest.raises(TypeError, match="not frozen"):
        trusted(Loose, {})


def test_a_copy_of_a_trusted_record_does_not_touch_the_shared_fields_set() -> None:
    first, second = to_result_out(CASES[0]), to_result_out(CASES[0])
    assert first.model_fields_set is second.model_fields_set
    copied = first.model_copy(update={"verdicts": ["crash"]})
    assert copied.verdicts == ["crash"] and first.verdicts == []
    assert second.model_fields_set == set(FuzzResultOut.model_fields)
