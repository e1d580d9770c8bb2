"""SARIF rules and results for the server beyond its tools: the resource, prompt, protocol and
HTTP transport checks (``core/checks/``) and the drift against a lock (``audit --lock``).

- One rule per check id, declared whether or not it ran: its title, the spec clause it enforces
  (``fullDescription``; ``helpUri`` when the clause is a URL) and its fix (``help``). A ``must``
  check is an ``error``, a ``should`` check a ``warning`` (advice: it costs no points).
- One result per *failed* check and subject; passes, inconclusive and not-applicable checks are
  no results (SARIF lists problems). The message says what was sent and what came back.
- Logical locations: a resource URI (``resource``), a prompt name (``function``), the JSON-RPC
  method for a protocol check (``function``, with its subject, e.g. a completion argument, as a
  ``member``), the HTTP endpoint for a transport check (``resource``).
- Drift: one rule per kind (``drift.added``, ``drift.removed``, ``drift.changed``) and one result
  per drifted tool, each changed field quoted on both sides. Identity changes of the server
  (name/version) are not drift: the run's properties list them.

Pure: no I/O. Target text only ever lands in JSON strings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.checks.records import CheckSpec, Level
from mcprobe.report.model import CheckOut, ConformanceReport

__all__ = [
    "DRIFT_RULES",
    "check_location",
    "drift_results",
    "drift_rules",
    "surface_results",
    "surface_rules",
]

_LEVEL = {Level.MUST.value: "error", Level.SHOULD.value: "warning"}
Fingerprint = Callable[..., str]  # sarif._fingerprint: parts -> a stable hash
_MAX_TEXT = 300


def _cut(text: str, limit: int = _MAX_TEXT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _stop(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _sentence(text: str) -> str:
    text = text.strip()
    return _stop(text[:1].upper() + text[1:])


def _help_uri(clause: str) -> str | None:
    """The clause's URL (its first word) when it is one; named sections have none."""
    first = clause.split(" ", 1)[0]
    return first if first.startswith("https://") else None


def _check_rule(spec: CheckSpec) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": spec.check,
        "name": "".join(part.capitalize() for part in spec.check.replace(".", "_").split("_")),
        "shortDescription": {"text": spec.title},
        "fullDescription": {
            "text": f"{spec.title}. Spec ({spec.level.value.upper()}): {spec.clause}"
        },
        "help": {"text": f"{_sentence(spec.hint)} Spec: {spec.clause}"},
        "defaultConfiguration": {"level": _LEVEL[spec.level.value]},
        "properties": {"tags": ["mcp", spec.area.value, spec.level.value]},
    }
    uri = _help_uri(spec.clause)
    if uri is not None:
        rule["helpUri"] = uri
    return rule


def surface_rules() -> list[dict[str, Any]]:
    """Every check of the catalogue as a SARIF rule, in catalogue order."""
    return [_check_rule(spec) for spec in CHECKS.values()]


def _method(request: str | None) -> str | None:
    """The JSON-RPC method a protocol check's request names (``method`` then its JSON params;
    a method name has no space)."""
    method = (request or "").strip().split(" ", 1)[0]
    return method or None


def check_location(server: str, endpoint: str | None, check: CheckOut) -> list[dict[str, Any]]:
    """Where a check's subject lives, as SARIF logical locations (see the module docstring)."""
    subject = check.subject
    if check.area == "resources" and subject:
        return [{"name": subject, "fullyQualifiedName": f"{server}/{subject}", "kind": "resource"}]
    if check.area == "prompts" and subject:
        fqn = f"{server}/prompts/{subject}"
        return [{"name": subject, "fullyQualifiedName": fqn, "kind": "function"}]
    if check.area == "http":
        where = endpoint or server
        return [{"name": where, "fullyQualifiedName": where, "kind": "resource"}]
    method = _method(check.request)
    if method is None:
        return [{"name": server, "fullyQualifiedName": server, "kind": "module"}]
    locations: list[dict[str, Any]] = [
        {"name": method, "fullyQualifiedName": f"{server}/{method}", "kind": "function"}
    ]
    if subject:
        fqn = f"{server}/{method}/{subject}"
        locations.append({"name": subject, "fullyQualifiedName": fqn, "kind": "member"})
    return locations


