"""Compare an audit with an earlier one (``--baseline report.json``): what got better or worse.

Pure. Both sides are read through ``BaselineReport``, a tolerant view of the JSON report (extra
keys ignored, so a baseline written by another mcprobe version still loads as long as the keys
compared here exist). Latencies are not compared: they are noise between two runs of the same
server, and the score already carries the latency penalty through Liveness.

Identity of what is compared:

- a finding is ``(code, tool, param, pointer)`` — its message may embed target text that varies;
- a fuzz verdict is ``(tool, case)`` → outcome plus its verdict keys; it *fails* when the call
  shows any verdict (its ``verdicts``, or, in a report from before schema 1.10, the verdicts
  derived from its outcome and flags exactly as the core detects them);
- a tool is known from the coverage (fuzzed and skipped tools) and from findings' locations.

``regressions`` are what ``--fail-on-regression`` gates on: a lower overall or dimension score,
a dimension no longer measured, a new error or warning finding, a new failing verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from mcprobe.core.verdicts import call_verdicts
from mcprobe.report.model import legacy_flags

__all__ = [
    "BaselineDiff",
    "BaselineError",
    "BaselineReport",
    "Comparability",
    "comparability",
    "compare",
    "load_baseline",
]


class _View(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class _Dimension(_View):
    key: str
    name: str
    score: float | None = None


class _Location(_View):
    tool: str | None = None
    param: str | None = None
    pointer: str | None = None


class _Finding(_View):
    code: str
    severity: str
    message: str = ""
    location: _Location = _Location()


class _Call(_View):
    name: str
    case: str
    outcome: str
    malformed: bool = True
    silently_accepted: bool = False
    empty_success: bool = False
    output_schema_violation: bool = False
    failure_as_success: bool = False
    leak: bool = False
    error_code: int | None = None
    inconclusive: str | None = None
    environment: str | None = None
    validation_bypass: bool = False
    stored: list[str] | None = Field(default=None, alias="verdicts")

    @property
    def kind(self) -> str:
        return self.case.partition(":")[0]

    @property
    def flags(self) -> frozenset[str]:
        """The call's evidence, for a report without ``verdicts`` (``legacy_flags``)."""
        return legacy_flags(self)

    @property
    def verdicts(self) -> tuple[str, ...]:
        """The call's verdicts: as stored (schema 1.10 on), else derived from its outcome and
        flags the way the core detects them."""
        return tuple(self.stored) if self.stored is not None else call_verdicts(self)


class _Skipped(_View):
    tool: str


class _Coverage(_View):
    fuzzed: list[str] = []
    skipped: list[_Skipped] = []


class _Server(_View):
    name: str | None = None
    version: str | None = None


class BaselineReport(_View):
    """The parts of a JSON report that a baseline comparison reads."""

    mcprobe_version: str | None = None
    schema_version: str | None = None
    server: _Server = _Server()
    overall: int | None = None
    grade: str = "-"
    dimensions: list[_Dimension] = []
    findings: list[_Finding] = []
    fuzz: list[_Call] = []
    coverage: _Coverage | None = None


class BaselineError(ValueError):
    """The baseline is not a JSON report mcprobe can compare with (one line)."""


def load_baseline(data: Any) -> BaselineReport:
    """Validate decoded JSON as a baseline; ``BaselineError`` names the first bad key's path."""
    if not isinstance(data, dict) or "dimensions" not in data:
        raise BaselineError("not an mcprobe JSON report (no 'dimensions'); use --format json")
    try:
        return BaselineReport.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        path = ".".join(str(part) for part in error["loc"])
        raise BaselineError(f"not an mcprobe JSON report: {path}: {error['msg']}") from None


@dataclass(frozen=True)
class Comparability:
    """Whether two reports can be compared: ``refusal`` (another server: nothing is compared),
    ``caution`` (another mcprobe or report schema: changes may be mcprobe's own, so the
    regression gate is not applied), and ``compared`` (what the baseline is, for one line)."""

    refusal: str | None
    caution: str | None
    compared: str


def _who(report: BaselineReport) -> str:
    name = report.server.name
    version = f" {report.server.version}" if report.server.version else ""
    return f"server {name!r}{version}" if name is not None else "an unnamed server"


def _made_by(report: BaselineReport) -> str:
    version = report.mcprobe_version or "an unknown version"
    schema = report.schema_version or "unknown"
    return f"mcprobe {version}, report schema {schema}"


def comparability(before: BaselineReport, after: BaselineReport) -> Comparability:
    """Check identity and versions before comparing (a baseline of another server, or one that
    another mcprobe scored, would report mcprobe's own changes as the server's)."""
    compared = f"{_who(before)}, written by {_made_by(before)}"
    refusal = None
    if before.server.name != after.server.name:
        refusal = f"the baseline is of {_who(before)}, this audit of {_who(after)}"
    caution = None
    if (before.mcprobe_version, before.schema_version) != (
        after.mcprobe_version,
        after.schema_version,
    ):
        caution = (
            f"the baseline was written by {_made_by(before)}, this audit by {_made_by(after)}: "
            "a change may be mcprobe's own, not the server's"
        )
    return Comparability(refusal, caution, compared)


@dataclass(frozen=True)
class ScoreChange:
    name: str
    before: float | None
    after: float | None

    @property
    def worse(self) -> bool:
        if self.before is None:
            return False
        return self.after is None or self.after < self.before


@dataclass(frozen=True)
class FindingRef:
    code: str
    severity: str
    where: str


@dataclass(frozen=True)
class VerdictChange:
    tool: str
    case: str
    before: str | None  # None: the case did not exist in the baseline
    after: str | None  # None: the case is gone


