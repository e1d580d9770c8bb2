"""The baseline comparison as lines of text (stderr of ``mcprobe audit --baseline``, and the
Action's job summary). Pure. Tool names and case labels come from the target: each line goes
through ``clean_text`` so nothing in it can steer a terminal or break a line."""

from __future__ import annotations

from mcprobe.report.baseline import BaselineDiff, ScoreChange
from mcprobe.report.render.escape import clean_text


def _safe(text: str) -> str:
    return clean_text(text, 200)[0]


def _num(value: float | None) -> str:
    return "not measured" if value is None else f"{value:g}"


def _change(change: ScoreChange) -> str:
    # The overall is None only when the report was not graded (no tool was called).
    num = _graded if change.name == "overall" else _num
    if change.before is not None and change.after is not None:
        delta = change.after - change.before
        sign = "+" if delta > 0 else "−"
        return f"{num(change.before)} → {num(change.after)} ({sign}{abs(delta):.3g})"
    return f"{num(change.before)} → {num(change.after)}"


def _graded(value: float | None) -> str:
    return "not graded" if value is None else f"{value:g}"


def render_baseline(diff: BaselineDiff) -> list[str]:
    """``vs baseline: …`` lines, worse first; one line when nothing changed."""
    if diff.unchanged:
        return ["vs baseline: no change (scores, findings, verdicts and tools are the same)"]
    lines = []
    overall = diff.overall
    if overall.before != overall.after:
        lines.append(
            f"vs baseline: overall {_change(overall)}, grade {diff.grade[0]} → {diff.grade[1]}"
        )
    else:
        lines.append(f"vs baseline: overall unchanged at {_graded(overall.after)}")
    for dim in diff.dimensions:
        word = "worse" if dim.worse else "better" if dim.after is not None else "changed"
        lines.append(f"  {word}: {dim.name} {_change(dim)}")
    for tool in diff.new_tools:
        lines.append(f"  new tool: {_safe(tool)}")
    for tool in diff.removed_tools:
        lines.append(f"  removed tool: {_safe(tool)}")
    for f in diff.new_findings:
        lines.append(f"  new finding: {f.severity} {f.code} at {_safe(f.where)}")
    for f in diff.fixed_findings:
        lines.append(f"  fixed finding: {f.severity} {f.code} at {_safe(f.where)}")
    for v in diff.new_failures:
        lines.append(
            f"  new failure: {_safe(v.tool)} {_safe(v.case)}: {v.before or 'new case'} → {v.after}"
        )
    for v in diff.fixed_failures:
        lines.append(
            f"  fixed: {_safe(v.tool)} {_safe(v.case)}: {v.before} → {v.after or 'case gone'}"
        )
    for v in diff.other_verdicts:
        lines.append(
            f"  changed: {_safe(v.tool)} {_safe(v.case)}: {v.before} → {v.after or 'case gone'}"
        )
    return lines
