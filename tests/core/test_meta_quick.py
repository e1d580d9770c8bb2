"""The quick meta-schema check (``core/schema/meta_quick``) never calls a schema valid that
jsonschema rejects, and it does prove the common valid schemas (or it would save nothing).

Its verdict "proven" is compared with jsonschema applying the official 2020-12 meta-schema and
the tied flattened one, over the schema corpus, every schema of the official servers' listings,
every dict literal of the lint and case tests, generated schemas, and mutations of all of these
(one value replaced by a wrong or exotic one, a key dropped, a keyword added); and
``schema_problems`` (which takes the quick path) is compared with jsonschema's own problems in
every dialect mcprobe knows.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import random
from collections.abc import Iterator
from decimal import Decimal
from functools import cache
from typing import Any

import jsonschema.validators
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcprobe.core.schema import dialect
from mcprobe.core.schema.dialect import (
    TIED_2020_12_META_SCHEMA,
    meta_problems,
    official_meta_validator,
    schema_problems,
)
from mcprobe.core.schema.meta_quick import sufficient_check
from tests.support.paths import TESTS
from tests.support.schema_corpus import CORPUS

Draft202012 = jsonschema.validators.Draft202012Validator
_PROVEN = dialect._PROVEN_2020_12
_OFFICIAL = official_meta_validator(Draft202012)
_TIED = Draft202012(TIED_2020_12_META_SCHEMA)
_DIALECTS = [
    None,  # no $schema: 2020-12
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-03/schema#",
]


def _valid_by_jsonschema(schema: Any) -> bool:
    return next(_OFFICIAL.iter_errors(schema), None) is None


def _assert_sound(schema: Any, official: bool = True) -> bool:
    """Proven implies valid for the meta-schema lint applies (the tied one) and, unless told
    otherwise, the official one (test_schema_dialect proves the two agree); returns the
    verdict."""
    proven = _PROVEN(schema)
    if proven:
        assert next(_TIED.iter_errors(schema), None) is None, schema
        assert not official or _valid_by_jsonschema(schema), schema
    return proven


def _literal_dicts(path: Any) -> list[Any]:
    found: list[Any] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            try:
                found.append(ast.literal_eval(node))
            except ValueError:
                continue
    return found


@cache
def _fixture_schemas() -> tuple[Any, ...]:
    schemas: list[Any] = []
    for entry in CORPUS:
        schemas += [entry.tool.get("inputSchema"), entry.tool.get("outputSchema")]
    servers = json.loads((TESTS / "fixtures" / "official_servers.json").read_text())["servers"]
    for server in servers.values():
        for tool in server.get("tools") or ():
            schemas += [tool.get("inputSchema"), tool.get("outputSchema")]
    for name in ("test_lint.py", "test_cases.py", "test_classify.py", "test_schema_dialect.py"):
        schemas += _literal_dicts(TESTS / "core" / name)
    schemas += _literal_dicts(TESTS / "support" / "schema_corpus.py")
    return tuple(s for s in schemas if isinstance(s, dict | bool))


# Wrong or doubtful values for any place of a schema: wrong JSON types, out-of-range numbers,
# unknown type names, repeated strings, and Python values that are no JSON at all.
_WRONG: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    1.0,
    float("nan"),
    float("inf"),
    "",
    "strin",
    "#frag",
    "1bad anchor",
    [],
    ["a", "a"],
    ["string", "string"],
    [1, "1"],
    [{}],
    {},
    {"type": "strin"},
    {"minLength": -1},
    (),
    ("a",),
    Decimal("1"),
    b"x",
]


class _Sub(dict[str, Any]):
    """A dict subclass: jsonschema checks it as an object, the quick check does not prove it."""


def _places(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _places(value, (*path, i))


def _replaced(schema: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(schema)
    node = out
    for token in path[:-1]:
        node = node[token]
    node[path[-1]] = value
    return out


def _dropped(schema: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(schema)
    node = out
    for token in path[:-1]:
        node = node[token]
    del node[path[-1]]
    return out


def _mutations(schema: Any, rng: random.Random) -> Iterator[Any]:
    places = list(_places(schema))
    for path in places:
        for value in rng.sample(_WRONG, 3):
            yield _replaced(schema, path, value)
        if path:
            yield _dropped(schema, path)
    for path in places:
        if isinstance(_get(schema, path), dict):
            yield _replaced(schema, path, _Sub(_get(schema, path)))
            keyword = rng.choice(_KEYWORDS)
            yield _replaced(schema, path, {**_get(schema, path), keyword: rng.choice(_WRONG)})


def _get(schema: Any, path: tuple[Any, ...]) -> Any:
    node = schema
    for token in path:
        node = node[token]
    return node


_KEYWORDS = [*sorted(TIED_2020_12_META_SCHEMA["properties"]), "x-vendor", "$schema"]


def test_every_fixture_schema_proven_valid_is_valid_and_most_valid_ones_are_proven() -> None:
    proven = [_assert_sound(s) for s in _fixture_schemas()]
    valid = [_valid_by_jsonschema(s) for s in _fixture_schemas()]
    assert valid.count(False) >= 10  # the fixtures include invalid schemas
    assert sum(p for p, v in zip(proven, valid, strict=True) if v) >= 0.9 * valid.count(True)


def test_no_mutation_of_a_fixture_schema_is_proven_valid_unless_it_is_valid() -> None:
    rng = random.Random(2112)
    proven = not_proven = 0
    for i, schema in enumerate(_fixture_schemas()):
        for j, mutant in enumerate(_mutations(schema, rng)):
            if _assert_sound(mutant, official=(i + j) % 8 == 0):
                proven += 1
            else:
                not_proven += 1
    assert proven > 1000 and not_proven > 1000  # both sides are exercised


def test_schema_problems_are_jsonschemas_own_in_every_dialect() -> None:
    rng = random.Random(7)
    for schema in _fixture_schemas():
        if not isinstance(schema, dict):
            continue
        for uri in _DIALECTS:
            variant = {k: v for k, v in schema.items() if k != "$schema"}
            if uri is not None:
                variant["$schema"] = uri
            for candidate in [variant, *itertools.islice(_mutations(variant, rng), 4)]:
                if not isinstance(candidate, dict):
                    continue
                dialect.forget_schemas()
                got = schema_problems(candidate)
                cls = dialect.validator_class_for(candidate)
                if cls is None or dialect._too_deep(candidate):
                    continue
                meta = dialect.meta_validator(cls)
                expected = _slow_problems(meta, candidate)
                assert got == expected, (candidate, got, expected)


def _slow_problems(meta: Any, schema: Any) -> tuple[dialect.SchemaProblem, ...]:
    """``meta_problems`` without the quick path: a validator of the same meta-schema that is not
    the one the quick path recognises."""
    if meta.schema is TIED_2020_12_META_SCHEMA:
        meta = Draft202012(dict(TIED_2020_12_META_SCHEMA))  # an equal copy: jsonschema only
    return meta_problems(meta, schema)


_TYPES = st.sampled_from(["array", "boolean", "integer", "null", "number", "object", "string"])
_NUMBERS = st.integers(-3, 5) | st.sampled_from([0.5, 2.0, -1.5, 1e300])


def _keyword_values(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A schema object whose keywords get values of plausible shapes (mostly valid ones)."""
    names = st.text(alphabet="ab$/_", max_size=3)
    value_for: dict[str, st.SearchStrategy[Any]] = {
        "type": _TYPES | st.lists(_TYPES, max_size=3),
        "properties": st.dictionaries(names, children, max_size=3),
        "$defs": st.dictionaries(names, children, max_size=2),
        "items": children,
        "additionalProperties": children,
        "anyOf": st.lists(children, max_size=3),
        "oneOf": st.lists(children, max_size=2),
        "not": children,
        "required": st.lists(names, max_size=3),
        "enum": st.lists(st.none() | names | _NUMBERS, max_size=3),
        "const": st.none() | names | _NUMBERS,
        "minLength": _NUMBERS,
        "maxItems": _NUMBERS,
        "minimum": _NUMBERS,
        "multipleOf": _NUMBERS,
        "uniqueItems": st.booleans() | _NUMBERS,
        "description": names | _NUMBERS,
        "$ref": names,
        "$anchor": names,
        "$id": names | st.just("#x"),
        "pattern": names,
        "dependentRequired": st.dictionaries(names, st.lists(names, max_size=2), max_size=2),
        "dependencies": st.dictionaries(names, children | st.lists(names, max_size=2), max_size=2),
        "$vocabulary": st.dictionaries(names, st.booleans() | names, max_size=2),
        "x-vendor": children,
    }
    return st.fixed_dictionaries({}, optional={k: v for k, v in value_for.items()}) | st.booleans()


