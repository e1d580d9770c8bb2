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
- Liveness takes the p50 over valid calls that got an answer (``ok``/``toolError``/
  ``protocolError``): a timeout's or crash's latency measures the limit, not the server, and
  those calls already count as failures. The latency penalty is proportional, not stepped.
- A valid call that the tool rejects (``toolError``, or a JSON-RPC error other than -32603) is
  not a clean success (SPEC §6), but it is rarely a dead tool: mcprobe built the call from the
  input schema alone and it validates, so the schema under-specifies what the tool accepts. Its
  reason line says so and what to declare; an internal error (-32603) on a valid call says the
  handler failed on input its schema allows.

``deduction_fix`` maps each deduction line this module writes (``−N: why``) to the change that
removes it, so the report's "Recommended fixes" can cover every deduction.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Sequence

from mcprobe.core.model import (
    CaseResult,
    Dimension,
    Finding,
    FuzzRun,
    Outcome,
    Score,
    ServerSnapshot,
    Severity,
)
from mcprobe.core.result_shape import version_problem

__all__ = [
    "DIMENSION_NAMES",
    "SEVERITY_WEIGHTS",
    "deduction_fix",
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
}

SEVERITY_WEIGHTS = {Severity.ERROR: 1.0, Severity.WARNING: 0.5, Severity.INFO: 0.25}
CAP_PER_TOOL = 2.0
CAP_SERVER_WIDE = 2.0
MIN_INSTRUCTIONS = 40
LATENCY_BUDGET_MS = 200.0
LATENCY_PENALTY_PER_100MS = 0.5
_LISTED_EXAMPLES = 5  # how many cases/tools a reason line names before "and N more"

_GRADES = ((90, "A"), (75, "B"), (60, "C"), (40, "D"))


# --------------------------------------------------------------------------- numbers


def round_half_up(value: float, digits: int = 0) -> float:
    """Round half away from zero for the non-negative values used here (0.05 → 0.1, 88.5 → 89)."""
    factor = 10.0**digits
    return math.floor(value * factor + 0.5 + 1e-9) / factor


