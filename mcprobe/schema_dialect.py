"""Validate JSON Schemas and instances in the schema's own dialect, with a real validator.

MCP's default dialect is JSON Schema 2020-12; a schema that names another one with ``$schema``
(draft-07, draft 2019-09, ...) is checked and applied under that dialect's rules. Pure: no I/O
(``$ref`` resolution is local to the schema; remote references are never fetched).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.validators
from referencing import Registry

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_FORMAT_CHECKER = jsonschema.FormatChecker()


# An empty registry retrieves nothing: remote ``$ref``s fail instead of being fetched.
_OFFLINE_REGISTRY: Registry[Any] = Registry()


_UNKNOWN: Any = object()  # sentinel ``validator_for`` returns for dialects it does not know


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
    cls = validator_class_for(schema)
    if cls is None:
        return (SchemaProblem(f"unknown $schema dialect {schema.get('$schema')!r}", "/$schema"),)
    # An ordered set, because meta-schemas report the same error several times.
    problems: dict[SchemaProblem, None] = {}
    try:
        for err in sorted(_meta_validator(cls).iter_errors(schema), key=lambda e: str(e.path)):
            problems.setdefault(SchemaProblem(err.message, _pointer(err.absolute_path)), None)
    except RecursionError:  # a hostile schema nested deeper than the interpreter can follow
        return (SchemaProblem("the schema nests too deeply; it could not be checked", ""),)
    return tuple(problems)


@functools.cache
def _meta_validator(cls: type[jsonschema.protocols.Validator]) -> jsonschema.protocols.Validator:
    """One meta-schema validator per dialect: building one costs about 2 ms."""
    return cls(cls.META_SCHEMA)


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
