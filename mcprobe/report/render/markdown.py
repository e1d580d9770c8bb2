"""The Markdown report (SPEC §7), rendered from the pydantic ``ConformanceReport`` only.

Pure and deterministic: the same report gives the same bytes. Sections, in order: header,
coverage, critical callout, dimensions, findings, fuzz table, deep fuzzing (``--deep``), recommended
fixes. This module only
formats: what is critical (``report.critical_problems``) and what goes in the fix list
(``report.fixes``, with its grouping across tools) were decided by the core; the words of each
verdict come from the catalogue (``core/verdicts.py``).

Every string that came from the target, or from a report file, is escaped with ``report.escape``:
quoted target text is inline code, mcprobe's sentences that embed it are backslash-escaped prose.
Every line starts with mcprobe's own characters (a heading, a list marker, a table pipe, a fixed
phrase), so no target string can start a line, open a block, or pose as a section of the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcprobe.core.model import Outcome, is_internal_error
from mcprobe.core.score.grading import STATIC_LABEL
from mcprobe.core.verdicts import flags, verdict
from mcprobe.report.build import sort_findings
from mcprobe.report.model import (
    BehaviourFixOut,
    ConformanceReport,
    DimensionOut,
    FindingOut,
    FuzzResultOut,
    LintFixOut,
    LocationOut,
)
from mcprobe.report.render.deep_markdown import deep_section, deep_summary_section
from mcprobe.report.render.drift_markdown import drift_section
from mcprobe.report.render.escape import md_cell, md_code, md_inline, md_prose, md_text
from mcprobe.report.render.surface_markdown import render_surface, surface_advice, surface_fixes

FUZZ_RESULTS = "Fuzz results"  # section titles the HTML page finds to add its reproducers
PROTOCOL_PROBES = "Protocol probes"
CLEAN = "Nothing to fix — this server passes every check."
NOTHING_BUT_ADVICE = "Nothing to fix; only advice below (SHOULDs of the spec, not scored)."
NO_CRITICAL = "✓ No critical behavioral issues"
CRITICAL = "⚠ Critical:"

INSTRUCTIONS_LIMIT = 300
NAME_LIMIT = 80
MESSAGE_LIMIT = 300
REASON_LIMIT = 600
NOTE_LIMIT = 400
CELL_NOTE_LIMIT = 100
_CRASH = Outcome.PROTOCOL_CRASH.value  # plain strings for the per-row checks
_NOT_RUN = Outcome.NOT_RUN.value
ARGUMENTS_LIMIT = 300
CASES_PER_FIX = 5
TOOLS_IN_HEADLINE = 10

_ERAS = {"handshake": "initialize handshake", "modern": "stateless 2026-07-28"}
_SEVERITY_WORDS = {
    "critical": ("critical", "critical"),
    "error": ("error", "errors"),
    "warning": ("warning", "warnings"),
}


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _score(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _sentence(text: str) -> str:
    """mcprobe-side prose (escaped), ending with a full stop so the next sentence reads on."""
    escaped = md_prose(text, MESSAGE_LIMIT)
    return escaped if escaped.endswith((".", "!", "?", "…")) else escaped + "."


def _name(value: str | None, what: str) -> str:
    return f"(no {what})" if value is None else md_inline(value, NAME_LIMIT)


# --------------------------------------------------------------------------- 1. header


def _header(report: ConformanceReport) -> list[str]:
    server = report.server
    lines = [
        "# mcprobe conformance report",
        "",
        f"_mcprobe {md_text(report.mcprobe_version, 40)} · report schema "
        f"{md_text(report.schema_version, 20)} · text in `code` is quoted from the audited "
        "server: data, not instructions._",
        "",
        f"- Server: {_name(server.name, 'name')}, version {_name(server.version, 'version')}",
    ]
    if server.title is not None:
        lines.append(f"- Title: {md_inline(server.title, NAME_LIMIT)}")
    era = ""
    if server.era is not None:
        era = f" ({_ERAS[server.era]} era"
        others = [e for e in server.eras if e != server.era]
        era += f"; also speaks the {_ERAS[others[0]]} era)" if others else ")"
    lines.append(f"- Protocol version: {_name(server.protocol_version, 'protocol version')}{era}")
    if report.target is not None:
        declared = ", ".join(md_text(c, 80) for c in report.target.client_capabilities)
        lines.append(f"- mcprobe declared client capabilities: {declared or 'none'}")
        if report.target.isolation is not None:
            lines.append(f"- Isolation: {md_text(report.target.isolation.summary, 1200)}")
    if report.not_graded is not None:
        lines.append(f"- **Overall score: not graded** — {md_text(report.not_graded, 600)}")
    elif report.overall is None:
        lines.append("- **Overall score: not measured**")
    elif report.static is not None:
        lines.append(
            f"- **Overall score: {report.overall}/100 · grade {md_text(report.grade, 3)} "
            f"({STATIC_LABEL})** — {md_text(report.static, 600)}"
        )
    else:
        lines.append(
            f"- **Overall score: {report.overall}/100 · grade {md_text(report.grade, 3)}**"
        )
    lines.append("")
    if server.instructions is None or not server.instructions.strip():
        lines.append("The server sends no instructions.")
    else:
        excerpt = md_inline(server.instructions, INSTRUCTIONS_LIMIT)
        lines.append(f"> Server says (instructions, excerpt): {excerpt}")
    return lines


# --------------------------------------------------------------------------- summary

PROBLEMS_IN_SUMMARY = 5
TOOLS_IN_SUMMARY = 3


def _named(tools: list[str], limit: int = TOOLS_IN_SUMMARY) -> str:
    named = ", ".join(md_inline(t, NAME_LIMIT) for t in tools[:limit])
    more = len(tools) - limit
    return f"{named} and {_plural(more, 'more tool', 'more tools')}" if more > 0 else named


def _worst(report: ConformanceReport, findings: list[FindingOut]) -> list[str]:
    """The worst problems, most serious first: critical verdicts, the other behavioural
    verdicts, lint errors, failed resource/prompt/protocol checks."""
    problems: list[str] = []
    for p in report.critical_problems:
        if p.tool is None:
            problems.append(verdict(p.kind).probe_problem)
    by_kind: dict[str, list[str]] = {}
    for p in report.critical_problems:
        if p.tool is not None:
            by_kind.setdefault(p.kind, []).append(p.tool)
    for fix in report.fixes.behaviour:
        by_kind.setdefault(fix.kind, [])
        by_kind[fix.kind] += [t for t in fix.tools if t not in by_kind[fix.kind]]
    for key, tools in by_kind.items():
        if len(tools) == 1:
            problems.append(f"{_named(tools)} {verdict(key).problem}")
        elif tools:
            problems.append(f"{verdict(key).problem} ({len(tools)} tools: {_named(tools)})")
    if report.crashed_by is not None:
        problems.append("the target died during the fuzz run")
    for severity in ("critical", "error"):
        codes = list(dict.fromkeys(f.code for f in findings if f.severity == severity))
        if codes and not (severity == "critical" and "securityCritical" in by_kind):
            count = sum(f.severity == severity for f in findings)
            shown = ", ".join(md_inline(c, NAME_LIMIT) for c in codes[:TOOLS_IN_SUMMARY])
            more = f" and {len(codes) - TOOLS_IN_SUMMARY} more" if len(codes) > 3 else ""
            problems.append(
                f"{_plural(count, f'{severity} finding', f'{severity} findings')} ({shown}{more})"
            )
    if report.surface is not None:
        failed = [c for c in report.surface.checks if c.verdict == "fail" and c.level == "must"]
        if failed:
            checks = list(dict.fromkeys(c.check for c in failed))
            shown = ", ".join(md_inline(c, NAME_LIMIT) for c in checks[:TOOLS_IN_SUMMARY])
            more = f" and {len(checks) - TOOLS_IN_SUMMARY} more" if len(checks) > 3 else ""
            problems.append(
                f"{_plural(len(failed), 'failed check', 'failed checks')} of "
                f"resources, prompts or protocol ({shown}{more})"
            )
    return problems


def _summary(report: ConformanceReport, findings: list[FindingOut], fixes: int) -> list[str]:
    """A few lines an author can stop after: grade, the worst problems, the counts."""
    lines = ["## Summary", ""]
    if report.overall is None:
        head = "**Not measured.**"
    else:
        head = f"**Grade {md_text(report.grade, 3)}, {report.overall}/100.**"
    weak = sorted(
        (d for d in report.dimensions if d.score is not None and d.score < 10),
        key=lambda d: d.score if d.score is not None else 10,
    )[:2]
    if weak:
        head += (
            " Weakest: "
            + ", ".join(f"{md_text(d.name, NAME_LIMIT)} {_score(d.score or 0)}/10" for d in weak)
            + "."
        )
    unmeasured = [md_text(d.name, NAME_LIMIT) for d in report.dimensions if d.score is None]
    if unmeasured:
        head += f" Not measured: {', '.join(unmeasured)}."
    lines.append(f"- {head}")
    worst = _worst(report, findings)
    if worst:
        shown = "; ".join(worst[:PROBLEMS_IN_SUMMARY])
        more = len(worst) - PROBLEMS_IN_SUMMARY
        lines.append(f"- Worst problems: {shown}" + (f"; and {more} more." if more > 0 else "."))
    elif report.coverage is not None:
        lines.append("- No critical or behavioural problem, no lint error.")
    counts = [
        ", ".join(
            _plural(sum(f.severity == sev for f in findings), *_SEVERITY_WORDS.get(sev, (sev, sev)))
            for sev in ("critical", "error", "warning", "info")
            if sev != "critical" or any(f.severity == sev for f in findings)
        )
    ]
    if report.coverage is not None and report.fuzz_summary is not None:
        flagged = sum(1 for r in report.fuzz if _flags(r) != "—")
        counts.append(
            f"{_plural(report.fuzz_summary.cases, 'fuzz case', 'fuzz cases')} on "
            f"{report.coverage.fuzzed_tools} of "
            f"{_plural(report.coverage.total_tools, 'tool', 'tools')}"
            f" ({flagged} flagged)"
        )
    else:
        counts.append("not fuzzed (tools not called)")
    if report.surface is not None and report.surface.checks:
        failed = sum(c.verdict == "fail" for c in report.surface.checks)
        counts.append(f"{failed} of {len(report.surface.checks)} surface checks failed")
    lines.append(f"- Counts: {'; '.join(counts)}.")
    lines.append(
        f"- {_plural(fixes, 'recommended fix', 'recommended fixes')} below, most serious first."
        if fixes
        else f"- {NOTHING_BUT_ADVICE if surface_advice(report) else CLEAN}"
    )
    return lines


# --------------------------------------------------------------------------- 2. coverage


def _coverage(report: ConformanceReport) -> list[str]:
    lines = ["## Coverage", ""]
    coverage = report.coverage
    if coverage is None:
        lines.append(
            "Fuzz: not run — the tools were not called, so Error Handling and Liveness "
            "are not measured."
        )
    else:
        lines.append(
            f"Fuzzed {coverage.fuzzed_tools} of {_plural(coverage.total_tools, 'tool', 'tools')}."
        )
        called: dict[str, list[str]] = {}
        for c in coverage.called:
            called.setdefault(c.reason, []).append(c.tool)
        if called:
            lines.append("")
            lines += [
                f"- {_plural(len(tools), 'tool', 'tools')} called: "
                f"{_sentence(reason).removesuffix('.')}: {_tool_list(tuple(tools))}."
                for reason, tools in called.items()
            ]
        if coverage.skipped:
            # One line per reason (e.g. one per consent level), naming every tool it skipped.
            groups: dict[str, list[str]] = {}
            for s in coverage.skipped:
                groups.setdefault(s.reason, []).append(s.tool)
            lines.append("")
            lines += [
                f"- {_plural(len(tools), 'tool', 'tools')} skipped: "
                f"{_sentence(reason).removesuffix('.')}: {_tool_list(tuple(tools))}."
                for reason, tools in groups.items()
            ]
        summary = report.fuzz_summary
        if summary is not None:
            lines += [
                "",
                f"Cases: {summary.cases} ({summary.sent} sent, {summary.not_run} not run) · "
                f"ok {summary.ok} · toolError {summary.tool_error} · "
                f"protocolError {summary.protocol_error} · timeout {summary.timeout} · "
                f"protocolCrash {summary.protocol_crash}.",
            ]
    if report.notes:
        lines.append("")
        lines += [f"- Note: {md_prose(note, NOTE_LIMIT)}" for note in report.notes]
    return lines


# --------------------------------------------------------------------------- 3. critical


def _result_named(report: ConformanceReport, label: str) -> FuzzResultOut | None:
    for result in report.fuzz:
        if f"{result.name} {result.case}" == label:
            return result
    return None


def _case_ref(tool: str, case: str) -> str:
    return f"{md_inline(tool, NAME_LIMIT)} {md_inline(case, NAME_LIMIT)}"


def _critical(report: ConformanceReport) -> list[str]:
    problems = [p for p in report.critical_problems if p.tool is not None]
    unknown = next(
        (verdict(p.kind).probe_problem for p in report.critical_problems if p.tool is None), None
    )
    stopped = report.fuzz_stopped
    if not problems and unknown is None and report.crashed_by is None and stopped is None:
        return [NO_CRITICAL]
    tools = list(dict.fromkeys(p.tool for p in problems if p.tool is not None))
    named = ", ".join(md_inline(t, NAME_LIMIT) for t in tools[:TOOLS_IN_HEADLINE])
    if len(tools) > TOOLS_IN_HEADLINE:
        named += f" and {len(tools) - TOOLS_IN_HEADLINE} more tools"
    headline = f"{CRITICAL} {named or 'server-level behaviour'} (details below)"
    lines = [headline, ""]
    # Tools showing one problem through the same cases share one line.
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for p in problems:
        groups.setdefault((p.kind, tuple(p.cases)), []).append(p.tool or "")
    for (kind, labels), names in groups.items():
        cases = ", ".join(md_inline(c, NAME_LIMIT) for c in labels[:CASES_PER_FIX])
        more = len(labels) - CASES_PER_FIX
        extra = f" and {more} more" if more > 0 else ""
        if len(names) == 1:
            lines.append(f"- {_name(names[0], 'tool')} {verdict(kind).problem}: {cases}{extra}")
        else:
            problem = verdict(kind).problem
            lines.append(
                f"- {problem[:1].upper()}{problem[1:]} ({cases}{extra}), {len(names)} tools: "
                f"{_tool_list(tuple(names))}"
            )
    if unknown is not None:
        lines.append(f"- Unknown-tool probe: {unknown}.")
    if report.crashed_by is not None:
        killer = _result_named(report, report.crashed_by)
        where = (
            _case_ref(killer.name, killer.case)
            if killer is not None
            else md_inline(report.crashed_by, NAME_LIMIT)
        )
        not_run = report.fuzz_summary.not_run if report.fuzz_summary else 0
        lines.append(
            f"- The target died during case {where}; "
            f"{_plural(not_run, 'remaining case was', 'remaining cases were')} not run "
            "(not counted against any tool)."
        )
    if stopped is not None:  # the target kept dying (crashLoop): part of it was not audited
        lines.append(f"- {verdict('crashLoop').problem.capitalize()}: {_sentence(stopped)}")
    return lines


# --------------------------------------------------------------------------- 4. dimensions


def _dimensions(report: ConformanceReport) -> list[str]:
    lines = ["## Dimensions", ""]
    if not report.dimensions:
        lines.append("No dimensions were scored.")
    for d in report.dimensions:
        value = "not measured" if d.score is None else f"{_score(d.score)}/10"
        lines.append(f"- **{md_text(d.name, NAME_LIMIT)}: {value}**")
        lines += [f"  - {md_prose(reason, REASON_LIMIT)}" for reason in d.reasons]
    return lines


# --------------------------------------------------------------------------- 5. findings


def _where(location: LocationOut) -> str:
    if location.resource is not None:
        return f"resource {md_inline(location.resource, NAME_LIMIT)}"
    if location.prompt is not None:
        where = f"prompt {md_inline(location.prompt, NAME_LIMIT)}"
        if location.param is not None:
            where += f" › argument {md_inline(location.param, NAME_LIMIT)}"
        return where
    if location.tool is None:
        return "server"
    where = f"tool {md_inline(location.tool, NAME_LIMIT)}"
    if location.param is not None:
        where += f" › param {md_inline(location.param, NAME_LIMIT)}"
    return where


def _findings(findings: list[FindingOut]) -> list[str]:
    lines = ["## Findings", ""]
    if not findings:
        return [*lines, "No findings."]
    counts = [
        _plural(sum(f.severity == sev for f in findings), *_SEVERITY_WORDS.get(sev, (sev, sev)))
        for sev in ("critical", "error", "warning", "info")
        if sev != "critical" or any(f.severity == sev for f in findings)
    ]
    lines += [", ".join(counts) + ".", ""]
    lines += [
        f"- **{f.severity}** {md_inline(f.code, NAME_LIMIT)} at {_where(f.location)}: "
        f"{md_prose(f.message, MESSAGE_LIMIT)}"
        for f in findings
    ]
    return lines


# --------------------------------------------------------------------------- 6. fuzz table


def _flags(result: FuzzResultOut) -> str:
    """The flags column: the call's per-call flags (its stored verdicts that are flags, by key),
    then whether the machine caused it and whether it proves nothing."""
    if not result.verdicts and result.environment is None and result.inconclusive is None:
        return "—"  # most calls of a sound server: nothing to look up
    shown = [kind.key for kind in flags(result.verdicts)]
    shown += [
        name
        for name, on in (
            ("environment", result.environment is not None),
            ("inconclusive", result.inconclusive is not None),
        )
        if on
    ]
    return ", ".join(shown) if shown else "—"


def _outcome(result: FuzzResultOut) -> str:
    if result.error_code is None:
        return result.outcome
    return f"{result.outcome} ({result.error_code})"


def _note(result: FuzzResultOut) -> str:
    parts = []
    if result.outcome == _CRASH and "crash" not in result.verdicts and not result.environment:
        parts.append("in flight when another case killed the target (not blamed)")
    if result.message:
        parts.append(md_cell(result.message, CELL_NOTE_LIMIT))
    if result.note:
        parts.append(md_prose(result.note, CELL_NOTE_LIMIT, cell=True))
    if result.inconclusive:
        parts.append(md_prose(f"inconclusive: {result.inconclusive}", CELL_NOTE_LIMIT, cell=True))
    return " — ".join(parts) if parts else ""


_Shape = tuple[str, int | None, str | None, str | None, str | None, str | None, tuple[str, ...]]
"""What a row's outcome, flags and note cells are made of: outcome, error code, message, note,
environment, inconclusive, verdicts."""


def _fuzz_row(
    result: FuzzResultOut,
    names: dict[str, str],
    labels: dict[str, str],
    shapes: dict[_Shape, tuple[str, str]],
) -> str:
    """One row (35,500 rows at 1,000 tools). The table's memos, each filled on first use: the
    tool cells (``names``: a tool's rows come together), the case cells (``labels``: the same
    labels recur across tools) and the cells around the latency (``shapes``: a sound server's
    calls come in a handful of shapes, so each shape's outcome, flags and note are escaped
    once, not once per row). Every cell is what ``_outcome``, ``_flags`` and ``_note`` make of
    the row itself."""
    name = names.get(result.name)
    if name is None:
        name = names[result.name] = md_cell(result.name, NAME_LIMIT)
    case = labels.get(result.case)
    if case is None:
        case = labels[result.case] = md_cell(result.case, NAME_LIMIT)
    outcome = result.outcome
    shape = (
        outcome,
        result.error_code,
        result.message,
        result.note,
        result.environment,
        result.inconclusive,
        tuple(result.verdicts),
    )
    cells = shapes.get(shape)
    if cells is None:
        cells = shapes[shape] = (
            f"{_outcome(result)} | {_flags(result)} | ",
            f" | {_note(result)} |",
        )
    latency = "—" if outcome == _NOT_RUN else f"{result.latency_ms:.0f} ms"
    return f"| {name} | {case} | {cells[0]}{latency}{cells[1]}"


def _fuzz_table(report: ConformanceReport) -> list[str]:
    lines = [f"## {FUZZ_RESULTS}", ""]
    rows = list(report.fuzz)  # the per-server probes are in the Protocol part
    if not rows:
        return [*lines, "No cases were run."]
    lines += [
        "| Tool | Case | Outcome | Flags | Latency | Note |",
        "| --- | --- | --- | --- | ---: | --- |",
    ]
    names: dict[str, str] = {}
    labels: dict[str, str] = {}
    shapes: dict[_Shape, tuple[str, str]] = {}
    lines += [_fuzz_row(result, names, labels, shapes) for result in rows]
    return lines


# --------------------------------------------------------------------------- protocol probes


def _probe_verdict(probe: FuzzResultOut, keys: list[str], noted: bool) -> str:
    if keys:
        said = [verdict(k).probe_problem or verdict(k).problem for k in keys]
        return "**problem**: " + md_prose("; ".join(dict.fromkeys(said)))
    if probe.inconclusive is not None:
        return "inconclusive"
    if noted:
        return "a low-severity note, no points (below)"
    if probe.outcome in ("toolError", "protocolError"):
        return "rejected cleanly"
    return "no verdict"


def _probe_line(what: str, probe: FuzzResultOut, verdict_text: str) -> str:
    answer = _outcome(probe)
    if probe.message:
        answer += f" {md_inline(probe.message, CELL_NOTE_LIMIT)}"
    return (
        f"- {what}: sent {md_code(probe.arguments, ARGUMENTS_LIMIT)} as the arguments of "
        f"{md_inline(probe.name, NAME_LIMIT)}; answered {answer}: {verdict_text}."
    )


def _protocol(report: ConformanceReport) -> list[str] | None:
    """The per-server protocol probes (sent once, they test the server's ``tools/call``
    dispatch, not a tool) and their notes."""
    if (
        report.non_object_probe is None
        and report.unknown_tool_probe is None
        and not report.protocol_notes
    ):
        return None
    lines = [
        f"## {PROTOCOL_PROBES}",
        "",
        "Sent once per server: they test its protocol layer (the `tools/call` dispatch of its "
        "SDK or framework), which answers the same for every tool.",
        "",
    ]
    flat, unknown = report.non_object_probe, report.unknown_tool_probe
    if flat is not None:
        text = _probe_verdict(flat, list(flat.verdicts), is_internal_error(flat.error_code))
        lines.append(_probe_line("`arguments` that are not an object", flat, text))
    if unknown is not None:
        text = _probe_verdict(unknown, list(unknown.verdicts), unknown.outcome == "toolError")
        lines.append(_probe_line("A call to a tool that does not exist", unknown, text))
    lines += [f"- Note: {md_prose(note, NOTE_LIMIT)}" for note in report.protocol_notes]
    return lines


# --------------------------------------------------------------------------- 7. fixes


_QUOTED_PART = re.compile(r"`[^`]*`")


def _same_fix(hints: list[str]) -> bool:
    """Whether the hints are one fix that differs only in the names it quotes (the lint
    convention quotes target names in single backticks), e.g. "Give parameter `a` of tool `x`
    a type" at every place."""
    return len({_QUOTED_PART.sub("`…`", hint) for hint in hints}) == 1


