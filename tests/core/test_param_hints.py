"""Well-known parameter names get a working value before the generic synthesis, always checked
against the schema."""

from __future__ import annotations

from typing import Any

import pytest

from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.cases.param_hints import NAME_HINTS, hinted_values
from mcprobe.core.model import JSON
from mcprobe.core.schema.dialect import is_valid


def valid_arguments(properties: dict[str, Any], required: list[str]) -> JSON:
    tool = {
        "name": "t",
        "inputSchema": {"type": "object", "properties": properties, "required": required},
    }
    (valid,) = [c for c in generate_cases(tool).cases if c.kind is CaseKind.VALID]
    return valid.arguments


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("timezone", "UTC"),
        ("source_timezone", "UTC"),
        ("targetTimeZone", "UTC"),
        ("time_zone", "UTC"),
        ("TZ", "UTC"),
        ("image_url", "https://example.com/"),
        ("fileName", "example.txt"),
        ("user-email", "user@example.com"),
        ("lang", "en"),
        ("q", "test"),
    ],
)
def test_well_known_names_match_whole_or_by_their_last_words(name: str, expected: str) -> None:
    assert hinted_values(name) == (expected,)


@pytest.mark.parametrize("name", ["x", "slang", "qq", "name", "query_string", "", None, "a" * 200])
def test_other_names_get_no_hint(name: str | None) -> None:
    assert hinted_values(name) == ()


def test_no_hint_is_an_absolute_path() -> None:
    for values in NAME_HINTS.values():
        assert not any(isinstance(v, str) and v.startswith("/") for v in values)


def test_the_time_servers_schema_gets_a_call_it_can_answer() -> None:
    text = {"type": "string"}
    args = valid_arguments(
        {"source_timezone": text, "time": text, "target_timezone": text},
        ["source_timezone", "time", "target_timezone"],
    )
    assert args == {"source_timezone": "UTC", "time": "12:00", "target_timezone": "UTC"}


def test_a_hint_the_schema_rejects_is_skipped() -> None:
    properties = {
        "timezone": {"type": "string", "pattern": "^[A-Z][a-z]+/[A-Z][a-z]+$"},
        "path": {"type": "string", "pattern": "^/"},
        "q": {"type": "integer"},
    }
    args = valid_arguments(properties, ["timezone", "path", "q"])
    schema = {"type": "object", "properties": properties}
    assert args["timezone"] != "UTC" and args["path"] != "example.txt" and args["q"] != "test"
    assert is_valid(schema, args)


def test_the_schemas_own_examples_and_enum_win_over_a_hint() -> None:
    args = valid_arguments(
        {
            "timezone": {"type": "string", "examples": ["Europe/Paris"]},
            "lang": {"type": "string", "enum": ["fr", "de"]},
        },
        ["timezone", "lang"],
    )
    assert args == {"timezone": "Europe/Paris", "lang": "fr"}


def test_optional_parameters_stay_out_of_the_valid_call() -> None:
    assert valid_arguments({"timezone": {"type": "string"}}, []) == {}
