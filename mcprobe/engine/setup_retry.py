"""Calls refused for an unmet precondition, sent again once the tool the refusal names was
called first (issue 23 item 1: "No workspace is set. Call open_workspace first.").

Only tools of the run call each other here: the setup tool must be one the run already calls
(isolation or consent allowed it), and it is called with its own valid case. Each setup tool is
called once; the refused calls of the tools that named it are then sent again one at a time and
judged by that answer, with a note saying so. A setup call that does not succeed cleanly leaves
the refusals as they were (inconclusive). The plan is pure (``evidence.setup_plan``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from mcprobe.core.calls.evidence import setup_plan, unmet_precondition
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import Case, CaseResult, Outcome, RawCall

__all__ = ["retry_after_setup"]

Send = Callable[[int], Awaitable[RawCall | None]]
Classify = Callable[[int, RawCall], CaseResult]


def _refused(result: CaseResult | None) -> bool:
    return result is not None and result.rejected and unmet_precondition(result.message) is not None


async def retry_after_setup(
    cases: Sequence[Case | None],
    results: list[CaseResult | None],
    send: Send,
    classify: Classify,
    alive: Callable[[], Awaitable[bool]],
) -> None:
    """Update ``results`` (parallel to ``cases``; None entries are not cases) in place."""
    done = [r for r in results if r is not None]
    tools = list(dict.fromkeys(c.tool for c in cases if c is not None))
    for setup, waiting in setup_plan(done, tools).items():
        first = next(
            (i for i, c in enumerate(cases) if c and c.tool == setup and c.kind is CaseKind.VALID),
            None,
        )
        if first is None or not await alive():
            continue
        raw = await send(first)
        answer = classify(first, raw) if raw is not None else None
        if answer is None or answer.outcome is not Outcome.OK or answer.failure_as_success:
            continue
        note = f"sent again after calling `{setup}` first, as the tool's refusal asked"
        for index, case in enumerate(cases):
            if case is None or case.tool not in waiting or not _refused(results[index]):
                continue
            if not await alive():
                return
            again = await send(index)
            if again is not None:
                result = classify(index, again)
                joined = note if not result.note else f"{note}; {result.note}"
                results[index] = replace(result, note=joined)
