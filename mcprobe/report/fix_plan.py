"""The report's "Recommended fixes" as data (SPEC §7 item 7), computed once from a
``ConformanceReport`` into its ``fixes`` (``FixPlanOut``); renderers only format it.

Pure and deterministic. This module decides *what* is in the list:

- **Every deduction maps to a fix.** Schema Quality deductions are lint findings (one fix per
  code, ``lint``); every other deduction is a ``DeductionOut`` naming its verdict, whose fix text
  comes from the catalogue (``core/verdicts.py``) with the deduction's parameters: Metadata ones
  into ``metadata``, the fuzz ones through the behavioural groups (``behaviour_fixes``), the rest
  (e.g. latency) into ``other``. A dimension that lost points and is still covered by no fix (a
  report from elsewhere, an unforeseen cause) is listed in ``uncovered``, so "Nothing to fix"
  appears only when nothing was deducted and nothing else needs fixing.
- **Identical behaviour is one fix.** Tools showing the same problem through the same case kinds
  with the same outcome and error code (and, for a rejected valid call, the same message) are one
  group that lists every tool. When every tool that was sent those case kinds answered them the
  same way (and there are at least two), and the answers agree on one JSON-RPC error code or one
  message text, the group is ``protocol_level``: the answer comes from the server's
  ``tools/call`` dispatch (its SDK or framework), not from each tool's code, so it is fixed once,
  there. Tools that each fail in their own words are each doing it in their own code.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcprobe.core.model import Outcome
from mcprobe.core.verdicts import (
    deduction_fix,
    group_problems,
    priority,
    verdict,
)
from mcprobe.report.model import (
    BehaviourFixOut,
    CaseRefOut,
    ConformanceReport,
    DimensionOut,
    FindingOut,
    FixPlanOut,
    FuzzResultOut,
    LintFixOut,
    UnknownToolFixOut,
)

__all__ = ["behaviour_fixes", "deducted", "lint_fixes", "plan_fixes", "unknown_tool_fix"]

# Problems whose one call says something tool-specific (the rejection message), so tools are
# grouped only when that message is identical too.
_MESSAGE_MATTERS = frozenset({"rejectedValid", "internalErrorValid"})


def _signature(key: str, results: Sequence[FuzzResultOut]) -> tuple[tuple[str, ...], ...]:
    """What makes two tools' instances of one problem "the same behaviour"."""
    return tuple(
        sorted(
            {
                (
                    r.kind,
                    r.outcome,
                    "" if r.error_code is None else str(r.error_code),
                    (r.message or "") if key in _MESSAGE_MATTERS else "",
                )
                for r in results
            }
        )
    )


def _dimensions(key: str, results: Sequence[FuzzResultOut]) -> list[str]:
    """The dimensions whose deductions one behavioural fix removes."""
    costs = verdict(key).dimensions
    if key == "crash":  # calls in flight when the target died are its victims: both go
        return sorted(costs)
    found = {"errorHandling" if r.malformed else "liveness" for r in results}
    return sorted(found & costs)


def behaviour_fixes(results: Sequence[FuzzResultOut]) -> list[BehaviourFixOut]:
    """Behavioural problems grouped by verdict (priority order), then by identical behaviour
    across tools (first seen first)."""
    groups: dict[tuple[str, tuple[tuple[str, ...], ...]], list[tuple[str, list[FuzzResultOut]]]]
    groups = {}
    for key, tool, found in group_problems(results):
        groups.setdefault((key, _signature(key, found)), []).append((tool, found))
    sent = [r for r in results if r.outcome != Outcome.NOT_RUN.value]
    fixes: list[BehaviourFixOut] = []
    for (key, _), members in groups.items():
        tools = [tool for tool, _ in members]
        grouped = [r for _, found in members for r in found]
        ids = {id(r) for r in grouped}
        kinds = list(dict.fromkeys(r.kind for r in grouped))
        # Protocol-level: at least two tools, no tool answered these case kinds differently,
        # and the answers agree on one JSON-RPC error code or one message text.
        same_everywhere = all(id(r) in ids for r in sent if r.kind in kinds)
        codes = {r.error_code for r in grouped}
        messages = {r.message for r in grouped}
        same_answer = (len(codes) == 1 and None not in codes) or (
            len(messages) == 1 and None not in messages and "" not in messages
        )
        fixes.append(
            BehaviourFixOut(
                kind=key,
                fix=verdict(key).fix,
                tools=tools,
                cases=[CaseRefOut(tool=r.name, case=r.case) for r in grouped],
                case_kinds=kinds,
                protocol_level=len(tools) >= 2 and same_everywhere and same_answer,
                dimensions=_dimensions(key, grouped),
            )
        )
    return sorted(fixes, key=lambda fix: priority(fix.kind))  # stable: first seen within one


def unknown_tool_fix(probe: FuzzResultOut | None) -> UnknownToolFixOut | None:
    """The fix for the unknown-tool probe when it was not cleanly rejected, or None."""
    if probe is None:
        return None
    for key in probe.verdicts:
        kind = verdict(key)
        if kind.probe_problem:
            return UnknownToolFixOut(
                kind=key, why=kind.probe_problem, fix=verdict("unknownToolAccepted").fix
            )
    return None


def lint_fixes(findings: Sequence[FindingOut]) -> list[LintFixOut]:
    """One fix per lint code, in the findings' order (worst severity first); ``hint`` is set when
    every place shares it."""
    groups: dict[str, list[FindingOut]] = {}
    for f in findings:
        groups.setdefault(f.code, []).append(f)
    return [
        LintFixOut(
            code=code,
            severity=group[0].severity,
            places=len(group),
            hint=group[0].hint if len({f.hint for f in group}) == 1 else None,
        )
        for code, group in groups.items()
    ]


def deducted(dimension: DimensionOut) -> bool:
    """Whether a measured dimension lost anything (a score under 10, or a deduction)."""
    if dimension.score is None:
        return False
    return (
        dimension.score < 10
        or bool(dimension.deductions)
        or any(r.startswith("−") for r in dimension.reasons)
    )


def plan_fixes(report: ConformanceReport) -> FixPlanOut:
    """The fix plan for one report (see the module docstring). ``report.findings`` must be
    sorted worst severity first (``build_report`` does)."""
    metadata: list[str] = []
    other: list[str] = []
    covered: set[str] = set()
    for dimension in report.dimensions:
        for deduction in dimension.deductions:
            if deduction.cause == "surfaceCheck":
                covered.add(dimension.key)  # fixed by the report's resource/prompt/protocol fixes
                continue
            if deduction.cases or deduction.cause in ("lintFindings", "securityFinding"):
                continue  # fixed by the behavioural groups / the lint fixes below
            fix = deduction_fix(deduction.cause, deduction.params.items())
            (metadata if dimension.key == "metadata" else other).append(fix)
            covered.add(dimension.key)
    behaviour = behaviour_fixes(report.fuzz)
    for item in behaviour:
        covered.update(item.dimensions)
    unknown = unknown_tool_fix(report.unknown_tool_probe)
    if unknown is not None:
        covered.add("errorHandling")
    if report.findings:
        covered.add("schemaQuality")
    if any(f.code.startswith("security.") for f in report.findings):
        covered.add("security")  # each security finding's own hint is a lint fix
    return FixPlanOut(
        lint=lint_fixes(report.findings),
        metadata=list(dict.fromkeys(metadata)),
        behaviour=behaviour,
        unknown_tool=unknown,
        other=list(dict.fromkeys(other)),
        uncovered=[d.key for d in report.dimensions if deducted(d) and d.key not in covered],
    )
