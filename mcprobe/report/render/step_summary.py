"""The short Markdown summary for a CI job page (``$GITHUB_STEP_SUMMARY``): score, grade, one
row per dimension with a text bar, the critical lines, and a pointer to the full report.

Pure. Target text (the server name, tool names inside the critical lines) goes through the same
escaping as the Markdown report (``md_inline`` / ``md_prose``), so it renders as text.
"""

from __future__ import annotations

from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.escape import md_inline, md_prose
from mcprobe.report.render.terminal import dimension_bar

CRITICAL_LIMIT = 10


def render_step_summary(report: ConformanceReport, extra: list[str] | None = None) -> str:
    """``extra``: more mcprobe lines to list (e.g. the baseline comparison)."""
    name = md_inline(report.server.name) if report.server.name else "(unnamed server)"
    score = "not graded" if report.overall is None else f"**{report.overall}/100**"
    lines = [f"### mcprobe: {name} — {score}, grade **{report.grade}**", ""]
    if report.not_graded is not None:
        lines += [f"**Not graded:** {md_prose(report.not_graded)}", ""]
    elif report.static is not None:
        lines += [f"**Static (tools not called):** {md_prose(report.static)}", ""]
    lines += ["| Dimension | | Score |", "|---|---|---|"]
    for dim in report.dimensions:
        value = "not measured" if dim.score is None else f"{dim.score:.1f}/10"
        lines.append(f"| {dim.name} | `{dimension_bar(dim)}` | {value} |")
    lines.append("")
    if report.coverage is None:
        lines.append("Not fuzzed: the tools were not called.")
    elif report.critical:
        lines.append(f"**⚠ {len(report.critical)} critical:**")
        lines += [f"- {md_prose(line, 300)}" for line in report.critical[:CRITICAL_LIMIT]]
        if len(report.critical) > CRITICAL_LIMIT:
            lines.append(f"- … and {len(report.critical) - CRITICAL_LIMIT} more in the report")
    else:
        lines.append("✓ No critical behavioural issues.")
    if extra:
        lines += ["", *[f"- {md_prose(line, 300)}" for line in extra]]
    return "\n".join(lines) + "\n"
