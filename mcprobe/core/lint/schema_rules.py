"""The ``schema.*`` and ``param.*`` lint rules (SPEC §4): checks over a tool's input and output
schemas, each registered with its metadata in ``RULES`` at the bottom.

Decisions where SPEC §4 is silent are listed in ``mcprobe.core.lint.engine``'s docstring.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from mcprobe.core.lint.rules import MAPPING, LintRule, ToolView, json_kind, pointer, quote
from mcprobe.core.model import Finding, Location, Severity
from mcprobe.core.schema.dialect import schema_problems, validator_class_for

_MAX_SCHEMA_PROBLEMS = 10  # per schema: a hostile schema must not flood the report
_MAX_DEPTH = 16  # nested property levels walked by the param rules
_MAX_REF_HOPS = 8
_SCHEMA_VALUE = (*MAPPING, bool)  # what a property schema may be
_TYPING_KEYWORDS = ("type", "enum", "const", "oneOf", "anyOf", "allOf", "$ref", "$dynamicRef")
_DIALECT_NAMES = {
    "Draft202012Validator": "2020-12",
    "Draft201909Validator": "2019-09",
    "Draft7Validator": "draft-07",
    "Draft6Validator": "draft-06",
    "Draft4Validator": "draft-04",
    "Draft3Validator": "draft-03",
}


# --------------------------------------------------------------------------- schema rules


def check_schema_invalid(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    for member in ("inputSchema", "outputSchema"):
        schema = tool.raw.get(member)
        if member == "inputSchema" and not isinstance(schema, MAPPING):
            continue  # tool.no_input_schema already says so
        if member == "outputSchema" and member not in tool.raw:
            continue
        yield from _schema_findings(tool, member, schema)


def _schema_findings(tool: ToolView, member: str, schema: Any) -> Iterator[Finding]:
    name = quote(tool.label)
    if not isinstance(schema, MAPPING):
        yield SCHEMA_INVALID.finding(
            f"The {member} of tool `{name}` is {json_kind(schema)}, not a JSON Schema object.",
            f'Make `{member}` a JSON Schema object with `"type": "object"`, or remove it.',
            Location(tool.label, pointer=pointer(member)),
        )
        return
    cls = validator_class_for(schema)
    dialect = _DIALECT_NAMES.get(cls.__name__, cls.__name__) if cls is not None else "?"
    try:
        problems = schema_problems(schema)
    except Exception as exc:  # a hostile schema (e.g. absurdly deep) must not crash the audit
        problems = ()
        yield SCHEMA_INVALID.finding(
            f"The {member} of tool `{name}` could not be checked ({type(exc).__name__}).",
            f"Simplify the {member} of tool `{name}` (it is too deep or too large to validate).",
            Location(tool.label, pointer=pointer(member)),
        )
    unique = list(dict.fromkeys((p.pointer, p.message) for p in problems))
    for n, (at, message) in enumerate(unique[:_MAX_SCHEMA_PROBLEMS], start=1):
        more = len(unique) - _MAX_SCHEMA_PROBLEMS
        suffix = f" (and {more} more problems in this schema)" if n == 10 and more > 0 else ""
        if at == "/$schema" and cls is None:
            text = "names a `$schema` dialect mcprobe does not know"
            hint = "Drop `$schema` (MCP's default is 2020-12) or name a standard JSON Schema draft."
        else:
            text = f"is not valid JSON Schema ({dialect}) at `{at or '/'}`: {quote(message, 160)}"
            hint = f"Fix the {member} at `{at or '/'}` so it validates against the {dialect} "
            hint += "meta-schema."
        yield SCHEMA_INVALID.finding(
            f"The {member} of tool `{name}` {text}{suffix}.",
            hint,
            Location(tool.label, _param_of(at), pointer(member) + at),
        )


def _param_of(schema_pointer: str) -> str | None:
    """``/properties/a/properties/b/type`` → ``a.b`` (None when not inside a property)."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in schema_pointer.split("/")[1:]]
    names = []
    while len(tokens) >= 2 and tokens[0] == "properties":
        names.append(tokens[1])
        tokens = tokens[2:]
    return ".".join(names) or None


