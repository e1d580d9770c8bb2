"""The "Drift against the lock" Markdown section (``audit --lock``): what changed since
``mcprobe pin``. Pure; reads only the report's ``drift``."""

from __future__ import annotations

from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.escape import md_inline, md_prose

__all__ = ["drift_section"]

_LIMIT = 400


def drift_section(report: ConformanceReport) -> list[str] | None:
    """None without ``--lock``; else the section (a sentence when nothing drifted)."""
    drift = report.drift
    if drift is None:
        return None
    lines = ["## Drift against the lock", ""]
    if not drift.drifted:
        lines.append("No drift: every tool definition matches the lock.")
    for name in drift.added:
        lines.append(f"- **added** {md_inline(name, 80)}")
    for name in drift.removed:
        lines.append(f"- **removed** {md_inline(name, 80)}")
    for tool in drift.changed:
        lines.append(f"- **changed** {md_inline(tool.tool, 80)}")
        lines += [f"  - {md_prose(change, _LIMIT)}" for change in tool.changes]
    if drift.server:
        lines += ["", "Server identity (not drift): " + md_prose("; ".join(drift.server), _LIMIT)]
    return lines
