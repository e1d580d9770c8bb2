"""Judge the answers of one tool's deep calls against its base (issue 25 item 3). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from mcprobe.core.deep.model import DeepAnswer, DeepFinding, DeepPlan
from mcprobe.core.model import JSON, RawCall

__all__ = ["judge_corruption", "judge_tool"]


def judge_tool(
    tool: JSON,
    plan: DeepPlan,
    base: RawCall,
    answers: Sequence[DeepAnswer],
    *,
    call_timeout: float,
) -> tuple[DeepFinding, ...]:
    """The findings of one tool's deep pass: ``base`` is the answer to ``plan.base`` sent in
    this pass (it succeeded: the plan exists only then), ``answers`` one per sent edge."""
    return ()


def judge_corruption(
    writer: DeepAnswer,
    read_tool: str,
    read_arguments: JSON,
    before: RawCall,
    after: RawCall,
    base: JSON,
) -> DeepFinding | None:
    """Read-after-write: ``writer`` (an edge of a writing tool) answered ok; the server's own
    read-only tool ``read_tool`` answered ``before`` on ``read_arguments`` before it and
    ``after`` after it. A read that worked before and fails now is a corruption."""
    return None