@dataclass(frozen=True)
class BaselineDiff:
    overall: ScoreChange
    grade: tuple[str, str]
    dimensions: tuple[ScoreChange, ...]  # only those that changed
    new_findings: tuple[FindingRef, ...]
    fixed_findings: tuple[FindingRef, ...]
    new_failures: tuple[VerdictChange, ...]
    fixed_failures: tuple[VerdictChange, ...]
    other_verdicts: tuple[VerdictChange, ...]  # changed, neither failing before nor after
    new_tools: tuple[str, ...]
    removed_tools: tuple[str, ...]

    @property
    def regressions(self) -> tuple[str, ...]:
        """One line per thing that got worse (what ``--fail-on-regression`` gates on)."""
        lines = []
        if self.overall.worse:
            before, after = _graded(self.overall.before), _graded(self.overall.after)
            lines.append(f"overall score {before} → {after}")
        lines += [
            f"{d.name} {_num(d.before)} → {_num(d.after)}" for d in self.dimensions if d.worse
        ]
        lines += [
            f"new {f.severity} finding {f.code} ({f.where})"
            for f in self.new_findings
            if f.severity in ("error", "warning")
        ]
        lines += [f"new failure {v.tool} {v.case}: {v.after}" for v in self.new_failures]
        return tuple(lines)

    @property
    def unchanged(self) -> bool:
        return not (
            self.overall.before != self.overall.after
            or self.dimensions
            or self.new_findings
            or self.fixed_findings
            or self.new_failures
            or self.fixed_failures
            or self.other_verdicts
            or self.new_tools
            or self.removed_tools
        )


def _num(value: float | None) -> str:
    return "not measured" if value is None else f"{value:g}"


def _graded(value: float | None) -> str:
    """An overall score; None is a report that was not graded (no tool was called)."""
    return "not graded" if value is None else f"{value:g}"


def _where(location: _Location) -> str:
    parts = [location.tool or "server"]
    if location.param:
        parts.append(location.param)
    return ".".join(parts) + (f" {location.pointer}" if location.pointer else "")


def _finding_key(finding: _Finding) -> tuple[str, str | None, str | None, str | None]:
    loc = finding.location
    return (finding.code, loc.tool, loc.param, loc.pointer)


def _verdict(call: _Call) -> str:
    """The call's outcome (with its JSON-RPC code) and its verdicts, e.g. ``ok [leak]``."""
    shown = list(call.verdicts)
    code = f" {call.error_code}" if call.outcome == "protocolError" and call.error_code else ""
    return call.outcome + code + (f" [{', '.join(shown)}]" if shown else "")


def _failing(call: _Call) -> bool:
    """A call that shows a verdict (docs/checks.md "Verdicts"): the server is blamed for it."""
    return bool(call.verdicts)


def _tools(report: BaselineReport) -> set[str]:
    tools = {f.location.tool for f in report.findings if f.location.tool}
    if report.coverage is not None:
        tools |= set(report.coverage.fuzzed) | {s.tool for s in report.coverage.skipped}
    tools |= {call.name for call in report.fuzz}
    return tools


def compare(before: BaselineReport, after: BaselineReport) -> BaselineDiff:
    """What changed from ``before`` (the baseline) to ``after`` (this run)."""
    old_dims = {d.key: d for d in before.dimensions}
    dimensions = []
    for dim in after.dimensions:
        old = old_dims.get(dim.key)
        old_score = old.score if old is not None else None
        if old is None or old_score != dim.score:
            dimensions.append(ScoreChange(dim.name, old_score, dim.score))
    new_keys = {d.key for d in after.dimensions}
    dimensions += [
        ScoreChange(d.name, d.score, None) for d in before.dimensions if d.key not in new_keys
    ]

    old_findings = {_finding_key(f): f for f in before.findings}
    new_findings = {_finding_key(f): f for f in after.findings}

    def refs(keys: set[Any], source: dict[Any, _Finding]) -> tuple[FindingRef, ...]:
        found = [source[key] for key in keys]
        found.sort(key=lambda f: (f.code, _where(f.location)))
        return tuple(FindingRef(f.code, f.severity, _where(f.location)) for f in found)

    old_tools, new_tools = _tools(before), _tools(after)
    old_calls = {(c.name, c.case): c for c in before.fuzz}
    new_calls = {(c.name, c.case): c for c in after.fuzz}
    new_failures, fixed_failures, other = [], [], []
    removed = old_tools - new_tools
    for key in sorted(set(old_calls) | set(new_calls)):
        if key[0] in removed:
            continue  # the tool is gone: listed under removed tools, not case by case
        old_call, new_call = old_calls.get(key), new_calls.get(key)
        old_v = _verdict(old_call) if old_call else None
        new_v = _verdict(new_call) if new_call else None
        if old_v == new_v:
            continue
        change = VerdictChange(key[0], key[1], old_v, new_v)
        was_failing = old_call is not None and _failing(old_call)
        is_failing = new_call is not None and _failing(new_call)
        if is_failing and not was_failing:
            new_failures.append(change)  # a new tool's failing case is a new problem too
        elif was_failing and not is_failing:
            fixed_failures.append(change)
        elif old_call is not None:
            other.append(change)
    return BaselineDiff(
        overall=ScoreChange("overall", before.overall, after.overall),
        grade=(before.grade, after.grade),
        dimensions=tuple(dimensions),
        new_findings=refs(set(new_findings) - set(old_findings), new_findings),
        fixed_findings=refs(set(old_findings) - set(new_findings), old_findings),
        new_failures=tuple(new_failures),
        fixed_failures=tuple(fixed_failures),
        other_verdicts=tuple(other),
        new_tools=tuple(sorted(new_tools - old_tools)),
        removed_tools=tuple(sorted(old_tools - new_tools)),
    )
