"""Synthesize a minimal JSON value that satisfies a JSON Schema (the building block of ``valid``).

Order of sources for every (sub)schema, per SPEC §5: ``default`` → ``const`` → ``examples[0]``
→ ``enum`` (first value that validates) → for a required property with a well-known name, the
``param_hints`` table (e.g. ``timezone`` → ``"UTC"``) → a value built from the type and its
constraints.
Candidates are *checked*, not trusted: each one is validated against its subschema with the
real validator (the ``accepts`` callback) and skipped when it fails.

Built values honour: numeric bounds (draft-04 boolean exclusives too) and ``multipleOf``; string
length, ``pattern`` (a sample drawn from the parsed regex), ``format``; array ``minItems``,
``prefixItems``/tuple ``items``, ``contains``/``minContains``, ``uniqueItems``; object
``required`` (recursively), ``minProperties``, ``dependentRequired``/array ``dependencies``;
local ``$ref``, ``allOf`` (merged), ``anyOf``/``oneOf`` (first branch whose value validates),
``if``/``then``/``else`` (the ``then`` side first), ``type`` lists (``null`` tried last).

Hostile schemas are bounded, not trusted: nesting deeper than ``MAX_DEPTH``, strings longer than
``MAX_STRING_LENGTH``, arrays longer than ``MAX_ITEMS``, objects with more than
``MAX_PROPERTIES`` keys, or more than ``MAX_VALUES`` synthesis steps per tool raise
``Unsatisfiable`` with a reason instead of building something enormous.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from mcprobe.core.cases.discovery import normalised
from mcprobe.core.cases.listed_values import listed_values
from mcprobe.core.cases.param_hints import hinted_values
from mcprobe.core.model import JSON
from mcprobe.core.schema.view import (
    SchemaTooDeep,
    declared_types,
    flatten,
    is_number,
    json_type,
    merge,
)

MAX_DEPTH = 24
MAX_STRING_LENGTH = 10_000
MAX_ITEMS = 1_000
MAX_PROPERTIES = 1_000
MAX_VALUES = 5_000
MAX_BRANCHES = 16

Accepts = Callable[[JSON, JSON], bool]
"""``accepts(subschema, value)``: does ``value`` validate against ``subschema`` (refs resolved
against the tool's root schema)?"""

FORMAT_SAMPLES: dict[str, tuple[str, ...]] = {
    "date": ("2024-01-15",),
    "date-time": ("2024-01-15T12:00:00Z", "2024-01-15T12:00:00+00:00"),
    "time": ("12:00:00", "12:00:00Z"),
    "duration": ("P1D",),
    "email": ("user@example.com",),
    "idn-email": ("user@example.com",),
    "hostname": ("example.com",),
    "idn-hostname": ("example.com",),
    "ipv4": ("192.0.2.1",),
    "ipv6": ("2001:db8::1",),
    "uri": ("https://example.com/",),
    "iri": ("https://example.com/",),
    "uri-reference": ("https://example.com/",),
    "iri-reference": ("https://example.com/",),
    "url": ("https://example.com/",),
    "uri-template": ("https://example.com/{id}",),
    "uuid": ("00000000-0000-4000-8000-000000000000",),
    "json-pointer": ("/a",),
    "relative-json-pointer": ("0",),
    "regex": (".*",),
    "byte": ("AA==",),
    "binary": ("AA==",),
    "password": ("example-password",),
}

_PLAIN_STRING = "example"
_UNCONSTRAINED: tuple[JSON, ...] = (_PLAIN_STRING, 1, True, {}, [], None)
_TYPE_ORDER_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("object", ("properties", "required", "additionalProperties", "minProperties")),
    ("array", ("items", "prefixItems", "minItems", "contains", "uniqueItems")),
    ("string", ("minLength", "maxLength", "pattern", "format")),
    ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
)


class Unsatisfiable(Exception):
    """No value could be built; ``str(exc)`` says why (shown to users in the tool's note)."""


SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})  # returned as they are, uncalled


