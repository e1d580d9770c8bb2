"""Validate JSON Schemas and instances in the schema's own dialect, with a real validator.

MCP's default dialect is JSON Schema 2020-12; a schema that names another one with ``$schema``
(draft-07, draft 2019-09, ...) is checked and applied under that dialect's rules. Pure: no I/O
(``$ref`` resolution is local to the schema; remote references are never fetched).

**Speed.** jsonschema's official 2020-12 meta-schema is slow to apply (its ``$dynamicRef:
"#meta"`` walks the dynamic scope at every nested subschema: 2-10 ms per schema). 2020-12
schemas are therefore checked against ``FLAT_2020_12_META_SCHEMA``, the same meta-schema
*flattened*: the seven vocabulary meta-schemas' keyword checks merged into one object,
``$dynamicRef: "#meta"`` replaced by ``$ref: "#"`` (in the official meta-schema the dynamic
scope always starts at the 2020-12 root, which carries the ``meta`` anchor, so the two resolve
to the same schema) and the vocabularies' non-recursive ``$defs`` references inlined. It is
derived at import time from the official documents that ship with jsonschema, and applied by the
same jsonschema validator class, with each ``$ref: "#"`` tied to the root object in memory
(``TIED_2020_12_META_SCHEMA``: no reference lookups at all). ``tests/core/test_schema_dialect.py``
proves that it and the official meta-schema give the same verdict and the same (pointer,
message) problems, in the same order, over a corpus and random schemas.
Before jsonschema applies it, ``meta_quick`` tries to prove the schema valid with a predicate
compiled from that meta-schema (a few function calls per keyword instead of a validator object
per subschema); only a schema it cannot prove valid goes through jsonschema, which then names
the problems. Other dialects use their official meta-schema (they are fast already).
``schema_problems`` also remembers its recent answers (keyed on a digest of the schema's exact
content), so lint, case generation and classification do not each re-check the same schema in
one audit.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from jsonschema_specifications import REGISTRY as _SPECIFICATIONS  # type: ignore[import-untyped]
from referencing import Registry

from mcprobe.core.cases.quick_check import QuickCheck
from mcprobe.core.schema.json_depth import MAX_JSON_DEPTH, format_path, too_deep
from mcprobe.core.schema.meta_quick import sufficient_check

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_FORMAT_CHECKER = jsonschema.FormatChecker()


# An empty registry retrieves nothing: remote ``$ref``s fail instead of being fetched.
_OFFLINE_REGISTRY: Registry[Any] = Registry()


_UNKNOWN: Any = object()  # sentinel ``validator_for`` returns for dialects it does not know

_MEMO_SIZE = 4096  # distinct schemas remembered by ``schema_problems`` (one audit's worth)


@dataclass(frozen=True)
class SchemaProblem:
    """Why a schema is not valid in its dialect: a message and a JSON pointer into the schema."""

    message: str
    pointer: str


def validator_class_for(schema: Mapping[str, Any]) -> type[jsonschema.protocols.Validator] | None:
    """The validator class for the schema's ``$schema`` (2020-12 when absent).

    Returns None when ``$schema`` names a dialect this library does not know.
    """
    uri = schema.get("$schema", DEFAULT_DIALECT)
    if not isinstance(uri, str):
        return None
    return _class_for_uri(uri)


@functools.lru_cache(maxsize=64)
def _class_for_uri(uri: str) -> type[jsonschema.protocols.Validator] | None:
    for candidate in (uri, uri[:-1] if uri.endswith("#") else uri + "#"):
        # Tolerate the common trailing-"#" / missing-"#" variants of the official URIs.
        cls = jsonschema.validators.validator_for({"$schema": candidate}, default=_UNKNOWN)
        if cls is not _UNKNOWN:
            return cls
    return None


def schema_problems(schema: Any) -> tuple[SchemaProblem, ...]:
    """Every reason ``schema`` is not a valid JSON Schema in its own dialect (empty if valid)."""
    if not isinstance(schema, Mapping):
        if isinstance(schema, bool):
            return ()
        return (SchemaProblem("a JSON Schema must be an object or a boolean", ""),)
    content = _content(schema)
    key = None if content is None else hashlib.sha256(content).digest()
    if key is not None:
        known = _MEMO.get(key)
        if known is not None:
            with contextlib.suppress(KeyError):  # evicted meanwhile by another thread
                _MEMO.move_to_end(key)
            return known
    shallow = content is not None and _containers_at_most(content) <= MAX_JSON_DEPTH
    problems = (() if shallow else _too_deep(schema)) or _check(schema)
    if key is not None:
        _MEMO[key] = problems
        if len(_MEMO) > _MEMO_SIZE:
            with contextlib.suppress(KeyError):
                _MEMO.popitem(last=False)
    return problems


_MEMO: OrderedDict[bytes, tuple[SchemaProblem, ...]] = OrderedDict()


def forget_schemas() -> None:
    """Empty ``schema_problems``' memo (benchmarks start each run cold with it)."""
    _MEMO.clear()


