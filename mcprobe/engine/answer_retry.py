"""A valid call refused for its placeholder, sent again once with a value another tool's answer
named (issue 23 item 8, issue 25 item 1): ``list_tables`` answered ``["users", "orders"]``, so
``describe_table(table="example")``, refused, is sent again with ``table = "users"``.

Only answers the fuzz already got are read: the ok answers of the valid calls of the tools the
selection called (read-only ones, or under consent or isolation); no tool is called for its
listing. Outside the sandbox a tool that may destroy data is never retried: consent to fuzz it
covers mcprobe's placeholders, not a value that names the server's real data. The retry runs
after every first call and after the listed-value retry (``listed_retry``), so a tool called
before the lister gets it too. One retry per tool at most:
its first valid case, when it was built on mcprobe's own values (``synthesized``; the schema's
and the user's examples are judged as given) and its answer refused it (an error result, a clean
JSON-RPC error, a failure dressed as success) or blamed the machine (inconclusive). The field and
value are chosen by the pure ``core/cases/answer_values.py`` (same-kind field name first, always
valid against the schema). The retried call replaces the valid case's result whatever it
answers, with a note naming the value and the tool whose answer gave it; the case keeps its
provenance (the value is still mcprobe's choice: a refusal of it stays inconclusive).

A valid call answered ok with an empty listing (``describe_table(table_name="example")`` →
``[]`` on mcp-server-sqlite: no such table, no columns) worked on nothing: it is sent again too,
but only with a field whose name says the kind (``table_name`` ← tables), and its answer replaces
the first only when it is ok as well (a conclusive control is never traded for a refusal).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, MutableSequence, Sequence
from dataclasses import replace
from typing import Any, Protocol

from mcprobe.core.calls.evidence import unmet_precondition
from mcprobe.core.cases.answer_values import (
    AnswerValue,
    answer_retry_arguments,
    answer_values,
    empty_answer,
    pool_values,
)
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.cases.selection import real_values_allowed
from mcprobe.core.lint.security_text import shown
from mcprobe.core.model import JSON, Case, CaseResult, CaseSource, Outcome

__all__ = ["retry_with_answer_values"]


class _Item(Protocol):
    @property
    def case(self) -> Case | None: ...
    @property
    def tool(self) -> JSON: ...


Resend = Callable[[int, Case], Awaitable[CaseResult | None]]


def _answered(result: CaseResult | None) -> bool:
    return (
        result is not None
        and not result.malformed
        and result.outcome is Outcome.OK
        and not result.failure_as_success
    )


def _placeholder_refused(case: Case, result: CaseResult | None) -> bool:
    if result is None or case.source is not CaseSource.SYNTHESIZED:
        return False
    if result.outcome is Outcome.OK and not result.failure_as_success:
        return False
    if not (result.rejected or result.failure_as_success or result.environment is not None):
        return False  # -32603, a timeout or a crash on valid input stays a verdict
    return unmet_precondition(result.message) is None  # setup_retry's business


def _empty_for_placeholder(case: Case, result: CaseResult | None, answer: JSON) -> bool:
    """A synthesized valid call answered ok with an empty listing (``describe_table("example")``
    → ``[]``): it worked, but on nothing, so it is no realistic base for what is built on it."""
    return case.source is CaseSource.SYNTHESIZED and _answered(result) and empty_answer(answer)


def _pool(
    items: Sequence[_Item],
    results: Sequence[CaseResult | None],
    answers: Mapping[int, JSON],
) -> dict[str, tuple[AnswerValue, ...]]:
    found: list[list[AnswerValue]] = []
    for index in sorted(answers):
        item, result = items[index], results[index]
        if item.case is None or not isinstance(item.tool, dict) or not _answered(result):
            continue
        found.append(answer_values(item.tool, item.case.arguments, answers[index]))
    return pool_values(found)


async def retry_with_answer_values(
    items: Sequence[_Item],
    results: MutableSequence[CaseResult | None],
    answers: Mapping[int, JSON],
    resend: Resend,
    alive: Callable[[], Awaitable[bool]],
    *,
    isolated: bool = False,
) -> None:
    """Update ``results`` (parallel to ``items``) in place. ``answers``: item index → the raw
    result of a valid call that came back as a result; ``resend(index, case)`` sends ``case``
    in place of item ``index`` and classifies the answer (None: not sent). ``isolated``: the
    target runs in the sandbox; otherwise a tool that may destroy data is not sent a value
    that names real data (``drop_table(table="users")``), whatever the consent level."""
    pool = _pool(items, results, answers)
    if not pool:
        return
    seen: set[str] = set()
    for index, item in enumerate(items):
        case = item.case
        if case is None or case.kind is not CaseKind.VALID or case.tool in seen:
            continue
        seen.add(case.tool)
        tool: Any = item.tool
        if not isinstance(case.arguments, dict) or not isinstance(tool, dict):
            continue
        if not real_values_allowed(tool, isolated=isolated):
            continue
        refused = _placeholder_refused(case, results[index])
        empty = not refused and _empty_for_placeholder(case, results[index], answers.get(index))
        if not (refused or empty):
            continue
        found = answer_retry_arguments(tool, case.arguments, pool, same_kind_only=empty)
        if found is None or not await alive():
            continue
        arguments, field, value = found
        again = await resend(index, replace(case, arguments=arguments))
        if again is None or (empty and not _answered(again)):
            continue
        note = (
            f"sent again with `{shown(field)}` set to `{shown(value.value)}`, a value the "
            f"answer of `{shown(value.lister)}` named"
        )
        results[index] = replace(again, note=f"{note}; {again.note}" if again.note else note)
