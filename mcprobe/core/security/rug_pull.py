"""Rug pull (SPEC §5.2), pure: the first tool listing and a second one taken later in the same
session, in; findings out.

- ``definition_findings``: every tool whose definition (name, title, description, inputSchema,
  outputSchema, annotations) was changed, added or removed between the two listings, with a
  readable diff. The static ``security.*`` rules run over both listings: a change that adds
  security hits is ``security.rug_pull`` (critical), any other is ``security.definition_changed``.
- ``list_changed_findings``: ``notifications/tools/list_changed`` sent although the server did
  not declare ``tools.listChanged: true``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mcprobe.core.lint.engine import lint_server
from mcprobe.core.lint.registry import finding
from mcprobe.core.lint.security_text import shown, visible
from mcprobe.core.model import Finding, Location, ServerSnapshot

__all__ = ["DEFINITION_FIELDS", "definition_findings", "field_diff", "list_changed_findings"]

DEFINITION_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
"""What the model reads of a tool: a change to any of these is a changed definition."""

_BEHAVIOURAL = frozenset(
    {
        "security.canary_leak",
        "security.secret_echo",
        "security.rug_pull",
        "security.definition_changed",
        "security.undeclared_list_changed",
    }
)
_SHOWN = 160  # characters of each side of a changed field


def _key(entry: Any, index: int) -> str:
    """A tool's identity across listings: its name, or its position when it has none."""
    if isinstance(entry, dict) and isinstance(entry.get("name"), str):
        return str(entry["name"])
    return f"#{index}"


def _by_name(tools: Sequence[Any]) -> dict[str, Any]:
    keyed: dict[str, Any] = {}
    for index, entry in enumerate(tools):
        keyed.setdefault(_key(entry, index), entry)
    return keyed


def _field(entry: Any, name: str) -> Any:
    return entry.get(name) if isinstance(entry, dict) else None


def _text(value: Any) -> str:
    if value is None:
        return "(absent)"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _clip(text: str, start: int) -> str:
    """``text`` from a little before ``start`` (where it differs), bounded."""
    begin = max(0, start - 20)
    cut = text[begin : begin + _SHOWN]
    return ("…" if begin else "") + cut + ("…" if begin + _SHOWN < len(text) else "")


def field_diff(before: Any, after: Any) -> str | None:
    """One readable line for a changed field, quoting both sides from where they start to
    differ; None when the field is unchanged."""
    if before == after:
        return None
    old, new = _text(before), _text(after)
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if start is None:
        start = min(len(old), len(new))
    return f"`{_quoted(_clip(old, start))}` → `{_quoted(_clip(new, start))}`"


def _quoted(text: str) -> str:
    """Already bounded target text for a code span: invisible characters shown, backticks named
    (``shown`` would cut it to a name's length)."""
    return visible(text).replace("`", "⟨backtick⟩")


def _changes(before: Any, after: Any) -> list[str]:
    lines = []
    for name in DEFINITION_FIELDS:
        line = field_diff(_field(before, name), _field(after, name))
        if line is not None:
            lines.append(f"{name}: {line}")
    return lines


def _security_hits(snapshot: ServerSnapshot, tools: Sequence[Any]) -> dict[str, set[str]]:
    """The static security findings per tool (code + message) of ``tools``."""
    hits: dict[str, set[str]] = {}
    listed = replace(snapshot, tools=tuple(tools), listing_findings=())
    for found in lint_server(listed):
        if found.code.startswith("security.") and found.code not in _BEHAVIOURAL:
            tool = found.location.tool or ""
            hits.setdefault(tool, set()).add(f"{found.code}\0{found.message}")
    return hits


def definition_findings(
    snapshot: ServerSnapshot, relisted: Sequence[Any], *, when: str = "after fuzzing"
) -> list[Finding]:
    """One finding per tool whose definition differs between ``snapshot.tools`` (the first
    listing) and ``relisted`` (the second, taken ``when``)."""
    first, second = _by_name(snapshot.tools), _by_name(relisted)
    changed = [
        name
        for name in [*first, *(n for n in second if n not in first)]
        if first.get(name) != second.get(name)
    ]
    if not changed:  # the usual case: no second lint of the whole listing (twice) for nothing
        return []
    old_hits = _security_hits(snapshot, snapshot.tools)
    new_hits = _security_hits(snapshot, relisted)
    found: list[Finding] = []
    for name in changed:
        before, after = first.get(name), second.get(name)
        added = sorted(new_hits.get(name, set()) - old_hits.get(name, set()))
        if before is None:
            what = "was added"
            diff = ""
        elif after is None:
            what, diff = "was removed", ""
        else:
            what, diff = "changed its definition", "; ".join(_changes(before, after))
        message = f"Tool `{shown(name)}` {what} {when}" + (f" ({diff})" if diff else "")
        if added and after is not None:
            codes = sorted({hit.split("\0", 1)[0] for hit in added})
            found.append(
                finding(
                    "security.rug_pull",
                    f"{message}, and the new definition adds {', '.join(codes)}: the model "
                    "now reads a tool the user never approved.",
                    f"Keep the definition of tool `{shown(name)}` fixed for the session; ship "
                    "changes as a new version, and remove what the security rules flag.",
                    Location(name),
                )
            )
            continue
        found.append(
            finding(
                "security.definition_changed",
                message + ".",
                f"Keep the definition of tool `{shown(name)}` fixed for a session, or ship the "
                "change as a new version.",
                Location(name),
            )
        )
    return found


def list_changed_findings(capabilities: Any, count: int) -> list[Finding]:
    """``notifications/tools/list_changed`` received ``count`` times: a finding unless the
    server declared ``capabilities.tools.listChanged: true``."""
    if count <= 0:
        return []
    tools = capabilities.get("tools") if isinstance(capabilities, dict) else None
    declared = tools.get("listChanged") if isinstance(tools, dict) else None
    if declared is True:
        return []
    said = "says `listChanged: false`" if declared is False else "does not declare listChanged"
    return [
        finding(
            "security.undeclared_list_changed",
            f"The server sent notifications/tools/list_changed {count} time(s) although its "
            f"`tools` capability {said}: clients that trust the declaration never re-read the "
            "tool list.",
            'Declare `"tools": {"listChanged": true}` if the tool list can change, or stop '
            "sending the notification.",
            Location(),
        )
    ]
