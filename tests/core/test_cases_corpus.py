"""The case generator's promise over a corpus of realistic schemas and over generated ones:
every ``valid`` case validates, every malformed case does not, labels are unique and ordered."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcprobe.core.cases.generate import MAX_CASES, generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import ToolCases
from mcprobe.core.schema.dialect import is_valid
from tests.support.schema_corpus import CORPUS, CorpusTool

_KIND_ORDER: dict[str, int] = {kind: i for i, kind in enumerate(CaseKind)}


def _schema(tool: dict[str, Any]) -> Any:
    return tool.get("inputSchema", {"type": "object"})


def _assert_promise(schema: Any, result: ToolCases) -> None:
    for case in result.cases:
        assert is_valid(schema, case.arguments) is not case.malformed, case.label
        assert case.malformed is (case.kind is not CaseKind.VALID)
        assert case.label.split(":", 1)[0] == case.kind
    labels = [c.label for c in result.cases]
    assert len(labels) == len(set(labels))
    assert len(result.cases) <= MAX_CASES
    assert result.valid_constructible is (bool(labels) and labels[0] == "valid")
    assert "valid" not in labels[1:]
    tail = [c.kind for c in result.cases if c.kind in _TAIL_KINDS]
    assert [c.kind for c in result.cases[len(result.cases) - len(tail) :]] == tail
    assert tail == sorted(tail, key=_KIND_ORDER.__getitem__)


_TAIL_KINDS = (CaseKind.EXTRA_GARBAGE, CaseKind.NON_OBJECT_ARGUMENTS)


@pytest.mark.parametrize("entry", CORPUS, ids=lambda e: e.name)
def test_corpus_cases_keep_the_validation_promise(entry: CorpusTool) -> None:
    result = generate_cases(entry.tool)
    assert result.tool == entry.name
    _assert_promise(_schema(entry.tool), result)
    assert result.valid_constructible is entry.valid_expected, result.note


def test_corpus_is_large_and_most_of_it_gets_a_valid_case() -> None:
    results = [generate_cases(entry.tool) for entry in CORPUS]
    assert len(CORPUS) >= 54  # grows with each case kind (the coverage test below)
    constructible = sum(r.valid_constructible for r in results)
    assert constructible == sum(entry.valid_expected for entry in CORPUS) >= 49


def test_corpus_covers_every_malformed_kind_at_least_once() -> None:
    kinds = {case.kind for entry in CORPUS for case in generate_cases(entry.tool).cases}
    assert kinds == set(CaseKind) - {CaseKind.UNKNOWN_TOOL}


def test_fields_appear_in_schema_property_order_and_kinds_in_enum_order() -> None:
    tool = next(e.tool for e in CORPUS if e.name == "list_issues")
    props = list(tool["inputSchema"]["properties"])
    field_cases = [c for c in generate_cases(tool).cases if ":" in c.label]
    keys = [(props.index(c.label.split(":")[1]), _KIND_ORDER[c.kind]) for c in field_cases]
    assert keys == sorted(keys)
    assert len(field_cases) > 10


# --------------------------------------------------------------------------- generated schemas

_leaf = st.one_of(
    st.builds(
        lambda lo, span, excl: (
            {"type": "integer", "minimum": lo, "maximum": lo + span}
            | ({"exclusiveMinimum": lo} if excl else {})
        ),
        st.integers(-50, 50),
        st.integers(0, 20),
        st.booleans(),
    ),
    st.builds(
        lambda lo, step: {"type": "number", "minimum": lo, "multipleOf": step},
        st.floats(-10, 10, allow_nan=False).map(lambda x: round(x, 2)),
        st.sampled_from([0.5, 0.25, 2, 3]),
    ),
    st.builds(
        lambda lo, extra, pattern: (
            {"type": "string", "minLength": lo, "maxLength": lo + extra}
            | ({"pattern": pattern} if pattern else {})
        ),
        st.integers(0, 6),
        st.integers(0, 6),
        st.sampled_from([None, "^[a-z]+$", r"^\d{3}-\d{2}$", "^(foo|bar)_[0-9]*$", "x"]),
    ),
    st.sampled_from(
        [
            {"type": "string", "format": "date"},
            {"type": "string", "format": "email"},
            {"type": "string", "format": "uuid"},
            {"type": "boolean"},
            {"type": "null"},
            {"type": ["string", "null"]},
            {"type": ["integer", "string"]},
            {"enum": ["a", "b", 3]},
            {"const": "fixed"},
            {},
            {"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string", "minLength": 2}]},
        ]
    ),
)


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    def build(props: dict[str, Any], req: list[bool], closed: bool) -> dict[str, Any]:
        names = list(props)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": props,
            "required": [n for n, r in zip(names, req, strict=False) if r],
        }
        if closed:
            schema["additionalProperties"] = False
        return schema

    return st.builds(
        build,
        st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), children, max_size=4),
        st.lists(st.booleans(), min_size=4, max_size=4),
        st.booleans(),
    )


_schemas = st.recursive(
    _leaf,
    lambda kids: st.one_of(
        _objects(kids),
        st.builds(
            lambda items, n, unique: (
                {"type": "array", "items": items, "minItems": n}
                | ({"uniqueItems": True} if unique else {})
            ),
            kids,
            st.integers(0, 3),
            st.booleans(),
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_objects(_schemas))
def test_generated_schemas_never_yield_a_mislabelled_case(schema: dict[str, Any]) -> None:
    result = generate_cases({"name": "generated", "inputSchema": schema})
    _assert_promise(schema, result)
    assert generate_cases({"name": "generated", "inputSchema": schema}) == result