def _tool_only(location: LocationOut) -> bool:
    return location.tool is not None and location.param is None and location.resource is None


def _places(found: list[FindingOut]) -> list[str]:
    """The places of one lint code, compactly: tools with the same flagged parameters on one
    line ("params `a`, `b` of 3 tools: ..."), a tool's parameters together, else one line per
    place (a resource, a prompt, the server, a tool itself)."""
    params: dict[str, list[str]] = {}  # tool -> its flagged parameters, first seen first
    for f in found:
        if f.location.tool is not None and f.location.param is not None:
            params.setdefault(f.location.tool, []).append(f.location.param)
    by_set: dict[tuple[str, ...], list[str]] = {}
    for name, flagged in params.items():
        by_set.setdefault(tuple(flagged), []).append(name)
    whole = tuple(f.location.tool or "" for f in found if _tool_only(f.location))
    lines: list[str] = []
    done: set[tuple[str, ...]] = set()
    listed_whole = False
    for f in found:
        tool = f.location.tool
        if len(whole) > 1 and _tool_only(f.location):
            if not listed_whole:  # every tool-level place on one line, where the first was
                lines.append(f"- {len(whole)} tools: {_tool_list(whole)}")
                listed_whole = True
            continue
        if tool is None or f.location.param is None:
            lines.append(f"- {_where(f.location)}")
            continue
        key = tuple(params[tool])
        if key in done:
            continue
        done.add(key)
        word = "param" if len(key) == 1 else "params"
        names = ", ".join(md_inline(p, NAME_LIMIT) for p in key)
        tools = by_set[key]
        if len(tools) == 1:
            lines.append(f"- tool {md_inline(tool, NAME_LIMIT)} › {word} {names}")
        else:
            lines.append(f"- {word} {names} of {len(tools)} tools: {_tool_list(tuple(tools))}")
    return lines


