"""A synthetic listing of n rich tools and the pure pipeline over it, stage by stage.

Shared by ``scripts/bench_core.py`` (CPU time per stage, 100 against 1,000 tools in one run) and
``tests/core/test_linear_work.py`` (the work each stage does per tool, counted, not timed), so
the benchmark and the guard measure the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mcprobe import __version__
from mcprobe.core.calls.classify import classify_call, forget_texts
from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.lint.engine import lint_server
from mcprobe.core.model import (
    CaseResult,
    Coverage,
    Finding,
    FuzzRun,
    RawCall,
    RawKind,
    Score,
    ServerSnapshot,
    ToolCases,
)
from mcprobe.core.schema.dialect import forget_schemas
from mcprobe.core.score.dimensions import score_server
from mcprobe.report.build import build_report
from mcprobe.report.formats import FORMAT_NAMES, render
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.escape import forget_escapes
from mcprobe.report.render.markdown import render_markdown
from mcprobe.report.render.terminal import render_terminal


def rich_tool(i: int) -> dict[str, Any]:
    """A tool whose schema exercises most of what the core handles (refs, unions, bounds...).

    Every tool's schema is distinct (names, bounds, enums vary with ``i``), so no cache keyed on
    schema content can make the benchmark look better than a real 1,000-tool server. Every
    seventh description names the previous tool, so tool-name mentions are looked for in
    earnest.
    """
    description = f"Synthetic tool number {i} for benchmarking"
    if i % 7 == 0:
        description = f"Like tool_{i - 1}, but returns the results as a list." if i else ""
    return {
        "name": f"tool_{i}",
        "description": description,
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
    """What a well-behaved server answers (a rejection for a malformed case, a result else)."""
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


def snapshot_of(n: int) -> ServerSnapshot:
    return ServerSnapshot(
        name="bench",
        version="1.0",
        title="Bench",
        protocol_version="2025-11-25",
        instructions="Synthetic server for the core benchmark.",
        capabilities={"tools": {}},
        tools=tuple(rich_tool(i) for i in range(n)),
    )


@dataclass
class PipelineState:
    """What each stage leaves for the next."""

    snapshot: ServerSnapshot
    findings: tuple[Finding, ...] = ()
    tool_cases: tuple[ToolCases, ...] = ()
    results: tuple[CaseResult, ...] = ()
    fuzz: FuzzRun | None = None
    score: Score | None = None
    report: ConformanceReport | None = None
    output_chars: int = 0


def _lint(s: PipelineState) -> None:
    s.findings = tuple(lint_server(s.snapshot))


def _cases(s: PipelineState) -> None:
    s.tool_cases = tuple(generate_cases(tool) for tool in s.snapshot.tools)


def _classify(s: PipelineState) -> None:
    s.results = tuple(
        classify_call(case, synthetic_result(case.malformed, j), tool)
        for tool, tc in zip(s.snapshot.tools, s.tool_cases, strict=True)
        for j, case in enumerate(tc.cases)
    )
    n = len(s.snapshot.tools)
    s.fuzz = FuzzRun(
        results=s.results,
        coverage=Coverage(
            total_tools=n, fuzzed_tools=tuple(t["name"] for t in s.snapshot.tools), skipped=()
        ),
        tool_cases=s.tool_cases,
    )


def _score(s: PipelineState) -> None:
    assert s.fuzz is not None
    s.score = score_server(s.snapshot, s.findings, s.fuzz)


def _report(s: PipelineState) -> None:
    assert s.score is not None and s.fuzz is not None
    s.report = build_report(s.snapshot, s.findings, s.score, s.fuzz, mcprobe_version=__version__)


def _renderer(name: str) -> Callable[[PipelineState], None]:
    def stage(s: PipelineState) -> None:
        assert s.report is not None
        s.output_chars = len(render(s.report, name))

    return stage


def _summary(s: PipelineState) -> None:
    assert s.report is not None
    s.output_chars = len(render_markdown(s.report, detail="summary"))


def _terminal(s: PipelineState) -> None:
    assert s.report is not None
    s.output_chars = len(render_terminal(s.report, colour=False))


STAGES: tuple[tuple[str, Callable[[PipelineState], None]], ...] = (
    ("lint", _lint),
    ("cases", _cases),
    ("classify", _classify),
    ("score", _score),
    ("report", _report),
    *((f"render {name}", _renderer(name)) for name in FORMAT_NAMES),
    ("render md summary", _summary),
    ("render terminal", _terminal),
)
"""The pure pipeline in order: every stage a 1,000-tool audit runs, every renderer."""


def run_stages(n: int) -> Iterator[tuple[str, Callable[[], None], PipelineState]]:
    """Each stage of the pipeline on ``n`` tools, to be called in order (cold memos first).

    The memos keyed on content (schema checks, error texts, escapes) are emptied first, so
    repeats and the overlapping smaller runs cannot answer from an earlier run.
    """
    forget_schemas()
    forget_texts()
    forget_escapes()
    state = PipelineState(snapshot_of(n))
    for name, stage in STAGES:
        yield name, (lambda stage=stage: stage(state)), state  # type: ignore[misc]
