"""JUnit XML rendering of a ``ConformanceReport``, for CI test dashboards.

One ``<testsuite>`` per audit. Test cases, in order:

- ``server lint`` — server-wide findings (tool-less), failing on any error or warning;
- per tool, ``lint`` — that tool's findings, failing on any error or warning (info findings are
  listed in ``<system-out>``);
- per fuzz case, ``fuzz <label>`` — failing when the call violates a behavioural check
  (``behavior.*``, the SARIF rules of the verdict catalogue ``core/verdicts.py``),
  ``<skipped/>`` when it was not run;
- per tool skipped by the safety rule or ``maxTools``, ``fuzz`` with ``<skipped/>`` and the reason;
- the once-per-server ``fuzz unknown_tool`` probe;
- per deep finding (``--deep``), ``deep <label>`` (``deep:<field>:<edge>``) in its tool's class,
  failing with the verdict's ``deep.*`` rule, the exact arguments, the base and the fix;
- per prompt or resource with findings, ``lint <name>`` in class ``<base>.prompts`` /
  ``<base>.resources``;
- per resource, prompt, protocol or HTTP check and subject, ``<check id> <subject>``: failing when
  the check failed, ``<skipped/>`` when inconclusive or not applicable
  (``report/render/junit_surface.py``);
- with ``--lock``: ``drift against the lock``, and a failing ``drift`` case per drifted tool.

Tools are known only through the report (findings, coverage, fuzz cases): without fuzz, a tool
with no finding has no test case. Everything from the target is hostile: characters that XML 1.0
forbids are replaced by a visible ``\\xNN`` escape, and ElementTree escapes the rest. Pure: no I/O.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from mcprobe.core.verdicts import verdict
from mcprobe.report.deep import finding_fix
from mcprobe.report.model import ConformanceReport, FindingOut, FuzzResultOut
from mcprobe.report.render.junit_surface import JUnitCase, drift_cases, surface_cases
from mcprobe.report.render.sarif import arguments_text, behaviour_failures, excerpt

# XML 1.0 Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
_FORBIDDEN = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry replaced by a visible escape."""
    return _FORBIDDEN.sub(lambda m: _escape_char(m.group()), text)


