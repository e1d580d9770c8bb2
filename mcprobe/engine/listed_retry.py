"""A valid call refused with a list of the values the server accepts, sent again once with one
of them (issue 24 item 4: "unknown table 'example'; tables: users, orders").

One retry per tool at most: its first valid case, when its answer refused it (an error result,
a clean JSON-RPC error, or a failure dressed as success) and the refusal lists values
(``core/cases/listed_values.py``), with the string argument the refusal quotes set to the first
listed value that keeps the call valid against the schema. The retried call replaces the valid
case's result whatever it answers, with a note naming the value and where it came from, so the
attack probes build on the value the server accepts. The value is still mcprobe's choice: the
case keeps its provenance (a refusal of it stays inconclusive).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableSequence, Sequence
from dataclasses import replace
from typing import Any, Protocol

from mcprobe.core.calls.evidence import unmet_precondition
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.cases.listed_values import retry_arguments
from mcprobe.core.cases.selection import real_values_allowed
from mcprobe.core.lint.security_text import shown
from mcprobe.core.model import JSON, Case, CaseResult

__all__ = ["retry_with_listed_values"]


class _Item(Protocol):
    @property
    def case(self) -> Case | None: ...
    @property
    def tool(self) -> JSON: ...


Resend = Callable[[int, Case], Awaitable[CaseResult | None]]


def _refused(result: CaseResult | None) -> bool:
    if result is None or not result.message:
        return False
    if not (result.rejected or result.failure_as_success):
        return False
    return unmet_precondition(result.message) is None  # setup_retry's business


async def retry_with_listed_values(
    items: Sequence[_Item],
    results: MutableSequence[CaseResult | None],
    resend: Resend,
    alive: Callable[[], Awaitable[bool]],
    *,
    isolated: bool = False,
) -> None:
    """Update ``results`` (parallel to ``items``) in place. ``resend(index, case)`` sends
    ``case`` in place of item ``index`` and classifies the answer (None: not sent). Outside the
    sandbox (``isolated`` False) a tool that may destroy is not sent the server's real values
    (``selection.real_values_allowed``)."""
    seen: set[str] = set()
    for index, item in enumerate(items):
        case = item.case
        if case is None or case.kind is not CaseKind.VALID or case.tool in seen:
            continue
        seen.add(case.tool)
        result = results[index]
        tool: Any = item.tool
        if not _refused(result) or not isinstance(case.arguments, dict):
            continue
        assert result is not None and result.message is not None
        if not isinstance(tool, dict) or not real_values_allowed(tool, isolated=isolated):
            continue
        found = retry_arguments(tool, case.arguments, result.message)
        if found is None or not await alive():
            continue
        arguments, param, value = found
        again = await resend(index, replace(case, arguments=arguments))
        if again is None:
            continue
        note = (
            f"sent again with `{shown(param)}` set to `{shown(value)}`, a value the server's "
            "refusal of the first call listed"
        )
        results[index] = replace(again, note=f"{note}; {again.note}" if again.note else note)
