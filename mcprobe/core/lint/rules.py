"""The lint rule registry (SPEC §4): stable codes, and one small check function per rule.

Every rule is a function of one signature that yields ``Finding``s with a precise ``Location``;
pointers are RFC 6901 pointers into the *tool definition* as the target sent it
(``/inputSchema/properties/a``). A pointer may name a member that is absent (``/description``
for a missing description): it says where the fix goes.

Input is raw JSON from the wire and may have any shape: the checks never raise. This module holds
the ``LintRule`` record, the helpers every rule module uses, and the rules about a tool entry
itself (``tool.*``) and the server-wide ones, each registered with its metadata in ``RULES`` at
the bottom. The ``schema.*`` and ``param.*`` rules are in ``schema_rules``; ``registry`` puts all
records together (``LINT_RULES``) and ``engine.lint_server`` runs them.

To add a rule: write its check (``ToolRule`` or ``ServerRule`` signature) and one ``LintRule``
record in the ``RULES`` of its module (a new module: add its ``RULES`` to ``registry``), a
``### `code``` section in docs/checks.md, and a positive and a negative test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcprobe.core.model import Finding, Location, ServerSnapshot, Severity


@dataclass(frozen=True)
class LintRule:
    """One lint code, everything about it: SARIF, JUnit and the docs read the metadata, the
    engine runs the checks. ``tool_check`` runs once per tool entry, ``server_check`` once per
    server (a code may have both: ``tool.unusual_name`` is per name and across names)."""

    code: str
    severity: Severity
    title: str
    summary: str
    tool_check: ToolRule | None = None
    server_check: ServerRule | None = None
    emitted_by: str | None = None  # no check here: the findings come from there (proofs)

    def finding(self, message: str, hint: str, location: Location) -> Finding:
        """A finding of this rule: its code and severity come from the record, never spelt
        again by the check that found it."""
        return Finding(self.code, self.severity, message, location, hint)


MAPPING = (dict, Mapping)
"""``isinstance(x, MAPPING)`` answers as ``isinstance(x, Mapping)`` does, faster for what
listings are made of: a dict is found by the type check before ``Mapping``'s ABC check is
asked (that one costs about 0.5 us a call; lint asked it 120,000 times at 1,000 tools)."""

_QUOTE_LIMIT = 60

# SEP-986 (MCP 2025-11-25, server/tools#tool-names): 1-128 characters of A-Z a-z 0-9 _ - .
# The same rule as ``mcp.shared.tool_name_validation``, kept here because importing the SDK
# costs seconds and this module must stay a cheap pure one; a test keeps the two in step.
SEP_986_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


def quote(text: str, limit: int = _QUOTE_LIMIT) -> str:
    """Target text shortened for a message (the renderer escapes it, not us)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return {str: "a string", int: "a number", float: "a number", list: "an array"}.get(
        type(value), "an object"
    )


def pointer(*tokens: str | int) -> str:
    joined = "/".join(map(str, tokens))
    if "~" not in joined and joined.count("/") == len(tokens) - 1:
        return "/" + joined if tokens else ""  # no token needs escaping
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


# --------------------------------------------------------------------------- per-tool rules


@dataclass(frozen=True)
class ToolView:
    """One listing entry. ``label`` is the tool's name, or ``#<index>`` (0-based position in
    the listing) when the entry has no string name. ``raw`` is None when it is not an object."""

    index: int
    label: str
    raw: Mapping[str, Any] | None
    value: Any

    @property
    def schema(self) -> Mapping[str, Any] | None:
        """The input schema when it is a non-empty object (the schema rules need one)."""
        schema = self.raw.get("inputSchema") if self.raw is not None else None
        return schema if isinstance(schema, MAPPING) and schema else None


ToolRule = Callable[[ToolView], Iterator[Finding]]
"""The one signature of a per-tool rule."""

ServerRule = Callable[[ServerSnapshot, list[ToolView]], Iterator[Finding]]
"""The one signature of a server-wide rule: ``(snapshot, views) -> findings``."""


def check_malformed(tool: ToolView) -> Iterator[Finding]:
    where = f"Tool entry {tool.label} in the listing"
    hint = (
        "Send every tool as an object with a string `name`, a `description` and an `inputSchema`."
    )
    if tool.raw is None:
        msg = f"{where} is {json_kind(tool.value)}, not an object; it cannot be called."
        yield TOOL_MALFORMED.finding(msg, hint, Location(tool.label, pointer=""))
    elif "name" not in tool.raw:
        msg = f"{where} has no `name`; it cannot be called."
        yield TOOL_MALFORMED.finding(msg, hint, Location(tool.label, pointer="/name"))
    elif not isinstance(tool.raw["name"], str):
        msg = f"{where} has a `name` that is {json_kind(tool.raw['name'])}, not a string."
        yield TOOL_MALFORMED.finding(msg, hint, Location(tool.label, pointer="/name"))