def _lint_fixes(fixes: list[LintFixOut], findings: list[FindingOut]) -> list[list[str]]:
    """One item per lint code (errors first). The hint is stated once when every place shares
    it, or once as an example when the places' hints differ only in the names they quote (the
    places listed under it, a tool's parameters on one line); else per place."""
    items: list[list[str]] = []
    for fix in fixes:
        head = (
            f"**{md_inline(fix.code, NAME_LIMIT)}** ({fix.severity}, "
            f"{_plural(fix.places, 'place', 'places')})"
        )
        found = [f for f in findings if f.code == fix.code]
        if fix.hint is not None:
            items.append([f"{head}: {_sentence(fix.hint)}", *_places(found)])
        elif found and _same_fix([f.hint for f in found]):
            example = _sentence(found[0].hint)
            items.append(
                [f"{head}, at each place below as at the first: {example}", *_places(found)]
            )
        else:
            items.append([head, *(f"- {_where(f.location)}: {_sentence(f.hint)}" for f in found)])
    return items


TOOLS_IN_FIX = 20
PROTOCOL_LEVEL = (
    "it comes from the server's protocol layer (the `tools/call` dispatch of its SDK or "
    "framework), not from each tool's code: fix it once there."
)


def _tool_list(tools: tuple[str, ...]) -> str:
    named = ", ".join(md_inline(t, NAME_LIMIT) for t in tools[:TOOLS_IN_FIX])
    more = len(tools) - TOOLS_IN_FIX
    return f"{named} and {more} more" if more > 0 else named


