"""A valid call refused for its placeholder is sent again once with a value another tool's
answer named (engine/answer_retry.py): on a real stdio target (tests/targets/answer_lister.py)
and, for what must never happen (a new call to a tool the selection left out, a user's example
overridden), on an in-memory fake."""

from __future__ import annotations

import sys

import anyio
import pytest

from mcprobe import audit_stdio
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import JSON, CaseResult, CaseSource, RawCall
from mcprobe.engine.fuzz_runner import run_fuzz
from mcprobe.report.model import ConformanceReport, FuzzResultOut
from tests.support.fake_target import FakeTarget, ok_text, snapshot_of, tool_error
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

LISTER = str(TARGETS_DIR / "answer_lister.py")


async def _audit(*args: str) -> ConformanceReport:
    with anyio.fail_after(90):
        return await audit_stdio(sys.executable, [LISTER, *args], fuzz=True, sandbox="off")


def _valid(report: ConformanceReport) -> dict[str, FuzzResultOut]:
    return {r.name: r for r in report.fuzz if r.kind == "valid"}


async def test_a_placeholder_refusal_is_retried_with_a_value_a_listing_tool_answered() -> None:
    valid = _valid(await _audit())
    table = valid["describe_table"]
    assert (table.outcome, table.arguments, table.inconclusive) == ("ok", {"table": "users"}, None)
    assert (table.note or "").startswith(
        "sent again with `table` set to `users`, a value the answer of `list_tables` named"
    )
    assert table.source == "synthesized"
    read = valid["read_file"]  # listed before list_files, so called first: retried all the same
    assert (read.outcome, read.arguments, read.inconclusive) == ("ok", {"name": "notes.txt"}, None)
    assert "the answer of `list_files` named" in (read.note or "")


async def test_the_look_alike_whose_listers_name_nothing_that_fits_is_not_retried() -> None:
    valid = _valid(await _audit("silent"))
    for name in ("describe_table", "read_file"):
        refused = valid[name]
        assert refused.outcome == "toolError", name
        assert refused.arguments != {"table": "users"} and refused.inconclusive is not None
        assert not (refused.note or "").startswith("sent again"), name


def _table_tools(lister_annotations: JSON) -> tuple[JSON, ...]:
    describe: JSON = {
        "name": "describe_table",
        "inputSchema": {
            "type": "object",
            "properties": {"table": {"type": "string"}},
            "required": ["table"],
        },
        "annotations": {"readOnlyHint": True},
    }
    lister: JSON = {
        "name": "list_tables",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": lister_annotations,
    }
    return describe, lister


async def _respond(name: str, arguments: JSON) -> RawCall:
    if name == "list_tables":
        return ok_text('["users", "orders"]')
    table = arguments.get("table") if isinstance(arguments, dict) else None
    return ok_text("id INTEGER") if table == "users" else tool_error(f"no such table: {table}")


def _control(results: tuple[CaseResult, ...]) -> CaseResult:
    return next(r for r in results if r.tool == "describe_table" and r.kind is CaseKind.VALID)


async def test_the_retry_reads_only_answers_the_fuzz_got_never_calls_a_tool_left_out() -> None:
    tools = _table_tools({"destructiveHint": True, "readOnlyHint": False})
    target = FakeTarget(snapshot=snapshot_of(tools), respond=_respond)
    with anyio.fail_after(10):
        run = await run_fuzz(target, tools, concurrency=1)
    assert all(name != "list_tables" for name, _ in target.calls)
    control = _control(run.results)
    assert control.outcome.value == "toolError" and control.inconclusive is not None

    consented = FakeTarget(snapshot=snapshot_of(tools), respond=_respond)
    with anyio.fail_after(10):
        run = await run_fuzz(consented, tools, concurrency=1, fuzz_destructive=True)
    control = _control(run.results)
    assert control.arguments == {"table": "users"} and control.conclusive
    assert control.source is CaseSource.SYNTHESIZED


async def test_a_refused_user_example_is_judged_as_given_not_retried() -> None:
    tools = _table_tools({"readOnlyHint": True})
    target = FakeTarget(snapshot=snapshot_of(tools), respond=_respond)
    examples = {"describe_table": [{"table": "customers"}]}
    with anyio.fail_after(10):
        run = await run_fuzz(target, tools, concurrency=1, examples=examples)
    control = _control(run.results)
    assert control.source is CaseSource.USER and control.arguments == {"table": "customers"}
    assert [a for n, a in target.calls if n == "describe_table" and a == {"table": "users"}] == []


def _sqlite_like(retry_answers: RawCall) -> tuple[tuple[JSON, ...], FakeTarget]:
    """describe_table(table_name) answers ``[]`` for a table that does not exist (as
    mcp-server-sqlite does), and ``retry_answers`` for ``users``."""
    describe, lister = _table_tools({"readOnlyHint": True})
    assert isinstance(describe, dict)
    describe["inputSchema"] = {
        "type": "object",
        "properties": {"table_name": {"type": "string"}},
        "required": ["table_name"],
    }
    tools = (describe, lister)

    async def respond(name: str, arguments: JSON) -> RawCall:
        if name == "list_tables":
            return ok_text("[{'name': 'users'}, {'name': 'orders'}]")
        table = arguments.get("table_name") if isinstance(arguments, dict) else None
        return retry_answers if table == "users" else ok_text("[]")

    return tools, FakeTarget(snapshot=snapshot_of(tools), respond=respond)


async def test_an_empty_answer_to_a_placeholder_is_replaced_by_a_listed_value_s_answer() -> None:
    tools, target = _sqlite_like(ok_text('[{"name": "id", "type": "INTEGER"}]'))
    with anyio.fail_after(10):
        run = await run_fuzz(target, tools, concurrency=1)
    control = _control(run.results)
    assert control.arguments == {"table_name": "users"} and control.conclusive
    assert "the answer of `list_tables` named" in (control.note or "")


async def test_an_empty_answer_is_kept_when_the_listed_value_is_refused() -> None:
    tools, target = _sqlite_like(tool_error("permission denied"))
    with anyio.fail_after(10):
        run = await run_fuzz(target, tools, concurrency=1)
    control = _control(run.results)
    assert control.arguments == {"table_name": "example"} and control.conclusive
    assert ("describe_table", {"table_name": "users"}) in target.calls  # tried, not kept


def _drop_tools() -> tuple[JSON, ...]:
    drop: JSON = {
        "name": "drop_table",
        "inputSchema": {
            "type": "object",
            "properties": {"table": {"type": "string"}},
            "required": ["table"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    }
    return drop, _table_tools({"readOnlyHint": True})[1]


async def _drop_respond(name: str, arguments: JSON) -> RawCall:
    if name == "list_tables":
        return ok_text('["users", "orders"]')
    table = arguments.get("table") if isinstance(arguments, dict) else None
    return ok_text("dropped") if table == "users" else tool_error(f"no such table: {table}")


async def test_a_destructive_tool_is_never_sent_real_data_outside_the_sandbox() -> None:
    tools = _drop_tools()
    target = FakeTarget(snapshot=snapshot_of(tools), respond=_drop_respond)
    with anyio.fail_after(10):
        await run_fuzz(target, tools, concurrency=1, fuzz_destructive=True)
    assert ("drop_table", {"table": "users"}) not in target.calls

    isolated = FakeTarget(snapshot=snapshot_of(tools), respond=_drop_respond)
    with anyio.fail_after(10):
        await run_fuzz(isolated, tools, concurrency=1, isolated=True)
    assert ("drop_table", {"table": "users"}) in isolated.calls  # a private copy: fine
