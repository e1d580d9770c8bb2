"""The fuzz runner against an in-memory fake target: order, concurrency, death, deadline,
progress, the unknown-tool probe."""

from __future__ import annotations

import re

import anyio
import pytest

from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.model import JSON, Case, Outcome, RawCall, RawKind
from mcprobe.engine.fuzz_runner import run_fuzz
from tests.fake_target import FakeTarget, int_tool, invalid_params, snapshot_of, tool_error

pytestmark = pytest.mark.anyio


def plan_of(*tools: JSON) -> list[Case]:
    return [case for tool in tools for case in generate_cases(tool).cases]


def fake(*tools: JSON, **kwargs: object) -> FakeTarget:
    return FakeTarget(snapshot=snapshot_of(tuple(tools)), **kwargs)  # type: ignore[arg-type]


async def test_results_come_back_in_case_order_not_completion_order() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    answered: list[str] = []

    async def respond(name: str, arguments: JSON) -> RawCall:
        # Later calls answer sooner, so completion order differs from sending order.
        for _ in range(50 - len(answered) * 5):
            await anyio.lowlevel.checkpoint()
        answered.append(name)
        return invalid_params()

    target = fake(*tools, respond=respond)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=4)
    expected = [(c.tool, c.label) for c in plan_of(*tools)]
    assert [(r.tool, r.label) for r in run.results] == expected
    assert len(expected) >= 4


@pytest.mark.parametrize("concurrency", [1, 2, 4])
async def test_in_flight_calls_never_exceed_the_concurrency_limit_and_reach_it(
    concurrency: int,
) -> None:
    tools = (int_tool("alpha"), int_tool("beta"), int_tool("gamma"))
    assert len(plan_of(*tools)) > concurrency
    target = fake(*tools)
    with anyio.fail_after(5):
        await run_fuzz(target, tools, concurrency=concurrency)
    assert target.max_in_flight == concurrency


async def test_sequential_run_sends_cases_in_case_order_with_their_exact_arguments() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    target = fake(*tools)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    plan = plan_of(*tools)
    sent = target.calls[: len(plan)]
    assert sent == [(c.tool, c.arguments) for c in plan]
    assert [r.arguments for r in run.results] == [c.arguments for c in plan]


async def test_target_death_names_the_killing_case_and_marks_the_rest_not_run() -> None:
    tools = (int_tool("alpha"), int_tool("bomb"), int_tool("omega"))
    target = fake(*tools, dies_on="bomb")
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    plan = plan_of(*tools)
    first_bomb = next(c for c in plan if c.tool == "bomb")
    assert run.crashed_by == ("bomb", first_bomb.label)
    by_tool = {
        name: [r for r in run.results if r.tool == name] for name in ("alpha", "bomb", "omega")
    }
    assert all(r.outcome is Outcome.OK for r in by_tool["alpha"])
    assert by_tool["bomb"][0].outcome is Outcome.PROTOCOL_CRASH
    rest = by_tool["bomb"][1:] + by_tool["omega"]
    assert rest and all(r.outcome is Outcome.NOT_RUN for r in rest)
    assert all(f"target died after bomb {first_bomb.label}" in (r.note or "") for r in rest)
    assert "omega" not in {name for name, _ in target.calls}
    assert run.unknown_tool_probe is None


async def test_concurrent_death_only_crashes_cases_that_were_really_sent() -> None:
    tools = (int_tool("alpha"), int_tool("bomb"), int_tool("omega"), int_tool("zeta"))
    target = fake(*tools, dies_on="bomb", steps=20)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=4)
    sent = {(name, repr(args)) for name, args in target.calls}
    for result in run.results:
        was_sent = (result.tool, repr(result.arguments)) in sent
        if result.outcome is Outcome.PROTOCOL_CRASH:
            assert was_sent
        if not was_sent:
            assert result.outcome is Outcome.NOT_RUN
    crashed = [r for r in run.results if r.outcome is Outcome.PROTOCOL_CRASH]
    assert len(crashed) > 1  # several were in flight at the death
    # With concurrency the killer cannot be singled out: crashed_by is the first case that
    # noticed the death, one of those really in flight.
    assert run.crashed_by in {(r.tool, r.label) for r in crashed}
    assert "bomb" in {r.tool for r in crashed}
    bystanders = [r for r in crashed if (r.tool, r.label) != run.crashed_by]
    assert all("may not be the cause" in (r.note or "") for r in bystanders)
    assert any(r.outcome is Outcome.NOT_RUN for r in run.results if r.tool == "zeta")


