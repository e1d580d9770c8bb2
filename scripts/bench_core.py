"""Benchmark the pure pipeline on a synthetic 1,000-tool listing with rich schemas.

Measures CPU time (``time.process_time``, so a noisy shared machine matters less than with wall
time) for lint + case generation + classification of a synthetic fuzz run + score + report
building + Markdown rendering. Goal (issue 2): at most 1 s of CPU for the whole pipeline.

Also prints the same pipeline on a 100-tool listing as an in-run baseline, so the ratio
(1,000 / 100) shows whether the core scales linearly.

    .venv/bin/python scripts/bench_core.py [--tools 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from mcprobe import __version__
from mcprobe.cases import generate_cases
from mcprobe.classify import classify_call
from mcprobe.lint import lint_server
from mcprobe.model import Coverage, FuzzRun, RawCall, RawKind, ServerSnapshot
from mcprobe.render_markdown import render_markdown
from mcprobe.report_build import build_report
from mcprobe.score import score_server


def rich_tool(i: int) -> dict[str, Any]:
    """A tool whose schema exercises most of what the core handles (refs, unions, bounds...).

    Every tool's schema is distinct (names, bounds, enums vary with ``i``), so no cache keyed on
    schema content can make the benchmark look better than a real 1,000-tool server.
    """
    return {
        "name": f"tool_{i}",
        "description": f"Synthetic tool number {i} for benchmarking" if i % 7 else "",
        "annotations": {"readOnlyHint": True} if i % 3 else {},
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                f"query_{i}": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 200 + i,
                    "description": "search text",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 100 + i, "default": 10},
                "mode": {"enum": ["fast", "exact", f"fuzzy{i}"], "description": "match mode"},
                "since": {"type": "string", "format": "date"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "owner": {"$ref": "#/$defs/owner"},
                "id": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[a-z]+$"}]},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "untyped": {},
            },
            "required": [f"query_{i}", "mode", "owner", "tags"],
            "additionalProperties": i % 2 == 0,
            "$defs": {
                "owner": {
                    "type": "object",
                    "description": "who owns it",
                    "properties": {"login": {"type": "string"}, "id": {"type": "integer"}},
                    "required": ["login"],
                }
            },
        },
        "outputSchema": {"type": "object", "properties": {"items": {"type": "array"}}},
    }


def synthetic_result(malformed: bool, i: int) -> RawCall:
    if malformed:
        if i % 2:
            return RawCall(
                RawKind.RESULT,
                12.0,
                {"content": [{"type": "text", "text": "bad"}], "isError": True},
            )
        return RawCall(RawKind.JSONRPC_ERROR, 9.0, None, -32602, "Invalid params")
    return RawCall(
        RawKind.RESULT,
        30.0,
        {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"items": []}},
    )


def pipeline(n: int) -> tuple[float, int, int]:
    tools = tuple(rich_tool(i) for i in range(n))
    snapshot = ServerSnapshot(
        name="bench",
        version="1.0",
        title="Bench",
        protocol_version="2025-11-25",
        instructions="Synthetic server for the core benchmark.",
        capabilities={"tools": {}},
        tools=tools,
    )
    start = time.process_time()
    findings = lint_server(snapshot)
    results = []
    all_cases = []
    for tool in tools:
        tc = generate_cases(tool)
        all_cases.append(tc)
        for j, case in enumerate(tc.cases):
            results.append(classify_call(case, synthetic_result(case.malformed, j), tool))
    fuzz = FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=n, fuzzed_tools=tuple(t["name"] for t in tools), skipped=()),
        tool_cases=tuple(all_cases),
    )
    score = score_server(snapshot, findings, fuzz)
    report = build_report(snapshot, findings, score, fuzz, mcprobe_version=__version__)
    markdown = render_markdown(report)
    elapsed = time.process_time() - start
    return elapsed, len(results), len(markdown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pipeline(10)  # warm imports and caches outside the measurement
    small, large = [], []
    cases = size = 0
    for _ in range(args.repeat):  # alternate, so drift on a shared machine hits both alike
        small.append(pipeline(args.tools // 10)[0])
        t, cases, size = pipeline(args.tools)
        large.append(t)
    med_small, med_large = statistics.median(small), statistics.median(large)
    print(f"tools={args.tools} cases={cases} markdown_chars={size} repeat={args.repeat}")
    print(f"median CPU, {args.tools // 10} tools (baseline): {med_small:.3f} s")
    print(f"median CPU, {args.tools} tools: {med_large:.3f} s  (goal <= 1.000 s)")
    print(
        f"scaling ratio {args.tools}/{args.tools // 10} tools: {med_large / med_small:.1f}x "
        f"(10.0x = linear)"
    )


if __name__ == "__main__":
    main()
