"""Assemble the ``ConformanceReport`` (SPEC §7) from what the pure core produced.

Pure: no I/O, no clock. The report is built once from the dataclasses of ``model`` and then
every renderer reads only the pydantic report, so a report loaded back from JSON renders the same.

Critical behaviour (SPEC §7 item 3) and the fix plan are derived here, once, into the report
(``report.critical_problems`` as data, ``report.critical`` as plain lines, ``report.fixes``);
renderers only format them. ``derive_verdicts`` recomputes both from a report's own data (for a
report edited or loaded from elsewhere).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from mcprobe.core.calls.evidence import evidence_notes, protocol_notes
from mcprobe.core.deep.model import DeepRun
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.model import (
    CaseResult,
    Finding,
    FuzzRun,
    Outcome,
    Score,
    ServerSnapshot,
)
from mcprobe.core.quoting import quoted, quoted_list
from mcprobe.core.schema.safe_json import safe_text
from mcprobe.core.target_protocol import Era
from mcprobe.core.verdicts import (
    CRITICAL_KEYS,
    VERDICTS,
    bystander_verdicts,
    group_problems,
    protocol_probe_verdicts,
    verdict,
)
from mcprobe.report.deaths import deaths_out
from mcprobe.report.deep import deep_out
from mcprobe.report.fix_plan import plan_fixes
from mcprobe.report.model import (
    CalledToolOut,
    ConformanceReport,
    CoverageOut,
    CriticalOut,
    DeductionOut,
    DimensionOut,
    DriftOut,
    FindingOut,
    FuzzResultOut,
    FuzzSummaryOut,
    LocationOut,
    ServerOut,
    SkippedToolOut,
    SurfaceOut,
    TargetDeathOut,
    TargetOut,
    safe_field,
    trusted,
)

_SEVERITY_RANK = {"critical": 0, "error": 1, "warning": 2, "info": 3}


def _declared_types(result: CaseResult) -> bool:
    """Whether ``result`` holds exactly the types its annotations declare: what mypy guarantees
    mcprobe's own core. A library caller's stray value (a flag of 1, a code of "5") takes
    pydantic's validating path instead, which coerces or refuses it as it always did."""
    r = result
    return (
        type(r.tool) is str
        and type(r.label) is str
        and type(r.malformed) is bool
        and type(r.flags) is frozenset
        and (r.error_code is None or type(r.error_code) is int)
        and (r.message is None or type(r.message) is str)
        and (r.note is None or type(r.note) is str)
        and (r.environment is None or type(r.environment) is str)
        and (r.inconclusive is None or type(r.inconclusive) is str)
        and all(type(key) is str for key in r.verdicts)
    )


def to_result_out(result: CaseResult, crashed_by: str | None = None) -> FuzzResultOut:
    """The report's record of one classified call, with the verdicts the core stored on it (a
    known killing case, ``crashed_by``, takes ``crash`` off the calls that died with it).

    Built without pydantic's validation when ``result`` has its declared types (``trusted``;
    ``FuzzResultOut``'s validators would change nothing: its verdicts are given), the target's
    text made safe here exactly as validation would (``safe_field``, whatever its type: the
    validating path gets the same values)."""
    r = result
    verdicts = (  # (no "tool case" text to build when no case killed the target: nearly always)
        list(r.verdicts)
        if crashed_by is None
        else bystander_verdicts(r.verdicts, f"{r.tool} {r.label}", crashed_by)
    )
    if not _declared_types(r):
        return FuzzResultOut(**_result_fields(r, verdicts))
    # Declared types: each text is a str (or None), so ``safe_field`` is ``safe_text``, and an
    # ASCII text (nearly all of them) is already safe as it is: 35,500 records at 1,000 tools.
    tool, label, message, note = r.tool, r.label, r.message, r.note
    environment, inconclusive = r.environment, r.inconclusive
    return trusted(
        FuzzResultOut,
        {  # FuzzResultOut's fields, in its order (``_value_``: ``value`` without the enum
            # descriptor's cost)
            "name": tool if tool.isascii() else safe_text(tool),
            "case": label if label.isascii() else safe_text(label),
            "kind": str(r.kind),  # a StrEnum member: its plain value
            "malformed": r.malformed,
            "outcome": r.outcome._value_,
            "silently_accepted": r.silently_accepted,
            "empty_success": r.empty_success,
            "output_schema_violation": r.output_schema_violation,
            "leak": r.leak,
            "arguments": safe_field(r.arguments),
            "latency_ms": float(round(r.latency_ms)),  # see ``_result_fields``
            "error_code": r.error_code,
            "message": message if message is None or message.isascii() else safe_text(message),
            "note": note if note is None or note.isascii() else safe_text(note),
            "source": r.source._value_,
            "failure_as_success": r.failure_as_success,
            "environment": environment
            if environment is None or environment.isascii()
            else safe_text(environment),
            "inconclusive": inconclusive
            if inconclusive is None or inconclusive.isascii()
            else safe_text(inconclusive),
            "validation_bypass": r.validation_bypass,
            "verdicts": verdicts,
        },
    )