def copy_json(value: JSON) -> JSON:
    """A deep copy of a decoded JSON value (cheaper than ``copy.deepcopy``)."""
    if isinstance(value, dict):
        return {k: v if type(v) in SCALAR_TYPES else copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in SCALAR_TYPES else copy_json(v) for v in value]
    return value


def safe_search(pattern: str, text: str) -> bool | None:
    """``re.search`` as the validator applies ``pattern``; None when the regex is unusable."""
    try:
        return re.search(pattern, text) is not None
    except (re.error, RecursionError, OverflowError):
        return None


def property_schema(view: dict[str, Any], name: str) -> JSON:
    """The subschema(s) that govern property ``name`` of an object view."""
    found: list[JSON] = []
    props = view.get("properties")
    if isinstance(props, dict) and name in props:
        found.append(props[name])
    patterns = view.get("patternProperties")
    if isinstance(patterns, dict):
        found += [sub for pat, sub in patterns.items() if safe_search(pat, name)]
    if not found:
        extra = view.get("additionalProperties")
        return extra if isinstance(extra, dict | bool) else True
    return found[0] if len(found) == 1 else {"allOf": found}


def _nonneg_int(view: dict[str, Any], key: str, default: int) -> int:
    raw = view.get(key)
    if is_number(raw) and raw >= 0 and float(raw).is_integer():
        return int(raw)
    return default