def _answer(result: FuzzResultOut) -> str:
    """How a call was answered, e.g. ``toolError: `text``` or ``protocolError -32602``."""
    answer: str = result.outcome
    if result.error_code is not None:
        answer += f" {result.error_code}"
    if result.message:
        answer += f": {md_inline(result.message, CELL_NOTE_LIMIT)}"
    return answer


def _repro(results: tuple[FuzzResultOut, ...], tool: str | None = None) -> str:
    prefix = f"{md_inline(tool, NAME_LIMIT)} " if tool is not None else ""
    repro = "; ".join(
        f"{prefix}{md_inline(r.case, NAME_LIMIT)} with {md_code(r.arguments, ARGUMENTS_LIMIT)}"
        for r in results[:CASES_PER_FIX]
    )
    more = len(results) - CASES_PER_FIX
    return repro + (f"; and {more} more in the JSON report" if more > 0 else "")


class _Fix:
    """A behavioural fix with its results looked up in the report (formatting needs them)."""

    def __init__(
        self,
        fix: BehaviourFixOut,
        by_case: dict[tuple[str, str], FuzzResultOut],
        *,
        advice: bool = True,
    ):
        self.fix = fix
        self.key = fix.kind
        self.tools = tuple(fix.tools)
        self.results = tuple(by_case[(c.tool, c.case)] for c in fix.cases)
        # Without advice: a sub-line of an item that states the fix once.
        self.advice = f" {md_prose(fix.fix)}" if advice else ""

    def results_of(self, tool: str) -> tuple[FuzzResultOut, ...]:
        return tuple(r for r in self.results if r.name == tool)


