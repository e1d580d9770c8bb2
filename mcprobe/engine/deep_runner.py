"""Send the deep pass of issue 25 to a live target: per tool, a working base call, then one
field changed at a time to a schema-valid edge value (``core/deep/edges.py`` plans them), judged
by the oracles (``core/deep/oracles.py``). Only the I/O is here; ``planner``, ``judge`` and
``corruption`` are injectable so tests drive the runner with in-memory fakes.

Rules the report relies on:

- **Consent and bases.** Only tools the fuzz run called (``FuzzRun.coverage.fuzzed_tools``, the
  same selection and consent) are deep-fuzzed, in listing order, and only those whose valid
  control ended ok and conclusive (its final arguments, after listed-value and setup retries,
  are the base; its ``source`` the base's provenance). Every other tool the fuzz run called is
  in ``DeepRun.skipped`` with why. ``path_edges``: the caller's word that path-like fields of
  writing tools may be changed (the target is isolated, or writes were consented to);
  read-only tools always get them.
- **The base again.** Each tool's base is sent once more first: that fresh answer and its
  latency are what the oracles compare the edges with. A base that no longer succeeds stops the
  tool (``DeepTool.stopped``), no edge is sent.
- **Limits.** Edges are sent ``concurrency`` at a time, each with the per-call timeout
  ``deep_timeout`` (min of the audit's per-call timeout and ``max(5 s, 50 × the base's
  latency)``): a tool that answers its base in 2 ms and then hangs is not waited on for 30 s.
  A tool that timed out on ``MAX_TIMEOUTS_PER_TOOL`` (2) edges gets no more. The plan's per-tool
  cap bounds the edges. The whole pass has a time budget (``deep_budget``: 3 s per tool with a
  working base by default, never past the audit's deadline); once it is spent, nothing more is
  sent and the tools not finished say so (``DeepRun.budget_hit``).
- **Death.** An edge that comes back ``TRANSPORT_LOST`` (or leaves the target dead) is a
  suspect, like the fuzz runner's: the target is restarted (``RestartableTarget``, within the
  audit's restart budget: what the fuzz run left of ``MAX_RESTARTS``), and each suspect is
  replayed alone once. Only a replay that kills the target again marks the answer
  ``replayed=True`` (the crash oracle reads it); otherwise the replay's own answer is the
  edge's answer and the death is noted as flaky (``DeepTool.notes``), blaming nothing.
  A target the pass leaves dead is started again at its end (budget permitting), for the
  checks that follow.
- **Read-after-write.** For a tool that writes (not ``readOnlyHint: true``) the edges are sent
  one at a time; the bases of up to ``MAX_REREADS`` read-only tools whose fuzz-run bases were
  ok (those whose names share a noun with the writer's first: ``core/deep/readers.py``) are
  sent before its first edge and again after each of its edges that answered ok, and
  ``judge_corruption`` compares each re-read with the one before it (a reader found corrupted
  is not re-read again for that writer: the first write that broke it is the reproduction).
- **Standard error.** When a call was alone in flight, the target's stderr written meanwhile
  (``Target.stderr_tail`` before and after: cheap, a bounded tail) is kept with its answer as
  corroboration; concurrent calls get none (it could belong to any of them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import anyio

from mcprobe.core.cases.selection import ConsentLevel, consent_level
from mcprobe.core.deep.edges import plan_edges
from mcprobe.core.deep.model import (
    DEFAULT_SEED,
    MAX_TIMEOUTS_PER_TOOL,
    DeepAnswer,
    DeepFinding,
    DeepPlan,
    DeepRun,
    DeepTool,
)
from mcprobe.core.deep.oracles import judge_corruption, judge_tool
from mcprobe.core.deep.readers import related_readers
from mcprobe.core.knobs import DEEP, EXAMPLES, SEED, FrontEnd
from mcprobe.core.model import JSON, CaseResult, FuzzRun, Outcome, RawCall, RawKind
from mcprobe.core.target_protocol import RestartableTarget, Target
from mcprobe.engine.fuzz_runner import DEFAULT_CONCURRENCY, MAX_RESTARTS, ProgressCallback
from mcprobe.engine.timeline import LOGGER

__all__ = [
    "BASE_LATENCY_FACTOR",
    "MAX_REREADS",
    "MIN_DEEP_TIMEOUT",
    "SECONDS_PER_TOOL",
    "CorruptionJudge",
    "Judge",
    "Planner",
    "deep_budget",
    "deep_notes",
    "deep_timeout",
    "new_stderr",
    "run_deep",
    "working_base",
]

SECONDS_PER_TOOL = 3.0  # the default time budget per tool with a working base (issue 25: ≤ 3 s)
MIN_DEEP_TIMEOUT = 5.0  # seconds: an edge is never cut shorter than this…
BASE_LATENCY_FACTOR = 50  # …else at 50 × the base's latency (or the per-call timeout, if lower)
MAX_REREADS = 5  # read-only tools re-read after each ok write of a writing tool

Planner = Callable[..., DeepPlan]
"""``plan_edges(tool, base, base_source, *, seed, path_edges)``."""
Judge = Callable[..., tuple[DeepFinding, ...]]
"""``judge_tool(tool, plan, base, answers, *, call_timeout)``."""
CorruptionJudge = Callable[[DeepAnswer, str, JSON, RawCall, RawCall, JSON], DeepFinding | None]
"""``judge_corruption(writer, read_tool, read_arguments, before, after, base)``."""


SLOW_BASE_MS = 1000.0 * SECONDS_PER_TOOL / 2  # a base slower than this gets no deep pass


def slow_base(latency_ms: float, words: FrontEnd = "cli") -> str:
    """Why a tool whose valid call is slow is not deep-fuzzed (in the front-end's words)."""
    return (
        f"its valid call took {latency_ms / 1000:.1f} s, more than half of a tool's deep budget "
        f"({SECONDS_PER_TOOL:g} s): its edges would use up the pass; give it a faster base with "
        f"{EXAMPLES.named(words)} to deep-fuzz it"
    )


def deep_budget(tools: int, remaining: float | None = None) -> float:
    """The default time budget of a deep pass over ``tools`` tools with a working base:
    ``SECONDS_PER_TOOL`` each, never more than the audit's ``remaining`` seconds."""
    budget = SECONDS_PER_TOOL * max(tools, 0)
    return budget if remaining is None else max(0.0, min(budget, remaining))


def deep_timeout(call_timeout: float | None, base_latency_ms: float) -> float:
    """The per-call timeout of a tool's edges: ``max(MIN_DEEP_TIMEOUT, BASE_LATENCY_FACTOR ×
    the base's latency)``, never above the audit's per-call timeout."""
    limit = max(MIN_DEEP_TIMEOUT, BASE_LATENCY_FACTOR * base_latency_ms / 1000.0)
    return limit if call_timeout is None else min(call_timeout, limit)


def working_base(fuzz_run: FuzzRun, tool: str) -> tuple[CaseResult | None, str]:
    """The fuzz run's valid call of ``tool`` that ended ok and conclusive (its arguments are
    the final ones, after retries), or None and why there is none."""
    valid = [r for r in fuzz_run.results if r.tool == tool and not r.malformed]
    for result in valid:
        if result.outcome is Outcome.OK and result.conclusive:
            return result, ""
    if not valid:
        return None, "no valid call of it was sent: no working base"
    first = valid[0]
    if first.outcome is Outcome.NOT_RUN:
        return None, "its valid call was not run: no working base"
    why = f" ({first.inconclusive})" if first.inconclusive else ""
    return (
        None,
        f"its valid call was refused / inconclusive ({first.outcome}){why}: no working base",
    )


def new_stderr(before: str, after: str) -> str:
    """What the target wrote to stderr between two readings of its bounded tail."""
    if after == before:
        return ""
    if after.startswith(before):
        return after[len(before) :]
    anchor = before[-32:]
    at = after.rfind(anchor) if anchor else -1
    return after if at < 0 else after[at + len(anchor) :]


def _ok(raw: RawCall) -> bool:
    result = raw.result
    return (
        raw.kind is RawKind.RESULT
        and isinstance(result, dict)
        and result.get("isError") is not True
    )


def _died(raw: RawCall, target: Target) -> bool:
    return raw.kind is RawKind.TRANSPORT_LOST or not target.alive


@dataclass
class _Entry:
    """One tool to deep-fuzz: its definition, its fuzz-run base and its plan."""

    name: str
    tool: JSON
    base: CaseResult
    plan: DeepPlan
    writes: bool


@dataclass
class _ToolState:
    """The bookkeeping of one tool's pass."""

    entry: _Entry
    limit: float
    answers: dict[int, DeepAnswer] = field(default_factory=dict)
    findings: list[DeepFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    calls: int = 0
    ticked: int = 0  # planned edges finished for the progress events
    timeouts: int = 0
    stopped: str | None = None
    base_raw: RawCall | None = None
    before: dict[str, RawCall] = field(default_factory=dict)  # reader → its last answer
    corrupted: set[str] = field(default_factory=set)


class _Pass:
    """The mutable bookkeeping of one deep pass (never leaves this module)."""

    def __init__(
        self,
        target: Target,
        *,
        concurrency: int,
        call_timeout: float | None,
        ends: float | None,
        deadline: float | None,
        budget: float,
        restarts: int,
        progress: ProgressCallback | None,
        total: int,
        judge: Judge,
        corruption: CorruptionJudge,
    ) -> None:
        self.target = target
        self.concurrency = concurrency
        self.call_timeout = call_timeout
        self.ends = ends  # the budget's end (absolute), within the audit's deadline
        self.deadline = deadline
        self.budget = budget
        self.restarts = restarts
        self.progress = progress
        self.total = total
        self.judge = judge
        self.corruption = corruption
        self.done = 0
        self.halted: str | None = None  # why nothing more can be sent (restarts, a failed start)
        self.budget_hit = False
        self._in_flight = 0
        self._starts = 0

    # ---------------------------------------------------------------- time and life

    def out_of_time(self) -> bool:
        if self.ends is not None and anyio.current_time() >= self.ends:
            self.budget_hit = True
        return self.budget_hit

    def time_reason(self) -> str:
        if self.deadline is not None and anyio.current_time() >= self.deadline:
            return "the overall audit deadline was reached"
        return f"the deep time budget ({self.budget:.1f} s) was used up"

    async def ensure_alive(self) -> bool:
        """True when the target can take a call, restarting it within the restart budget."""
        if self.halted is not None:
            return False
        if self.target.alive:
            return True
        if not isinstance(self.target, RestartableTarget):
            self.halted = "the target died and this kind of target cannot be restarted"
            return False
        while self.restarts > 0:
            if self.out_of_time():
                return False
            self.restarts -= 1
            LOGGER.info("target start: a restart during the deep pass")
            attempt = await self.target.restart()
            if attempt.ok and self.target.alive:
                return True
            if attempt.error is not None:
                self.halted = f"the target could not be started again ({attempt.error})"
                return False
        self.halted = f"the restart budget ({MAX_RESTARTS} per audit) is used up"
        return False

    # ---------------------------------------------------------------- sending

    async def call(self, name: str, arguments: JSON, timeout: float) -> tuple[RawCall, str] | None:
        """One call and the stderr written meanwhile when it was alone in flight; None when the
        budget or the deadline cut it (or left no time to send it)."""
        if self.out_of_time():
            return None
        alone = self._in_flight == 0
        starts = self._starts
        self._starts += 1
        self._in_flight += 1
        before = self.target.stderr_tail() if alone else ""
        raw: RawCall | None = None
        try:
            if self.ends is None:
                raw = await self.target.call_tool(name, arguments, timeout=timeout)
            else:
                with anyio.move_on_after(max(0.0, self.ends - anyio.current_time())):
                    raw = await self.target.call_tool(name, arguments, timeout=timeout)
        finally:
            self._in_flight -= 1
        if raw is None or (raw.kind in (RawKind.TIMEOUT, RawKind.NOT_RUN) and self.out_of_time()):
            self.budget_hit = True  # the pass's clock ran out, not the tool's
            return None
        alone = alone and self._starts == starts + 1
        return raw, new_stderr(before, self.target.stderr_tail()) if alone else ""

    async def tick(self, state: _ToolState, message: str, steps: int = 1) -> None:
        """Progress: ``steps`` more of the planned edges are finished (answered or given up)."""
        self.done += steps
        state.ticked += steps
        if self.progress is not None and steps:
            tool = state.entry.name
            await self.progress(self.done, self.total, f"{self.done}/{self.total} {tool} {message}")

    # ---------------------------------------------------------------- one tool

    async def run_tool(self, entry: _Entry, readers: Sequence[_Entry]) -> DeepTool:
        """The deep pass of one tool: its base again, its edges, their judgement."""
        started = anyio.current_time()
        state = _ToolState(entry, deep_timeout(self.call_timeout, entry.base.latency_ms))
        await self._base_again(state)  # even without edges: the pass checks the base still works
        if state.base_raw is not None and entry.plan.edges:
            await self._edges(state, readers if entry.writes else ())
        unsent = len(entry.plan.edges) - state.ticked
        if unsent:
            await self.tick(state, f"stopped: {state.stopped or 'not sent'}", unsent)
        answers = [state.answers[i] for i in sorted(state.answers)]
        findings: tuple[DeepFinding, ...] = ()
        if state.base_raw is not None and answers:
            findings = self.judge(
                entry.tool, entry.plan, state.base_raw, answers, call_timeout=state.limit
            )
        return DeepTool(
            plan=entry.plan,
            sent=len(answers),
            findings=(*findings, *state.findings),
            stopped=state.stopped,
            seconds=round(anyio.current_time() - started, 3),
            calls=state.calls,
            notes=tuple(state.notes),
        )

    async def _base_again(self, state: _ToolState) -> None:
        entry = state.entry
        if not await self.ensure_alive():
            state.stopped = self.halted or self.time_reason()
            return
        sent = await self.call(entry.name, entry.plan.base, self.call_timeout or state.limit)
        if sent is None:
            state.stopped = self.time_reason()
            return
        state.calls += 1
        raw, _ = sent
        if not _ok(raw):
            state.stopped = (
                f"its base, sent again, did not succeed ({raw.kind}"
                + (f": {raw.error_message}" if raw.error_message else "")
                + "): no working base, no edge sent"
            )
            return
        state.base_raw = raw
        state.limit = deep_timeout(self.call_timeout, raw.latency_ms)

    async def _edges(self, state: _ToolState, readers: Sequence[_Entry]) -> None:
        """Send the plan's edges in waves; after a death, replay its suspects alone."""
        pending: deque[int] = deque(range(len(state.entry.plan.edges)))
        width = 1 if readers else self.concurrency  # read-after-write needs one write at a time
        if readers:
            await self._read_all(state, readers, None)
        while pending and state.stopped is None:
            if not await self.ensure_alive():
                state.stopped = self.halted or self.time_reason()
                break
            lost = await self._wave(state, pending, 1 if state.timeouts else width, readers)
            for index in lost:
                await self._replay(state, index)
            if self.halted is not None and pending:
                state.stopped = self.halted

    async def _wave(
        self, state: _ToolState, pending: deque[int], width: int, readers: Sequence[_Entry]
    ) -> list[int]:
        """Send from ``pending`` until it is empty, the tool stops or the target dies; the
        edges that came back unanswered at a death, in send order."""
        lost: list[int] = []
        dead = False
        edges = state.entry.plan.edges

        timeouts = state.timeouts

        async def worker() -> None:
            nonlocal dead
            # A timeout ends a wide wave (the calls in flight finish): the rest go one at a time,
            # so the 2-timeout stop bounds what a hanging tool costs.
            while pending and not dead and state.stopped is None and timeouts == state.timeouts:
                if not self.target.alive:
                    dead = True
                    return
                index = pending.popleft()
                edge = edges[index]
                sent = await self.call(edge.tool, edge.arguments, state.limit)
                if sent is None:
                    pending.appendleft(index)  # never judged: it did not get its time
                    state.stopped = self.time_reason()
                    return
                state.calls += 1
                raw, stderr = sent
                if raw.kind is RawKind.TRANSPORT_LOST:
                    dead = True
                    lost.append(index)
                    continue
                dead = dead or not self.target.alive  # answered, then died: the answer stands
                await self._answered(state, index, DeepAnswer(edge, raw, stderr), readers)

        async with anyio.create_task_group() as tg:
            for _ in range(min(width, len(pending))):
                tg.start_soon(worker)
        if dead and not lost:
            state.notes.append(
                "the target died between deep calls with none in flight; no edge is blamed"
            )
        return lost

    async def _answered(
        self, state: _ToolState, index: int, answer: DeepAnswer, readers: Sequence[_Entry]
    ) -> None:
        state.answers[index] = answer
        await self.tick(state, answer.edge.label)
        if answer.raw.kind is RawKind.TIMEOUT:
            state.timeouts += 1
            if state.timeouts >= MAX_TIMEOUTS_PER_TOOL and state.stopped is None:
                state.stopped = (
                    f"timed out on {state.timeouts} edges (each given {state.limit:.1f} s): "
                    "no more edges sent"
                )
        elif readers and _ok(answer.raw) and self.target.alive:
            await self._read_all(state, readers, answer)

    async def _replay(self, state: _ToolState, index: int) -> None:
        """Replay one suspect of a death alone, on a restarted target."""
        edge = state.entry.plan.edges[index]
        if not await self.ensure_alive():
            state.notes.append(
                f"{edge.label}: in flight when the target died, and it could not be replayed "
                f"alone ({self.halted or self.time_reason()}); not judged"
            )
            await self.tick(state, f"{edge.label} not replayed")
            return
        sent = await self.call(edge.tool, edge.arguments, state.limit)
        if sent is None:
            state.stopped = self.time_reason()
            await self.tick(state, f"{edge.label} not replayed")
            return
        state.calls += 1
        raw, stderr = sent
        if _died(raw, self.target):
            state.answers[index] = DeepAnswer(edge, raw, stderr, replayed=True)
        else:
            state.notes.append(
                f"{edge.label}: in flight when the target died; replayed alone, it did not kill "
                "it (a flaky death, no finding)"
            )
            state.answers[index] = DeepAnswer(edge, raw, stderr)
        await self.tick(state, f"{edge.label} replayed")

    async def _read_all(
        self, state: _ToolState, readers: Sequence[_Entry], writer: DeepAnswer | None
    ) -> None:
        """Re-send the readers' bases; after a write (``writer``), judge each against the
        answer before it."""
        for reader in readers:
            if reader.name in state.corrupted or not self.target.alive:
                continue
            arguments = reader.base.arguments
            sent = await self.call(reader.name, arguments, state.limit)
            if sent is None:
                return
            state.calls += 1
            after, _ = sent
            before = state.before.get(reader.name)
            state.before[reader.name] = after
            if writer is None or before is None:
                continue
            found = self.corruption(
                writer, reader.name, arguments, before, after, state.entry.plan.base
            )
            if found is not None:
                state.findings.append(found)
                state.corrupted.add(reader.name)


async def run_deep(
    target: Target,
    tools: Sequence[JSON],
    fuzz_run: FuzzRun,
    *,
    seed: int = DEFAULT_SEED,
    concurrency: int = DEFAULT_CONCURRENCY,
    call_timeout: float | None = None,
    deadline: float | None = None,
    budget_seconds: float | None = None,
    progress: ProgressCallback | None = None,
    path_edges: bool = False,
    planner: Planner = plan_edges,
    judge: Judge = judge_tool,
    corruption: CorruptionJudge = judge_corruption,
    restarts: int | None = None,
    words: FrontEnd = "cli",
) -> DeepRun:
    """The deep pass over the tools ``fuzz_run`` called (``tools``: the raw definitions as
    listed). ``deadline`` is the audit's (absolute ``anyio.current_time()``); ``budget_seconds``
    the pass's own time (None: ``deep_budget``), cut at the deadline. ``path_edges``: path-like
    fields of writing tools get edges (isolation or consent to writes). ``restarts``: how many
    restarts of a dead target are left (None: what the fuzz run's deaths left of
    ``MAX_RESTARTS``). Raises ``ValueError`` for ``concurrency < 1`` (a caller bug)."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    called = set(fuzz_run.coverage.fuzzed_tools)
    entries: list[_Entry] = []
    skipped: list[tuple[str, str]] = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or not isinstance(name, str) or name not in called:
            continue
        called.discard(name)  # a duplicate listing is deep-fuzzed once
        base, why = working_base(fuzz_run, name)
        if base is None:
            skipped.append((name, why))
            continue
        if base.latency_ms > SLOW_BASE_MS:
            # Its base again and one edge would eat the budget of several tools (server-
            # everything's 10 s long-running operation took the whole pass's 39 s).
            skipped.append((name, slow_base(base.latency_ms, words)))
            continue
        writes = consent_level(tool) is not ConsentLevel.READ_ONLY
        plan = planner(
            tool,
            base.arguments,
            base.source,
            seed=seed,
            path_edges=path_edges or not writes,
        )
        entries.append(_Entry(name, tool, base, plan, writes))
    now = anyio.current_time()
    remaining = None if deadline is None else deadline - now
    budget = deep_budget(len(entries), remaining) if budget_seconds is None else budget_seconds
    if remaining is not None:
        budget = max(0.0, min(budget, remaining))
    used = sum(len(death.restarts) for death in fuzz_run.deaths)
    run = _Pass(
        target,
        concurrency=concurrency,
        call_timeout=call_timeout,
        ends=now + budget,
        deadline=deadline,
        budget=budget,
        restarts=max(0, MAX_RESTARTS - used) if restarts is None else restarts,
        progress=progress,
        total=sum(len(e.plan.edges) for e in entries),
        judge=judge,
        corruption=corruption,
    )
    readers = {e.name: e for e in entries if not e.writes}
    done: list[DeepTool] = []
    for entry in entries:
        # A writer's own kind of read first (save_note -> read_notes): ``core/deep/readers``.
        chosen = related_readers(entry.name, list(readers), MAX_REREADS) if entry.writes else []
        done.append(await run.run_tool(entry, [readers[name] for name in chosen]))
    if not target.alive and done:
        # A replay that killed it again leaves it dead: the checks after the deep pass (attack
        # probes, resources, prompts, protocol) need it up, within what the budget leaves.
        await run.ensure_alive()
    return DeepRun(
        seed=seed,
        tools=tuple(done),
        skipped=tuple(skipped),
        budget_seconds=round(budget, 3),
        budget_hit=run.budget_hit,
    )


def deep_notes(deep: DeepRun, words: FrontEnd = "cli") -> list[str]:
    """The report's notes on a deep pass: how many calls it sent with which seed (and how to
    send the same calls again, in the words of ``words``), then each tool that stopped early
    and what the runner noticed (deaths no replay reproduced)."""
    again = f"{DEEP.set(words)} {SEED.set(words, deep.seed)}"
    if words != "cli":
        again = f"{DEEP.set(words)}, {SEED.set(words, deep.seed)}"
    edges = sum(t.sent for t in deep.tools)
    budget = f" of a {deep.budget_seconds:.1f} s budget" if deep.budget_seconds is not None else ""
    seconds = sum(t.seconds for t in deep.tools)
    head = (
        f"Deep pass (seed {deep.seed}): {deep.calls} deep calls sent to {len(deep.tools)} "
        f"tool(s) ({edges} edges; the rest are the bases again, replays and re-reads) in "
        f"{seconds:.1f} s{budget}"
    )
    if deep.budget_hit:
        head += "; the time budget ran out before every edge was sent"
    if deep.skipped:
        head += f"; {len(deep.skipped)} tool(s) not deep-fuzzed (no working base)"
    notes = [f"{head}. The same seed sends the same calls again: `{again}`."]
    for tool in deep.tools:
        if tool.stopped is not None:
            notes.append(f"Deep pass, tool `{tool.plan.tool}`: stopped early: {tool.stopped}.")
        notes += [f"Deep pass, tool `{tool.plan.tool}`: {note}." for note in tool.notes]
    notes += [f"Deep pass, tool `{name}`: not deep-fuzzed: {why}." for name, why in deep.skipped]
    return notes
