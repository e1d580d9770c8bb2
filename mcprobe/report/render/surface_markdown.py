"""The Markdown section for resources, prompts and protocol checks (pure).

One table of every check made (failures first, then inconclusive results, then passes), each
row with the clause it enforces; "should" failures are marked as advice (they cost no points).
Target text (URIs, prompt names, answers) is escaped like everywhere else in the report.
"""

from __future__ import annotations

from mcprobe.report.model import CheckOut, ConformanceReport, SurfaceOut
from mcprobe.report.render.escape import md_cell, md_prose

__all__ = ["render_surface"]

_RANK = {"fail": 0, "inconclusive": 1, "pass": 2, "notApplicable": 3}
_VERDICT = {
    "fail": "**fail**",
    "inconclusive": "inconclusive",
    "pass": "pass",
    "notApplicable": "not applicable",
}
SUBJECT_LIMIT = 60
NOTE_LIMIT = 160


def _count(value: int | None, what: str) -> str:
    return f"{what}: not listed" if value is None else f"{what}: {value}"


def _verdict(check: CheckOut) -> str:
    text = _VERDICT[check.verdict]
    if check.verdict == "fail" and check.level == "should":
        text += " (advice)"
    return text


def _row(check: CheckOut) -> str:
    subject = md_cell(check.subject, SUBJECT_LIMIT) if check.subject else "server"
    note = md_prose(check.message, NOTE_LIMIT, cell=True)
    return f"| {check.area} | `{check.check}` | {subject} | {_verdict(check)} | {note} |"


def _summary(surface: SurfaceOut) -> str:
    counts: dict[str, int] = {}
    for check in surface.checks:
        counts[check.verdict] = counts.get(check.verdict, 0) + 1
    parts = [
        f"{counts.get(v, 0)} {_VERDICT[v].strip('*')}" for v in ("fail", "inconclusive", "pass")
    ]
    listed = ", ".join(
        [
            _count(surface.resources, "resources"),
            _count(surface.resource_templates, "templates"),
            _count(surface.prompts, "prompts"),
        ]
    )
    return f"{len(surface.checks)} checks: {', '.join(parts)}. Listed {listed}."


def render_surface(report: ConformanceReport) -> list[str]:
    """The section's lines, or [] when the surface was not probed."""
    surface = report.surface
    if surface is None:
        return []
    lines = ["## Resources, prompts and protocol", "", _summary(surface)]
    if not surface.checks:
        return lines
    ordered = sorted(surface.checks, key=lambda c: _RANK[c.verdict])
    lines += [
        "",
        "| area | check | subject | verdict | note |",
        "|---|---|---|---|---|",
        *(_row(c) for c in ordered),
    ]
    clauses = sorted({(c.check, c.clause) for c in surface.checks if c.verdict == "fail"})
    if clauses:
        lines += ["", "Spec clauses of the failed checks:", ""]
        lines += [f"- `{check}`: {md_prose(clause, 200)}" for check, clause in clauses]
    return lines


def _failed(report: ConformanceReport, level: str) -> dict[str, list[CheckOut]]:
    failed: dict[str, list[CheckOut]] = {}
    for check in report.surface.checks if report.surface is not None else ():
        if check.verdict == "fail" and check.level == level:
            failed.setdefault(check.check, []).append(check)
    return failed


def surface_advice(report: ConformanceReport) -> list[str]:
    """The failed SHOULD checks as one advice line after the numbered fixes (not a fix item
    each: a recommendation that reference servers skip too is no defect to fix first), or []."""
    failed = _failed(report, "should")
    if not failed:
        return []
    parts = []
    for name, checks in failed.items():
        hint = md_prose(checks[0].hint, 200)
        request = (
            f"; reproduce: send {md_cell(checks[0].request, 120)}" if checks[0].request else ""
        )
        parts.append(f"`{name}` ({hint}{request})")
    return ["**Advice** (SHOULDs of the spec, not scored): " + "; ".join(parts) + "."]


def surface_fixes(report: ConformanceReport) -> list[list[str]]:
    """One "Recommended fixes" item per failed ``must`` check, naming its subjects and the
    request that reproduces the first failure (failed ``should`` checks: ``surface_advice``)."""
    items: list[list[str]] = []
    for name, checks in _failed(report, "must").items():
        first = checks[0]
        head = f"**`{name}`**: {md_prose(first.hint[0].upper() + first.hint[1:], 300)}."
        subjects = [c.subject for c in checks if c.subject]
        subs = [f"- {md_cell(s, SUBJECT_LIMIT)}" for s in subjects[:5]]
        if len(subjects) > 5:
            subs.append(f"- and {len(subjects) - 5} more")
        if first.request:
            subs.append(f"- Reproduce: send {md_cell(first.request, 200)}")
        items.append([head, *subs])
    return items
