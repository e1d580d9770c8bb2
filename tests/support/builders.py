"""The one set of builders for the core's dataclasses: a server snapshot, a tool definition, a
classified call, a finding. Tests pass only what they care about; every default is here, once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import (
    JSON,
    CaseResult,
    Finding,
    Location,
    Outcome,
    ServerSnapshot,
    Severity,
)
from mcprobe.core.verdicts import judged

__all__ = ["case_result", "finding", "snapshot", "tool"]


def snapshot(tools: tuple[JSON, ...] | list[JSON] = (), **fields: Any) -> ServerSnapshot:
    """A ``ServerSnapshot`` of ``tools`` (raw definitions); any other field by keyword."""
    values: dict[str, Any] = {
        "name": "srv",
        "version": "1.0.0",
        "title": None,
        "protocol_version": "2025-11-25",
        "instructions": None,
        "capabilities": {"tools": {}},
    }
    values.update(fields)
    return ServerSnapshot(tools=tuple(tools), **values)


def tool(name: str, **members: JSON) -> dict[str, JSON]:
    """A raw tool definition named ``name`` with an empty object schema; ``members`` add to or
    replace its members (``description=...``, ``annotations=...``, ``inputSchema=...``)."""
    definition: dict[str, JSON] = {"name": name, "inputSchema": {"type": "object"}}
    definition.update(members)
    return definition


def case_result(
    tool_name: str,
    label: str,
    outcome: Outcome,
    arguments: JSON = ...,  # ``...``: not given, so ``{}``
    *,
    latency_ms: float = 10.0,
    flags: Iterable[str] = (),
    **extra: Any,
) -> CaseResult:
    """A classified call of case ``label`` (its kind and ``malformed`` follow from the label)
    carrying the evidence ``flags`` (verdict keys: ``{"silentlyAccepted"}``), with the verdicts
    its outcome and flags show (as ``classify`` stores them)."""
    kind = CaseKind(label.partition(":")[0])
    return judged(
        CaseResult(
            tool=tool_name,
            label=label,
            kind=kind,
            malformed=kind is not CaseKind.VALID,
            arguments={} if arguments is ... else arguments,
            outcome=outcome,
            latency_ms=latency_ms,
            flags=frozenset(flags),
            **extra,
        )
    )


def finding(
    code: str,
    severity: Severity = Severity.WARNING,
    tool_name: str | None = None,
    param: str | None = None,
    *,
    message: str | None = None,
    hint: str = "fix it",
) -> Finding:
    """A lint or server finding at ``tool_name`` (``None``: server-wide)."""
    text = f"{code} fired" if message is None else message
    return Finding(code, severity, text, Location(tool=tool_name, param=param), hint)