def check_missing_description(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    desc = tool.raw.get("description")
    if isinstance(desc, str) and desc.strip():
        return
    name = quote(tool.label)
    if "description" not in tool.raw:
        what = "has no description"
    elif isinstance(desc, str):
        what = "has a blank description"
    else:
        what = f"has a description that is {json_kind(desc)}, not a string"
    yield TOOL_MISSING_DESCRIPTION.finding(
        f"Tool `{name}` {what}; a model cannot tell when to use it.",
        f"Add a `description` to tool `{name}` saying what it does, when to use it and what it "
        "returns.",
        Location(tool.label, pointer="/description"),
    )


def check_thin_description(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    desc = tool.raw.get("description")
    if not isinstance(desc, str) or not desc.strip() or len(desc.strip()) >= 12:
        return
    name = quote(tool.label)
    yield TOOL_THIN_DESCRIPTION.finding(
        f"Tool `{name}` has a very short description ({len(desc.strip())} characters): "
        f"`{desc.strip()}`.",
        f"Expand the description of tool `{name}` to at least a sentence: what it does, what "
        "its parameters mean and what it returns.",
        Location(tool.label, pointer="/description"),
    )


def check_unusual_name(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    name = tool.raw.get("name")
    if not isinstance(name, str) or SEP_986_NAME.fullmatch(name):
        return
    if not name:
        why = "it is empty"
    elif len(name) > 128:
        why = f"it is {len(name)} characters long (at most 128)"
    else:
        bad = sorted({c for c in name if not re.fullmatch(r"[A-Za-z0-9._-]", c)})
        why = "it contains " + ", ".join(repr(c) for c in bad[:5]) + (" …" if len(bad) > 5 else "")
    suggestion = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:128] or "a_descriptive_name"
    yield TOOL_UNUSUAL_NAME.finding(
        f"Tool name `{quote(name)}` breaks the MCP tool-name rules (SEP-986): {why}.",
        f"Rename tool `{quote(name)}`, e.g. to `{quote(suggestion)}`: 1–128 characters from "
        "A–Z, a–z, 0–9, "
        "`_`, `-` and `.`.",
        Location(tool.label, pointer="/name"),
    )


def check_no_input_schema(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    schema = tool.raw.get("inputSchema")
    if "inputSchema" not in tool.raw:
        what = "has no `inputSchema`"
    elif not isinstance(schema, MAPPING):
        what = f"has an `inputSchema` that is {json_kind(schema)}, not an object"
    elif not schema:
        what = "has an empty `inputSchema` (`{}`), which says nothing about its arguments"
    else:
        return
    yield TOOL_NO_INPUT_SCHEMA.finding(
        f"Tool `{quote(tool.label)}` {what}.",
        'Declare `inputSchema` as `{"type": "object", "properties": {...}, "required": [...]}`; '
        'a tool without parameters uses `{"type": "object"}`.',
        Location(tool.label, pointer="/inputSchema"),
    )


def check_no_annotations(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    annotations = tool.raw.get("annotations")
    if isinstance(annotations, MAPPING) and annotations:
        return
    if "annotations" not in tool.raw:
        what = "declares no MCP annotations"
    elif isinstance(annotations, MAPPING):
        what = "declares empty annotations"
    else:
        what = f"has `annotations` that are {json_kind(annotations)}, not an object"
    yield TOOL_NO_ANNOTATIONS.finding(
        f"Tool `{quote(tool.label)}` {what}, so clients must assume it may be destructive.",
        "Add `annotations` with at least `readOnlyHint` and `destructiveHint` (and "
        "`idempotentHint`, `openWorldHint` where they apply).",
        Location(tool.label, pointer="/annotations"),
    )


# --------------------------------------------------------------------------- server-wide rules


def check_no_tools(snapshot: ServerSnapshot, views: list[ToolView]) -> Iterator[Finding]:
    caps = snapshot.capabilities
    if isinstance(caps, MAPPING) and "tools" in caps and not snapshot.tools:
        yield SERVER_NO_TOOLS.finding(
            "The server advertises the `tools` capability but lists no tools.",
            "List at least one tool, or stop advertising the `tools` capability.",
            Location(),
        )


def check_duplicate_names(snapshot: ServerSnapshot, views: list[ToolView]) -> Iterator[Finding]:
    positions: dict[str, list[int]] = {}
    for view in views:
        if view.raw is not None and isinstance(view.raw.get("name"), str):
            positions.setdefault(view.label, []).append(view.index)
    for name, where in positions.items():
        if len(where) > 1:
            at = ", ".join(map(str, where[:-1])) + f" and {where[-1]}"
            yield TOOL_DUPLICATE_NAME.finding(
                f"{len(where)} tools are named `{quote(name)}` (listing positions {at}); "
                "clients call tools by name, so only one of them is reachable.",
                f"Give each tool named `{quote(name)}` a unique name.",
                Location(name),
            )


_STYLE_ORDER = ("snake_case", "camelCase", "kebab-case")


def _style(name: str) -> str | None:
    hump = re.search(r"[a-z0-9][A-Z]", name) is not None
    underscore, dash = "_" in name, "-" in name
    if underscore and not dash and not hump:
        return "snake_case"
    if dash and not underscore and not hump:
        return "kebab-case"
    if hump and not underscore and not dash:
        return "camelCase"
    return None  # one word, or already a blend of styles


def _restyle(name: str, style: str) -> str:
    split = re.sub(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])", r"\1\3_\2\4", name)
    words = [w for w in re.split(r"[_\-]+", split) if w]
    if style == "camelCase":
        return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:])
    return ("_" if style == "snake_case" else "-").join(w.lower() for w in words)


def check_mixed_styles(snapshot: ServerSnapshot, views: list[ToolView]) -> Iterator[Finding]:
    by_style: dict[str, list[str]] = {}
    seen: set[str] = set()  # (a name has one style: a set, not a scan of its style's list)
    for view in views:
        if view.raw is None or not isinstance(view.raw.get("name"), str):
            continue
        style = _style(view.label)
        if style is not None and view.label not in seen:
            seen.add(view.label)
            by_style.setdefault(style, []).append(view.label)
    if len(by_style) < 2:
        return
    styles = sorted(by_style, key=lambda s: (-len(by_style[s]), _STYLE_ORDER.index(s)))
    main = styles[0]

    def sample(names: list[str]) -> str:
        shown = ", ".join(f"`{quote(n, 40)}`" for n in names[:3])
        return shown + (", …" if len(names) > 3 else "")

    mix = "; ".join(f"{len(by_style[s])} {s} ({sample(by_style[s])})" for s in styles)
    others = [n for s in styles[1:] for n in by_style[s]]
    renames = ", ".join(f"`{quote(n, 40)}` → `{quote(_restyle(n, main), 40)}`" for n in others[:5])
    more = f" and {len(others) - 5} more" if len(others) > 5 else ""
    yield TOOL_UNUSUAL_NAME.finding(
        f"Tool names mix naming styles: {mix}.",
        f"Use one style ({main}, the most common here): rename {renames}{more}.",
        Location(),
    )


# --------------------------------------------------------------------------- the records

_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

# SPEC §4 table order (``registry`` keeps it): the order of findings within one tool follows it.
TOOL_MALFORMED = LintRule(
    "tool.malformed",
    _E,
    "Malformed tool",
    "a tool entry is not an object or has no string name",
    tool_check=check_malformed,
)
TOOL_MISSING_DESCRIPTION = LintRule(
    "tool.missing_description",
    _E,
    "Missing tool description",
    "no description, or blank",
    tool_check=check_missing_description,
)
TOOL_THIN_DESCRIPTION = LintRule(
    "tool.thin_description",
    _W,
    "Thin tool description",
    "description shorter than 12 characters",
    tool_check=check_thin_description,
)
TOOL_DUPLICATE_NAME = LintRule(
    "tool.duplicate_name",
    _E,
    "Duplicate tool name",
    "two tools share a name",
    server_check=check_duplicate_names,
)
TOOL_UNUSUAL_NAME = LintRule(
    "tool.unusual_name",
    _W,
    "Unusual tool name",
    "name breaks the MCP tool-name rules (SEP-986), or names mix styles",
    tool_check=check_unusual_name,
    server_check=check_mixed_styles,
)
TOOL_NO_INPUT_SCHEMA = LintRule(
    "tool.no_input_schema",
    _W,
    "No input schema",
    "inputSchema missing, not an object, or {}",
    tool_check=check_no_input_schema,
)
TOOL_NO_ANNOTATIONS = LintRule(
    "tool.no_annotations",
    _I,
    "No annotations",
    "no MCP annotations",
    tool_check=check_no_annotations,
)

TOOL_ENTRY_RULES: tuple[LintRule, ...] = (
    TOOL_MALFORMED,
    TOOL_MISSING_DESCRIPTION,
    TOOL_THIN_DESCRIPTION,
    TOOL_DUPLICATE_NAME,
    TOOL_UNUSUAL_NAME,
    TOOL_NO_INPUT_SCHEMA,
    TOOL_NO_ANNOTATIONS,
)

SERVER_NO_TOOLS = LintRule(
    "server.no_tools",
    _W,
    "No tools",
    "the server advertises tools but lists none",
    server_check=check_no_tools,
)

SERVER_WIDE_RULES: tuple[LintRule, ...] = (SERVER_NO_TOOLS,)
