"""Audit mcprobe with mcprobe: its own stdio MCP server as the target, fuzz on (every tool,
destructive ones included: mcprobe's tools only touch targets it is told to start).

Prints one summary line per fact and exits 1 when any malformed case was silently accepted or a
call timed out or crashed. Used by ``scripts/self_audit``; ``--json`` prints the full report.
"""

from __future__ import annotations

import sys

import anyio

from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport


def self_spec() -> TargetSpec:
    return TargetSpec(
        "stdio",
        command=sys.executable,
        args=("-m", "mcprobe.server.app"),
        connect_timeout=30.0,
        call_timeout=10.0,
    )


async def self_audit() -> ConformanceReport:
    request = AuditRequest(self_spec(), fuzz_destructive=True, overall_timeout=120.0)
    return await audit(request)


def summary(report: ConformanceReport) -> list[str]:
    assert report.fuzz_summary is not None
    fs = report.fuzz_summary
    lines = [
        f"mcprobe on itself: {report.overall}/100, grade {report.grade}",
        f"cases {fs.cases} (sent {fs.sent}): ok {fs.ok}, toolError {fs.tool_error}, "
        f"protocolError {fs.protocol_error}, timeout {fs.timeout}, "
        f"protocolCrash {fs.protocol_crash}; silentlyAccepted {fs.silently_accepted}, "
        f"emptySuccess {fs.empty_success}, outputSchemaViolation {fs.output_schema_violation}, "
        f"leak {fs.leak}",
    ]
    probe = report.unknown_tool_probe
    lines.append(f"unknown-tool probe: {probe.outcome if probe else 'not run'}")
    for dimension in report.dimensions:
        score = "not measured" if dimension.score is None else f"{dimension.score:g}/10"
        lines.append(f"  {dimension.name}: {score}")
    lines += [f"  critical: {line}" for line in report.critical]
    return lines


def main() -> int:
    report = anyio.run(self_audit)
    if "--json" in sys.argv[1:]:
        print(report.model_dump_json(by_alias=True, indent=1))
    for line in summary(report):
        print(line)
    fs = report.fuzz_summary
    bad = fs is None or fs.silently_accepted or fs.timeout or fs.protocol_crash
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