_random_schemas = st.recursive(st.booleans(), _keyword_values, max_leaves=10)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_random_schemas)
def test_a_generated_schema_proven_valid_is_valid(schema: Any) -> None:
    _assert_sound(schema)


def test_every_keyword_of_the_meta_schema_is_proven_for_a_typical_valid_value() -> None:
    typical = {
        "$id": "https://example.com/s",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/a",
        "$anchor": "a",
        "$dynamicRef": "#meta",
        "$dynamicAnchor": "meta",
        "$vocabulary": {"https://example.com/v": True},
        "$comment": "c",
        "$defs": {"a": {"type": "string"}},
        "prefixItems": [True],
        "items": {"type": "string"},
        "contains": {"const": 1},
        "additionalProperties": False,
        "properties": {"a": {}},
        "patternProperties": {"^x": {}},
        "dependentSchemas": {"a": {}},
        "propertyNames": {"maxLength": 3},
        "if": {},
        "then": {},
        "else": {},
        "allOf": [{}],
        "anyOf": [{}],
        "oneOf": [{}],
        "not": False,
        "unevaluatedItems": False,
        "unevaluatedProperties": False,
        "type": ["string", "null"],
        "const": [1],
        "enum": [1, "a", None],
        "multipleOf": 0.5,
        "maximum": 1,
        "exclusiveMaximum": 1.5,
        "minimum": -1,
        "exclusiveMinimum": 0,
        "maxLength": 3,
        "minLength": 0,
        "pattern": "^a",
        "maxItems": 3,
        "minItems": 1,
        "uniqueItems": True,
        "maxContains": 2,
        "minContains": 1,
        "maxProperties": 3,
        "minProperties": 1,
        "required": ["a"],
        "dependentRequired": {"a": ["b"]},
        "title": "t",
        "description": "d",
        "default": {"a": 1},
        "deprecated": False,
        "readOnly": True,
        "writeOnly": False,
        "examples": [1],
        "format": "date",
        "contentEncoding": "base64",
        "contentMediaType": "text/plain",
        "contentSchema": {},
        "definitions": {"a": {}},
        "dependencies": {"a": ["b"], "c": {}},
        "$recursiveAnchor": "a",
        "$recursiveRef": "#",
    }
    assert set(typical) == set(TIED_2020_12_META_SCHEMA["properties"])
    for keyword, value in typical.items():
        assert _assert_sound({keyword: value}), keyword
    assert _assert_sound(typical)


def test_values_of_no_json_type_and_lax_numbers_are_not_proven() -> None:
    unproven: list[Any] = [
        {"minLength": 1.0},  # jsonschema takes 1.0 as an integer; not proven, jsonschema says
        {"minLength": True},
        {"type": ("string",)},
        {"required": ("a",)},
        {"maximum": Decimal("1")},
        {"multipleOf": float("nan")},
        {"properties": _Sub(a={})},
        {"enum": (1,)},
        {"items": _Sub()},
        _Sub(type="string"),
        {"required": ["a", "a"]},
        {"type": ["string", "string"]},
        {"type": []},
        {"anyOf": []},
    ]
    for schema in unproven:
        assert not _PROVEN(schema), schema


def test_a_meta_schema_with_keywords_the_compiler_does_not_know_proves_nothing_through_them() -> (
    None
):
    check = sufficient_check(
        {"type": "object", "properties": {"a": {"not": {"type": "string"}}, "b": {"type": "null"}}}
    )
    assert check({"b": None})
    assert not check({"a": 1})  # `not` is not compiled: never proven
    assert not check({"b": 1})
    assert not sufficient_check(False)({})
    assert sufficient_check(True)({"anything": 1})
