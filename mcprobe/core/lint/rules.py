"""The lint rule registry (SPEC §4): stable codes, and one small check function per rule.

Every rule is a function of one signature that yields ``Finding``s with a precise ``Location``;
pointers are RFC 6901 pointers into the *tool definition* as the target sent it
(``/inputSchema/properties/a``). A pointer may name a member that is absent (``/description``
for a missing description): it says where the fix goes.

Input is raw JSON from the wire and may have any shape: the checks never raise. This module holds
the code registry (``LINT_RULES``), the rules about a tool entry itself (``tool.*``) and the
server-wide rules; the ``schema.*`` and ``param.*`` rules, the ordered rule lists and
``lint_server`` live in ``mcprobe.core.lint.engine``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mcprobe.core.model import Finding, Location, ServerSnapshot, Severity


@dataclass(frozen=True)
class LintRule:
    """A lint code as users see it: SARIF, JUnit and the docs read these."""

    code: str
    severity: Severity
    title: str
    summary: str


_C, _E, _W, _I = Severity.CRITICAL, Severity.ERROR, Severity.WARNING, Severity.INFO

# SPEC §4 table order: the order of findings within one tool follows it.
_RULES = (
    LintRule(
        "tool.malformed",
        _E,
        "Malformed tool",
        "a tool entry is not an object or has no string name",
    ),
    LintRule(
        "tool.missing_description", _E, "Missing tool description", "no description, or blank"
    ),
    LintRule(
        "tool.thin_description",
        _W,
        "Thin tool description",
        "description shorter than 12 characters",
    ),
    LintRule("tool.duplicate_name", _E, "Duplicate tool name", "two tools share a name"),
    LintRule(
        "tool.unusual_name",
        _W,
        "Unusual tool name",
        "name breaks the MCP tool-name rules (SEP-986), or names mix styles",
    ),
    LintRule(
        "tool.no_input_schema", _W, "No input schema", "inputSchema missing, not an object, or {}"
    ),
    LintRule("tool.no_annotations", _I, "No annotations", "no MCP annotations"),
    LintRule("schema.invalid", _E, "Invalid schema", "not a valid JSON Schema in its own dialect"),
    LintRule("schema.root_not_object", _W, "Root not an object", "root type is not object"),
    LintRule(
        "schema.no_required", _I, "No required array", "properties declared but no required array"
    ),
    LintRule(
        "param.untyped",
        _W,
        "Untyped parameter",
        "a property with no type/enum/const/oneOf/anyOf/allOf/$ref",
    ),
    LintRule(
        "param.missing_description",
        _W,
        "Undescribed parameter",
        "a property with no description (looked up through $ref)",
    ),
    LintRule("server.no_tools", _W, "No tools", "the server advertises tools but lists none"),
    # Security (SPEC §5.2): static rules (core/lint/security_*.py), then the behavioural proofs
    # (core/security_proofs.py); they score in the Security dimension, not in Schema Quality.
    LintRule(
        "security.hidden_characters",
        _C,
        "Hidden characters",
        "zero-width, bidi, tag or other invisible characters, or blank padding hiding text",
    ),
    LintRule(
        "security.homoglyph",
        _E,
        "Look-alike letters",
        "a word mixing Latin letters with look-alikes from another script",
    ),
    LintRule(
        "security.model_instruction",
        _C,
        "Instructions aimed at the model",
        "<IMPORTANT>-style tags, 'ignore previous instructions', 'do not tell the user', ...",
    ),
    LintRule(
        "security.shadowing",
        _C,
        "Tool shadowing",
        "a description that tells the model how to use another tool (recipients, destinations)",
    ),
    LintRule(
        "security.exfiltration",
        _C,
        "Exfiltration cue",
        "asks for the conversation, credentials or secret files, or sends data to an address",
    ),
    LintRule(
        "security.param_contradiction",
        _E,
        "Parameter wording contradicts its schema",
        "an optional parameter whose description insists it is required",
    ),
    LintRule(
        "security.misleading_annotation",
        _E,
        "Misleading annotations",
        "a dangerous capability annotated read-only, non-destructive or closed-world",
    ),
    LintRule(
        "security.unannotated_capability",
        _W,
        "Dangerous capability not annotated",
        "command execution, deletion or URL fetch without the matching hint",
    ),
    LintRule(
        "security.environment_exposure",
        _E,
        "Environment exposed",
        "a tool that returns the server's environment variables or whole file system",
    ),
    LintRule(
        "security.canary_leak",
        _C,
        "Environment leak proven",
        "the canary value planted in the target's environment came back in an answer",
    ),
    LintRule(
        "security.secret_echo",
        _C,
        "Secret echoed",
        "a credential mcprobe was given (bearer, header, secret env) came back in an answer",
    ),
    LintRule(
        "security.rug_pull",
        _C,
        "Rug pull",
        "a tool definition changed during the session and the change adds security findings",
    ),
    LintRule(
        "security.definition_changed",
        _E,
        "Tool definition changed",
        "a tool was added, removed or redefined during the session",
    ),
    LintRule(
        "security.undeclared_list_changed",
        _W,
        "Undeclared list_changed",
        "notifications/tools/list_changed sent although the server declared listChanged: false",
    ),
)

LINT_RULES: Mapping[str, LintRule] = MappingProxyType({rule.code: rule for rule in _RULES})
"""Every lint code mcprobe emits: the twelve stable SPEC codes plus ``EXTRA_CODES``."""

SECURITY_CODES: tuple[str, ...] = tuple(r.code for r in _RULES if r.code.startswith("security."))
"""The ``security.*`` family (SPEC §5.2): scored in the Security dimension only."""

EXTRA_CODES: tuple[str, ...] = ("tool.malformed", *SECURITY_CODES)
"""Codes beyond SPEC §4's twelve."""