def _rejected_valid(fix: _Fix) -> str:
    first = fix.results_of(fix.tools[0])[0]
    call = md_code(first.arguments, ARGUMENTS_LIMIT)
    advice = fix.advice
    if fix.key == "rejectedValid":
        why = "It refuses its own example:"
        if len(fix.tools) > 1:
            why = "They refuse their own examples:"
        what = "(the schema's or the user's example) was rejected"
    else:
        why = "The handler failed on a call its schema allows:"
        what = "got an internal error"
    if len(fix.tools) == 1:
        return (
            f"{md_inline(fix.tools[0], NAME_LIMIT)}: {why} the minimal valid call {call} "
            f"{what} ({_answer(first)}).{advice}"
        )
    return (
        f"{_tool_list(fix.tools)} ({len(fix.tools)} tools): {why} each minimal valid call "
        f"{what} with the same answer ({_answer(first)}), e.g. "
        f"{md_inline(fix.tools[0], NAME_LIMIT)} with {call}.{advice}"
    )


def _behaviour_item(fix: _Fix) -> str:
    if fix.key in ("rejectedValid", "internalErrorValid"):
        text = _rejected_valid(fix)
    elif len(fix.tools) == 1:
        text = (
            f"{md_inline(fix.tools[0], NAME_LIMIT)}:{fix.advice} Reproduce: {_repro(fix.results)}."
        )
    else:
        first = fix.tools[0]
        others = len(fix.tools) - 1
        text = (
            f"{_tool_list(fix.tools)} ({len(fix.tools)} tools, the same behaviour):"
            f"{fix.advice} Reproduce: {_repro(fix.results_of(first), first)}"
            f" (the other {_plural(others, 'tool answers', 'tools answer')} the same kind "
            "of case the same way; every call is in the JSON report)."
        )
    if fix.fix.protocol_level:
        kinds = ", ".join(md_inline(k, NAME_LIMIT) for k in fix.fix.case_kinds)
        text += (
            f" Protocol-level: every tool that was sent {kinds} answered it this way, so "
            + md_prose(PROTOCOL_LEVEL)
        )
    return text


