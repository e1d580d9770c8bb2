"""The dialect helper validates schemas and instances in the schema's own dialect."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import jsonschema.validators
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcprobe.core.schema import dialect as schema_dialect
from mcprobe.core.schema.dialect import (
    FLAT_2020_12_META_SCHEMA,
    TIED_2020_12_META_SCHEMA,
    SchemaProblem,
    instance_errors,
    is_valid,
    meta_problems,
    meta_validator,
    official_meta_validator,
    schema_problems,
)
from tests.support.paths import TESTS
from tests.support.schema_corpus import CORPUS

Draft202012 = jsonschema.validators.Draft202012Validator


def test_a_valid_2020_12_schema_has_no_problems() -> None:
    assert schema_problems({"type": "object", "properties": {"a": {"type": "string"}}}) == ()


def test_a_misspelled_type_is_a_problem_with_a_pointer() -> None:
    problems = schema_problems({"type": "object", "properties": {"a": {"type": "strin"}}})
    assert [p.pointer for p in problems] == ["/properties/a/type"]


def test_draft_07_schema_is_checked_under_draft_07() -> None:
    # "$defs" is not a keyword in draft-07, but "definitions" is; both are fine as unknown keys.
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "minProperties": "x"}
    assert [p.pointer for p in schema_problems(schema)] == ["/minProperties"]


def test_an_unknown_dialect_is_reported() -> None:
    assert schema_problems({"$schema": "http://example.invalid/s"})[0].pointer == "/$schema"


def test_local_refs_resolve_and_remote_refs_are_never_fetched() -> None:
    local = {"properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}}
    assert is_valid(local, {"a": 1})
    assert not is_valid(local, {"a": "x"})
    remote = {"properties": {"a": {"$ref": "http://127.0.0.1:9/x.json"}}}
    assert instance_errors(remote, {"a": 1}) != ()


def test_formats_are_asserted() -> None:
    assert not is_valid({"type": "string", "format": "date"}, "yesterday")
    assert is_valid({"type": "string", "format": "date"}, "2026-11-29")


def test_a_schema_nested_beyond_the_depth_limit_is_a_problem_naming_where_not_a_crash() -> None:
    schema: dict[str, object] = {"type": "object"}
    for _ in range(5000):
        schema = {"type": "object", "properties": {"a": schema}}
    where = "(at $.properties.a.properties.a.properties.a.properties.a… (92 more levels))"
    problems = schema_problems(schema)
    assert [p.message for p in problems] == [f"the schema nests deeper than 100 levels {where}"]
    assert problems[0].pointer.startswith("/properties/a/properties/a/")
    assert instance_errors(schema, {}) == (f"the schema nests deeper than 100 levels {where}",)


# --------------------------------------------------------------------------- the memo


@pytest.fixture
def meta_checks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every schema that really went through the meta-schema check (not the memo)."""
    calls: list[object] = []
    real = schema_dialect._check

    def counting(schema: Any) -> tuple[SchemaProblem, ...]:
        calls.append(schema)
        return real(schema)

    monkeypatch.setattr(schema_dialect, "_check", counting)
    return calls


def test_a_repeated_schema_is_answered_from_the_memo_without_a_second_check(
    meta_checks: list[object],
) -> None:
    schema = {"type": "object", "properties": {"memo_probe": {"type": "strin"}}}
    first = schema_problems(schema)
    second = schema_problems(json.loads(json.dumps(schema)))  # equal content, another object
    assert first == second and len(first) == 1
    assert len(meta_checks) == 1


def test_a_schema_sharing_one_subschema_object_twice_hits_the_memo_of_its_plain_copy(
    meta_checks: list[object],
) -> None:
    # The key is the content alone: not how often an object is shared or referenced.
    shared = {"type": "strin", "description": "shared"}
    schema = {"type": "object", "properties": {"a": shared, "b": shared}}
    first = schema_problems(schema)
    assert schema_problems(json.loads(json.dumps(schema))) == first != ()
    assert len(meta_checks) == 1


def test_a_schema_nested_past_the_depth_limit_is_named_at_any_depth_below_the_recursion_limit() -> (
    None
):
    for levels in (101, 150, 900):
        schema: dict[str, object] = {"type": "object"}
        for _ in range(levels):
            schema = {"type": "object", "properties": {"a": schema}}
        problems = schema_problems(schema)
        assert len(problems) == 1, levels
        assert problems[0].message.startswith("the schema nests deeper than 100 levels")


def test_brackets_inside_strings_do_not_make_a_shallow_schema_look_deep() -> None:
    schema = {"type": "object", "description": "[{(" * 200, "properties": {"a": {"type": "x"}}}
    assert [p.pointer for p in schema_problems(schema)] == ["/properties/a/type"]


def test_the_memo_tells_apart_schemas_that_differ_only_in_number_type_or_key_order() -> None:
    # 1 and 1.0 and true are different JSON; the key is the exact content.
    assert schema_problems({"minLength": 1}) == ()
    assert schema_problems({"minLength": True}) != ()
    assert schema_problems({"minLength": 1.5}) != ()
    assert schema_problems({"type": "strin", "minLength": 2}) == schema_problems(
        {"minLength": 2, "type": "strin"}
    )