def _normal(x: float | int) -> float | int:
    """Integral floats as ints, so ``1`` is sent as ``1`` rather than ``1.0``."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def _bound(view: dict[str, Any], plain: str, exclusive: str) -> tuple[float | None, bool]:
    """A lower or upper bound and whether it is exclusive (2019+ numbers or draft-04 flags)."""
    value, excl = view.get(plain), view.get(exclusive)
    try:
        if is_number(excl):
            if is_number(value) and (value > excl if plain == "minimum" else value < excl):
                return float(value), False
            return float(excl), True
        if is_number(value):
            return float(value), excl is True
    except OverflowError:  # an integer bound beyond float range: treat as unbounded
        pass
    return None, False


def numeric_bound(view: dict[str, Any], low: bool) -> tuple[float | None, bool]:
    """The lower (``low``) or upper numeric bound of a view and whether it is exclusive."""
    if low:
        return _bound(view, "minimum", "exclusiveMinimum")
    return _bound(view, "maximum", "exclusiveMaximum")


def number_candidates(view: dict[str, Any], integer: bool) -> list[float | int]:
    """Small numbers inside the view's bounds: from the lower bound upwards, else from 1 (or
    the upper bound, if lower) downwards. Empty when the bounds leave no room."""
    lo, lo_x = numeric_bound(view, True)
    hi, hi_x = numeric_bound(view, False)
    step = view.get("multipleOf")
    step = float(step) if is_number(step) and step > 0 else None
    raw: list[float] = []
    try:
        if lo is not None or hi is None:
            start, direction = (lo if lo is not None else 1.0), 1
        else:
            start, direction = min(1.0, hi), -1
        if step is not None:
            k = math.ceil(start / step) if direction > 0 else math.floor(start / step)
            ks = range(k, k + 8 * direction, direction)
            raw += [j * step for j in ks] + [round(j * step, 9) for j in ks]
        base = math.ceil(start) if direction > 0 else math.floor(start)
        raw += [start, *(float(base + direction * i) for i in range(4))]
        if lo is not None and hi is not None:
            raw.append((lo + hi) / 2)
    except (OverflowError, ValueError):
        return []
    out: list[float | int] = []
    for x in raw:
        if not math.isfinite(x) or (integer and not x.is_integer()):
            continue
        if lo is not None and (x < lo or (lo_x and x == lo)):
            continue
        if hi is not None and (x > hi or (hi_x and x == hi)):
            continue
        n = _normal(x)
        if n not in out:
            out.append(n)
    return out


class ValueSynthesizer:
    """Builds values for subschemas of one tool's root schema; one instance per tool."""

    def __init__(
        self, root: JSON, accepts: Accepts, discovered: Mapping[str, tuple[JSON, ...]] | None = None
    ) -> None:
        self.root = root
        self.accepts = accepts
        self.discovered = discovered or {}
        self._budget = MAX_VALUES
        # How many scalar values so far were mcprobe's guess rather than the schema's own word
        # (``default``, ``const``, ``examples``, a one-value ``enum``): the provenance of a case.
        # A value built for a branch that is later abandoned still counts, so the count errs
        # towards "synthesized" (a refusal of it is then inconclusive, never a false failure).
        self.guesses = 0
        # How many values were the schema's own word: a case built of none (``{}`` for a tool
        # whose properties are all optional) is mcprobe's synthesis, not the author's example.
        self.declared = 0
        self._views: dict[int, tuple[JSON, dict[str, Any]]] = {}

    def view_of(self, schema: JSON) -> dict[str, Any]:
        """``flatten(root, schema)``, remembered per schema object for this tool (the generator
        reads each field's view several times: to synthesize, to plan its cases, to walk into
        it). Views are never modified by their readers. Raises ``SchemaTooDeep`` as
        ``flatten`` does (not remembered)."""
        found = self._views.get(id(schema))
        if found is not None and found[0] is schema:
            return found[1]
        view = flatten(self.root, schema)
        self._views[id(schema)] = (schema, view)  # keeps ``schema`` alive: its id stays unique
        return view

    def value_for(
        self, schema: JSON, depth: int = 0, only: str | None = None, name: str | None = None
    ) -> JSON:
        """A value that validates against ``schema`` (of JSON type ``only`` when given); for a
        property called ``name``, the ``param_hints`` values come right after the literals."""
        if depth > MAX_DEPTH:
            raise Unsatisfiable(f"the schema nests deeper than {MAX_DEPTH} levels")
        if schema is False:
            raise Unsatisfiable("a `false` subschema accepts nothing")
        if schema is True:
            schema = {}
        if not isinstance(schema, dict):
            raise Unsatisfiable("a subschema is not a JSON object")
        try:
            view = self.view_of(schema)
        except SchemaTooDeep as exc:
            raise Unsatisfiable(str(exc)) from None
        if "x-unresolved-ref" in view:
            ref = str(view["x-unresolved-ref"])[:80]
            raise Unsatisfiable(f"$ref {ref!r} does not resolve inside the schema")
        for candidate, declared in _literal_candidates(view):
            if _type_ok(candidate, only) and self.accepts(schema, candidate):
                if declared:
                    self.declared += 1
                else:
                    self.guesses += 1
                return copy_json(candidate)
        if name:  # the hints come right after the literals (looked up only when needed)
            for candidate in self._hints(name, view.get("description")):
                if _type_ok(candidate, only) and self.accepts(schema, candidate):
                    self.guesses += 1
                    return copy_json(candidate)
        return self._solve(view, schema, depth, only)

    def _hints(self, name: str | None, description: Any = None) -> tuple[JSON, ...]:
        """The values the server named itself for ``name``: those its description lists
        (``listed_values``: "one of: a, b"), those of its command line (``discovery``); then
        the well-known ones (``param_hints``)."""
        listed: tuple[JSON, ...] = ()
        if isinstance(description, str):
            words = listed_values(description)
            listed = (*words, *(int(w) for w in words if w.isdigit() and len(w) < 16))
        found = self.discovered.get(normalised(name), ()) if name and self.discovered else ()
        return (*listed, *found, *hinted_values(name))

    def _spend(self) -> None:
        self._budget -= 1
        if self._budget < 0:
            raise Unsatisfiable(f"the schema needs more than {MAX_VALUES} synthesis steps")

    def _solve(self, view: dict[str, Any], schema: JSON, depth: int, only: str | None) -> JSON:
        """Expand one combinator at a time (anyOf, oneOf, if) then build by type; the first
        value that validates against the original ``schema`` wins."""
        self._spend()
        for key in ("anyOf", "oneOf", "if"):
            if key not in view:
                continue
            rest = {k: v for k, v in view.items() if k != key}
            if key == "if":
                rest = {k: v for k, v in rest.items() if k not in ("then", "else")}
                options = [{"allOf": [view["if"], view.get("then", True)]}, view.get("else", True)]
            else:
                branches = view[key]
                options = branches[:MAX_BRANCHES] if isinstance(branches, list) else []
            reason = f"no `{key}` branch could be satisfied"
            for option in options:
                try:
                    merged = merge(rest, flatten(self.root, option))
                    return self._solve(merged, schema, depth, only)
                except SchemaTooDeep as exc:
                    reason = str(exc)
                except Unsatisfiable as exc:
                    reason = str(exc)
            raise Unsatisfiable(reason)
        return self._by_type(view, schema, depth, only)

    def _by_type(self, view: dict[str, Any], schema: JSON, depth: int, only: str | None) -> JSON:
        types = declared_types(view)
        if types is None:
            types = [t for t, keys in _TYPE_ORDER_HINTS if any(k in view for k in keys)]
        if not types and "type" not in view:
            for candidate in _UNCONSTRAINED:
                if _type_ok(candidate, only) and self.accepts(schema, candidate):
                    self.guesses += 1
                    return copy_json(candidate)
            raise Unsatisfiable("no simple value satisfies an untyped subschema")
        if only is not None:
            types = [t for t in types if t == only]
        types = [t for t in types if t != "null"] + [t for t in types if t == "null"]
        reason = "the schema allows no type" + (f" of {only}" if only else "")
        for t in types:
            try:
                for candidate in self._candidates(t, view, depth):
                    if self.accepts(schema, candidate):
                        if t not in ("array", "object"):  # containers: their items count
                            self.guesses += 1
                        return candidate
                reason = f"no {t} value satisfies the constraints"
            except Unsatisfiable as exc:
                reason = str(exc)
        raise Unsatisfiable(reason)

    def _candidates(self, t: str, view: dict[str, Any], depth: int) -> Iterator[JSON]:
        if t == "null":
            yield None
        elif t == "boolean":
            yield from (False, True)
        elif t in ("integer", "number"):
            yield from number_candidates(view, t == "integer")
        elif t == "string":
            yield from _string_candidates(view)
        elif t == "array":
            yield self._array(view, depth)
        elif t == "object":
            yield self._object(view, depth)

    def _array(self, view: dict[str, Any], depth: int) -> list[JSON]:
        min_items = _nonneg_int(view, "minItems", 0)
        contains = view.get("contains")
        min_contains = _nonneg_int(view, "minContains", 1) if contains is not None else 0
        count = max(min_items, min_contains)
        if count > MAX_ITEMS:
            raise Unsatisfiable(f"an array needs {count} items (generator cap {MAX_ITEMS})")
        if isinstance(view.get("prefixItems"), list):
            prefix, rest = view["prefixItems"], view.get("items", True)
        elif isinstance(view.get("items"), list):
            prefix, rest = view["items"], view.get("additionalItems", True)
        else:
            prefix, rest = [], view.get("items", True)
        unique = view.get("uniqueItems") is True
        out: list[JSON] = []
        for i in range(count):
            item_schema = prefix[i] if i < len(prefix) else rest
            if contains is not None and i < min_contains:
                item_schema = {"allOf": [item_schema, contains]}
            value = self.value_for(item_schema, depth + 1)
            if unique and value in out:
                value = self._distinct(item_schema, value, out)
            out.append(value)
        return out

    def _distinct(self, schema: JSON, value: JSON, taken: list[JSON]) -> JSON:
        """Another value for ``schema`` not already in ``taken`` (for ``uniqueItems``)."""
        view = self.view_of(schema)
        options: list[JSON] = (
            list(view.get("enum", [])) if isinstance(view.get("enum"), list) else []
        )
        for i in range(1, len(taken) + 3):
            if is_number(value):
                options.append(_normal(value + i))
            elif isinstance(value, str):
                options.append(f"{value}{i}")
            elif isinstance(value, bool):
                options.append(not value)
        for option in options:
            self._spend()
            if option not in taken and self.accepts(schema, option):
                return copy_json(option)
        raise Unsatisfiable("could not build distinct items for `uniqueItems`")

    def _object(self, view: dict[str, Any], depth: int) -> dict[str, JSON]:
        required = view.get("required")
        queue = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
        dependents = [view.get(k) for k in ("dependentRequired", "dependencies")]
        out: dict[str, JSON] = {}
        while queue:
            name = queue.pop(0)
            if name in out:
                continue
            if len(out) >= MAX_PROPERTIES:
                raise Unsatisfiable(f"an object needs over {MAX_PROPERTIES} properties")
            out[name] = self.value_for(property_schema(view, name), depth + 1, name=name)
            for table in dependents:
                extra = table.get(name) if isinstance(table, dict) else None
                if isinstance(extra, list):
                    queue += [e for e in extra if isinstance(e, str)]
        wanted = _nonneg_int(view, "minProperties", 0)
        if wanted > MAX_PROPERTIES:
            raise Unsatisfiable(f"an object needs {wanted} properties (cap {MAX_PROPERTIES})")
        props = view.get("properties")
        names = list(props) if isinstance(props, dict) else []
        names += [f"key{i}" for i in range(1, wanted + 1)]
        for name in names:
            if len(out) >= wanted:
                break
            if name in out:
                continue
            try:
                out[name] = self.value_for(property_schema(view, name), depth + 1)
            except Unsatisfiable:
                continue
        if len(out) < wanted:
            raise Unsatisfiable(f"could not fill `minProperties: {wanted}`")
        return out