def _check_message(check: CheckOut) -> str:
    spec = CHECKS.get(check.check)
    title = spec.title if spec is not None else check.check
    parts = [f"{title}: {_cut(check.message)}"]
    if check.level == Level.SHOULD.value:
        parts[0] += " (advice: a SHOULD of the spec, not scored)"
    parts[0] = _stop(parts[0])  # not capitalised: a title may start with a method name
    if check.request:
        parts.append(_stop(f"Sent: {_cut(check.request)}"))
    if check.observed:
        parts.append(_stop(f"Observed (from the target): {_cut(check.observed)}"))
    parts.append(f"Fix: {_sentence(check.hint)}")
    return " ".join(parts)


def surface_results(
    server: str, report: ConformanceReport, fingerprint: Fingerprint
) -> Iterator[dict[str, Any]]:
    """One result per failed check (``fingerprint`` hashes the parts that identify it)."""
    if report.surface is None:
        return
    endpoint = report.target.url if report.target is not None else None
    for check in report.surface.checks:
        if check.verdict != "fail":
            continue
        properties: dict[str, Any] = {"area": check.area, "clause": check.clause}
        if check.request:
            properties["request"] = check.request
        yield {
            "ruleId": check.check,
            "level": _LEVEL[check.level],
            "message": {"text": _check_message(check)},
            "logicalLocations": check_location(server, endpoint, check),
            "partialFingerprints": {
                "mcprobeCheck/v1": fingerprint(check.check, check.subject, check.request)
            },
            "properties": properties,
        }


# --------------------------------------------------------------------------- drift

# (rule id, title, description, fix, level): a tool added or changed since the lock is a
# definition nobody reviewed (an error); a removed one breaks callers but runs nothing new.
DRIFT_RULES: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "drift.added",
        "Tool added since the lock",
        "The server lists a tool that the lock (mcprobe pin) does not: a definition nobody "
        "has reviewed reaches the model.",
        "Review the new tool's definition, then pin again (mcprobe pin) to accept it.",
        "error",
    ),
    (
        "drift.changed",
        "Tool definition changed since the lock",
        "A tool's definition (description, schemas, annotations) differs from the one the lock "
        "recorded: the model now reads text nobody has reviewed.",
        "Review the changed fields quoted in the result, then pin again (mcprobe pin) to accept "
        "them, or restore the pinned definition.",
        "error",
    ),
    (
        "drift.removed",
        "Tool removed since the lock",
        "A tool the lock recorded is no longer listed: clients that rely on it break.",
        "Restore the tool, or pin again (mcprobe pin) if its removal is intended.",
        "warning",
    ),
)


def drift_rules() -> list[dict[str, Any]]:
    return [
        {
            "id": rule_id,
            "name": "".join(part.capitalize() for part in rule_id.replace(".", "_").split("_")),
            "shortDescription": {"text": title},
            "fullDescription": {"text": summary},
            "help": {"text": fix},
            "defaultConfiguration": {"level": level},
            "properties": {"tags": ["mcp", "drift", "security"]},
        }
        for rule_id, title, summary, fix, level in DRIFT_RULES
    ]


_DRIFT = {rule[0]: rule for rule in DRIFT_RULES}


def _drift_result(
    server: str, rule_id: str, tool: str, changes: list[str], fingerprint: Fingerprint
) -> dict[str, Any]:
    _, title, _, fix, level = _DRIFT[rule_id]
    text = f"{title}: tool '{tool}'."
    if changes:
        text += " " + " ".join(_sentence(_cut(change, 600)) for change in changes)
    result: dict[str, Any] = {
        "ruleId": rule_id,
        "level": level,
        "message": {"text": f"{text} Fix: {fix}"},
        "logicalLocations": [
            {"name": tool, "fullyQualifiedName": f"{server}/{tool}", "kind": "function"}
        ],
        "partialFingerprints": {"mcprobeDrift/v1": fingerprint(rule_id, tool, *changes)},
        "properties": {"changes": changes} if changes else {},
    }
    return result


def drift_results(
    server: str, report: ConformanceReport, fingerprint: Fingerprint
) -> Iterator[dict[str, Any]]:
    """One result per tool added, changed or removed since the lock (none without ``--lock``)."""
    drift = report.drift
    if drift is None:
        return
    for name in drift.added:
        yield _drift_result(server, "drift.added", name, [], fingerprint)
    for tool in drift.changed:
        yield _drift_result(server, "drift.changed", tool.tool, list(tool.changes), fingerprint)
    for name in drift.removed:
        yield _drift_result(server, "drift.removed", name, [], fingerprint)