RULE_RANK: Mapping[str, int] = MappingProxyType({rule.code: i for i, rule in enumerate(_RULES)})

_QUOTE_LIMIT = 60

# SEP-986 (MCP 2025-11-25, server/tools#tool-names): 1-128 characters of A-Z a-z 0-9 _ - .
# The same rule as ``mcp.shared.tool_name_validation``, kept here because importing the SDK
# costs seconds and this module must stay a cheap pure one; a test keeps the two in step.
SEP_986_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


def finding(code: str, message: str, hint: str, location: Location) -> Finding:
    return Finding(code, LINT_RULES[code].severity, message, location, hint)


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
        return schema if isinstance(schema, Mapping) and schema else None


ToolRule = Callable[[ToolView], Iterator[Finding]]
"""The one signature of a per-tool rule; ``engine.TOOL_RULES`` lists them in order."""


def check_malformed(tool: ToolView) -> Iterator[Finding]:
    where = f"Tool entry {tool.label} in the listing"
    hint = (
        "Send every tool as an object with a string `name`, a `description` and an `inputSchema`."
    )
    if tool.raw is None:
        msg = f"{where} is {json_kind(tool.value)}, not an object; it cannot be called."
        yield finding("tool.malformed", msg, hint, Location(tool.label, pointer=""))
    elif "name" not in tool.raw:
        msg = f"{where} has no `name`; it cannot be called."
        yield finding("tool.malformed", msg, hint, Location(tool.label, pointer="/name"))
    elif not isinstance(tool.raw["name"], str):
        msg = f"{where} has a `name` that is {json_kind(tool.raw['name'])}, not a string."
        yield finding("tool.malformed", msg, hint, Location(tool.label, pointer="/name"))


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
    yield finding(
        "tool.missing_description",
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
    yield finding(
        "tool.thin_description",
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
    yield finding(
        "tool.unusual_name",
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
    elif not isinstance(schema, Mapping):
        what = f"has an `inputSchema` that is {json_kind(schema)}, not an object"
    elif not schema:
        what = "has an empty `inputSchema` (`{}`), which says nothing about its arguments"
    else:
        return
    yield finding(
        "tool.no_input_schema",
        f"Tool `{quote(tool.label)}` {what}.",
        'Declare `inputSchema` as `{"type": "object", "properties": {...}, "required": [...]}`; '
        'a tool without parameters uses `{"type": "object"}`.',
        Location(tool.label, pointer="/inputSchema"),
    )


def check_no_annotations(tool: ToolView) -> Iterator[Finding]:
    if tool.raw is None:
        return
    annotations = tool.raw.get("annotations")
    if isinstance(annotations, Mapping) and annotations:
        return
    if "annotations" not in tool.raw:
        what = "declares no MCP annotations"
    elif isinstance(annotations, Mapping):
        what = "declares empty annotations"
    else:
        what = f"has `annotations` that are {json_kind(annotations)}, not an object"
    yield finding(
        "tool.no_annotations",
        f"Tool `{quote(tool.label)}` {what}, so clients must assume it may be destructive.",
        "Add `annotations` with at least `readOnlyHint` and `destructiveHint` (and "
        "`idempotentHint`, `openWorldHint` where they apply).",
        Location(tool.label, pointer="/annotations"),
    )


# --------------------------------------------------------------------------- server-wide rules
# One signature too: ``(snapshot, views) -> findings``, listed in ``engine.SERVER_RULES``.


def check_no_tools(snapshot: ServerSnapshot, views: list[ToolView]) -> Iterator[Finding]:
    caps = snapshot.capabilities
    if isinstance(caps, Mapping) and "tools" in caps and not snapshot.tools:
        yield finding(
            "server.no_tools",
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
            yield finding(
                "tool.duplicate_name",
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
    for view in views:
        if view.raw is None or not isinstance(view.raw.get("name"), str):
            continue
        style = _style(view.label)
        if style is not None and view.label not in by_style.get(style, []):
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
    yield finding(
        "tool.unusual_name",
        f"Tool names mix naming styles: {mix}.",
        f"Use one style ({main}, the most common here): rename {renames}{more}.",
        Location(),
    )
