"""Per-rule overrides from the project's config file: ignore a finding code or change its
severity, always with a reason that the report shows.

Pure. ``apply_overrides`` runs on the findings *before* scoring, so the score, the findings list
and every renderer agree: an ignored finding costs nothing and is listed only as a note
(``suppressed: CODE at WHERE — REASON``); a re-graded one is scored at its new severity and
noted (``severity: CODE at WHERE warning → error — REASON``). Only finding codes can be
overridden: behavioural verdicts (``behavior.*``) are measured facts about the server, not style.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from mcprobe.core.model import Finding, Severity

__all__ = ["RuleOverride", "apply_overrides"]


@dataclass(frozen=True)
class RuleOverride:
    """``severity`` None means ignore. ``tools`` empty means every tool and the server."""

    code: str
    severity: Severity | None
    reason: str
    tools: tuple[str, ...] = ()

    def matches(self, finding: Finding) -> bool:
        if finding.code != self.code:
            return False
        return not self.tools or finding.location.tool in self.tools


def _where(finding: Finding) -> str:
    loc = finding.location
    where = loc.tool or "server"
    return f"{where}.{loc.param}" if loc.param else where


def apply_overrides(
    findings: Sequence[Finding], overrides: Sequence[RuleOverride]
) -> tuple[list[Finding], list[str]]:
    """(findings to score and report, note lines). The first matching override wins."""
    kept: list[Finding] = []
    notes: list[str] = []
    for finding in findings:
        rule = next((o for o in overrides if o.matches(finding)), None)
        if rule is None:
            kept.append(finding)
        elif rule.severity is None:
            notes.append(f"suppressed: {finding.code} at {_where(finding)} — {rule.reason}")
        else:
            if rule.severity is not finding.severity:
                notes.append(
                    f"severity: {finding.code} at {_where(finding)} "
                    f"{finding.severity.value} → {rule.severity.value} — {rule.reason}"
                )
            kept.append(dataclasses.replace(finding, severity=rule.severity))
    return kept, notes
