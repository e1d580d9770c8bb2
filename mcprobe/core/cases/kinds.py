"""The case kind registry: one ``CaseKindSpec`` per ``CaseKind`` (what it means, where it is
built, whether it is one of the SPEC's core kinds), and the builders of the field-level kinds.

A field-level builder gets a ``FieldSite`` (one field of the input schema, flattened, with the
value the base arguments hold there) and returns the ``(kind, value)`` pairs it proposes: the
value to put at the field (``REMOVE`` deletes the key). Any iterable will do; most kinds do not
apply to most fields, so the simple builders answer with a tuple (often empty) rather than a
generator. ``generate`` then proves each case against the schema before it is emitted, so a
builder only proposes; it never needs to be right. Builders that cannot make a case say why with
``site.drop``. Pure and deterministic.

To add a malformed kind (3 files): here, a ``CaseKind`` member, its builder and one
``CaseKindSpec`` in ``CASE_KINDS`` (tuple order = the order of a field's cases); a ``| `kind` |``
row in the "Case kinds" table of docs/checks.md in the same place (the table's order is the pin:
it orders every report's cases); and a test in tests/core/test_cases.py. tests/test_registries.py
checks each against ``CASE_KINDS``. ``CaseKind`` lives here, not in ``core/model.py`` (whose
``Case.kind`` is its plain value), so the kind, its record and its builder are one file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mcprobe.core.cases.values import (
    MAX_ITEMS,
    MAX_STRING_LENGTH,
    Unsatisfiable,
    ValueSynthesizer,
    numeric_bound,
    safe_search,
)
from mcprobe.core.model import JSON
from mcprobe.core.schema.view import is_number, json_type

__all__ = [
    "CASE_KINDS",
    "CORE_KINDS",
    "FIELD_KINDS",
    "REMOVE",
    "CaseKind",
    "CaseKindSpec",
    "FieldSite",
]


class CaseKind(StrEnum):
    """Why a case exists. The case label is ``kind`` or ``kind:field``."""

    VALID = "valid"
    MISSING_REQUIRED = "missing_required"
    WRONG_TYPE = "wrong_type"
    OUT_OF_ENUM = "out_of_enum"
    EXTRA_GARBAGE = "extra_garbage"
    BELOW_MINIMUM = "below_minimum"
    ABOVE_MAXIMUM = "above_maximum"
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"
    PATTERN_MISMATCH = "pattern_mismatch"
    NULL_VALUE = "null_value"
    NON_OBJECT_ARGUMENTS = "non_object_arguments"
    UNKNOWN_TOOL = "unknown_tool"  # the once-per-server call to a tool that does not exist


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


@dataclass
class FieldSite:
    """One field as a builder sees it: ``dotted`` path, its flattened schema ``view``, the JSON
    types it allows (None: every type), the base arguments' ``current`` value there (``REMOVE``
    when absent), its raw schema ``sub``, whether it is required, the value synthesizer, and
    ``drop(label, reason)`` to record a case that cannot be built. Read-only for builders (not
    ``frozen``: one is made per field, and a frozen dataclass is several times dearer to make)."""

    dotted: str
    view: dict[str, Any]
    allowed: frozenset[str] | None
    current: JSON
    sub: JSON
    required: bool
    synth: ValueSynthesizer
    drop: Callable[[str, str], None]

    _limits: tuple[tuple[int, int | None], tuple[int, int | None]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def limits(self) -> tuple[tuple[int, int | None], tuple[int, int | None]]:
        """The view's string length and array size limits (read once for both size kinds)."""
        if self._limits is None:
            view = self.view
            self._limits = (
                _length_limits(view, "minLength", "maxLength"),
                _length_limits(view, "minItems", "maxItems"),
            )
        return self._limits


Proposals = Iterable[tuple[CaseKind, JSON]]
FieldBuilder = Callable[[FieldSite], Proposals]


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


_NONE: tuple[tuple[CaseKind, JSON], ...] = ()


def _missing_required(site: FieldSite) -> Proposals:
    return ((CaseKind.MISSING_REQUIRED, REMOVE),) if site.required else _NONE


def _wrong_type(site: FieldSite) -> Proposals:
    allowed = site.allowed
    if allowed is None:
        site.drop(f"wrong_type:{site.dotted}", "the schema accepts every JSON type here")
        return _NONE
    for name, value in _WRONG_TYPE_VALUES:
        if name not in allowed:
            return ((CaseKind.WRONG_TYPE, value),)
    return _NONE


def _out_of_enum(site: FieldSite) -> Proposals:
    view = site.view
    values = view.get("enum") if isinstance(view.get("enum"), list) else None
    if "const" in view:
        values = [view["const"]]
    if values is not None:
        return ((CaseKind.OUT_OF_ENUM, _outside(values)),)
    return _NONE


def _bound(kind: CaseKind, low: bool) -> FieldBuilder:
    def build(site: FieldSite) -> Proposals:
        allowed = site.allowed
        if allowed is None or "integer" in allowed:
            beyond = _beyond(site.view, low, allowed is not None and "number" not in allowed)
            if beyond is not None:
                return ((kind, beyond),)
        return _NONE

    return build


def _size(short: bool) -> FieldBuilder:
    """``too_short`` / ``too_long``: string length, else array size (the two share the limits'
    reading, so one factory makes both)."""

    def build(site: FieldSite) -> Proposals:
        allowed = site.allowed
        lengths, sizes = site.limits
        if (allowed is None or "string" in allowed) and lengths != (0, None):
            return list(_string_size(site, lengths, short))
        if (allowed is None or "array" in allowed) and sizes != (0, None):
            return list(_array_size(site, sizes, short))
        return _NONE

    return build


def _string_size(
    site: FieldSite, lengths: tuple[int, int | None], short: bool
) -> Iterator[tuple[CaseKind, JSON]]:
    low, high = lengths
    dotted = site.dotted
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


def _pattern_mismatch(site: FieldSite) -> Proposals:
    pattern = site.view.get("pattern")
    if isinstance(pattern, str) and (site.allowed is None or "string" in site.allowed):
        miss = _pattern_miss(pattern, site.view)
        if miss is None:
            site.drop(
                f"pattern_mismatch:{site.dotted}", "no simple string falls outside the pattern"
            )
        else:
            return ((CaseKind.PATTERN_MISMATCH, miss),)
    return _NONE


def _null_value(site: FieldSite) -> Proposals:
    allowed = site.allowed
    if allowed is not None and "null" not in allowed and site.view.get("nullable") is not True:
        return ((CaseKind.NULL_VALUE, None),)
    return _NONE


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
    if low is None and high is None:
        return 0, None
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
