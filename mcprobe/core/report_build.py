"""Assemble the ``ConformanceReport`` (SPEC §7) from what the pure core produced.

Pure: no I/O, no clock. The report is built once from the dataclasses of ``model`` and then
every renderer reads only the pydantic report, so a report loaded back from JSON renders the same.

Critical behaviour (SPEC §7 item 3) is derived in one place, ``critical_problems``, and shown
two ways: plain lines in ``report.critical`` (for machines) and Markdown in the renderer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mcprobe.core.model import (
    CaseResult,
    Finding,
    FuzzRun,
    Outcome,
    Score,
    ServerSnapshot,
)
from mcprobe.core.report_model import (
    ConformanceReport,
    CoverageOut,
    DimensionOut,
    FindingOut,
    FuzzResultOut,
    FuzzSummaryOut,
    LocationOut,
    ServerOut,
    SkippedToolOut,
    TargetOut,
)

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
_REJECTIONS = (Outcome.TOOL_ERROR.value, Outcome.PROTOCOL_ERROR.value)
# Plain strings for the hot loops (an enum's ``.value`` is a descriptor call each time).
_CRASH = Outcome.PROTOCOL_CRASH.value
_TIMEOUT = Outcome.TIMEOUT.value
_PROTOCOL_ERROR = Outcome.PROTOCOL_ERROR.value


@dataclass(frozen=True)
class CriticalProblem:
    """One critical behaviour of one tool: ``problem`` is mcprobe's fixed phrase, ``cases``
    the labels that showed it (in run order)."""

    key: str
    problem: str
    tool: str
    cases: tuple[str, ...]


# Order = priority: what takes a server down first, then what lies to the caller, then what a
# caller cannot work out. The first six are critical (SPEC §7 item 3); the rest only cost points
# (or, for leaks, nothing) and get a recommended fix.
PROBLEMS: tuple[tuple[str, str], ...] = (
    ("crash", "crashed the target (transport lost)"),
    ("timeout", "timed out"),
    ("invalidResult", "answers with a result that breaks the MCP result schema"),
    ("silentlyAccepted", "silently accepts malformed input"),
    ("outputSchemaViolation", "violates its own outputSchema"),
    ("emptySuccess", "returns an empty success for valid input"),
    ("rejectedValid", "rejects the minimal valid call built from its input schema"),
    ("internalErrorValid", "fails with an internal error (-32603) on a valid call"),
    ("internalError", "answers malformed input with an internal error (-32603)"),
    ("leak", "leaks internals in error text"),
)
CRITICAL_KEYS = frozenset(
    {
        "crash",
        "timeout",
        "invalidResult",
        "silentlyAccepted",
        "outputSchemaViolation",
        "emptySuccess",
    }
)


def to_result_out(result: CaseResult) -> FuzzResultOut:
    return FuzzResultOut(
        name=result.tool,
        case=result.label,
        kind=result.kind.value,
        malformed=result.malformed,
        outcome=result.outcome.value,
        silently_accepted=result.silently_accepted,
        empty_success=result.empty_success,
        output_schema_violation=result.output_schema_violation,
        leak=result.leak,
        arguments=result.arguments,
        # Whole milliseconds: finer digits are scheduler noise that made two runs of an unchanged
        # server differ on every line; the score used the exact value already.
        latency_ms=float(round(result.latency_ms)),
        error_code=result.error_code,
        message=result.message,
        note=result.note,
    )


def _as_out(result: CaseResult | FuzzResultOut) -> FuzzResultOut:
    return result if isinstance(result, FuzzResultOut) else to_result_out(result)


def problem_keys(result: CaseResult | FuzzResultOut, crashed_by: str | None = None) -> list[str]:
    """The ``PROBLEMS`` keys one result shows, in priority order."""
    out = _as_out(result)
    keys: list[str] = []
    if out.outcome == _CRASH and (crashed_by is None or crashed_by == f"{out.name} {out.case}"):
        # With a known killing case, other calls that were in flight when the target died are
        # its victims, not culprits.
        keys.append("crash")
    if out.outcome == _TIMEOUT:
        keys.append("timeout")
    invalid = out.outcome == _PROTOCOL_ERROR and out.error_code is None
    if invalid:
        keys.append("invalidResult")
    if out.silently_accepted:
        keys.append("silentlyAccepted")
    if out.output_schema_violation:
        keys.append("outputSchemaViolation")
    if out.empty_success:
        keys.append("emptySuccess")
    if not out.malformed and out.outcome in _REJECTIONS and not invalid:
        keys.append("internalErrorValid" if out.error_code == -32603 else "rejectedValid")
    if out.malformed and out.outcome == _PROTOCOL_ERROR and out.error_code == -32603:
        keys.append("internalError")
    if out.leak:
        keys.append("leak")
    return keys


def group_problems(
    results: Iterable[CaseResult | FuzzResultOut],
    *,
    crashed_by: str | None = None,
    keys: frozenset[str] | None = None,
) -> list[tuple[str, str, list[FuzzResultOut]]]:
    """``(key, tool, results)`` grouped by problem (priority order), then tool (first seen),
    restricted to ``keys`` when given."""
    grouped: dict[str, dict[str, list[FuzzResultOut]]] = {key: {} for key, _ in PROBLEMS}
    for result in map(_as_out, results):
        for key in problem_keys(result, crashed_by):
            if keys is None or key in keys:
                grouped[key].setdefault(result.name, []).append(result)
    return [(key, tool, found) for key, _ in PROBLEMS for tool, found in grouped[key].items()]


def critical_problems(
    results: Iterable[CaseResult | FuzzResultOut], *, crashed_by: str | None = None
) -> list[CriticalProblem]:
    """Critical behaviour grouped by problem (priority order), then tool (first seen)."""
    phrases = dict(PROBLEMS)
    return [
        CriticalProblem(
            key=key, problem=phrases[key], tool=tool, cases=tuple(r.case for r in found)
        )
        for key, tool, found in group_problems(results, crashed_by=crashed_by, keys=CRITICAL_KEYS)
    ]


def unknown_tool_problem(probe: CaseResult | FuzzResultOut | None) -> str | None:
    """Why the call to a non-existent tool is critical, or None when it was cleanly rejected
    (or not made)."""
    if probe is None:
        return None
    outcome = _as_out(probe).outcome
    if outcome == Outcome.OK.value:
        return "a call to a tool that does not exist succeeded instead of being rejected"
    if outcome == Outcome.PROTOCOL_CRASH.value:
        return "a call to a tool that does not exist crashed the target"
    if outcome == _PROTOCOL_ERROR and _as_out(probe).error_code is None:
        return "a call to a tool that does not exist got a result that breaks the MCP schema"
    if outcome == Outcome.TIMEOUT.value:
        return "a call to a tool that does not exist timed out instead of being rejected"
    return None


def critical_lines(
    results: Iterable[CaseResult | FuzzResultOut],
    unknown_tool_probe: CaseResult | FuzzResultOut | None,
    *,
    crashed_by: str | None = None,
) -> list[str]:
    """Plain-text critical lines (``report.critical``): one per problem and tool, then the
    unknown-tool probe. Empty when nothing critical happened."""
    lines = [
        f"{item.tool}: {item.problem} ({', '.join(item.cases)})"
        for item in critical_problems(results, crashed_by=crashed_by)
    ]
    unknown = unknown_tool_problem(unknown_tool_probe)
    if unknown is not None:
        lines.append(unknown)
    return lines


def death_line(crashed_by: str, not_run: int) -> str:
    """What the report says when the target died mid-fuzz."""
    cases = "case was" if not_run == 1 else "cases were"
    return (
        f"the target died during case {crashed_by}; {not_run} remaining {cases} not run "
        "(not counted against any tool)"
    )


def summarise_fuzz(results: Sequence[FuzzResultOut]) -> FuzzSummaryOut:
    outcomes = Counter(r.outcome for r in results)

    def count(outcome: Outcome) -> int:
        return outcomes[outcome.value]

    not_run = count(Outcome.NOT_RUN)
    return FuzzSummaryOut(
        cases=len(results),
        sent=len(results) - not_run,
        not_run=not_run,
        ok=count(Outcome.OK),
        tool_error=count(Outcome.TOOL_ERROR),
        protocol_error=count(Outcome.PROTOCOL_ERROR),
        timeout=count(Outcome.TIMEOUT),
        protocol_crash=count(Outcome.PROTOCOL_CRASH),
        silently_accepted=sum(r.silently_accepted for r in results),
        empty_success=sum(r.empty_success for r in results),
        output_schema_violation=sum(r.output_schema_violation for r in results),
        leak=sum(r.leak for r in results),
    )


def sort_findings(findings: Iterable[FindingOut]) -> list[FindingOut]:
    """Worst severity first; stable within a severity."""
    return sorted(findings, key=lambda f: _SEVERITY_RANK[f.severity])


def _finding_out(finding: Finding) -> FindingOut:
    return FindingOut(
        code=finding.code,
        severity=finding.severity.value,
        message=finding.message,
        location=LocationOut(
            tool=finding.location.tool,
            param=finding.location.param,
            pointer=finding.location.pointer,
        ),
        hint=finding.hint,
    )


def _fuzz_notes(fuzz: FuzzRun, not_run: int) -> list[str]:
    # Target strings in backticks, the lint convention, so renderers can show them as quotes.
    notes: list[str] = []
    if fuzz.deadline_hit:
        notes.append(f"The overall audit deadline stopped the fuzz run; {not_run} cases not run.")
    for tool_cases in fuzz.tool_cases:
        if not tool_cases.valid_constructible:
            why = f": {tool_cases.note}" if tool_cases.note else ""
            notes.append(
                f"No valid arguments could be built for `{tool_cases.tool}`{why}; "
                "its liveness is not measured."
            )
        if tool_cases.dropped:
            dropped = "; ".join(f"`{d.label}` ({d.reason})" for d in tool_cases.dropped)
            notes.append(f"Cases not sent for `{tool_cases.tool}`: {dropped}.")
    return notes


def build_report(
    snapshot: ServerSnapshot,
    findings: Sequence[Finding],
    score: Score,
    fuzz: FuzzRun | None,
    *,
    mcprobe_version: str,
    connection_id: str | None = None,
    target: TargetOut | None = None,
    notes: Sequence[str] = (),
) -> ConformanceReport:
    """The report for one audit. ``findings`` are used as given (lint plus any server-level
    findings the caller collected); they are sorted worst severity first, stably.
    ``markdown`` is left None: callers add it with ``report.model_copy(update=...)``."""
    fuzz_results = [to_result_out(r) for r in fuzz.results] if fuzz else []
    coverage: CoverageOut | None = None
    fuzz_summary: FuzzSummaryOut | None = None
    probe: FuzzResultOut | None = None
    crashed_by: str | None = None
    critical: list[str] = []
    all_notes = list(notes)
    if fuzz is not None:
        coverage = CoverageOut(
            total_tools=fuzz.coverage.total_tools,
            fuzzed_tools=len(fuzz.coverage.fuzzed_tools),
            fuzzed=list(fuzz.coverage.fuzzed_tools),
            skipped=[SkippedToolOut(tool=s.tool, reason=s.reason) for s in fuzz.coverage.skipped],
        )
        fuzz_summary = summarise_fuzz(fuzz_results)
        if fuzz.unknown_tool_probe is not None:
            probe = to_result_out(fuzz.unknown_tool_probe)
        if fuzz.crashed_by is not None:
            crashed_by = " ".join(fuzz.crashed_by)
        critical = critical_lines(fuzz_results, probe, crashed_by=crashed_by)
        if crashed_by is not None:
            critical.append(death_line(crashed_by, fuzz_summary.not_run))
        all_notes.extend(_fuzz_notes(fuzz, fuzz_summary.not_run))
    return ConformanceReport(
        mcprobe_version=mcprobe_version,
        connection_id=connection_id,
        target=target,
        server=ServerOut(
            name=snapshot.name,
            version=snapshot.version,
            title=snapshot.title,
            protocol_version=snapshot.protocol_version,
            instructions=snapshot.instructions,
            capabilities=dict(snapshot.capabilities),
        ),
        overall=score.overall,
        grade=score.grade,
        dimensions=[
            DimensionOut(
                key=d.key,
                name=d.name,
                score=d.score,
                measured=d.measured,
                reasons=list(d.reasons),
            )
            for d in score.dimensions
        ],
        coverage=coverage,
        critical=critical,
        findings=sort_findings(_finding_out(f) for f in findings),
        fuzz=fuzz_results,
        fuzz_summary=fuzz_summary,
        unknown_tool_probe=probe,
        crashed_by=crashed_by,
        notes=all_notes,
    )