def _result_fields(result: CaseResult, verdicts: list[str]) -> dict[str, Any]:
    """``FuzzResultOut``'s fields of ``result``, whatever their types, for validation."""
    return {
        "name": safe_field(result.tool),
        "case": safe_field(result.label),
        "kind": str(result.kind),
        "malformed": result.malformed,
        "outcome": result.outcome.value,
        "silently_accepted": result.silently_accepted,
        "empty_success": result.empty_success,
        "output_schema_violation": result.output_schema_violation,
        "leak": result.leak,
        "arguments": safe_field(result.arguments),
        # Whole milliseconds: finer digits are scheduler noise that made two runs of an unchanged
        # server differ on every line; the score used the exact value already.
        "latency_ms": float(round(result.latency_ms)),
        "error_code": result.error_code,
        "message": safe_field(result.message),
        "note": safe_field(result.note),
        "source": result.source.value,
        "failure_as_success": result.failure_as_success,
        "environment": safe_field(result.environment),
        "inconclusive": safe_field(result.inconclusive),
        "validation_bypass": result.validation_bypass,
        "verdicts": verdicts,
    }


def _as_out(result: CaseResult | FuzzResultOut) -> FuzzResultOut:
    return result if isinstance(result, FuzzResultOut) else to_result_out(result)


def critical_problems(
    results: Iterable[CaseResult | FuzzResultOut],
    unknown_tool_probe: CaseResult | FuzzResultOut | None = None,
) -> list[CriticalOut]:
    """Critical verdicts grouped by verdict (priority order), then tool (first seen), then the
    unknown-tool probe's (``tool`` None)."""
    found = [
        CriticalOut(kind=key, tool=tool, cases=[r.case for r in group])
        for key, tool, group in group_problems(map(_as_out, results), keys=CRITICAL_KEYS)
    ]
    if unknown_tool_probe is not None:
        probe = _as_out(unknown_tool_probe)
        found += [
            CriticalOut(kind=key, cases=[probe.case])
            for key in probe.verdicts
            if key in CRITICAL_KEYS
        ]
    return found


def unknown_tool_problem(probe: CaseResult | FuzzResultOut | None) -> str | None:
    """Why the call to a non-existent tool is critical, or None when it was cleanly rejected
    (or not made)."""
    if probe is None:
        return None
    for item in critical_problems((), probe):
        return verdict(item.kind).probe_problem
    return None


def critical_line(item: CriticalOut) -> str:
    """One plain-text critical line (``report.critical``)."""
    kind = verdict(item.kind)
    if item.tool is None:
        return kind.probe_problem
    # Target names in backticks (the lint convention): the tool and each case's parameter.
    return f"{quoted(item.tool)}: {kind.problem} ({', '.join(quoted_list(item.cases))})"


def critical_lines(
    results: Iterable[CaseResult | FuzzResultOut],
    unknown_tool_probe: CaseResult | FuzzResultOut | None,
) -> list[str]:
    """Plain-text critical lines (``report.critical``): one per problem and tool, then the
    unknown-tool probe. Empty when nothing critical happened."""
    problems = critical_problems(results, unknown_tool_probe)
    return [critical_line(item) for item in problems]


def death_line(crashed_by: str, not_run: int) -> str:
    """What the report says when the target died mid-fuzz."""
    cases = "case was" if not_run == 1 else "cases were"
    return (
        f"the target died during case {quoted(crashed_by)}; {not_run} remaining {cases} not run "
        "(not counted against any tool)"
    )