def _fmt(value: float, digits: int = 4) -> str:
    """A number as a person would write it: 2, 0.5, 0.375, 7.8."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def grade_for(overall: int) -> str:
    """A ≥ 90, B ≥ 75, C ≥ 60, D ≥ 40, F below."""
    for floor, grade in _GRADES:
        if overall >= floor:
            return grade
    return "F"


def _dimension(key: str, score: float | None, reasons: Sequence[str]) -> Dimension:
    if score is not None:
        score = round_half_up(min(10.0, max(0.0, score)), 1)
    return Dimension(key=key, name=DIMENSION_NAMES[key], score=score, reasons=tuple(reasons))


def _names(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_LISTED_EXAMPLES])
    more = len(items) - _LISTED_EXAMPLES
    return f"{shown} and {more} more" if more > 0 else shown


# --------------------------------------------------------------------------- metadata


def _present(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def metadata_dimension(snapshot: ServerSnapshot) -> Dimension:
    """Server identity, instructions and capability honesty, out of 10 (see module docstring)."""
    deductions: list[tuple[float, str]] = []
    if not _present(snapshot.name):
        deductions.append((2, "no server `name` in serverInfo"))
    if not _present(snapshot.version):
        deductions.append((2, "no server `version` in serverInfo"))
    if not _present(snapshot.title):
        deductions.append((1, "no human-readable `title` in serverInfo"))
    instructions = snapshot.instructions.strip() if isinstance(snapshot.instructions, str) else ""
    if not instructions:
        deductions.append((3, "no `instructions` in initialize"))
    elif len(instructions) < MIN_INSTRUCTIONS:
        deductions.append(
            (1, f"`instructions` are only {len(instructions)} characters (< {MIN_INSTRUCTIONS})")
        )
    deductions.extend(_capability_deductions(snapshot))
    deductions.extend(_version_deductions(snapshot))
    score = 10.0 - sum(points for points, _ in deductions)
    reasons = [f"−{_fmt(points)}: {why}" for points, why in deductions]
    if not reasons:
        reasons.append("name, version, title, instructions and capabilities are all in order")
    return _dimension("metadata", score, reasons)


UNSUPPORTED_VERSION_POINTS = 4.0
"""Metadata points an unsupported negotiated protocol version costs: the server says it speaks a
protocol no client knows, so nothing else it declares can be taken at its word."""


def _version_deductions(snapshot: ServerSnapshot) -> list[tuple[float, str]]:
    version = snapshot.protocol_version
    if version_problem(version) is None:
        return []
    shown = json.dumps((version or "")[:40], ensure_ascii=True)
    return [(UNSUPPORTED_VERSION_POINTS, f"unsupported protocol version {shown} negotiated")]


def _capability_deductions(snapshot: ServerSnapshot) -> list[tuple[float, str]]:
    caps = snapshot.capabilities if isinstance(snapshot.capabilities, dict) else {}
    tools = len(snapshot.tools)
    found: list[tuple[float, str]] = []
    if "tools" in caps and tools == 0:
        found.append((1, "advertises the `tools` capability but lists no tools"))
    elif "tools" not in caps and tools > 0:
        found.append((1, f"lists {tools} tools without advertising the `tools` capability"))
    for key, count in (
        ("prompts", snapshot.prompts_count),
        ("resources", snapshot.resources_count),
    ):
        if key in caps and count == 0:
            found.append((0.5, f"advertises the `{key}` capability but lists no {key}"))
    return found


# --------------------------------------------------------------------------- schema quality


def _weight(finding: Finding) -> float:
    return SEVERITY_WEIGHTS.get(finding.severity, 0.0)


def schema_quality_dimension(snapshot: ServerSnapshot, findings: Sequence[Finding]) -> Dimension:
    """``10 − 10 × min(1, (Σ capped per-tool weight / tools + server-wide) / 2)``."""
    extra = [f for f in snapshot.listing_findings if f not in findings]
    all_findings = [*findings, *extra]
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
        reasons.append(f"{tool}: {_fmt(weight)}{cap_note} from {detail}")
    if len(ranked) > _LISTED_EXAMPLES:
        rest = ranked[_LISTED_EXAMPLES:]
        reasons.append(
            f"{len(rest)} more tools with findings: {_fmt(sum(w for _, w in rest))} together"
        )
    if server_wide:
        codes = ", ".join(f"{code} ×{n}" for code, n in sorted(server_codes.items()))
        cap_note = f" (capped from {_fmt(server_wide)})" if server_wide > server_capped else ""
        reasons.append(f"server-wide: {_fmt(server_capped)}{cap_note} from {codes}")
    return _dimension("schemaQuality", score, reasons)


# --------------------------------------------------------------------------- fuzz dimensions


def _case_name(result: CaseResult) -> str:
    return f"{result.tool} {result.label}"


def _not_measured_reason(fuzz: FuzzRun, what: str) -> str:
    if not fuzz.coverage.fuzzed_tools:
        return f"not measured: no {what} was sent (every tool was skipped)"
    if fuzz.results and all(r.outcome is Outcome.NOT_RUN for r in fuzz.results):
        return f"not measured: no {what} was sent (every case was not run)"
    return f"not measured: no {what} was sent"


_INVALID_RESULT = "invalid result (breaks the MCP result schema)"


def _failure_kind(result: CaseResult) -> str:
    if result.outcome is Outcome.OK:
        return "silently accepted"
    if result.invalid_result:
        return _INVALID_RESULT
    if result.outcome is Outcome.PROTOCOL_ERROR:
        return "internal error -32603"
    return str(result.outcome.value)


def error_handling_dimension(fuzz: FuzzRun | None) -> Dimension:
    """``10 × rejected / malformed`` over malformed cases actually sent (+ the unknown-tool
    probe)."""
    if fuzz is None:
        return _dimension("errorHandling", None, ["not measured: no fuzz run (enable fuzz)"])
    sent = [r for r in fuzz.results if r.malformed and r.outcome is not Outcome.NOT_RUN]
    probe = fuzz.unknown_tool_probe
    if probe is not None and probe.outcome is not Outcome.NOT_RUN:
        sent.append(probe)
    if not sent:
        return _dimension("errorHandling", None, [_not_measured_reason(fuzz, "malformed case")])
    rejected = sum(1 for r in sent if r.rejected)
    score = 10.0 * rejected / len(sent)
    probe_note = " (including the unknown-tool probe)" if probe in sent else ""
    reasons = [
        f"{rejected} of {len(sent)} malformed cases rejected cleanly{probe_note}: "
        f"10 × {rejected}/{len(sent)} = {_fmt(round_half_up(score, 1))}"
    ]
    each = 10.0 / len(sent)
    failures: dict[str, list[str]] = {}
    for result in sent:
        if not result.rejected:
            failures.setdefault(_failure_kind(result), []).append(_case_name(result))
    for kind, names in sorted(failures.items()):
        reasons.append(f"−{_fmt(each * len(names))}: {kind} ({len(names)}): {_names(names)}")
    return _dimension("errorHandling", score, reasons)


def _clean(result: CaseResult) -> bool:
    return (
        result.outcome is Outcome.OK
        and not result.empty_success
        and not result.output_schema_violation
    )


_REJECTED_VALID = "valid call rejected"
_REJECTED_VALID_WHY = (
    " — mcprobe built each call from the input schema alone and it validates, so the schema does"
    " not tell a client how to call the tool: declare `examples`, `enum`, `pattern` or `format`"
    " for its parameters, or accept such a call"
)
_INTERNAL_VALID = "internal error -32603 on a valid call"
_INTERNAL_VALID_WHY = (
    " — the handler failed on input its schema allows: fix the handler, or narrow the schema to"
    " what it accepts"
)


def _liveness_failure(result: CaseResult) -> str:
    if result.outcome is Outcome.OK:
        return "empty success" if result.empty_success else "output-schema violation"
    if result.outcome is Outcome.TOOL_ERROR:
        return f"{_REJECTED_VALID} (toolError)"
    if result.invalid_result:
        return _INVALID_RESULT
    if result.outcome is Outcome.PROTOCOL_ERROR:
        if result.error_code == -32603:
            return _INTERNAL_VALID
        return f"{_REJECTED_VALID} (protocolError {result.error_code})"
    return str(result.outcome.value)


def _liveness_why(kind: str) -> str:
    if kind.startswith(_REJECTED_VALID):
        return _REJECTED_VALID_WHY
    return _INTERNAL_VALID_WHY if kind == _INTERNAL_VALID else ""


_ANSWERED = (Outcome.OK, Outcome.TOOL_ERROR, Outcome.PROTOCOL_ERROR)


def liveness_dimension(fuzz: FuzzRun | None) -> Dimension:
    """``10 × clean successes / valid cases sent`` minus the latency penalty."""
    if fuzz is None:
        return _dimension("liveness", None, ["not measured: no fuzz run (enable fuzz)"])
    sent = [r for r in fuzz.results if not r.malformed and r.outcome is not Outcome.NOT_RUN]
    if not sent:
        reason = _not_measured_reason(fuzz, "valid case")
        unbuildable = [tc.tool for tc in fuzz.tool_cases if not tc.valid_constructible]
        if unbuildable:
            reason += f"; no valid arguments could be built for {_names(unbuildable)}"
        return _dimension("liveness", None, [reason])
    clean = sum(1 for r in sent if _clean(r))
    base = 10.0 * clean / len(sent)
    reasons = [
        f"{clean} of {len(sent)} valid calls succeeded cleanly: "
        f"10 × {clean}/{len(sent)} = {_fmt(round_half_up(base, 1))}"
    ]
    each = 10.0 / len(sent)
    failures: dict[str, list[str]] = {}
    for result in sent:
        if not _clean(result):
            failures.setdefault(_liveness_failure(result), []).append(_case_name(result))
    for kind, names in sorted(failures.items()):
        reasons.append(
            f"−{_fmt(each * len(names))}: {kind} ({len(names)}): {_names(names)}"
            + _liveness_why(kind)
        )
    latencies = [r.latency_ms for r in sent if r.outcome in _ANSWERED]
    penalty = 0.0
    if latencies:
        p50 = float(statistics.median(latencies))
        if p50 > LATENCY_BUDGET_MS:
            penalty = LATENCY_PENALTY_PER_100MS * (p50 - LATENCY_BUDGET_MS) / 100.0
            reasons.append(
                f"−{_fmt(penalty)}: valid-call p50 latency {_fmt(p50, 1)} ms exceeds "
                f"{_fmt(LATENCY_BUDGET_MS)} ms (0.5 per 100 ms over)"
            )
    return _dimension("liveness", base - penalty, reasons)


# --------------------------------------------------------------------------- fixes

_DEDUCTION = re.compile(r"^−\d+(?:\.\d+)?: (?P<why>.+)$")
_DEDUCTION_FIXES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "metadata",
        re.compile(r"unsupported protocol version"),
        "Answer initialize with a supported protocolVersion: the client's when you support it, "
        "else the newest you do (2024-11-05 to 2025-11-25); the MCP SDKs negotiate this.",
    ),
    (
        "metadata",
        re.compile(r"no server `name` in serverInfo"),
        "Set `serverInfo.name` in the initialize result to a stable identifier for the server.",
    ),
    (
        "metadata",
        re.compile(r"no server `version` in serverInfo"),
        "Set `serverInfo.version` to the release you ship, so clients and bug reports can tell "
        "versions apart.",
    ),
    (
        "metadata",
        re.compile(r"no human-readable `title` in serverInfo"),
        "Add a human-readable `serverInfo.title` (hosts show it to people; MCP 2025-06-18 and "
        "later).",
    ),
    (
        "metadata",
        re.compile(r"no `instructions` in initialize"),
        "Send `instructions` in the initialize result: a few sentences on what the server is for "
        f"and how its tools fit together (at least {MIN_INSTRUCTIONS} characters).",
    ),
    (
        "metadata",
        re.compile(r"`instructions` are only \d+ characters"),
        f"Expand `instructions` to at least {MIN_INSTRUCTIONS} characters: what the server is for "
        "and how its tools fit together.",
    ),
    (
        "metadata",
        re.compile(r"advertises the `(?P<cap>tools|prompts|resources)` capability but lists no"),
        "Serve {cap}, or stop advertising the `{cap}` capability in the initialize result.",
    ),
    (
        "metadata",
        re.compile(r"lists \d+ tools without advertising the `tools` capability"),
        "Advertise the `tools` capability in the initialize result.",
    ),
    (
        "liveness",
        re.compile(r"valid-call p50 latency (?P<ms>\d+(?:\.\d+)?) ms exceeds"),
        "Answer valid calls faster: their p50 latency is {ms} ms, over the "
        f"{_fmt(LATENCY_BUDGET_MS)} ms budget (−{_fmt(LATENCY_PENALTY_PER_100MS)} per 100 ms "
        "over); move slow work off the call path, or cache it.",
    ),
)


def deduction_fix(key: str, reason: str) -> str | None:
    """The change that removes one deduction line this module wrote for dimension ``key``, or
    None when ``reason`` is not such a line (not a deduction, or one whose fix comes from the
    fuzz results or lint findings instead: Error Handling, Liveness failures, Schema Quality).
    The text quotes names in single backticks (the lint convention)."""
    match = _DEDUCTION.match(reason)
    if match is None:
        return None
    for fix_key, pattern, fix in _DEDUCTION_FIXES:
        found = pattern.search(match.group("why"))
        if fix_key == key and found is not None:
            return fix.format(**found.groupdict())
    return None


# --------------------------------------------------------------------------- overall


def score_server(
    snapshot: ServerSnapshot, findings: Sequence[Finding], fuzz: FuzzRun | None
) -> Score:
    """Score a server: the four dimensions, overall = half-up round(10 × mean of the measured
    dimensions' one-decimal scores), and its grade ("-" when nothing was measured)."""
    dimensions = (
        metadata_dimension(snapshot),
        schema_quality_dimension(snapshot, findings),
        error_handling_dimension(fuzz),
        liveness_dimension(fuzz),
    )
    measured = [d.score for d in dimensions if d.score is not None]
    if not measured:
        return Score(overall=None, grade="-", dimensions=dimensions)
    overall = int(round_half_up(10.0 * sum(measured) / len(measured)))
    return Score(overall=overall, grade=grade_for(overall), dimensions=dimensions)
