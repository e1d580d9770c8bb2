"""The summary shape of a report: what ``probe_report`` returns with ``detail: summary`` (its
default), so an LLM host auditing a 50-tool server gets the verdicts, not every call.

Pure. The summary is the same ``ConformanceReport`` with ``detail: "summary"`` and the long lists
cut to what carries a verdict: ``fuzz`` keeps the results that show a problem or are cited by a
fix or the critical list (clean calls go), ``findings`` keeps every critical and error finding
and the first of each other code (the fix plan counts every place), ``surface.checks`` keeps the
failed and inconclusive checks. ``omitted`` says how many of each were left out. Everything
else (score, grade, dimensions with their reasons, coverage, the fix plan, deaths, notes) is
kept whole. The full report is ``detail: full`` (or ``mcprobe audit --json``).
"""

from __future__ import annotations

from mcprobe.report.model import ConformanceReport, FindingOut, OmittedOut

__all__ = ["summary_report"]

_KEPT_SEVERITIES = frozenset({"critical", "error"})


def _findings(findings: list[FindingOut]) -> list[FindingOut]:
    seen: set[str] = set()
    kept: list[FindingOut] = []
    for finding in findings:
        if finding.severity in _KEPT_SEVERITIES or finding.code not in seen:
            kept.append(finding)
        seen.add(finding.code)
    return kept


def summary_report(report: ConformanceReport) -> ConformanceReport:
    """``report`` in its summary shape (see the module docstring); a summary stays as it is."""
    if report.detail == "summary":
        return report
    cited = {(c.tool, c.case) for fix in report.fixes.behaviour for c in fix.cases}
    cited |= {(p.tool, case) for p in report.critical_problems for case in p.cases if p.tool}
    fuzz = [r for r in report.fuzz if (r.name, r.case) in cited or r.verdicts]
    findings = _findings(report.findings)
    surface = report.surface
    checks = 0
    if surface is not None:
        kept = [c for c in surface.checks if c.verdict in ("fail", "inconclusive")]
        checks = len(surface.checks) - len(kept)
        surface = surface.model_copy(update={"checks": kept})
    return report.model_copy(
        update={
            "detail": "summary",
            "fuzz": fuzz,
            "findings": findings,
            "surface": surface,
            "omitted": OmittedOut(
                fuzz=len(report.fuzz) - len(fuzz),
                findings=len(report.findings) - len(findings),
                checks=checks,
            ),
        }
    )
