"""The case generator's structural fast paths give exactly what the plain paths give.

Each test builds the same thing both ways (or checks the property the fast path relies on), so a
fast path that changed a case, an order, a label or a note would fail here."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from mcprobe.core.cases import generate, kinds, values
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import REMOVE
from mcprobe.core.cases.values import copy_json
from mcprobe.core.schema.dialect import validator_class_for
from mcprobe.core.schema.view import flatten
from tests.support.schema_corpus import CORPUS
from tests.support.synthetic_listing import rich_tool


def test_generating_cases_leaves_no_reference_cycles_behind() -> None:
    """A tool's compiled quick checks are freed when its cases are done, not at the next
    collection (the collector's passes over them cost a quarter of the stage)."""
    tools = [rich_tool(i) for i in range(5)]
    generate_cases(tools[0])
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for tool in tools[1:]:
            generate_cases(tool)
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def _containers(value: object, into: list[int]) -> None:
    if isinstance(value, dict):
        into.append(id(value))
        for item in value.values():
            _containers(item, into)
    elif isinstance(value, list):
        into.append(id(value))
        for item in value:
            _containers(item, into)


# Fields whose planned cases the property's own subschema accepts (draft-07 ignores a ``$ref``'s
# siblings, which the flattened view reads), so the per-field quick check must defer.
LENIENT: list[dict[str, Any]] = [
    {
        "name": "lenient",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "s": {"$ref": "#/definitions/s", "maxLength": 2, "minLength": 1},
                "n": {"$ref": "#/definitions/n", "minimum": 3, "type": "integer"},
                "e": {"$ref": "#/definitions/s", "enum": ["a"]},
            },
            "required": ["s"],
            "definitions": {"s": {"type": "string"}, "n": {}},
        },
    },
    {
        "name": "lenient_2020",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}], "not": {}}},
        },
    },
]


def _tools() -> list[dict[str, Any]]:
    corpus = [e.tool for e in CORPUS if isinstance(e.tool, dict)]
    return corpus + LENIENT + [rich_tool(i) for i in range(8)]


def test_every_case_owns_its_arguments() -> None:
    """No list or dict is shared between two cases, with the tool definition or with the
    module's constants: the arguments are built as copies, not copied afterwards."""
    for tool in _tools():
        result = generate_cases(tool)
        seen: list[int] = []
        _containers(tool, seen)
        _containers([v for _, v in kinds._WRONG_TYPE_VALUES], seen)
        for case in result.cases:
            _containers(case.arguments, seen)
        assert len(seen) == len(set(seen)), tool.get("name")


BASES: list[dict[str, Any]] = [
    {},
    {"a": 1, "b": [1, "x"], "c": {"d": None}, "e": [{"f": [2]}], "g": {"h": {"i": []}}},
    {"b": [1], "a": "text"},
]
PATHS: list[tuple[str, ...]] = [("a",), ("b",), ("z",), ("c", "d"), ("g", "h", "i"), ("z", "y")]
VALUES: list[Any] = [REMOVE, None, 3, "s", [1, [2]], {"k": [1]}]


@pytest.mark.parametrize("base", BASES)
def test_arguments_are_the_copy_of_the_plain_construction(base: dict[str, Any]) -> None:
    builder = generate._Builder("t", {"type": "object"}, _checker(), [])
    for path in PATHS:
        for value in VALUES:
            plain = copy_json(generate._with(base, path, value))
            fast = builder._arguments_with(base, path, value)
            assert fast == plain and list(_keys(fast)) == list(_keys(plain))
            assert generate._copy_with(base, path, value) == plain
            mine: list[int] = []
            _containers(fast, mine)
            theirs: list[int] = []
            _containers([base, value], theirs)
            assert not set(mine) & set(theirs)


def _keys(value: Any) -> list[Any]:
    """Every key in order, depth first (dict order is part of the bytes sent)."""
    if isinstance(value, dict):
        return [k for key, item in value.items() for k in (key, *_keys(item))]
    if isinstance(value, list):
        return [k for item in value for k in _keys(item)]
    return []


def _checker() -> Any:
    schema = {"type": "object"}
    cls = validator_class_for(schema)
    assert cls is not None
    return generate._Checker(cls(schema))


def _plain_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator without its fast paths: no per-field quick check, views re-flattened on
    every read, arguments built by ``_with`` and copied, builders' proposals as generators."""
    monkeypatch.setattr(generate._Checker, "top_check", lambda self, head: None)
    monkeypatch.setattr(
        values.ValueSynthesizer, "view_of", lambda self, schema: flatten(self.root, schema)
    )
    plain_with = generate._with
    monkeypatch.setattr(
        generate,
        "_top_level_with",
        lambda base, copies, head, value: copy_json(plain_with(base, (head,), value)),
    )
    monkeypatch.setattr(
        generate, "_copy_with", lambda base, path, value: copy_json(plain_with(base, path, value))
    )
    monkeypatch.setattr(
        generate,
        "_FIELD_BUILDERS",
        tuple(lambda site, b=b: iter(list(b(site))) for b in generate._FIELD_BUILDERS),
    )


def test_the_fast_paths_give_the_same_cases_as_the_plain_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tools = _tools()
    fast = [repr(generate_cases(tool)) for tool in tools]
    _plain_paths(monkeypatch)
    plain = [repr(generate_cases(tool)) for tool in tools]
    assert fast == plain


def test_a_validator_that_cannot_be_built_fails_the_tool_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The validator is built where first needed; if that fails, the tool still gets no cases
    and the same note as when it was built up front (not a check answered by its failure)."""

    class Broken:  # an unknown class: the quick check never answers, the validator is needed
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise ValueError("unbuildable")

    monkeypatch.setattr(generate, "validator_class_for", lambda schema: Broken)
    for tool in [rich_tool(1), *LENIENT]:
        result = generate_cases(tool)
        assert result.cases == ()
        assert result.note == "case generation failed (ValueError); no cases"


def test_a_tool_the_quick_check_answers_for_never_builds_its_validator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []
    real: Any = vars(generate._Checker)["validator"]

    def spy(self: Any) -> Any:
        built.append(self)
        return real.fget(self)

    monkeypatch.setattr(generate._Checker, "validator", property(spy))
    for i in range(3):
        assert generate_cases(rich_tool(i)).cases
    assert built == []
