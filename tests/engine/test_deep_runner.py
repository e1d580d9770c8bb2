"""The deep runner against an in-memory fake target, with an injected planner and judges: order,
the base sent again, concurrency, the 2-timeout stop, the budget, deaths and their replay,
read-after-write, the skipped tools and consent."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from mcprobe.client.connection import open_target
from mcprobe.core.deep.model import (
    DeepAnswer,
    DeepFinding,
    DeepPlan,
    DeepRun,
    Edge,
    Oracle,
)
from mcprobe.core.model import (
    JSON,
    CaseResult,
    CaseSource,
    Coverage,
    FuzzRun,
    Outcome,
    RawCall,
    RawKind,
    RestartAttempt,
    TargetDeath,
)
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.deep_runner import (
    MIN_DEEP_TIMEOUT,
    SECONDS_PER_TOOL,
    deep_budget,
    deep_timeout,
    new_stderr,
    run_deep,
)
from tests.support import builders
from tests.support.fake_target import (
    FakeTarget,
    RestartableFake,
    audit_open,
    int_tool,
    ok_text,
    snapshot_of,
    tool_error,
)
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

READ_ONLY: JSON = {"readOnlyHint": True}
WRITES: JSON = {"readOnlyHint": False, "destructiveHint": False}


def base_of(name: str, outcome: Outcome = Outcome.OK, **extra: Any) -> CaseResult:
    return builders.case_result(
        name, "valid", outcome, {"n": 1}, latency_ms=1.0, source=CaseSource.USER, **extra
    )


def fuzz_run_of(*results: CaseResult, called: tuple[str, ...] | None = None) -> FuzzRun:
    names = called if called is not None else tuple(dict.fromkeys(r.tool for r in results))
    return FuzzRun(
        results=tuple(results),
        coverage=Coverage(total_tools=len(names), fuzzed_tools=names, skipped=()),
    )


@dataclass
class Planner:
    """Plans ``count`` edges per tool: the base with ``n`` = 100, 101, …"""

    count: int = 3
    seen: list[tuple[str, JSON, CaseSource, int, bool]] = field(default_factory=list)

    def __call__(
        self, tool: JSON, base: JSON, source: CaseSource, *, seed: int, path_edges: bool = True
    ) -> DeepPlan:
        assert isinstance(tool, dict) and isinstance(base, dict)
        name = str(tool["name"])
        self.seen.append((name, base, source, seed, path_edges))
        edges = tuple(
            Edge(name, "n", f"e{i}", 100 + i, {**base, "n": 100 + i}, f"deep:n:e{i}")
            for i in range(self.count)
        )
        return DeepPlan(tool=name, base=base, base_source=source, edges=edges)


@dataclass
class Judge:
    """Records what it was given; finds nothing."""

    seen: list[tuple[str, RawCall, tuple[DeepAnswer, ...], float]] = field(default_factory=list)

    def __call__(
        self,
        tool: JSON,
        plan: DeepPlan,
        base: RawCall,
        answers: Any,
        *,
        call_timeout: float,
    ) -> tuple[DeepFinding, ...]:
        self.seen.append((plan.tool, base, tuple(answers), call_timeout))
        return ()

    def answers(self, tool: str) -> tuple[DeepAnswer, ...]:
        return next(answers for name, _, answers, _ in self.seen if name == tool)


def n_of(arguments: JSON) -> int:
    assert isinstance(arguments, dict)
    value = arguments["n"]
    assert isinstance(value, int)
    return value


async def deep(
    target: FakeTarget, tools: tuple[JSON, ...], fuzz_run: FuzzRun, **knobs: Any
) -> DeepRun:
    knobs.setdefault("planner", Planner())
    knobs.setdefault("judge", Judge())
    knobs.setdefault("concurrency", 1)
    with anyio.fail_after(5):
        return await run_deep(target, tools, fuzz_run, **knobs)


def fake(*tools: JSON, cls: type[FakeTarget] = FakeTarget, **kwargs: Any) -> FakeTarget:
    return cls(snapshot=snapshot_of(tuple(tools)), **kwargs)


async def test_tools_are_deep_fuzzed_in_listing_order_each_after_its_base_is_sent_again() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    target = fake(*tools)
    judge = Judge()
    # The fuzz run lists beta's result first: the listing decides the order, not the results.
    run = await deep(target, tools, fuzz_run_of(base_of("beta"), base_of("alpha")), judge=judge)
    assert target.calls == [
        ("alpha", {"n": 1}),
        ("alpha", {"n": 100}),
        ("alpha", {"n": 101}),
        ("alpha", {"n": 102}),
        ("beta", {"n": 1}),
        ("beta", {"n": 100}),
        ("beta", {"n": 101}),
        ("beta", {"n": 102}),
    ]
    assert [t.plan.tool for t in run.tools] == ["alpha", "beta"]
    assert [t.sent for t in run.tools] == [3, 3]
    assert run.calls == 8
    assert [name for name, *_ in judge.seen] == ["alpha", "beta"]
    assert all(base.kind is RawKind.RESULT for _, base, _, _ in judge.seen)


async def test_the_plan_gets_the_fuzz_runs_final_arguments_source_and_the_seed() -> None:
    tools = (int_tool("alpha"),)
    planner = Planner()
    retried = builders.case_result(
        "alpha", "valid", Outcome.OK, {"n": 7}, latency_ms=1.0, source=CaseSource.SCHEMA
    )
    run = await deep(fake(*tools), tools, fuzz_run_of(retried), planner=planner, seed=42)
    assert planner.seen == [("alpha", {"n": 7}, CaseSource.SCHEMA, 42, True)]
    assert run.seed == 42


async def test_the_judge_gets_the_answers_in_plan_order_not_completion_order() -> None:
    tools = (int_tool("alpha"),)

    async def respond(name: str, arguments: JSON) -> RawCall:
        for _ in range(200 - 10 * n_of(arguments) % 200):  # later edges answer sooner
            await anyio.lowlevel.checkpoint()
        return ok_text(str(n_of(arguments)))

    judge = Judge()
    await deep(
        fake(*tools, respond=respond),
        tools,
        fuzz_run_of(base_of("alpha")),
        planner=Planner(count=8),
        judge=judge,
        concurrency=4,
    )
    assert [a.edge.label for a in judge.answers("alpha")] == [f"deep:n:e{i}" for i in range(8)]


async def test_no_more_edges_are_in_flight_than_the_concurrency() -> None:
    tools = (int_tool("alpha"),)
    target = fake(*tools, steps=20)
    await deep(
        target, tools, fuzz_run_of(base_of("alpha")), planner=Planner(count=20), concurrency=3
    )
    assert target.max_in_flight == 3


async def test_edges_get_the_deep_limit_derived_from_the_base_latency() -> None:
    tools = (int_tool("alpha"),)
    target = fake(*tools)  # ok_text answers in 1 ms: the limit is the 5 s floor
    await deep(target, tools, fuzz_run_of(base_of("alpha")), call_timeout=30.0)
    assert target.timeouts == [30.0, MIN_DEEP_TIMEOUT, MIN_DEEP_TIMEOUT, MIN_DEEP_TIMEOUT]


def test_the_deep_limit_is_fifty_times_the_base_but_never_above_the_call_timeout() -> None:
    assert deep_timeout(30.0, 1.0) == MIN_DEEP_TIMEOUT
    assert deep_timeout(30.0, 200.0) == 10.0
    assert deep_timeout(8.0, 2000.0) == 8.0
    assert deep_timeout(None, 2000.0) == 100.0


async def test_a_tool_that_times_out_twice_gets_no_more_edges_and_the_next_tool_goes_on() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))

    async def respond(name: str, arguments: JSON) -> RawCall:
        if name == "alpha" and n_of(arguments) >= 100:
            return RawCall(kind=RawKind.TIMEOUT, latency_ms=5000.0)
        return ok_text()

    target = fake(*tools, respond=respond)
    run = await deep(
        target, tools, fuzz_run_of(base_of("alpha"), base_of("beta")), planner=Planner(count=6)
    )
    alpha, beta = run.tools
    assert alpha.stopped is not None and "timed out on 2 edges" in alpha.stopped
    assert alpha.sent == 2
    assert len([c for c in target.calls if c[0] == "alpha"]) == 1 + 2
    assert beta.stopped is None and beta.sent == 6


async def test_after_a_timeout_no_edge_is_sent_beside_the_ones_in_flight() -> None:
    tools = (int_tool("alpha"),)

    async def respond(name: str, arguments: JSON) -> RawCall:
        if n_of(arguments) == 100:
            return RawCall(kind=RawKind.TIMEOUT)
        return ok_text()

    target = fake(*tools, respond=respond, steps=20)
    run = await deep(
        target, tools, fuzz_run_of(base_of("alpha")), planner=Planner(count=12), concurrency=4
    )
    assert run.tools[0].sent == 12  # one timeout: the tool goes on
    assert target.max_in_flight == 4
    # e0..e3 went out together; once e0 timed out, the rest went one at a time.
    assert run.tools[0].stopped is None


async def test_a_spent_budget_sends_nothing_more_and_says_so() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))
    target = fake(*tools)
    run = await deep(
        target, tools, fuzz_run_of(base_of("alpha"), base_of("beta")), budget_seconds=0
    )
    assert target.calls == []
    assert run.budget_hit is True
    assert run.budget_seconds == 0
    assert all(t.stopped is not None and "budget" in t.stopped for t in run.tools)


async def test_the_budget_defaults_to_three_seconds_per_tool_within_the_deadline() -> None:
    assert deep_budget(4) == 4 * SECONDS_PER_TOOL
    assert deep_budget(4, remaining=5.0) == 5.0
    tools = (int_tool("alpha"), int_tool("beta"))
    run = await deep(fake(*tools), tools, fuzz_run_of(base_of("alpha"), base_of("beta")))
    assert run.budget_seconds == 2 * SECONDS_PER_TOOL
    assert run.budget_hit is False


async def test_a_death_reproduced_alone_is_a_replayed_answer() -> None:
    tools = (int_tool("alpha"),)
    target = fake(*tools, cls=RestartableFake, kills=lambda name, args: n_of(args) == 101)
    judge = Judge()
    run = await deep(target, tools, fuzz_run_of(base_of("alpha")), judge=judge)
    answers = {a.edge.label: a for a in judge.answers("alpha")}
    assert answers["deep:n:e1"].replayed is True
    assert answers["deep:n:e1"].raw.kind is RawKind.TRANSPORT_LOST
    assert answers["deep:n:e0"].replayed is False and answers["deep:n:e2"].replayed is False
    assert isinstance(target, RestartableFake) and target.restarts == 2  # the death, the replay's
    assert [n_of(args) for _, args in target.calls].count(101) == 2
    assert run.tools[0].notes == ()


async def test_a_death_the_replay_does_not_reproduce_is_flaky_and_the_replay_is_the_answer() -> (
    None
):
    tools = (int_tool("alpha"),)
    killed: list[int] = []

    def once(name: str, arguments: JSON) -> bool:
        if n_of(arguments) == 101 and not killed:
            killed.append(1)
            return True
        return False

    target = fake(*tools, cls=RestartableFake, kills=once)
    judge = Judge()
    run = await deep(target, tools, fuzz_run_of(base_of("alpha")), judge=judge)
    replayed = {a.edge.label: a for a in judge.answers("alpha")}["deep:n:e1"]
    assert replayed.replayed is False
    assert replayed.raw.kind is RawKind.RESULT
    assert any("flaky" in note for note in run.tools[0].notes)
    assert run.tools[0].sent == 3


async def test_a_death_with_no_restart_left_stops_the_tool_without_blaming_the_edge() -> None:
    tools = (int_tool("alpha"),)
    target = fake(*tools, cls=RestartableFake, kills=lambda name, args: n_of(args) == 100)
    judge = Judge()
    death = TargetDeath(cases=("alpha valid",), cause="gone", restarts=(RestartAttempt(0.1),) * 3)
    fuzz = FuzzRun(results=(base_of("alpha"),), coverage=fuzz_run_of(base_of("alpha")).coverage)
    fuzz = FuzzRun(results=fuzz.results, coverage=fuzz.coverage, deaths=(death,))
    run = await deep(target, tools, fuzz, judge=judge)
    assert run.tools[0].stopped is not None and "restart budget" in run.tools[0].stopped
    assert judge.seen == []  # no answer at all: nothing to judge
    assert any("could not be replayed" in note for note in run.tools[0].notes)


async def test_after_each_ok_write_the_read_only_bases_are_read_again_and_judged() -> None:
    tools = (
        int_tool("write", annotations=WRITES),
        int_tool("read", annotations=READ_ONLY),
    )
    broken: list[int] = []

    async def respond(name: str, arguments: JSON) -> RawCall:
        if name == "write" and n_of(arguments) == 101:
            broken.append(1)
        if name == "read" and broken:
            return tool_error("database file is malformed")
        return ok_text()

    seen: list[tuple[str, str, RawCall, RawCall]] = []

    def corruption(
        writer: DeepAnswer,
        read_tool: str,
        read_arguments: JSON,
        before: RawCall,
        after: RawCall,
        base: JSON,
    ) -> DeepFinding | None:
        seen.append((writer.edge.label, read_tool, before, after))
        if _is_error(after) and not _is_error(before):
            return DeepFinding(
                writer.edge.tool, Oracle.CORRUPTION, "n", "e", writer.edge.arguments, base,
                "", "read broke", writer.edge.label,
            )  # fmt: skip
        return None

    target = fake(*tools, respond=respond)
    run = await deep(
        target,
        tools,
        fuzz_run_of(base_of("write"), base_of("read")),
        corruption=corruption,
        concurrency=4,
    )
    assert [(label, reader) for label, reader, _, _ in seen] == [
        ("deep:n:e0", "read"),
        ("deep:n:e1", "read"),
    ]  # read broken after e1: not read again for this writer
    assert not _is_error(seen[1][2]) and _is_error(seen[1][3])
    write = run.tools[0]
    assert [f.oracle for f in write.findings] == [Oracle.CORRUPTION]
    assert write.findings[0].label == "deep:n:e1"
    # Before the first edge, and after e0 and e1; a writer's edges go one at a time.
    assert [name for name, _ in target.calls[:6]] == [
        "write",
        "read",
        "write",
        "read",
        "write",
        "read",
    ]
    assert target.max_in_flight == 1


def _is_error(raw: RawCall) -> bool:
    return isinstance(raw.result, dict) and raw.result.get("isError") is True


async def test_a_read_only_tool_is_not_re_read_after_its_own_edges() -> None:
    tools = (int_tool("read", annotations=READ_ONLY),)
    calls: list[str] = []

    def corruption(*args: Any) -> DeepFinding | None:
        calls.append("judged")
        return None

    target = fake(*tools)
    await deep(target, tools, fuzz_run_of(base_of("read")), corruption=corruption)
    assert calls == []
    assert len(target.calls) == 4


async def test_path_edges_of_writing_tools_follow_the_callers_consent() -> None:
    tools = (
        int_tool("write", annotations=WRITES),
        int_tool("read", annotations=READ_ONLY),
    )
    planner = Planner(count=0)
    await deep(fake(*tools), tools, fuzz_run_of(base_of("write"), base_of("read")), planner=planner)
    assert [(name, paths) for name, *_, paths in planner.seen] == [("write", False), ("read", True)]
    planner = Planner(count=0)
    await deep(
        fake(*tools),
        tools,
        fuzz_run_of(base_of("write"), base_of("read")),
        planner=planner,
        path_edges=True,
    )
    assert [(name, paths) for name, *_, paths in planner.seen] == [("write", True), ("read", True)]


async def test_tools_without_a_working_base_are_skipped_with_why() -> None:
    tools = (int_tool("refused"), int_tool("unsure"), int_tool("alpha"))
    fuzz = fuzz_run_of(
        base_of("refused", Outcome.TOOL_ERROR),
        base_of("unsure", inconclusive="the machine's network is down"),
        builders.case_result("alpha", "wrong_type:n", Outcome.TOOL_ERROR, {"n": "x"}),
    )
    target = fake(*tools)
    run = await deep(target, tools, fuzz)
    assert target.calls == []
    assert run.tools == ()
    reasons = dict(run.skipped)
    assert set(reasons) == {"refused", "unsure", "alpha"}
    assert "refused / inconclusive (toolError)" in reasons["refused"]
    assert "network is down" in reasons["unsure"]
    assert "no valid call" in reasons["alpha"]
    assert all("no working base" in why for why in reasons.values())


async def test_a_base_that_fails_when_sent_again_sends_no_edge() -> None:
    tools = (int_tool("alpha"),)

    async def respond(name: str, arguments: JSON) -> RawCall:
        return tool_error("not today")

    target = fake(*tools, respond=respond)
    judge = Judge()
    run = await deep(target, tools, fuzz_run_of(base_of("alpha")), judge=judge)
    assert target.calls == [("alpha", {"n": 1})]
    assert run.tools[0].stopped is not None and "no working base" in run.tools[0].stopped
    assert judge.seen == []


async def test_no_tool_the_fuzz_run_did_not_call_is_called() -> None:
    tools = (int_tool("alpha"), int_tool("secret_writer", annotations=WRITES))
    # Even with a result for it, a tool outside the fuzz run's selection is not called.
    fuzz = fuzz_run_of(base_of("alpha"), base_of("secret_writer"), called=("alpha",))
    target = fake(*tools)
    run = await deep(target, tools, fuzz)
    assert {name for name, _ in target.calls} == {"alpha"}
    assert [t.plan.tool for t in run.tools] == ["alpha"]


async def test_progress_counts_every_planned_edge_even_when_a_tool_stops() -> None:
    tools = (int_tool("alpha"), int_tool("beta"))

    async def respond(name: str, arguments: JSON) -> RawCall:
        if name == "alpha" and n_of(arguments) >= 100:
            return RawCall(kind=RawKind.TIMEOUT)
        return ok_text()

    events: list[tuple[int, int, str]] = []

    async def progress(done: int, total: int, message: str) -> None:
        events.append((done, total, message))

    await deep(
        fake(*tools, respond=respond),
        tools,
        fuzz_run_of(base_of("alpha"), base_of("beta")),
        planner=Planner(count=4),
        progress=progress,
    )
    assert events[-1][:2] == (8, 8)
    assert [done for done, _, _ in events] == sorted(done for done, _, _ in events)
    assert events[0][2] == "1/8 alpha deep:n:e0"
    assert any("alpha stopped: timed out" in message for _, _, message in events)


def test_new_stderr_is_what_the_tail_gained_between_two_readings() -> None:
    assert new_stderr("", "") == ""
    assert new_stderr("a\n", "a\nTraceback\n") == "Traceback\n"
    tail = "x" * 100 + "anchor-line\n"
    rolled = tail[50:] + "boom\n"  # the bounded tail dropped its start
    assert new_stderr(tail, rolled) == "boom\n"


async def test_stderr_is_kept_with_an_answer_only_for_a_call_alone_in_flight() -> None:
    tools = (int_tool("alpha"),)

    @dataclass
    class Noisy(FakeTarget):
        log: str = ""

        def stderr_tail(self) -> str:
            return self.log

    async def respond(name: str, arguments: JSON) -> RawCall:
        target.log += f"handled {n_of(arguments)}\n"
        return ok_text()

    target = Noisy(snapshot=snapshot_of(tools), respond=respond)
    judge = Judge()
    await deep(target, tools, fuzz_run_of(base_of("alpha")), judge=judge)
    assert [a.stderr for a in judge.answers("alpha")] == [
        "handled 100\n",
        "handled 101\n",
        "handled 102\n",
    ]
    target.log = ""
    judge = Judge()
    await deep(target, tools, fuzz_run_of(base_of("alpha")), judge=judge, concurrency=3)
    assert all(a.stderr == "" for a in judge.answers("alpha"))


@dataclass
class KillerPlanner(Planner):
    """Plans edges ``n`` = 100, 101, … but puts ``"boom"`` (fragile.py dies on a string) at
    ``e1``: not schema-valid, but the runner only sends what it is given."""

    def __call__(
        self, tool: JSON, base: JSON, source: CaseSource, *, seed: int, path_edges: bool = True
    ) -> DeepPlan:
        plan = super().__call__(tool, base, source, seed=seed, path_edges=path_edges)
        killer = plan.edges[1]
        boom = Edge(killer.tool, "n", "e1", "boom", {"n": "boom"}, killer.label)
        return DeepPlan(
            plan.tool, plan.base, plan.base_source, (plan.edges[0], boom, *plan.edges[2:])
        )


async def test_over_real_stdio_a_killing_edge_is_replayed_alone_and_its_stderr_kept() -> None:
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(TARGETS_DIR / "fragile.py"), "tools=fragile"),
        sandbox="off",
    )
    judge = Judge()
    with anyio.fail_after(60):
        async with open_target(spec) as connection:
            tools = connection.snapshot.tools
            fuzz = fuzz_run_of(base_of("fragile"))
            run = await run_deep(
                connection, tools, fuzz, planner=KillerPlanner(count=4), judge=judge
            )
            assert connection.alive  # restarted after the replay's death, for what comes next
    answers = {a.edge.label: a for a in judge.answers("fragile")}
    assert answers["deep:n:e1"].replayed is True
    assert "could not handle n='boom'" in answers["deep:n:e1"].stderr
    assert [answers[f"deep:n:e{i}"].raw.kind for i in (0, 2, 3)] == [RawKind.RESULT] * 3
    assert run.tools[0].sent == 4 and run.tools[0].notes == ()


@pytest.mark.parametrize(("fuzz_writes", "path_edges"), [(False, False), (True, True)])
async def test_the_audit_runs_the_deep_pass_with_path_edges_only_under_consent_to_writes(
    monkeypatch: pytest.MonkeyPatch, fuzz_writes: bool, path_edges: bool
) -> None:
    import mcprobe.engine.audit as audit_module

    seen: list[dict[str, Any]] = []

    async def spy(target: Any, tools: Any, fuzz_run: FuzzRun, **knobs: Any) -> DeepRun:
        seen.append({"fuzzed": fuzz_run.coverage.fuzzed_tools, **knobs})
        return await run_deep(target, tools, fuzz_run, **knobs)

    monkeypatch.setattr(audit_module, "run_deep", spy)
    tools = (int_tool("alpha"),)
    with anyio.fail_after(5):
        report = await audit_open(
            fake(*tools), deep=True, seed=9, fuzz_writes=fuzz_writes, surface=False
        )
    assert len(seen) == 1
    assert seen[0]["fuzzed"] == ("alpha",)  # deep implies fuzz: the fuzz run came first
    assert (seen[0]["seed"], seen[0]["path_edges"]) == (9, path_edges)
    assert any(note.startswith("Deep pass (seed 9): ") for note in report.notes)


async def test_a_tool_whose_valid_call_is_slow_is_skipped_with_why_in_the_front_ends_words() -> (
    None
):
    tools = (int_tool("slow"), int_tool("fast"))
    slow = builders.case_result(
        "slow", "valid", Outcome.OK, {"n": 1}, latency_ms=10_000.0, source=CaseSource.USER
    )
    target = fake(*tools)
    run = await deep(target, tools, fuzz_run_of(slow, base_of("fast")))
    assert [name for name, _ in target.calls] == ["fast"] * len(target.calls)
    reasons = dict(run.skipped)
    assert "took 10.0 s" in reasons["slow"] and "--examples FILE" in reasons["slow"]
    tool_words = await deep(fake(*tools), tools, fuzz_run_of(slow), words="tool")
    assert "with examples to deep-fuzz it" in dict(tool_words.skipped)["slow"]
