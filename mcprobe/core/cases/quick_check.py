"""A quick, exact-or-silent validity check for one tool's schema (the case generator's hot path).

``QuickCheck(root, cls, format_checker).decide(schema, instance)`` answers whether ``instance``
validates against ``schema`` (a subschema of ``root``, or ``root`` itself) *exactly as*
``cls(root, ...).evolve(schema=schema).is_valid(instance)`` would, or None when it cannot be
sure. None is the common answer for anything unusual; the caller then asks the real validator.

Why it is exact where it answers:

- Only the stock validator classes of draft-04, -06, -07, 2019-09 and 2020-12 are handled, and
  only the keywords whose ``jsonschema`` implementation is restated here (type, enum, const,
  the numeric bounds and ``multipleOf``, lengths and sizes, pattern, format through the same
  format checker, required, properties, patternProperties, additionalProperties,
  propertyNames, dependentRequired, dependentSchemas, items/prefixItems/additionalItems,
  allOf/anyOf/oneOf/not, if/then/else, local ``#``/``#/pointer`` ``$ref``). A schema node with
  any other keyword the validator class applies (``uniqueItems: true``, ``contains``,
  ``unevaluated*``, ``dependencies``, ``$dynamicRef``...) is unknown. Keywords the class does
  not apply are ignored, as the validator ignores them; draft-04 to -07 ignore a ``$ref``'s
  siblings, as the validator does.
- Anything that could change the dialect or the base URI below the root (a ``$schema``,
  ``$id`` or ``id`` in a subschema or along a ``$ref`` pointer, an ``$id`` on the root when a
  ``$ref`` is followed) makes the node unknown.
- Instances are decoded JSON: a value of any other Python type is unknown.
- The evaluation is exhaustive: every keyword of every node the validator could visit is
  evaluated (the validator stops at the first error, this does not), and any exception (a bad
  regex, a format checker's own failure, runaway recursion) gives None. So whenever an answer
  is given, the validator would have given the same answer without raising.

``tests/core/test_quick_check.py`` compares it with the validator on the case corpus and on
generated schemas and instances. Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

import jsonschema

__all__ = ["QuickCheck"]

Check = Callable[[Any], bool]
"""A compiled schema node: True when the instance validates; raises ``_Unknown`` (or anything)
when it cannot tell."""


class _Unknown(Exception):
    """This node or instance is outside what the quick check restates exactly."""


_DIALECTS: dict[Any, int] = {
    jsonschema.validators.Draft4Validator: 4,
    jsonschema.validators.Draft6Validator: 6,
    jsonschema.validators.Draft7Validator: 7,
    jsonschema.validators.Draft201909Validator: 2019,
    jsonschema.validators.Draft202012Validator: 2020,
}
_NONE = type(None)
_JSON_TYPES = frozenset({str, int, float, bool, _NONE, list, dict})
_NUMBERS = (int, float)
_TYPE_NAMES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "null": (_NONE,),
    "object": (dict,),
    "array": (list,),
}
# Keywords that change the dialect or the base URI of a subschema: not restated.
_SCOPE_KEYS = ("$schema", "$id", "id")


def _unknown(_instance: Any) -> bool:
    raise _Unknown


def _json_type(instance: Any) -> type:
    kind = type(instance)
    if kind not in _JSON_TYPES:
        raise _Unknown
    return kind


def _is_number(instance: Any) -> bool:
    """``is_type(instance, "number")`` for decoded JSON (bool is not a number)."""
    kind = _json_type(instance)
    return kind is int or kind is float


def _unbool(value: Any) -> Any:
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    return value


_TRUE, _FALSE = object(), object()


def _equal(one: Any, two: Any) -> bool:
    """``jsonschema._utils.equal`` for decoded JSON: 1 == 1.0, True != 1, containers deep."""
    if one is two:
        return True
    kind_one, kind_two = _json_type(one), _json_type(two)
    if kind_one is str or kind_two is str:
        return bool(one == two)
    if kind_one is list and kind_two is list:
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if kind_one is dict and kind_two is dict:
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    return bool(_unbool(one) == _unbool(two))


def _all(checks: list[Check], instance: Any) -> bool:
    """Every check on ``instance``, each one evaluated (no short cut: see the docstring)."""
    ok = True
    for check in checks:
        if not check(instance):
            ok = False
    return ok


class QuickCheck:
    """The quick check for one tool's root schema (compiled nodes remembered per tool)."""

    def __init__(self, root: Any, cls: Any, format_checker: Any) -> None:
        self.root = root
        self.dialect = _DIALECTS.get(cls, 0)
        self.keywords: frozenset[str] = frozenset(cls.VALIDATORS) if self.dialect else frozenset()
        self.format_checker = format_checker
        self.refs_ok = isinstance(root, dict) and not any(k in root for k in ("$id", "id"))
        self._compiled: dict[int, tuple[Any, Check]] = {}
        self._keywords: dict[tuple[int, str], tuple[Any, Check]] = {}

    def forget(self) -> None:
        """Drop every compiled node. A ``$ref`` node holds this object, so the compiled nodes
        and the check form a reference cycle that only the cyclic garbage collector would free;
        the case generator calls this once a tool is done, so they are freed at once (the
        collector's passes over the surviving cases were a quarter of the stage's time)."""
        self._compiled.clear()
        self._keywords.clear()

    def decide(self, schema: Any, instance: Any) -> bool | None:
        """Whether ``instance`` validates against ``schema`` as the validator says, or None."""
        if not self.dialect:
            return None
        try:
            return self.compiled(schema)(instance)
        except Exception:  # _Unknown, a bad regex, a format checker's failure, recursion
            return None

    def decide_keyword(self, keyword: str, schema: dict[str, Any], instance: Any) -> bool | None:
        """Whether ``schema``'s ``keyword`` alone accepts ``instance``, as the validator's own
        keyword function run where the root's validator applies ``schema`` says; None when it
        cannot tell (also when the class does not apply ``keyword`` or ``schema`` lacks it)."""
        if keyword not in self.keywords or keyword not in schema:
            return None
        key = (id(schema), keyword)
        found = self._keywords.get(key)
        if found is None or found[0] is not schema:
            found = (schema, self._keyword(keyword, schema[keyword], schema) or _unknown)
            self._keywords[key] = found
        try:
            return found[1](instance)
        except Exception:
            return None

    def compiled(self, schema: Any) -> Check:
        found = self._compiled.get(id(schema))
        if found is not None and found[0] is schema:
            return found[1]
        check = self._compile(schema)
        self._compiled[id(schema)] = (schema, check)  # keeps ``schema`` alive: its id stays
        return check

    # ------------------------------------------------------------------ compilation

    def _compile(self, schema: Any) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            return _unknown
        if schema is not self.root and ("$schema" in schema or "$id" in schema or "id" in schema):
            return _unknown  # one of ``_SCOPE_KEYS``
        if self.dialect <= 7 and schema.get("$ref") is not None:
            items: list[tuple[str, Any]] = [("$ref", schema["$ref"])]
        else:
            items = [(k, v) for k, v in schema.items() if k in self.keywords]
        checks: list[Check] = []
        for keyword, value in items:
            check = self._keyword(keyword, value, schema)
            if check is None:
                return _unknown
            checks.append(check)
        if len(checks) == 1:
            return checks[0]

        def every(instance: Any) -> bool:  # ``_all(checks, instance)``, one call fewer
            ok = True
            for check in checks:
                if not check(instance):
                    ok = False
            return ok

        return every

    def _keyword(self, keyword: str, value: Any, schema: dict[str, Any]) -> Check | None:
        build = _BUILDERS.get(keyword)
        if build is None:
            return None
        return build(self, value, schema)

    def _subs(self, value: Any) -> list[Check] | None:
        if not isinstance(value, list):
            return None
        return [self.compiled(each) for each in value]

    def _ref(self, ref: Any) -> Check | None:
        if not isinstance(ref, str) or not self.refs_ok:
            return None
        if ref != "#" and not ref.startswith("#/"):
            return None
        target: list[Check] = []

        def check(instance: Any) -> bool:
            if not target:
                target.append(self.compiled(self._resolve(ref[1:])))
            return target[0](instance)

        return check

    def _resolve(self, pointer: str) -> Any:
        """The ``#`` pointer's target in the root, as ``referencing`` finds it; raises when a
        step moves the base URI or leaves the document."""
        contents = self.root
        if not pointer:
            return contents
        for segment in unquote(pointer[1:]).split("/"):
            if isinstance(contents, list):
                contents = contents[int(segment)]
            elif isinstance(contents, dict):
                contents = contents[segment.replace("~1", "/").replace("~0", "~")]
            else:
                raise _Unknown
            if isinstance(contents, dict) and any(k in contents for k in _SCOPE_KEYS):
                raise _Unknown
        return contents


