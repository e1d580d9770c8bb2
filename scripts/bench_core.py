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
from mcprobe.core.calls.classify import classify_call
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.lint.engine import lint_server
from mcprobe.core.model import Coverage, FuzzRun, RawCall, RawKind, ServerSnapshot
from mcprobe.core.schema.dialect import forget_schemas
from mcprobe.core.score.dimensions import score_server
from mcprobe.report.build import build_report
from mcprobe.report.render.escape import forget_escapes
from mcprobe.report.render.markdown import render_markdown


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


def pipeline(n: int, stages: dict[str, float] | None = None) -> tuple[float, int, int]:
    """CPU seconds for the whole pipeline on ``n`` tools, the case count and the Markdown size.

    Starts cold: the memos keyed on content (schema checks, escapes) are emptied first, so
    repeats and the overlapping smaller runs cannot answer from an earlier run. With ``stages``,
    each stage's CPU seconds are added to it too.
    """
    forget_schemas()
    forget_escapes()
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
    clock = _Stages(stages)
    start = time.process_time()
    findings = lint_server(snapshot)
    clock.lap("lint (incl. meta-schema checks)")
    results = []
    all_cases = []
    for tool in tools:
        tc = generate_cases(tool)
        clock.lap("cases")
        all_cases.append(tc)
        for j, case in enumerate(tc.cases):
            results.append(classify_call(case, synthetic_result(case.malformed, j), tool))
        clock.lap("classify")
    fuzz = FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=n, fuzzed_tools=tuple(t["name"] for t in tools), skipped=()),
        tool_cases=tuple(all_cases),
    )
    score = score_server(snapshot, findings, fuzz)
    clock.lap("score")
    report = build_report(snapshot, findings, score, fuzz, mcprobe_version=__version__)
    clock.lap("report")
    markdown = render_markdown(report)
    clock.lap("markdown")
    elapsed = time.process_time() - start
    return elapsed, len(results), len(markdown)


class _Stages:
    """Adds the CPU time since the previous lap to ``stages[name]`` (a no-op without stages)."""

    def __init__(self, stages: dict[str, float] | None) -> None:
        self.stages = stages
        self.last = time.process_time()

    def lap(self, name: str) -> None:
        if self.stages is None:
            return
        now = time.process_time()
        self.stages[name] = self.stages.get(name, 0.0) + now - self.last
        self.last = time.process_time()  # the bookkeeping itself is not charged to a stage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also print the median CPU time of each stage on the large listing",
    )
    args = parser.parse_args()
    pipeline(10)  # warm imports and caches outside the measurement
    small, large = [], []
    per_stage: list[dict[str, float]] = []
    cases = size = 0
    for _ in range(args.repeat):  # alternate, so drift on a shared machine hits both alike
        small.append(pipeline(args.tools // 10)[0])
        stages: dict[str, float] | None = {} if args.breakdown else None
        t, cases, size = pipeline(args.tools, stages)
        large.append(t)
        if stages is not None:
            per_stage.append(stages)
    med_small, med_large = statistics.median(small), statistics.median(large)
    print(f"tools={args.tools} cases={cases} markdown_chars={size} repeat={args.repeat}")
    print(f"median CPU, {args.tools // 10} tools (baseline): {med_small:.3f} s")
    print(f"median CPU, {args.tools} tools: {med_large:.3f} s  (goal <= 1.000 s)")
    print(
        f"scaling ratio {args.tools}/{args.tools // 10} tools: {med_large / med_small:.1f}x "
        f"(10.0x = linear)"
    )
    for name in per_stage[0] if per_stage else {}:
        median = statistics.median(run[name] for run in per_stage)
        print(f"  {name}: {median:.3f} s")


if __name__ == "__main__":
    main()
