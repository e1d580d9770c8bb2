"""Read a JSON Schema the way the case generator needs it: references followed, ``allOf`` merged.

The views built here are *approximations* used to decide what to generate (which properties
exist, which types a field allows, which bounds apply). They never decide what is valid: every
value and every case is checked afterwards with the real validator (``schema_dialect``), so an
approximation that is too generous or too strict costs a dropped case, never a false verdict.

Pure and defensive: schemas come from the target and may be cyclic, huge or nonsensical.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard
from urllib.parse import unquote

from mcprobe.core.model import JSON

MAX_REF_HOPS = 32
"""How many ``$ref``/``allOf`` expansions one view may take before the schema counts as cyclic."""

JSON_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")

_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


class SchemaTooDeep(Exception):
    """A ``$ref``/``allOf`` chain longer than ``MAX_REF_HOPS`` (almost always a cycle)."""


def is_number(value: object) -> TypeGuard[int | float]:
    """A finite JSON number (``bool`` is not a number, NaN and infinities are not JSON)."""
    kind = type(value)
    if kind is int:
        return True
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or math.isfinite(value)


def json_type(value: JSON) -> str:
    """The JSON Schema type name of a decoded JSON value (integral floats count as integers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def type_accepted(value_type: str, allowed: frozenset[str]) -> bool:
    """Whether a value of ``value_type`` passes a ``type`` keyword listing ``allowed``."""
    if value_type in allowed:
        return True
    return value_type == "integer" and "number" in allowed


def resolve_ref(root: JSON, ref: str) -> JSON:
    """The subschema a local ``$ref`` points to (``#`` or ``#/json/pointer``), or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None  # anchors and remote references are not followed (never fetched)
    node = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def declared_types(view: dict[str, Any]) -> list[str] | None:
    """The ``type`` keyword as an ordered list of known type names, or None when absent."""
    raw = view.get("type")
    if isinstance(raw, str):
        return [raw] if raw in JSON_TYPES else []  # what the list below makes of ``[raw]``
    if not isinstance(raw, list):
        return None
    return [t for t in dict.fromkeys(raw) if isinstance(t, str) and t in JSON_TYPES]


def flatten(root: JSON, schema: JSON, hops: int = 0) -> dict[str, Any]:
    """A single dict describing ``schema``: local ``$ref`` targets and ``allOf`` branches are
    merged in (constraints combined, the tighter bound winning). Boolean and non-dict schemas
    give ``{}`` (``False`` gives ``{"not": {}}``). Raises ``SchemaTooDeep`` on cycles."""
    if schema is False:
        return {"not": {}}
    if not isinstance(schema, dict):
        return {}
    if hops > MAX_REF_HOPS:
        raise SchemaTooDeep("the schema's $ref/allOf chain is too deep (cyclic?)")
    if "$ref" not in schema and "allOf" not in schema:
        return dict(schema)  # nothing to merge in (most subschemas): the copy the below makes
    view = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = resolve_ref(root, ref)
        if target is None:
            view["x-unresolved-ref"] = ref
        else:
            view = merge(view, flatten(root, target, hops + 1))
    branches = schema.get("allOf")
    if isinstance(branches, list):
        for branch in branches:
            view = merge(view, flatten(root, branch, hops + 1))
    return view


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both schemas' constraints in one dict (an approximation of ``allOf: [a, b]``)."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
            continue
        mine = out[key]
        if key == "properties" and isinstance(mine, dict) and isinstance(value, dict):
            props = dict(mine)
            for name, sub in value.items():
                props[name] = {"allOf": [props[name], sub]} if name in props else sub
            out[key] = props
        elif key == "required" and isinstance(mine, list) and isinstance(value, list):
            out[key] = list(dict.fromkeys([*mine, *value]))
        elif key == "type":
            mine_t = declared_types({"type": mine}) or []
            theirs = declared_types({"type": value}) or []
            both = [t for t in mine_t if type_accepted(t, frozenset(theirs))]
            both += [t for t in theirs if t == "integer" and "number" in mine_t]
            out[key] = list(dict.fromkeys(both))
        elif key == "enum" and isinstance(mine, list) and isinstance(value, list):
            out[key] = [v for v in mine if v in value]
        elif key in _LOWER_BOUNDS and is_number(mine) and is_number(value):
            out[key] = max(mine, value)
        elif key in _UPPER_BOUNDS and is_number(mine) and is_number(value):
            out[key] = min(mine, value)
        elif key in ("additionalProperties", "unevaluatedProperties") and value is False:
            out[key] = False
    return out


def allowed_types(root: JSON, schema: JSON, hops: int = 0) -> frozenset[str] | None:
    """The JSON types a value may have under ``schema``, or None when every type may pass
    (no ``type``/``enum``/``const`` and no typed union). ``number`` implies ``integer``."""
    if schema is True or schema == {}:
        return None
    return allowed_types_of_view(root, flatten(root, schema, hops), hops)


def allowed_types_of_view(root: JSON, view: dict[str, Any], hops: int = 0) -> frozenset[str] | None:
    """``allowed_types`` of a schema whose ``flatten(root, schema, hops)`` is ``view`` (for a
    caller that has the view already; ``allowed_types`` answers None for ``True`` and ``{}``
    before looking at the view)."""
    types = declared_types(view)
    if types is not None:
        found = set(types)
    elif "const" in view:
        found = {json_type(view["const"])}
    elif isinstance(view.get("enum"), list):
        found = {json_type(v) for v in view["enum"]}
    else:
        union: set[str] = set()
        saw_union = False
        for key in ("anyOf", "oneOf"):
            branches = view.get(key)
            if not isinstance(branches, list):
                continue
            saw_union = True
            for branch in branches:
                sub = allowed_types(root, branch, hops + 1)
                if sub is None:
                    return None
                union |= sub
        if not saw_union:
            return None
        found = union
    if "number" in found:
        found.add("integer")
    return frozenset(found)