# --------------------------------------------------------------------------- keyword builders

Builder = Callable[[QuickCheck, Any, dict[str, Any]], Check | None]


def _type(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if isinstance(value, str):  # one type name: the same check for every schema and tool
        return _ONE_TYPE.get((value, qc.dialect >= 6))
    return _types(value, qc.dialect >= 6)


def _types(value: Any, integral_floats_count: bool) -> Check | None:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(n in _TYPE_NAMES for n in names):
        return None
    accepted: set[type] = set()
    for name in names:
        accepted.update(_TYPE_NAMES[name])
    integral_floats = "integer" in names and float not in accepted and integral_floats_count

    def check(instance: Any) -> bool:
        kind = _json_type(instance)
        if kind in accepted:
            return True
        return integral_floats and kind is float and bool(instance.is_integer())

    return check


_ONE_TYPE: dict[tuple[str, bool], Check | None] = {
    (name, later): _types(name, later) for name in _TYPE_NAMES for later in (False, True)
}
"""``type: "<name>"`` compiled once for all (the keyword's meaning, not a memo of schemas):
draft-06 on (``later``) count an integral float as an integer, draft-04 does not."""


def _always(_instance: Any) -> bool:
    return True


def _never(_instance: Any) -> bool:
    return False


def _enum(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, list):
        return None
    return lambda instance: any([_equal(each, instance) for each in value])


def _const(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    return lambda instance: _equal(instance, value)


def _number(value: Any) -> bool:
    return type(value) in _NUMBERS


def _minimum(qc: QuickCheck, value: Any, schema: dict[str, Any]) -> Check | None:
    if not _number(value):
        return None
    if qc.dialect == 4 and schema.get("exclusiveMinimum", False):
        return lambda instance: not _is_number(instance) or not instance <= value
    return lambda instance: not _is_number(instance) or not instance < value


def _maximum(qc: QuickCheck, value: Any, schema: dict[str, Any]) -> Check | None:
    if not _number(value):
        return None
    if qc.dialect == 4 and schema.get("exclusiveMaximum", False):
        return lambda instance: not _is_number(instance) or not instance >= value
    return lambda instance: not _is_number(instance) or not instance > value


def _exclusive_minimum(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not _number(value):
        return None
    return lambda instance: not _is_number(instance) or not instance <= value


def _exclusive_maximum(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not _number(value):
        return None
    return lambda instance: not _is_number(instance) or not instance >= value


def _multiple_of(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not _number(value):
        return None

    def check(instance: Any) -> bool:
        if not _is_number(instance):
            return True
        if isinstance(value, float):
            quotient = instance / value
            try:
                failed = int(quotient) != quotient
            except OverflowError:
                failed = (Fraction(instance) / Fraction(value)).denominator != 1
        else:
            failed = bool(instance % value)
        return not failed

    return check


def _size(kind: type, low: bool) -> Builder:
    def build(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
        if not _number(value):
            return None
        if low:
            return lambda instance: _json_type(instance) is not kind or not len(instance) < value
        return lambda instance: _json_type(instance) is not kind or not len(instance) > value

    return build


def _pattern(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, str):
        return None
    return lambda instance: (
        _json_type(instance) is not str or re.search(value, instance) is not None
    )


def _format(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    checker = qc.format_checker
    if checker is None:
        return lambda instance: True

    def check(instance: Any) -> bool:
        _json_type(instance)
        return bool(checker.conforms(instance, value))

    return check


def _required(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, list):
        return None
    return lambda instance: (
        _json_type(instance) is not dict or all([name in instance for name in value])
    )


def _properties(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, dict):
        return None
    subs = [(name, qc.compiled(sub)) for name, sub in value.items()]

    def check(instance: Any) -> bool:
        if _json_type(instance) is not dict:
            return True
        ok = True
        for name, sub in subs:
            if name in instance and not sub(instance[name]):
                ok = False
        return ok

    return check


def _pattern_properties(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, dict):
        return None
    subs = [(pattern, qc.compiled(sub)) for pattern, sub in value.items()]

    def check(instance: Any) -> bool:
        if _json_type(instance) is not dict:
            return True
        ok = True
        for pattern, sub in subs:
            for key, item in instance.items():
                if re.search(pattern, key) and not sub(item):
                    ok = False
        return ok

    return check


def _additional_properties(qc: QuickCheck, value: Any, schema: dict[str, Any]) -> Check | None:
    properties = schema.get("properties", {})
    patterns_raw = schema.get("patternProperties", {})
    if not isinstance(properties, dict) or not isinstance(patterns_raw, dict):
        return None
    patterns = "|".join(patterns_raw)
    sub = qc.compiled(value) if isinstance(value, dict) else None
    forbidden = sub is None and not value

    def check(instance: Any) -> bool:
        if _json_type(instance) is not dict:
            return True
        extras = [
            key
            for key in instance
            if key not in properties and not (patterns and re.search(patterns, key))
        ]
        if sub is not None:
            return _all_items(sub, [instance[key] for key in extras])
        return not (forbidden and extras)

    return check


def _all_items(sub: Check, items: list[Any]) -> bool:
    ok = True
    for item in items:
        if not sub(item):
            ok = False
    return ok


def _property_names(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    sub = qc.compiled(value)
    return lambda instance: _json_type(instance) is not dict or _all_items(sub, list(instance))


def _dependent_required(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
        return None

    def check(instance: Any) -> bool:
        if _json_type(instance) is not dict:
            return True
        return all(
            [
                each in instance
                for name, dependency in value.items()
                if name in instance
                for each in dependency
            ]
        )

    return check


def _dependent_schemas(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, dict):
        return None
    subs = [(name, qc.compiled(sub)) for name, sub in value.items()]

    def check(instance: Any) -> bool:
        if _json_type(instance) is not dict:
            return True
        return _all([sub for name, sub in subs if name in instance], instance)

    return check


def _zip_items(subs: list[Check], instance: list[Any]) -> bool:
    ok = True
    for sub, item in zip(subs, instance, strict=False):
        if not sub(item):
            ok = False
    return ok


def _items(qc: QuickCheck, value: Any, schema: dict[str, Any]) -> Check | None:
    if qc.dialect == 2020:
        if isinstance(value, list):
            return None
        prefix_raw = schema.get("prefixItems", [])
        if not isinstance(prefix_raw, list):
            return None
        prefix = len(prefix_raw)
        if value is False:
            return lambda instance: _json_type(instance) is not list or len(instance) <= prefix
        sub = qc.compiled(value)
        return lambda instance: (
            _json_type(instance) is not list or _all_items(sub, instance[prefix:])
        )
    if isinstance(value, list):
        subs = [qc.compiled(each) for each in value]
        return lambda instance: _json_type(instance) is not list or _zip_items(subs, instance)
    if qc.dialect == 4 and not isinstance(value, dict):
        return None
    sub = qc.compiled(value)
    return lambda instance: _json_type(instance) is not list or _all_items(sub, instance)


def _prefix_items(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    subs = qc._subs(value)
    if subs is None:
        return None
    return lambda instance: _json_type(instance) is not list or _zip_items(subs, instance)


def _additional_items(qc: QuickCheck, value: Any, schema: dict[str, Any]) -> Check | None:
    items = schema.get("items", {})
    if isinstance(items, dict):
        return lambda instance: True  # ``items`` is one schema for every item: nothing extra
    if not isinstance(items, list):
        return None
    count = len(items)
    if isinstance(value, dict):
        sub = qc.compiled(value)
        return lambda instance: (
            _json_type(instance) is not list or _all_items(sub, instance[count:])
        )
    forbidden = not value
    return lambda instance: (
        _json_type(instance) is not list or not (forbidden and len(instance) > count)
    )


def _combinator(mode: str) -> Builder:
    def build(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
        subs = qc._subs(value)
        if subs is None:
            return None
        if mode == "all":
            return lambda instance: _all(subs, instance)
        if mode == "any":
            return lambda instance: any([sub(instance) for sub in subs])
        return lambda instance: [sub(instance) for sub in subs].count(True) == 1

    return build


def _not(qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    sub = qc.compiled(value)
    return lambda instance: not sub(instance)


def _if(qc: QuickCheck, value: Any, schema: dict[str, Any]) -> Check | None:
    condition = qc.compiled(value)
    then = qc.compiled(schema["then"]) if "then" in schema else None
    otherwise = qc.compiled(schema["else"]) if "else" in schema else None

    def check(instance: Any) -> bool:
        branch = then if condition(instance) else otherwise
        return branch is None or branch(instance)

    return check


def _unique_items(_qc: QuickCheck, value: Any, _schema: dict[str, Any]) -> Check | None:
    if not value:
        return lambda instance: True  # ``uniqueItems: false`` asks nothing
    return _only_not(list)(_qc, value, _schema)


def _only_not(kind: type) -> Builder:
    """A keyword not restated here that the validator applies only to instances of ``kind``
    (it returns at once for any other): valid for those, unknown for ``kind``."""

    def build(_qc: QuickCheck, _value: Any, _schema: dict[str, Any]) -> Check | None:
        def check(instance: Any) -> bool:
            if _json_type(instance) is kind:
                raise _Unknown
            return True

        return check

    return build


_BUILDERS: dict[str, Builder] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minimum": _minimum,
    "maximum": _maximum,
    "exclusiveMinimum": _exclusive_minimum,
    "exclusiveMaximum": _exclusive_maximum,
    "multipleOf": _multiple_of,
    "minLength": _size(str, low=True),
    "maxLength": _size(str, low=False),
    "minItems": _size(list, low=True),
    "maxItems": _size(list, low=False),
    "minProperties": _size(dict, low=True),
    "maxProperties": _size(dict, low=False),
    "pattern": _pattern,
    "format": _format,
    "required": _required,
    "properties": _properties,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "dependentRequired": _dependent_required,
    "dependentSchemas": _dependent_schemas,
    "items": _items,
    "prefixItems": _prefix_items,
    "additionalItems": _additional_items,
    "allOf": _combinator("all"),
    "anyOf": _combinator("any"),
    "oneOf": _combinator("one"),
    "not": _not,
    "if": _if,
    "uniqueItems": _unique_items,
    "contains": _only_not(list),
    "unevaluatedItems": _only_not(list),
    "unevaluatedProperties": _only_not(dict),
    "dependencies": _only_not(dict),
    "$ref": lambda qc, value, _schema: qc._ref(value),
}