def _type_ok(value: JSON, only: str | None) -> bool:
    return only is None or json_type(value) == only


def _literal_candidates(view: dict[str, Any]) -> Iterator[tuple[JSON, bool]]:
    """The schema's own values, each with whether it counts as the schema's word for a valid
    call (a one-value ``enum`` does; picking one of several ``enum`` values is mcprobe's
    choice)."""
    if "default" in view:
        yield view["default"], True
    if "const" in view:
        yield view["const"], True
    examples = view.get("examples")
    if isinstance(examples, list) and examples:
        yield examples[0], True
    enum = view.get("enum")
    if isinstance(enum, list):
        single = len(enum) == 1
        for value in enum[:MAX_BRANCHES]:
            yield value, single


def _string_candidates(view: dict[str, Any]) -> Iterator[str]:
    min_len = _nonneg_int(view, "minLength", 0)
    max_len = _nonneg_int(view, "maxLength", MAX_STRING_LENGTH)
    if min_len > MAX_STRING_LENGTH:
        raise Unsatisfiable(f"minLength {min_len} exceeds the generator cap {MAX_STRING_LENGTH}")
    seen: set[str] = set()
    pattern = view.get("pattern")
    if isinstance(pattern, str):
        for stretch in (0, 1, 2, 8, min_len):
            sample = sample_matching(pattern, stretch)
            if sample is None:
                break
            for s in (sample, sample + "a" * (min_len - len(sample))):
                if s not in seen:
                    seen.add(s)
                    yield s
    fmt = view.get("format")
    if isinstance(fmt, str):
        yield from FORMAT_SAMPLES.get(fmt, ())
    plain = _PLAIN_STRING + "a" * max(0, min_len - len(_PLAIN_STRING))
    yield plain[: max(max_len, min_len)]