def _content(schema: Any) -> bytes | None:
    """The schema's exact content as bytes (key order kept), or None if it has none; its digest
    is the memo key. ``marshal`` format 2: a third of the time of ``json.dumps`` (which this
    memo's keys cost 15 µs a rich schema, lint, case generation and classification each paying
    it), and no back-references (format 3 on writes a shared or interned object once and
    refers to it after, by reference count), so the bytes depend on the content alone. Equal
    bytes are equal content (``marshal.loads`` rebuilds one value from them; it tells ``1``
    from ``1.0`` and ``True`` as JSON does, and a tuple from a list, which only costs a miss).
    Anything but exact dicts, lists, strings, numbers, booleans and None (a subclass too), a
    cycle or a nesting past marshal's own limit: None, so not remembered."""
    try:
        return marshal.dumps(schema, 2)
    except ValueError:
        return None


def _containers_at_most(content: bytes) -> int:
    """At least the number of dicts, lists and tuples in ``content`` (``_content``'s bytes),
    so at least the depth of their nesting: without back-references each container writes its
    own type code (``{``, ``[``, ``(``), and other bytes that happen to equal one only add to
    the count. A schema within ``MAX_JSON_DEPTH`` by this count need not be walked to know it
    is within the limit."""
    return content.count(b"{") + content.count(b"[") + content.count(b"(")


def _too_deep(schema: Mapping[str, Any]) -> tuple[SchemaProblem, ...]:
    """The one nesting limit (``json_depth``): a schema past it is named, not walked (the
    validators recurse several frames per level)."""
    path = too_deep(schema)
    if path is None:
        return ()
    message = f"the schema nests deeper than {MAX_JSON_DEPTH} levels (at {format_path(path)})"
    return (SchemaProblem(message, _pointer(path)),)


def _check(schema: Mapping[str, Any]) -> tuple[SchemaProblem, ...]:
    cls = validator_class_for(schema)
    if cls is None:
        return (SchemaProblem(f"unknown $schema dialect {schema.get('$schema')!r}", "/$schema"),)
    return meta_problems(meta_validator(cls), schema)


def meta_problems(
    meta: jsonschema.protocols.Validator, schema: Mapping[str, Any]
) -> tuple[SchemaProblem, ...]:
    """The problems ``meta`` (a validator of a meta-schema) finds in ``schema``, de-duplicated
    (meta-schemas report the same error several times) and ordered by location."""
    if (
        meta.schema is TIED_2020_12_META_SCHEMA
        and getattr(meta, "format_checker", _UNKNOWN) is None
    ):
        try:
            if _PROVEN_2020_12(schema):
                return ()  # proven valid (``meta_quick``): jsonschema would find nothing
        except RecursionError:
            pass  # not proven: jsonschema says
    problems: dict[SchemaProblem, None] = {}
    try:
        for err in sorted(meta.iter_errors(schema), key=lambda e: str(e.path)):
            problems.setdefault(SchemaProblem(err.message, _pointer(err.absolute_path)), None)
    except RecursionError:  # a hostile schema nested deeper than the interpreter can follow
        return (SchemaProblem("the schema nests too deeply; it could not be checked", ""),)
    return tuple(problems)


@functools.cache
def meta_validator(cls: type[jsonschema.protocols.Validator]) -> jsonschema.protocols.Validator:
    """One meta-schema validator per dialect (building one costs about 2 ms): the flattened
    meta-schema for 2020-12, the official one for every other dialect."""
    if cls is jsonschema.validators.Draft202012Validator:
        return cls(TIED_2020_12_META_SCHEMA)
    return official_meta_validator(cls)


@functools.cache
def official_meta_validator(
    cls: type[jsonschema.protocols.Validator],
) -> jsonschema.protocols.Validator:
    """The dialect's official meta-schema, as jsonschema ships it."""
    return cls(cls.META_SCHEMA)


# --------------------------------------------------------------------------- flattening

_META_BASE = "https://json-schema.org/draft/2020-12/"


def _flatten_2020_12() -> dict[str, Any]:
    """The official 2020-12 meta-schema as one self-contained schema (see the module docstring).

    Keyword checks keep their official order (the vocabularies in ``allOf`` order, then the
    root's own ``properties``), so errors come out in the same order as well.
    """
    root = jsonschema.validators.Draft202012Validator.META_SCHEMA
    vocabularies = [_SPECIFICATIONS.contents(_META_BASE + ref["$ref"]) for ref in root["allOf"]]
    defs: dict[str, Any] = {}
    for vocabulary in vocabularies:
        for name, sub in vocabulary.get("$defs", {}).items():
            if name in defs:
                raise ValueError(f"two vocabularies define $defs/{name}")
            defs[name] = sub
    properties: dict[str, Any] = {}
    for document in [*vocabularies, root]:
        if document.get("type") != ["object", "boolean"]:
            raise ValueError("a vocabulary meta-schema changed shape")
        for keyword, sub in document.get("properties", {}).items():
            if keyword in properties:
                raise ValueError(f"two vocabularies define the keyword {keyword}")
            properties[keyword] = _rewrite(sub, defs)
    return {"$schema": DEFAULT_DIALECT, "type": ["object", "boolean"], "properties": properties}


