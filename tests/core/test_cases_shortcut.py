"""The cheaper proof of malformed cases (one root conjunct) is sound and actually used.

Every case emitted here is re-checked with a *full* validation (``schema_dialect.is_valid``), so
a shortcut that called a valid object malformed would fail these tests."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
import referencing.exceptions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcprobe.core.cases import generate as cases_module
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import ToolCases
from mcprobe.core.schema.dialect import is_valid

DRAFT_07 = "http://json-schema.org/draft-07/schema#"

OWNER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 20},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "mode": {"enum": ["fast", "exact"]},
        "owner": {"$ref": "#/$defs/owner"},
    },
    "required": ["query", "owner"],
    "additionalProperties": False,
    "$defs": {
        "owner": {
            "type": "object",
            "properties": {"login": {"type": "string"}, "id": {"type": "integer"}},
            "required": ["login"],
        }
    },
}


def _assert_labels_hold(schema: dict[str, Any], result: ToolCases) -> None:
    assert result.cases
    for case in result.cases:
        assert is_valid(schema, case.arguments) is not case.malformed, case.label


def _count_full_validations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    real_is_valid = cases_module._Checker.is_valid
    real_errors = cases_module._Checker.errors

    def is_valid_spy(self: Any, instance: Any) -> Any:
        calls.append(instance)
        return real_is_valid(self, instance)

    def errors_spy(self: Any, instance: Any) -> Any:
        calls.append(instance)
        return real_errors(self, instance)

    monkeypatch.setattr(cases_module._Checker, "is_valid", is_valid_spy)
    monkeypatch.setattr(cases_module._Checker, "errors", errors_spy)
    return calls


def test_an_evolved_validator_resolves_refs_against_the_root_schema() -> None:
    root = jsonschema.validators.Draft202012Validator(OWNER_SCHEMA)
    owner = root.evolve(schema=OWNER_SCHEMA["properties"]["owner"])
    assert owner.is_valid({"login": "octocat"})
    assert not owner.is_valid({"id": 1})  # the $defs target's `required` was applied
    assert not owner.is_valid({"login": 5})
    lone = jsonschema.validators.Draft202012Validator(OWNER_SCHEMA["properties"]["owner"])
    with pytest.raises(referencing.exceptions.Unresolvable):
        lone.is_valid({"login": "octocat"})  # without the root's resolver the ref is unknown


def test_most_malformed_cases_are_proven_without_validating_the_whole_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = _count_full_validations(monkeypatch)
    result = generate_cases({"name": "search", "inputSchema": OWNER_SCHEMA})
    malformed = [c for c in result.cases if c.malformed]
    assert len(malformed) >= 12
    assert {"missing_required:query", "wrong_type:owner.login", "missing_required:owner.login"} <= {
        c.label for c in malformed
    }
    # only non_object_arguments (`[]`) is validated whole; `valid` was, by the synthesizer
    assert len(full) <= 1
    assert "extra_garbage" in {c.label for c in malformed}
    _assert_labels_hold(OWNER_SCHEMA, result)


def test_a_property_subschema_with_its_own_id_is_validated_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"$id": "https://example.com/n", "type": "integer", "minimum": 0}},
        "required": ["n"],
    }
    full = _count_full_validations(monkeypatch)
    result = generate_cases({"name": "t", "inputSchema": schema})
    labels = [c.label for c in result.cases if c.label.endswith(":n")]
    assert labels
    assert len(full) >= 1 + len([lb for lb in labels if not lb.startswith("missing_required")])
    _assert_labels_hold(schema, result)


def test_a_draft_07_root_with_a_ref_never_takes_the_shortcut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # draft-07 ignores the siblings of a `$ref`: here `properties` says nothing about validity.
    schema = {
        "$schema": DRAFT_07,
        "$ref": "#/definitions/args",
        "properties": {"n": {"type": "string"}},
        "definitions": {
            "args": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        },
    }
    full = _count_full_validations(monkeypatch)
    result = generate_cases({"name": "t", "inputSchema": schema})
    assert len(full) >= len(result.cases)
    _assert_labels_hold(schema, result)


def test_a_case_its_property_subschema_accepts_is_judged_by_the_whole_schema() -> None:
    # `b: null` passes the `b` property subschema, so the shortcut proves nothing; the root's
    # `allOf` conjunct rejects it, which only the full validation sees.
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": ["integer", "null"]}},
        "required": ["a", "b"],
        "allOf": [{"properties": {"b": {"type": "integer"}}}],
    }
    result = generate_cases({"name": "t", "inputSchema": schema})
    _assert_labels_hold(schema, result)
    checker = cases_module._Checker(jsonschema.validators.Draft202012Validator(schema))
    assert not checker.conjunct_rejects({"a": 1, "b": None}, ("b",))
    assert checker.conjunct_rejects({"a": 1, "b": "x"}, ("b",))
    assert checker.conjunct_rejects({"b": 1}, ("a",))  # the root's `required`


# --------------------------------------------------------------------------- generated


_leaf = st.sampled_from(
    [
        {"type": "integer", "minimum": 0, "maximum": 9},
        {"type": "string", "minLength": 1, "maxLength": 4},
        {"type": "string", "pattern": "^[a-z]+$"},
        {"enum": ["x", "y"]},
        {"type": ["integer", "null"]},
        {"$ref": "#/$defs/n"},
        {"$ref": "#/$defs/o"},
        {"allOf": [{"$ref": "#/$defs/n"}, {"maximum": 5}]},
        {},
    ]
)
_root_extras = st.sampled_from(
    [
        {},
        {"additionalProperties": False},
        {"allOf": [{"properties": {"a": {"type": "integer"}}}]},
        {"not": {"required": ["z"]}},
        {"dependentRequired": {"a": ["b"]}},
        {"patternProperties": {"^b$": {"type": "integer"}}},
        {"if": {"required": ["a"]}, "then": {"required": ["c"]}},
        {"minProperties": 2},
    ]
)
_DEFS = {
    "n": {"type": "integer", "minimum": 1},
    "o": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]},
}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _leaf, min_size=1, max_size=4),
    st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=3, unique=True),
    _root_extras,
)
def test_generated_schemas_with_refs_and_root_conjuncts_keep_every_label(
    props: dict[str, Any], required: list[str], extras: dict[str, Any]
) -> None:
    schema = {"type": "object", "properties": props, "required": required, "$defs": _DEFS}
    schema.update(extras)
    result = generate_cases({"name": "generated", "inputSchema": schema})
    for case in result.cases:
        assert is_valid(schema, case.arguments) is not case.malformed, case.label
        assert case.malformed is (case.kind is not CaseKind.VALID)


def test_the_valid_case_is_validated_in_full_exactly_once(monkeypatch: pytest.MonkeyPatch) -> None:
    roots: list[Any] = []
    real = cases_module._Checker.accepts

    def spy(self: Any, schema: Any, value: Any) -> bool:
        if schema is OWNER_SCHEMA:
            roots.append(value)
        return real(self, schema, value)

    monkeypatch.setattr(cases_module._Checker, "accepts", spy)
    full = _count_full_validations(monkeypatch)
    result = generate_cases({"name": "search", "inputSchema": OWNER_SCHEMA})
    valid = result.cases[0]
    assert valid.label == "valid"
    assert roots[-1] == valid.arguments  # the synthesizer's full check of the whole object
    assert valid.arguments not in full  # ... and no second one


def test_extra_keys_that_a_pattern_property_allows_are_judged_in_full() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "patternProperties": {"^__": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    result = generate_cases({"name": "t", "inputSchema": schema})
    assert "extra_garbage" not in {c.label for c in result.cases}  # `__mcprobe...` is allowed
    _assert_labels_hold(schema, result)
    checker = cases_module._Checker(jsonschema.validators.Draft202012Validator(schema))
    assert not checker.conjunct_rejects({"a": 1, "__x": "y"}, ("__x",))
    assert checker.conjunct_rejects({"a": 1, "zz": "y"}, ("zz",))


def test_a_nested_change_is_proven_inside_the_ref_target_with_its_own_base_uri() -> None:
    # The target moves the base URI; its inner `#/$defs/login` is the target's, not the root's.
    schema = {
        "type": "object",
        "properties": {"owner": {"$ref": "#/$defs/owner", "description": "who"}},
        "required": ["owner"],
        "$defs": {
            "owner": {
                "$id": "https://example.com/owner",
                "type": "object",
                "properties": {"login": {"$ref": "#/$defs/login"}},
                "required": ["login"],
                "$defs": {"login": {"type": "string", "minLength": 2}},
            },
            "login": {"type": "integer"},
        },
    }
    checker = cases_module._Checker(jsonschema.validators.Draft202012Validator(schema))
    assert checker.conjunct_rejects({"owner": {"login": 5}}, ("owner", "login"))
    assert checker.conjunct_rejects({"owner": {"login": "x"}}, ("owner", "login"))
    assert not checker.conjunct_rejects({"owner": {"login": "xy"}}, ("owner", "login"))
    assert checker.conjunct_rejects({"owner": {}}, ("owner", "login"))
    _assert_labels_hold(schema, generate_cases({"name": "t", "inputSchema": schema}))