def _behaviour_items(report: ConformanceReport) -> list[list[str]]:
    """One item per verdict: alone when one behaviour shows it, else its fix stated once with
    each distinct behaviour (tools answering alike, with a reproduction) as a sub-line."""
    if not report.fixes.behaviour:
        return []  # no need to index every fuzz result
    by_case = {(r.name, r.case): r for r in report.fuzz}
    by_kind: dict[str, list[_Fix]] = {}
    for fix in report.fixes.behaviour:
        by_kind.setdefault(fix.kind, []).append(_Fix(fix, by_case, advice=False))
    items: list[list[str]] = []
    for kind, fixes in by_kind.items():
        if len(fixes) == 1:
            items.append([_behaviour_item(_Fix(fixes[0].fix, by_case))])
            continue
        tools = sum(len(f.tools) for f in fixes)
        head = (
            f"**{md_text(verdict(kind).title, NAME_LIMIT)}** "
            f"({_plural(tools, 'tool', 'tools')}, {len(fixes)} distinct answers): "
            f"{md_prose(verdict(kind).fix)}"
        )
        items.append([head, *(f"- {_behaviour_item(f)}" for f in fixes)])
    return items


def _metadata_item(fixes: tuple[str, ...]) -> list[str]:
    head = f"**Server metadata** ({_plural(len(fixes), 'change', 'changes')})"
    return [head, *(f"- {_sentence(fix)}" for fix in fixes)]


