"""Four dimensions, 0–10 each, an overall 0–100 and a grade (SPEC §6).

Pure and deterministic. Every deduction produces one reason line, so a person can recompute each
number from the report. A dimension that was not measured has ``score=None`` and a reason saying
why; it is left out of the overall mean, never given a fake value.

Decisions where the spec is silent:

- Rounding is half-up (``floor(x + 0.5)``, with a 1e-9 allowance for float noise), never Python's
  banker's ``round``: 89.5 → 90 (A), 88.5 → 89. Dimensions are rounded to one decimal first and
  the overall is computed from the rounded dimension scores, so the report's numbers add up.
- Metadata is a 10-point scheme: name 2, version 2, title 1, instructions present 2 and
  non-trivial (≥ 40 characters) 1, capability honesty 2 (−1 when ``tools`` is advertised but
  nothing is listed or tools are listed without the capability; −0.5 each when ``prompts`` /
  ``resources`` are advertised but the listing found none; counts that were not taken are not
  judged).
- Schema Quality's server-wide term sums the findings whose ``location.tool`` is None (lint's
  server-level findings plus ``snapshot.listing_findings`` not already among ``findings``), capped
  at 2 like a tool's.
- Error Handling counts the unknown-tool probe as one more malformed case.
- The deep pass (``--deep``) is a separate deduction inside Error Handling and Liveness, after
  their rates: −1 per distinct finding (tool, verdict, field), at most −4 per dimension; it
  never measures a dimension on its own (``core/score/deep.py``).
- Liveness takes the p50 over valid calls that got an answer (``ok``/``toolError``/
  ``protocolError``): a timeout's or crash's latency measures the limit, not the server, and
  those calls already count as failures. The latency penalty is proportional, not stepped.
- A valid call that the tool rejects (``toolError``, or a JSON-RPC error other than -32603) is
  not a clean success (SPEC §6), but it is rarely a dead tool: mcprobe built the call from the
  input schema alone and it validates, so the schema under-specifies what the tool accepts. Its
  reason line says so and what to declare; an internal error (-32603) on a valid call says the
  handler failed on input its schema allows.

Error Handling and Liveness read each call's stored verdicts (``CaseResult.verdicts``, detected
once by ``classify``): a call counts against a dimension when one of its verdicts costs it, and is
deducted for the first such verdict in catalogue priority (``verdicts.costs``; so a valid call
that is both empty and without its declared ``structuredContent`` is an output-schema violation,
the verdict the critical list puts first).

Each deduction is a ``model.Deduction`` (dimension, amount, cause = a ``verdicts`` key, the
cases and tools that showed it, the parameters of its text); its reason line is rendered from it
by ``verdicts.deduction_reason`` and its fix by ``verdicts.deduction_fix``.

To add a dimension: write ``def my_dimension(inputs: ScoreInputs) -> Dimension`` returning its
deductions as data, and append a ``DimensionSpec`` to ``DIMENSIONS`` (an optional ``cap`` bounds
the overall score, e.g. to the F band).
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcprobe.core.calls.result_shape import version_problem
from mcprobe.core.deep.model import DeepRun
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.model import (
    JSON,
    CaseResult,
    Deduction,
    Dimension,
    Finding,
    FuzzRun,
    Outcome,
    Score,
    ServerSnapshot,
    Severity,
    is_internal_error,
)
from mcprobe.core.quoting import quoted, quoted_list
from mcprobe.core.score.deep import apply_deep
from mcprobe.core.score.grading import grade_status
from mcprobe.core.score.security import security_cap, security_score
from mcprobe.core.verdicts import (
    LISTED_EXAMPLES,
    MIN_INSTRUCTIONS,
    costs,
    deduction_label,
    deduction_reason,
    fmt_number,
    name_list,
)

__all__ = [
    "DIMENSIONS",
    "DIMENSION_NAMES",
    "SEVERITY_WEIGHTS",
    "DimensionSpec",
    "ScoreInputs",
    "error_handling_dimension",
    "grade_for",
    "liveness_dimension",
    "metadata_dimension",
    "round_half_up",
    "schema_quality_dimension",
    "score_server",
]

DIMENSION_NAMES = {
    "metadata": "Metadata & Documentation",
    "schemaQuality": "Schema Quality",
    "errorHandling": "Error Handling",
    "liveness": "Liveness & Performance",
    "security": "Security",
}

SEVERITY_WEIGHTS = {Severity.ERROR: 1.0, Severity.WARNING: 0.5, Severity.INFO: 0.25}
CAP_PER_TOOL = 2.0
CAP_SERVER_WIDE = 2.0
LATENCY_BUDGET_MS = 200.0
LATENCY_PENALTY_PER_100MS = 0.5
_LISTED_EXAMPLES = LISTED_EXAMPLES

_GRADES = ((90, "A"), (75, "B"), (60, "C"), (40, "D"))


# --------------------------------------------------------------------------- numbers


def round_half_up(value: float, digits: int = 0) -> float:
    """Round half away from zero for the non-negative values used here (0.05 → 0.1, 88.5 → 89)."""
    factor = 10.0**digits
    return math.floor(value * factor + 0.5 + 1e-9) / factor


_fmt = fmt_number


def _one_decimal(value: float) -> float:
    return round_half_up(value, 1)


def grade_for(overall: int) -> str:
    """A ≥ 90, B ≥ 75, C ≥ 60, D ≥ 40, F below."""
    for floor, grade in _GRADES:
        if overall >= floor:
            return grade
    return "F"


def _dimension(
    key: str,
    score: float | None,
    reasons: Sequence[str],
    deductions: Sequence[Deduction] = (),
) -> Dimension:
    if score is not None:
        score = round_half_up(min(10.0, max(0.0, score)), 1)
    return Dimension(
        key=key,
        name=DIMENSION_NAMES[key],
        score=score,
        reasons=tuple(reasons),
        deductions=tuple(deductions),
    )


_names = name_list


def _deduct(
    dimension: str,
    amount: float,
    cause: str,
    *,
    cases: Sequence[str] = (),
    tools: Sequence[str] = (),
    **params: str,
) -> Deduction:
    return Deduction(
        dimension=dimension,
        amount=amount,
        cause=cause,
        tools=tuple(tools),
        cases=tuple(cases),
        params=tuple(params.items()),
    )


# --------------------------------------------------------------------------- metadata


def _present(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def metadata_dimension(snapshot: ServerSnapshot) -> Dimension:
    """Server identity, instructions and capability honesty, out of 10 (see module docstring)."""
    minimum = str(MIN_INSTRUCTIONS)
    deductions: list[Deduction] = []
    if not _present(snapshot.name):
        deductions.append(_deduct("metadata", 2, "noServerName"))
    if not _present(snapshot.version):
        deductions.append(_deduct("metadata", 2, "noServerVersion"))
    if not _present(snapshot.title):
        deductions.append(_deduct("metadata", 1, "noServerTitle"))
    instructions = snapshot.instructions.strip() if isinstance(snapshot.instructions, str) else ""
    if not instructions:
        deductions.append(_deduct("metadata", 3, "noInstructions", minimum=minimum))
    elif len(instructions) < MIN_INSTRUCTIONS:
        deductions.append(
            _deduct(
                "metadata",
                1,
                "shortInstructions",
                length=str(len(instructions)),
                minimum=minimum,
            )
        )
    deductions.extend(_capability_deductions(snapshot))
    deductions.extend(_version_deductions(snapshot))
    score = 10.0 - sum(d.amount for d in deductions)
    reasons = [deduction_reason(d) for d in deductions]
    if not reasons:
        reasons.append("name, version, title, instructions and capabilities are all in order")
    return _dimension("metadata", score, reasons, deductions)


UNSUPPORTED_VERSION_POINTS = 4.0
"""Metadata points an unsupported negotiated protocol version costs: the server says it speaks a
protocol no client knows, so nothing else it declares can be taken at its word."""


def _version_deductions(snapshot: ServerSnapshot) -> list[Deduction]:
    version = snapshot.protocol_version
    if snapshot.era == "modern" or version_problem(version) is None:
        return []  # 2026-07-28 reached through server/discover is no initialize answer
    shown = json.dumps((version or "")[:40], ensure_ascii=True)
    return [
        _deduct("metadata", UNSUPPORTED_VERSION_POINTS, "unsupportedProtocolVersion", shown=shown)
    ]


def _capability_deductions(snapshot: ServerSnapshot) -> list[Deduction]:
    """Capability honesty: an advertised list method must answer, and tools must not be served
    without being advertised. An advertised capability whose list is empty is honest (the SDKs
    advertise `prompts`/`resources` on their own, and an empty list is a valid answer); an
    empty `tools` list is the lint warning `server.no_tools`, and a failing `tools/list` is the
    listing error `server.invalid_list_page`, so neither is deducted here a second time."""
    caps = snapshot.capabilities if isinstance(snapshot.capabilities, dict) else {}
    tools = len(snapshot.tools)
    found: list[Deduction] = []
    if "tools" not in caps and tools > 0:
        found.append(_deduct("metadata", 1, "toolsNotAdvertised", count=str(tools)))
    for key, count in (
        ("prompts", snapshot.prompts_count),
        ("resources", snapshot.resources_count),
    ):
        # The connection lists an advertised capability and leaves the count None only when
        # the first `<key>/list` page failed (an error reply such as -32601, or no answer).
        if key in caps and count is None:
            found.append(_deduct("metadata", 0.5, "capabilityNotServed", capability=key))
    return found


# --------------------------------------------------------------------------- schema quality


def _weight(finding: Finding) -> float:
    return SEVERITY_WEIGHTS.get(finding.severity, 0.0)


def schema_quality_dimension(snapshot: ServerSnapshot, findings: Sequence[Finding]) -> Dimension:
    """``10 − 10 × min(1, (Σ capped per-tool weight / tools + server-wide) / 2)``."""
    extra = [f for f in snapshot.listing_findings if f not in findings]
    # security.* findings score in the Security dimension, not here.
    all_findings = [f for f in (*findings, *extra) if not f.code.startswith("security.")]
    per_tool: dict[str, float] = {}
    per_tool_counts: dict[str, Counter[str]] = {}
    server_wide = 0.0
    server_codes: Counter[str] = Counter()
    for finding in all_findings:
        tool = finding.location.tool
        if tool is None:
            server_wide += _weight(finding)
            server_codes[finding.code] += 1
        else:
            per_tool[tool] = per_tool.get(tool, 0.0) + _weight(finding)
            per_tool_counts.setdefault(tool, Counter())[finding.severity.value] += 1
    server_capped = min(CAP_SERVER_WIDE, server_wide)
    capped = {tool: min(CAP_PER_TOOL, weight) for tool, weight in per_tool.items()}
    total = sum(capped.values())
    tools = len(snapshot.tools)
    per_tool_term = total / tools if tools else 0.0
    score = 10.0 - 10.0 * min(1.0, (per_tool_term + server_capped) / 2)

    if not all_findings:
        return _dimension("schemaQuality", score, ["no lint findings"])
    deductions = _schema_deductions(capped, tools, server_capped, server_codes)
    shown_score = _fmt(round_half_up(max(0.0, score), 1))
    tools_part = f"{_fmt(total)} / {tools} tools" if tools else "0 (no tools)"
    reasons = [
        f"10 − 10 × min(1, ({tools_part} + {_fmt(server_capped)} server-wide) / 2) = {shown_score}"
        " (per finding: error 1, warning 0.5, info 0.25; each tool and the server-wide part"
        " capped at 2)"
    ]
    ranked = sorted(capped.items(), key=lambda item: (-item[1], item[0]))
    for tool, weight in ranked[:_LISTED_EXAMPLES]:
        counts = per_tool_counts[tool]
        detail = ", ".join(
            f"{counts[sev.value]} {sev.value}" for sev in Severity if counts[sev.value]
        )
        cap_note = f" (capped from {_fmt(per_tool[tool])})" if per_tool[tool] > weight else ""
        reasons.append(f"{quoted(tool)}: {_fmt(weight)}{cap_note} from {detail}")
    if len(ranked) > _LISTED_EXAMPLES:
        rest = ranked[_LISTED_EXAMPLES:]
        reasons.append(
            f"{len(rest)} more tools with findings: {_fmt(sum(w for _, w in rest))} together"
        )
    if server_wide:
        codes = ", ".join(f"{code} ×{n}" for code, n in sorted(server_codes.items()))
        cap_note = f" (capped from {_fmt(server_wide)})" if server_wide > server_capped else ""
        reasons.append(f"server-wide: {_fmt(server_capped)}{cap_note} from {codes}")
    return _dimension("schemaQuality", score, reasons, deductions)


def _schema_deductions(
    capped: dict[str, float],
    tools: int,
    server_capped: float,
    server_codes: Counter[str],
) -> list[Deduction]:
    """One deduction per tool with findings (and one for the server-wide part): the points it
    costs, its share of ``10 × min(1, x / 2)`` so the amounts add up to what the score lost."""
    shares = {tool: weight / tools for tool, weight in capped.items()} if tools else {}
    x = sum(shares.values()) + server_capped
    factor = 10.0 * min(1.0, x / 2) / x if x else 0.0
    found = [
        _deduct(
            "schemaQuality",
            factor * share,
            "lintFindings",
            tools=(tool,),
            weight=_fmt(capped[tool]),
        )
        for tool, share in shares.items()
        if share
    ]
    if server_capped:
        found.append(
            _deduct(
                "schemaQuality",
                factor * server_capped,
                "lintFindings",
                weight=_fmt(server_capped),
                codes=",".join(sorted(server_codes)),
            )
        )
    return found


# --------------------------------------------------------------------------- fuzz dimensions


def _case_name(result: CaseResult) -> str:
    return f"{result.tool} {result.label}"


MIN_CONCLUSIVE_CASES = 3
"""A behavioural dimension scored from fewer conclusive cases is "not measured" (SPEC §5.1): one
or two answers are an anecdote, not a rate, and must not move the overall."""


def _too_few(dimension: str, sent: Sequence[CaseResult]) -> Dimension | None:
    if 0 < len(sent) < MIN_CONCLUSIVE_CASES:
        noun = "case" if len(sent) == 1 else "cases"
        least = MIN_CONCLUSIVE_CASES
        reason = f"not measured (only {len(sent)} conclusive {noun}; at least {least} needed)"
        return _dimension(dimension, None, [reason])
    return None


def _not_measured_reason(fuzz: FuzzRun, what: str) -> str:
    if not fuzz.coverage.fuzzed_tools:
        return f"not measured: no {what} was sent (every tool was skipped)"
    if fuzz.results and all(r.outcome is Outcome.NOT_RUN for r in fuzz.results):
        return f"not measured: no {what} was sent (every case was not run)"
    if any(r.inconclusive for r in fuzz.results):
        return f"not measured: every {what} sent was inconclusive (see the notes)"
    return f"not measured: no {what} was sent"


def _fuzz_deductions(
    dimension: str, each: float, failures: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]]
) -> list[Deduction]:
    """One deduction per (verdict, parameters), ``each`` points per case, ordered by their reason
    line (the order the report has always listed them in)."""
    found = [
        Deduction(
            dimension=dimension,
            amount=each * len(names),
            cause=cause,
            tools=tuple(dict.fromkeys(name.partition(" ")[0] for name in names)),
            cases=tuple(names),
            params=params,
        )
        for (cause, params), names in failures.items()
    ]
    return sorted(found, key=deduction_label)


def error_handling_dimension(fuzz: FuzzRun | None) -> Dimension:
    """``10 × rejected / malformed`` over malformed cases actually sent (+ the unknown-tool
    probe)."""
    if fuzz is None:
        return _dimension("errorHandling", None, ["not measured: no fuzz run (enable fuzz)"])
    sent = [r for r in fuzz.results if r.malformed and r.conclusive]
    probe = fuzz.unknown_tool_probe
    if probe is not None and probe.conclusive:
        sent.append(probe)
    flat = fuzz.non_object_probe  # -32603 there is the SDK's request parsing: a protocol note
    if flat is not None and flat.conclusive and not is_internal_error(flat.error_code):
        sent.append(flat)
    if not sent:
        return _dimension("errorHandling", None, [_not_measured_reason(fuzz, "malformed case")])
    too_few = _too_few("errorHandling", sent)
    if too_few is not None:
        return too_few
    # A malformed call is rejected cleanly when it shows no verdict that costs Error Handling.
    causes = [costs(r.verdicts, "errorHandling") for r in sent]
    rejected = causes.count(None)
    score = 10.0 * rejected / len(sent)
    probes = [
        name
        for p, name in ((flat, "`non_object_arguments`"), (probe, "unknown-tool"))
        if p is not None and any(p is r for r in sent)
    ]
    plural = "s" if len(probes) > 1 else ""
    probe_note = f" (including the {' and '.join(probes)} probe{plural})" if probes else ""
    reasons = [
        f"{rejected} of {len(sent)} malformed cases rejected cleanly{probe_note}: "
        f"10 × {rejected}/{len(sent)} = {_fmt(round_half_up(score, 1))}"
    ]
    failures: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
    for result, cause in zip(sent, causes, strict=True):
        if cause is not None:
            failures.setdefault((cause, ()), []).append(_case_name(result))
    deductions = _fuzz_deductions("errorHandling", 10.0 / len(sent), failures)
    reasons += [deduction_reason(d) for d in deductions]
    return _dimension("errorHandling", score, reasons, deductions)


def _answer(result: CaseResult) -> tuple[tuple[str, str], ...]:
    """The parameters of a ``rejectedValid`` line: how the valid call was refused."""
    if result.outcome is Outcome.TOOL_ERROR:
        return (("answer", "toolError"),)
    return (("answer", f"protocolError {result.error_code}"),)


_ANSWERED = (Outcome.OK, Outcome.TOOL_ERROR, Outcome.PROTOCOL_ERROR)


def liveness_dimension(fuzz: FuzzRun | None) -> Dimension:
    """``10 × clean successes / valid cases sent`` minus the latency penalty."""
    if fuzz is None:
        return _dimension("liveness", None, ["not measured: no fuzz run (enable fuzz)"])
    sent = [r for r in fuzz.results if not r.malformed and r.conclusive]
    if not sent:
        reason = _not_measured_reason(fuzz, "valid case")
        unbuildable = [tc.tool for tc in fuzz.tool_cases if not tc.valid_constructible]
        if unbuildable:
            reason += f"; no valid arguments could be built for {_names(quoted_list(unbuildable))}"
        return _dimension("liveness", None, [reason])
    too_few = _too_few("liveness", sent)
    if too_few is not None:
        return too_few
    # A valid call succeeded cleanly when it shows no verdict that costs Liveness.
    causes = [costs(r.verdicts, "liveness") for r in sent]
    clean = causes.count(None)
    base = 10.0 * clean / len(sent)
    reasons = [
        f"{clean} of {len(sent)} valid calls succeeded cleanly: "
        f"10 × {clean}/{len(sent)} = {_fmt(round_half_up(base, 1))}"
    ]
    failures: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
    for result, cause in zip(sent, causes, strict=True):
        if cause is not None:
            params = _answer(result) if cause == "rejectedValid" else ()
            failures.setdefault((cause, params), []).append(_case_name(result))
    deductions = _fuzz_deductions("liveness", 10.0 / len(sent), failures)
    latencies = [r.latency_ms for r in sent if r.outcome in _ANSWERED]
    penalty = 0.0
    if latencies:
        p50 = float(statistics.median(latencies))
        if p50 > LATENCY_BUDGET_MS:
            penalty = LATENCY_PENALTY_PER_100MS * (p50 - LATENCY_BUDGET_MS) / 100.0
            deductions.append(
                _deduct(
                    "liveness",
                    penalty,
                    "slowValidCalls",
                    p50=_fmt(p50, 1),
                    budget=_fmt(LATENCY_BUDGET_MS),
                    per100=_fmt(LATENCY_PENALTY_PER_100MS),
                )
            )
    reasons += [deduction_reason(d) for d in deductions]
    return _dimension("liveness", base - penalty, reasons, deductions)


# --------------------------------------------------------------------------- overall


def security_dimension(findings: Sequence[Finding]) -> Dimension:
    """Always measured: 10 minus the documented deduction of each ``security.*`` finding
    (critical 5, error 2, warning 1, info 0.25); see ``core/score/security.py``."""
    score, deductions = security_score(findings)
    if not deductions:
        return _dimension("security", score, ["no security findings"])
    reasons = [
        f"10 − {_fmt(sum(d.amount for d in deductions))} = {_fmt(round_half_up(score, 1))} "
        "(per security finding: critical 5, error 2, warning 1, info 0.25; a critical one also "
        "caps the overall score at 39, grade F)",
        *(
            deduction_reason(d) + (f" ({quoted(d.tools[0])})" if d.tools else "")
            for d in deductions
        ),
    ]
    return _dimension("security", score, reasons, deductions)


@dataclass(frozen=True)
class ScoreInputs:
    """Everything a dimension may be scored from."""

    snapshot: ServerSnapshot
    findings: Sequence[Finding]
    fuzz: FuzzRun | None
    deep: DeepRun | None = None  # the deep pass of valid inputs (``--deep``), when it ran


@dataclass(frozen=True)
class DimensionSpec:
    """One scored dimension: ``key`` (as the report names it), its human ``name``, the scoring
    function, and an optional ``cap``: the highest overall score the dimension allows (None: no
    limit), e.g. 39 to hold a server in the F band."""

    key: str
    name: str
    score: Callable[[ScoreInputs], Dimension]
    cap: Callable[[Dimension], int | None] | None = None


DIMENSIONS: tuple[DimensionSpec, ...] = (
    DimensionSpec(
        "metadata", DIMENSION_NAMES["metadata"], lambda i: metadata_dimension(i.snapshot)
    ),
    DimensionSpec(
        "schemaQuality",
        DIMENSION_NAMES["schemaQuality"],
        lambda i: schema_quality_dimension(i.snapshot, i.findings),
    ),
    DimensionSpec(
        "errorHandling",
        DIMENSION_NAMES["errorHandling"],
        lambda i: apply_deep(error_handling_dimension(i.fuzz), i.deep, _one_decimal),
    ),
    DimensionSpec(
        "liveness",
        DIMENSION_NAMES["liveness"],
        lambda i: apply_deep(liveness_dimension(i.fuzz), i.deep, _one_decimal),
    ),
    DimensionSpec(
        "security",
        DIMENSION_NAMES["security"],
        lambda i: security_dimension(i.findings),
        cap=security_cap,
    ),
)


def score_server(
    snapshot: ServerSnapshot,
    findings: Sequence[Finding],
    fuzz: FuzzRun | None,
    *,
    deep: DeepRun | None = None,
    words: FrontEnd = "cli",
) -> Score:
    """Score a server: every dimension of ``DIMENSIONS``, overall = half-up round(10 × mean of
    the measured dimensions' one-decimal scores), bounded by the dimensions' caps, and its grade
    ("-" when nothing was measured). A server with tools none of which was called is not graded
    at all (``core/score/grading.py``): its dimensions are scored, its overall is None.
    ``words``: the front-end whose knobs the not-graded reason names (``core/knobs.py``)."""
    inputs = ScoreInputs(snapshot=snapshot, findings=findings, fuzz=fuzz, deep=deep)
    dimensions = tuple(spec.score(inputs) for spec in DIMENSIONS)
    return graded(dimensions, snapshot.tools, fuzz, words=words)


def graded(
    dimensions: Sequence[Dimension],
    tools: Sequence[JSON],
    fuzz: FuzzRun | None,
    *,
    words: FrontEnd = "cli",
) -> Score:
    """The overall and grade of ``dimensions`` (mean of the measured ones, bounded by the
    dimensions' caps) and whether they may be shown (``grading.grade_status``, its reasons in
    ``words``)."""
    caps = [
        spec.cap(dimension)
        for spec, dimension in zip(DIMENSIONS, dimensions, strict=True)
        if spec.cap is not None
    ]
    limits = [cap for cap in caps if cap is not None]
    status = grade_status(tools, fuzz, dimensions, critical=bool(limits), words=words)
    if status.not_graded is not None:
        return Score(None, "-", tuple(dimensions), not_graded=status.not_graded)
    measured = [d.score for d in dimensions if d.score is not None]
    if not measured:
        return Score(overall=None, grade="-", dimensions=tuple(dimensions))
    overall = min([int(round_half_up(10.0 * sum(measured) / len(measured))), *limits])
    return Score(overall, grade_for(overall), tuple(dimensions), static=status.static)
