"""The fuzz runner against an in-memory fake target: order, concurrency, death, deadline,
progress, the unknown-tool probe."""

from __future__ import annotations

import re

import anyio
import pytest

from mcprobe.core.cases.generate import generate_cases
from mcprobe.core.cases.kinds import CaseKind
from mcprobe.core.model import JSON, Case, FuzzRun, Outcome, RawCall, RawKind
from mcprobe.core.verdicts import CRITICAL_KEYS
from mcprobe.engine.fuzz_runner import MAX_RESTARTS, run_fuzz
from tests.support.fake_target import (
    FakeTarget,
    RestartableFake,
    int_tool,
    invalid_params,
    snapshot_of,
    tool_error,
)

pytestmark = pytest.mark.anyio


def plan_of(*tools: JSON) -> list[Case]:
    """The per-tool cases that come back in ``results`` (``non_object_arguments`` is a protocol
    probe: sent once per server, reported as ``non_object_probe``)."""
    return [
        case
        for tool in tools
        for case in generate_cases(tool).cases
        if case.kind is not CaseKind.NON_OBJECT_ARGUMENTS
    ]


def sent_plan_of(*tools: JSON) -> list[Case]:
    """The cases in the order they are sent: every tool's cases, but ``non_object_arguments``
    only for the first tool that has one."""
    plan: list[Case] = []
    probed = False
    for tool in tools:
        for case in generate_cases(tool).cases:
            if case.kind is CaseKind.NON_OBJECT_ARGUMENTS:
                if probed:
                    continue
                probed = True
            plan.append(case)
    return plan


async def test_non_object_arguments_is_sent_once_per_server_and_reported_apart() -> None:
    tools = (int_tool("alpha"), int_tool("beta"), int_tool("gamma"))
    target = fake(*tools)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    flat = [call for call in target.calls if call[1] == []]
    assert flat == [("alpha", [])]
    assert run.non_object_probe is not None and run.non_object_probe.tool == "alpha"
    assert all(r.kind is not CaseKind.NON_OBJECT_ARGUMENTS for r in run.results)


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
    plan = sent_plan_of(*tools)
    sent = target.calls[: len(plan)]
    assert sent == [(c.tool, c.arguments) for c in plan]
    assert [r.arguments for r in run.results] == [c.arguments for c in plan_of(*tools)]


def kills_on_string_n(name: str, arguments: JSON) -> bool:
    """bomb dies on its wrong_type:n case (a string n), nothing else kills."""
    return name == "bomb" and isinstance(arguments, dict) and isinstance(arguments.get("n"), str)


def verdicts(run: FuzzRun) -> list[tuple[str, str, Outcome, bool]]:
    return [
        (r.tool, r.label, r.outcome, bool(CRITICAL_KEYS & set(r.verdicts))) for r in run.results
    ]


async def test_without_restart_a_death_stops_the_run_and_blames_no_case() -> None:
    tools = (int_tool("alpha"), int_tool("bomb"), int_tool("omega"))
    target = fake(*tools, dies_on="bomb")
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    by_tool = {
        name: [r for r in run.results if r.tool == name] for name in ("alpha", "bomb", "omega")
    }
    assert all(r.outcome is Outcome.OK for r in by_tool["alpha"])
    assert not any(r.outcome is Outcome.PROTOCOL_CRASH for r in run.results)
    suspect = by_tool["bomb"][0]
    assert suspect.outcome is Outcome.NOT_RUN
    assert "could not be replayed alone" in (suspect.note or "")
    rest = by_tool["bomb"][1:] + by_tool["omega"]
    assert rest and all(r.outcome is Outcome.NOT_RUN for r in rest)
    assert run.stopped is not None and "cannot be restarted" in run.stopped
    assert all(run.stopped in (r.note or "") for r in rest)
    assert "omega" not in {name for name, _ in target.calls}
    assert [d.cases for d in run.deaths] == [(f"bomb {suspect.label}",)]
    assert run.unknown_tool_probe is None and run.crashed_by is None


