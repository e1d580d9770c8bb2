"""Lint: the static schema-quality rules of SPEC §4, run over the raw ``tools/list`` entries.

``lint_server(snapshot)`` returns every finding in a deterministic order:

1. server-wide findings: ``server.no_tools``, then ``tool.duplicate_name`` (one per shared name,
   in order of first appearance), then the mixed-naming-style ``tool.unusual_name`` warning;
2. per tool, in listing order; within a tool by rule order (SPEC §4 table, ``tool.malformed``
   first), then by JSON pointer (token-wise, array indices numerically), then by message;
3. ``snapshot.listing_findings``, unchanged.

Decisions where SPEC §4 is silent:

- A listing entry that is not an object, has no ``name`` or a non-string ``name`` gets the extra
  error ``tool.malformed``; its location ``tool`` is ``#<index>`` (0-based listing position),
  which is also used for every other finding about a nameless entry. A non-object entry gets
  only that finding.
- ``schema.root_not_object`` fires when the root ``type`` is anything but ``"object"`` (or
  ``["object"]``), including a missing ``type``; it is not evaluated for ``{}`` or a non-object
  ``inputSchema`` (``tool.no_input_schema`` covers those).
- ``schema.invalid`` checks ``inputSchema`` (when it is an object) and ``outputSchema`` (when
  present) with real meta-schema validation in their own dialect; duplicate problems are merged
  and at most 10 are reported per schema.
- ``schema.no_required`` looks at the root only; ``"required": []`` is an explicit "all optional"
  and does not fire, and neither does a schema whose every property has a ``default``.
- ``param.untyped`` / ``param.missing_description`` walk top-level properties and nested ones
  under ``properties``, ``items`` and ``prefixItems`` (``param`` is a dotted path such as
  ``address.zip``, ``tags[].name``, ``point[0].x``); they do not descend into ``$ref`` targets or
  ``anyOf`` branches. Only ``description`` counts (not ``title``), on the property or on the
  definition its local ``$ref`` names (``$defs`` or ``definitions``). A ``true`` property schema
  is untyped and undescribed; a ``false`` one is ignored.
- Mixed naming styles: names are classed as snake_case, camelCase (incl. PascalCase) or
  kebab-case (one-word names are neutral); with two or more styles present, one server-wide
  warning names the tools outside the most common style.
"""

from __future__ import annotations

from typing import Any

from mcprobe.core.lint.registry import (
    EXTRA_CODES,
    LINT_RULES,
    RULE_RANK,
    SERVER_RULES,
    TOOL_RULES,
    LintRule,
)
from mcprobe.core.lint.rules import MAPPING, ToolView, check_malformed
from mcprobe.core.model import Finding, ServerSnapshot

__all__ = ["EXTRA_CODES", "LINT_RULES", "SERVER_RULES", "TOOL_RULES", "LintRule", "lint_server"]


def lint_server(snapshot: ServerSnapshot) -> tuple[Finding, ...]:
    """Every lint finding for the server, followed by ``snapshot.listing_findings``."""
    views = [_view(i, tool) for i, tool in enumerate(snapshot.tools)]
    findings = [f for _, check in SERVER_RULES for f in check(snapshot, views)]
    for view in views:
        # A non-object entry has nothing else to lint.
        rules = TOOL_RULES if view.raw is not None else (("tool.malformed", check_malformed),)
        per_tool = [f for _, check in rules for f in check(view)]
        findings.extend(sorted(per_tool, key=_order))
    return (*findings, *snapshot.listing_findings)


def _view(index: int, tool: Any) -> ToolView:
    raw = tool if isinstance(tool, MAPPING) else None
    name = raw.get("name") if raw is not None else None
    return ToolView(index, name if isinstance(name, str) else f"#{index}", raw, tool)


def _order(f: Finding) -> tuple[int, tuple[tuple[int, int, str], ...], str]:
    tokens = () if not f.location.pointer else f.location.pointer.split("/")[1:]
    # Array indices sort numerically; a tuple with a leading discriminator keeps keys comparable.
    key = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in tokens)
    return (RULE_RANK[f.code], key, f.message)
