"""The Security dimension (SPEC §6): always measured, 10 minus a documented deduction per
``security.*`` finding by severity; any *critical* security finding also holds the overall score
in the F band (``security_cap``).

Pure: reads findings only. The deductions are data (``model.Deduction`` with cause
``securityFinding``); their reason lines come from the verdict catalogue.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcprobe.core.model import Deduction, Dimension, Finding, Severity

__all__ = ["F_BAND_CAP", "SECURITY_DEDUCTIONS", "security_cap", "security_findings"]

SECURITY_DEDUCTIONS = {
    Severity.CRITICAL: 5.0,
    Severity.ERROR: 2.0,
    Severity.WARNING: 1.0,
    Severity.INFO: 0.25,
}
"""Points one ``security.*`` finding costs the Security dimension, by its severity."""

F_BAND_CAP = 39  # the highest overall score of grade F


def security_findings(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.code.startswith("security.")]


def security_deductions(findings: Sequence[Finding]) -> list[Deduction]:
    """One deduction per security finding, worst first (stable)."""
    found = sorted(security_findings(findings), key=lambda f: f.severity.rank)
    return [
        Deduction(
            dimension="security",
            amount=SECURITY_DEDUCTIONS[f.severity],
            cause="securityFinding",
            tools=(f.location.tool,) if f.location.tool is not None else (),
            params=(("code", f.code), ("severity", f.severity.value)),
        )
        for f in found
    ]


def security_score(findings: Sequence[Finding]) -> tuple[float, list[Deduction]]:
    deductions = security_deductions(findings)
    return max(0.0, 10.0 - sum(d.amount for d in deductions)), deductions


def security_cap(dimension: Dimension) -> int | None:
    """F band (39) when any critical security finding was deducted, else no limit."""
    critical = any(
        dict(d.params).get("severity") == Severity.CRITICAL.value for d in dimension.deductions
    )
    return F_BAND_CAP if critical else None