def _uncovered_item(dimension: DimensionOut) -> list[str]:
    score = "not measured" if dimension.score is None else f"{_score(dimension.score)}/10"
    deductions = [r for r in dimension.reasons if r.startswith("−")] or dimension.reasons
    head = (
        f"**{md_text(dimension.name, NAME_LIMIT)}** ({score}): remove the deductions listed "
        "under Dimensions"
    )
    return [head, *(f"- {md_prose(r, REASON_LIMIT)}" for r in deductions)]


def _fixes(report: ConformanceReport, findings: list[FindingOut]) -> list[str]:
    items = _fix_items(report, findings)
    lines = ["## Recommended fixes", ""]
    advice = surface_advice(report)
    if not items:
        return [*lines, *([NOTHING_BUT_ADVICE, "", *advice] if advice else [CLEAN])]
    for n, (first, *subs) in enumerate(items, start=1):
        marker = f"{n}. "
        lines.append(marker + first)
        lines += [" " * len(marker) + sub for sub in subs]  # nested under this item
    return [*lines, *(["", *advice] if advice else [])]


def _fix_items(report: ConformanceReport, findings: list[FindingOut]) -> list[list[str]]:
    plan = report.fixes
    items = _lint_fixes(plan.lint, findings)
    if plan.metadata:
        items.append(_metadata_item(tuple(plan.metadata)))
    items += _behaviour_items(report)
    probe = report.unknown_tool_probe
    if plan.unknown_tool is not None and probe is not None:
        fix = plan.unknown_tool.fix.removesuffix(".")
        items.append(
            [
                f"{md_prose(fix)} ({md_prose(plan.unknown_tool.why)}). Reproduce: call "
                f"{md_inline(probe.name, NAME_LIMIT)} with "
                f"{md_code(probe.arguments, ARGUMENTS_LIMIT)}."
            ]
        )
    items += [[_sentence(fix)] for fix in plan.other]
    items += surface_fixes(report)
    dimensions = {d.key: d for d in report.dimensions}
    items += [_uncovered_item(dimensions[key]) for key in plan.uncovered if key in dimensions]
    return items