def check_root_not_object(tool: ToolView) -> Iterator[Finding]:
    schema = tool.schema
    if schema is None or schema.get("type") in ("object", ["object"]):
        return
    if "type" in schema:
        what = f'has root type `{quote(json.dumps(schema["type"]))}`, not `"object"`'
    else:
        what = 'has no root `type`; it should be `"object"`'
    yield SCHEMA_ROOT_NOT_OBJECT.finding(
        f"The inputSchema of tool `{quote(tool.label)}` {what}; MCP tool arguments are always a "
        "JSON object.",
        'Set `"type": "object"` at the root of the inputSchema and declare the parameters under '
        "`properties`.",
        Location(tool.label, pointer="/inputSchema/type"),
    )


def check_no_required(tool: ToolView) -> Iterator[Finding]:
    schema = tool.schema
    if schema is None:
        return
    properties = schema.get("properties")
    if (
        not isinstance(properties, MAPPING)
        or not properties
        or isinstance(schema.get("required"), list)
    ):
        return
    if all(isinstance(sub, MAPPING) and "default" in sub for sub in properties.values()):
        return  # every parameter has a default: "all optional" is stated, not an oversight
    name = quote(tool.label)
    yield SCHEMA_NO_REQUIRED.finding(
        f"The inputSchema of tool `{name}` declares {len(properties)} "
        f"{'property' if len(properties) == 1 else 'properties'} but no `required` array, so "
        "every parameter is optional.",
        f"Add a `required` array naming the parameters tool `{name}` cannot work without "
        "(`[]` if all of them are truly optional).",
        Location(tool.label, pointer="/inputSchema/required"),
    )


@dataclass(frozen=True)
class _Property:
    param: str  # dotted path: address.zip, tags[].name, point[0].x
    tokens: tuple[str | int, ...]  # into the tool definition
    schema: Any


def _properties(tool: ToolView) -> tuple[_Property, ...]:
    """Every property of the input schema: top-level, and nested under ``properties``,
    ``items`` and ``prefixItems`` (draft-07 array ``items`` too). ``$ref`` targets, ``anyOf``
    branches and ``additionalProperties`` are not walked.

    Walked once per view: ``param.untyped`` and ``param.missing_description`` read the same
    properties. Kept in the view's ``__dict__`` as ``functools.cached_property`` would (a
    frozen dataclass allows it), so it lives exactly as long as the one lint run's view."""
    cached: tuple[_Property, ...] | None = tool.__dict__.get(_PROPERTIES_KEY)
    if cached is None:
        schema = tool.schema
        found = () if schema is None else tuple(_walk_properties(schema, ("inputSchema",), "", 0))
        cached = tool.__dict__[_PROPERTIES_KEY] = found
    return cached


_PROPERTIES_KEY = "_mcprobe_schema_properties"


def _walk_properties(
    node: Mapping[str, Any], tokens: tuple[str | int, ...], prefix: str, depth: int
) -> Iterator[_Property]:
    properties = node.get("properties")
    if depth >= _MAX_DEPTH or not isinstance(properties, MAPPING):
        return
    for key, sub in properties.items():
        here = (*tokens, "properties", key)
        yield _Property(prefix + key, here, sub)
        if isinstance(sub, MAPPING):
            yield from _walk_children(sub, here, prefix + key, depth + 1)


def _walk_children(
    node: Mapping[str, Any], tokens: tuple[str | int, ...], param: str, depth: int
) -> Iterator[_Property]:
    yield from _walk_properties(node, tokens, param + ".", depth)
    items = node.get("items")
    if isinstance(items, MAPPING):
        yield from _walk_children(items, (*tokens, "items"), param + "[]", depth + 1)
    for keyword in ("prefixItems", "items"):
        entries = node.get(keyword)
        if isinstance(entries, list):
            for i, entry in enumerate(entries):
                if isinstance(entry, MAPPING):
                    here = (*tokens, keyword, i)
                    yield from _walk_children(entry, here, f"{param}[{i}]", depth + 1)


