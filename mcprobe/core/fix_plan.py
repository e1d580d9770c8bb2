"""The report's "Recommended fixes" as data (SPEC §7 item 7), read from a ``ConformanceReport``.

Pure and deterministic. The Markdown renderer turns a ``FixPlan`` into the numbered list; this
module decides *what* is in it:

- **Every deduction maps to a fix.** Schema Quality deductions are lint findings (one fix per
  code); Metadata deductions map line by line through ``score.deduction_fix``; Error Handling and
  Liveness deductions are fuzz results, grouped into behavioural fixes (``behaviour_fixes``); the
  latency penalty maps through ``score.deduction_fix`` too. A dimension that lost points and is
  still covered by no fix (a report from elsewhere, an unforeseen reason) is listed in
  ``uncovered`` with its reasons, so "Nothing to fix" appears only when nothing was deducted and
  nothing else needs fixing.
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
from dataclasses import dataclass

from mcprobe.core.model import Outcome
from mcprobe.core.report_build import PROBLEMS, group_problems, unknown_tool_problem
from mcprobe.core.report_model import ConformanceReport, DimensionOut, FuzzResultOut
from mcprobe.core.score import deduction_fix

__all__ = ["BehaviourFix", "FixPlan", "behaviour_fixes", "deducted", "plan_fixes"]

# Problems whose one call says something tool-specific (the rejection message), so tools are
# grouped only when that message is identical too.
_MESSAGE_MATTERS = frozenset({"rejectedValid", "internalErrorValid"})


@dataclass(frozen=True)
class BehaviourFix:
    """One behavioural fix: ``key`` is a ``report_build.PROBLEMS`` key, ``tools`` the tools
    that show it (first seen first), ``results`` every result of the group, tool by tool."""

    key: str
    tools: tuple[str, ...]
    results: tuple[FuzzResultOut, ...]
    kinds: tuple[str, ...]
    protocol_level: bool

    def results_of(self, tool: str) -> tuple[FuzzResultOut, ...]:
        return tuple(r for r in self.results if r.name == tool)

    @property
    def dimensions(self) -> frozenset[str]:
        """The dimensions whose deductions this fix removes."""
        if self.key == "crash":  # calls in flight when the target died are its victims
            return frozenset({"errorHandling", "liveness"})
        if self.key == "leak":
            return frozenset()
        found = {"errorHandling" if r.malformed else "liveness" for r in self.results}
        return frozenset(found)


@dataclass(frozen=True)
class FixPlan:
    """Everything "Recommended fixes" lists, in its order: lint fixes (the renderer groups the
    report's findings by code), ``metadata`` (one sentence per Metadata deduction, names in
    single backticks), ``behaviour``, ``unknown_tool`` (the probe that needs a fix, with why),
    ``other`` (fixes for other deduction lines, e.g. latency), then ``uncovered`` dimensions."""

    lint: bool
    metadata: tuple[str, ...]
    behaviour: tuple[BehaviourFix, ...]
    unknown_tool: tuple[FuzzResultOut, str] | None
    other: tuple[str, ...]
    uncovered: tuple[DimensionOut, ...]

    @property
    def empty(self) -> bool:
        return not (
            self.lint
            or self.metadata
            or self.behaviour
            or self.unknown_tool
            or self.other
            or self.uncovered
        )


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


def behaviour_fixes(
    results: Sequence[FuzzResultOut], *, crashed_by: str | None = None
) -> list[BehaviourFix]:
    """Behavioural problems grouped by problem (priority order), then by identical behaviour
    across tools (first seen first)."""
    groups: dict[tuple[str, tuple[tuple[str, ...], ...]], list[tuple[str, list[FuzzResultOut]]]]
    groups = {}
    for key, tool, found in group_problems(results, crashed_by=crashed_by):
        groups.setdefault((key, _signature(key, found)), []).append((tool, found))
    sent = [r for r in results if r.outcome != Outcome.NOT_RUN.value]
    fixes: list[BehaviourFix] = []
    for (key, _), members in groups.items():
        tools = tuple(tool for tool, _ in members)
        grouped = [r for _, found in members for r in found]
        ids = {id(r) for r in grouped}
        kinds = tuple(dict.fromkeys(r.kind for r in grouped))
        # Protocol-level: at least two tools, no tool answered these case kinds differently,
        # and the answers agree on one JSON-RPC error code or one message text.
        same_everywhere = all(id(r) in ids for r in sent if r.kind in kinds)
        codes = {r.error_code for r in grouped}
        messages = {r.message for r in grouped}
        same_answer = (len(codes) == 1 and None not in codes) or (
            len(messages) == 1 and None not in messages and "" not in messages
        )
        fixes.append(
            BehaviourFix(
                key=key,
                tools=tools,
                results=tuple(grouped),
                kinds=kinds,
                protocol_level=len(tools) >= 2 and same_everywhere and same_answer,
            )
        )
    order = {key: n for n, (key, _) in enumerate(PROBLEMS)}
    return sorted(fixes, key=lambda fix: order[fix.key])  # stable: first seen within a problem


def unknown_tool_fix(probe: FuzzResultOut | None) -> str | None:
    """Why the unknown-tool probe needs a fix (it was not cleanly rejected), or None."""
    if probe is None:
        return None
    critical = unknown_tool_problem(probe)
    if critical is not None:
        return critical
    if probe.outcome == Outcome.PROTOCOL_ERROR.value and probe.error_code == -32603:
        return "a call to a tool that does not exist got an internal error (-32603)"
    return None


def deducted(dimension: DimensionOut) -> bool:
    """Whether a measured dimension lost anything (a score under 10, or a deduction line)."""
    if dimension.score is None:
        return False
    return dimension.score < 10 or any(r.startswith("−") for r in dimension.reasons)


def plan_fixes(report: ConformanceReport) -> FixPlan:
    """The fix plan for one report (see the module docstring)."""
    metadata: list[str] = []
    other: list[str] = []
    covered: set[str] = set()
    for dimension in report.dimensions:
        for reason in dimension.reasons:
            fix = deduction_fix(dimension.key, reason)
            if fix is None:
                continue
            (metadata if dimension.key == "metadata" else other).append(fix)
            covered.add(dimension.key)
    behaviour = behaviour_fixes(report.fuzz, crashed_by=report.crashed_by)
    for item in behaviour:
        covered |= item.dimensions
    why = unknown_tool_fix(report.unknown_tool_probe)
    unknown = None
    if why is not None and report.unknown_tool_probe is not None:
        unknown = (report.unknown_tool_probe, why)
        covered.add("errorHandling")
    if report.findings:
        covered.add("schemaQuality")
    uncovered = tuple(d for d in report.dimensions if deducted(d) and d.key not in covered)
    return FixPlan(
        lint=bool(report.findings),
        metadata=tuple(dict.fromkeys(metadata)),
        behaviour=tuple(behaviour),
        unknown_tool=unknown,
        other=tuple(dict.fromkeys(other)),
        uncovered=uncovered,
    )