def summarise_fuzz(results: Sequence[FuzzResultOut]) -> FuzzSummaryOut:
    outcomes = Counter(r.outcome for r in results)
    shown = Counter(key for r in results for key in r.verdicts)

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
        silently_accepted=shown["silentlyAccepted"],
        empty_success=shown["emptySuccess"],
        output_schema_violation=shown["outputSchemaViolation"],
        leak=shown["leak"],
        failure_as_success=shown["failureAsSuccess"],
        environment=sum(r.environment is not None for r in results),
        inconclusive=sum(r.inconclusive is not None for r in results),
        verdicts={kind.key: shown[kind.key] for kind in VERDICTS if shown[kind.key]},
    )


def sort_findings(findings: Iterable[FindingOut]) -> list[FindingOut]:
    """Worst severity first; stable within a severity."""
    return sorted(findings, key=lambda f: _SEVERITY_RANK[f.severity])


def _finding_out(finding: Finding) -> FindingOut:
    """The report's record of one finding: built without validation when it has its declared
    types (``trusted``, as in ``to_result_out``), its target text made safe here."""
    where = finding.location
    places = (where.tool, where.param, where.pointer, where.resource, where.prompt)
    texts = (finding.code, finding.message, finding.hint)
    if not (
        all(type(text) is str for text in texts)
        and all(place is None or type(place) is str for place in places)
    ):
        return FindingOut(
            code=finding.code,
            severity=finding.severity.value,
            message=finding.message,
            location=LocationOut(
                tool=where.tool,
                param=where.param,
                pointer=where.pointer,
                resource=where.resource,
                prompt=where.prompt,
            ),
            hint=finding.hint,
        )
    tool, param, pointer, resource, prompt = (
        None if place is None else safe_text(place) for place in places
    )
    location = {  # LocationOut's fields, in its order
        "tool": tool,
        "param": param,
        "pointer": pointer,
        "resource": resource,
        "prompt": prompt,
    }
    fields = {  # FindingOut's fields, in its order
        "code": safe_text(finding.code),
        "severity": finding.severity._value_,
        "message": safe_text(finding.message),
        "location": trusted(LocationOut, location),
        "hint": safe_text(finding.hint),
    }
    return trusted(FindingOut, fields)


def _fuzz_notes(fuzz: FuzzRun, not_run: int, words: FrontEnd) -> list[str]:
    # Target strings in backticks, the lint convention, so renderers can show them as quotes.
    notes: list[str] = []
    if fuzz.deadline_hit:
        notes.append(f"The overall audit deadline stopped the fuzz run; {not_run} cases not run.")
    for tool_cases in fuzz.tool_cases:
        if not tool_cases.valid_constructible:
            why = f": {tool_cases.note}" if tool_cases.note else ""
            notes.append(
                f"No valid arguments could be built for {quoted(tool_cases.tool)}{why}; "
                "its liveness is not measured."
            )
    # One note per reason a case was not sent, naming every tool and case it applies to.
    dropped: dict[str, dict[str, list[str]]] = {}
    for tool_cases in fuzz.tool_cases:
        for d in tool_cases.dropped:
            dropped.setdefault(d.reason, {}).setdefault(tool_cases.tool, []).append(d.label)
    for reason, by_tool in dropped.items():
        cases = "; ".join(
            f"{quoted(tool)} " + ", ".join(quoted_list(labels)) for tool, labels in by_tool.items()
        )
        notes.append(f"Cases not sent ({reason}): {cases}.")
    notes.extend(evidence_notes(fuzz, words=words))
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
    surface: SurfaceOut | None = None,
    era: Era | None = None,
    eras: Sequence[Era] = (),
    drift: DriftOut | None = None,
    deep: DeepRun | None = None,
    words: FrontEnd = "cli",
) -> ConformanceReport:
    """The report for one audit, built once from everything the audit found. ``findings`` are
    used as given (lint plus any server-level findings the caller collected); they are sorted
    worst severity first, stably. ``era``: the one the audited connection spoke; ``eras``: every
    one the target speaks (default: ``era``). ``words``: the front-end whose knobs the notes
    name (``core/knobs.py``). ``markdown`` is left None: it is rendered from the
    scrubbed report (``engine.audit``). ``deep``: the deep pass of valid inputs, as the
    report's ``deep`` section (its deductions are already in ``score``: ``score_server``)."""
    killer = " ".join(fuzz.crashed_by) if fuzz and fuzz.crashed_by else None
    fuzz_results = [to_result_out(r, killer) for r in fuzz.results] if fuzz else []
    coverage: CoverageOut | None = None
    fuzz_summary: FuzzSummaryOut | None = None
    probe: FuzzResultOut | None = None
    flat: FuzzResultOut | None = None
    crashed_by: str | None = None
    deaths: list[TargetDeathOut] = []
    all_notes = list(notes)
    if fuzz is not None:
        coverage = CoverageOut(
            total_tools=fuzz.coverage.total_tools,
            fuzzed_tools=len(fuzz.coverage.fuzzed_tools),
            fuzzed=list(fuzz.coverage.fuzzed_tools),
            skipped=[SkippedToolOut(tool=s.tool, reason=s.reason) for s in fuzz.coverage.skipped],
            called=[CalledToolOut(tool=c.tool, reason=c.reason) for c in fuzz.coverage.called],
        )
        fuzz_summary = summarise_fuzz(fuzz_results)
        if fuzz.unknown_tool_probe is not None:
            probe = to_result_out(fuzz.unknown_tool_probe)
        if fuzz.non_object_probe is not None:
            flat = to_result_out(fuzz.non_object_probe)
            kept = protocol_probe_verdicts(flat.verdicts, flat.error_code)
            flat = flat.model_copy(update={"verdicts": kept})
        if fuzz.crashed_by is not None:
            crashed_by = " ".join(fuzz.crashed_by)
        all_notes.extend(_fuzz_notes(fuzz, fuzz_summary.not_run, words))
        deaths = deaths_out(fuzz)
    report = ConformanceReport(
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
            era=era,
            eras=list(eras) or ([era] if era is not None else []),
        ),
        overall=score.overall,
        grade=score.grade,
        not_graded=score.not_graded,
        static=score.static,
        dimensions=[
            DimensionOut(
                key=d.key,
                name=d.name,
                score=d.score,
                measured=d.measured,
                reasons=list(d.reasons),
                deductions=[
                    DeductionOut(
                        cause=x.cause,
                        amount=x.amount,
                        tools=list(x.tools),
                        cases=list(x.cases),
                        params=dict(x.params),
                    )
                    for x in d.deductions
                ],
            )
            for d in score.dimensions
        ],
        coverage=coverage,
        findings=sort_findings(_finding_out(f) for f in findings),
        fuzz=fuzz_results,
        fuzz_summary=fuzz_summary,
        unknown_tool_probe=probe,
        non_object_probe=flat,
        crashed_by=crashed_by,
        deaths=deaths,
        fuzz_stopped=fuzz.stopped if fuzz is not None else None,
        notes=all_notes,
        protocol_notes=protocol_notes(fuzz) if fuzz is not None else [],
        surface=surface,
        deep=deep_out(deep, words) if deep is not None else None,
        drift=drift,
    )
    return derive_verdicts(report)