def check_untyped(tool: ToolView) -> Iterator[Finding]:
    for prop in _properties(tool):
        typed = prop.schema is False or (
            isinstance(prop.schema, MAPPING) and any(k in prop.schema for k in _TYPING_KEYWORDS)
        )
        if typed or not isinstance(prop.schema, _SCHEMA_VALUE):
            continue  # a non-schema property value is schema.invalid's business
        param, name = quote(prop.param), quote(tool.label)
        yield PARAM_UNTYPED.finding(
            f"Parameter `{param}` of tool `{name}` has no type (no `type`, `enum`, `const`, "
            "`oneOf`, `anyOf`, `allOf` or `$ref`), so it accepts anything.",
            f'Give parameter `{param}` of tool `{name}` a `type` (e.g. `"type": "string"`) '
            "or an `enum` of the values it accepts.",
            Location(tool.label, prop.param, pointer(*prop.tokens)),
        )


def check_param_missing_description(tool: ToolView) -> Iterator[Finding]:
    root = tool.schema
    for prop in _properties(tool):
        if prop.schema is False or not isinstance(prop.schema, _SCHEMA_VALUE):
            continue  # a forbidden property needs no words; a non-schema is schema.invalid
        if root is not None and _described(prop.schema, root):
            continue
        param, name = quote(prop.param), quote(tool.label)
        yield PARAM_MISSING_DESCRIPTION.finding(
            f"Parameter `{param}` of tool `{name}` has no description.",
            f"Add a `description` to parameter `{param}` of tool `{name}` saying what it is "
            "and its unit/range.",
            Location(tool.label, prop.param, pointer(*prop.tokens)),
        )


def _described(schema: Any, root: Mapping[str, Any]) -> bool:
    """A non-blank ``description`` on the property or on what its local ``$ref`` points to."""
    for _ in range(_MAX_REF_HOPS):
        if not isinstance(schema, MAPPING):
            return False
        desc = schema.get("description")
        if isinstance(desc, str) and desc.strip():
            return True
        schema = _resolve_local_ref(root, schema.get("$ref"))
    return False


def _resolve_local_ref(root: Mapping[str, Any], ref: Any) -> Any:
    """The node a local ``#/...`` reference names within ``root`` (None if it names none)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment and not fragment.startswith("/"):
        return None  # plain-name anchors are not followed
    node: Any = root
    for raw in fragment.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, MAPPING):
            node = node.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


# --------------------------------------------------------------------------- the records

_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

SCHEMA_INVALID = LintRule(
    "schema.invalid",
    _E,
    "Invalid schema",
    "not a valid JSON Schema in its own dialect",
    tool_check=check_schema_invalid,
)
SCHEMA_ROOT_NOT_OBJECT = LintRule(
    "schema.root_not_object",
    _W,
    "Root not an object",
    "root type is not object",
    tool_check=check_root_not_object,
)
SCHEMA_NO_REQUIRED = LintRule(
    "schema.no_required",
    _I,
    "No required array",
    "properties declared but no required array",
    tool_check=check_no_required,
)
PARAM_UNTYPED = LintRule(
    "param.untyped",
    _W,
    "Untyped parameter",
    "a property with no type/enum/const/oneOf/anyOf/allOf/$ref",
    tool_check=check_untyped,
)
PARAM_MISSING_DESCRIPTION = LintRule(
    "param.missing_description",
    _W,
    "Undescribed parameter",
    "a property with no description (looked up through $ref)",
    tool_check=check_param_missing_description,
)

RULES: tuple[LintRule, ...] = (
    SCHEMA_INVALID,
    SCHEMA_ROOT_NOT_OBJECT,
    SCHEMA_NO_REQUIRED,
    PARAM_UNTYPED,
    PARAM_MISSING_DESCRIPTION,
)