@pytest.mark.parametrize("concurrency", [1, 4])
async def test_a_killing_case_is_the_only_protocol_crash_and_every_other_case_is_judged(
    concurrency: int,
) -> None:
    tools = (int_tool("bomb"), int_tool("alpha"), int_tool("omega"))
    target = RestartableFake(
        snapshot=snapshot_of(tools), kills=kills_on_string_n, dies_late=True, steps=20
    )
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=concurrency)
    crashed = [(r.tool, r.label) for r in run.results if r.outcome is Outcome.PROTOCOL_CRASH]
    assert crashed == [("bomb", "wrong_type:n")]
    assert run.crashed_by is None  # no bystander to tell apart: every crash is reproduced
    assert not any(r.outcome is Outcome.NOT_RUN for r in run.results)
    assert all(r.outcome is Outcome.OK for r in run.results if r.label == "valid")
    # One death during the run, one reproduced by the replay. The killer, sent first of the
    # suspects, is replayed first, right after the death and before anything new: it kills the
    # target again, which is restarted once more for the rest (the other suspects at the end).
    assert target.restarts == 2
    assert [d.replay for d in run.deaths] == [False, True]
    assert "bomb wrong_type:n" in run.deaths[0].cases
    assert run.deaths[1].cases == ("bomb wrong_type:n",)
    assert run.flaky_crashes == () and run.stopped is None
    assert run.unknown_tool_probe is not None


@pytest.mark.parametrize("dies_late", [True, False])
async def test_concurrency_changes_no_verdict(dies_late: bool) -> None:
    tools = (int_tool("bomb"), int_tool("alpha"), int_tool("omega"), int_tool("zeta"))
    runs = []
    for concurrency in (1, 4):
        target = RestartableFake(
            snapshot=snapshot_of(tools), kills=kills_on_string_n, dies_late=dies_late, steps=20
        )
        with anyio.fail_after(5):
            runs.append(await run_fuzz(target, tools, concurrency=concurrency))
    assert len(runs[1].deaths[0].cases) > 1  # with 4 in flight there were bystanders
    assert verdicts(runs[0]) == verdicts(runs[1])
    # A killer that dies on arrival leaves earlier-sent bystanders to replay after it: one more
    # restart, same verdicts.
    assert [len(r.deaths) for r in runs] == [2, 2]


async def test_a_bystander_in_flight_at_a_death_is_replayed_before_the_killers_other_cases() -> (
    None
):
    # bomb (three cases, each kills) fills three of four slots, alpha's valid call the fourth: all
    # four are suspects of one death. Once "bomb valid" proved itself a killer, alpha's case is
    # replayed before bomb's other two, so the restart budget (3) judges it instead of running
    # out on a second and third proof against bomb (it used to end notRun, as seen on
    # tests/client/test_hostile_targets.py dies_during_one_call at concurrency 4).
    bomb = {
        "name": "bomb",
        "description": "The bomb tool, for tests.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": {"readOnlyHint": True},
    }
    tools = (bomb, int_tool("alpha"))
    target = RestartableFake(
        snapshot=snapshot_of(tools), kills=lambda name, _: name == "bomb", dies_late=True, steps=20
    )
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=4)
    assert "alpha valid" in run.deaths[0].cases  # a bystander of the first death
    alpha = next(r for r in run.results if (r.tool, r.label) == ("alpha", "valid"))
    assert alpha.outcome is Outcome.OK
    assert "did not kill it" in (alpha.note or "")
    assert not any(r.outcome is Outcome.NOT_RUN for r in run.results)
    assert target.restarts == MAX_RESTARTS


async def test_a_death_no_replay_reproduces_is_a_flaky_crash_that_blames_no_tool() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    calls = 0

    def third_call_only(name: str, arguments: JSON) -> bool:
        nonlocal calls
        calls += 1
        return calls == 3

    target = RestartableFake(snapshot=snapshot_of(tools), kills=third_call_only)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    third = plan_of(*tools)[2]
    assert not any(r.outcome in (Outcome.PROTOCOL_CRASH, Outcome.NOT_RUN) for r in run.results)
    assert run.flaky_crashes == ((f"{third.tool} {third.label}",),)
    replayed = next(r for r in run.results if (r.tool, r.label) == (third.tool, third.label))
    assert "did not kill it" in (replayed.note or "")
    assert target.restarts == 1


