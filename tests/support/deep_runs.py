"""Hand-built deep runs (``core.deep.model``), as the engine hands them to ``score_server`` and
``build_report``: the score, report and renderer tests of the deep pass build them here."""

from __future__ import annotations

from typing import Any

from mcprobe.core.deep.model import DeepFinding, DeepPlan, DeepRun, DeepTool, Edge, Oracle
from mcprobe.core.model import JSON, CaseSource


def finding(
    tool: str,
    oracle: Oracle,
    field: str,
    edge: str,
    *,
    value: JSON = "",
    base: JSON | None = None,
    answer: str = "TypeError: Cannot read properties of undefined (reading '0')",
    why: str = "exception text in a tool error; the field's other edges were refused cleanly",
) -> DeepFinding:
    base = {field: "hello"} if base is None else base
    arguments = {**base, field: value} if isinstance(base, dict) else {field: value}
    return DeepFinding(
        tool=tool,
        oracle=oracle,
        field=field,
        edge=edge,
        arguments=arguments,
        base=base,
        answer=answer,
        why=why,
        label=f"deep:{field}:{edge}",
    )


def tool(
    name: str,
    *findings: DeepFinding,
    base: JSON | None = None,
    source: CaseSource = CaseSource.SCHEMA,
    planned: int = 12,
    sent: int | None = None,
    dropped: int = 0,
    stopped: str | None = None,
    note: str | None = None,
) -> DeepTool:
    base = {"text": "hello"} if base is None else base
    edges = tuple(
        Edge(
            tool=name, field="text", edge=f"e{n}", value=n, arguments=base, label=f"deep:text:e{n}"
        )
        for n in range(planned)
    )
    plan = DeepPlan(
        tool=name, base=base, base_source=source, edges=edges, dropped=dropped, note=note
    )
    return DeepTool(
        plan=plan,
        sent=planned if sent is None else sent,
        findings=tuple(findings),
        stopped=stopped,
        seconds=0.25,
    )


def run(*tools: DeepTool, seed: int = 0, **extra: Any) -> DeepRun:
    return DeepRun(seed=seed, tools=tuple(tools), **extra)


def sample_run() -> DeepRun:
    """Two tools of the flawed demo, three oracles, a skipped tool and the budget hit: what the
    deep golden files render."""
    greet = tool(
        "greet",
        finding(
            "greet",
            Oracle.RUNTIME_ERROR,
            "name",
            "emptyString",
            base={"name": "Ada"},
            answer="Error executing tool greet: string index out of range (name[0])",
            why="exception text (`string index out of range`) that the base call and the "
            "field's other edges do not show",
        ),
        finding(
            "greet",
            Oracle.SCHEMA_CONTRADICTION,
            "name",
            "jsonLooking",
            value="[]",
            base={"name": "Ada"},
            answer="Input should be a valid string [type=string_type, input_value=[]]",
            why="a string refused as the wrong type (`string_type`)",
        ),
        base={"name": "Ada"},
        planned=14,
        dropped=2,
    )
    divide = tool(
        "divide",
        finding(
            "divide",
            Oracle.CRASH,
            "b",
            "negativeZero",
            value=-0.0,
            base={"a": 1, "b": 2},
            answer="target exited with code 1 (stderr: ZeroDivisionError: float division by zero)",
            why="the target died on the edge, and died again when it was replayed alone",
        ),
        base={"a": 1, "b": 2},
        source=CaseSource.USER,
        planned=9,
        sent=7,
        stopped="2 timeouts (the per-tool limit)",
    )
    return run(
        greet,
        divide,
        seed=7,
        skipped=(("set_mode", "no working base: the valid call was refused"),),
        budget_seconds=30.0,
        budget_hit=True,
    )
