"""``QuickCheck`` answers exactly as the real validator does, or not at all.

It replaces ``jsonschema`` decisions on the case generator's hot path, so every answer it gives
is compared here with ``cls(root).evolve(schema=sub).is_valid(instance)`` on the schema corpus,
on the synthetic benchmark listing and on generated schemas in every dialect it handles, with
instances that are the generated cases' arguments and small JSON values of every type."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry

from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.quick_check import QuickCheck
from mcprobe.core.schema.dialect import schema_problems, validator_class_for
from tests.support.schema_corpus import CORPUS
from tests.support.synthetic_listing import rich_tool

_CHECKER = jsonschema.FormatChecker()
_REGISTRY: Registry[Any] = Registry()

_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -3,
    1.0,
    1.5,
    2**70,
    "",
    "a",
    "abc",
    "2024-01-15",
    "not-a-date",
    "user@example.com",
    "00000000-0000-4000-8000-000000000000",
    "[",
    "^[a-z]+$",
    [],
    [1],
    ["a", "b"],
    [1, 1],
    {},
    {"a": 1},
    {"k": "x"},
    {"login": "octocat"},
    {"__x": 1, "zz": "y"},
]


def _subschemas(schema: Any, depth: int = 0) -> list[Any]:
    """``schema`` and the subschemas below it (a bounded walk over the usual keywords)."""
    found = [schema]
    if depth > 4 or not isinstance(schema, dict):
        return found
    for key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
        if isinstance(schema.get(key), dict):
            for sub in schema[key].values():
                found += _subschemas(sub, depth + 1)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(schema.get(key), list):
            for sub in schema[key]:
                found += _subschemas(sub, depth + 1)
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "propertyNames"):
        if isinstance(schema.get(key), dict | bool):
            found += _subschemas(schema[key], depth + 1)
    return found


def _instances(tool: dict[str, Any]) -> list[Any]:
    cases = generate_cases(tool).cases
    found: list[Any] = [case.arguments for case in cases]
    for case in cases:
        if isinstance(case.arguments, dict):
            found += list(case.arguments.values())
    return found + _VALUES


def _compare(schema: Any, instances: list[Any]) -> tuple[int, int]:
    """(answers given, answers compared) for ``schema`` and its subschemas; asserts each."""
    cls = validator_class_for(schema)
    if cls is None or schema_problems(schema):
        return 0, 0
    root = cls(schema, registry=_REGISTRY, format_checker=_CHECKER)
    quick = QuickCheck(schema, cls, _CHECKER)
    answered = total = 0
    for sub in _subschemas(schema):
        validator = root.evolve(schema=sub)
        for instance in instances:
            verdict = quick.decide(sub, instance)
            total += 1
            if verdict is None:
                continue
            answered += 1
            assert verdict is bool(validator.is_valid(instance)), (sub, instance)
    return answered, total


def test_the_corpus_and_the_benchmark_listing_are_judged_as_the_validator_judges() -> None:
    answered = total = 0
    tools = [entry.tool for entry in CORPUS] + [rich_tool(i) for i in range(6)]
    for tool in tools:
        schema = tool.get("inputSchema", {"type": "object"})
        if isinstance(schema, dict):
            got, seen = _compare(schema, _instances(tool))
            answered, total = answered + got, total + seen
    assert total > 5000
    assert answered > 0.8 * total  # it answers most questions (so this test can fail)


def test_the_keyword_alone_is_judged_as_the_keyword_function_judges() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "patternProperties": {"^_": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    cls = jsonschema.validators.Draft202012Validator
    root = cls(schema)
    quick = QuickCheck(schema, cls, _CHECKER)
    for instance in [{"a": 1}, {}, {"a": 1, "_x": "y"}, {"a": 1, "zz": 2}, [], "x"]:
        for keyword in ("required", "additionalProperties"):
            errors = list(cls.VALIDATORS[keyword](root, schema[keyword], instance, schema) or ())
            assert quick.decide_keyword(keyword, schema, instance) is (not errors)


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"},
        {"type": "array", "uniqueItems": True},
        {"type": "object", "properties": {"a": {"$id": "https://example.com/a", "type": "string"}}},
        {"properties": {"a": {"$ref": "#/$defs/missing"}}},
        {"type": "string", "pattern": "("},
    ],
)
def test_what_it_does_not_restate_it_does_not_answer(schema: dict[str, Any]) -> None:
    cls = validator_class_for(schema)
    quick = QuickCheck(schema, cls, _CHECKER)
    instance: Any = {"a": "x"} if "properties" in schema else ["x", "x"]
    if schema.get("type") == "string":
        instance = "x"
    assert quick.decide(schema, instance) is None


# --------------------------------------------------------------------------- generated

_DIALECTS = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-04/schema#",
]
_leaf = st.sampled_from(
    [
        {},
        True,
        False,
        {"type": "integer", "minimum": 0, "maximum": 9},
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        {"type": "integer", "minimum": 1, "exclusiveMinimum": True},
        {"type": "number", "multipleOf": 0.5},
        {"type": "integer", "multipleOf": 3},
        {"type": "string", "minLength": 1, "maxLength": 4},
        {"type": "string", "pattern": "^[a-z]+$"},
        {"type": "string", "format": "date"},
        {"type": "string", "format": "email"},
        {"enum": ["x", "y", 1, None]},
        {"enum": [1.0, True, [1], {"a": 1}]},
        {"const": 1},
        {"const": False},
        {"type": ["integer", "null"]},
        {"type": ["number", "string"]},
        {"$ref": "#/$defs/n"},
        {"$ref": "#/definitions/n", "type": "string"},
        {"$ref": "#"},
        {"allOf": [{"$ref": "#/$defs/n"}, {"maximum": 5}]},
        {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^a"}]},
        {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        {"not": {"type": "string"}},
        {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}},
        {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        {"type": "array", "items": [{"type": "integer"}], "additionalItems": False},
        {"type": "array", "prefixItems": [{"type": "integer"}], "items": False},
        {"type": "array", "contains": {"type": "integer"}},
        {"type": "array", "uniqueItems": True},
        {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]},
        {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1},
        {"type": "object", "propertyNames": {"maxLength": 1}},
        {"dependentRequired": {"a": ["k"]}},
        {"dependentSchemas": {"a": {"required": ["k"]}}},
    ]
)
_root_extras = st.sampled_from(
    [
        {},
        {"additionalProperties": False},
        {"patternProperties": {"^_": {"type": "integer"}}, "additionalProperties": False},
        {"allOf": [{"properties": {"a": {"type": "integer"}}}]},
        {"not": {"required": ["z"]}},
        {"minProperties": 2, "maxProperties": 3},
        {"unevaluatedProperties": False},
        {"dependencies": {"a": ["b"]}},
        {"$ref": "#/$defs/o"},
    ]
)
_DEFS = {
    "n": {"type": "integer", "minimum": 1},
    "o": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]},
}
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.floats(-2, 12)
    | st.text("ab_-1", max_size=5),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from("abk_z"), kids, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(_DIALECTS),
    st.dictionaries(st.sampled_from(["a", "b", "k", "_x"]), _leaf, min_size=1, max_size=4),
    st.lists(st.sampled_from(["a", "b", "k"]), max_size=2, unique=True),
    _root_extras,
    st.lists(_json, min_size=1, max_size=8),
)
def test_generated_schemas_and_values_are_judged_as_the_validator_judges(
    dialect: str,
    props: dict[str, Any],
    required: list[str],
    extras: dict[str, Any],
    values: list[Any],
) -> None:
    schema: dict[str, Any] = {
        "$schema": dialect,
        "type": "object",
        "properties": props,
        "$defs": _DEFS,
        "definitions": _DEFS,
        **({"required": required} if required else {}),
    }
    schema.update(extras)
    instances = values + [{name: value for name in props} for value in values]
    _compare(schema, instances + _instances({"name": "g", "inputSchema": schema}))
