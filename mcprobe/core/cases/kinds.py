"""The case kind registry: one ``CaseKindSpec`` per ``CaseKind`` (what it means, where it is
built, whether it is one of the SPEC's core kinds), and the builders of the field-level kinds.

A field-level builder gets a ``FieldSite`` (one field of the input schema, flattened, with the
value the base arguments hold there) and yields ``(kind, value)`` pairs: the value to put at the
field (``REMOVE`` deletes the key). ``generate`` then proves each case against the schema before
it is emitted, so a builder only proposes; it never needs to be right. Builders that cannot make
a case say why with ``site.drop``. Pure and deterministic.

To add a malformed kind: a ``CaseKind`` member (model.py), a builder here and one ``CaseKindSpec``
in ``CASE_KINDS`` (tuple order = the order of a field's cases), a ``### `kind``` section under
"Case kinds" in docs/checks.md, and a test in tests/core/test_cases.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mcprobe.core.cases.values import (
    MAX_ITEMS,
    MAX_STRING_LENGTH,
    Unsatisfiable,
    ValueSynthesizer,
    numeric_bound,
    safe_search,
)
from mcprobe.core.model import JSON, CaseKind
from mcprobe.core.schema.view import is_number, json_type

__all__ = ["CASE_KINDS", "CORE_KINDS", "FIELD_KINDS", "REMOVE", "CaseKindSpec", "FieldSite"]

REMOVE: Any = object()  # marker: delete the key instead of setting it

_WRONG_TYPE_VALUES: tuple[tuple[str, JSON], ...] = (
    ("string", "mcprobe-wrong-type"),
    ("integer", 12345),
    ("number", 1.5),
    ("boolean", True),
    ("array", ["mcprobe-wrong-type"]),
    ("object", {"mcprobe": "wrong-type"}),
)
_NOT_IN_ENUM = "mcprobe-not-in-enum"
_PATTERN_MISS_CHARS = ("!", " ", "0", "a", "Z", "-", "é")


@dataclass(frozen=True)
class FieldSite:
    """One field as a builder sees it: ``dotted`` path, its flattened schema ``view``, the JSON
    types it allows (None: every type), the base arguments' ``current`` value there (``REMOVE``
    when absent), its raw schema ``sub``, whether it is required, the value synthesizer, and
    ``drop(label, reason)`` to record a case that cannot be built."""

    dotted: str
    view: dict[str, Any]
    allowed: frozenset[str] | None
    current: JSON
    sub: JSON
    required: bool
    synth: ValueSynthesizer
    drop: Callable[[str, str], None]


FieldBuilder = Callable[[FieldSite], Iterator[tuple[CaseKind, JSON]]]


@dataclass(frozen=True)
class CaseKindSpec:
    """Everything about one case kind: ``meaning`` (one line, as docs/checks.md says it),
    ``field`` its builder when it is built per field (None: built once per tool by ``generate``,
    or the once-per-server unknown-tool probe), ``core`` whether the per-tool cap keeps it
    first (SPEC §5's core kinds)."""

    kind: CaseKind
    meaning: str
    field: FieldBuilder | None = None
    core: bool = False


# --------------------------------------------------------------------------- field builders


def _missing_required(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
    if site.required:
        yield CaseKind.MISSING_REQUIRED, REMOVE


def _wrong_type(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
    if site.allowed is None:
        site.drop(f"wrong_type:{site.dotted}", "the schema accepts every JSON type here")
        return
    wrong = next((v for t, v in _WRONG_TYPE_VALUES if t not in site.allowed), REMOVE)
    if wrong is not REMOVE:
        yield CaseKind.WRONG_TYPE, wrong


def _out_of_enum(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
    view = site.view
    values = view.get("enum") if isinstance(view.get("enum"), list) else None
    if "const" in view:
        values = [view["const"]]
    if values is not None:
        yield CaseKind.OUT_OF_ENUM, _outside(values)


def _bound(kind: CaseKind, low: bool) -> FieldBuilder:
    def build(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
        allowed = site.allowed
        if allowed is None or "integer" in allowed:
            beyond = _beyond(site.view, low, allowed is not None and "number" not in allowed)
            if beyond is not None:
                yield kind, beyond

    return build


def _size(short: bool) -> FieldBuilder:
    """``too_short`` / ``too_long``: string length, else array size (the two share the limits'
    reading, so one factory makes both)."""

    def build(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
        view, allowed, dotted = site.view, site.allowed, site.dotted
        lengths = _length_limits(view, "minLength", "maxLength")
        sizes = _length_limits(view, "minItems", "maxItems")
        if (allowed is None or "string" in allowed) and lengths != (0, None):
            low, high = lengths
            current = site.current
            text = current if isinstance(current, str) else "a" * min(low, MAX_STRING_LENGTH)
            if short and low > MAX_STRING_LENGTH:
                site.drop(f"too_short:{dotted}", f"minLength {low} is beyond the generator cap")
            elif short and low > 0:
                yield CaseKind.TOO_SHORT, text[: low - 1]
            if not short and high is not None and high + 1 > MAX_STRING_LENGTH:
                site.drop(f"too_long:{dotted}", f"maxLength {high} is beyond the generator cap")
            elif not short and high is not None:
                yield CaseKind.TOO_LONG, text + (text[-1:] or "a") * (high + 1 - len(text))
        elif (allowed is None or "array" in allowed) and sizes != (0, None):
            yield from _array_size(site, sizes, short)

    return build


def _array_size(
    site: FieldSite, sizes: tuple[int, int | None], short: bool
) -> Iterator[tuple[CaseKind, JSON]]:
    low, high = sizes
    items = site.current if isinstance(site.current, list) else None
    if items is None:
        try:
            made = site.synth.value_for(site.sub, 1, only="array")
        except Unsatisfiable:
            return
        items = made if isinstance(made, list) else []
    if short:
        if 0 < low <= len(items) + 1:
            yield CaseKind.TOO_SHORT, items[: low - 1]
        return
    if high is not None and high + 1 > MAX_ITEMS:
        site.drop(f"too_long:{site.dotted}", f"maxItems {high} is beyond the generator cap")
    elif high is not None:
        filler = items[-1] if items else _one_item(site)
        if filler is not REMOVE:
            yield CaseKind.TOO_LONG, items + [filler] * (high + 1 - len(items))


def _one_item(site: FieldSite) -> JSON:
    try:
        return site.synth.value_for(site.view.get("items", True), 1)
    except Unsatisfiable:
        return REMOVE


def _pattern_mismatch(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
    pattern = site.view.get("pattern")
    if isinstance(pattern, str) and (site.allowed is None or "string" in site.allowed):
        miss = _pattern_miss(pattern, site.view)
        if miss is None:
            site.drop(
                f"pattern_mismatch:{site.dotted}", "no simple string falls outside the pattern"
            )
        else:
            yield CaseKind.PATTERN_MISMATCH, miss


def _null_value(site: FieldSite) -> Iterator[tuple[CaseKind, JSON]]:
    allowed = site.allowed
    if allowed is not None and "null" not in allowed and site.view.get("nullable") is not True:
        yield CaseKind.NULL_VALUE, None


# --------------------------------------------------------------------------- the registry

CASE_KINDS: tuple[CaseKindSpec, ...] = (
    CaseKindSpec(
        CaseKind.VALID, "the minimal call built from the input schema, proven valid", core=True
    ),
    CaseKindSpec(
        CaseKind.MISSING_REQUIRED, "a required field left out", _missing_required, core=True
    ),
    CaseKindSpec(
        CaseKind.WRONG_TYPE, "a value outside every type the field allows", _wrong_type, core=True
    ),
    CaseKindSpec(
        CaseKind.OUT_OF_ENUM, "a value outside the field's enum or const", _out_of_enum, core=True
    ),
    CaseKindSpec(
        CaseKind.BELOW_MINIMUM,
        "a number below the minimum",
        _bound(CaseKind.BELOW_MINIMUM, low=True),
    ),
    CaseKindSpec(
        CaseKind.ABOVE_MAXIMUM,
        "a number above the maximum",
        _bound(CaseKind.ABOVE_MAXIMUM, low=False),
    ),
    CaseKindSpec(CaseKind.TOO_SHORT, "a string or array under its minimum size", _size(True)),
    CaseKindSpec(CaseKind.TOO_LONG, "a string or array over its maximum size", _size(False)),
    CaseKindSpec(
        CaseKind.PATTERN_MISMATCH, "a string the field's pattern does not match", _pattern_mismatch
    ),
    CaseKindSpec(CaseKind.NULL_VALUE, "null where null is not allowed", _null_value),
    CaseKindSpec(
        CaseKind.EXTRA_GARBAGE,
        "an undeclared key, when the root forbids extra keys",
        core=True,
    ),
    CaseKindSpec(
        CaseKind.NON_OBJECT_ARGUMENTS,
        "an array as the whole arguments, when the root must be an object",
        core=True,
    ),
    CaseKindSpec(CaseKind.UNKNOWN_TOOL, "once per server: a call to a tool that does not exist"),
)
FIELD_KINDS: tuple[CaseKindSpec, ...] = tuple(spec for spec in CASE_KINDS if spec.field)
CORE_KINDS: frozenset[CaseKind] = frozenset(spec.kind for spec in CASE_KINDS if spec.core)


# --------------------------------------------------------------------------- value helpers


def _outside(values: list[JSON]) -> JSON:
    """A value of the enum's own type that the enum does not contain."""
    kinds = {json_type(v) for v in values}
    if kinds <= {"integer", "number"}:
        return math.floor(max(values)) + 1
    if kinds == {"boolean"}:
        missing = [b for b in (False, True) if not any(v is b for v in values)]
        if missing:
            return missing[0]
    candidate, n = _NOT_IN_ENUM, 1
    while any(isinstance(v, str) and v == candidate for v in values):
        n += 1
        candidate = f"{_NOT_IN_ENUM}-{n}"
    return candidate


def _beyond(view: dict[str, Any], low: bool, integer_only: bool) -> JSON:
    """A number just outside the lower (``low``) or upper bound, or None when unbounded."""
    bound, exclusive = numeric_bound(view, low)
    if bound is None:
        return None
    if integer_only:
        if low:
            value = math.floor(bound) if exclusive else math.ceil(bound) - 1
        else:
            value = math.ceil(bound) if exclusive else math.floor(bound) + 1
        return value
    result = bound if exclusive else (bound - 1 if low else bound + 1)
    return int(result) if result.is_integer() and abs(result) < 2**53 else result


def _length_limits(view: dict[str, Any], low_key: str, high_key: str) -> tuple[int, int | None]:
    low, high = view.get(low_key), view.get(high_key)
    lo = int(low) if is_number(low) and low > 0 and float(low).is_integer() else 0
    hi = int(high) if is_number(high) and high >= 0 and float(high).is_integer() else None
    return lo, hi


def _pattern_miss(pattern: str, view: dict[str, Any]) -> str | None:
    """A short string that ``pattern`` does not match, honouring the length limits if it can."""
    low, high = _length_limits(view, "minLength", "maxLength")
    size = max(low, 1) if high is None else min(max(low, 1), high)
    size = min(size, MAX_STRING_LENGTH)
    for ch in _PATTERN_MISS_CHARS:
        candidate = ch * size
        if safe_search(pattern, candidate) is False:
            return candidate
    if safe_search(pattern, "") is False:
        return ""
    return None