def _rewrite(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with ``$dynamicRef: "#meta"`` made ``$ref: "#"`` and ``$defs`` refs inlined."""
    if isinstance(node, list):
        return [_rewrite(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for keyword, value in node.items():
        if keyword == "$dynamicRef":
            if value != "#meta":
                raise ValueError(f"unexpected $dynamicRef {value!r}")
            out["$ref"] = "#"
        elif keyword == "$ref":
            target = _rewrite(defs[_def_name(value)], defs)
            if not isinstance(target, dict) or set(target) & (set(node) - {"$ref"}):
                raise ValueError(f"cannot inline $ref {value!r}")
            out.update(target)  # a $ref is a conjunct: its keywords join the siblings in place
        else:
            out[keyword] = _rewrite(value, defs)
    return out


def _def_name(ref: Any) -> str:
    """``meta/validation#/$defs/stringArray`` or ``#/$defs/stringArray`` → ``stringArray``."""
    if not isinstance(ref, str) or "#/$defs/" not in ref:
        raise ValueError(f"unexpected $ref {ref!r}")
    return ref.split("#/$defs/", 1)[1]


def _tie(flat: dict[str, Any]) -> dict[str, Any]:
    """``flat`` as an in-memory graph: each ``{"$ref": "#"}`` subschema replaced by the root
    object itself. A subschema that is only a ``$ref`` is its target (the meta-schema has no
    ``$id``, anchors or ``unevaluated*`` keywords that could tell them apart), so the verdict
    and every error message and instance path are unchanged; the validator just skips a
    reference lookup per nested subschema (about 40% of the time). The cyclic object is never
    serialised; ``FLAT_2020_12_META_SCHEMA`` is the JSON form."""
    root: dict[str, Any] = {}

    def tie(node: Any) -> Any:
        if isinstance(node, list):
            return [tie(item) for item in node]
        if not isinstance(node, dict):
            return node
        if node == {"$ref": "#"}:
            return root
        if isinstance(node.get("$ref"), str):  # (a ``properties`` map may name "$ref")
            raise ValueError(f"cannot tie $ref {node['$ref']!r}")
        return {keyword: tie(value) for keyword, value in node.items()}

    root.update(tie(flat))
    return root


FLAT_2020_12_META_SCHEMA: dict[str, Any] = _flatten_2020_12()
TIED_2020_12_META_SCHEMA: dict[str, Any] = _tie(FLAT_2020_12_META_SCHEMA)
_PROVEN_2020_12 = sufficient_check(TIED_2020_12_META_SCHEMA)
"""True only for a schema the tied meta-schema accepts; False: jsonschema checks it."""


# --------------------------------------------------------------------------- instances


def instance_errors(schema: Any, instance: Any) -> tuple[str, ...]:
    """Messages for every way ``instance`` fails ``schema`` (empty when it validates).

    The schema must be valid in its dialect (see ``schema_problems``); formats are asserted,
    local ``$ref``s are resolved, remote ones count as an error rather than being fetched.
    """
    if isinstance(schema, bool):
        return () if schema else ("false schema rejects everything",)
    cls = validator_class_for(schema)
    if cls is None:
        return ("unknown $schema dialect",)
    for what, value in (("schema", schema), ("value", instance)):
        path = too_deep(value)
        if path is not None:
            return (
                f"the {what} nests deeper than {MAX_JSON_DEPTH} levels (at {format_path(path)})",
            )
    if QuickCheck(schema, cls, _FORMAT_CHECKER).decide(schema, instance):
        # Proven valid (``cases.quick_check``: exact where it answers, for a validator
        # configured as below): no error to name, and no validator to build (a third of the
        # cost; a schema is checked once or twice per tool, so nothing is kept).
        return ()
    validator = cls(schema, registry=_OFFLINE_REGISTRY, format_checker=_FORMAT_CHECKER)
    try:
        return tuple(
            err.message
            for err in sorted(validator.iter_errors(instance), key=lambda e: str(e.path))
        )
    except RecursionError:
        return ("schema recursion too deep",)
    except Exception as exc:  # unresolvable $ref and kin: a hostile schema must not crash us
        return (f"schema cannot be applied: {type(exc).__name__}",)


def is_valid(schema: Any, instance: Any) -> bool:
    return not instance_errors(schema, instance)


def _pointer(path: Any) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "".join("/" + p for p in parts)