SERVER_LABEL = "(server)"  # where a server-wide critical security finding is listed


def security_critical(findings: Iterable[FindingOut]) -> list[CriticalOut]:
    """One critical item per tool with critical ``security.*`` findings (``cases``: the codes),
    in order of first appearance; server-wide ones under ``(server)``."""
    by_tool: dict[str, list[str]] = {}
    for f in findings:
        if f.severity == "critical" and f.code.startswith("security."):
            codes = by_tool.setdefault(f.location.tool or SERVER_LABEL, [])
            if f.code not in codes:
                codes.append(f.code)
    return [CriticalOut(kind="securityCritical", tool=t, cases=c) for t, c in by_tool.items()]


def derive_verdicts(report: ConformanceReport) -> ConformanceReport:
    """``report`` with its critical verdicts, critical lines and fix plan (re)computed from its
    own data. Without fuzz (no coverage) nothing is critical."""
    # Critical security findings lead the callout, fuzz or not (SPEC §6).
    problems: list[CriticalOut] = security_critical(report.findings)
    lines: list[str] = [critical_line(item) for item in problems]
    if report.coverage is not None:
        calls = [*report.fuzz, *([report.non_object_probe] if report.non_object_probe else [])]
        behaviour = critical_problems(calls, report.unknown_tool_probe)
        problems += behaviour
        lines += [critical_line(item) for item in behaviour]
        if report.crashed_by is not None:
            not_run = report.fuzz_summary.not_run if report.fuzz_summary else 0
            lines.append(death_line(report.crashed_by, not_run))
        if report.fuzz_stopped is not None:
            lines.append(f"{verdict('crashLoop').problem}: {report.fuzz_stopped}")
    sorted_report = report.model_copy(update={"findings": sort_findings(report.findings)})
    return report.model_copy(
        update={
            "critical_problems": problems,
            "critical": lines,
            "fixes": plan_fixes(sorted_report),
        }
    )
