"""How the deep pass of valid inputs (``--deep``, issue 25) folds into the score: a separate,
documented deduction inside Error Handling and Liveness (docs/checks.md, next to the dimension
formulas). Pure.

- One deduction per distinct finding: a tool, a verdict (``deep`` + its oracle) and a field. The
  edges of one field that show the same oracle are one defect (one missing check), so a field
  with five failing edges costs what one does; its other edges are named in the reason line.
- −1 each (``POINTS_PER_FINDING``), at most −4 per dimension (``MAX_DEEP_DEDUCTION``): a server
  whose every malformed input is refused cleanly but whose valid edges crash loses at most 4 of
  its 10 points there, so the malformed-case rate keeps most of its weight; past the cap the
  finding gets a reason line ("the −4 cap is already reached") and no deduction.
- Crash and hang cost Liveness, every other oracle Error Handling (``core.deep.describe``).
- A dimension that is not measured stays so: the deep pass alone does not measure it (its
  findings are still in the report's Deep fuzzing section). A deep run without findings changes
  no number; it adds one reason line saying how many deep calls were judged.

Every deduction is a ``model.Deduction`` with cause = the verdict key, ``tools`` the tool and the
params ``tool``, ``field``, ``edge``, ``what`` and ``more`` of its reason and fix texts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from mcprobe.core.deep.describe import deep_dimension, deep_verdict_key, text_params
from mcprobe.core.deep.model import DeepFinding, DeepRun
from mcprobe.core.model import Deduction, Dimension
from mcprobe.core.verdicts import deduction_reason, priority

__all__ = ["MAX_DEEP_DEDUCTION", "POINTS_PER_FINDING", "apply_deep", "deep_deductions"]

POINTS_PER_FINDING = 1.0
MAX_DEEP_DEDUCTION = 4.0


def deep_deductions(deep: DeepRun, dimension: str) -> list[Deduction]:
    """One deduction per (tool, verdict, field) of ``deep``'s findings that cost ``dimension``,
    in the run's order (tools as listed, each tool's verdicts in catalogue priority), each
    ``POINTS_PER_FINDING`` before the cap (``apply_deep`` applies it)."""
    grouped: dict[tuple[str, str, str], list[DeepFinding]] = {}
    for finding in deep.findings:
        if deep_dimension(finding.oracle) != dimension:
            continue
        key = (finding.tool, deep_verdict_key(finding.oracle), finding.field)
        grouped.setdefault(key, []).append(finding)
    rank = {tool: i for i, tool in enumerate(dict.fromkeys(tool for tool, _, _ in grouped))}
    ordered = sorted(grouped, key=lambda k: (rank[k[0]], priority(k[1])))
    found = []
    for tool, cause, field in ordered:
        findings = grouped[(tool, cause, field)]
        edges = list(dict.fromkeys(f.edge for f in findings))
        params = text_params(tool, field, edges)
        found.append(
            Deduction(
                dimension=dimension,
                amount=POINTS_PER_FINDING,
                cause=cause,
                tools=(tool,),
                params=params,
            )
        )
    return found


def _judged_line(deep: DeepRun) -> str:
    sent = sum(t.sent for t in deep.tools)
    calls = "call" if sent == 1 else "calls"
    tools = len(deep.tools)
    return (
        f"deep pass (seed {deep.seed}): {sent} schema-valid edge {calls} judged on {tools} "
        f"tool{'' if tools == 1 else 's'}"
    )


def apply_deep(
    dimension: Dimension, deep: DeepRun | None, rounded: Callable[[float], float]
) -> Dimension:
    """``dimension`` with the deep pass folded in (see the module docstring); ``rounded`` is the
    score's one-decimal half-up rounding. Unchanged without a deep run."""
    if deep is None:
        return dimension
    deductions = deep_deductions(deep, dimension.key)
    reasons = list(dimension.reasons)
    if not deductions:
        reasons.append(f"{_judged_line(deep)}, no finding")
        return dataclasses.replace(dimension, reasons=tuple(reasons))
    count = len(deductions)
    noun = "finding" if count == 1 else "findings"
    if dimension.score is None:
        reasons.append(
            f"{_judged_line(deep)}: {count} {noun}, not scored (the dimension is not measured; "
            "see Deep fuzzing)"
        )
        return dataclasses.replace(dimension, reasons=tuple(reasons))
    reasons.append(
        f"{_judged_line(deep)}: {count} {noun}, −{POINTS_PER_FINDING:g} each, at most "
        f"−{MAX_DEEP_DEDUCTION:g}"
    )
    kept: list[Deduction] = []
    total = 0.0
    for deduction in deductions:
        if total + deduction.amount > MAX_DEEP_DEDUCTION:
            line = deduction_reason(deduction).partition(": ")[2]
            reasons.append(f"{line}; the −{MAX_DEEP_DEDUCTION:g} deep cap is already reached")
            continue
        total += deduction.amount
        kept.append(deduction)
        reasons.append(deduction_reason(deduction))
    score = rounded(max(0.0, dimension.score - total))
    return dataclasses.replace(
        dimension,
        score=score,
        reasons=tuple(reasons),
        deductions=(*dimension.deductions, *kept),
    )
