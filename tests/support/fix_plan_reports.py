"""Helpers several test modules share, from tests/report/test_fix_plan.py
(no test module imports another)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcprobe.core.model import (
    CaseResult,
    Coverage,
    Finding,
    FuzzRun,
    Outcome,
    ServerSnapshot,
)
from mcprobe.core.score.dimensions import score_server
from mcprobe.report.build import build_report
from mcprobe.report.model import ConformanceReport
from tests.support import builders
from tests.support.synthetic_audits import result, tool

ZOD_RECORD = '[ { "expected": "record", "code": "invalid_type", "path": [ "params", "arguments" ] }'


EVERYTHING_TOOLS = [f"tool{n}" for n in range(13)]


GOOD_INSTRUCTIONS = "Call lookup with a word; it returns the word's definition from the dictionary."


def server(
    tools: Sequence[str],
    *,
    title: str | None = "A Server",
    instructions: str | None = GOOD_INSTRUCTIONS,
    capabilities: dict[str, Any] | None = None,
    prompts: int | None = None,
    resources: int | None = None,
) -> ServerSnapshot:
    return builders.snapshot(
        [tool(name) for name in tools],
        title=title,
        instructions=instructions,
        capabilities={"tools": {}} if capabilities is None else capabilities,
        prompts_count=prompts,
        resources_count=resources,
    )


def audit(
    snapshot: ServerSnapshot,
    results: Sequence[CaseResult],
    *,
    probe: CaseResult | None = None,
    findings: Sequence[Finding] = (),
) -> ConformanceReport:
    names = tuple(t["name"] for t in snapshot.tools)
    fuzz = FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=len(names), fuzzed_tools=names, skipped=()),
        unknown_tool_probe=probe,
    )
    score = score_server(snapshot, findings, fuzz)
    return build_report(snapshot, findings, score, fuzz, mcprobe_version="0.1.0")


def time_server_report() -> ConformanceReport:
    """mcp-server-time as audited before the name hints: both valid calls rejected."""
    snapshot = server(
        ["get_current_time", "convert_time"],
        title=None,
        instructions=None,
        capabilities={"tools": {}, "prompts": {}, "resources": {}},
        prompts=0,
        resources=0,
    )
    results = [
        result(
            "get_current_time",
            "valid",
            Outcome.TOOL_ERROR,
            {"timezone": "example"},
            message="Invalid timezone: 'No time zone found with key example'",
        ),
        result("get_current_time", "wrong_type:timezone", Outcome.TOOL_ERROR, {"timezone": 1}),
        result(
            "convert_time",
            "valid",
            Outcome.TOOL_ERROR,
            {"source_timezone": "example", "time": "example", "target_timezone": "example"},
            message="Invalid time format. Expected HH:MM [24-hour format]",
        ),
        result(
            "convert_time", "non_object_arguments", Outcome.PROTOCOL_ERROR, [], error_code=-32602
        ),
    ]
    return audit(snapshot, results, probe=rejected_probe())


def everything_report() -> ConformanceReport:
    """server-everything's shape: every tool fine, but every tool answers non-object arguments
    with the same internal error from the SDK's dispatch."""
    results = [
        r
        for name in EVERYTHING_TOOLS
        for r in (
            result(name, "valid", Outcome.OK, {}, message="fine"),
            result(
                name,
                "non_object_arguments",
                Outcome.PROTOCOL_ERROR,
                [],
                error_code=-32603,
                message=ZOD_RECORD,
            ),
        )
    ]
    return audit(server(EVERYTHING_TOOLS), results, probe=rejected_probe())


def rejected_probe() -> CaseResult:
    return result(
        "mcprobe_nonexistent_tool", "unknown_tool", Outcome.PROTOCOL_ERROR, {}, error_code=-32602
    )