async def test_target_found_dead_between_calls_stops_the_run() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    target = fake(*tools)

    async def respond(name: str, arguments: JSON) -> RawCall:
        target._alive = name != "alpha"  # alpha answers, then the process is gone
        return tool_error()

    target.respond = respond
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    assert run.crashed_by is not None and run.crashed_by[0] == "alpha"
    assert run.results[0].outcome is Outcome.TOOL_ERROR
    assert all(r.outcome is Outcome.NOT_RUN for r in run.results[1:])
    assert len(target.calls) == 1


async def test_reaching_the_deadline_marks_unsent_and_cut_calls_not_run() -> None:
    tools = (int_tool("slow"), int_tool("beta"))

    async def respond(name: str, arguments: JSON) -> RawCall:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    target = fake(*tools, respond=respond)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1, deadline=anyio.current_time() + 0.05)
    assert run.deadline_hit is True
    assert run.results and all(r.outcome is Outcome.NOT_RUN for r in run.results)
    assert "cut short by the overall audit deadline" in (run.results[0].note or "")
    assert "deadline was reached" in (run.results[-1].note or "")
    assert len(target.calls) == 1
    assert run.unknown_tool_probe is None


async def test_a_deadline_already_past_sends_nothing() -> None:
    tools = (int_tool("alpha"),)
    target = fake(*tools)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, deadline=anyio.current_time() - 1)
    assert target.calls == []
    assert run.deadline_hit and all(r.outcome is Outcome.NOT_RUN for r in run.results)


async def test_progress_reports_one_event_per_finished_case() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    events: list[tuple[int, int, str]] = []

    async def progress(done: int, total: int, message: str) -> None:
        events.append((done, total, message))

    with anyio.fail_after(5):
        run = await run_fuzz(fake(*tools), tools, concurrency=2, progress=progress)
    total = len(run.results)
    assert [e[0] for e in events] == list(range(1, total + 1))
    assert {e[1] for e in events} == {total}
    labels = {f"{r.tool} {r.label}" for r in run.results}
    for done, _, message in events:
        match = re.fullmatch(rf"{done}/{total} (\w+ \S+)", message)
        assert match is not None and match.group(1) in labels


async def test_unknown_tool_probe_is_sent_once_to_a_live_target() -> None:
    tools = (int_tool("alpha"),)

    async def respond(name: str, arguments: JSON) -> RawCall:
        if name == "alpha":
            return tool_error()
        return invalid_params(f"Unknown tool: {name}")

    target = fake(*tools, respond=respond)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools)
    probes = [name for name, _ in target.calls if name != "alpha"]
    assert probes == ["mcprobe_nonexistent_tool"]
    assert run.unknown_tool_probe is not None
    assert run.unknown_tool_probe.outcome is Outcome.PROTOCOL_ERROR
    assert run.unknown_tool_probe.rejected


async def test_unsafe_tools_are_skipped_and_unknown_includes_are_named() -> None:
    tools = (int_tool("alpha"), int_tool("wipe", annotations={}))
    target = fake(*tools)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, include=["alpha", "wipe", "ghost"])
    assert run.coverage.total_tools == 2
    assert run.coverage.fuzzed_tools == ("alpha",)
    skipped = {s.tool: s.reason for s in run.coverage.skipped}
    assert "fuzzDestructive" in skipped["wipe"]
    assert "no tool of that name" in skipped["ghost"]
    assert "wipe" not in {name for name, _ in target.calls}


async def test_fuzz_destructive_consents_to_calling_unannotated_tools() -> None:
    tools = (int_tool("wipe", annotations={}),)
    target = fake(*tools)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, fuzz_destructive=True, max_tools=1)
    assert run.coverage.fuzzed_tools == ("wipe",)
    assert {name for name, _ in target.calls} >= {"wipe"}


async def test_call_timeout_is_passed_to_every_call() -> None:
    tools = (int_tool("alpha"),)
    target = fake(*tools)
    with anyio.fail_after(5):
        await run_fuzz(target, tools, call_timeout=1.5)
    assert target.timeouts and set(target.timeouts) == {1.5}


async def test_timeouts_reported_by_the_target_are_classified_not_fatal() -> None:
    tools = (int_tool("alpha"),)

    async def respond(name: str, arguments: JSON) -> RawCall:
        return RawCall(kind=RawKind.TIMEOUT, latency_ms=1500.0)

    target = fake(*tools, respond=respond)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools)
    assert run.results and all(r.outcome is Outcome.TIMEOUT for r in run.results)
    assert run.crashed_by is None
    assert run.unknown_tool_probe is not None


async def test_concurrency_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        await run_fuzz(fake(), (), concurrency=0)