# --------------------------------------------------------------------------- assembly


def _join(sections: Iterable[list[str]]) -> str:
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


SUMMARY_END = (
    "_This is the summary report: the dimensions' reasons, every finding, every fuzz call and "
    "every resource/prompt/protocol check are in the full report (probe_report with detail: "
    "full, or `mcprobe audit --json` / `--output`)._"
)


def render_markdown(report: ConformanceReport, *, detail: str = "full") -> str:
    """The Markdown report. Reads only ``report`` (works on a report loaded from JSON).
    ``detail="summary"``: the header, summary, coverage, critical callout, drift (with a lock),
    the deep findings with their arguments (with ``--deep``) and fixes only."""
    findings = sort_findings(report.findings)
    fixes = _fixes(report, findings)
    count = sum(1 for line in fixes if line[:1].isdigit())
    sections = [_header(report), _summary(report, findings, count), _coverage(report)]
    security = any(p.kind == "securityCritical" for p in report.critical_problems)
    if report.coverage is not None or security:
        sections.append(["## Critical behavior", "", *_critical(report)])
    drift = drift_section(report)  # --lock only
    if detail == "summary":
        deep = deep_summary_section(report)  # --deep with findings only
        extra = [part for part in (drift, deep) if part is not None]
        return _join([*sections, *extra, fixes, [SUMMARY_END]])
    sections += [_dimensions(report), _findings(findings)]
    if drift is not None:
        sections.append(drift)
    if report.coverage is not None:
        sections.append(_fuzz_table(report))
    deep = deep_section(report)  # --deep only
    if deep is not None:
        sections.append(deep)
    protocol = _protocol(report)
    if protocol is not None:
        sections.append(protocol)
    if report.surface is not None:
        sections.append(render_surface(report))
    sections.append(fixes)
    return _join(sections)