def test_a_schema_that_is_not_json_text_is_still_checked() -> None:
    assert schema_problems({"minimum": float("nan"), "type": "strin"}) != ()


# --------------------------------------------------------------------------- flat meta-schema


def test_2020_12_schemas_are_checked_against_the_flattened_meta_schema_tied_in_memory() -> None:
    tied = meta_validator(Draft202012).schema
    assert tied is TIED_2020_12_META_SCHEMA
    assert tied["properties"]["items"] is tied  # `{"$ref": "#"}` became the root itself
    seen: set[int] = set()
    pending: list[Any] = [tied]
    while pending:  # the graph is cyclic: walk each object once
        node = pending.pop()
        if id(node) in seen or not isinstance(node, dict | list):
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            assert not isinstance(node.get("$ref"), str)  # no reference is left to look up
            pending += node.values()
        else:
            pending += node
    assert len(seen) > 50
    assert set(tied["properties"]) == set(FLAT_2020_12_META_SCHEMA["properties"])
    draft7 = jsonschema.validators.Draft7Validator
    assert meta_validator(draft7).schema is draft7.META_SCHEMA


def test_the_flattened_meta_schema_has_no_dynamic_references_and_no_outside_references() -> None:
    refs: list[str] = []
    dynamic: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            if isinstance(node.get("$dynamicRef"), str):
                dynamic.append(node["$dynamicRef"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(FLAT_2020_12_META_SCHEMA["properties"])
    assert refs and set(refs) == {"#"}
    assert dynamic == []


def _official(schema: Any) -> tuple[SchemaProblem, ...]:
    return meta_problems(official_meta_validator(Draft202012), schema)


def _flat(schema: Any) -> tuple[SchemaProblem, ...]:
    return meta_problems(meta_validator(Draft202012), schema)


def _assert_same_verdict(schema: Any) -> None:
    official, flat = _official(schema), _flat(schema)
    assert (official == ()) is (flat == ()), schema
    assert {(p.pointer, p.message) for p in official} == {(p.pointer, p.message) for p in flat}
    assert official == flat  # the same order, too


def _literal_dicts(path: Path) -> list[Any]:
    """Every dict literal in a test module that Python can evaluate on its own."""
    found: list[Any] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            try:
                found.append(ast.literal_eval(node))
            except ValueError:
                continue
    return found


_TESTS = TESTS
_FIXTURE_SCHEMAS = [
    *(entry.tool.get("inputSchema") for entry in CORPUS),
    *(entry.tool.get("outputSchema") for entry in CORPUS),
    *_literal_dicts(_TESTS / "core" / "test_lint.py"),
    *_literal_dicts(_TESTS / "core" / "test_cases.py"),
    *_literal_dicts(_TESTS / "support" / "schema_corpus.py"),
]


def test_the_equivalence_fixtures_include_invalid_schemas_and_many_valid_ones() -> None:
    verdicts = [_official(s) == () for s in _FIXTURE_SCHEMAS if isinstance(s, dict)]
    assert verdicts.count(True) >= 100
    assert verdicts.count(False) >= 10


@pytest.mark.parametrize("schema", _FIXTURE_SCHEMAS)
def test_flattened_and_official_meta_schemas_agree_on_every_fixture_schema(schema: Any) -> None:
    _assert_same_verdict(schema)


_SCHEMA_KEYWORDS = [
    "$id",
    "$schema",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "definitions",
    "dependencies",
    "$recursiveAnchor",
    "$recursiveRef",
    "x-vendor",
]
_TYPE_NAMES = ["array", "boolean", "integer", "null", "number", "object", "string", "strin"]

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.5, -1.5, 2.0, 1e300]),
    st.sampled_from(["", "a", "#", "#/$defs/x", "http://x/y", "^[a-z]+$", "(", *_TYPE_NAMES]),
)


def _schemas(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    value = st.one_of(
        _scalars,
        children,
        st.lists(st.one_of(_scalars, children), max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "$x", "c/d"]), children, max_size=3),
        st.lists(st.sampled_from(_TYPE_NAMES), max_size=3),
    )
    return st.one_of(
        st.booleans(),
        st.dictionaries(st.sampled_from(_SCHEMA_KEYWORDS), value, max_size=5),
    )


_random_schemas = st.recursive(st.booleans() | _scalars, _schemas, max_leaves=12)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_random_schemas)
def test_flattened_and_official_meta_schemas_agree_on_random_schemas(schema: Any) -> None:
    _assert_same_verdict(schema)


def test_forgetting_the_memo_makes_the_next_answer_a_fresh_check(
    meta_checks: list[object],
) -> None:
    schema = {"type": "object", "properties": {"forget_probe": {"type": "string"}}}
    schema_problems(schema)
    schema_dialect.forget_schemas()
    assert schema_problems(schema) == ()
    assert len(meta_checks) == 2
