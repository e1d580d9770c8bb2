"""Unit tests for fuzz case generation (SPEC §5 "Cases per tool")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

from mcprobe.core.cases.generate import EXTRA_GARBAGE_KEY, MAX_CASES, generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import ToolCases
from mcprobe.core.schema.dialect import is_valid
from tests.support.paths import REPO_ROOT


def _tool(schema: Any, name: str = "t") -> dict[str, Any]:
    return {"name": name, "inputSchema": schema}


def _obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or [], **extra}


def _args(result: ToolCases, label: str) -> Any:
    matches = [c.arguments for c in result.cases if c.label == label]
    assert matches, f"{label} not in {[c.label for c in result.cases]}"
    return matches[0]


def _labels(result: ToolCases) -> list[str]:
    return [c.label for c in result.cases]


def _dropped(result: ToolCases) -> dict[str, str]:
    return {d.label: d.reason for d in result.dropped}


# --------------------------------------------------------------------------- valid


def test_valid_case_holds_only_required_properties() -> None:
    result = generate_cases(_tool(_obj({"a": {"type": "string"}, "b": {"type": "integer"}}, ["b"])))
    assert _args(result, "valid") == {"b": 1}
    assert result.cases[0].kind is CaseKind.VALID and not result.cases[0].malformed


def test_valid_value_prefers_default_then_const_then_examples_then_enum() -> None:
    props = {
        "d": {"type": "integer", "default": 7, "const": 8},
        "c": {"type": "integer", "const": 8, "examples": [9]},
        "x": {"type": "integer", "examples": [9], "enum": [11, 9]},
        "e": {"type": "integer", "enum": [10, 11]},
    }
    result = generate_cases(_tool(_obj(props, ["d", "c", "x", "e"])))
    assert _args(result, "valid") == {"d": 8, "c": 8, "x": 9, "e": 10}


def test_a_default_that_does_not_validate_is_skipped_for_the_next_source() -> None:
    props = {"n": {"type": "integer", "minimum": 5, "default": 1, "examples": ["x", 6]}}
    assert _args(generate_cases(_tool(_obj(props, ["n"]))), "valid") == {"n": 5}


def test_valid_value_honours_numeric_bounds_and_multiple_of() -> None:
    props = {
        "i": {"type": "integer", "exclusiveMinimum": 3, "multipleOf": 5},
        "n": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "m": {"type": "integer", "maximum": -4},
    }
    valid = _args(generate_cases(_tool(_obj(props, ["i", "n", "m"]))), "valid")
    assert valid == {"i": 5, "n": 0.5, "m": -4}


def test_valid_strings_honour_length_pattern_and_format() -> None:
    props = {
        "code": {"type": "string", "pattern": r"^[A-Z]{3}-\d{4}$"},
        "long": {"type": "string", "minLength": 12},
        "short": {"type": "string", "maxLength": 3},
        "day": {"type": "string", "format": "date"},
        "id": {"type": "string", "format": "uuid"},
    }
    result = generate_cases(_tool(_obj(props, list(props))))
    valid = _args(result, "valid")
    assert valid["code"] == "AAA-0000"
    assert len(valid["long"]) == 12 and len(valid["short"]) <= 3
    assert is_valid({"type": "string", "format": "date"}, valid["day"])


def test_valid_case_follows_refs_unions_and_type_lists() -> None:
    schema = {
        "type": "object",
        "$defs": {"Pos": {"type": "integer", "minimum": 1}},
        "properties": {
            "ref": {"$ref": "#/$defs/Pos"},
            "union": {"anyOf": [{"type": "string", "minLength": 100000}, {"type": "boolean"}]},
            "maybe": {"type": ["null", "string"]},
            "pair": {"type": "array", "prefixItems": [{"const": "x"}, {"type": "integer"}]},
        },
        "required": ["ref", "union", "maybe", "pair"],
    }
    valid = _args(generate_cases(_tool(schema)), "valid")
    assert valid == {"ref": 1, "union": False, "maybe": "example", "pair": []}


def test_valid_arrays_honour_min_items_unique_items_and_contains() -> None:
    props = {
        "tags": {"type": "array", "items": {"type": "integer"}, "minItems": 3, "uniqueItems": True},
        "must": {"type": "array", "items": {"type": "string"}, "contains": {"const": "main"}},
    }
    valid = _args(generate_cases(_tool(_obj(props, ["tags", "must"]))), "valid")
    assert valid == {"tags": [1, 2, 3], "must": ["main"]}


def test_valid_objects_fill_nested_required_and_dependent_required() -> None:
    props = {
        "user": _obj({"name": {"type": "string"}, "age": {"type": "integer"}}, ["name"]),
        "token": {"type": "string"},
    }
    schema = _obj(props, ["user"], dependentRequired={"user": ["token"]})
    assert _args(generate_cases(_tool(schema)), "valid") == {
        "user": {"name": "example"},
        "token": "example",
    }


def test_if_then_else_takes_the_then_branch_when_it_can() -> None:
    schema = _obj(
        {"mode": {"enum": ["file", "url"]}, "path": {"type": "string"}},
        ["mode"],
        **{"if": {"properties": {"mode": {"const": "file"}}}, "then": {"required": ["path"]}},
    )
    assert _args(generate_cases(_tool(schema)), "valid") == {"mode": "file", "path": "example.txt"}


def test_missing_input_schema_is_treated_as_an_empty_object_schema() -> None:
    result = generate_cases({"name": "bare"})
    assert _labels(result) == ["valid", "non_object_arguments"]
    assert _args(result, "valid") == {}
    assert result.note is not None and "no inputSchema" in result.note


# --------------------------------------------------------------------------- malformed kinds


def test_missing_required_removes_exactly_one_required_field() -> None:
    result = generate_cases(
        _tool(_obj({"a": {"type": "string"}, "b": {"type": "string"}}, ["a", "b"]))
    )
    assert _args(result, "missing_required:a") == {"b": "example"}
    assert _args(result, "missing_required:b") == {"a": "example"}


def test_wrong_type_picks_a_value_outside_every_allowed_type() -> None:
    props = {
        "n": {"type": "number"},
        "s": {"type": "string"},
        "i_or_s": {"type": ["integer", "string"]},
        "e": {"enum": ["a", "b"]},
    }
    result = generate_cases(_tool(_obj(props)))
    assert _args(result, "wrong_type:n") == {"n": "mcprobe-wrong-type"}
    assert _args(result, "wrong_type:s") == {"s": 12345}
    assert _args(result, "wrong_type:i_or_s") == {"i_or_s": 1.5}
    assert _args(result, "wrong_type:e") == {"e": 12345}


def test_out_of_enum_uses_a_value_of_the_enums_own_type() -> None:
    props = {
        "s": {"enum": ["x", "y"]},
        "n": {"type": "integer", "enum": [1, 4]},
        "c": {"const": True},
    }
    result = generate_cases(_tool(_obj(props)))
    assert _args(result, "out_of_enum:s") == {"s": "mcprobe-not-in-enum"}
    assert _args(result, "out_of_enum:n") == {"n": 5}
    assert _args(result, "out_of_enum:c") == {"c": False}


def test_bounds_lengths_and_patterns_each_get_a_case_just_outside() -> None:
    props = {
        "n": {"type": "integer", "minimum": 1, "maximum": 10},
        "x": {"type": "number", "exclusiveMinimum": 0.5},
        "s": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"},
        "l": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "integer"}},
    }
    result = generate_cases(_tool(_obj(props, ["n", "x", "s", "l"])))
    valid = _args(result, "valid")
    assert valid == {"n": 1, "x": 1, "s": "aa", "l": [1]}
    assert _args(result, "below_minimum:n")["n"] == 0
    assert _args(result, "above_maximum:n")["n"] == 11
    assert _args(result, "below_minimum:x")["x"] == 0.5
    assert _args(result, "too_short:s")["s"] == "a"
    assert _args(result, "too_long:s")["s"] == "aaaaa"
    assert _args(result, "pattern_mismatch:s")["s"] == "!!"
    assert _args(result, "too_short:l")["l"] == []
    assert _args(result, "too_long:l")["l"] == [1, 1, 1]


def test_null_value_only_when_null_is_not_allowed() -> None:
    props = {
        "a": {"type": "string"},
        "b": {"type": ["string", "null"]},
        "c": {"type": "string", "nullable": True},
    }
    labels = _labels(generate_cases(_tool(_obj(props))))
    assert "null_value:a" in labels
    assert "null_value:b" not in labels and "null_value:c" not in labels


def test_nested_fields_are_labelled_with_dotted_paths() -> None:
    address = _obj({"zip": {"type": "string", "pattern": r"^\d{5}$"}}, ["zip"])
    result = generate_cases(_tool(_obj({"name": {"type": "string"}, "address": address}, ["name"])))
    assert _args(result, "missing_required:address.zip") == {"name": "example", "address": {}}
    assert _args(result, "pattern_mismatch:address.zip") == {
        "name": "example",
        "address": {"zip": "!"},
    }


def test_extra_garbage_only_when_the_schema_forbids_extra_keys() -> None:
    props = {"a": {"type": "string"}}
    closed = generate_cases(_tool(_obj(props, ["a"], additionalProperties=False)))
    assert _args(closed, "extra_garbage") == {"a": "example", EXTRA_GARBAGE_KEY: "mcprobe"}
    unevaluated = generate_cases(_tool(_obj(props, ["a"], unevaluatedProperties=False)))
    assert "extra_garbage" in _labels(unevaluated)
    assert "extra_garbage" not in _labels(generate_cases(_tool(_obj(props, ["a"]))))


def test_non_object_arguments_only_when_the_root_requires_an_object() -> None:
    assert _labels(generate_cases(_tool(_obj({}))))[-1] == "non_object_arguments"
    assert _args(generate_cases(_tool(_obj({}))), "non_object_arguments") == []
    untyped_root = {"properties": {"a": {"type": "string"}}}
    assert "non_object_arguments" not in _labels(generate_cases(_tool(untyped_root)))


# --------------------------------------------------------------------------- drop path


def test_wrong_type_for_an_untyped_field_is_dropped_not_emitted() -> None:
    result = generate_cases(_tool(_obj({"a": {}, "b": {"description": "anything"}}, ["a"])))
    assert not any(c.kind is CaseKind.WRONG_TYPE for c in result.cases)
    assert set(_dropped(result)) == {"wrong_type:a", "wrong_type:b"}


def test_a_would_be_malformed_case_that_validates_is_dropped_with_the_reason() -> None:
    # draft-07 ignores keywords beside "$ref": the field *looks* integer-typed but accepts
    # anything, so the generator's wrong_type and null_value guesses validate and must go.
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"any": {}},
        "type": "object",
        "properties": {"n": {"$ref": "#/definitions/any", "type": "integer", "minimum": 3}},
        "required": ["n"],
    }
    result = generate_cases(_tool(schema))
    assert _labels(result) == ["valid", "missing_required:n", "non_object_arguments"]
    dropped = _dropped(result)
    assert "validate against the input schema" in dropped["wrong_type:n"]
    assert set(dropped) == {"wrong_type:n", "below_minimum:n", "null_value:n"}


def test_a_pattern_that_matches_everything_gets_no_mismatch_case() -> None:
    result = generate_cases(_tool(_obj({"p": {"type": "string", "pattern": ".*"}})))
    assert "pattern_mismatch:p" not in _labels(result)
    assert "pattern_mismatch:p" in _dropped(result)


def test_without_a_valid_case_provably_malformed_cases_are_still_emitted() -> None:
    props = {"n": {"type": "integer", "minimum": 10, "maximum": 5}, "s": {"type": "string"}}
    result = generate_cases(_tool(_obj(props, ["n", "s"])))
    assert not result.valid_constructible
    assert result.note is not None and "no valid arguments" in result.note
    assert "valid" not in _labels(result)
    assert _args(result, "missing_required:s") == {}
    assert _args(result, "wrong_type:s") == {"s": 12345}


# --------------------------------------------------------------------------- unusable input


def test_an_invalid_input_schema_gets_no_cases_and_a_note() -> None:
    result = generate_cases(_tool(_obj({"a": {"type": "strin"}})))
    assert result.cases == () and not result.valid_constructible
    assert result.note is not None and "/properties/a/type" in result.note


def test_garbage_tool_definitions_never_raise() -> None:
    tool: Any
    for tool in (
        None,
        [],
        "x",
        {"name": 3, "inputSchema": 5},
        {"inputSchema": []},
        {"inputSchema": True},
    ):
        result = generate_cases(tool)
        assert result.cases == () and result.note


def test_an_unresolvable_ref_or_uncompilable_pattern_never_raises() -> None:
    remote = generate_cases(_tool(_obj({"a": {"$ref": "https://127.0.0.1:9/s.json"}}, ["a"])))
    assert not remote.valid_constructible
    bad_regex = generate_cases(_tool(_obj({"a": {"type": "string", "pattern": r"\p{L}+"}}, ["a"])))
    assert not bad_regex.valid_constructible and bad_regex.note


# --------------------------------------------------------------------------- hostile, caps


def test_hostile_schemas_return_quickly_with_a_reason() -> None:
    hostile = [
        _obj({"s": {"type": "string", "minLength": 10**9}}, ["s"]),
        _obj({"a": {"type": "array", "minItems": 10**9}}, ["a"]),
        _obj({"a": {"$ref": "#/properties/a"}}, ["a"]),
        {"$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}}, "$ref": "#/$defs/x"},
        _obj({"n": {"$ref": "#"}}, ["n"]),
        _obj(
            {
                "deep": {
                    "type": "array",
                    "minItems": 900,
                    "items": {"type": "array", "minItems": 900},
                }
            },
            ["deep"],
        ),
    ]
    for schema in hostile:
        start = time.process_time()
        result = generate_cases(_tool(schema))
        assert time.process_time() - start < 2.0
        assert not result.valid_constructible and result.note
    huge_max = generate_cases(_tool(_obj({"s": {"type": "string", "maxLength": 10**9}}, ["s"])))
    assert huge_max.valid_constructible
    assert "beyond the generator cap" in _dropped(huge_max)["too_long:s"]


def test_cases_are_capped_per_tool_keeping_the_core_kinds_first() -> None:
    props = {f"f{i:02}": {"type": "string", "minLength": 1, "maxLength": 5} for i in range(30)}
    result = generate_cases(_tool(_obj(props, list(props))))
    assert len(result.cases) == MAX_CASES
    kinds = {c.kind for c in result.cases}
    assert kinds == {CaseKind.VALID, CaseKind.MISSING_REQUIRED, CaseKind.WRONG_TYPE}
    assert any("cap of 40" in d.reason for d in result.dropped)


# --------------------------------------------------------------------------- determinism

_DUMP_SCRIPT = """
import json, sys
from mcprobe.core.cases.generate import generate_cases
from tests.support.schema_corpus import CORPUS
out = []
for entry in CORPUS:
    r = generate_cases(entry.tool)
    cases = [[c.label, c.arguments] for c in r.cases]
    dropped = [[d.label, d.reason] for d in r.dropped]
    out.append([r.tool, r.valid_constructible, r.note, cases, dropped])
sys.stdout.write(json.dumps(out, sort_keys=False))
"""


def test_cases_are_identical_across_processes_with_different_hash_seeds() -> None:
    root = REPO_ROOT
    dumps = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", _DUMP_SCRIPT],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        dumps.append(proc.stdout)
    assert dumps[0] == dumps[1]
    assert len(json.loads(dumps[0])) > 40
