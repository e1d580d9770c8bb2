"""The short terminal summary of a report: score, grade, one bar per dimension, the criticals.

What ``mcprobe audit`` prints on a terminal instead of the Markdown (``--format md`` still
prints the Markdown). Pure: the caller decides whether colour is on (``console``). Target text
(the server name, tool names in the critical lines) goes through ``clean_text``, so a hostile
target cannot send escape sequences, bidi overrides or line breaks to the user's terminal.
"""

from __future__ import annotations

import textwrap

from mcprobe.core.score.security import F_BAND_CAP as SECURITY_CAP
from mcprobe.core.verdicts import verdict
from mcprobe.report.model import ConformanceReport, DimensionOut
from mcprobe.report.render.escape import ELLIPSIS, clean_text

BAR_WIDTH = 20
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RED = "\x1b[31m"
_GREEN = "\x1b[32m"
_YELLOW = "\x1b[33m"
_GRADE_COLOUR = {"A": _GREEN, "B": _GREEN, "C": _YELLOW, "D": _YELLOW, "F": _RED}


def _safe(text: str, limit: int = 120) -> str:
    cleaned, truncated = clean_text(text, limit)
    return cleaned + (ELLIPSIS if truncated else "")


class _Paint:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *codes: str) -> str:
        if not self.colour or not codes:
            return text
        return "".join(codes) + text + _RESET


def score_colour(score: float | None, scale: float) -> str:
    """Green from 75 % of the scale, yellow from 40 %, red below (the B and D grade lines)."""
    if score is None:
        return _DIM
    if score >= 0.75 * scale:
        return _GREEN
    return _YELLOW if score >= 0.4 * scale else _RED


def dimension_bar(dimension: DimensionOut, width: int = BAR_WIDTH) -> str:
    """``████████░░░░`` for a 0-10 score; a blank track when not measured."""
    if dimension.score is None:
        return "·" * width
    filled = max(0, min(width, int(dimension.score / 10 * width + 0.5)))
    return "█" * filled + "░" * (width - filled)


def _wrap(text: str, width: int, indent: str, rest: str | None = None) -> list[str]:
    return textwrap.wrap(
        text,
        width=max(20, width),
        initial_indent=indent,
        subsequent_indent=rest if rest is not None else indent,
        break_on_hyphens=False,
    ) or [indent]


def render_terminal(report: ConformanceReport, *, colour: bool, width: int = 80) -> str:
    """The summary, a dozen lines, ending with a newline, each at most ``width`` columns."""
    paint = _Paint(colour)
    name = _safe(report.server.name) if report.server.name else "(unnamed server)"
    if report.not_graded is not None:
        headline = paint("not graded", _BOLD, _YELLOW)
    elif report.overall is None:
        headline = paint("not measured", _DIM)
    else:
        headline = paint(f"{report.overall}/100", _BOLD, score_colour(report.overall, 100))
    grade = paint(report.grade, _BOLD, _GRADE_COLOUR.get(report.grade, _DIM))
    plain = f"mcprobe  {name}  score {report.overall}/100  grade {report.grade}"
    if len(plain) + 10 <= width:
        lines = [f"{paint('mcprobe', _BOLD)}  {name}  score {headline}  grade {grade}"]
    else:  # the server name on its own row(s), the score below it
        lines = [paint("mcprobe", _BOLD), *_wrap(name, width, "  ")]
        lines.append(f"  score {headline}  grade {grade}")
    if report.not_graded is not None:
        text = f"not graded: {_safe(report.not_graded, 400)}"
        lines += [paint(line, _YELLOW) for line in _wrap(text, width, "  ")]
    elif report.static is not None:
        text = f"static (tools not called): {_safe(report.static, 400)}"
        lines += [paint(line, _YELLOW) for line in _wrap(text, width, "  ")]
    capped = any(p.kind == "securityCritical" for p in report.critical_problems)
    if capped and report.overall is not None and report.overall <= SECURITY_CAP:
        text = (
            f"capped at {SECURITY_CAP} (grade F): a critical security finding caps the score "
            "whatever the other dimensions say; fixing it is what lifts the grade"
        )
        lines += [paint(line, _RED) for line in _wrap(text, width, "  ")]
    lines.append("")
    names = max((len(d.name) for d in report.dimensions), default=0)
    bar_width = max(5, min(BAR_WIDTH, width - names - 18))
    for dimension in report.dimensions:
        value = "not measured" if dimension.score is None else f"{dimension.score:4.1f}/10"
        bar = paint(dimension_bar(dimension, bar_width), score_colour(dimension.score, 10))
        label = dimension.name.ljust(names) if names + bar_width + 18 <= width else dimension.name
        if names + bar_width + 18 <= width:
            lines.append(f"  {label}  {bar}  {value}")
        else:
            lines += [f"  {label}", f"    {bar}  {value}"]
    lines.append("")
    if report.coverage is None:
        lines.append(paint("  not fuzzed: add --fuzz to call the tools", _DIM))
    elif report.critical:
        lines.append(paint(f"  ⚠ {len(report.critical)} critical:", _BOLD, _RED))
        for line in report.critical[:10]:
            lines += _wrap(_safe(line, 160), width, "    - ", "      ")
        if len(report.critical) > 10:
            lines.append(f"    … and {len(report.critical) - 10} more (see the full report)")
    else:
        lines.append(paint("  ✓ no critical behavioural issues", _GREEN))
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    lines.append(
        f"  findings: {errors} error(s), {warnings} warning(s), {len(report.findings)} total"
    )
    if report.coverage is not None:
        coverage = report.coverage
        lines.append(
            f"  fuzzed {coverage.fuzzed_tools} of {coverage.total_tools} tool(s), "
            f"{len(report.fuzz)} call(s)"
        )
    if report.deep is not None:
        lines += _deep_lines(report, width)
    return "\n".join(lines) + "\n"


def _deep_lines(report: ConformanceReport, width: int) -> list[str]:
    """The deep pass: its count and seed, then one line per finding (tool, field, edge, title)."""
    deep = report.deep
    assert deep is not None
    found = deep.findings
    lines = [
        f"  deep (seed {deep.seed}): {deep.sent} edge call(s) on {len(deep.tools)} tool(s), "
        f"{len(found)} finding(s)"
    ]
    for tool in deep.tools:
        for finding in tool.findings:
            text = (
                f"{_safe(tool.tool, 60)} {_safe(finding.field, 60)} = {_safe(finding.edge, 40)}: "
                f"{verdict(finding.kind).title}"
            )
            lines += _wrap(text, width, "    - ", "      ")
    return lines