async def test_a_target_that_dies_on_every_call_stops_after_the_restart_budget() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    target = RestartableFake(snapshot=snapshot_of(tools), kills=lambda name, args: True)
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    assert target.restarts == MAX_RESTARTS == 3
    assert run.stopped is not None and "restart budget (3 per audit) is used up" in run.stopped
    assert len(run.deaths) == 4
    # alpha valid died in the run and again when replayed alone, at once; then beta valid the
    # same: the restarts went to replays that name a culprit, not to fresh cases.
    assert [d.replay for d in run.deaths] == [False, True, False, True]
    crashed = [(r.tool, r.label) for r in run.results if r.outcome is Outcome.PROTOCOL_CRASH]
    assert crashed == [("alpha", "valid"), ("beta", "valid")]
    rest = [r for r in run.results if (r.tool, r.label) not in crashed]
    assert all(r.outcome is Outcome.NOT_RUN for r in rest)
    assert run.unknown_tool_probe is None
    assert len(target.calls) == 4  # one call per start, then nothing more


async def test_a_target_that_cannot_be_started_again_stops_with_the_start_error() -> None:
    tools = (int_tool("bomb"), int_tool("alpha"))
    target = RestartableFake(
        snapshot=snapshot_of(tools), kills=kills_on_string_n, failing_restarts=99
    )
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    assert target.restarts == MAX_RESTARTS
    assert run.stopped == "the target could not be started again (could not start: boom)"
    attempts = run.deaths[0].restarts
    assert len(attempts) == 3 and all(a.error and a.stderr_tail == "boom\n" for a in attempts)
    assert all(r.outcome is Outcome.NOT_RUN for r in run.results if r.tool == "alpha")


async def test_a_target_that_dies_after_its_last_answer_is_not_restarted_for_nothing() -> None:
    tools = (int_tool("alpha"),)
    target = RestartableFake(snapshot=snapshot_of(tools))

    async def respond(name: str, arguments: JSON) -> RawCall:
        if name != "alpha":  # the unknown-tool probe, the very last call
            target._alive = False
        return tool_error()

    target.respond = respond
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    assert target.restarts == 0
    assert [d.cases for d in run.deaths] == [()]
    assert run.flaky_crashes == ((),) and run.stopped is None
    assert not any(r.outcome is Outcome.NOT_RUN for r in run.results)


async def test_target_found_dead_between_calls_is_restarted_and_the_run_goes_on() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    target = RestartableFake(snapshot=snapshot_of(tools))
    answered = 0

    async def respond(name: str, arguments: JSON) -> RawCall:
        nonlocal answered
        answered += 1
        if answered == 1:
            target._alive = False  # the first answer arrives, then the process is gone
        return tool_error()

    target.respond = respond
    with anyio.fail_after(5):
        run = await run_fuzz(target, tools, concurrency=1)
    assert run.results[0].outcome is Outcome.TOOL_ERROR
    assert not any(r.outcome is Outcome.NOT_RUN for r in run.results)
    assert target.restarts == 1
    assert run.deaths[0].cases == ()
    assert "between calls" in run.deaths[0].cause and "alpha valid" in run.deaths[0].cause
    assert run.flaky_crashes == ((),)


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
    total = len(run.results) + (run.non_object_probe is not None)
    assert [e[0] for e in events] == list(range(1, total + 1))
    assert {e[1] for e in events} == {total}
    labels = {f"{r.tool} {r.label}" for r in run.results}
    if run.non_object_probe is not None:
        labels.add(f"{run.non_object_probe.tool} {run.non_object_probe.label}")
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
    assert "--fuzz-destructive" in skipped["wipe"]
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