# --------------------------------------------------------------------------- regex samples

_sre: Any = importlib.import_module("re._parser")  # the stdlib regex parser (no public stubs)

_CATEGORY_CHARS = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
    "CATEGORY_LINEBREAK": "\n",
    "CATEGORY_NOT_LINEBREAK": "a",
}
_NEGATED_CLASS_PICKS = "aA0_-. x!~Z9"


class _NoSample(Exception):
    pass


def sample_matching(pattern: str, stretch: int = 0) -> str | None:
    """A string the regex ``pattern`` matches (as Python's ``re`` reads it), or None.

    Each repetition is taken ``min + stretch`` times (capped by its maximum), branches take
    their first alternative, lookarounds are ignored: the caller validates the result.
    """
    try:
        parsed = _sre.parse(pattern)
        groups: dict[int, str] = {}
        text = _emit(list(parsed), stretch, groups)
    except (_NoSample, re.error, RecursionError, OverflowError, ValueError, TypeError):
        return None
    return text


def _emit(items: list[Any], stretch: int, groups: dict[int, str]) -> str:
    parts: list[str] = []
    for op, arg in items:
        build = _EMITTERS.get(getattr(op, "name", str(op)))
        if build is None:
            raise _NoSample  # an opcode we do not model: no sample rather than a wrong one
        parts.append(build(arg, stretch, groups))
        if sum(map(len, parts)) > MAX_STRING_LENGTH:
            raise _NoSample
    return "".join(parts)


