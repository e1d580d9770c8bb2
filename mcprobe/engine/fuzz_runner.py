"""Send the core's fuzz cases to a live target and classify what comes back (SPEC §5).

The runner is the only part of the behavioural pass that waits: it selects the tools
(``selection``), builds their cases (``cases``), sends them with bounded concurrency, classifies
each answer (``classify``) and reports one progress event per finished case. It only sees the
``Target`` protocol, so tests drive it with in-memory fakes.

Rules the report relies on:

- **Order.** Cases are sent in case order (tools in listing order, each tool's cases in
  generation order) by ``concurrency`` workers; results come back in that same order, never in
  completion order. ``concurrency=1`` is strictly sequential.
- **Target death.** A call that comes back ``TRANSPORT_LOST``, or after which ``target.alive``
  is False, marks the target dead; ``crashed_by`` names the first such case (in completion
  order). Every case not yet sent becomes ``notRun`` ("target died after …"), so no healthy tool
  is blamed for the corpse. With ``concurrency=1`` ``crashed_by`` is exactly the killing case.
  With ``concurrency > 1`` the other cases that were *really in flight* when the target died
  also come back ``TRANSPORT_LOST`` and are classified ``protocolCrash``, with a note saying
  they were in flight at the death and may not be its cause; ``crashed_by`` is then only the
  first of them to notice (rerun with concurrency 1 to pin the culprit). A case is only ever
  ``protocolCrash`` if it was actually sent.
- **Deadline.** ``deadline`` is an absolute ``anyio.current_time()``. Once it is reached no
  further case is sent (``notRun``, ``deadline_hit=True``); a call still in flight at the
  deadline is abandoned and reported ``notRun`` too (cut short by mcprobe, so the tool is not
  blamed with a ``timeout``).
- **Unknown-tool probe.** After the cases, one call to a tool name that provably does not exist
  is made, only if the target is still alive and the deadline has not passed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

import anyio

from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.classify import classify_call, classify_unknown_tool_probe
from mcprobe.core.model import (
    JSON,
    Case,
    CaseResult,
    Coverage,
    FuzzRun,
    RawCall,
    RawKind,
    SkippedTool,
)
from mcprobe.core.selection import DEFAULT_MAX_TOOLS, select_tools, unknown_tool_name
from mcprobe.core.target_protocol import Target

__all__ = ["DEFAULT_CONCURRENCY", "ProgressCallback", "run_fuzz"]

DEFAULT_CONCURRENCY = 4

ProgressCallback = Callable[[int, int, str], Awaitable[None]]
"""``progress(done, total, message)``; message like ``"12/41 divide wrong_type:a"``."""


@dataclass
class _RunState:
    """Mutable bookkeeping shared by the workers of one run (never leaves this module)."""

    total: int
    results: list[CaseResult | None]
    next_index: int = 0
    done: int = 0
    crashed_by: tuple[str, str] | None = None
    last_finished: tuple[str, str] | None = None
    deadline_hit: bool = False


async def run_fuzz(
    target: Target,
    tools: Sequence[JSON],
    *,
    max_tools: int = DEFAULT_MAX_TOOLS,
    fuzz_writes: bool = False,
    fuzz_destructive: bool = False,
    include: Sequence[str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    call_timeout: float | None = None,
    deadline: float | None = None,
    progress: ProgressCallback | None = None,
) -> FuzzRun:
    """Fuzz the selected ``tools`` (raw definitions as listed) of ``target``.

    ``call_timeout`` is passed to every call (None: the target's own per-call default).
    Raises ``ValueError`` for ``concurrency < 1`` or a negative ``max_tools`` (caller bugs).
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    selection = select_tools(
        tools,
        max_tools=max_tools,
        fuzz_writes=fuzz_writes,
        fuzz_destructive=fuzz_destructive,
        include=include,
    )
    tool_cases = tuple(generate_cases(tool) for tool in selection.selected)
    plan: list[tuple[Case, JSON]] = [
        (case, tool)
        for tool, cases in zip(selection.selected, tool_cases, strict=True)
        for case in cases.cases
    ]
    state = _RunState(total=len(plan), results=[None] * len(plan))

    async def worker() -> None:
        while state.next_index < state.total:
            index = state.next_index
            state.next_index += 1
            case, tool = plan[index]
            result = await _run_case(target, case, tool, state, call_timeout, deadline)
            state.results[index] = result
            state.done += 1
            if progress is not None:
                await progress(
                    state.done, state.total, f"{state.done}/{state.total} {case.tool} {case.label}"
                )

    async with anyio.create_task_group() as tg:
        for _ in range(min(concurrency, state.total)):
            tg.start_soon(worker)

    probe = await _probe_unknown_tool(target, tools, state, call_timeout, deadline)
    skipped = list(selection.skipped)
    skipped += [
        SkippedTool(name, "requested, but the server lists no tool of that name")
        for name in selection.unknown_included
    ]
    return FuzzRun(
        results=tuple(r for r in state.results if r is not None),
        coverage=Coverage(
            total_tools=len(tools),
            fuzzed_tools=selection.selected_names,
            skipped=tuple(skipped),
        ),
        tool_cases=tool_cases,
        unknown_tool_probe=probe,
        crashed_by=state.crashed_by,
        deadline_hit=state.deadline_hit,
    )


async def _run_case(
    target: Target,
    case: Case,
    tool: JSON,
    state: _RunState,
    call_timeout: float | None,
    deadline: float | None,
) -> CaseResult:
    """Send one case (unless the target is dead or time is up) and classify the answer."""
    if state.crashed_by is None and not target.alive:
        # Died between calls without any call noticing (e.g. it exited on its own).
        state.crashed_by = state.last_finished or (case.tool, case.label)
    if state.crashed_by is not None:
        tool_name, label = state.crashed_by
        return _not_run(case, tool, f"not run: the target died after {tool_name} {label}")
    if _past(deadline):
        state.deadline_hit = True
        return _not_run(case, tool, "not run: the overall audit deadline was reached")

    raw = await _call(target, case.tool, case.arguments, call_timeout, deadline)
    if raw is None or (raw.kind in (RawKind.TIMEOUT, RawKind.NOT_RUN) and _past(deadline)):
        # The audit's clock ran out, not the tool's: never blame it with a timeout.
        state.deadline_hit = True
        return _not_run(case, tool, "not run: cut short by the overall audit deadline")
    version = target.snapshot.protocol_version
    result = classify_call(case, raw, tool, protocol_version=version)
    if raw.kind is RawKind.RESULT and raw.detail:
        # The I/O layer's word on a reply it could not keep (e.g. over the size cap).
        result = replace(result, note=f"{result.note}; {raw.detail}" if result.note else raw.detail)
    died = raw.kind is RawKind.TRANSPORT_LOST or not target.alive
    if died:
        if state.crashed_by is None:
            state.crashed_by = (case.tool, case.label)
        elif raw.kind is RawKind.TRANSPORT_LOST:
            culprit = " ".join(state.crashed_by)
            extra = (
                f"in flight when the target died (first noticed after {culprit}); "
                "it may not be the cause"
            )
            result = replace(result, note=f"{result.note}; {extra}" if result.note else extra)
    state.last_finished = (case.tool, case.label)
    return result


async def _probe_unknown_tool(
    target: Target,
    tools: Sequence[JSON],
    state: _RunState,
    call_timeout: float | None,
    deadline: float | None,
) -> CaseResult | None:
    """The once-per-server call to a tool that does not exist (only on a live target in time)."""
    if state.crashed_by is not None or not target.alive or _past(deadline):
        return None
    names = [
        str(t["name"]) for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)
    ]
    name = unknown_tool_name(names)
    raw = await _call(target, name, {}, call_timeout, deadline)
    if raw is None:
        state.deadline_hit = True
        return None
    if raw.kind is RawKind.TRANSPORT_LOST or not target.alive:
        state.crashed_by = (name, "unknown_tool")
    return classify_unknown_tool_probe(name, raw, protocol_version=target.snapshot.protocol_version)


async def _call(
    target: Target, name: str, arguments: JSON, call_timeout: float | None, deadline: float | None
) -> RawCall | None:
    """One ``tools/call``; None when the overall deadline cut it short."""
    if deadline is None:
        return await target.call_tool(name, arguments, timeout=call_timeout)
    with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
        return await target.call_tool(name, arguments, timeout=call_timeout)
    return None


def _past(deadline: float | None) -> bool:
    return deadline is not None and anyio.current_time() >= deadline


def _not_run(case: Case, tool: JSON, why: str) -> CaseResult:
    return classify_call(case, RawCall(kind=RawKind.NOT_RUN, detail=why), tool)
