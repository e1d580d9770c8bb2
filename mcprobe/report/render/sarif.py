"""SARIF 2.1.0 rendering of a ``ConformanceReport``, for code-scanning dashboards.

One SARIF result per lint finding, one per behavioural failure of a fuzz case (a case that is
both silently accepted and leaky yields two results), one per deep finding (``deep.*``), one
per failed resource, prompt, protocol or HTTP check, and one per tool that drifted from the
lock (``report/render/sarif_surface.py``).
``ruleId`` is stable: the lint code (``tool.missing_description``), a behavioural check name
(``behavior.silently_accepted``), a check id (``resources.not_found``) or ``drift.*``.
Every result names the tool (and parameter) as ``logicalLocations``; behavioural results quote
the exact arguments that reproduce them. Rule ids, titles, descriptions and fix texts come from the
verdict catalogue (``core/verdicts.py``), the same words the Markdown report uses.

Physical locations: an MCP server audited over the wire has no source line to point at, and
GitHub code scanning drops results without one. ``artifact_uri`` (CLI ``--sarif-artifact``)
makes every result point at line 1 of that file (for example the repository's ``mcp.json`` or
``README.md``); without it results carry logical locations only.

Pure: no I/O. Target text (tool names, error excerpts) only ever lands in JSON strings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from mcprobe.core.verdicts import VERDICTS, VerdictKind, rule_fix, sarif_verdicts, verdict
from mcprobe.report.deep import finding_fix
from mcprobe.report.model import ConformanceReport, DeepFindingOut, FindingOut, FuzzResultOut
from mcprobe.report.render.json_text import dumps_indented, plain_json
from mcprobe.report.render.sarif_surface import (
    drift_results,
    drift_rules,
    surface_results,
    surface_rules,
)

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/mcprobe-audit/"

_LEVEL_BY_SEVERITY = {"critical": "error", "error": "error", "warning": "warning", "info": "note"}
# GitHub's security-severity bands: critical ≥ 9.0, high 7.0–8.9, medium 4.0–6.9, low < 4.
_SECURITY_SEVERITY = {"critical": "9.5", "error": "7.5", "warning": "5.0", "info": "2.0"}
# The behavioural rules: the catalogue's verdicts that are SARIF results, in catalogue order.
BEHAVIOUR_RULES: tuple[VerdictKind, ...] = tuple(k for k in VERDICTS if k.sarif_id is not None)
_MAX_ARGUMENTS_CHARS = 2000
_MAX_EXCERPT_CHARS = 300
# What ``json.dumps(..., ensure_ascii=False, sort_keys=True, separators=(",", ":"))`` builds on
# every call, built once: SARIF and JUnit quote the arguments of 35,500 calls of 1,000 tools.
_ARGUMENTS_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def behaviour_failures(result: FuzzResultOut) -> tuple[VerdictKind, ...]:
    """The behavioural verdicts (with a SARIF rule) one classified call shows, in catalogue
    order: its stored ``verdicts``, the list every other renderer reads."""
    return tuple(sarif_verdicts(result))


def behavioural_results(report: ConformanceReport) -> tuple[FuzzResultOut, ...]:
    """Every classified call in the report: the fuzz cases, then the unknown-tool probe (once,
    even when the report also lists it among the fuzz cases)."""
    results = list(report.fuzz)
    if report.non_object_probe is not None and not _listed(report.non_object_probe, results):
        results.append(report.non_object_probe)
    probe = report.unknown_tool_probe
    if probe is not None and not _listed(probe, results):
        results.append(probe)
    return tuple(results)


def _listed(result: FuzzResultOut, results: list[FuzzResultOut]) -> bool:
    """``result in results``, comparing whole records only with those of its tool and case
    (an equal record has both): pydantic's ``==`` on each of 35,500 results cost 0.1 s."""
    return any(r == result for r in results if r.case == result.case and r.name == result.name)


def case_param(label: str) -> str | None:
    """The field a case label is about (``wrong_type:a`` → ``a``), if any."""
    _, sep, field = label.partition(":")
    return field if sep and field else None


def arguments_text(arguments: Any) -> str:
    """The arguments exactly as sent, as compact JSON (long ones cut, and said so)."""
    text = _ARGUMENTS_JSON.encode(arguments)
    if len(text) > _MAX_ARGUMENTS_CHARS:
        return text[:_MAX_ARGUMENTS_CHARS] + f"… ({len(text)} characters in all)"
    return text


