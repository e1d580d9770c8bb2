"""The JSON report and its published JSON Schema."""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

import jsonschema

from mcprobe.report.model import SCHEMA_VERSION, ConformanceReport
from mcprobe.report.render.json_report import render_json, report_schema_text
from tests.support.report_samples import clean_report, sample_report


def _committed_schema_text() -> str:
    return (importlib.resources.files("mcprobe") / "schemas" / "report.schema.json").read_text(
        encoding="utf-8"
    )


def _validator() -> jsonschema.Draft202012Validator:
    schema: dict[str, Any] = json.loads(_committed_schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_committed_schema_equals_the_one_generated_from_the_model() -> None:
    assert _committed_schema_text() == report_schema_text(), "run scripts/gen-schema"


def test_rendered_reports_validate_against_the_published_schema() -> None:
    validator = _validator()
    for report in (sample_report(), clean_report()):
        errors = list(validator.iter_errors(json.loads(render_json(report))))
        assert errors == [], [e.message for e in errors[:3]]


def test_the_schema_rejects_a_report_with_an_unknown_outcome() -> None:
    data = json.loads(render_json(sample_report()))
    data["fuzz"][0]["outcome"] = "exploded"
    assert not _validator().is_valid(data)
    del data["fuzz"][0]["outcome"]
    assert not _validator().is_valid(data)


def test_json_is_camel_case_and_starts_with_the_versions() -> None:
    data = json.loads(render_json(sample_report()))
    assert list(data)[:2] == ["schemaVersion", "mcprobeVersion"]
    assert data["schemaVersion"] == SCHEMA_VERSION
    assert "silentlyAccepted" in data["fuzz"][0]
    assert data["target"]["envNames"] == ["API_KEY"]


def test_json_round_trips_into_the_model() -> None:
    report = sample_report()
    # json.loads, not model_validate_json: pydantic's parser refuses the lone surrogate that the
    # sample's hostile text carries (escaped as \\ud800), Python's json accepts it.
    assert ConformanceReport.model_validate(json.loads(render_json(report))) == report


def test_json_is_deterministic_two_space_ascii() -> None:
    first = render_json(sample_report())
    assert first == render_json(sample_report())
    assert first.isascii()
    assert first.startswith(f'{{\n  "schemaVersion": "{SCHEMA_VERSION}",\n')
    assert first.endswith("}\n")
