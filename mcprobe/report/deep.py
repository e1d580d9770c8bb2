"""The report's ``deep`` section (``DeepOut``) from the core's ``DeepRun``. Pure.

Everything the target sent (tool names, the answer excerpts, argument values) is made safe by
the models' validation (``WireModel``) and scrubbed later by ``report/redact.py`` like every
other field; here it is only copied, the answer cut to ``ANSWER_LIMIT`` characters.
"""

from __future__ import annotations

from typing import cast

from mcprobe.core.deep.describe import deep_verdict_key, text_params
from mcprobe.core.deep.model import DeepFinding, DeepRun, DeepTool
from mcprobe.core.knobs import DEEP, SEED, FrontEnd
from mcprobe.core.verdicts import deduction_fix
from mcprobe.report.model import DeepFindingOut, DeepOut, DeepToolOut, DeepVerdict, SkippedToolOut

__all__ = ["ANSWER_LIMIT", "deep_out", "finding_fix", "reproduce_hint"]

ANSWER_LIMIT = 2000


def finding_fix(tool: str, finding: DeepFindingOut) -> str:
    """The fix text of one finding: its verdict's fix with its tool, field and edge (the words
    of its deduction's fix, ``core/score/deep.py``; mcprobe's prose quoting the target)."""
    return deduction_fix(finding.kind, text_params(tool, finding.field, [finding.edge]))


def _answer(text: str) -> str:
    if len(text) <= ANSWER_LIMIT:
        return text
    return text[:ANSWER_LIMIT] + f"… ({len(text)} characters in all)"


def _finding(finding: DeepFinding) -> DeepFindingOut:
    return DeepFindingOut(
        kind=cast(DeepVerdict, deep_verdict_key(finding.oracle)),
        oracle=finding.oracle.value,
        field=finding.field,
        edge=finding.edge,
        label=finding.label,
        arguments=finding.arguments,
        base=finding.base,
        answer=_answer(finding.answer),
        why=finding.why,
    )


def _tool(tool: DeepTool) -> DeepToolOut:
    plan = tool.plan
    return DeepToolOut(
        tool=plan.tool,
        base=plan.base,
        base_source=plan.base_source.value,
        planned=len(plan.edges),
        sent=tool.sent,
        dropped=plan.dropped,
        stopped=tool.stopped,
        note=plan.note,
        seconds=round(tool.seconds, 1),
        findings=[_finding(f) for f in tool.findings],
    )


def reproduce_hint(seed: int, words: FrontEnd = "cli") -> str:
    """How to run the same deep pass again, in ``words``: ``mcprobe audit … --deep --seed 7``,
    ``deep: true, seed: 7`` (a tool input), ``deep=True, seed=7`` (the library)."""
    if words == "cli":
        return f"mcprobe audit … {DEEP.set(words)} {SEED.set(words, seed)}"
    return f"{DEEP.set(words)}, {SEED.set(words, seed)}"


def deep_out(deep: DeepRun, words: FrontEnd = "cli") -> DeepOut:
    """The report's record of one deep run (its reproduce hint in ``words``)."""
    return DeepOut(
        seed=deep.seed,
        reproduce=reproduce_hint(deep.seed, words),
        budget_seconds=deep.budget_seconds,
        budget_hit=deep.budget_hit,
        sent=sum(t.sent for t in deep.tools),
        tools=[_tool(t) for t in deep.tools],
        skipped=[SkippedToolOut(tool=tool, reason=reason) for tool, reason in deep.skipped],
    )