def excerpt(text: str) -> str:
    """A one-line, bounded excerpt of untrusted text."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_EXCERPT_CHARS else flat[: _MAX_EXCERPT_CHARS - 1] + "…"


# --------------------------------------------------------------------------- rules


def _lint_rules(report: ConformanceReport) -> list[dict[str, Any]]:
    from mcprobe.core.lint.registry import LINT_RULES

    rules: list[dict[str, Any]] = []
    for code, rule in LINT_RULES.items():
        rules.append(
            _rule(
                code,
                title=rule.title,
                summary=rule.summary,
                fix=_first_hint(report, code) or rule.summary,
                level=_LEVEL_BY_SEVERITY[str(rule.severity)],
                tag="security" if code.startswith("security.") else "lint",
                security_severity=_SECURITY_SEVERITY.get(str(rule.severity))
                if code.startswith("security.")
                else None,
            )
        )
    known = set(LINT_RULES)
    extra = sorted({f.code for f in report.findings} - known)
    for code in extra:
        first = next(f for f in report.findings if f.code == code)
        rules.append(
            _rule(
                code,
                title=code,
                summary=excerpt(first.message),
                fix=first.hint,
                level=_LEVEL_BY_SEVERITY[first.severity],
                tag="server",
            )
        )
    return rules


def _first_hint(report: ConformanceReport, code: str) -> str | None:
    return next((f.hint for f in report.findings if f.code == code), None)


def _rule(
    code: str,
    *,
    title: str,
    summary: str,
    fix: str,
    level: str,
    tag: str,
    security_severity: str | None = None,
) -> dict[str, Any]:
    properties: dict[str, Any] = {"tags": ["mcp", tag]}
    if security_severity is not None:
        # GitHub code scanning ranks security alerts by this CVSS-like score.
        properties["security-severity"] = security_severity
    return {
        "id": code,
        # PascalCase of the id; a camelCase part keeps its humps (deep.runtimeError).
        "name": "".join(part[:1].upper() + part[1:] for part in code.replace(".", "_").split("_")),
        "shortDescription": {"text": title},
        "fullDescription": {"text": summary},
        "help": {"text": fix},
        "defaultConfiguration": {"level": level},
        "properties": properties,
    }


def _sarif_id(kind: VerdictKind) -> str:
    assert kind.sarif_id is not None  # BEHAVIOUR_RULES holds only verdicts with a rule
    return kind.sarif_id


def _behaviour_rules() -> list[dict[str, Any]]:
    return [
        _rule(
            _sarif_id(kind),
            title=kind.title,
            summary=kind.summary,
            fix=f"{rule_fix(kind)} {kind.advice}" if kind.advice else rule_fix(kind),
            level=_LEVEL_BY_SEVERITY[kind.severity.value],
            tag="behavior",
        )
        for kind in BEHAVIOUR_RULES
    ]


# --------------------------------------------------------------------------- results


def _finding_locations(server: str, finding: FindingOut) -> list[dict[str, Any]]:
    """A tool (and parameter), else a resource URI or a prompt (and its argument), else the
    server."""
    where = finding.location
    if where.tool is None and where.resource is not None:
        uri = where.resource
        return [{"name": uri, "fullyQualifiedName": f"{server}/{uri}", "kind": "resource"}]
    if where.tool is None and where.prompt is not None:
        fqn = f"{server}/prompts/{where.prompt}"
        locations: list[dict[str, Any]] = [
            {"name": where.prompt, "fullyQualifiedName": fqn, "kind": "function"}
        ]
        if where.param is not None:
            locations.append(
                {
                    "name": where.param,
                    "fullyQualifiedName": f"{fqn}.{where.param}",
                    "kind": "parameter",
                }
            )
        return locations
    return _logical_locations(server, where.tool, where.param)


def _logical_locations(server: str, tool: str | None, param: str | None) -> list[dict[str, Any]]:
    if tool is None:
        return [{"name": server, "fullyQualifiedName": server, "kind": "module"}]
    locations: list[dict[str, Any]] = [
        {"name": tool, "fullyQualifiedName": f"{server}/{tool}", "kind": "function"}
    ]
    if param is not None:
        locations.append(
            {"name": param, "fullyQualifiedName": f"{server}/{tool}.{param}", "kind": "parameter"}
        )
    return locations


def _fingerprint(*parts: str | None) -> str:
    joined = "\x1f".join(part or "" for part in parts)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _finding_fingerprint(finding: FindingOut) -> str:
    where = finding.location
    parts = [finding.code, where.tool, where.param, where.pointer]
    # Appended only when present, so a tool finding keeps the fingerprint it always had.
    if where.resource is not None or where.prompt is not None:
        parts += [where.resource, where.prompt]
    return _fingerprint(*parts)


def _finding_result(server: str, finding: FindingOut) -> dict[str, Any]:
    where = finding.location
    text = finding.message
    if finding.hint:
        text += f" Fix: {finding.hint}"
    return {
        "ruleId": finding.code,
        "level": _LEVEL_BY_SEVERITY[finding.severity],
        "message": {"text": text},
        "logicalLocations": _finding_locations(server, finding),
        "partialFingerprints": {"mcprobeFinding/v1": _finding_fingerprint(finding)},
        "properties": {"pointer": where.pointer} if where.pointer else {},
    }


def _behaviour_message(rule: VerdictKind, result: FuzzResultOut) -> str:
    parts = [
        f"{rule.title}: tool '{result.name}', case {result.case}, outcome {result.outcome}"
        + (f" (code {result.error_code})" if result.error_code is not None else "")
        + f". Reproduce with tools/call name={json.dumps(result.name, ensure_ascii=False)} "
        f"arguments={arguments_text(result.arguments)}."
    ]
    if result.message:
        parts.append(f"Response excerpt (from the target): {excerpt(result.message)}")
    if result.note:
        parts.append(f"mcprobe: {excerpt(result.note)}")
    parts.append(f"Fix: {rule.fix}")
    return " ".join(parts)


def _behaviour_sarif_results(server: str, report: ConformanceReport) -> Iterator[dict[str, Any]]:
    for result in behavioural_results(report):
        for rule in behaviour_failures(result):
            rule_id = _sarif_id(rule)
            param = case_param(result.case)
            yield {
                "ruleId": rule_id,
                "level": _LEVEL_BY_SEVERITY[rule.severity.value],
                "message": {"text": _behaviour_message(rule, result)},
                "logicalLocations": _logical_locations(server, result.name, param),
                "partialFingerprints": {
                    "mcprobeBehaviour/v1": _fingerprint(rule_id, result.name, result.case)
                },
                "properties": {
                    "case": result.case,
                    "outcome": result.outcome,
                    "arguments": result.arguments,
                },
            }


def _deep_message(rule: VerdictKind, tool: str, finding: DeepFindingOut) -> str:
    return " ".join(
        [
            f"{rule.title}: tool '{tool}', field '{finding.field}', edge {finding.edge} (deep "
            f"pass). Reproduce with tools/call name={json.dumps(tool, ensure_ascii=False)} "
            f"arguments={arguments_text(finding.arguments)} (the base "
            f"{arguments_text(finding.base)} with one field changed).",
            f"Response excerpt (from the target): {excerpt(finding.answer)}",
            f"mcprobe: {excerpt(finding.why)}",
            f"Fix: {finding_fix(tool, finding)}",
        ]
    )


def deep_sarif_results(server: str, report: ConformanceReport) -> Iterator[dict[str, Any]]:
    """One result per deep finding (``--deep``): its verdict's rule, the tool and field as the
    location, the exact arguments and the base as properties."""
    if report.deep is None:
        return
    for tool in report.deep.tools:
        for finding in tool.findings:
            rule = verdict(finding.kind)
            rule_id = _sarif_id(rule)
            yield {
                "ruleId": rule_id,
                "level": _LEVEL_BY_SEVERITY[rule.severity.value],
                "message": {"text": _deep_message(rule, tool.tool, finding)},
                "logicalLocations": _logical_locations(server, tool.tool, finding.field),
                "partialFingerprints": {
                    "mcprobeDeep/v1": _fingerprint(rule_id, tool.tool, finding.label)
                },
                "properties": {
                    "case": finding.label,
                    "oracle": finding.oracle,
                    "edge": finding.edge,
                    "arguments": finding.arguments,
                    "base": finding.base,
                },
            }


def render_sarif(report: ConformanceReport, *, artifact_uri: str | None = None) -> str:
    """The report as a SARIF 2.1.0 log (one run), two-space indented JSON."""
    server = report.server.name or "server"
    rules = _lint_rules(report) + _behaviour_rules() + surface_rules() + drift_rules()
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [_finding_result(server, f) for f in report.findings]
    behaviour = list(_behaviour_sarif_results(server, report))
    results.extend(behaviour)
    deep = list(deep_sarif_results(server, report))
    results.extend(deep)
    results.extend(surface_results(server, report, _fingerprint))
    results.extend(drift_results(server, report, _fingerprint))
    for result in results:
        result["ruleIndex"] = rule_index[result["ruleId"]]
        if not result["properties"]:
            del result["properties"]
        location: dict[str, Any] = {"logicalLocations": result.pop("logicalLocations")}
        if artifact_uri is not None:
            location["physicalLocation"] = {
                "artifactLocation": {"uri": artifact_uri},
                "region": {"startLine": 1},
            }
        result["locations"] = [location]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mcprobe",
                "version": report.mcprobe_version,
                "semanticVersion": report.mcprobe_version,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "invocations": [{"executionSuccessful": True}],
        "results": results,
        "properties": {
            "server": {"name": report.server.name, "version": report.server.version},
            "overall": report.overall,
            "grade": report.grade,
            "notGraded": report.not_graded,
            "critical": list(report.critical),
        },
    }
    if report.drift is not None and report.drift.server:
        # Identity changes against the lock are shown, not drift: no result, a property.
        run["properties"]["lockIdentityChanges"] = list(report.drift.server)
    if artifact_uri is not None:
        run["artifacts"] = [{"location": {"uri": artifact_uri}}]
    log = {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
    # Everything but the arguments is built here, of plain JSON types (``json_text``).
    if all(plain_json(result["properties"]["arguments"]) for result in behaviour) and all(
        plain_json(r["properties"]["arguments"]) and plain_json(r["properties"]["base"])
        for r in deep
    ):
        return dumps_indented(log) + "\n"
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"
