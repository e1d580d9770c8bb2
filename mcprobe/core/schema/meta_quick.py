"""A quick proof that a schema is valid against a meta-schema, for the common case.

``sufficient_check(meta_schema)`` compiles a meta-schema (``dialect.TIED_2020_12_META_SCHEMA``)
into one plain Python predicate. The predicate answers True only when the meta-schema accepts the
schema; False means "not proven", and jsonschema then checks the schema and names its problems
(so every problem message still comes from jsonschema). Applying jsonschema's validator to a
valid schema costs one validator object per subschema and keyword; the predicate is a few
function calls per keyword, which is what lets lint meta-check a thousand distinct schemas fast.

Soundness, keyword by keyword of the *meta-schema* (the instance keywords are whatever the
meta-schema says about them):

- only monotone keywords are compiled (``type``, ``enum`` of strings, ``properties``,
  ``additionalProperties`` without sibling ``properties``/``patternProperties``, ``items``
  without ``prefixItems``, ``propertyNames``, ``allOf``, ``anyOf``, ``minItems``,
  ``uniqueItems``, ``minimum``, ``exclusiveMinimum``, ``pattern``) plus the annotations that
  assert nothing (``$comment``, ``default``, ``deprecated``, ``title``, ``description``,
  ``examples``, and ``format`` since the meta validator has no format checker); a meta-schema
  node with any other keyword (``not``, ``oneOf``, ``$ref`` by name, ...) compiles to "never
  proven";
- each check is as strict as jsonschema's or stricter: JSON types are tested on the exact Python
  types (``1.0`` is no proven integer, a ``dict`` subclass no proven object), ``uniqueItems`` is
  proven for strings only, a number check on a value of no JSON type is not proven;
- a subschema that is the meta-schema's root object (the tied ``$ref: "#"``) is checked by the
  root predicate itself.

``tests/core/test_meta_quick.py`` runs the predicate and jsonschema over the corpora and
generated and mutated schemas of every dialect and checks that "proven" always means "valid".
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Check", "sufficient_check"]

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset(
    {"$comment", "default", "deprecated", "title", "description", "examples", "format"}
)
# The exact Python types that are JSON values (``json.loads`` makes nothing else).
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "array": (list,),
    "boolean": (bool,),
    "integer": (int,),
    "null": (type(None),),
    "number": (int, float),
    "object": (dict,),
    "string": (str,),
}
# A keyword ignores a value of a JSON type it does not apply to (``minimum`` a string): such a
# value passes it. A value of no JSON type at all proves nothing.
_JSON = frozenset({list, dict, str, int, float, bool, type(None)})


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


class _Unsupported(Exception):
    """A meta-schema construct the compiler does not prove anything for."""


def sufficient_check(meta_schema: Any) -> Check:
    """A predicate that is True only for instances ``meta_schema`` accepts (see the module), for
    a validator without a format checker (``format`` is then an annotation)."""
    return _Compiler(meta_schema).node(meta_schema)


class _Compiler:
    def __init__(self, meta_schema: Any) -> None:
        self.root = meta_schema
        self.compiled: dict[int, Check] = {}  # by node identity: the tied meta-schema is cyclic
        self.pending: dict[int, list[Check]] = {}

    def node(self, node: Any) -> Check:
        key = id(node)
        if key in self.compiled:
            return self.compiled[key]
        if key in self.pending:  # a cycle back to a node being compiled: bound when it is done
            cell = self.pending[key]
            return lambda value: cell[0](value)
        if node is True:
            return _always
        if not isinstance(node, dict):
            return _never  # false, or not a schema: nothing is proven valid
        cell = self.pending[key] = [_never]
        try:
            checks = [
                self.keyword(keyword, value, node)
                for keyword, value in node.items()
                if keyword not in _ANNOTATIONS and not (node is self.root and keyword == "$schema")
            ]
            check = _conjunction([c for c in checks if c is not _always])
        except _Unsupported:
            check = _never
        cell[0] = self.compiled[key] = check
        del self.pending[key]
        return check

    def keyword(self, keyword: str, value: Any, node: dict[str, Any]) -> Check:
        build = _BUILDERS.get(keyword)
        if build is None:
            raise _Unsupported(keyword)
        return build(self, value, node)


def _need(condition: bool) -> None:
    if not condition:
        raise _Unsupported


def _build_properties(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need(isinstance(value, dict))
    return _properties_check({k: c.node(v) for k, v in value.items()})


def _build_additional(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need("properties" not in node and "patternProperties" not in node)
    return _values_check(c.node(value))


def _build_items(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need("prefixItems" not in node)
    return _items_check(c.node(value))


def _build_all_of(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need(isinstance(value, list) and bool(value))
    return _conjunction([c.node(v) for v in value])


def _build_any_of(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need(isinstance(value, list) and bool(value))
    return _disjunction([c.node(v) for v in value])


def _build_min_items(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need(type(value) is int and value >= 0)
    return _min_items_check(value)


def _build_unique(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need(type(value) is bool)
    return _unique_check if value else _always


def _build_bound(exclusive: bool) -> Callable[[_Compiler, Any, dict[str, Any]], Check]:
    def build(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
        _need(type(value) in (int, float))
        return _bound_check(value, exclusive)

    return build


def _build_pattern(c: _Compiler, value: Any, node: dict[str, Any]) -> Check:
    _need(isinstance(value, str))
    return _pattern_check(re.compile(value))


_BUILDERS: dict[str, Callable[[_Compiler, Any, dict[str, Any]], Check]] = {
    "type": lambda c, value, node: _type_check(value),
    "enum": lambda c, value, node: _enum_check(value),
    "properties": _build_properties,
    "additionalProperties": _build_additional,
    "items": _build_items,
    "propertyNames": lambda c, value, node: _names_check(c.node(value)),
    "allOf": _build_all_of,
    "anyOf": _build_any_of,
    "minItems": _build_min_items,
    "uniqueItems": _build_unique,
    "minimum": _build_bound(exclusive=False),
    "exclusiveMinimum": _build_bound(exclusive=True),
    "pattern": _build_pattern,
}
"""The meta-schema keywords the compiler proves (each monotone, see the module)."""


def _conjunction(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


def _disjunction(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]
    return lambda value: any(check(value) for check in checks)


def _type_check(names: Any) -> Check:
    listed = [names] if isinstance(names, str) else names
    if not isinstance(listed, list) or not listed:
        raise _Unsupported("type")
    types: tuple[type, ...] = ()
    for name in listed:
        if not isinstance(name, str) or name not in _JSON_TYPES:
            raise _Unsupported("type")
        types += _JSON_TYPES[name]
    return lambda value: type(value) in types


def _enum_check(values: Any) -> Check:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _Unsupported("enum")
    allowed = frozenset(values)
    return lambda value: type(value) is str and value in allowed


def _properties_check(checks: dict[str, Check]) -> Check:
    def check(value: Any) -> bool:
        if type(value) is not dict:
            return type(value) in _JSON
        for key, member in value.items():
            sub = checks.get(key) if type(key) is str else None
            if sub is not None and not sub(member):
                return False
        return True

    return check


def _values_check(sub: Check) -> Check:
    def check(value: Any) -> bool:
        if type(value) is not dict:
            return type(value) in _JSON
        return all(sub(member) for member in value.values())

    return check


def _items_check(sub: Check) -> Check:
    def check(value: Any) -> bool:
        if type(value) is not list:
            return type(value) in _JSON
        return all(sub(item) for item in value)

    return check


def _names_check(sub: Check) -> Check:
    def check(value: Any) -> bool:
        if type(value) is not dict:
            return type(value) in _JSON
        return all(sub(key) for key in value)

    return check


def _min_items_check(least: int) -> Check:
    return lambda value: len(value) >= least if type(value) is list else type(value) in _JSON


def _unique_check(value: Any) -> bool:
    if type(value) is not list:
        return type(value) in _JSON
    # Proven for strings only (jsonschema compares other values with its own equality).
    return all(type(item) is str for item in value) and len(set(value)) == len(value)


def _bound_check(bound: float, exclusive: bool) -> Check:
    def check(value: Any) -> bool:
        if type(value) in (int, float):
            return bool(value > bound) if exclusive else bool(value >= bound)  # NaN: not proven
        return type(value) in _JSON

    return check


def _pattern_check(pattern: re.Pattern[str]) -> Check:
    # jsonschema's ``pattern``: ``re.search`` on strings, other values ignored.
    return lambda value: (
        pattern.search(value) is not None if type(value) is str else type(value) in _JSON
    )