def _escape_char(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _element(tag: str, parent: ET.Element | None = None, **attrs: str) -> ET.Element:
    safe = {name: xml_safe(value) for name, value in attrs.items()}
    if parent is None:
        return ET.Element(tag, safe)
    return ET.SubElement(parent, tag, safe)


def _seconds(latency_ms: float) -> str:
    return f"{max(latency_ms, 0.0) / 1000:.3f}"


def _tool_order(report: ConformanceReport) -> list[str]:
    names: list[str] = []
    if report.coverage is not None:
        names.extend(report.coverage.fuzzed)
        names.extend(skipped.tool for skipped in report.coverage.skipped)
    names.extend(f.location.tool for f in report.findings if f.location.tool is not None)
    names.extend(result.name for result in report.fuzz)
    return list(dict.fromkeys(names))


def _finding_line(finding: FindingOut) -> str:
    where = finding.location
    place = where.tool or where.prompt or where.resource or "server"
    if where.param:
        place += f".{where.param}"
    return f"[{finding.severity}] {finding.code} at {place}: {finding.message} Fix: {finding.hint}"


def _lint_case(suite: ET.Element, classname: str, name: str, findings: list[FindingOut]) -> None:
    case = _element("testcase", suite, classname=classname, name=name, time="0.000")
    failing = [f for f in findings if f.severity in ("critical", "error", "warning")]
    if failing:
        errors = sum(f.severity in ("critical", "error") for f in failing)
        warnings = len(failing) - errors
        failure = _element(
            "failure",
            case,
            message=f"{errors} error(s), {warnings} warning(s)",
            type=failing[0].code,
        )
        failure.text = xml_safe("\n".join(_finding_line(f) for f in failing))
    infos = [f for f in findings if f.severity == "info"]
    if infos:
        _element("system-out", case).text = xml_safe("\n".join(_finding_line(f) for f in infos))


def _fuzz_case(suite: ET.Element, classname: str, result: FuzzResultOut) -> None:
    case = _element(
        "testcase",
        suite,
        classname=classname,
        name=f"fuzz {result.case}",
        time=_seconds(result.latency_ms),
    )
    detail = [
        f"outcome: {result.outcome}"
        + (f" (code {result.error_code})" if result.error_code is not None else ""),
        f"arguments: {arguments_text(result.arguments)}",
    ]
    if result.message:
        detail.append(f"response excerpt (from the target): {excerpt(result.message)}")
    if result.note:
        detail.append(f"mcprobe: {excerpt(result.note)}")
    if result.outcome == "notRun":
        _element("skipped", case, message=excerpt(result.note or "not run"))
        return
    failed = behaviour_failures(result)
    if failed:
        titles = ", ".join(kind.title for kind in failed)
        failure = _element("failure", case, message=titles, type=str(failed[0].sarif_id))
        fixes = [f"fix: {kind.fix}" for kind in failed]
        failure.text = xml_safe("\n".join(detail + fixes))
    else:
        _element("system-out", case).text = xml_safe("\n".join(detail))


def _deep_cases(suite: ET.Element, base: str, report: ConformanceReport) -> None:
    """One failing ``deep <label>`` case per deep finding (``--deep``), in its tool's class."""
    if report.deep is None:
        return
    for tool in report.deep.tools:
        for finding in tool.findings:
            kind = verdict(finding.kind)
            case = _element(
                "testcase",
                suite,
                classname=f"{base}.{tool.tool}",
                name=f"deep {finding.label}",
                time="0.000",
            )
            failure = _element("failure", case, message=kind.title, type=str(kind.sarif_id))
            failure.text = xml_safe(
                "\n".join(
                    [
                        f"field: {finding.field}, edge: {finding.edge} (oracle {finding.oracle})",
                        f"arguments: {arguments_text(finding.arguments)}",
                        f"base: {arguments_text(finding.base)}",
                        f"response excerpt (from the target): {excerpt(finding.answer)}",
                        f"mcprobe: {excerpt(finding.why)}",
                        f"fix: {finding_fix(tool.tool, finding)}",
                    ]
                )
            )


def _emit(suite: ET.Element, case: JUnitCase) -> None:
    element = _element("testcase", suite, classname=case.classname, name=case.name, time="0.000")
    if case.outcome == "pass":
        if case.text:
            _element("system-out", element).text = xml_safe(case.text)
        return
    child = _element(case.outcome, element, message=case.message, type=case.type)
    if case.text:
        child.text = xml_safe(case.text)


def _surface_lint_key(finding: FindingOut) -> tuple[str, str] | None:
    """``("prompts", name)`` / ``("resources", uri)`` for a tool-less prompt/resource finding."""
    where = finding.location
    if where.tool is not None:
        return None
    if where.prompt is not None:
        return ("prompts", where.prompt)
    if where.resource is not None:
        return ("resources", where.resource)
    return None


def _count(cases: Iterable[ET.Element], child: str) -> int:
    return sum(1 for case in cases if case.find(child) is not None)


def render_junit(report: ConformanceReport) -> str:
    """The report as JUnit XML (``<testsuites>`` with one ``<testsuite>``)."""
    server = report.server.name or "server"
    suite_name = f"mcprobe audit of {server}"
    if report.server.version:
        suite_name += f" {report.server.version}"
    suite = _element("testsuite", name=suite_name)
    properties = _element("properties", suite)
    for name, value in (
        ("mcprobeVersion", report.mcprobe_version),
        ("overall", "" if report.overall is None else str(report.overall)),
        ("grade", report.grade),
        ("notGraded", report.not_graded or ""),
    ):
        _element("property", properties, name=name, value=value)

    base = f"mcprobe.{server}"
    by_tool: dict[str | None, list[FindingOut]] = {}
    by_subject: dict[tuple[str, str], list[FindingOut]] = {}
    for finding in report.findings:
        key = _surface_lint_key(finding)
        if key is not None:
            by_subject.setdefault(key, []).append(finding)
        else:
            by_tool.setdefault(finding.location.tool, []).append(finding)
    _lint_case(suite, base, "server lint", by_tool.get(None, []))
    for tool in _tool_order(report):
        _lint_case(suite, f"{base}.{tool}", "lint", by_tool.get(tool, []))
    for result in report.fuzz:
        _fuzz_case(suite, f"{base}.{result.name}", result)
    if report.coverage is not None:
        for skipped in report.coverage.skipped:
            case = _element("testcase", suite, classname=f"{base}.{skipped.tool}", name="fuzz")
            _element("skipped", case, message=excerpt(skipped.reason))
    probe = report.unknown_tool_probe
    if probe is not None and probe not in report.fuzz:
        _fuzz_case(suite, base, probe)
    _deep_cases(suite, base, report)
    for (area, subject), findings in by_subject.items():
        _lint_case(suite, f"{base}.{area}", f"lint {subject}", findings)
    for extra in [*surface_cases(base, report, excerpt), *drift_cases(base, report)]:
        _emit(suite, extra)

    cases = suite.findall("testcase")
    total_ms = sum(r.latency_ms for r in report.fuzz)
    counts = {
        "tests": str(len(cases)),
        "failures": str(_count(cases, "failure")),
        "errors": "0",
        "skipped": str(_count(cases, "skipped")),
        "time": _seconds(total_ms),
    }
    suite.attrib.update(counts)
    root = ET.Element("testsuites", {"name": "mcprobe", **counts})
    root.append(suite)
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
