"""The "Deep fuzzing" Markdown section (``--deep``, issue 25): the seed and how to reproduce the
run, then per tool its base, its edge counts and each finding with the exact arguments, the
server's answer and the fix. Pure; reads only the report's ``deep``.

Target text (tool names, fields, answers, argument values) is escaped as everywhere in the
Markdown report (``report.escape``); the arguments are a fenced JSON block of ASCII JSON, whose
every line starts with an indent, a bracket or a quote, so no value can close the fence.
"""

from __future__ import annotations

import json

from mcprobe.core.deep.describe import edge_phrase
from mcprobe.core.verdicts import verdict
from mcprobe.report.deep import finding_fix
from mcprobe.report.model import ConformanceReport, DeepFindingOut, DeepOut, DeepToolOut
from mcprobe.report.render.escape import cut_json, md_code, md_inline, md_prose, md_text

__all__ = ["DEEP_FUZZING", "deep_section", "deep_summary_section"]

DEEP_FUZZING = "Deep fuzzing"
NAME_LIMIT = 80
ANSWER_LIMIT = 300
WHY_LIMIT = 400
BASE_LIMIT = 300
BLOCK_LIMIT = 2000
_INDENT = "  "  # a finding's lines, nested under its list item


def _sentence(text: str) -> str:
    escaped = md_prose(text, WHY_LIMIT)
    return escaped if escaped.endswith((".", "!", "?", "…")) else escaped + "."


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _json_block(value: object) -> list[str]:
    text = json.dumps(value, indent=2, ensure_ascii=True, default=repr)
    if len(text) > BLOCK_LIMIT:
        text = cut_json(json.dumps(value, ensure_ascii=True, default=repr), BLOCK_LIMIT)
        text += f" … (cut; {len(json.dumps(value, default=repr))} characters in the JSON report)"
    return ["```json", *text.splitlines(), "```"]


def _head(deep: DeepOut) -> list[str]:
    tools = len(deep.tools)
    found = len(deep.findings)
    line = (
        f"Seed {deep.seed} (the same seed sends the same calls: {md_inline(deep.reproduce, 200)}). "
        f"{_plural(deep.sent, 'schema-valid edge call', 'schema-valid edge calls')} on "
        f"{_plural(tools, 'tool', 'tools')}: {_plural(found, 'finding', 'findings')}."
    )
    if deep.budget_seconds is not None:
        line += f" Time budget {deep.budget_seconds:g} s"
        line += ": hit, so some edges were not sent." if deep.budget_hit else ", not hit."
    lines = [line]
    if deep.skipped:
        lines.append("")
        lines += [
            f"- Not deep-fuzzed: {md_inline(s.tool, NAME_LIMIT)}: {_sentence(s.reason)}"
            for s in deep.skipped
        ]
    return lines


def _tool_line(tool: DeepToolOut) -> str:
    line = (
        f"Base ({tool.base_source}): {md_code(tool.base, BASE_LIMIT)} · "
        f"{tool.planned} edges planned, {tool.sent} sent"
    )
    if tool.dropped:
        line += f", {tool.dropped} more proposed but refused by the declared schema"

    if tool.stopped:
        line += f" · stopped early: {md_prose(tool.stopped, WHY_LIMIT)}"
    if tool.note:
        line += f" · {md_prose(tool.note, WHY_LIMIT)}"
    return line + "."


def _finding(tool: str, finding: DeepFindingOut) -> list[str]:
    title = md_text(verdict(finding.kind).title, NAME_LIMIT)
    head = (
        f"- **{title}** (`{finding.kind}`): field {md_inline(finding.field, NAME_LIMIT)}, edge "
        f"{md_inline(finding.edge, NAME_LIMIT)} ({md_prose(edge_phrase(finding.edge))}); the "
        "exact arguments:"
    )
    body = [
        "",
        *_json_block(finding.arguments),
        "",
        f"Base: {md_code(finding.base, BASE_LIMIT)}. Answer: "
        f"{md_inline(finding.answer, ANSWER_LIMIT)}. Why: {_sentence(finding.why)}",
        "",
        f"Fix: {md_prose(finding_fix(tool, finding))}",
    ]
    return [head, *(f"{_INDENT}{line}" if line else "" for line in body)]


def deep_section(report: ConformanceReport) -> list[str] | None:
    """None without a deep run; else the section, grouped per tool."""
    deep = report.deep
    if deep is None:
        return None
    lines = [f"## {DEEP_FUZZING}", "", *_head(deep)]
    for tool in deep.tools:
        lines += ["", f"### {md_inline(tool.tool, NAME_LIMIT)}", "", _tool_line(tool)]
        if not tool.findings:
            lines += ["", "No finding."]
            continue
        for finding in tool.findings:
            lines += ["", *_finding(tool.tool, finding)]
    return lines


def deep_summary_section(report: ConformanceReport) -> list[str] | None:
    """The summary report's deep lines (``detail: summary``): the seed and one line per finding
    with its minimal reproduction (the tool, the exact arguments); None without a deep run or
    without findings (the seed and the counts are in the dimensions' reasons then)."""
    deep = report.deep
    if deep is None or not deep.findings:
        return None
    lines = [f"## {DEEP_FUZZING}", "", *_head(deep), ""]
    for tool in deep.tools:
        for finding in tool.findings:
            title = md_text(verdict(finding.kind).title, NAME_LIMIT)
            field = md_inline(finding.field, NAME_LIMIT)
            edge = md_inline(finding.edge, NAME_LIMIT)
            lines.append(
                f"- {md_inline(tool.tool, NAME_LIMIT)}: **{title}** (`{finding.kind}`), field "
                f"{field}, edge {edge}: {md_code(finding.arguments, BASE_LIMIT)}"
            )
    return lines