def _subpattern(arg: Any, stretch: int, groups: dict[int, str]) -> str:
    text = _emit(list(arg[3]), stretch, groups)
    if arg[0] is not None:
        groups[arg[0]] = text
    return text


def _repeat(arg: Any, stretch: int, groups: dict[int, str]) -> str:
    low, high, body = arg
    count = min(low + stretch, high)
    if count > MAX_STRING_LENGTH:
        raise _NoSample
    return "".join(_emit(list(body), stretch, groups) for _ in range(count))


# One small emitter per ``re._parser`` opcode: ``(argument, stretch, groups) -> text``.
_EMITTERS: dict[str, Callable[[Any, int, dict[int, str]], str]] = {
    "LITERAL": lambda arg, _s, _g: chr(arg),
    "NOT_LITERAL": lambda arg, _s, _g: "a" if arg != ord("a") else "b",
    "ANY": lambda _a, _s, _g: "a",
    "IN": lambda arg, _s, _g: _class_char(arg),
    "CATEGORY": lambda arg, _s, _g: _CATEGORY_CHARS.get(getattr(arg, "name", ""), "a"),
    "BRANCH": lambda arg, s, g: _emit(list(arg[1][0]), s, g),
    "SUBPATTERN": _subpattern,
    "ATOMIC_GROUP": lambda arg, s, g: _emit(list(arg), s, g),
    "MAX_REPEAT": _repeat,
    "MIN_REPEAT": _repeat,
    "POSSESSIVE_REPEAT": _repeat,
    "GROUPREF": lambda arg, _s, g: g.get(arg, ""),
    "GROUPREF_EXISTS": lambda arg, s, g: _emit(list(arg[1]), s, g),
    "AT": lambda _a, _s, _g: "",  # anchors and lookarounds match no text
    "ASSERT": lambda _a, _s, _g: "",
    "ASSERT_NOT": lambda _a, _s, _g: "",
}


def _class_char(items: list[Any]) -> str:
    """A character inside a character class ``[...]`` (or outside it when negated)."""
    negated = bool(items) and getattr(items[0][0], "name", "") == "NEGATE"
    if not negated:
        op, arg = items[0]
        name = getattr(op, "name", "")
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            return chr(arg[0])
        if name == "CATEGORY":
            return _CATEGORY_CHARS.get(getattr(arg, "name", ""), "a")
        raise _NoSample
    body = "".join(_class_source(op, arg) for op, arg in items[1:])
    try:
        compiled = re.compile(f"[{body}]")
    except re.error:
        raise _NoSample from None
    for ch in _NEGATED_CLASS_PICKS:
        if not compiled.match(ch):
            return ch
    raise _NoSample


def _class_source(op: Any, arg: Any) -> str:
    name = getattr(op, "name", "")
    if name == "LITERAL":
        return re.escape(chr(arg))
    if name == "RANGE":
        return f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}"
    if name == "CATEGORY":
        return {
            "CATEGORY_DIGIT": r"\d",
            "CATEGORY_NOT_DIGIT": r"\D",
            "CATEGORY_SPACE": r"\s",
            "CATEGORY_NOT_SPACE": r"\S",
            "CATEGORY_WORD": r"\w",
            "CATEGORY_NOT_WORD": r"\W",
        }.get(getattr(arg, "name", ""), "")
    raise _NoSample
