"""How the resource, prompt and protocol checks fold into the score (pure, documented in the
README's scoring section and docs/checks.md).

Only failed ``must`` checks cost points (``should`` failures are advice), and never an
inconclusive or not-applicable one. Each check's catalogue record names its dimension:

- **Metadata & Documentation** gets a *Protocol* component: −1 per failed protocol check
  (ping, unknown method, version negotiation, logging, completion, resource subscribe, the
  2026-07-28 and HTTP transport checks), at most −3.
- **Error Handling** (not_found, missing_argument, unknown_name) and **Liveness & Performance**
  (list, read, template read, prompts/get): when fuzzing measured the dimension, −1 per failed
  check, at most −3 per dimension; when it did not (no ``--fuzz``), the checks measure it alone
  as ``10 × passed / conclusive`` — if at least ``MIN_CONCLUSIVE`` of them are conclusive (SPEC
  §5.1: fewer is "not measured"). Measured that way they are shown, but they never grade a
  server whose listed tools were not called (``Score.not_graded``, ``core/score/grading.py``): its
  overall stays None.

Every deduction is a ``model.Deduction`` with cause ``surfaceCheck`` (``core.verdicts``): its
reason line names the check and how many subjects failed it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from mcprobe.core.checks.catalogue import CHECKS
from mcprobe.core.checks.records import CheckResult, Level, Verdict
from mcprobe.core.knobs import FrontEnd
from mcprobe.core.model import JSON, Deduction, Dimension, FuzzRun, Score
from mcprobe.core.score.dimensions import grade_for, graded, round_half_up
from mcprobe.core.verdicts import deduction_reason

__all__ = ["MAX_SURFACE_DEDUCTION", "MIN_CONCLUSIVE", "apply_surface"]

MAX_SURFACE_DEDUCTION = 3.0
MIN_CONCLUSIVE = 3
_PER_FAILURE = 1.0


def _failed_counts(failed: Sequence[CheckResult]) -> list[tuple[str, int]]:
    by_check: dict[str, int] = {}
    for result in failed:
        by_check[result.check] = by_check.get(result.check, 0) + 1
    return list(by_check.items())


def _deduction(dimension: str, amount: float, label: str, check: str, count: int) -> Deduction:
    hint = CHECKS[check].hint
    params = (
        ("label", label),
        ("check", check),
        ("count", str(count)),
        ("fix", hint[0].upper() + hint[1:] + "."),
    )
    return Deduction(dimension=dimension, amount=amount, cause="surfaceCheck", params=params)


def _deduct(dimension: Dimension, failed: Sequence[CheckResult], label: str) -> Dimension:
    assert dimension.score is not None
    total = 0.0
    reasons = list(dimension.reasons)
    deductions = list(dimension.deductions)
    for check, count in _failed_counts(failed):
        amount = min(_PER_FAILURE * count, MAX_SURFACE_DEDUCTION - total)
        if amount <= 0:
            reasons.append(
                f"{label} check `{check}` failed ({count}); the −3 cap is already reached"
            )
            continue
        total += amount
        deduction = _deduction(dimension.key, amount, label, check, count)
        deductions.append(deduction)
        reasons.append(deduction_reason(deduction))
    score = round_half_up(max(0.0, dimension.score - total), 1)
    return dataclasses.replace(
        dimension, score=score, reasons=tuple(reasons), deductions=tuple(deductions)
    )


def _measure(dimension: Dimension, conclusive: Sequence[CheckResult]) -> Dimension:
    passed = sum(1 for r in conclusive if r.verdict is Verdict.PASS)
    if len(conclusive) < MIN_CONCLUSIVE:
        line = (
            f"only {len(conclusive)} conclusive resource/prompt checks (at least {MIN_CONCLUSIVE} "
            "needed): "
            "not measured by them either"
        )
        return dataclasses.replace(dimension, reasons=(*dimension.reasons, line))
    reasons = [
        f"measured by the resource/prompt checks: {passed} of {len(conclusive)} conclusive "
        "checks passed"
    ]
    step = 10.0 / len(conclusive)
    deductions = []
    for check, count in _failed_counts([r for r in conclusive if r.verdict is Verdict.FAIL]):
        deduction = _deduction(dimension.key, step * count, "surface", check, count)
        deductions.append(deduction)
        reasons.append(deduction_reason(deduction))
    score = round_half_up(10.0 * passed / len(conclusive), 1)
    return dataclasses.replace(
        dimension, score=score, reasons=tuple(reasons), deductions=tuple(deductions)
    )


def apply_surface(
    score: Score,
    checks: Sequence[CheckResult],
    *,
    tools: Sequence[JSON] | None = None,
    fuzz: FuzzRun | None = None,
    words: FrontEnd = "cli",
) -> Score:
    """``score`` with the checks folded in (see the module docstring). The overall keeps any
    cap the original score had (e.g. the Security dimension's F band). With ``tools`` (the
    listing) and ``fuzz``, the grade is decided again on the new dimensions
    (``dimensions.graded``: the checks may measure a behavioural dimension of a run that called
    no tool, which then grades it static instead of not at all; its reasons in ``words``)."""
    scored = [
        r
        for r in checks
        if r.spec.level is Level.MUST and r.verdict in (Verdict.PASS, Verdict.FAIL)
    ]
    if not scored:
        return score
    dimensions: list[Dimension] = []
    for dimension in score.dimensions:
        mine = [r for r in scored if r.spec.dimension == dimension.key]
        failed = [r for r in mine if r.verdict is Verdict.FAIL]
        if not mine:
            dimensions.append(dimension)
        elif dimension.key == "metadata":
            dimensions.append(_deduct(dimension, failed, "protocol") if failed else dimension)
        elif dimension.measured:
            dimensions.append(_deduct(dimension, failed, "surface") if failed else dimension)
        else:
            dimensions.append(_measure(dimension, mine))
    if tools is not None:
        return graded(tuple(dimensions), tools, fuzz, words=words)
    if score.not_graded is not None:  # no tool was called: the checks never grade the tools
        return dataclasses.replace(score, dimensions=tuple(dimensions))
    measured = [d.score for d in dimensions if d.score is not None]
    if not measured:
        return Score(overall=None, grade="-", dimensions=tuple(dimensions))
    overall = int(round_half_up(10.0 * sum(measured) / len(measured)))
    if score.overall is not None:
        uncapped = [d.score for d in score.dimensions if d.score is not None]
        before = int(round_half_up(10.0 * sum(uncapped) / len(uncapped))) if uncapped else 0
        if score.overall < before:  # a dimension capped the overall: keep the cap
            overall = min(overall, score.overall)
    return Score(overall=overall, grade=grade_for(overall), dimensions=tuple(dimensions))
